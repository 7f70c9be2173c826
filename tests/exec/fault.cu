// Errors as on a GPU: a kernel that writes out of bounds makes the launch
// and every later synchronizing call return cudaErrorIllegalAddress until
// cudaDeviceReset; __trap() gives cudaErrorLaunchFailure, a failed assert()
// cudaErrorAssert, a kernel that can never finish cudaErrorLaunchTimeout;
// unknown kernels, bad configurations and unsupported APIs return their own
// codes.
#include "common.h"
#include <cassert>
#include <string>

__global__ void overrun(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  p[i + n] = i; // every thread writes past the end
}

__global__ void trapper(int *p) {
  if (threadIdx.x == 3)
    __trap();
  p[threadIdx.x] = 1;
}

__global__ void ok(int *p) { p[threadIdx.x] = 7; }

__global__ void asserting(const int *p) { assert(p[threadIdx.x] == 0); }

// Lane 0 waits for a flag nobody sets.
__global__ void spin(volatile int *flag) {
  if (threadIdx.x == 0)
    while (*flag == 0) {
    }
}

int main() {
  int *d;
  CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  overrun<<<2, 32>>>(d, 64);
  EXPECT(cudaGetLastError() == cudaErrorIllegalAddress);
  EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  int h[64];
  EXPECT(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost) ==
         cudaErrorIllegalAddress);
  ok<<<1, 64>>>(d); // refused: the context is broken
  EXPECT(cudaPeekAtLastError() == cudaErrorIllegalAddress);
  EXPECT(std::string(cudaGetErrorName(cudaErrorIllegalAddress)) ==
         "cudaErrorIllegalAddress");
  CHECK(cudaDeviceReset());
  CHECK(cudaGetLastError());

  CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  trapper<<<1, 32>>>(d);
  EXPECT(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(cudaDeviceReset());

  CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  CHECK(cudaMemset(d, 1, 64 * sizeof(int)));
  asserting<<<1, 32>>>(d);
  EXPECT(cudaDeviceSynchronize() == cudaErrorAssert);
  CHECK(cudaDeviceReset());

  CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  CHECK(cudaMemset(d, 0, 64 * sizeof(int)));
  spin<<<1, 32>>>(d);
  EXPECT(cudaDeviceSynchronize() == cudaErrorLaunchTimeout);
  CHECK(cudaDeviceReset());

  CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  ok<<<1, 64>>>(d);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  EXPECT(h[63] == 7);
  // Configuration errors are not sticky.
  ok<<<1, 2048>>>(d);
  EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
  CHECK(cudaGetLastError());
  EXPECT(cudaLaunchKernel((const void *)main, dim3(1), dim3(1), nullptr, 0,
                          0) == cudaErrorInvalidDeviceFunction);
  // An API bcusim does not provide.
  cudaArray_t arr;
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  EXPECT(cudaMalloc3DArray(&arr, &desc, make_cudaExtent(4, 4, 4)) ==
         cudaErrorNotSupported);
  CHECK(cudaFree(d));
  return finish("fault");
}
