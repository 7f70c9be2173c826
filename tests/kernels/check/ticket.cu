// ticket: CTAs append their result to a list, each taking a slot from a
// global counter. Every CTA counts its odd inputs (__syncthreads_count)
// and thread 0 appends the count at list[slot].
//   ticket_buggy: slot = atomicAdd(next, 0) reads the counter without
//     advancing it, so every CTA gets slot 0 and the CTAs' thread 0 all
//     store list[0] (write-write race across CTAs; the atomics themselves
//     do not race with each other).
//   ticket_fixed: slot = atomicAdd(next, 1): distinct slots.
// Launch: -g 4 -b 64; in = s32[256] (iota), next = u32[1] (zeros),
// list = s32[4].
// Fixed result: next = 4; list = {32, 32, 32, 32} (each CTA holds 32 odd
// numbers, so the list does not depend on the order of the tickets).
extern "C" __global__ void ticket_buggy(const int *in, unsigned *next,
                                        int *list) {
  const int odd = __syncthreads_count(in[blockIdx.x * 64 + threadIdx.x] & 1);
  if (threadIdx.x == 0) {
    const unsigned slot = atomicAdd(next, 0u);
    list[slot] = odd;
  }
}

extern "C" __global__ void ticket_fixed(const int *in, unsigned *next,
                                        int *list) {
  const int odd = __syncthreads_count(in[blockIdx.x * 64 + threadIdx.x] & 1);
  if (threadIdx.x == 0) {
    const unsigned slot = atomicAdd(next, 1u);
    list[slot] = odd;
  }
}
