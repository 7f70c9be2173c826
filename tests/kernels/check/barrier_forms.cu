// barrier_forms: barriers in loops with thread-dependent trip counts, after
// early returns, __syncthreads_or() termination loops, named barriers with
// a wrong thread count, cooperative-groups tiles and grid.sync() loops.
//   lane_trip_buggy: a __syncthreads() loop whose trip count depends on
//     the lane (1 + t % 4): lanes of every warp leave the loop and exit
//     while the others wait at the barrier again (barrier divergence).
//   early_return_buggy: threads t >= n return before the barrier (n = 100:
//     warp 3 splits), the others meet at it (barrier divergence).
//   early_return_fixed: every thread reaches the barrier, the threads
//     t >= n return after it (clean).
//   or_loop_fixed: min-propagation around a ring until nothing changes:
//     read both values, a barrier, write, __syncthreads_or() (clean).
//   or_loop_buggy: without the barrier between the reads and the write:
//     thread t writes s[t] while thread t - 1 reads it.
//   named_count_buggy: warp 0 stores and warp 1 loads around
//     `bar.sync 1, 32`: the count is one warp, so each warp completes a
//     phase of its own and nothing orders the store before the load.
//   named_count_fixed: `bar.sync 1, 64`: both warps in one phase (clean).
//   named_count_over: both warps at `bar.sync 1, 96`: a count above the
//     CTA's 64 threads (misuse: such a phase could never complete).
//   tile_shfl_fixed: tiled_partition<16> reductions with tile.shfl_down(),
//     rank 0 of each tile stores the sum (clean).
//   grid_neighbour_buggy: each thread reads another CTA's element before
//     grid.sync() (a race across CTAs).
//   grid_loop_fixed: a Jacobi-style loop over global memory, read,
//     grid.sync(), write, grid.sync() (clean).
//   grid_loop_buggy: one grid.sync() per iteration: the write of
//     iteration k races with another CTA's read of iteration k.
// Launch: -g 1 -b 128 unless noted; in = s32[128] (iota), out = s32[128].
// named_*: -b 64. grid_*: -g 4 -b 64, a = s32[256] (iota), b = s32[256].
// arch: sm_90
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void lane_trip_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[t];
  int acc = 0;
  const int trips = 1 + (t & 3);
#pragma unroll 1
  for (int k = 0; k < trips; ++k) {
    __syncthreads(); // BUG: the lanes of a warp leave at different trips
    acc += s[(t + 32 * k + 1) % 128];
  }
  out[t] = acc;
}

extern "C" __global__ void early_return_buggy(const int *in, int *out,
                                              int n) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  if (t >= n)
    return; // BUG: these threads never reach the barrier
  s[t] = in[t];
  __syncthreads();
  out[t] = s[(t + 1) % n];
}

extern "C" __global__ void early_return_fixed(const int *in, int *out,
                                              int n) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  if (t < n)
    s[t] = in[t];
  __syncthreads();
  if (t >= n)
    return;
  out[t] = s[(t + 1) % n];
}

extern "C" __global__ void or_loop_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[t] % 7;
  __syncthreads();
  int changed;
#pragma unroll 1
  do {
    const int mine = s[t];
    const int right = s[(t + 1) % 128];
    __syncthreads();
    changed = right < mine;
    if (changed)
      s[t] = right;
  } while (__syncthreads_or(changed));
  out[t] = s[t];
}

extern "C" __global__ void or_loop_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[t] % 7;
  __syncthreads();
  int changed;
#pragma unroll 1
  do {
    const int mine = s[t];
    const int right = s[(t + 1) % 128]; // BUG: its owner writes it below
    changed = right < mine;
    if (changed)
      s[t] = right;
  } while (__syncthreads_or(changed));
  out[t] = s[t];
}

extern "C" __global__ void named_count_buggy(const int *in, int *out) {
  __shared__ int s[32];
  const int t = threadIdx.x;
  if (t < 32) {
    s[t] = in[t] * 3;
    asm volatile("bar.sync 1, 32;" ::: "memory"); // BUG: one warp's count
  } else {
    asm volatile("bar.sync 1, 32;" ::: "memory");
    out[t] = s[t - 32];
  }
}

extern "C" __global__ void named_count_fixed(const int *in, int *out) {
  __shared__ int s[32];
  const int t = threadIdx.x;
  if (t < 32) {
    s[t] = in[t] * 3;
    asm volatile("bar.sync 1, 64;" ::: "memory");
  } else {
    asm volatile("bar.sync 1, 64;" ::: "memory");
    out[t] = s[t - 32];
  }
}

extern "C" __global__ void named_count_over(const int *in, int *out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = in[t];
  asm volatile("bar.sync 1, 96;" ::: "memory"); // BUG: only 64 threads
  out[t] = s[63 - t];
}

extern "C" __global__ void tile_shfl_fixed(const int *in, int *out) {
  cg::thread_block_tile<16> tile =
      cg::tiled_partition<16>(cg::this_thread_block());
  int v = in[threadIdx.x];
#pragma unroll 1
  for (int o = 8; o > 0; o >>= 1)
    v += tile.shfl_down(v, o);
  if (tile.thread_rank() == 0)
    out[threadIdx.x / 16] = v;
}

extern "C" __global__ void grid_neighbour_buggy(int *a, int *b) {
  cg::grid_group grid = cg::this_grid();
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  a[g] = 3 * g + 1;
  b[g] = a[(g + 64) % 256]; // BUG: before grid.sync()
  grid.sync();
}

extern "C" __global__ void grid_loop_fixed(int *a, int *b) {
  cg::grid_group grid = cg::this_grid();
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll 1
  for (int k = 0; k < 3; ++k) {
    const int v = (a[(g + 255) % 256] + a[(g + 1) % 256]) / 2;
    grid.sync();
    a[g] = v;
    grid.sync();
  }
  b[g] = a[g];
}

extern "C" __global__ void grid_loop_buggy(int *a, int *b) {
  cg::grid_group grid = cg::this_grid();
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll 1
  for (int k = 0; k < 3; ++k) {
    const int v = (a[(g + 255) % 256] + a[(g + 1) % 256]) / 2;
    a[g] = v; // BUG: the neighbours read a[g] in this iteration too
    grid.sync();
  }
  b[g] = a[g];
}

// loop_iter_barrier: each lane calls __syncthreads() once, in the loop
//   iteration given by its parity (i == t % 2): the even lanes of a warp in
//   iteration 0, the odd lanes in iteration 1, at one instruction. The
//   condition is not uniform (CUDA: undefined; PTX: an .aligned barrier
//   executed by a diverged warp), but the engine's paths reconverge by
//   instruction and call stack, not by iteration: the warp's lanes meet at
//   the barrier as if converged, and nothing is reported (a limit).
// Launch: -g 1 -b 128, in = s32[128] (iota), out = s32[128].
extern "C" __global__ void loop_iter_barrier(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[t];
#pragma unroll 1
  for (int i = 0; i < 2; ++i)
    if (i == (t & 1))
      __syncthreads(); // BUG: the iteration depends on the lane
  out[t] = s[127 - t];
}
