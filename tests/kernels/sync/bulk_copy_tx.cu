// arch: sm_90
// bulk_copy_tx: a bulk asynchronous copy global -> shared that completes
// its bytes on an mbarrier (cp.async.bulk.shared::cluster.global.
// mbarrier::complete_tx::bytes), with the expected transaction count set by
// mbarrier.arrive.expect_tx. mbarrier.init count 1; thread 0 arrives with
// expect_tx 1024 and issues the 1024-byte copy; every thread waits with
// mbarrier.try_wait.parity on phase 0. The phase completes only when the
// pending count and the tx-count are both 0, so the data is in place.
// out[gtid] = buf[tid] * 2 + buf[255 - tid]  (in = iota, 256 threads/CTA).
extern "C" __global__ void bulk_copy_tx(const int *in, int *out) {
  __shared__ alignas(128) int buf[256];
  __shared__ alignas(8) unsigned long long mbar;
  const unsigned tid = threadIdx.x;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(buf));
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar)
                 : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (tid == 0) {
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" ::"r"(bar)
        : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
                 "bytes [%0], [%1], 1024, [%2];" ::"r"(dst),
                 "l"(__cvta_generic_to_global(in + blockIdx.x * 256)), "r"(bar)
                 : "memory");
  }
  asm volatile("{ .reg .pred done;\n"
               "wait_%=:\n"
               "  mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
               "  @!done bra wait_%=; }" ::"r"(bar)
               : "memory");
  out[blockIdx.x * 256 + tid] = buf[tid] * 2 + buf[255 - tid];
}
