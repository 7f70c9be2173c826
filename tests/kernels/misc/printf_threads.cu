// printf_threads: every thread of 2 CTAs x 4 threads prints one line.
// The reference lists the lines in ascending (ctaid, tid) order: this
// assumes bcusim emits printf output in that order (the CUDA runtime
// guarantees no order; bcusim's default schedule is deterministic).
#include <cstdio>

extern "C" __global__ void printf_threads() {
  printf("cta %d tid %d value %d\n", static_cast<int>(blockIdx.x),
         static_cast<int>(threadIdx.x),
         static_cast<int>(blockIdx.x * 100 + threadIdx.x * threadIdx.x));
}
