// atomics: atomic and plain accesses to one location, and atomic scopes.
//   warp_agg_buggy: a warp-aggregated block sum. Each warp reduces its
//     values (__reduce_add_sync) and lane 0 adds the warp's sum to a
//     shared total with atomicAdd; thread 0 then reads the total with a
//     plain load and no barrier after the other warps' atomics: a plain
//     access and an atomic to the same bytes race (thread 0's own
//     atomicAdd is earlier in its program order; only lanes 0 of warps
//     1-3 conflict, so the race is across warps).
//   warp_agg_fixed: __syncthreads() before the read, and the CTA totals
//     are combined with a global atomicAdd (atomics only: clean).
//   atomic_scope_buggy: a global histogram updated with atomicAdd_block
//     (atom.add with .cta scope) by two CTAs. Atomics are morally strong
//     only when each one's scope includes the other thread: within a CTA
//     they are, across the CTAs they are not, so the updates of CTA 0 and
//     CTA 1 race (and may be lost on hardware).
//   atomic_scope_fixed: atomicAdd (.gpu scope): clean.
// Launch: -g 2 -b 128.
//   warp_agg_*: in = s32[256] (iota), part = s32[2], total = s32[1].
//   atomic_scope_*: in = s32[256] (iota), hist = u32[8].
// Fixed results: part[b] = sum of in[b*128 .. b*128+127], total = sum of in;
// hist[k] = number of i < 256 with in[i] % 8 == k (32 each for iota).
extern "C" __global__ void warp_agg_buggy(const int *in, int *part,
                                          int *total) {
  __shared__ int sum;
  const int t = threadIdx.x;
  if (t == 0)
    sum = 0;
  __syncthreads();
  const int v = __reduce_add_sync(0xffffffffu, in[blockIdx.x * 128 + t]);
  if (t % 32 == 0)
    atomicAdd(&sum, v);
  if (t == 0) {
    part[blockIdx.x] = sum;
    atomicAdd(total, sum);
  }
}

extern "C" __global__ void warp_agg_fixed(const int *in, int *part,
                                          int *total) {
  __shared__ int sum;
  const int t = threadIdx.x;
  if (t == 0)
    sum = 0;
  __syncthreads();
  const int v = __reduce_add_sync(0xffffffffu, in[blockIdx.x * 128 + t]);
  if (t % 32 == 0)
    atomicAdd(&sum, v);
  __syncthreads();
  if (t == 0) {
    part[blockIdx.x] = sum;
    atomicAdd(total, sum);
  }
}

extern "C" __global__ void atomic_scope_buggy(const int *in, unsigned *hist) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd_block(&hist[in[i] % 8], 1u);
}

extern "C" __global__ void atomic_scope_fixed(const int *in, unsigned *hist) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&hist[in[i] % 8], 1u);
}
