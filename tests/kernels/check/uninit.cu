// uninit: reads of shared and local memory that nothing in the launch
// wrote.
//   reduce_uninit_buggy: a tree reduction over a 128-int shared array
//     launched with 100 threads: s[100..127] are never stored, and the
//     first step (stride 64) reads s[t + 64] for t = 36..63 (uninitialized
//     read at that load; the later steps read only s[0..63], all stored).
//   reduce_uninit_fixed: 128 threads, threads t >= n store 0 (clean).
//   local_hist_buggy: a per-thread histogram in local memory (indexed at
//     run time, so it lives in .local) that is never zeroed: the first
//     increment of each bin reads an uninitialized local word. The final
//     read is of a bin the loop incremented (initialized).
//   local_hist_fixed: the histogram starts zeroed (clean).
// `#pragma unroll 1` keeps one instruction per access.
// Launch:
//   reduce_uninit_buggy: -g 2 -b 100; in = s32[200] (iota), out = s32[2].
//   reduce_uninit_fixed: -g 2 -b 128; in = s32[200] (iota), out = s32[2],
//     n = 100.
//   local_hist_*: -g 1 -b 32; in = s32[256] (iota), out = s32[32], n = 8.
// Fixed results: out[b] = sum of in[b*100 .. b*100+99] (reduce);
// out[t] = number of i in [t*n, t*n+n) with in[i] % 8 == in[t*n] % 8
// (local_hist: 1 for iota and n = 8).
extern "C" __global__ void reduce_uninit_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
#pragma unroll 1
  for (int stride = 64; stride > 0; stride /= 2) {
    if (t < stride)
      s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce_uninit_fixed(const int *in, int *out, int n) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = t < n ? in[blockIdx.x * n + t] : 0;
  __syncthreads();
#pragma unroll 1
  for (int stride = 64; stride > 0; stride /= 2) {
    if (t < stride)
      s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

extern "C" __global__ void local_hist_buggy(const int *in, int *out, int n) {
  int hist[8];
  const int *mine = in + threadIdx.x * n;
#pragma unroll 1
  for (int i = 0; i < n; ++i)
    ++hist[mine[i] % 8];
  out[threadIdx.x] = hist[mine[0] % 8];
}

extern "C" __global__ void local_hist_fixed(const int *in, int *out, int n) {
  int hist[8] = {};
  const int *mine = in + threadIdx.x * n;
#pragma unroll 1
  for (int i = 0; i < n; ++i)
    ++hist[mine[i] % 8];
  out[threadIdx.x] = hist[mine[0] % 8];
}
