// arch: sm_90
// mbarrier_tx: mbarrier phases driven by arrivals and a transaction count,
// over 3 phases (parity 0, 1, 0). mbarrier.init count 2. Each phase k:
// thread 0 raises the tx-count with mbarrier.expect_tx 64, then a
// __syncthreads (so no complete_tx can come first and make the tx-count
// negative); thread 0 stores data[0..31] and thread 32 data[32..63], each
// then mbarrier.arrive (release); threads 1..4 each mbarrier.complete_tx
// 16 bytes. The phase completes only when both arrivals happened and the
// tx-count is back to 0; everyone waits with mbarrier.try_wait.parity
// (k & 1, acquire), reads, and a __syncthreads keeps the next phase's
// stores after all reads.
// out[tid * 3 + k] = data[(tid * 7 + k) % 64] = (k + 1) * 100 + that index.
extern "C" __global__ void mbarrier_tx(int *out) {
  __shared__ int data[64];
  __shared__ alignas(8) unsigned long long mbar;
  const unsigned tid = threadIdx.x;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  if (tid == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" ::"r"(bar)
                 : "memory");
  __syncthreads();
  for (unsigned k = 0; k < 3; ++k) {
    if (tid == 0)
      asm volatile(
          "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], 64;" ::"r"(bar)
          : "memory");
    __syncthreads();
    if (tid == 0 || tid == 32) {
      for (unsigned i = 0; i < 32; ++i)
        data[tid + i] = (k + 1) * 100 + tid + i;
      asm volatile("{ .reg .b64 st; mbarrier.arrive.shared::cta.b64 st, "
                   "[%0]; }" ::"r"(bar)
                   : "memory");
    }
    if (tid >= 1 && tid <= 4)
      asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], "
                   "16;" ::"r"(bar)
                   : "memory");
    asm volatile("{ .reg .pred done;\n"
                 "wait_%=:\n"
                 "  mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "  @!done bra wait_%=; }" ::"r"(bar),
                 "r"(k & 1)
                 : "memory");
    out[tid * 3 + k] = data[(tid * 7 + k) % 64];
    __syncthreads();
  }
}
