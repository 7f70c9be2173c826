// Host memory on the device: cudaHostRegister (mapped, portable) of
// ordinary host memory and cudaHostAlloc(cudaHostAllocMapped), read and
// written by kernels through cudaHostGetDevicePointer (zero copy: the same
// pointer, unified addressing), the registration errors, an access past the
// end of a registered range but in its page (an error the launch survives:
// a GPU maps whole pages) and one far outside it (an illegal address).
#include "common.h"
#include <cstdlib>
#include <vector>

__global__ void scale(const float *in, float *out, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * f;
}

__global__ void poke(int *p, int i) { p[i] = 1; }

int main() {
  const int n = 1000;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i)
    in[i] = float(i);
  CHECK(cudaHostRegister(in.data(), n * sizeof(float),
                         cudaHostRegisterMapped | cudaHostRegisterPortable));
  unsigned flags = 0;
  CHECK(cudaHostGetFlags(&flags, in.data()));
  EXPECT(flags == (cudaHostRegisterMapped | cudaHostRegisterPortable));
  // Registering the range again, or part of it, is refused.
  EXPECT(cudaHostRegister(in.data() + 10, 64, cudaHostRegisterMapped) ==
         cudaErrorHostMemoryAlreadyRegistered);
  EXPECT(cudaGetLastError() == cudaErrorHostMemoryAlreadyRegistered);
  EXPECT(cudaHostRegister(in.data(), 64, 0x100) == cudaErrorInvalidValue);

  float *out = nullptr;
  CHECK(cudaHostAlloc(&out, n * sizeof(float), cudaHostAllocMapped));
  float *d_in = nullptr, *d_out = nullptr;
  CHECK(
      cudaHostGetDevicePointer(reinterpret_cast<void **>(&d_in), in.data(), 0));
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&d_out), out, 0));
  EXPECT(d_in == in.data()); // unified addressing: one pointer
  // A pointer inside the registered range maps too.
  float *d_mid = nullptr;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&d_mid),
                                 in.data() + 5, 0));
  EXPECT(d_mid == in.data() + 5);

  scale<<<(n + 127) / 128, 128>>>(d_in, d_out, n, 3.0f);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i)
    EXPECT(out[i] == 3.0f * float(i)); // zero copy: no cudaMemcpy

  // Host writes are seen by the next kernel.
  in[7] = 100.0f;
  scale<<<1, 32>>>(d_in, d_out, 8, 2.0f);
  CHECK(cudaDeviceSynchronize());
  EXPECT(out[7] == 200.0f);

  CHECK(cudaHostUnregister(in.data()));
  EXPECT(cudaHostUnregister(in.data()) == cudaErrorHostMemoryNotRegistered);
  void *dp = nullptr;
  EXPECT(cudaHostGetDevicePointer(&dp, in.data(), 0) == cudaErrorInvalidValue);
  CHECK(cudaFreeHost(out));

  // One element past a registered range, in its page: the access is made.
  int *small = static_cast<int *>(std::aligned_alloc(4096, 4096));
  for (int i = 0; i < 1024; ++i)
    small[i] = 0;
  CHECK(cudaHostRegister(small, 16 * sizeof(int), cudaHostRegisterMapped));
  poke<<<1, 1>>>(small, 15);
  CHECK(cudaDeviceSynchronize());
  EXPECT(small[15] == 1);
  poke<<<1, 1>>>(small, 16);
  CHECK(cudaDeviceSynchronize());
  EXPECT(small[16] == 1);
  // 16 MiB past it: nothing is mapped there, an illegal address.
  poke<<<1, 1>>>(small, 1 << 22);
  EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  CHECK(cudaDeviceReset());
  std::free(small);
  return finish("host_memory");
}
