// Relocatable device code across translation units (with link_b.cu, built
// with nvcc -rdc=true): a kernel here calls a __device__ function defined
// in link_b.cu and reads a __device__ variable defined there; link_b.cu's
// function reads a variable defined here. Both units have a file-local
// function of the same name and printf format strings, which stay apart.
#include "common.h"

extern __device__ int bias_b;            // link_b.cu
__device__ int scale_b(int x);           // link_b.cu
__device__ int limit_a = 1000;           // read by link_b.cu
__device__ int calls_a;                  // counted by link_b.cu

static __device__ __noinline__ int local_step(int x) { return x + 1; }

__global__ void combine(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = scale_b(local_step(p[i])) + bias_b;
  if (i == 0)
    printf("combine: bias %d\n", bias_b);
}

int main() {
  const int n = 400;
  int *p;
  CHECK(cudaMallocManaged(&p, n * sizeof(int)));
  for (int i = 0; i < n; ++i)
    p[i] = i;
  combine<<<(n + 127) / 128, 128>>>(p, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  // scale_b(x) = min(local_step_b(x), limit_a) with local_step_b(x) = 3x,
  // so p[i] = min(3 (i + 1), 1000) + 7.
  int bad = 0;
  for (int i = 0; i < n; ++i)
    bad += p[i] != (3 * (i + 1) < 1000 ? 3 * (i + 1) : 1000) + 7;
  EXPECT(bad == 0);
  int calls = 0, bias = 0;
  CHECK(cudaMemcpyFromSymbol(&calls, calls_a, sizeof(int)));
  CHECK(cudaMemcpyFromSymbol(&bias, bias_b, sizeof(int)));
  EXPECT(calls == n);
  EXPECT(bias == 7);
  CHECK(cudaFree(p));
  return finish("link_a");
}
