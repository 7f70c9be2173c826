// arch: sm_90
// cluster_dsmem: 2-CTA clusters (__cluster_dims__(2,1,1), i.e.
// .reqnctapercluster 2, 1, 1) exchanging data through distributed shared
// memory: each CTA fills its shared array, cluster.sync()
// (barrier.cluster.arrive + wait), reads its peer's array through
// cluster.map_shared_rank (mapa + generic loads), and cluster.sync() again
// so that no CTA exits while its peer still reads its shared memory.
// s[tid] = ctaid * 10000 + rank * 1000 + tid (64 threads per CTA);
// out[gtid] = peer's s[(tid + 1) % 64]; info[ctaid * 3] = { %cluster_ctarank,
// %cluster_nctarank, %clusterid.x }.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(2, 1, 1)
    cluster_dsmem(int *out, int *info) {
  __shared__ int s[64];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const int tid = threadIdx.x;
  s[tid] = blockIdx.x * 10000 + rank * 1000 + tid;
  cluster.sync();
  const int *peer = cluster.map_shared_rank(s, rank ^ 1);
  const int r = peer[(tid + 1) % 64];
  cluster.sync();
  out[blockIdx.x * 64 + tid] = r;
  if (tid == 0) {
    info[blockIdx.x * 3] = rank;
    info[blockIdx.x * 3 + 1] = cluster.num_blocks();
    info[blockIdx.x * 3 + 2] =
        cluster.block_index().x == rank ? static_cast<int>(blockIdx.x / 2) : -1;
  }
}
