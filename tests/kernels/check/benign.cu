// benign: writes of the same value by threads that nothing orders (the
// "set a flag" idiom of real code), against writes of different values.
//   benign_shared_buggy: every thread whose element is odd sets a shared
//     flag to 1; threads of different warps store the same value to the
//     same word with no ordering: a benign race (a warning).
//   benign_shared_fixed: the flag is set with atomicOr (atomics do not
//     race).
//   benign_global_buggy: the same on a global flag, threads of different
//     CTAs (`*goagain = 1`).
//   benign_global_fixed: atomicExch.
//   lanes_store_buggy: `A[atomicAdd(i, 0)] = t`: the lanes of one warp
//     store their different ids to one element with one instruction; the
//     result depends on which lane writes last (an error).
//   lanes_store_fixed: only one lane stores.
// Launch: -g 2 -b 128 (lanes_store: -g 1 -b 32); in = s32[256] (iota),
// out = s32[256].
extern "C" __global__ void benign_shared_buggy(const int *in, int *out) {
  __shared__ int updated;
  const int t = threadIdx.x;
  if (t == 0)
    updated = 0;
  __syncthreads();
  if (in[blockIdx.x * 128 + t] & 1)
    updated = 1;
  __syncthreads();
  out[blockIdx.x * 128 + t] = updated;
}

extern "C" __global__ void benign_shared_fixed(const int *in, int *out) {
  __shared__ int updated;
  const int t = threadIdx.x;
  if (t == 0)
    updated = 0;
  __syncthreads();
  if (in[blockIdx.x * 128 + t] & 1)
    atomicOr(&updated, 1);
  __syncthreads();
  out[blockIdx.x * 128 + t] = updated;
}

extern "C" __global__ void benign_global_buggy(const int *in, int *goagain) {
  if (in[blockIdx.x * 128 + threadIdx.x] & 1)
    *goagain = 1;
}

extern "C" __global__ void benign_global_fixed(const int *in, int *goagain) {
  if (in[blockIdx.x * 128 + threadIdx.x] & 1)
    atomicExch(goagain, 1);
}

extern "C" __global__ void lanes_store_buggy(int *a, int *i) {
  a[atomicAdd(i, 0)] = threadIdx.x;
}

extern "C" __global__ void lanes_store_fixed(int *a, int *i) {
  const int k = atomicAdd(i, 0);
  if (threadIdx.x == 0)
    a[k] = threadIdx.x;
}
