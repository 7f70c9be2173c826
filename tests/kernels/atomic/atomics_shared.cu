// atomics_shared: shared-memory atomics (atom.shared.*) inside each CTA,
// then a per-CTA histogram merged into global memory with atomicAdd.
// Each CTA: shared hist[16] (bin = (tid * 7 + ctaid) % 16), max, min, and,
// or, xor, inc(9), plus a CAS-built "add 3" counter; after __syncthreads,
// thread 0 writes the CTA's scalars to per_cta[ctaid * 7 ...] and threads
// 0..15 add the bins to hist (global).
extern "C" __global__ void atomics_shared(unsigned *hist, unsigned *per_cta) {
  __shared__ unsigned bins[16];
  __shared__ unsigned s[7];
  const unsigned tid = threadIdx.x;
  if (tid < 16)
    bins[tid] = 0;
  if (tid == 0) {
    s[0] = 0;           // max
    s[1] = 0xffffffffu; // min
    s[2] = 0xffffffffu; // and
    s[3] = 0;           // or
    s[4] = 0;           // xor
    s[5] = 0;           // inc with limit 9
    s[6] = 0;           // CAS loop adding 3
  }
  __syncthreads();
  const unsigned v = (tid * 2246822519u + blockIdx.x * 977u) >> 7;
  atomicAdd(&bins[(tid * 7 + blockIdx.x) % 16], 1u);
  atomicMax(&s[0], v);
  atomicMin(&s[1], v);
  atomicAnd(&s[2], v | 0xff00ff00u);
  atomicOr(&s[3], v & 0x00ff00ffu);
  atomicXor(&s[4], v);
  atomicInc(&s[5], 9u);
  unsigned old = *static_cast<volatile unsigned *>(&s[6]), assumed;
  do {
    assumed = old;
    old = atomicCAS(&s[6], assumed, assumed + 3u);
  } while (old != assumed);
  __syncthreads();
  if (tid < 16)
    atomicAdd(&hist[tid], bins[tid]);
  if (tid < 7)
    per_cta[blockIdx.x * 7 + tid] = s[tid];
}
