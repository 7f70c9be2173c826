// The second translation unit of multi_a.cu.
#include <cuda_runtime.h>

__device__ int factor_b = 3;
__global__ void scale(int *p) { p[threadIdx.x] *= factor_b; }

void scale_on_b(int *p, int n) { scale<<<1, n>>>(p); }
