// arch: sm_90
// proxy_fence: every thread writes its element of a shared tile through
// the generic proxy (st.shared), then thread 0 stores the tile to global
// memory with a bulk copy (cp.async.bulk.global.shared::cta.bulk_group),
// which reads the tile through the async proxy. The barrier orders the
// writes before the copy for the threads; PTX also requires a cross-proxy
// fence: each writing thread executes fence.proxy.async.shared::cta after
// its write and before the barrier.
//   proxy_fence_fixed: fence.proxy.async by every writer (clean).
//   proxy_fence_buggy: no proxy fence: the copy may read stale bytes.
// Launch: -g 2 -b 256; in = s32[512] (iota), out = s32[512].
// Fixed result: out[i] = 3 * in[i] + 1.
__device__ inline void store_tile(int *dst, const int *tile) {
  const unsigned src = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  const size_t g = __cvta_generic_to_global(dst);
  asm volatile(
      "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;" ::"l"(g),
      "r"(src)
      : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

extern "C" __global__ void proxy_fence_fixed(const int *in, int *out) {
  __shared__ alignas(128) int tile[256];
  const unsigned t = threadIdx.x;
  tile[t] = 3 * in[blockIdx.x * 256 + t] + 1;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (t == 0)
    store_tile(out + blockIdx.x * 256, tile);
}

extern "C" __global__ void proxy_fence_buggy(const int *in, int *out) {
  __shared__ alignas(128) int tile[256];
  const unsigned t = threadIdx.x;
  tile[t] = 3 * in[blockIdx.x * 256 + t] + 1;
  __syncthreads();
  if (t == 0)
    store_tile(out + blockIdx.x * 256, tile);
}
