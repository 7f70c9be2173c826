// arch: sm_90
// diag_mbar_tx_negative (expect-fail: tx): mbarrier.complete_tx takes the
// tx-count below its range. The tx-count is signed and may go negative
// while transfers and expect_tx race (docs/mbarrier.md), but not below
// -(2^20 - 1): two complete_tx of 2^20 - 1 bytes on a tx-count of 0 do.
extern "C" __global__ void diag_mbar_tx_negative(int *out) {
  __shared__ alignas(8) unsigned long long mbar;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar)
                 : "memory");
    for (int i = 0; i < 2; ++i)
      asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], "
                   "1048575;" ::"r"(bar)
                   : "memory");
    asm volatile(
        "{ .reg .b64 st; mbarrier.arrive.shared::cta.b64 st, [%0]; }" ::"r"(bar)
        : "memory");
  }
  out[threadIdx.x] = 1;
}
