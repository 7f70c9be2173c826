// diag_mbar_deadlock (expect-fail: deadlock): a cuda::barrier-style
// mbarrier expects blockDim.x + 1 arrivals, but only blockDim.x threads
// arrive; every thread then waits with try_wait in a loop. The phase can
// never complete: bcusim must report a deadlock naming the mbarrier instead
// of running until --max-steps ("never a hang").
// arch: sm_90
extern "C" __global__ void diag_mbar_deadlock(int *out) {
  __shared__ alignas(8) unsigned long long mbar;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(bar),
                 "r"(blockDim.x + 1)
                 : "memory");
  __syncthreads();
  unsigned long long state;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];"
               : "=l"(state)
               : "r"(bar)
               : "memory");
  unsigned done = 0;
  while (!done)
    asm volatile("{ .reg .pred p;\n"
                 "  mbarrier.try_wait.shared.b64 p, [%1], %2;\n"
                 "  selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(bar), "l"(state)
                 : "memory");
  out[threadIdx.x] = 1;
}
