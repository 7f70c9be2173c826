// mma_rounding: the accumulation rule of floating-point mma.sync
// (docs/tensor-cores.md "Arithmetic"): C and the 16 exact products, each
// truncated to a multiple of 2^(E - 25) (E the largest exponent), summed
// exactly and truncated to f32. The inputs have full 11-bit significands
// over several binades, so that both a rounded sum and an f32 FMA chain
// differ from it; the expected values are what the H100 printed.
// One m16n8k16 f16 x f16 + f32.
// A(i, k) = (1 + ((37 i + 11 k) % 1024) / 1024) * 2^((i + k) % 7 - 3),
// B(k, j) = (1 + ((29 k + 53 j) % 1024) / 1024) * 2^((k + 2 j) % 5 - 2),
// C(i, j) = 1000 + (i * 8 + j) / 3 (an f32).
// Launch: -g 1 -b 32, out = f32[128] (row-major D).
#include <cuda_fp16.h>

__device__ float fa(int i, int k) {
  return ldexpf(1.0f + ((37 * i + 11 * k) % 1024) / 1024.0f, (i + k) % 7 - 3);
}
__device__ float fb(int k, int j) {
  return ldexpf(1.0f + ((29 * k + 53 * j) % 1024) / 1024.0f, (k + 2 * j) % 5 - 2);
}
__device__ float fc(int i, int j) { return 1000.0f + (i * 8 + j) / 3.0f; }
__device__ unsigned h2(float lo, float hi) {
  return __half_as_ushort(__float2half_rn(lo)) |
         unsigned(__half_as_ushort(__float2half_rn(hi))) << 16;
}

extern "C" __global__ void mma_rounding(float *out) {
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  unsigned a[4], b[2];
  for (int r = 0; r < 4; ++r) {
    const int row = g + 8 * (r % 2), col = 2 * t + 8 * (r / 2);
    a[r] = h2(fa(row, col), fa(row, col + 1));
  }
  for (int r = 0; r < 2; ++r)
    b[r] = h2(fb(2 * t + 8 * r, g), fb(2 * t + 1 + 8 * r, g));
  float c[4];
  for (int i = 0; i < 4; ++i)
    c[i] = fc(g + 8 * (i / 2), 2 * t + i % 2);
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  for (int i = 0; i < 4; ++i)
    out[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = c[i];
}
