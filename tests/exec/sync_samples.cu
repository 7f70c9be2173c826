// In the style of the cooperative-groups and cuda::barrier samples: a grid
// of CTAs that sums with grid.sync (cooperative launch sized by occupancy),
// a producer/consumer pipeline on cuda::barrier with memcpy_async, and a
// cluster histogram in distributed shared memory. Prints PASS when the
// program's own checks hold.
#include "common.h"
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <vector>
namespace cg = cooperative_groups;
// A __shared__ cuda::barrier is initialised with init() below, not by its
// constructor.
#pragma nv_diag_suppress static_var_with_dynamic_init

__global__ void grid_normalize(float *v, float *partial, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  __shared__ float s[256];
  float sum = 0;
  for (int i = grid.thread_rank(); i < n; i += grid.size())
    sum += v[i];
  s[block.thread_rank()] = sum;
  block.sync();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (block.thread_rank() < k)
      s[block.thread_rank()] += s[block.thread_rank() + k];
    block.sync();
  }
  if (block.thread_rank() == 0)
    partial[blockIdx.x] = s[0];
  grid.sync();
  float total = 0;
  for (int b = 0; b < gridDim.x; ++b)
    total += partial[b];
  for (int i = grid.thread_rank(); i < n; i += grid.size())
    v[i] /= total;
}

// Each CTA stages tiles of `in` into shared memory with memcpy_async and
// sums them; the barrier completes when the copies have landed.
__global__ void staged_sum(const int *in, int *out, int tiles) {
  __shared__ int tile[128];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0)
    init(&bar, block.size());
  block.sync();
  int acc = 0;
  for (int t = 0; t < tiles; ++t) {
    cuda::memcpy_async(block, tile, in + (blockIdx.x * tiles + t) * 128,
                       sizeof(tile), bar);
    bar.arrive_and_wait();
    acc += tile[threadIdx.x];
    bar.arrive_and_wait(); // everyone has read the tile before the next copy
  }
  atomicAdd(out, acc);
}

__global__ void __cluster_dims__(4, 1, 1)
    cluster_hist(const int *in, int *bins, int n, int nbins) {
  extern __shared__ int smem[];
  cg::cluster_group cluster = cg::this_cluster();
  int per = nbins / cluster.num_blocks(); // bins owned by each CTA
  for (int i = threadIdx.x; i < per; i += blockDim.x)
    smem[i] = 0;
  cluster.sync();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    int b = in[i] % nbins;
    int *dst = cluster.map_shared_rank(smem, b / per);
    atomicAdd(dst + b % per, 1);
  }
  cluster.sync();
  for (int i = threadIdx.x; i < per; i += blockDim.x)
    atomicAdd(&bins[cluster.block_rank() * per + i], smem[i]);
}

int main() {
  // grid.sync
  const int n = 4096;
  float *v, *partial;
  CHECK(cudaMallocManaged(&v, n * sizeof(float)));
  for (int i = 0; i < n; ++i)
    v[i] = 1.0f;
  int per_sm = 0, dev = 0, coop = 0;
  CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
  EXPECT(coop == 1);
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_normalize,
                                                      256, 0));
  int blocks = std::min(per_sm * 132, 8);
  CHECK(cudaMalloc(&partial, blocks * sizeof(float)));
  void *args[] = {&v, &partial, (void *)&n};
  CHECK(cudaLaunchCooperativeKernel((void *)grid_normalize, blocks, 256, args,
                                    0, 0));
  CHECK(cudaDeviceSynchronize());
  EXPECT(v[0] == 1.0f / n && v[n - 1] == 1.0f / n);

  // cuda::barrier + memcpy_async
  const int ctas = 4, tiles = 3;
  std::vector<int> h(ctas * tiles * 128);
  long long want = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    h[i] = int(i % 97);
    want += h[i];
  }
  int *din, *dout;
  CHECK(cudaMalloc(&din, h.size() * sizeof(int)));
  CHECK(cudaMalloc(&dout, sizeof(int)));
  CHECK(cudaMemcpy(din, h.data(), h.size() * sizeof(int),
                   cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dout, 0, sizeof(int)));
  staged_sum<<<ctas, 128>>>(din, dout, tiles);
  int got = 0;
  CHECK(cudaMemcpy(&got, dout, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(got == want);

  // Cluster histogram in distributed shared memory.
  const int nbins = 64, m = 5000;
  int *in, *bins;
  CHECK(cudaMallocManaged(&in, m * sizeof(int)));
  CHECK(cudaMallocManaged(&bins, nbins * sizeof(int)));
  std::vector<int> ref(nbins, 0);
  for (int i = 0; i < m; ++i) {
    in[i] = (i * 31 + 7) % 1000;
    ref[in[i] % nbins]++;
  }
  CHECK(cudaMemset(bins, 0, nbins * sizeof(int)));
  cluster_hist<<<8, 128, nbins / 4 * sizeof(int)>>>(in, bins, m, nbins);
  CHECK(cudaDeviceSynchronize());
  int bad = 0;
  for (int i = 0; i < nbins; ++i)
    bad += bins[i] != ref[i];
  EXPECT(bad == 0);
  return finish("sync_samples");
}
