#include <cstdio>
#include <cuda_runtime.h>
__global__ void noop2(int *p) { if (p) *p = 1; }
__global__ void exhaust(unsigned long long *out, size_t big) {
  void *a = malloc(big); void *b = malloc(big);
  out[0] = a != nullptr; out[1] = b != nullptr; free(a); free(b);
}
int main() {
  size_t lim = 0;
  int *d; cudaMalloc(&d, 4);
  noop2<<<1, 1>>>(d);
  printf("noop2: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20);
  cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize);
  printf("set after a kernel launch (heap module): %s, get %zu\n", cudaGetErrorName(e), lim);
  unsigned long long *o; cudaMalloc(&o, 32);
  exhaust<<<1, 1>>>(o, 600 << 10);
  printf("exhaust: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  unsigned long long h[2]; cudaMemcpy(h, o, 16, cudaMemcpyDeviceToHost);
  printf("exhaust 600K: %llu %llu\n", h[0], h[1]);
  e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 << 20);
  cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize);
  printf("set after malloc ran: %s, get %zu\n", cudaGetErrorName(e), lim);
  e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20);
  printf("set to the same value: %s\n", cudaGetErrorName(e));
  exhaust<<<1, 1>>>(o, 5 << 20);
  cudaDeviceSynchronize(); cudaMemcpy(h, o, 16, cudaMemcpyDeviceToHost);
  printf("exhaust 5M: %llu %llu\n", h[0], h[1]);
  cudaDeviceReset();
  e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20);
  cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize);
  printf("after reset set: %s get %zu\n", cudaGetErrorName(e), lim);
  return 0;
}
