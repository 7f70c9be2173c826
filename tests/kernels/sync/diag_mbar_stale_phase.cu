// diag_mbar_stale_phase (expect-fail: phase): mbarrier.init count 1; thread
// 0 arrives twice (phases 0 and 1 complete; the current phase is 2) and
// then test_waits with the state token of phase 0. PTX: test_wait/try_wait
// are only valid for the current incomplete phase or the immediately
// preceding one.
extern "C" __global__ void diag_mbar_stale_phase(int *out) {
  __shared__ alignas(8) unsigned long long mbar;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  unsigned done = 0;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(bar) : "memory");
    asm volatile("{ .reg .b64 s0, s1; .reg .pred p;\n"
                 "  mbarrier.arrive.shared.b64 s0, [%1];\n"
                 "  mbarrier.arrive.shared.b64 s1, [%1];\n"
                 "  mbarrier.test_wait.shared.b64 p, [%1], s0;\n"
                 "  selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(bar)
                 : "memory");
  }
  out[threadIdx.x] = done;
}
