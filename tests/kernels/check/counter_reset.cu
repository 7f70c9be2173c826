// arch: sm_90
// counter_reset: a plain store to a counter, then the same thread's
// atomicAdd on it, then other threads' atomicAdds. A plain access and an
// atomic to the same bytes race unless happens-before orders them (morally
// strong needs both strong); the thread's own atomic does not stand for its
// plain store.
//   counter_reset_buggy: thread 0 of CTA 0 zeroes the global counter and
//     __syncthreads() orders the reset before CTA 0's atomicAdds, but
//     nothing orders it before CTA 1's: the reset (21) and the atomicAdds
//     (24) race across CTAs, whichever runs first (on hardware a count of
//     CTA 1 may be lost).
//   counter_reset_fixed: each CTA zeroes and counts its own counter: every
//     atomicAdd on count[b] is ordered after its reset (clean).
// Launch: -g 2 -b 64 -a s32[128]=iota (in) -a u32[2] (count).
// Fixed result: count[b] = the even inputs of CTA b (32 each for iota); the
// buggy one counts into count[0].
extern "C" __global__ void counter_reset_buggy(const int *in,
                                               unsigned *count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *count = 0; // BUG: CTA 1's atomicAdds are not ordered after it
  __syncthreads();
  if (in[i] % 2 == 0)
    atomicAdd(count, 1u);
}

extern "C" __global__ void counter_reset_fixed(const int *in,
                                               unsigned *count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0)
    count[blockIdx.x] = 0;
  __syncthreads();
  if (in[i] % 2 == 0)
    atomicAdd(&count[blockIdx.x], 1u);
}
