// arch: sm_90a
// wgmma: wgmma.mma_async.sync.aligned.m64nNkK of every type family, with A
// from registers or from a shared-memory matrix descriptor, B from a
// descriptor, K-major and MN-major (transposed) operands, each swizzle mode
// (none, 32, 64, 128 bytes), scale-d 0 and 1, imm-scale-a -1. One CTA of one
// warpgroup (128 threads) per kernel; each kernel writes its 64 x N result
// D row-major, as f32, to out. Inputs are small multiples of 1/4 and 1/2
// (exact in every type), so D = A B + C is exact whatever the accumulation
// order. Shared memory is laid out as the PTX ISA's "Shared Memory Matrix
// Layout" describes it for the descriptor each kernel builds; every thread
// executes fence.proxy.async.shared::cta after its stores and before the
// barrier, since wgmma reads shared memory through the async proxy.
// Launch: -g 1 -b 128 -k <kernel>, out = f32[64 * N].
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

__device__ float fa(int i, int k) { return ((i * 7 + k * 5) % 11 - 5) / 4.0f; }
__device__ float fb(int k, int j) { return ((k * 3 + j * 13) % 7 - 3) / 2.0f; }
__device__ float fc(int i, int j) { return float((i + 2 * j) % 5 - 2); }
__device__ int ia(int i, int k) { return (i * 7 + k * 5) % 11 - 5; }
__device__ int ua(int i, int k) { return (i * 7 + k * 5) % 200; }
__device__ int ib(int k, int j) { return (k * 3 + j * 13) % 7 - 3; }
__device__ int ba(int i, int k) { return (i * 7 + k * 5) % 3 == 0; }
__device__ int bb(int k, int j) { return (k * 3 + j * 13) % 5 < 2; }

// The bits of one element of each type.
enum Ty { F16, BF16, TF32, E4M3, E5M2, S8, U8, B1 };
__device__ unsigned bits_of(Ty t, bool is_a, int r, int c) {
  // r, c: row and column of A (M x K) or B (K x N)
  float v = is_a ? fa(r, c) : fb(r, c);
  switch (t) {
  case F16:
    return __half_as_ushort(__float2half_rn(v));
  case BF16:
    return __bfloat16_as_ushort(__float2bfloat16_rn(v));
  case TF32:
    return __float_as_uint(v);
  case E4M3:
    return __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
  case E5M2:
    return __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E5M2);
  case S8:
    return unsigned(is_a ? ia(r, c) : ib(r, c)) & 0xff;
  case U8:
    return unsigned(ua(r, c)) & 0xff;
  default:
    return is_a ? ba(r, c) : bb(r, c);
  }
}
__device__ int size_bits(Ty t) {
  return t == TF32 ? 32 : t == F16 || t == BF16 ? 16 : t == B1 ? 1 : 8;
}

