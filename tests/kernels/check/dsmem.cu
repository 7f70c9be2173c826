// arch: sm_90
// dsmem: distributed shared memory across the two CTAs of a cluster
// (__cluster_dims__(2,1,1)). Each CTA fills s[t], then reads its peer's
// s[(t + 1) % 64] through cluster.map_shared_rank (mapa + generic loads).
// A final cluster.sync() keeps every CTA alive until its peer has read its
// shared memory (reading an exited CTA's shared memory is an error of its
// own, not what these kernels test).
//   dsmem_buggy: no cluster barrier between the stores and the peer's
//     remote loads (data race across the CTAs of the cluster).
//   dsmem_fixed: barrier.cluster.arrive (release) after the stores, some
//     independent work, barrier.cluster.wait (acquire) before the remote
//     loads (cluster.barrier_arrive / barrier_wait).
//   dsmem_relaxed_buggy: the same split barrier, but arriving with
//     barrier.cluster.arrive.relaxed (__cluster_barrier_arrive_relaxed):
//     PTX gives a relaxed arrive no memory ordering, so the stores before
//     it are not released to the peer's loads after its wait: still a
//     data race, although every thread passed the barrier.
// Launch: -g 4 -b 64 (two clusters); in = s32[256] (iota), out = s32[256].
// Fixed result: out[b*64 + t] = (in[b*64 + t] + 7)
//                             + 1000 * (in[(b^1)*64 + (t+1)%64] + 7).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(2, 1, 1)
    dsmem_buggy(const int *in, int *out) {
  __shared__ int s[64];
  cg::cluster_group cluster = cg::this_cluster();
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t] + 7;
  const int *peer = cluster.map_shared_rank(s, cluster.block_rank() ^ 1);
  const int r = peer[(t + 1) % 64];
  cluster.sync();
  out[blockIdx.x * 64 + t] = s[t] + 1000 * r;
}

extern "C" __global__ void __cluster_dims__(2, 1, 1)
    dsmem_fixed(const int *in, int *out) {
  __shared__ int s[64];
  cg::cluster_group cluster = cg::this_cluster();
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t] + 7;
  auto token = cluster.barrier_arrive();
  const int *peer = cluster.map_shared_rank(s, cluster.block_rank() ^ 1);
  cluster.barrier_wait(std::move(token));
  const int r = peer[(t + 1) % 64];
  cluster.sync();
  out[blockIdx.x * 64 + t] = s[t] + 1000 * r;
}

extern "C" __global__ void __cluster_dims__(2, 1, 1)
    dsmem_relaxed_buggy(const int *in, int *out) {
  __shared__ int s[64];
  cg::cluster_group cluster = cg::this_cluster();
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t] + 7;
  __cluster_barrier_arrive_relaxed();
  const int *peer = cluster.map_shared_rank(s, cluster.block_rank() ^ 1);
  __cluster_barrier_wait();
  const int r = peer[(t + 1) % 64];
  cluster.sync();
  out[blockIdx.x * 64 + t] = s[t] + 1000 * r;
}
