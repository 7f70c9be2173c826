// arch: sm_90
// half_atomics: atomicAdd on __half, __half2, __nv_bfloat16 and
// __nv_bfloat162 (atom.add.noftz.f16 / .f16x2 / .bf16 / .bf16x2). One warp:
// the lanes' atomics are performed in lane order (docs/engine.md
// "Memory"), so every old value each lane gets back and the final sums are
// determined; each addition rounds to nearest even in the format, and the
// x2 forms add each half separately. Lane l adds 0.1 to h, {0.1, 1000 + l}
// to h2, 0.3 to b and {1.7 l, 0.001} to b2.
// Launch: -g 1 -b 32, sums = u32[4] (h, h2, b, b2 bit patterns),
// olds = u32[128] (lane l: the four old values).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void half_atomics(unsigned *sums, unsigned *olds) {
  __shared__ __half h;
  __shared__ __half2 h2;
  __shared__ __nv_bfloat16 b;
  __shared__ __nv_bfloat162 b2;
  const int l = threadIdx.x;
  if (l == 0) {
    h = __float2half(0.0f);
    h2 = __floats2half2_rn(0.0f, 0.0f);
    b = __float2bfloat16(0.0f);
    b2 = __floats2bfloat162_rn(0.0f, 0.0f);
  }
  __syncwarp();
  __half oh = atomicAdd(&h, __float2half(0.1f));
  __half2 oh2 = atomicAdd(&h2, __floats2half2_rn(0.1f, 1000.0f + l));
  __nv_bfloat16 ob = atomicAdd(&b, __float2bfloat16(0.3f));
  __nv_bfloat162 ob2 = atomicAdd(&b2, __floats2bfloat162_rn(1.7f * l, 0.001f));
  olds[4 * l + 0] = __half_as_ushort(oh);
  olds[4 * l + 1] = *reinterpret_cast<unsigned *>(&oh2);
  olds[4 * l + 2] = __bfloat16_as_ushort(ob);
  olds[4 * l + 3] = *reinterpret_cast<unsigned *>(&ob2);
  __syncwarp();
  if (l == 0) {
    sums[0] = __half_as_ushort(h);
    sums[1] = *reinterpret_cast<unsigned *>(&h2);
    sums[2] = __bfloat16_as_ushort(b);
    sums[3] = *reinterpret_cast<unsigned *>(&b2);
  }
}
