// A bundled CUDA program for `bcusim exec` (make run): a shared-memory
// histogram with __syncthreads and atomics, its size taken from the device
// properties; the program checks its own result and prints PASS.
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

__global__ void histogram(const unsigned char *in, int n, unsigned *bins) {
  __shared__ unsigned local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    atomicAdd(&local[in[i]], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 100000;
  std::vector<unsigned char> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = (unsigned char)((i * 2654435761u) >> 24);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  unsigned char *din;
  unsigned *dbins;
  cudaMalloc(&din, n);
  cudaMalloc(&dbins, 256 * sizeof(unsigned));
  cudaMemcpy(din, h.data(), n, cudaMemcpyHostToDevice);
  cudaMemset(dbins, 0, 256 * sizeof(unsigned));
  histogram<<<prop.multiProcessorCount / 8, 256>>>(din, n, dbins);
  cudaError_t err = cudaGetLastError();
  std::vector<unsigned> bins(256), ref(256, 0);
  cudaMemcpy(bins.data(), dbins, 256 * sizeof(unsigned),
             cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    ref[h[i]]++;
  bool ok = err == cudaSuccess && bins == ref;
  std::printf("histogram of %d bytes: %s\n", n, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
