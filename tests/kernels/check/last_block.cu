// last_block: the "last block" reduction of the __threadfence() pattern.
// Each CTA reduces its part in shared memory; thread 0 stores the partial
// sum, then takes a ticket with atomicInc; the CTA that draws the last
// ticket adds up every partial sum.
//   last_block_fixed: __threadfence() between the partial store and the
//     ticket: fence + relaxed atomic is a release pattern, and the ticket's
//     atomic followed by __syncthreads() (an acquire fence for the thread
//     that drew it) lets the last CTA read every partial sum (clean).
//   last_block_buggy: without __threadfence() the partial sums are not
//     ordered before the tickets: the last CTA's reads race with the other
//     CTAs' stores (data race on `partial`).
// Launch: -g 8 -b 256; in = f32[2048] (all 1), partial = f32[8],
// out = f32[1], n = 2048. Result: out[0] = 2048.
__device__ unsigned int tickets = 0;
__device__ unsigned int tickets_buggy = 0;

template <bool Fence>
__device__ void last_block(const float *in, float *partial,
                           float *out, unsigned n, unsigned *count) {
  __shared__ float s[256];
  __shared__ bool last;
  const unsigned t = threadIdx.x;
  const unsigned i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k)
      s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) {
    partial[blockIdx.x] = s[0];
    if (Fence)
      __threadfence();
    const unsigned ticket = atomicInc(count, gridDim.x);
    last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (last) {
    float v = 0;
    for (unsigned j = t; j < gridDim.x; j += blockDim.x)
      v += partial[j];
    s[t] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
      if (t < k)
        s[t] += s[t + k];
      __syncthreads();
    }
    if (t == 0) {
      out[0] = s[0];
      *count = 0;
    }
  }
}

extern "C" __global__ void last_block_fixed(const float *in, float *partial,
                                            float *out, unsigned n) {
  last_block<true>(in, partial, out, n, &tickets);
}

extern "C" __global__ void last_block_buggy(const float *in, float *partial,
                                            float *out, unsigned n) {
  last_block<false>(in, partial, out, n, &tickets_buggy);
}