// The swizzle modes move the 16-byte chunk of an address: its bits 4..
// XOR its bits 7.. (32 B: 1 bit, 64 B: 2 bits, 128 B: 3 bits).
__device__ unsigned swizzle(unsigned addr, int S) {
  return S ? addr ^ (((addr >> 7) & (S / 16 - 1)) << 4) : addr;
}
// Layouts, for a matrix of R rows along M (A) or N (B):
// K-major, no swizzle: core matrices of 8 rows x 16 bytes (128 contiguous
//   bytes), LBO = 128 (next core matrix along K), SBO = 256 (next 8 rows).
// K-major, swizzle S: rows of S bytes (the 32 bytes of K at its start), 8
//   rows per 8 S bytes, SBO = 8 S; LBO unused (1).
// MN-major, no swizzle: core matrices of 8 k x 16 bytes of M/N, LBO = 128
//   (next 8 k), SBO = 256 (next 8 elements of M/N; K = 16).
// MN-major, swizzle S: k rows of S bytes of M/N, 8 k per 8 S bytes, SBO =
//   8 S (next 8 k), LBO = 16 S (next S bytes of M/N; K = 16).
struct Layout {
  int S;
  bool mn_major;
  unsigned lbo, sbo;
};
__device__ Layout layout(int S, bool mn_major) {
  if (!mn_major)
    return S ? Layout{S, false, 16, 8u * S} : Layout{0, false, 128, 256};
  return S ? Layout{S, true, 16u * S, 8u * S} : Layout{0, true, 128, 256};
}
// Offset of element (mn, k) (k in bits for K-major).
__device__ unsigned offset(const Layout &L, int mn, int k, int ebits) {
  if (!L.mn_major) {
    const int kb = k * ebits / 8;
    if (!L.S)
      return (mn / 8) * L.sbo + (mn % 8) * 16 + (kb / 16) * L.lbo + kb % 16;
    return (mn / 8) * L.sbo + (mn % 8) * L.S + kb;
  }
  const int mb = mn * ebits / 8;
  if (!L.S)
    return (mb / 16) * L.sbo + mb % 16 + (k % 8) * 16 + (k / 8) * L.lbo;
  return (mb / L.S) * L.lbo + mb % L.S + (k % 8) * L.S + (k / 8) * L.sbo;
}
__device__ unsigned long long descriptor(unsigned addr, const Layout &L) {
  const unsigned long long mode = L.S == 128  ? 1
                                  : L.S == 64 ? 2
                                  : L.S == 32 ? 3
                                              : 0;
  return ((addr & 0x3ffff) >> 4) |
         (unsigned long long)((L.lbo >> 4) & 0x3fff) << 16 |
         (unsigned long long)((L.sbo >> 4) & 0x3fff) << 32 | mode << 62;
}

__shared__ __align__(1024) unsigned char smem_a[8192];
__shared__ __align__(1024) unsigned char smem_b[32768];

// Writes A (64 x K) or B (K x N, stored as N rows of K or, MN-major, as K
// rows of N) into shared memory; returns its descriptor.
__device__ unsigned long long fill(unsigned char *base, Ty t, bool is_a,
                                   int rows, int K, const Layout &L) {
  const int eb = size_bits(t);
  const unsigned s = unsigned(__cvta_generic_to_shared(base));
  if (eb == 1) { // bits are ORed in: clear the matrix first
    for (int e = threadIdx.x; e < rows * K / 8; e += blockDim.x)
      base[e] = 0;
    __syncthreads();
  }
  for (int e = threadIdx.x; e < rows * K; e += blockDim.x) {
    const int mn = e / K, k = e % K;
    const unsigned v = bits_of(t, is_a, is_a ? mn : k, is_a ? k : mn);
    const unsigned addr = swizzle(s + offset(L, mn, k, eb), L.S);
    unsigned char *p = base + (addr - s);
    if (eb == 1)
      atomicOr((unsigned *)((size_t)p & ~(size_t)3),
               v << ((k % 8) + 8 * (((size_t)p) & 3)));
    else if (eb == 8)
      *p = (unsigned char)v;
    else if (eb == 16)
      *(unsigned short *)p = (unsigned short)v;
    else
      *(unsigned *)p = v;
  }
  return descriptor(s, L);
}

// Register A: the m16nNkK A fragment of mma.sync for the warp's 16 rows.
__device__ void frag_a(Ty t, unsigned a[4]) {
  const int lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  const int r0 = 16 * (threadIdx.x / 32);
  for (int x = 0; x < 4; ++x)
    a[x] = 0;
  if (t == TF32) {
    for (int i = 0; i < 4; ++i)
      a[i] = bits_of(t, true, r0 + g + 8 * (i & 1), q + 4 * (i >> 1));
  } else if (t == F16 || t == BF16) {
    for (int i = 0; i < 8; ++i)
      a[i / 2] |= bits_of(t, true, r0 + g + 8 * ((i >> 1) & 1),
                          2 * q + (i & 1) + 8 * (i >> 2))
                  << (16 * (i & 1));
  } else {
    for (int i = 0; i < 16; ++i)
      a[i / 4] |= bits_of(t, true, r0 + g + 8 * ((i / 4) & 1),
                          4 * q + i % 4 + 16 * (i / 8))
                  << (8 * (i % 4));
  }
}
// Row and column of element i of a lane's D fragment.
__device__ int drow(int i) {
  return 16 * (threadIdx.x / 32) + (threadIdx.x % 32) / 4 + 8 * ((i >> 1) & 1);
}
__device__ int dcol(int i) {
  return 8 * (i >> 2) + 2 * (threadIdx.x % 4) + (i & 1);
}

