// producer_consumer_pairs: two independent producer/consumer pairs in one
// 128-thread CTA (warps 0/1 and 2/3), each on its own two barriers, with
// the barrier id and thread count in registers and the barrier{.cta}
// spelling: barrier.arrive %id, %cnt / barrier.sync %id, %cnt (sm_30+
// register operands). Pair p uses barriers 2 + 2p ("full") and 3 + 2p
// ("empty"), count = the kernel parameter (64).
// out[(ctaid * 2 + p) * 32 + lane] = sum over k of (in[k * 32 + (lane + k)
// % 32] + 1000 * p) * (k + 1)
extern "C" __global__ void producer_consumer_pairs(const int *in, int *out,
                                                   int iters, unsigned count) {
  __shared__ int buf[2][32];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned pair = warp / 2;
  const unsigned full = 2 + 2 * pair, empty = 3 + 2 * pair;
  if (warp % 2 == 0) {
    for (int k = 0; k < iters; ++k) {
      buf[pair][lane] = in[k * 32 + lane] + 1000 * static_cast<int>(pair);
      asm volatile("barrier.arrive %0, %1;" ::"r"(full), "r"(count) : "memory");
      asm volatile("barrier.sync %0, %1;" ::"r"(empty), "r"(count) : "memory");
    }
  } else {
    int acc = 0;
    for (int k = 0; k < iters; ++k) {
      asm volatile("barrier.sync %0, %1;" ::"r"(full), "r"(count) : "memory");
      acc += buf[pair][(lane + k) % 32] * (k + 1);
      asm volatile("barrier.arrive %0, %1;" ::"r"(empty), "r"(count)
                   : "memory");
    }
    out[(blockIdx.x * 2 + pair) * 32 + lane] = acc;
  }
}
