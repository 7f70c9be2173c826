// Grid-sync benchmark kernel for bench/check (nvcc -ptx -lineinfo
// -arch=sm_80 gridsync_kernels.cu -o gridsync_kernels.ptx), in a module of
// its own: a module that uses grid.sync() makes every launch of it
// cooperative. gridsync_scale: `iters` rounds of three cooperative-groups
// grid.sync() around a neighbour exchange; the checker's cost per grid
// sync as the CTAs grow (docs/performance.md "Checker").
#include <cooperative_groups.h>

extern "C" __global__ void gridsync_scale(int *a, int iters) {
  cooperative_groups::grid_group g = cooperative_groups::this_grid();
  const unsigned t = g.thread_rank(), n = g.size();
  for (int it = 0; it < iters; ++it) {
    a[t] += 1;
    g.sync();
    const int v = a[(t + 1) % n];
    g.sync();
    a[t] = v;
    g.sync();
  }
}