// wgmma_f16_reg_n8: f16 x f16 -> f32, N = 8, A from registers, swizzle none,
// trans-a 0, trans-b 0, scale-d 1.
extern "C" __global__ void wgmma_f16_reg_n8(float *out) {
  const Layout la = layout(0, false), lb = layout(0, false);
  (void)la;
  unsigned a[4];
  frag_a(F16, a);
  const unsigned long long db = fill(smem_b, F16, false, 8, 16, lb);
  float d[4];
  for (int i = 0; i < 4; ++i)
    d[i] = fc(drow(i), dcol(i));
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, 1, 1, 1, 0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 4; ++i)
    out[drow(i) * 8 + dcol(i)] = d[i];
}

// wgmma_f16_sw128_n64: f16 x f16 -> f32, N = 64, A from a descriptor, swizzle
// 128, trans-a 0, trans-b 0, scale-d 1.
extern "C" __global__ void wgmma_f16_sw128_n64(float *out) {
  const Layout la = layout(128, false), lb = layout(128, false);
  const unsigned long long da = fill(smem_a, F16, true, 64, 16, la);
  const unsigned long long db = fill(smem_b, F16, false, 64, 16, lb);
  float d[32];
  for (int i = 0; i < 32; ++i)
    d[i] = fc(drow(i), dcol(i));
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
               "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,"
               "%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, "
               "%33, 1, 1, 1, 0, 0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
                 "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
                 "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
                 "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                 "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),
                 "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),
                 "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                 "+f"(d[30]), "+f"(d[31])
               : "l"(da), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 32; ++i)
    out[drow(i) * 64 + dcol(i)] = d[i];
}

// wgmma_bf16_sw64_n256: bf16 x bf16 -> f32, N = 256, A from a descriptor,
// swizzle 64, trans-a 0, trans-b 0, scale-d 1.
extern "C" __global__ void wgmma_bf16_sw64_n256(float *out) {
  const Layout la = layout(64, false), lb = layout(64, false);
  const unsigned long long da = fill(smem_a, BF16, true, 64, 16, la);
  const unsigned long long db = fill(smem_b, BF16, false, 256, 16, lb);
  float d[128];
  for (int i = 0; i < 128; ++i)
    d[i] = fc(drow(i), dcol(i));
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%"
      "20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%"
      "38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%"
      "56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%"
      "74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%"
      "92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%"
      "108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%"
      "122,%123,%124,%125,%126,%127}, %128, %129, 1, 1, 1, 0, 0;"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
        "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]),
        "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),
        "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),
        "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
        "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
        "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]),
        "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
        "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),
        "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
        "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]),
        "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
        "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]),
        "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]),
        "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]),
        "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]),
        "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]),
        "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]),
        "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]),
        "+f"(d[126]), "+f"(d[127])
      : "l"(da), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 128; ++i)
    out[drow(i) * 256 + dcol(i)] = d[i];
}

// wgmma_f16_trans_sw32: f16 x f16 -> f32, N = 64, A from a descriptor, swizzle
// 32, trans-a 1, trans-b 1, scale-d 1.
extern "C" __global__ void wgmma_f16_trans_sw32(float *out) {
  const Layout la = layout(32, true), lb = layout(32, true);
  const unsigned long long da = fill(smem_a, F16, true, 64, 16, la);
  const unsigned long long db = fill(smem_b, F16, false, 64, 16, lb);
  float d[32];
  for (int i = 0; i < 32; ++i)
    d[i] = fc(drow(i), dcol(i));
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
               "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,"
               "%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, "
               "%33, 1, 1, 1, 1, 1;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
                 "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
                 "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
                 "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                 "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),
                 "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),
                 "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                 "+f"(d[30]), "+f"(d[31])
               : "l"(da), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 32; ++i)
    out[drow(i) * 64 + dcol(i)] = d[i];
}

