// named_barrier: named barriers (bar.sync / bar.arrive with a thread count)
// order only the threads that take part in them.
//   named_subset_buggy: warps 0-1 store s[0..63] and meet at barrier 1
//     (64 threads), after which they read each other's elements (ordered:
//     both warps took part in barrier 1). Warps 2-3 meet at barrier 2
//     (64 threads) and read s too: barrier 2 orders warps 2-3 among
//     themselves only, nothing orders warps 0-1's stores before warps
//     2-3's loads (data race).
//   named_pc_fixed: the seeds' producer/consumer scheme, 2 warps each:
//     producers (warps 0-1) store a buffer and `bar.arrive 1, 128`;
//     consumers (warps 2-3) `bar.sync 1, 128`, read it, and
//     `bar.arrive 2, 128`; producers `bar.sync 2, 128` before they store
//     the next round. bar.arrive releases, bar.sync acquires (PTX: when the
//     barrier completes, the arriving thread's prior accesses are
//     performed relative to all participants): clean, also across rounds.
//   named_pc_buggy: the consumers read the buffer before their
//     `bar.sync 1, 128` (data race with the producers' stores of the same
//     round; the previous round's stores are ordered by its barrier).
// Launch: -g 1 -b 128. named_subset_buggy: out = s32[128].
// named_pc_*: in = s32[256] (iota), out = s32[64], rounds = 4.
// Fixed result (named_pc_fixed): out[c] = sum over r < rounds of
//   (r + 1) * 3 * in[r * 64 + 63 - c]   (consumer c = threadIdx.x - 64).
extern "C" __global__ void named_subset_buggy(int *out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  if (t < 64) {
    s[t] = t * t;
    asm volatile("bar.sync 1, 64;" ::: "memory");
    out[t] = s[63 - t];
  } else {
    asm volatile("bar.sync 2, 64;" ::: "memory");
    out[t] = s[t - 64] + 1;
  }
}

extern "C" __global__ void named_pc_fixed(const int *in, int *out, int rounds) {
  __shared__ int buf[64];
  const int t = threadIdx.x;
  if (t < 64) {
#pragma unroll 1
    for (int r = 0; r < rounds; ++r) {
      buf[t] = 3 * in[r * 64 + t];
      asm volatile("bar.arrive 1, 128;" ::: "memory");
      asm volatile("bar.sync 2, 128;" ::: "memory");
    }
  } else {
    int acc = 0;
#pragma unroll 1
    for (int r = 0; r < rounds; ++r) {
      asm volatile("bar.sync 1, 128;" ::: "memory");
      acc += (r + 1) * buf[127 - t];
      asm volatile("bar.arrive 2, 128;" ::: "memory");
    }
    out[t - 64] = acc;
  }
}

extern "C" __global__ void named_pc_buggy(const int *in, int *out, int rounds) {
  __shared__ int buf[64];
  const int t = threadIdx.x;
  if (t < 64) {
#pragma unroll 1
    for (int r = 0; r < rounds; ++r) {
      buf[t] = 3 * in[r * 64 + t];
      asm volatile("bar.arrive 1, 128;" ::: "memory");
      asm volatile("bar.sync 2, 128;" ::: "memory");
    }
  } else {
    int acc = 0;
#pragma unroll 1
    for (int r = 0; r < rounds; ++r) {
      const int v = buf[127 - t];
      asm volatile("bar.sync 1, 128;" ::: "memory");
      acc += (r + 1) * v;
      asm volatile("bar.arrive 2, 128;" ::: "memory");
    }
    out[t - 64] = acc;
  }
}
