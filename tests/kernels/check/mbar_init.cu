// mbar_init: several threads initialize the same cuda::barrier (mbarrier)
// with the same count before anyone arrives on it, as some published
// samples do (the whole first warp calls init()). Re-initializing a live
// mbarrier is not allowed by PTX (mbarrier.inval must come first), but
// identical initializations before any arrival cannot change the outcome:
// a warning, not an error.
//   mbar_init_warp_buggy: every lane of warp 0 calls init(&bar, 128)
//     (warning: sync misuse at the init line); then the CTA exchanges data
//     through bar.arrive_and_wait().
//   mbar_init_fixed: only thread 0 initializes (clean).
// Launch: -g 1 -b 128; out = s32[128].
// Fixed result: out[t] = 4 * ((t + 37) % 128).
#include <cuda/barrier>

#pragma nv_diag_suppress static_var_with_dynamic_init

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

extern "C" __global__ void mbar_init_warp_buggy(int *out) {
  __shared__ block_barrier bar;
  __shared__ int s[128];
  const int t = threadIdx.x;
  if (t < 32)
    init(&bar, blockDim.x);
  __syncthreads();
  s[t] = 4 * t;
  bar.arrive_and_wait();
  out[t] = s[(t + 37) % 128];
}

extern "C" __global__ void mbar_init_fixed(int *out) {
  __shared__ block_barrier bar;
  __shared__ int s[128];
  const int t = threadIdx.x;
  if (t == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  s[t] = 4 * t;
  bar.arrive_and_wait();
  out[t] = s[(t + 37) % 128];
}
