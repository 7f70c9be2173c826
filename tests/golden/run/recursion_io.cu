// printf and the device heap inside a recursive function (each activation
// passes its own .param variables to vprintf and malloc/free): thread t
// recurses t levels deep, prints each level on the way down and returns
// the sum of the levels, read back from its own heap block.
// Built with: nvcc -ptx -arch=sm_80 recursion_io.cu
#include <cstdio>

__device__ __noinline__ int walk(int n) {
  int *p = (int *)malloc(sizeof(int));
  p[0] = n;
  printf("depth %d, thread %d\n", n, (int)threadIdx.x);
  int r = n > 0 ? walk(n - 1) : 0;
  r += p[0];
  free(p);
  return r;
}

__global__ void levels(int *out) { out[threadIdx.x] = walk(threadIdx.x); }
