// diag_mbar_uninit (expect-fail: init): thread 0 arrives on an mbarrier
// object that was never initialized with mbarrier.init (its 8 bytes are
// plain zeroed shared memory). "mbarrier used before init" is a
// diagnosed misuse.
extern "C" __global__ void diag_mbar_uninit(int *out) {
  __shared__ alignas(8) unsigned long long mbar;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  if (threadIdx.x == 0) {
    mbar = 0;
    asm volatile(
        "{ .reg .b64 st; mbarrier.arrive.shared.b64 st, [%0]; }" ::"r"(bar)
        : "memory");
  }
  out[threadIdx.x] = 1;
}
