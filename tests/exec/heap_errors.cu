// Device-heap misuse, each reported with the kernel, instruction, CTA,
// warp and lane: a use after free and an overrun of a heap block (illegal
// address), a double free (launch failure), and at exit a block never
// freed (a warning under --check). Each fault is sticky: cudaDeviceReset
// clears it before the next case.
#include "common.h"

__global__ void use_after_free(int *out) {
  int *p = static_cast<int *>(malloc(4 * sizeof(int)));
  p[0] = 7;
  free(p);
  out[0] = p[0]; // the block is gone
}

__global__ void overrun(int *out, int n) {
  int *p = static_cast<int *>(malloc(n * sizeof(int)));
  for (int i = 0; i <= n; ++i) // one past the end
    p[i] = i;
  out[0] = p[0];
  free(p);
}

__global__ void double_free() {
  void *p = malloc(32);
  free(p);
  free(p);
}

__global__ void leak(int **keep) { keep[threadIdx.x] = new int[4]; }

int main() {
  int *out;
  CHECK(cudaMalloc(&out, sizeof(int)));
  use_after_free<<<1, 1>>>(out);
  EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  CHECK(cudaDeviceReset());

  CHECK(cudaMalloc(&out, sizeof(int)));
  overrun<<<1, 1>>>(out, 8);
  EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  CHECK(cudaDeviceReset());

  double_free<<<1, 1>>>();
  EXPECT(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(cudaDeviceReset());

  int **keep;
  CHECK(cudaMalloc(&keep, 2 * sizeof(int *)));
  leak<<<1, 2>>>(keep);
  CHECK(cudaDeviceSynchronize());
  return finish("heap_errors");
}
