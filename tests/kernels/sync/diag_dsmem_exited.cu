// arch: sm_90
// diag_dsmem_exited (expect-fail: exited): in a 2-CTA cluster, rank 1
// stores a flag into rank 0's shared memory and exits; rank 0 waits for
// the flag and then keeps reading rank 1's shared memory through
// distributed shared memory (1000 reads with a nanosleep between them, so
// rank 1 has exited by then under any fair schedule). an access
// to a CTA of the cluster that has exited is reported.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(2, 1, 1)
    diag_dsmem_exited(int *out) {
  __shared__ int s[32];
  __shared__ volatile int flag;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned tid = threadIdx.x;
  s[tid] = tid;
  if (tid == 0)
    flag = 0;
  cluster.sync();
  if (cluster.block_rank() == 1) {
    if (tid == 0)
      *cluster.map_shared_rank(const_cast<int *>(&flag), 0) = 1;
    return;
  }
  while (flag == 0) {
  }
  const volatile int *peer = cluster.map_shared_rank(s, 1);
  int sum = 0;
  for (int i = 0; i < 1000; ++i) {
    __nanosleep(1000);
    sum += peer[tid];
  }
  out[tid] = sum;
}
