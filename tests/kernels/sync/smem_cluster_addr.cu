// arch: sm_90
// smem_cluster_addr: the shared-memory addresses of a cluster of 2 CTAs,
// as an NVIDIA H200 gives them (measured on an NVIDIA H200, driver
// 580.159.04, CUDA 13.0, 2026-11-28). A CTA's own .shared::cta addresses
// carry its cluster rank: `a` is at 1024 (0x400) in rank 0 and at 16 MiB +
// 1024 (0x1000400) in rank 1; in .shared::cluster, rank r's memory is
// [r * 16 MiB, (r + 1) * 16 MiB), so mapa of a's address to the other rank
// gives 0x1000400 from rank 0 and 0x400 from rank 1. Each CTA stores its
// rank in a[0] and reads its peer's through cluster.map_shared_rank.
// out[4 * cta] = {&a, mapa(&a, peer), peer's a[0], 0}.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(2, 1, 1)
    smem_cluster_addr(unsigned *out) {
  __shared__ int a[4];
  cg::cluster_group cl = cg::this_cluster();
  a[0] = int(cl.block_rank());
  cl.sync();
  int *q = cl.map_shared_rank(a, 1 - cl.block_rank());
  unsigned m;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(m)
               : "r"(unsigned(__cvta_generic_to_shared(a))),
                 "r"(1 - cl.block_rank()));
  if (threadIdx.x == 0) {
    out[blockIdx.x * 4 + 0] = unsigned(__cvta_generic_to_shared(a));
    out[blockIdx.x * 4 + 1] = m;
    out[blockIdx.x * 4 + 2] = unsigned(q[0]);
  }
  cl.sync();
}
