// Sources of the nvcc-generated golden inputs in this folder
// (nvcc -ptx -arch=sm_80 kernels.cu; each .ptx holds one kernel with a
// bcusim command line added at the top).
#include <cstdio>
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
__global__ void oob(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = i;
}
__global__ void misaligned(char *p) { *(int *)(p + threadIdx.x) = 1; }
__global__ void trap(int *p) {
  if (threadIdx.x == 3 && blockIdx.x == 1)
    __trap();
  p[threadIdx.x] = 1;
}
__global__ void spin(volatile int *flag) {
  while (flag[0] == 0) {
  }
}
__global__ void hello(int n, unsigned char *out) {
  if (threadIdx.x < 2)
    printf("block %d thread %d of %d\n", blockIdx.x, threadIdx.x, n);
  if (threadIdx.x == 0)
    out[blockIdx.x] = (unsigned char)(250 + blockIdx.x);
}
__global__ void grid2d(int *out, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * w + x] = y * 100 + x;
}
