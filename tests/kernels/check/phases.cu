// phases: reductions and scans whose phases need a barrier between them.
//   reduce_nobar_buggy: a tree reduction in shared memory with the barrier
//     after the initial store only: in step s, thread t reads s[t + s],
//     which thread t + s wrote in step 2s (another warp while s >= 32, a
//     lane of the same warp below): races across warps and between lanes.
//   reduce_fixed: a __syncthreads() ends every step (clean).
//   scan_inplace_buggy: Hillis-Steele inclusive scan in place with one
//     barrier per step: thread t reads s[t - d] while thread t - d updates
//     it in the same step (lanes of one warp, and across warps at d >= 32
//     and at warp boundaries).
//   scan_fixed: read, barrier, write, barrier (clean).
// Launch: -g 2 -b 128; in = s32[256] (iota), out = s32[256].
// arch: sm_90

extern "C" __global__ void reduce_nobar_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
#pragma unroll 1
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k)
      s[t] += s[t + k];
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
#pragma unroll 1
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k)
      s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

extern "C" __global__ void scan_inplace_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
#pragma unroll 1
  for (int d = 1; d < blockDim.x; d *= 2) {
    if (t >= d)
      s[t] += s[t - d];
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + t] = s[t];
}

extern "C" __global__ void scan_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
#pragma unroll 1
  for (int d = 1; d < blockDim.x; d *= 2) {
    const int v = t >= d ? s[t - d] : 0;
    __syncthreads();
    s[t] += v;
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + t] = s[t];
}
