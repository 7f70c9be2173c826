// divergence: a full-CTA barrier in divergent code. CUDA requires
// __syncthreads() (and thread_block::sync()) to be reached by every thread
// of the block; here only threads t < 64 reach it and the others return.
// This is undefined in CUDA, so the checker reports barrier divergence;
// hardware since sm_70 happens to tolerate this form (exited threads do
// not count for bar.sync 0), so the kernel runs to completion, and the
// report should say so.
//   syncthreads_div_buggy: if (t < 64) { ...; __syncthreads(); ... }
//   cg_sync_div_buggy: the same with cg::this_thread_block().sync().
//   syncthreads_div_fixed: every thread reaches the barrier; only threads
//     t < 64 store and load (clean).
// Launch: -g 1 -b 128; in = s32[128] (iota), out = s32[128].
// Fixed result: out[t] = 2 * in[63 - t] for t < 64, 0 for t >= 64.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void syncthreads_div_buggy(const int *in, int *out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  if (t < 64) {
    s[t] = 2 * in[t];
    __syncthreads();
    out[t] = s[63 - t];
  }
}

extern "C" __global__ void cg_sync_div_buggy(const int *in, int *out) {
  __shared__ int s[64];
  const cg::thread_block block = cg::this_thread_block();
  const int t = threadIdx.x;
  if (t < 64) {
    s[t] = 2 * in[t];
    block.sync();
    out[t] = s[63 - t];
  }
}

extern "C" __global__ void syncthreads_div_fixed(const int *in, int *out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  if (t < 64)
    s[t] = 2 * in[t];
  __syncthreads();
  if (t < 64)
    out[t] = s[63 - t];
}

// syncthreads_split_buggy: if (t < 64) { ...; __syncthreads(); ... }
// else { ...; __syncthreads(); ... }: every thread reaches a barrier, but
// not the same one. Hardware counts arrivals per barrier (0), so the phase
// completes; CUDA requires the same __syncthreads(). Result: out[t] =
// 3 * in[127 - t] + 1 for t < 64, 2 * in[127 - t] - 1 for t >= 64.
extern "C" __global__ void syncthreads_split_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  if (t < 64) {
    s[t] = 2 * in[t];
    __syncthreads();
    out[t] = s[127 - t] + 1;
  } else {
    s[t] = 3 * in[t];
    __syncthreads();
    out[t] = s[127 - t] - 1;
  }
}
