// arch: sm_90
// stage_reuse: a two-stage producer/consumer pipeline on full/empty
// mbarriers. Thread 0 (warp 0) produces: for tile k it waits until the
// consumers released stage k % 2 (empty barrier, count 128), announces 512
// bytes on the stage's full barrier (arrive.expect_tx, count 1) and issues
// a bulk copy of the tile into the stage. Warps 1-4 consume: they wait for
// the stage's full phase, read their element, and release the stage by
// arriving on its empty barrier. Phase parity of tile k: (k / 2) & 1.
//   stage_reuse_fixed: read, then release (clean).
//   stage_early_buggy: the consumers release the stage before reading it:
//     the producer's next copy into the stage races with their reads.
//   stage_parity_buggy: the consumers wait for the wrong parity (phase off
//     by one): their first wait returns at once and their reads race with
//     the copies.
// Launch: -g 1 -b 160; in = s32[1024] (iota), out = s32[128].
// Fixed result: out[t] = sum over k < 8 of in[k * 128 + t].
#define STAGES 2
#define TILES 8

__device__ inline void wait_parity(unsigned bar, unsigned parity) {
  asm volatile("{ .reg .pred done;\n"
               "wait_%=:\n"
               "  mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "  @!done bra wait_%=; }" ::"r"(bar),
               "r"(parity)
               : "memory");
}

__device__ inline void release(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar)
               : "memory");
}

__device__ inline void produce(const int *in, unsigned stage0, unsigned full0,
                               unsigned empty0) {
#pragma unroll 1
  for (int k = 0; k < TILES; ++k) {
    const unsigned s = k % STAGES;
    if (k >= STAGES)
      wait_parity(empty0 + 8 * s, ((k / STAGES) - 1) & 1);
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 512;" ::"r"(full0 +
                                                                        8 * s)
        : "memory");
    const size_t g = __cvta_generic_to_global(in + k * 128);
    // clang-format off
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 512, [%2];" :: "r"(stage0 + 512 * s), "l"(g), "r"(full0 + 8 * s) : "memory");
    // clang-format on
  }
}

// Mode 0: fixed; 1: early release; 2: parity off by one.
template <int Mode> __device__ inline void body(const int *in, int *out) {
  __shared__ alignas(128) int stage[STAGES][128];
  __shared__ alignas(8) unsigned long long full[STAGES], empty[STAGES];
  const unsigned t = threadIdx.x;
  const unsigned full0 = static_cast<unsigned>(__cvta_generic_to_shared(full));
  const unsigned empty0 =
      static_cast<unsigned>(__cvta_generic_to_shared(empty));
  if (t == 0) {
    for (int s = 0; s < STAGES; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(full0 + 8 * s)
                   : "memory");
      asm volatile(
          "mbarrier.init.shared::cta.b64 [%0], 128;" ::"r"(empty0 + 8 * s)
          : "memory");
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (t < 32) {
    if (t == 0)
      produce(in, static_cast<unsigned>(__cvta_generic_to_shared(stage)), full0,
              empty0);
    return;
  }
  const unsigned c = t - 32;
  int acc = 0;
#pragma unroll 1
  for (int k = 0; k < TILES; ++k) {
    const unsigned s = k % STAGES;
    wait_parity(full0 + 8 * s, ((k / STAGES) & 1) ^ (Mode == 2 ? 1 : 0));
    if (Mode == 1)
      release(empty0 + 8 * s);
    acc += stage[s][c];
    if (Mode != 1)
      release(empty0 + 8 * s);
  }
  out[c] = acc;
}

extern "C" __global__ void stage_reuse_fixed(const int *in, int *out) {
  body<0>(in, out);
}
extern "C" __global__ void stage_early_buggy(const int *in, int *out) {
  body<1>(in, out);
}
extern "C" __global__ void stage_parity_buggy(const int *in, int *out) {
  body<2>(in, out);
}
