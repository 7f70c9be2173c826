// Static shared memory is per kernel: each kernel of a module counts the
// __shared__ arrays it uses (its own and those of the device functions it
// calls), as ptxas reports them, not every array of the module (the CUDA
// samples' cppOverload prints sharedSizeBytes of three overloads).
#include "common.h"

__device__ int helper_sum(int v) {
  __shared__ int helper_tile[256]; // 1 KiB, used by `big` through the call
  helper_tile[threadIdx.x] = v;
  __syncthreads();
  return helper_tile[(threadIdx.x + 1) % blockDim.x];
}

__global__ void small(int *out) {
  __shared__ int tile[256]; // 1 KiB
  extern __shared__ int dyn[];
  tile[threadIdx.x] = int(threadIdx.x);
  dyn[threadIdx.x] = 2 * int(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = tile[255 - threadIdx.x] + dyn[threadIdx.x];
}

__global__ void big(int *out) {
  __shared__ float table[10240]; // 40 KiB
  table[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = int(table[255 - threadIdx.x]) + helper_sum(1);
}

int main() {
  cudaFuncAttributes a;
  CHECK(cudaFuncGetAttributes(&a, small));
  EXPECT(a.sharedSizeBytes == 1024);
  CHECK(cudaFuncGetAttributes(&a, big));
  EXPECT(a.sharedSizeBytes == 40 * 1024 + 1024);
  // 40 KiB of dynamic shared memory fit beside small's 1 KiB without the
  // opt-in (48 KiB); with the module's 42 KiB they would not.
  int *out;
  CHECK(cudaMallocManaged(&out, 256 * sizeof(int)));
  small<<<1, 256, 40 * 1024>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  EXPECT(out[0] == 255 && out[255] == 2 * 255);
  big<<<1, 256>>>(out);
  CHECK(cudaDeviceSynchronize());
  EXPECT(out[0] == 255 + 1 && out[255] == 0 + 1);
  // Occupancy counts the kernel's own shared memory: 228 KiB per SM hold
  // five CTAs of 41 KiB (+1 KiB reserved each), and 32 of 1 KiB + 1 KiB
  // reserved (the CTA limit).
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, big, 256, 0));
  EXPECT(per_sm == 5);
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, small, 64, 0));
  EXPECT(per_sm == 32);
  CHECK(cudaFree(out));
  return finish("shared_sizes");
}
