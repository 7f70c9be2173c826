// Errors as on a GPU, a fault per process (argument: trap, assert, timeout,
// near; else a store far out of bounds): the launch and every later
// synchronizing call return the error; cudaDeviceReset then leaves the
// device unavailable to the process. Bad configurations, non-kernels and
// unsupported APIs return their own codes and are not sticky.
#include "common.h"
#include <cassert>
#include <cstring>
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

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const bool bcusim = under_bcusim();
  int *d;
  int h[64];
  CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  bool faults = true;
  if (mode == "near") {
    // Just past the allocation: bcusim reports it; a GPU maps device memory
    // in 2 MiB pages and completes the store.
    overrun<<<2, 32>>>(d, 64);
    faults = bcusim;
    EXPECT(cudaDeviceSynchronize() ==
           (bcusim ? cudaErrorIllegalAddress : cudaSuccess));
  } else if (mode == "trap") {
    trapper<<<1, 32>>>(d);
    EXPECT(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  } else if (mode == "assert") {
    CHECK(cudaMemset(d, 1, 64 * sizeof(int)));
    asserting<<<1, 32>>>(d);
    EXPECT(cudaDeviceSynchronize() == cudaErrorAssert);
  } else if (mode == "timeout") {
    // A GPU without a watchdog spins on: only bcusim ends it.
    faults = bcusim;
    if (bcusim) {
      CHECK(cudaMemset(d, 0, 64 * sizeof(int)));
      spin<<<1, 32>>>(d);
      EXPECT(cudaDeviceSynchronize() == cudaErrorLaunchTimeout);
    }
  } else {
    ok<<<1, 64>>>(d);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
    EXPECT(h[63] == 7);
    // Configuration errors are not sticky. Too many threads per CTA is an
    // invalid value (a device-side launch says invalid configuration); a
    // pointer that is not a kernel is an invalid kernel handle.
    ok<<<1, 2048>>>(d);
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaGetLastError());
    EXPECT(cudaLaunchKernel((const void *)main, dim3(1), dim3(1), nullptr, 0,
                            0) == cudaErrorInvalidResourceHandle);
    EXPECT(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError());
    // An API bcusim does not provide.
    if (bcusim) {
      cudaArray_t arr;
      cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
      EXPECT(cudaMalloc3DArray(&arr, &desc, make_cudaExtent(4, 4, 4)) ==
             cudaErrorNotSupported);
      EXPECT(cudaGetLastError() == cudaErrorNotSupported);
    }
    // 1 GiB past the allocation: no memory is mapped there, on a GPU
    // either (an overrun within the allocation's 2 MiB page does not fault
    // on a GPU; bcusim reports every access outside an allocation).
    // (The launch itself may return before the kernel faults.)
    overrun<<<2, 32>>>(d, 1 << 28);
    EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
    EXPECT(cudaGetLastError() == cudaErrorIllegalAddress);
    EXPECT(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost) ==
           cudaErrorIllegalAddress);
    ok<<<1, 64>>>(d); // refused: the context is broken
    EXPECT(cudaPeekAtLastError() == cudaErrorIllegalAddress);
    EXPECT(std::string(cudaGetErrorName(cudaErrorIllegalAddress)) ==
           "cudaErrorIllegalAddress");
  }
  if (faults) {
    // The context is broken; a reset ends it, and the device is not
    // available again to this process.
    CHECK(cudaDeviceReset());
    EXPECT(cudaMalloc(&d, 64 * sizeof(int)) == cudaErrorDevicesUnavailable);
  }
  return finish("fault");
}