// wgmma_f16_trans_none: f16 x f16 -> f16, N = 16, A from a descriptor, swizzle
// none, trans-a 1, trans-b 1, scale-d 0.
extern "C" __global__ void wgmma_f16_trans_none(float *out) {
  const Layout la = layout(0, true), lb = layout(0, true);
  const unsigned long long da = fill(smem_a, F16, true, 64, 16, la);
  const unsigned long long db = fill(smem_b, F16, false, 16, 16, lb);
  unsigned d[4];
  for (int i = 0; i < 4; ++i)
    d[i] = __half_as_ushort(__float2half_rn(fc(drow(2 * i), dcol(2 * i)))) |
           unsigned(__half_as_ushort(
               __float2half_rn(fc(drow(2 * i + 1), dcol(2 * i + 1)))))
               << 16;
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 "
               "{%0,%1,%2,%3}, %4, %5, 0, 1, 1, 1, 1;"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "l"(da), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 8; ++i)
    out[drow(i) * 16 + dcol(i)] = __half2float(
        __ushort_as_half((unsigned short)(d[i / 2] >> (16 * (i & 1)))));
}

// wgmma_f16_regtb_sw128: f16 x f16 -> f32, N = 32, A from registers, swizzle
// 128, trans-a 0, trans-b 1, scale-d 1.
extern "C" __global__ void wgmma_f16_regtb_sw128(float *out) {
  const Layout la = layout(128, false), lb = layout(128, true);
  (void)la;
  unsigned a[4];
  frag_a(F16, a);
  const unsigned long long db = fill(smem_b, F16, false, 32, 16, lb);
  float d[16];
  for (int i = 0; i < 16; ++i)
    d[i] = fc(drow(i), dcol(i));
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
               "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, "
               "{%16,%17,%18,%19}, %20, 1, 1, 1, 1;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
                 "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
                 "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
                 "+f"(d[14]), "+f"(d[15])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 16; ++i)
    out[drow(i) * 32 + dcol(i)] = d[i];
}

// wgmma_tf32_reg_n32: tf32 x tf32 -> f32, N = 32, A from registers, swizzle
// 128, trans-a 0, trans-b 0, scale-d 1, imm-scale-a -1.
extern "C" __global__ void wgmma_tf32_reg_n32(float *out) {
  const Layout la = layout(128, false), lb = layout(128, false);
  (void)la;
  unsigned a[4];
  frag_a(TF32, a);
  const unsigned long long db = fill(smem_b, TF32, false, 32, 8, lb);
  float d[16];
  for (int i = 0; i < 16; ++i)
    d[i] = fc(drow(i), dcol(i));
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
               "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, "
               "{%16,%17,%18,%19}, %20, 1, -1, 1;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
                 "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
                 "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
                 "+f"(d[14]), "+f"(d[15])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 16; ++i)
    out[drow(i) * 32 + dcol(i)] = d[i];
}

// wgmma_fp8_none_n24: e4m3 x e5m2 -> f32, N = 24, A from a descriptor, swizzle
// none, trans-a 0, trans-b 0, scale-d 1.
extern "C" __global__ void wgmma_fp8_none_n24(float *out) {
  const Layout la = layout(0, false), lb = layout(0, false);
  const unsigned long long da = fill(smem_a, E4M3, true, 64, 32, la);
  const unsigned long long db = fill(smem_b, E5M2, false, 24, 32, lb);
  float d[12];
  for (int i = 0; i < 12; ++i)
    d[i] = fc(drow(i), dcol(i));
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n24k32.f32.e4m3.e5m2 "
               "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11}, %12, %13, 1, 1, 1;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
                 "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
                 "+f"(d[10]), "+f"(d[11])
               : "l"(da), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 12; ++i)
    out[drow(i) * 24 + dcol(i)] = d[i];
}

