// arch: sm_90
// cluster_wait: barrier.cluster.wait by threads that never arrived. Each
// CTA of a 2-CTA cluster fills s[t]; the code meant every thread to arrive
// on the cluster barrier after its store, but the arrive sits in a branch
// that only warp 0 takes; every thread then waits (barrier.cluster.wait),
// and the CTA synchronizes before reading the peer's data.
// PTX: the wait blocks until all non-exited threads of the cluster have
// arrived; warps 1-3 of both CTAs never arrive (they wait instead), so
// every thread of the cluster waits for ever at the wait: a deadlock at
// the barrier_wait line. (Should a wait with no arrival of its own return
// at once instead, warps 1-3 would wait at __syncthreads() for warp 0,
// which waits at the cluster barrier for warps 1-3: a deadlock as well.)
//   cluster_wait_buggy: the arrive only in warp 0.
//   cluster_wait_fixed: every thread arrives, then waits (clean).
// Launch: -g 2 -b 128 (one cluster, __cluster_dims__(2,1,1));
// out = s32[256].
// Fixed result: out[b*128 + t] = peer CTA's s[(t + 1) % 128]
//   = 1000 * (b ^ 1) + (t + 1) % 128.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(2, 1, 1)
    cluster_wait_buggy(int *out) {
  __shared__ int s[128];
  cg::cluster_group cluster = cg::this_cluster();
  const int t = threadIdx.x;
  s[t] = 1000 * static_cast<int>(cluster.block_rank()) + t;
  if (t < 32)
    __cluster_barrier_arrive();
  __cluster_barrier_wait();
  __syncthreads();
  const int *peer = cluster.map_shared_rank(s, cluster.block_rank() ^ 1);
  const int r = peer[(t + 1) % 128];
  cluster.sync();
  out[blockIdx.x * 128 + t] = r;
}

extern "C" __global__ void __cluster_dims__(2, 1, 1)
    cluster_wait_fixed(int *out) {
  __shared__ int s[128];
  cg::cluster_group cluster = cg::this_cluster();
  const int t = threadIdx.x;
  s[t] = 1000 * static_cast<int>(cluster.block_rank()) + t;
  __cluster_barrier_arrive();
  __cluster_barrier_wait();
  __syncthreads();
  const int *peer = cluster.map_shared_rank(s, cluster.block_rank() ^ 1);
  const int r = peer[(t + 1) % 128];
  cluster.sync();
  out[blockIdx.x * 128 + t] = r;
}
