// syncs: the barrier forms of CUDA and cooperative groups, and loops.
//   count_fixed: every thread stores a flag, __syncthreads_count() counts
//     them and orders the stores before the reads of other warps' flags
//     (bar.red.popc is a barrier: clean).
//   or_early_buggy: the neighbour's flag is read before __syncthreads_or()
//     (the store of another warp is not ordered before it).
//   tile32_buggy: tiled_partition<32>(block).sync() orders the lanes of one
//     warp only; the read of another warp's element races with its store.
//   block_sync_fixed: this_thread_block().sync() (clean).
//   tile16_buggy: tiles of 16 lanes; after tile.sync() a lane reads an
//     element of the other tile of its warp (not ordered by that sync).
//   tile16_fixed: it reads an element of its own tile (clean).
//   cg_copy_buggy: cooperative_groups::memcpy_async into shared memory,
//     read before cooperative_groups::wait().
//   cg_copy_fixed: wait() before the read (clean).
//   loop_carried_buggy: one shared buffer, one barrier per iteration: the
//     store of iteration k + 1 races with another warp's load of
//     iteration k.
//   pingpong_fixed: two buffers alternate, one barrier per iteration: the
//     store into a buffer two iterations later follows the barrier of the
//     iteration between (clean).
//   trip_count_buggy: a __syncthreads() in a loop whose trip count depends
//     on the warp: warp 0 leaves after one iteration, the others wait at
//     the barrier again (barrier divergence).
//   trip_count_fixed: the trip count is the same for the whole block.
// Launch: -g 1 -b 128 (loop kernels take a count of iterations);
// in = s32[128] (iota), out = s32[128].
// arch: sm_90
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

extern "C" __global__ void count_fixed(const int *in, int *out) {
  __shared__ int flag[128];
  const int t = threadIdx.x;
  const int p = in[t] % 3 == 0;
  flag[t] = p;
  const int n = __syncthreads_count(p);
  out[t] = n * 1000 + flag[(t + 32) % 128];
}

extern "C" __global__ void or_early_buggy(const int *in, int *out) {
  __shared__ int flag[128];
  const int t = threadIdx.x;
  const int p = in[t] % 3 == 0;
  flag[t] = p;
  const int other = flag[(t + 32) % 128];
  const int any = __syncthreads_or(p);
  out[t] = any * 1000 + other;
}

extern "C" __global__ void tile32_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  s[t] = in[t] + 7;
  warp.sync();
  out[t] = s[(t + 32) % 128];
}

extern "C" __global__ void block_sync_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  cg::thread_block block = cg::this_thread_block();
  s[t] = in[t] + 7;
  block.sync();
  out[t] = s[(t + 32) % 128];
}

extern "C" __global__ void tile16_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
  s[t] = in[t] + 7;
  tile.sync();
  out[t] = s[t ^ 16];
}

extern "C" __global__ void tile16_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
  s[t] = in[t] + 7;
  tile.sync();
  out[t] = s[t ^ 15];
}

extern "C" __global__ void cg_copy_buggy(const int *in, int *out) {
  __shared__ int s[128];
  cg::thread_block block = cg::this_thread_block();
  const int t = threadIdx.x;
  cg::memcpy_async(block, s, in, sizeof(int) * 128);
  const int v = s[(t + 32) % 128];
  cg::wait(block);
  out[t] = v;
}

extern "C" __global__ void cg_copy_fixed(const int *in, int *out) {
  __shared__ int s[128];
  cg::thread_block block = cg::this_thread_block();
  const int t = threadIdx.x;
  cg::memcpy_async(block, s, in, sizeof(int) * 128);
  cg::wait(block);
  out[t] = s[(t + 32) % 128];
}

extern "C" __global__ void loop_carried_buggy(const int *in, int *out,
                                              int iters) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  int acc = 0;
#pragma unroll 1
  for (int k = 0; k < iters; ++k) {
    s[t] = in[t] * k;
    __syncthreads();
    acc += s[(t + 32) % 128];
  }
  out[t] = acc;
}

extern "C" __global__ void pingpong_fixed(const int *in, int *out, int iters) {
  __shared__ int s[2][128];
  const int t = threadIdx.x;
  int acc = 0;
#pragma unroll 1
  for (int k = 0; k < iters; ++k) {
    s[k & 1][t] = in[t] * k;
    __syncthreads();
    acc += s[k & 1][(t + 32) % 128];
  }
  out[t] = acc;
}

extern "C" __global__ void trip_count_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  int acc = in[t];
#pragma unroll 1
  for (int k = 0; k < t / 32 + 1; ++k) {
    s[t] = acc;
    __syncthreads();
    acc += s[(t + 1) % 128];
    __syncthreads();
  }
  out[t] = acc;
}

extern "C" __global__ void trip_count_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  int acc = in[t];
#pragma unroll 1
  for (int k = 0; k < blockDim.x / 32; ++k) {
    s[t] = acc;
    __syncthreads();
    acc += s[(t + 1) % 128];
    __syncthreads();
  }
  out[t] = acc;
}
