// arch: sm_90
// cluster_hist: a distributed-shared-memory histogram over clusters of 4
// CTAs (cluster shape from the launch: --cluster 4). Each CTA owns 8 of
// the 32 bins in its shared memory; every thread adds its value to the
// owning CTA's bin with an atomicAdd through cluster.map_shared_rank
// (atom on shared::cluster addresses). cluster.sync() before (bins zeroed)
// and after (all adds done); each CTA then writes its 8 bins.
// v(gtid) = (gtid * 7 + gtid / 13) % 32; out[clusterid * 32 + bin].
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void cluster_hist(unsigned *out) {
  __shared__ unsigned bins[8];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned tid = threadIdx.x;
  const unsigned gtid = blockIdx.x * blockDim.x + tid;
  if (tid < 8)
    bins[tid] = 0;
  cluster.sync();
  const unsigned v = (gtid * 7 + gtid / 13) % 32;
  unsigned *owner = cluster.map_shared_rank(bins, v / 8);
  atomicAdd(&owner[v % 8], 1u);
  cluster.sync();
  if (tid < 8) {
    const unsigned cluster_id = blockIdx.x / cluster.num_blocks();
    out[cluster_id * 32 + cluster.block_rank() * 8 + tid] = bins[tid];
  }
}
