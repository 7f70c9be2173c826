// diag_mbar_reinit (expect-fail: inval): an mbarrier is initialized twice
// without mbarrier.inval in between. PTX: mbarrier.inval must be called
// before re-initializing the object or repurposing its memory.
extern "C" __global__ void diag_mbar_reinit(int *out) {
  __shared__ alignas(8) unsigned long long mbar;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 4;" ::"r"(bar) : "memory");
    asm volatile("mbarrier.init.shared.b64 [%0], 8;" ::"r"(bar) : "memory");
  }
  out[threadIdx.x] = 1;
}
