// mbar_misuse: mbarrier phase rules (PTX mbarrier; the checker's sync
// checks).
//   mbar_next_phase_buggy: mbarrier count 1. Thread 0 publishes two values
//     through one mbarrier: it stores data[0] and arrives (phase 0
//     completes), stores data[1] and arrives again, now in phase 1, before
//     any thread has observed phase 0's completion with test_wait or
//     try_wait (sync misuse at the second arrive: PTX requires the
//     completion of phase k to be observed before arrivals of phase k+1).
//     The __syncthreads() after the arrivals makes this independent of the
//     schedule; every thread then waits for phase 1 (parity 1: phase 1 is
//     the immediately preceding phase, which is valid).
//   mbar_next_phase_fixed: every thread waits for phase 0 (parity 0), and
//     a __syncthreads() makes thread 0 arrive for phase 1 only after all of
//     them have observed phase 0 (clean). Without that barrier a slow
//     thread could test parity 0 when phase 2 is current and wait for ever
//     (the parity wait cannot tell phase 0 from phase 2).
//   mbar_stale_wait_buggy: mbarrier count 64 (the CTA). Every thread
//     arrives and waits with its token, twice (phases 0 and 1 complete),
//     then tests the token of phase 0 again: phase 0 is two phases old,
//     while test_wait/try_wait are valid only for the current phase or the
//     immediately preceding one (sync misuse at that test_wait).
//   mbar_stale_wait_fixed: the final test uses the token of phase 1.
// Launch: -g 1 -b 64.
//   mbar_next_phase_*: in = s32[2] (iota), out = s32[64].
//   mbar_stale_wait_*: out = u32[64].
// Fixed results: mbar_next_phase_fixed: out[t] = in[0] + in[1] + 30;
// mbar_stale_wait_fixed: out[t] = 1 (the last phase tested has completed).
extern "C" __global__ void mbar_next_phase_buggy(const int *in, int *out) {
  __shared__ int data[2];
  __shared__ alignas(8) unsigned long long mbar;
  const int t = threadIdx.x;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  if (t == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar)
                 : "memory");
  __syncthreads();
  if (t == 0) {
    data[0] = in[0] + 10;
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar)
                 : "memory");
    data[1] = in[1] + 20;
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar)
                 : "memory");
  }
  __syncthreads();
  asm volatile("{ .reg .pred done;\n"
               "wait_%=:\n"
               "  mbarrier.test_wait.parity.shared::cta.b64 done, [%0], 1;\n"
               "  @!done bra wait_%=; }" ::"r"(bar)
               : "memory");
  out[t] = data[0] + data[1];
}

extern "C" __global__ void mbar_next_phase_fixed(const int *in, int *out) {
  __shared__ int data[2];
  __shared__ alignas(8) unsigned long long mbar;
  const int t = threadIdx.x;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  if (t == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar)
                 : "memory");
  __syncthreads();
  if (t == 0) {
    data[0] = in[0] + 10;
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar)
                 : "memory");
  }
  asm volatile("{ .reg .pred done;\n"
               "wait_%=:\n"
               "  mbarrier.test_wait.parity.shared::cta.b64 done, [%0], 0;\n"
               "  @!done bra wait_%=; }" ::"r"(bar)
               : "memory");
  __syncthreads();
  if (t == 0) {
    data[1] = in[1] + 20;
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar)
                 : "memory");
  }
  asm volatile("{ .reg .pred done;\n"
               "wait_%=:\n"
               "  mbarrier.test_wait.parity.shared::cta.b64 done, [%0], 1;\n"
               "  @!done bra wait_%=; }" ::"r"(bar)
               : "memory");
  out[t] = data[0] + data[1];
}

extern "C" __global__ void mbar_stale_wait_buggy(unsigned *out) {
  __shared__ alignas(8) unsigned long long mbar;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 64;" ::"r"(bar)
                 : "memory");
  __syncthreads();
  unsigned long long token0, token1;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
               : "=l"(token0)
               : "r"(bar)
               : "memory");
  asm volatile("{ .reg .pred done;\n"
               "wait_%=:\n"
               "  mbarrier.test_wait.shared::cta.b64 done, [%0], %1;\n"
               "  @!done bra wait_%=; }" ::"r"(bar),
               "l"(token0)
               : "memory");
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
               : "=l"(token1)
               : "r"(bar)
               : "memory");
  asm volatile("{ .reg .pred done;\n"
               "wait_%=:\n"
               "  mbarrier.test_wait.shared::cta.b64 done, [%0], %1;\n"
               "  @!done bra wait_%=; }" ::"r"(bar),
               "l"(token1)
               : "memory");
  unsigned done;
  // clang-format off
  asm volatile("{ .reg .pred p; mbarrier.test_wait.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(bar), "l"(token0) : "memory");
  // clang-format on
  out[threadIdx.x] = done;
}

extern "C" __global__ void mbar_stale_wait_fixed(unsigned *out) {
  __shared__ alignas(8) unsigned long long mbar;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 64;" ::"r"(bar)
                 : "memory");
  __syncthreads();
  unsigned long long token0, token1;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
               : "=l"(token0)
               : "r"(bar)
               : "memory");
  asm volatile("{ .reg .pred done;\n"
               "wait_%=:\n"
               "  mbarrier.test_wait.shared::cta.b64 done, [%0], %1;\n"
               "  @!done bra wait_%=; }" ::"r"(bar),
               "l"(token0)
               : "memory");
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
               : "=l"(token1)
               : "r"(bar)
               : "memory");
  asm volatile("{ .reg .pred done;\n"
               "wait_%=:\n"
               "  mbarrier.test_wait.shared::cta.b64 done, [%0], %1;\n"
               "  @!done bra wait_%=; }" ::"r"(bar),
               "l"(token1)
               : "memory");
  unsigned done;
  // clang-format off
  asm volatile("{ .reg .pred p; mbarrier.test_wait.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(bar), "l"(token1) : "memory");
  // clang-format on
  out[threadIdx.x] = done;
}
