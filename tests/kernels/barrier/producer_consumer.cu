// producer_consumer: the producer/consumer example of the PTX bar/barrier
// description, with two barriers of 64 threads (one producer warp, one
// consumer warp per CTA):
//   producer: st.shared value; bar.arrive 0, 64 (announce, do not wait);
//             ld.global the next value; bar.sync 1, 64 (wait until the
//             consumer has read the buffer)
//   consumer: bar.sync 0, 64 (wait for the value); ld.shared;
//             bar.arrive 1, 64 (release the buffer)
// Rule checked: bar.arrive does not wait; when the barrier completes the
// arriving warp's prior stores are visible to the participants. No warp
// arrives twice at one barrier before it resets.
// out[ctaid * 32 + lane] = sum over k of in[k * 32 + (lane + k) % 32] * 3
//                          * (k + 1)
extern "C" __global__ void producer_consumer(const int *in, int *out,
                                             int iters) {
  __shared__ int buf[32];
  const int lane = threadIdx.x % 32;
  if (threadIdx.x < 32) {
    int next = in[lane];
    for (int k = 0; k < iters; ++k) {
      buf[lane] = next * 3;
      asm volatile("bar.arrive 0, 64;" ::: "memory");
      if (k + 1 < iters)
        next = in[(k + 1) * 32 + lane];
      asm volatile("bar.sync 1, 64;" ::: "memory");
    }
  } else {
    int acc = 0;
    for (int k = 0; k < iters; ++k) {
      asm volatile("bar.sync 0, 64;" ::: "memory");
      acc += buf[(lane + k) % 32] * (k + 1);
      asm volatile("bar.arrive 1, 64;" ::: "memory");
    }
    out[blockIdx.x * 32 + lane] = acc;
  }
}
