// Independent thread scheduling: spin-waits that need other warps, other
// lanes of the same warp, and other CTAs to make progress.
__global__ void warp_handoff(volatile int *flag, int *out) {
  int t = threadIdx.x;
  if (t == 0) {
    while (flag[0] == 0) {
    }
    out[0] = flag[0] + 1;
  } else if (t == 1) {
    flag[0] = 41; // same warp as the spinner
  }
}

__global__ void cta_chain(volatile int *flags, int *out) {
  // CTA b waits for CTA b+1 (the last one starts the chain): only works when
  // later CTAs can run while earlier ones spin.
  int b = blockIdx.x;
  if (threadIdx.x == 0) {
    if (b != gridDim.x - 1)
      while (flags[b + 1] == 0) {
      }
    out[b] = b == gridDim.x - 1 ? 1 : flags[b + 1] + 1;
    __threadfence();
    flags[b] = out[b];
  }
}
