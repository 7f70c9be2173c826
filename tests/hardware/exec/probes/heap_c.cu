#include <cstdio>
#include <cuda_runtime.h>
__global__ void noop3(int *p) { if (p) *p = 1; }
__global__ void uses_heap(int *p) { int *q = (int *)malloc(64); q[0] = 1; *p = q[0]; free(q); }
void launch_noop3(int *d) { noop3<<<1, 1>>>(d); printf("noop3: %s\n", cudaGetErrorName(cudaDeviceSynchronize())); }
void launch_heap(int *d) { uses_heap<<<1, 1>>>(d); printf("uses_heap: %s\n", cudaGetErrorName(cudaDeviceSynchronize())); }
