// grid_sync: cooperative-groups grid.sync() (a cooperative launch: bcusim
// gives every launch whose module reads %envreg1/2 the grid workspace).
// Every CTA writes its part of `a`; after grid.sync() each thread reads an
// element another CTA wrote.
//   grid_sync_partial_buggy: CTA 0 has "nothing more to do" and returns
//     before grid.sync(); the other CTAs wait in grid.sync() for an arrival
//     that never comes. Two findings at the grid.sync() line: barrier
//     divergence (a grid-wide barrier reached by only some CTAs while
//     another exited; CUDA requires every thread of the grid) and a
//     deadlock (unlike bar.sync 0, the grid barrier counts CTAs fixed at
//     launch, so an exited CTA never lets it complete: the waiting CTAs can
//     never be released, on hardware too).
//   grid_sync_fixed: CTA 0 reaches grid.sync() too and only then skips the
//     rest (clean).
// Launch: -g 4 -b 64; a = s32[256], b = s32[256]; the buggy run adds
// --max-steps so that a plain run without the checker stops soon.
// Fixed result: a[g] = 3 * g + 1; b[g] = a[(g + 64) % 256] for CTAs 1-3,
// 0 for CTA 0.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void grid_sync_partial_buggy(int *a, int *b) {
  cg::grid_group grid = cg::this_grid();
  const unsigned n = gridDim.x * blockDim.x;
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  a[g] = 3 * static_cast<int>(g) + 1;
  if (blockIdx.x == 0)
    return;
  grid.sync();
  b[g] = a[(g + 64) % n];
}

extern "C" __global__ void grid_sync_fixed(int *a, int *b) {
  cg::grid_group grid = cg::this_grid();
  const unsigned n = gridDim.x * blockDim.x;
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  a[g] = 3 * static_cast<int>(g) + 1;
  grid.sync();
  if (blockIdx.x == 0)
    return;
  b[g] = a[(g + 64) % n];
}
