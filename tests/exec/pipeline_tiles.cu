// In the style of the cooperative-groups and async-copy samples: a
// double-buffered cuda::pipeline staging tiles with memcpy_async, tile
// reductions and scans (cg::reduce, cg::inclusive_scan over 16-thread
// tiles), and a block-wide cg::memcpy_async. Checked on the host; PASS.
#include "common.h"
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda/pipeline>
namespace cg = cooperative_groups;

__global__ void staged(const int *in, int *out, int tiles) {
  __shared__ int buf[2][128];
  cuda::pipeline<cuda::thread_scope_thread> p = cuda::make_pipeline();
  int acc = 0;
  for (int t = 0; t < tiles; ++t) {
    p.producer_acquire();
    cuda::memcpy_async(&buf[t & 1][threadIdx.x], &in[t * 128 + threadIdx.x],
                       sizeof(int), p);
    p.producer_commit();
    p.consumer_wait();
    acc += buf[t & 1][threadIdx.x];
    p.consumer_release();
  }
  out[threadIdx.x] = acc;
}

__global__ void tile_ops(const int *in, int *sums, int *scans) {
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  int v = in[threadIdx.x];
  int s = cg::reduce(tile, v, cg::plus<int>());
  if (tile.thread_rank() == 0)
    sums[threadIdx.x / 16] = s;
  scans[threadIdx.x] = cg::inclusive_scan(tile, v);
}

__global__ void reverse(const int *in, int *out) {
  __shared__ int sh[256];
  auto block = cg::this_thread_block();
  cg::memcpy_async(block, sh, in, sizeof(int) * 256);
  cg::wait(block);
  out[threadIdx.x] = sh[255 - threadIdx.x];
}

int main() {
  int *in, *a, *b;
  CHECK(cudaMallocManaged(&in, 1024 * sizeof(int)));
  CHECK(cudaMallocManaged(&a, 256 * sizeof(int)));
  CHECK(cudaMallocManaged(&b, 256 * sizeof(int)));
  for (int i = 0; i < 1024; ++i)
    in[i] = (i * 37) % 101;
  staged<<<1, 128>>>(in, a, 8);
  CHECK(cudaDeviceSynchronize());
  int bad = 0;
  for (int t = 0; t < 128; ++t) {
    int want = 0;
    for (int k = 0; k < 8; ++k)
      want += in[k * 128 + t];
    bad += a[t] != want;
  }
  EXPECT(bad == 0);

  tile_ops<<<1, 64>>>(in, a, b);
  CHECK(cudaDeviceSynchronize());
  for (int tile = 0; tile < 4; ++tile) {
    int run = 0;
    for (int k = 0; k < 16; ++k) {
      run += in[tile * 16 + k];
      bad += b[tile * 16 + k] != run;
    }
    bad += a[tile] != run;
  }
  EXPECT(bad == 0);

  reverse<<<1, 256>>>(in, a);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < 256; ++i)
    bad += a[i] != in[255 - i];
  EXPECT(bad == 0);
  return finish("pipeline_tiles");
}
