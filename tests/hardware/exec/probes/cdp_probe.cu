#include <cstdio>
#include <cuda_runtime.h>
__global__ void nest(int *ran, int *err, int d, int levels) {
  ran[d] = 1;
  if (d + 1 < levels) {
    nest<<<1, 1>>>(ran, err, d + 1, levels);
    err[d] = cudaGetLastError();
  }
}
__global__ void count(int *n) { atomicAdd(n, 1); }
__global__ void launch_many(int *n, int *err, int k) {
  for (int i = 0; i < k; ++i) {
    count<<<1, 1>>>(n);
    err[i] = cudaGetLastError();
  }
}
__global__ void tail_nest(int *ran, int *err, int d, int levels) {
  ran[d] = 1;
  if (d + 1 < levels) {
    tail_nest<<<1, 1, 0, cudaStreamTailLaunch>>>(ran, err, d + 1, levels);
    err[d] = cudaGetLastError();
  }
}
int main() {
  int *ran, *err;
  cudaMalloc(&ran, 64 * sizeof(int));
  cudaMalloc(&err, 64 * sizeof(int));
  int hr[64], he[64];
  for (int variant = 0; variant < 2; ++variant) {
    cudaMemset(ran, 0, 64 * sizeof(int));
    cudaMemset(err, 0xff, 64 * sizeof(int));
    if (variant == 0) nest<<<1, 1>>>(ran, err, 0, 40);
    else tail_nest<<<1, 1>>>(ran, err, 0, 40);
    cudaError_t e = cudaDeviceSynchronize();
    printf("%s: sync %s\n", variant ? "tail_nest" : "nest", cudaGetErrorName(e));
    cudaMemcpy(hr, ran, sizeof(hr), cudaMemcpyDeviceToHost);
    cudaMemcpy(he, err, sizeof(he), cudaMemcpyDeviceToHost);
    for (int d = 0; d < 40; ++d) printf(" d%d:ran=%d err=%d", d, hr[d], he[d]);
    printf("\n");
  }
  size_t lim = 0;
  cudaDeviceGetLimit(&lim, cudaLimitDevRuntimePendingLaunchCount);
  printf("pending default %zu\n", lim);
  size_t tries[] = {4, 1, 100, 2047, 2048, 5000};
  for (size_t t : tries) {
    cudaError_t e = cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, t);
    cudaError_t g = cudaDeviceGetLimit(&lim, cudaLimitDevRuntimePendingLaunchCount);
    printf("set pending %zu: %s; get %s %zu\n", t, cudaGetErrorName(e), cudaGetErrorName(g), lim);
  }
  cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 4);
  for (int k : {10, 3000}) {
    cudaMemset(ran, 0, sizeof(int));
    int *errs; cudaMalloc(&errs, k * sizeof(int));
    launch_many<<<1, 1>>>(ran, errs, k);
    cudaError_t e = cudaDeviceSynchronize();
    int n = 0; cudaMemcpy(&n, ran, sizeof(int), cudaMemcpyDeviceToHost);
    int *h = new int[k]; cudaMemcpy(h, errs, k * sizeof(int), cudaMemcpyDeviceToHost);
    int nerr = 0, first = -1, code = 0;
    for (int i = 0; i < k; ++i) if (h[i]) { ++nerr; if (first < 0) { first = i; code = h[i]; } }
    printf("limit-4 launch_many %d: sync %s count %d failed %d first %d code %d\n", k, cudaGetErrorName(e), n, nerr, first, code);
    cudaDeviceGetLimit(&lim, cudaLimitDevRuntimePendingLaunchCount);
    printf("  limit now %zu\n", lim);
  }
  cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 2048);
  {
    int k = 3000;
    cudaMemset(ran, 0, sizeof(int));
    int *errs; cudaMalloc(&errs, k * sizeof(int));
    launch_many<<<1, 1>>>(ran, errs, k);
    cudaError_t e = cudaDeviceSynchronize();
    int n = 0; cudaMemcpy(&n, ran, sizeof(int), cudaMemcpyDeviceToHost);
    int *h = new int[k]; cudaMemcpy(h, errs, k * sizeof(int), cudaMemcpyDeviceToHost);
    int nerr = 0, first = -1, code = 0;
    for (int i = 0; i < k; ++i) if (h[i]) { ++nerr; if (first < 0) { first = i; code = h[i]; } }
    printf("limit-2048 launch_many %d: sync %s count %d failed %d first %d code %d\n", k, cudaGetErrorName(e), n, nerr, first, code);
  }
  return 0;
}
