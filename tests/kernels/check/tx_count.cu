// arch: sm_90
// tx_count: a 1024-byte tile arrives by bulk copies that complete on an
// mbarrier (count 1) whose phase also needs the bytes announced by
// mbarrier.arrive.expect_tx. The announced bytes must equal the bytes the
// copies complete (PTX: the phase completes when the pending arrivals and
// the tx-count both reach zero).
//   tx_count_fixed: 1024 bytes announced, two copies of 512 (clean).
//   tx_more_buggy: 2048 announced for 1024 of copies: the phase never
//     completes (every thread waits for ever).
//   tx_less_buggy: 512 announced for one 1024-byte copy: the tx-count goes
//     below zero and the phase never completes.
//   tx_split_buggy: 512 announced for two 512-byte copies: the phase
//     completes after the first copy, the second one's bytes land in the
//     next phase, and the readers may see its part of the tile unwritten.
// Launch: -g 1 -b 256; in = s32[256] (iota), out = s32[256].
// Fixed result: out[t] = in[t] + in[255 - t].
__device__ inline void wait_phase(unsigned bar, unsigned parity) {
  asm volatile("{ .reg .pred done;\n"
               "wait_%=:\n"
               "  mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "  @!done bra wait_%=; }" ::"r"(bar),
               "r"(parity)
               : "memory");
}

template <int Bytes>
__device__ inline void copy(unsigned dst, const int *src, unsigned bar) {
  const size_t g = __cvta_generic_to_global(src);
  // clang-format off
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %3, [%2];" :: "r"(dst), "l"(g), "r"(bar), "n"(Bytes) : "memory");
  // clang-format on
}

__device__ inline void announce(unsigned bar, unsigned bytes) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
      "r"(bytes)
      : "memory");
}

template <int Announced, int Copies, int Bytes>
__device__ inline void body(const int *in, int *out) {
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
    announce(bar, Announced);
    copy<Bytes>(dst, in, bar);
    if (Copies == 2)
      copy<Bytes>(dst + Bytes, in + Bytes / 4, bar);
  }
  wait_phase(bar, 0);
  out[t] = tile[t] + tile[255 - t];
}

extern "C" __global__ void tx_count_fixed(const int *in, int *out) {
  body<1024, 2, 512>(in, out);
}
extern "C" __global__ void tx_more_buggy(const int *in, int *out) {
  body<2048, 2, 512>(in, out);
}
extern "C" __global__ void tx_less_buggy(const int *in, int *out) {
  body<512, 1, 1024>(in, out);
}
extern "C" __global__ void tx_split_buggy(const int *in, int *out) {
  body<512, 2, 512>(in, out);
}
