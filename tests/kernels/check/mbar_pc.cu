// mbar_pc: producer/consumer through a raw mbarrier (PTX inline asm).
// Thread 0 initializes the mbarrier with count 32; the producer warp
// (warp 0) stores 64 values, each lane arrives once (mbarrier.arrive has
// .release semantics by default), which completes phase 0; the consumer
// warps (1-2) spin with mbarrier.test_wait.parity (.acquire by default)
// until phase 0 has completed and then read the values. A successful
// acquire wait on a phase is ordered after every release arrival of that
// phase.
//   mbar_pc_fixed: each lane stores buf[lane] and buf[lane + 32], then
//     arrives (clean).
//   mbar_pc_buggy: each lane stores buf[lane], arrives, and only then
//     stores buf[lane + 32]: the second store is not released by the
//     arrival, so it races with the consumers' loads of buf[32..63] (the
//     first store is ordered).
// Launch: -g 1 -b 96; out = s32[64].
// Fixed result: out[i] = 5 * i + 1.
__device__ inline void mbar_wait_parity(unsigned bar, unsigned parity) {
  asm volatile("{ .reg .pred done;\n"
               "wait_%=:\n"
               "  mbarrier.test_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "  @!done bra wait_%=; }" ::"r"(bar),
               "r"(parity)
               : "memory");
}

extern "C" __global__ void mbar_pc_fixed(int *out) {
  __shared__ int buf[64];
  __shared__ alignas(8) unsigned long long full;
  const int t = threadIdx.x;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&full));
  if (t == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" ::"r"(bar)
                 : "memory");
  __syncthreads();
  if (t < 32) {
    buf[t] = 5 * t + 1;
    buf[t + 32] = 5 * (t + 32) + 1;
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar)
                 : "memory");
  } else {
    mbar_wait_parity(bar, 0);
    out[t - 32] = buf[t - 32];
  }
}

extern "C" __global__ void mbar_pc_buggy(int *out) {
  __shared__ int buf[64];
  __shared__ alignas(8) unsigned long long full;
  const int t = threadIdx.x;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&full));
  if (t == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" ::"r"(bar)
                 : "memory");
  __syncthreads();
  if (t < 32) {
    buf[t] = 5 * t + 1;
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar)
                 : "memory");
    buf[t + 32] = 5 * (t + 32) + 1;
  } else {
    mbar_wait_parity(bar, 0);
    out[t - 32] = buf[t - 32];
  }
}
