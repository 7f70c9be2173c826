// Kernels of the `bcusim run --on-gpu` / `--compare-gpu` golden tests
// (kernels.ptx: nvcc -arch=sm_90 -ptx kernels.cu -o kernels.ptx).
#include <cstdio>

extern "C" __global__ void axpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

extern "C" __global__ void add_one(unsigned *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] += 1;
}

extern "C" __global__ void hello(int n) {
  if (threadIdx.x < n)
    printf("hello from thread %d\n", threadIdx.x);
}
