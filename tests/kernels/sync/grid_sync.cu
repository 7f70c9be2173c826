// grid_sync: cooperative_groups::this_grid().sync() between two phases of
// a grid of 6 CTAs x 64 threads; phase 2 reads what other CTAs wrote in
// phase 1, then a second grid.sync() and phase 3 reads phase 2's results.
// a[gtid] = gtid * 3 + 1; b[gtid] = a[(gtid + 37) % N] + a[N - 1 - gtid];
// c[gtid] = b[(gtid * 5) % N].
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void grid_sync(int *a, int *b, int *c) {
  cg::grid_group grid = cg::this_grid();
  const unsigned n = gridDim.x * blockDim.x;
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  a[g] = static_cast<int>(g) * 3 + 1;
  grid.sync();
  b[g] = a[(g + 37) % n] + a[n - 1 - g];
  grid.sync();
  c[g] = b[(g * 5) % n];
}
