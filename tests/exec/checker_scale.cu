// Patterns of the CUDA samples that the race checker must follow at the
// scale the samples run them, under --check all within the test's time
// limit, with no findings:
//   atomics  every thread of 64 CTAs applies each atomic operation to its
//            own int of ten (two to each 8-byte granule), 50 times; the
//            compare-and-swaps mostly fail (reads only);
//   barrier  a cooperative grid whose threads each arrive on a CTA-wide
//            cuda::barrier, between grid syncs (every thread arrives on its
//            own, then knows every other thread of the grid).
#include <cooperative_groups.h>
#include <cstring>
#include <cuda/barrier>

#include "common.h"

namespace cg = cooperative_groups;

__global__ void counters(int *c, int iterations) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < iterations; ++i) {
    atomicAdd(&c[0], 1);
    atomicExch(&c[1], tid);
    atomicMax(&c[2], tid);
    atomicMin(&c[3], tid);
    atomicInc(reinterpret_cast<unsigned *>(&c[4]), 9u);
    atomicDec(reinterpret_cast<unsigned *>(&c[5]), 9u);
    atomicCAS(&c[6], tid - 1, tid);
    atomicAnd(&c[7], ~(1 << (tid % 31)));
    atomicOr(&c[8], 1 << (tid % 31));
    atomicXor(&c[9], tid);
  }
}

__global__ void barrier_sums(const int *in, int *partial, int *out, int n) {
  cg::grid_group grid = cg::this_grid();
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int warp_sums[32];
  if (threadIdx.x == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  for (int round = 0; round < 2; ++round) {
    int s = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size())
      s += in[i] * (round + 1);
    for (int o = 16; o > 0; o /= 2)
      s += __shfl_down_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0)
      warp_sums[threadIdx.x / 32] = s;
    bar.arrive_and_wait();
    if (threadIdx.x == 0) {
      int t = 0;
      for (int w = 0; w < int(blockDim.x / 32); ++w)
        t += warp_sums[w];
      partial[blockIdx.x] = t;
    }
    grid.sync();
    if (grid.thread_rank() == 0) {
      int t = 0;
      for (int b = 0; b < int(gridDim.x); ++b)
        t += partial[b];
      out[round] = t;
    }
    grid.sync();
  }
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "atomics";
  if (!std::strcmp(mode, "atomics")) {
    const int blocks = 64, threads = 256, iterations = 50;
    const int total = blocks * threads * iterations;
    int *c;
    CHECK(cudaMallocManaged(&c, 10 * sizeof(int)));
    for (int i = 0; i < 10; ++i)
      c[i] = 0;
    c[3] = 1 << 30;
    c[7] = -1;
    counters<<<blocks, threads>>>(c, iterations);
    CHECK(cudaDeviceSynchronize());
    EXPECT(c[0] == total);
    EXPECT(c[1] >= 0 && c[1] < blocks * threads);
    EXPECT(c[2] == blocks * threads - 1 && c[3] == 0);
    EXPECT(c[4] == total % 10);           // 0..9, wrapping
    EXPECT(c[5] == (10 - total % 10) % 10); // 0, 9, 8, ...
    EXPECT(c[6] >= 0 && c[6] < blocks * threads);
    EXPECT(c[7] == int(0x80000000u) && c[8] == 0x7fffffff);
    EXPECT(c[9] == 0); // every tid an even number of times
    CHECK(cudaFree(c));
  } else {
    const int blocks = 64, threads = 1024, n = blocks * threads * 2;
    int *in, *partial, *out;
    CHECK(cudaMallocManaged(&in, n * sizeof(int)));
    CHECK(cudaMallocManaged(&partial, blocks * sizeof(int)));
    CHECK(cudaMallocManaged(&out, 2 * sizeof(int)));
    long long expect = 0;
    for (int i = 0; i < n; ++i) {
      in[i] = i % 5;
      expect += i % 5;
    }
    int nn = n;
    void *args[] = {&in, &partial, &out, &nn};
    CHECK(cudaLaunchCooperativeKernel((const void *)barrier_sums, dim3(blocks),
                                      dim3(threads), args, 0, 0));
    CHECK(cudaDeviceSynchronize());
    EXPECT(out[0] == expect && out[1] == 2 * expect);
    CHECK(cudaFree(in));
    CHECK(cudaFree(partial));
    CHECK(cudaFree(out));
  }
  return finish("checker_scale");
}
