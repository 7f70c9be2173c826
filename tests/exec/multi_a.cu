// Two translation units (with multi_b.cu), each with its own kernels and
// __device__ variables, built separately or as relocatable device code
// (nvcc -rdc=true: one linked image whose PTX is per translation unit).
#include "common.h"

__device__ int offset_a;
__global__ void add_offset(int *p) { p[threadIdx.x] += offset_a; }

void scale_on_b(int *p, int n); // multi_b.cu

int main() {
  int *p;
  CHECK(cudaMallocManaged(&p, 32 * sizeof(int)));
  for (int i = 0; i < 32; ++i)
    p[i] = i;
  const int off = 10;
  CHECK(cudaMemcpyToSymbol(offset_a, &off, sizeof(int)));
  add_offset<<<1, 32>>>(p);
  scale_on_b(p, 32);
  CHECK(cudaDeviceSynchronize());
  EXPECT(p[0] == 30 && p[31] == 123);
  return finish("multi_a");
}
