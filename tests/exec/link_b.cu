// The second translation unit of link_a.cu (nvcc -rdc=true).
#include <cstdio>
#include <cuda_runtime.h>

extern __device__ int limit_a; // link_a.cu
extern __device__ int calls_a; // link_a.cu
__device__ int bias_b = 7;

static __device__ __noinline__ int local_step(int x) { return 3 * x; }

__device__ int scale_b(int x) {
  atomicAdd(&calls_a, 1);
  int y = local_step(x);
  if (y > limit_a) {
    if (y == 3 * 400)
      printf("scale_b: clamped %d\n", y);
    y = limit_a;
  }
  return y;
}
