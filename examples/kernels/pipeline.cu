// The bundled example of `make run` (bcusim's own kernel).
//
// One CTA of 128 threads runs a two-stage pipeline through shared memory:
// warps 0-1 produce a 64-element tile per round, warps 2-3 consume it. Two
// named barriers hand the buffer back and forth, the producer/consumer
// pattern of the PTX `bar` specification:
//   barrier 1 "buffer empty": consumers bar.arrive, producers bar.sync
//   barrier 2 "buffer full":  producers bar.arrive, consumers bar.sync
// both with a thread count of 128 (all four warps). After the last round,
// __syncthreads_count (bar.red.popc) counts the odd results of the CTA and
// thread 0 reports it.
//
// out[b * rounds * 64 + r * 64 + i] = 2 * in[same] + 1 (always odd).
extern "C" __global__ void pipeline(const int *in, int *out, int *odd,
                                    int rounds) {
  __shared__ int tile[64];
  const int tid = threadIdx.x;
  const int base = blockIdx.x * rounds * 64;
  int last = 0;
#pragma unroll 1
  for (int r = 0; r < rounds; ++r) {
    if (tid < 64) {
      asm volatile("bar.sync 1, 128;" ::: "memory");   // wait: buffer empty
      tile[tid] = 2 * in[base + r * 64 + tid];
      asm volatile("bar.arrive 2, 128;" ::: "memory"); // signal: buffer full
    } else {
      asm volatile("bar.arrive 1, 128;" ::: "memory"); // signal: empty
      asm volatile("bar.sync 2, 128;" ::: "memory");   // wait: full
      last = tile[tid - 64] + 1;
      out[base + r * 64 + tid - 64] = last;
    }
  }
  int n = __syncthreads_count(last & 1);
  if (tid == 0) {
    odd[blockIdx.x] = n;
    printf("CTA %d: %d of 64 consumer threads hold an odd result\n",
           blockIdx.x, n);
  }
}
