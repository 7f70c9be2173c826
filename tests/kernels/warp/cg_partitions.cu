// cg_partitions: cooperative-groups partitions of a warp, whose collectives
// compile to redux/vote/match/shfl.sync with a *different member mask per
// lane* (each lane names its own group). Per thread t (lane = t % 32,
// v = (t * 7 + 3) % 23), 8 outputs:
//   [0] labeled_partition by label lane % 3: cg::reduce (plus) of v
//   [1] the same group's size
//   [2] labeled_partition by v % 4: thread_rank within the group
//   [3] coalesced_threads() inside `if (v % 2)`: reduce (max) of v (-1
//       for lanes that do not take the branch)
//   [4] tiled_partition<4>: reduce (plus) of v
//   [5] tiled_partition<8>: inclusive_scan (plus) of v
//   [6] tiled_partition<16>: any(v > 20)
//   [7] tiled_partition<32>: ballot-like count of v even (cg::reduce of
//       (v % 2 == 0))
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

extern "C" __global__ void cg_partitions(int *out) {
  const int t = threadIdx.x, lane = t % 32;
  const int v = (t * 7 + 3) % 23;
  int *o = out + t * 8;
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);

  cg::coalesced_group by3 = cg::labeled_partition(warp, lane % 3);
  o[0] = cg::reduce(by3, v, cg::plus<int>());
  o[1] = by3.size();
  cg::coalesced_group by4 = cg::labeled_partition(warp, v % 4);
  o[2] = by4.thread_rank();

  o[3] = -1;
  if (v % 2) {
    cg::coalesced_group active = cg::coalesced_threads();
    o[3] = cg::reduce(active, v, cg::greater<int>());
  }

  cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(block);
  o[4] = cg::reduce(t4, v, cg::plus<int>());
  cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
  o[5] = cg::inclusive_scan(t8, v, cg::plus<int>());
  cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
  o[6] = t16.any(v > 20) ? 1 : 0;
  o[7] = cg::reduce(warp, v % 2 == 0 ? 1 : 0, cg::plus<int>());
}
