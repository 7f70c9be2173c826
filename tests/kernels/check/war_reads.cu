// war_reads: write-after-read across CTAs with reads in between.
//   war_reads_buggy: thread 0 of CTA 0 reads data[0]; then every thread of
//     CTA 1 reads data[0], a __syncthreads() orders those reads, and
//     thread 0 of CTA 1 overwrites data[0]. Nothing orders the read of CTA 0
//     before that write (WAR across CTAs), however many reads of CTA 1 came
//     in between (under the default schedule CTA 0 runs first).
//   war_reads_fixed: CTA 0 reads data[1], which nobody writes.
// Launch: -g 2 -b 64; data = s32[2] (iota), out = s32[128].
extern "C" __global__ void war_reads_buggy(int *data, int *out) {
  const int t = threadIdx.x;
  if (blockIdx.x == 0) {
    if (t == 0)
      out[64] = data[0];
    return;
  }
  out[t] = data[0];
  __syncthreads();
  if (t == 0)
    data[0] = 42;
}

extern "C" __global__ void war_reads_fixed(int *data, int *out) {
  const int t = threadIdx.x;
  if (blockIdx.x == 0) {
    if (t == 0)
      out[64] = data[1];
    return;
  }
  out[t] = data[0];
  __syncthreads();
  if (t == 0)
    data[0] = 42;
}
