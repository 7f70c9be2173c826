// arch: sm_90a
// wgmma_fence: one warpgroup (128 threads) stores an f16 B operand (16 x 8,
// K-major, no swizzle: one core matrix of 8 rows of 16 bytes per 8 values
// of K) into shared memory through the generic proxy (st.shared), then runs
// wgmma.mma_async.m64n8k16 with A from registers and B from a shared-memory
// matrix descriptor. wgmma reads its descriptor operands through the async
// proxy, so each writer needs fence.proxy.async.shared::cta between its
// store and the barrier that hands the tile to the warpgroup.
//   wgmma_fence_fixed: fence.proxy.async by every writer (clean).
//   wgmma_fence_buggy: no proxy fence: the wgmma may read stale bytes.
// Launch: -g 1 -b 128; out = f32[512] (D, 64 x 8, row-major).
// Fixed result: A[i][k] = (i + k) % 3 - 1, B[k][j] = (k + 2 j) % 5 - 2,
// D = A B (exact in f16 / f32).
#include <cuda_fp16.h>

__shared__ __align__(128) unsigned short smem_b[128];

// B[k][j] at the K-major no-swizzle offset: row j (of N), byte 2 k; core
// matrices 16 bytes x 8 rows (LBO = 128 along K, SBO = 256 along N).
__device__ void store_b() {
  const int t = threadIdx.x, k = t % 16, j = t / 16;
  const float v = float((k + 2 * j) % 5 - 2);
  smem_b[(k / 8) * 64 + j * 8 + k % 8] = __half_as_ushort(__float2half_rn(v));
}

__device__ unsigned long long desc_b() {
  const unsigned s = unsigned(__cvta_generic_to_shared(smem_b));
  return ((s & 0x3ffff) >> 4) | (unsigned long long)(128 >> 4) << 16 |
         (unsigned long long)(256 >> 4) << 32;
}

// A: the mma.sync m16n8k16 fragment of the warp's 16 rows.
__device__ void frag_a(unsigned a[4]) {
  const int lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  const int r0 = 16 * (threadIdx.x / 32);
  for (int i = 0; i < 4; ++i)
    a[i] = 0;
  for (int i = 0; i < 8; ++i) {
    const int r = r0 + g + 8 * ((i >> 1) & 1),
              k = 2 * q + (i & 1) + 8 * (i >> 2);
    const float v = float((r + k) % 3 - 1);
    a[i / 2] |= unsigned(__half_as_ushort(__float2half_rn(v)))
                << (16 * (i & 1));
  }
}

__device__ void mma_store(float *out) {
  unsigned a[4];
  frag_a(a);
  const unsigned long long db = desc_b();
  float d[4] = {0, 0, 0, 0};
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, 1, 1, 1, 0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  const int lane = threadIdx.x % 32;
  for (int i = 0; i < 4; ++i) {
    const int row = 16 * (threadIdx.x / 32) + lane / 4 + 8 * ((i >> 1) & 1);
    const int col = 2 * (lane % 4) + (i & 1);
    out[row * 8 + col] = d[i];
  }
}

extern "C" __global__ void wgmma_fence_fixed(float *out) {
  store_b();
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  mma_store(out);
}

extern "C" __global__ void wgmma_fence_buggy(float *out) {
  store_b();
  __syncthreads();
  mma_store(out);
}
