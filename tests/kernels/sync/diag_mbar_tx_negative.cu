// arch: sm_90
// diag_mbar_tx_negative (expect-fail: tx): mbarrier.complete_tx of 16
// bytes on an mbarrier whose tx-count is 0 and that nobody ever raises
// with expect_tx: the tx-count goes negative and stays so (issue 6:
// "tx-count going negative" is a diagnosed misuse). The phase can never
// complete either; the thread waits on it.
extern "C" __global__ void diag_mbar_tx_negative(int *out) {
  __shared__ alignas(8) unsigned long long mbar;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar)
                 : "memory");
    asm volatile(
        "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], 16;" ::"r"(bar)
        : "memory");
    asm volatile(
        "{ .reg .b64 st; mbarrier.arrive.shared::cta.b64 st, [%0]; }" ::"r"(bar)
        : "memory");
  }
  out[threadIdx.x] = 1;
}
