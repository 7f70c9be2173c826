// diag_mbar_nocomplete (expect-fail: nocomplete): mbarrier.init count 1,
// then mbarrier.arrive.noComplete with count 1, which completes the phase.
// PTX: a .noComplete arrival must not cause the phase to complete
// (undefined behaviour); bcusim reports it.
extern "C" __global__ void diag_mbar_nocomplete(int *out) {
  __shared__ alignas(8) unsigned long long mbar;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(bar) : "memory");
    asm volatile("{ .reg .b64 st; mbarrier.arrive.noComplete.shared.b64 st, "
                 "[%0], 1; }" ::"r"(bar)
                 : "memory");
  }
  out[threadIdx.x] = 1;
}
