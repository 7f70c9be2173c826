// Integer and floating-point intrinsics.
__global__ void intmath(const unsigned *a, const unsigned *b, unsigned *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = a[t], y = b[t] | 1u;
  int sx = (int)x, sy = (int)y;
  unsigned *o = out + t * 16;
  o[0] = __umulhi(x, y);
  o[1] = (unsigned)__mulhi(sx, sy);
  o[2] = x / y + x % y;
  o[3] = (unsigned)(sx / sy) + (unsigned)(sx % sy);
  o[4] = __popc(x) + (__clz(x) << 8) + (__ffs(x) << 16);
  o[5] = __brev(x);
  o[6] = __byte_perm(x, y, y & 0x7777);
  o[7] = __funnelshift_l(x, y, y) ^ __funnelshift_r(x, y, x);
  o[8] = (unsigned)(__umul64hi((unsigned long long)x * 77777, (unsigned long long)y << 20));
  o[9] = __sad(sx, sy, 5u);
  o[10] = (unsigned)__dp4a(sx, sy, 3);
  o[11] = (x >> (y % 32)) + (unsigned)(sx >> (y % 31)) + (x << (y % 29));
  o[12] = (unsigned)max(sx, sy) + min(x, y) + (unsigned)abs(sx);
  o[13] = __usad(x, y, 0u) + __hadd(sx, sy);
  unsigned long long w = (unsigned long long)x * y + ((unsigned long long)y << 32);
  o[14] = (unsigned)(w / (y | 3u)) ^ (unsigned)(w % 1000003);
  o[15] = (x & 0xff) * (y & 0xff) + __mul24(sx, sy);
}

__global__ void floatmath(const float *a, const float *b, float *out, int *iout, double *dout) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float x = a[t], y = b[t];
  float *o = out + t * 8;
  o[0] = x / y;
  o[1] = sqrtf(fabsf(x));
  o[2] = fminf(x, y) + fmaxf(x, y) * 2.0f;
  o[3] = copysignf(y, x);
  o[4] = fmaf(x, y, -1.0f);
  o[5] = floorf(x) + ceilf(y) + truncf(x * 3.0f) + rintf(y * 5.0f);
  o[6] = (float)(int)x + (float)(unsigned)fabsf(y);
  o[7] = x > y ? x - y : y - x;
  int *io = iout + t * 4;
  io[0] = __float2int_rn(x * 7.0f);
  io[1] = __float2int_rz(y * 7.0f);
  io[2] = __float2int_ru(x * 7.0f);
  io[3] = __float2int_rd(y * 7.0f);
  double dx = x, dy = y;
  double *d = dout + t * 3;
  d[0] = dx / dy + sqrt(fabs(dx));
  d[1] = fma(dx, dy, 0.125) - (double)(long long)(dx * 1000.0);
  d[2] = (double)x * (double)y;
}
