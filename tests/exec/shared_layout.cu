// Each kernel's shared memory is its own (docs/engine.md "Shared memory"):
// six kernels of 44 KiB static shared memory each live in one module (264
// KiB together, more than a CTA may have), as a CUB module holds many
// kernels with their own tiles; a kernel with 1 KiB of static memory takes
// 200 KiB of opt-in dynamic memory beside them; a device function's array,
// reached by two kernels, stays clear of both kernels' own arrays; extern
// shared memory starts after the launched kernel's static memory; a cluster
// kernel reads its peer's arrays (its own and a device function's) at the
// same offsets.
#include "common.h"
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kTile = 11 * 1024; // ints: 44 KiB

// Reached by `tile<0>` and `mixed`: its array must overlap neither kernel's.
__device__ __noinline__ int neighbour(int v) {
  __shared__ int ring[256];
  ring[threadIdx.x] = v;
  __syncthreads();
  int r = ring[(threadIdx.x + 1) % blockDim.x];
  __syncthreads();
  return r;
}

template <int K> __global__ void tile(int *out) {
  __shared__ int t[kTile];
  for (int i = threadIdx.x; i < kTile; i += blockDim.x)
    t[i] = i * (K + 1);
  __syncthreads();
  int s = 0;
  for (int i = threadIdx.x; i < kTile; i += blockDim.x)
    s += t[kTile - 1 - i];
  if (K == 0)
    s += neighbour(int(threadIdx.x));
  out[K * blockDim.x + threadIdx.x] = s;
}

__global__ void mixed(int *out) {
  __shared__ int own[1024];
  own[threadIdx.x] = 3 * int(threadIdx.x);
  int n = neighbour(int(threadIdx.x) + 1000);
  __syncthreads();
  out[threadIdx.x] = own[255 - threadIdx.x] + n;
}

// 1 KiB static + opt-in dynamic memory.
__global__ void opt_in(int *out, int words) {
  __shared__ int small[256];
  extern __shared__ int dyn[];
  small[threadIdx.x] = int(threadIdx.x);
  for (int i = threadIdx.x; i < words; i += blockDim.x)
    dyn[i] = i;
  __syncthreads();
  long long s = 0;
  for (int i = threadIdx.x; i < words; i += blockDim.x)
    s += dyn[words - 1 - i];
  unsigned dyn_size, total;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn_size));
  asm("mov.u32 %0, %%total_smem_size;" : "=r"(total));
  out[threadIdx.x] = int(s) + small[255 - threadIdx.x];
  if (threadIdx.x == 0) {
    out[256] = int(dyn_size);
    out[257] = int(total);
    // The dynamic array starts after the reserved 1 KiB and the kernel's
    // own 1 KiB.
    out[258] = int(__cvta_generic_to_shared(dyn));
  }
}

__device__ __noinline__ int *peer_slot() {
  __shared__ int slot[64];
  return slot;
}

__global__ void __cluster_dims__(2, 1, 1) peers(int *out) {
  __shared__ int mine[128];
  auto cl = cg::this_cluster();
  int *slot = peer_slot();
  const int rank = int(cl.block_rank());
  mine[threadIdx.x] = rank * 1000 + int(threadIdx.x);
  if (threadIdx.x < 64)
    slot[threadIdx.x] = rank * 100 + int(threadIdx.x);
  cl.sync();
  const unsigned peer = cl.block_rank() ^ 1;
  int v = cl.map_shared_rank(mine, peer)[127 - threadIdx.x];
  if (threadIdx.x < 64)
    v += cl.map_shared_rank(slot, peer)[threadIdx.x];
  cl.sync();
  out[blockIdx.x * 128 + threadIdx.x] = v;
}

int main() {
  int *out;
  CHECK(cudaMallocManaged(&out, 8 * 1024 * sizeof(int)));
  cudaFuncAttributes a;
  CHECK(cudaFuncGetAttributes(&a, tile<0>));
  EXPECT(a.sharedSizeBytes == 44 * 1024 + 1024);
  CHECK(cudaFuncGetAttributes(&a, tile<3>));
  EXPECT(a.sharedSizeBytes == 44 * 1024);
  CHECK(cudaFuncGetAttributes(&a, opt_in));
  EXPECT(a.sharedSizeBytes == 1024);

  const int threads = 256;
  auto expect_tile = [&](int k, int extra) {
    for (int t = 0; t < threads; ++t) {
      long long s = 0;
      for (int i = t; i < kTile; i += threads)
        s += (long long)(kTile - 1 - i) * (k + 1);
      EXPECT(out[k * threads + t] == int(s) + extra * ((t + 1) % threads));
    }
  };
  tile<0><<<1, threads>>>(out);
  tile<1><<<1, threads>>>(out);
  tile<2><<<1, threads>>>(out);
  tile<3><<<1, threads>>>(out);
  tile<4><<<1, threads>>>(out);
  tile<5><<<1, threads>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  expect_tile(0, 1);
  for (int k = 1; k < 6; ++k)
    expect_tile(k, 0);

  mixed<<<1, threads>>>(out);
  CHECK(cudaDeviceSynchronize());
  for (int t = 0; t < threads; ++t)
    EXPECT(out[t] == 3 * (255 - t) + 1000 + (t + 1) % threads);

  const int dyn_bytes = 200 * 1024, words = dyn_bytes / 4;
  CHECK(cudaFuncSetAttribute(
      opt_in, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn_bytes));
  opt_in<<<1, threads, dyn_bytes>>>(out, words);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  for (int t = 0; t < threads; ++t) {
    long long s = 0;
    for (int i = t; i < words; i += threads)
      s += words - 1 - i;
    EXPECT(out[t] == int(s) + 255 - t);
  }
  EXPECT(out[256] == dyn_bytes);
  EXPECT(out[257] == 1024 + dyn_bytes);
  // Shared addresses start after the 1 KiB every CTA reserves: the dynamic
  // array is at 2048 (measured on an NVIDIA H200, driver 580.159.04, CUDA
  // 13.0, 2026-11-28).
  EXPECT(out[258] == 2048);

  peers<<<4, 128>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  for (int b = 0; b < 4; ++b)
    for (int t = 0; t < 128; ++t) {
      const int peer = (b % 2) ^ 1;
      EXPECT(out[b * 128 + t] ==
             peer * 1000 + 127 - t + (t < 64 ? peer * 100 + t : 0));
    }
  CHECK(cudaFree(out));
  return finish("shared_layout");
}
