// last_block: the "last block done" reduction: each CTA reduces its slice
// in shared memory, thread 0 publishes the partial sum, __threadfence()
// (membar.gl / fence) makes it visible device-wide before the CTA takes a
// ticket with atomicInc; the CTA that draws the last ticket sums all
// partials (volatile loads) and resets the counter.
// in = iota over G * 128 elements; total[0] = sum, count[0] = 0 after.
extern "C" __global__ void last_block(const int *in, volatile int *partial,
                                      int *total, unsigned *count) {
  __shared__ int s[128];
  __shared__ bool is_last;
  const int tid = threadIdx.x;
  s[tid] = in[blockIdx.x * 128 + tid];
  __syncthreads();
  for (int stride = 64; stride > 0; stride /= 2) {
    if (tid < stride)
      s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    const unsigned ticket = atomicInc(count, gridDim.x);
    is_last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (is_last && tid == 0) {
    int sum = 0;
    for (unsigned i = 0; i < gridDim.x; ++i)
      sum += partial[i];
    total[0] = sum;
    count[0] = 0;
  }
}
