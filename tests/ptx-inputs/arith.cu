// Parser and validation input: integer, float, half and bfloat16
// arithmetic, conversions, atomics of every kind and the cache-hinted
// loads and stores, as nvcc emits them (every instruction type and
// operand form the operand signatures of docs/ptx-validation.md check).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdint>

__global__ void ints(int *a, unsigned *u, long long *l, unsigned long long *ul,
                     short *s, unsigned char *c, int n) {
  int i = threadIdx.x;
  int x = a[i], y = a[i + 1];
  unsigned ux = u[i], uy = u[i + 1];
  a[i] = x / y + x % y + __mulhi(x, y) + __mul24(x, y) + __sad(x, y, 3) +
         __popc(ux) + __clz(x) + __ffs(x) + __brev(ux) + __byte_perm(ux, uy, 0x3210) +
         __funnelshift_l(ux, uy, x) + __funnelshift_rc(ux, uy, x) + __dp4a(x, y, 7) +
         __dp2a_lo(x, y, 5) + abs(x) + min(x, y) + max(ux, uy) + (x >> (y & 31)) +
         (int)(ux >> (uy & 31)) + __hadd(x, y) + __rhadd(x, y) + __vabsdiffu4(ux, uy) +
         __vadd2(ux, uy) + __vmaxs4(ux, uy) + __usad(ux, uy, 1);
  long long lx = l[i], ly = l[i + 1];
  unsigned long long ulx = ul[i];
  l[i] = lx / ly + lx % ly + __mul64hi(lx, ly) + __popcll(ulx) + __clzll(lx) + __ffsll(lx) +
         (long long)__brevll(ulx) + llabs(lx) + llmin(lx, ly) + (lx >> (x & 63)) +
         (long long)(ulx >> (x & 63)) + (long long)x * y + (long long)ux * uy;
  ul[i] = (unsigned long long)ux * uy + ulx / (ul[i + 1] | 1) + ulx % (ul[i + 1] | 1);
  s[i] = (short)(s[i] * s[i + 1] + s[i] / (s[i + 1] | 1));
  c[i] = (unsigned char)(c[i] + c[i + 1] * 3 + (c[i] >> 1));
  if (n > 3) a[i] = (int)(char)x + (int)(short)y + (int)(unsigned short)x;
}

__global__ void floats(float *f, double *d, int *a, long long *l) {
  int i = threadIdx.x;
  float x = f[i], y = f[i + 1], z = f[i + 2];
  f[i] = x / y + sqrtf(x) + rsqrtf(y) + __fdividef(x, y) + __expf(x) + __logf(y) +
         __sinf(x) + __cosf(y) + __powf(x, y) + tanhf(x) + exp2f(y) + log2f(x) +
         fmaf(x, y, z) + __fmul_rz(x, y) + __fadd_rd(x, y) + __fsub_ru(x, y) +
         __fmaf_rn(x, y, z) + __frcp_rn(x) + __fsqrt_rz(y) + __fdiv_rz(x, y) +
         fminf(x, y) + fmaxf(x, z) + fabsf(x) + copysignf(x, y) + truncf(x) + floorf(y) +
         ceilf(z) + rintf(x) + roundf(y) + __saturatef(x) + (isnan(x) ? 1.f : 0.f) +
         (isinf(y) ? 2.f : 0.f) + (float)a[i] + (float)l[i] + (float)(unsigned)a[i + 1];
  double dx = d[i], dy = d[i + 1];
  d[i] = dx / dy + sqrt(dx) + rsqrt(dy) + fma(dx, dy, dx) + __drcp_rn(dx) + __dsqrt_rz(dy) +
         __dadd_rd(dx, dy) + __dmul_ru(dx, dy) + fmin(dx, dy) + fabs(dx) + copysign(dx, dy) +
         trunc(dx) + floor(dy) + (double)x + (double)a[i] + (double)l[i] + (isnan(dx) ? 1 : 0);
  a[i] = (int)x + __float2int_rd(y) + __float2uint_ru(z) + (int)dx + __double2int_rz(dy) +
         __float_as_int(x) + (int)__double2hiint(dx) + __float2int_rn(x);
  l[i] = (long long)x + __float2ll_rd(y) + (long long)__double2ull_ru(dx) +
         __double_as_longlong(dy);
}