// wgmma_fp8_f16_sw32: e5m2 x e4m3 -> f16, N = 16, A from registers, swizzle 32,
// trans-a 0, trans-b 0, scale-d 1.
extern "C" __global__ void wgmma_fp8_f16_sw32(float *out) {
  const Layout la = layout(32, false), lb = layout(32, false);
  (void)la;
  unsigned a[4];
  frag_a(E5M2, a);
  const unsigned long long db = fill(smem_b, E4M3, false, 16, 32, lb);
  unsigned d[4];
  for (int i = 0; i < 4; ++i)
    d[i] = __half_as_ushort(__float2half_rn(fc(drow(2 * i), dcol(2 * i)))) |
           unsigned(__half_as_ushort(
               __float2half_rn(fc(drow(2 * i + 1), dcol(2 * i + 1)))))
               << 16;
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.f16.e5m2.e4m3 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, 1, 1, 1;"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 8; ++i)
    out[drow(i) * 16 + dcol(i)] = __half2float(
        __ushort_as_half((unsigned short)(d[i / 2] >> (16 * (i & 1)))));
}

// wgmma_s8_sw64_n48: s8 x s8 -> s32, N = 48, A from a descriptor, swizzle 64,
// trans-a 0, trans-b 0, scale-d 1.
extern "C" __global__ void wgmma_s8_sw64_n48(float *out) {
  const Layout la = layout(64, false), lb = layout(64, false);
  const unsigned long long da = fill(smem_a, S8, true, 64, 32, la);
  const unsigned long long db = fill(smem_b, S8, false, 48, 32, lb);
  unsigned d[24];
  for (int i = 0; i < 24; ++i)
    d[i] = unsigned(3 * (int)fc(drow(i), dcol(i)));
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n48k32.satfinite.s32.s8.s8 "
               "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,"
               "%18,%19,%20,%21,%22,%23}, %24, %25, 1;"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]),
                 "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]),
                 "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]),
                 "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]),
                 "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]),
                 "+r"(d[22]), "+r"(d[23])
               : "l"(da), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 24; ++i)
    out[drow(i) * 48 + dcol(i)] = float(int(d[i]));
}

// wgmma_u8_reg_n16: u8 x s8 -> s32, N = 16, A from registers, swizzle none,
// trans-a 0, trans-b 0, scale-d 1.
extern "C" __global__ void wgmma_u8_reg_n16(float *out) {
  const Layout la = layout(0, false), lb = layout(0, false);
  (void)la;
  unsigned a[4];
  frag_a(U8, a);
  const unsigned long long db = fill(smem_b, S8, false, 16, 32, lb);
  unsigned d[8];
  for (int i = 0; i < 8; ++i)
    d[i] = unsigned(3 * (int)fc(drow(i), dcol(i)));
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.satfinite.s32.u8.s8 "
               "{%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, 1;"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]),
                 "+r"(d[5]), "+r"(d[6]), "+r"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 8; ++i)
    out[drow(i) * 16 + dcol(i)] = float(int(d[i]));
}

// wgmma_b1_none_n16: b1 x b1 -> s32, N = 16, A from a descriptor, swizzle none,
// trans-a 0, trans-b 0, scale-d 1.
extern "C" __global__ void wgmma_b1_none_n16(float *out) {
  const Layout la = layout(0, false), lb = layout(0, false);
  const unsigned long long da = fill(smem_a, B1, true, 64, 256, la);
  const unsigned long long db = fill(smem_b, B1, false, 16, 256, lb);
  unsigned d[8];
  for (int i = 0; i < 8; ++i)
    d[i] = unsigned(3 * (int)fc(drow(i), dcol(i)));
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n16k256.s32.b1.b1.and.popc "
               "{%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, 1;"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]),
                 "+r"(d[5]), "+r"(d[6]), "+r"(d[7])
               : "l"(da), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 8; ++i)
    out[drow(i) * 16 + dcol(i)] = float(int(d[i]));
}
