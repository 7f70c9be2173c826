// big_tiles: cooperative groups' tiled_partition of 64 and 128 threads
// (tiles larger than a warp synchronize through the CTA's reserved shared
// memory, %reserved_smem_offset_*), with cg::reduce over each tile.
//   out64[k]  = sum of in[64k .. 64k+63]  (k < blockDim / 64)
//   out128[k] = max of in[128k .. 128k+127] (k < blockDim / 128)
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void big_tiles(const int *in, int *out64, int *out128) {
  cg::thread_block blk = cg::this_thread_block();
  const int t = blk.thread_rank();
  const int v = in[t];
  auto t64 = cg::tiled_partition<64>(blk);
  int s = cg::reduce(t64, v, cg::plus<int>());
  if (t64.thread_rank() == 0)
    out64[t / 64] = s;
  auto t128 = cg::tiled_partition<128>(blk);
  t128.sync();
  int m = cg::reduce(t128, v, cg::greater<int>());
  if (t128.thread_rank() == 0)
    out128[t / 128] = m;
}
