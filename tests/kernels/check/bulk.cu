// arch: sm_90
// bulk: a bulk asynchronous copy (cp.async.bulk, global -> shared) that
// completes on an mbarrier through its transaction count. Thread 0
// initializes the mbarrier (count 1), arrives on it with
// mbarrier.arrive.expect_tx (1024 bytes) and issues the 1024-byte copy;
// the phase completes when the arrival is in and the copy has completed
// its 1024 bytes (complete_tx), so a successful wait on the phase orders
// the copy's writes before the waiting thread's loads.
//   bulk_fixed: every thread waits (try_wait.parity 0) before reading the
//     tile (clean).
//   bulk_buggy: every thread loads its element of the tile before its wait
//     (the load was hoisted above the wait to overlap it with the copy):
//     the load races with the bulk copy's write of the same bytes.
// Launch: -g 2 -b 256; in = s32[512] (iota), out = s32[512].
// Fixed result: out[b*256 + t] = 2 * in[b*256 + t] + in[b*256 + 255 - t].
__device__ inline void wait_phase(unsigned bar, unsigned parity) {
  asm volatile("{ .reg .pred done;\n"
               "wait_%=:\n"
               "  mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "  @!done bra wait_%=; }" ::"r"(bar),
               "r"(parity)
               : "memory");
}

extern "C" __global__ void bulk_fixed(const int *in, int *out) {
  __shared__ alignas(128) int tile[256];
  __shared__ alignas(8) unsigned long long mbar;
  const unsigned t = threadIdx.x;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar)
                 : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (t == 0) {
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" ::"r"(bar)
        : "memory");
    const size_t src = __cvta_generic_to_global(in + blockIdx.x * 256);
    // clang-format off
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];" :: "r"(dst), "l"(src), "r"(bar) : "memory");
    // clang-format on
  }
  wait_phase(bar, 0);
  const int mine = tile[t];
  out[blockIdx.x * 256 + t] = 2 * mine + tile[255 - t];
}

extern "C" __global__ void bulk_buggy(const int *in, int *out) {
  __shared__ alignas(128) int tile[256];
  __shared__ alignas(8) unsigned long long mbar;
  const unsigned t = threadIdx.x;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar)
                 : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (t == 0) {
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" ::"r"(bar)
        : "memory");
    const size_t src = __cvta_generic_to_global(in + blockIdx.x * 256);
    // clang-format off
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];" :: "r"(dst), "l"(src), "r"(bar) : "memory");
    // clang-format on
  }
  const int mine = tile[t];
  wait_phase(bar, 0);
  out[blockIdx.x * 256 + t] = 2 * mine + tile[255 - t];
}
