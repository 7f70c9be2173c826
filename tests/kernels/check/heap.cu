// heap: the device heap (malloc/free in kernels). Each thread allocates its
// own block, so the threads never share one.
//   heap_uaf_buggy: the block is read after free (a fault at the load).
//   heap_double_free_buggy: the block is freed twice (a fault at the
//     second free).
//   heap_leak_buggy: the block is kept and never freed (a warning at the
//     end of the run).
//   heap_fixed: the block is used, then freed once (clean).
// Launch: -g 1 -b 32 (leak: -b 1); out = s32[32], keep = u64[32].
// Fixed result: out[t] = 3 * t + 1.
#include <cstdlib>

extern "C" __global__ void heap_uaf_buggy(int *out) {
  int *p = static_cast<int *>(malloc(4 * sizeof(int)));
  p[1] = 3 * threadIdx.x + 1;
  free(p);
  out[threadIdx.x] = p[1];
}

extern "C" __global__ void heap_double_free_buggy(int *out) {
  int *p = static_cast<int *>(malloc(4 * sizeof(int)));
  p[1] = 3 * threadIdx.x + 1;
  out[threadIdx.x] = p[1];
  free(p);
  free(p);
}

extern "C" __global__ void heap_leak_buggy(int **keep) {
  int *p = static_cast<int *>(malloc(4 * sizeof(int)));
  keep[threadIdx.x] = p;
}

extern "C" __global__ void heap_fixed(int *out) {
  int *p = static_cast<int *>(malloc(4 * sizeof(int)));
  p[1] = 3 * threadIdx.x + 1;
  out[threadIdx.x] = p[1];
  free(p);
}
