#include <cstdio>
#include <cuda_runtime.h>
__global__ void noop(int *p) { if (p) *p = 1; }
void launch_noop3(int *d);
void launch_heap(int *d);
static void report(const char *when, size_t v) {
  cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, v);
  size_t lim = 0;
  cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize);
  printf("set %zu %s: %s, get %zu\n", v, when, cudaGetErrorName(e), lim);
}
int main() {
  size_t lim = 0;
  cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize);
  printf("heap default %zu\n", lim);
  report("before anything", 2 << 20);
  int *d; cudaMalloc(&d, 4);
  report("after cudaMalloc", 3 << 20);
  noop<<<1, 1>>>(d);
  printf("noop: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  report("after a kernel of a module without malloc", 4 << 20);
  launch_noop3(d);
  report("after a non-malloc kernel of a module with malloc", 5 << 20);
  launch_heap(d);
  report("after a malloc kernel", 6 << 20);
  return 0;
}