__global__ void halves(__half *h, __half2 *h2, __nv_bfloat16 *b, __nv_bfloat162 *b2,
                       float *f) {
  int i = threadIdx.x;
  __half x = h[i], y = h[i + 1];
  h[i] = __hadd(x, y) * __hsub(x, y) + __hfma(x, y, x) + __hdiv(x, y) + hsqrt(x) +
         hexp2(y) + __hmax(x, y) + __habs(x) + __hneg(y) + __float2half_rz(f[i]) +
         __int2half_rn(i) + (__hlt(x, y) ? x : y) + htanh_approx(x);
  __half2 p = h2[i], q = h2[i + 1];
  h2[i] = __hadd2(p, q) * __hmul2(p, q) + __hfma2(p, q, p) + __hmax2(p, q) + h2exp2(p) +
          __habs2(q) + __floats2half2_rn(f[i], f[i + 1]) + __hmin2_nan(p, q) +
          __hfma2_relu(p, q, p);
  __nv_bfloat16 bx = b[i], by = b[i + 1];
  b[i] = __hadd(bx, by) * __hmul(bx, by) + __hfma(bx, by, bx) + __hmax(bx, by) +
         __float2bfloat16_rn(f[i]) + __habs(bx) + __hneg(by);
  __nv_bfloat162 bp = b2[i], bq = b2[i + 1];
  b2[i] = __hadd2(bp, bq) + __hfma2(bp, bq, bp) + __hmin2(bp, bq) +
          __floats2bfloat162_rn(f[i], f[i + 1]);
  f[i] = __half2float(x) + __low2float(p) + __bfloat162float(bx) + __high2float(bp) +
         (float)__half2int_rz(y) + __half2float(__ushort_as_half(__half_as_ushort(x) ^ 1));
}

__global__ void atomics(int *a, unsigned *u, unsigned long long *ul, long long *l, float *f,
                        double *d, __half *h, __half2 *h2, __nv_bfloat16 *b,
                        unsigned short *us) {
  int i = threadIdx.x;
  int r = atomicAdd(a, i) + atomicSub(a + 1, i) + atomicMin(a + 2, i) + atomicMax(a + 3, i) +
          atomicExch(a + 4, i) + atomicCAS(a + 5, i, i + 1) + atomicAnd(a + 6, i) +
          atomicOr(a + 7, i) + atomicXor(a + 8, i);
  unsigned v = atomicInc(u, 100) + atomicDec(u + 1, 100) + atomicAdd(u + 2, 1u);
  unsigned long long w = atomicAdd(ul, 1ull) + atomicCAS(ul + 1, 1ull, 2ull) +
                         atomicExch(ul + 2, 3ull) + atomicMin(ul + 3, 4ull) + atomicAnd(ul + 4, 5ull);
  long long z = atomicMin(l, (long long)i) + atomicMax(l + 1, (long long)i);
  float g = atomicAdd(f, 1.f) + atomicExch(f + 1, 2.f);
  double e = atomicAdd(d, 1.0);
  __half hh = atomicAdd(h, __float2half(1.f));
  __half2 hp = atomicAdd(h2, __floats2half2_rn(1.f, 2.f));
  __nv_bfloat16 bb = atomicAdd(b, __float2bfloat16(1.f));
  unsigned short s = atomicCAS(us, (unsigned short)1, (unsigned short)2);
  atomicAdd(a + 9, 1);
  atomicAdd_block(a + 10, 1);
  atomicAdd_system(a + 11, 1);
  a[32 + i] = r + (int)v + (int)w + (int)z + (int)g + (int)e + (int)__half2float(hh) +
              (int)__low2float(hp) + (int)__bfloat162float(bb) + s;
}

__global__ void memory(const float4 *__restrict__ in4, float4 *out4, const int2 *in2,
                       int *a, const double *__restrict__ dd, char *c) {
  __shared__ float4 sh[64];
  __shared__ short ss[64];
  int i = threadIdx.x;
  float4 v = __ldg(in4 + i);
  float4 w = __ldcg(in4 + i + 1);
  float4 x = __ldcs(in4 + i + 2);
  int2 y = __ldlu(in2 + i);
  double z = __ldca(dd + i);
  sh[i] = v;
  ss[i] = (short)y.x;
  __syncthreads();
  float4 s = sh[63 - i];
  __stwt(out4 + i, make_float4(s.x + w.x, s.y + x.y, s.z, s.w + (float)z));
  __stcs(a + i, y.y + ss[63 - i]);
  __stcg(a + 64 + i, (int)c[i]);
  c[64 + i] = (char)(c[i] * 2);
  volatile int *va = a;
  va[128 + i] = va[129 + i] + 1;
  int local[16];
  for (int k = 0; k < 16; ++k) local[k] = a[(i + k) & 63] * k;
  a[192 + i] = local[a[i] & 15];
}
