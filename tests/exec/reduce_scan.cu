// In the style of the reduction and scan samples: a two-pass sum with
// shared memory and warp shuffles, then an inclusive scan of 64K elements
// (block scans, a scan of the block sums, a uniform add). The program
// checks its own results against the host and prints PASS.
#include "common.h"
#include <vector>

constexpr int kBlock = 256;

__device__ int warp_sum(int v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__global__ void reduce(const int *in, int *out, int n) {
  __shared__ int warps[kBlock / 32];
  int sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    sum += in[i];
  sum = warp_sum(sum);
  if (threadIdx.x % 32 == 0)
    warps[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < blockDim.x / 32 ? warps[threadIdx.x] : 0;
    sum = warp_sum(sum);
    if (threadIdx.x == 0)
      out[blockIdx.x] = sum;
  }
}

__global__ void block_scan(int *data, int *sums, int n) {
  __shared__ int s[kBlock];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? data[i] : 0;
  __syncthreads();
  for (int off = 1; off < blockDim.x; off <<= 1) {
    int v = threadIdx.x >= off ? s[threadIdx.x - off] : 0;
    __syncthreads();
    s[threadIdx.x] += v;
    __syncthreads();
  }
  if (i < n)
    data[i] = s[threadIdx.x];
  if (sums && threadIdx.x == blockDim.x - 1)
    sums[blockIdx.x] = s[threadIdx.x];
}

__global__ void uniform_add(int *data, const int *sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x > 0 && i < n)
    data[i] += sums[blockIdx.x - 1];
}

int main() {
  const int n = 1 << 16;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = (i * 7919) % 13 - 6;
  int *d, *partial;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce, kBlock,
                                                      0));
  // Sized from the device, as the samples do (capped to keep it quick).
  int blocks = std::min(prop.multiProcessorCount * per_sm, 64);
  CHECK(cudaMalloc(&partial, blocks * sizeof(int)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  reduce<<<blocks, kBlock>>>(d, partial, n);
  reduce<<<1, kBlock>>>(partial, partial, blocks);
  int gpu = 0;
  CHECK(cudaMemcpy(&gpu, partial, sizeof(int), cudaMemcpyDeviceToHost));
  long long cpu = 0;
  for (int v : h)
    cpu += v;
  EXPECT(gpu == cpu);
  std::printf("reduction: gpu %d, cpu %lld\n", gpu, cpu);

  const int nb = n / kBlock; // 256 blocks: their sums fit one block
  int *sums;
  CHECK(cudaMalloc(&sums, nb * sizeof(int)));
  block_scan<<<nb, kBlock>>>(d, sums, n);
  block_scan<<<1, kBlock>>>(sums, nullptr, nb);
  uniform_add<<<nb, kBlock>>>(d, sums, n);
  std::vector<int> out(n);
  CHECK(cudaMemcpy(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long acc = 0;
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    acc += h[i];
    bad += out[i] != acc;
  }
  EXPECT(bad == 0);
  CHECK(cudaFree(d));
  CHECK(cudaFree(partial));
  CHECK(cudaFree(sums));
  return finish("reduce_scan");
}
