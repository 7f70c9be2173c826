// shared_waw: write-after-write on shared memory. Each thread records
// itself as the owner of slot t % 64; threads t and t + 64 (warps w and
// w + 2) pick the same slot.
//   shared_waw_buggy: both store owner[t % 64] = t with no ordering between
//     them (data race; which one wins depends on the schedule).
//   shared_waw_fixed: the slots are initialized, then every thread claims
//     its slot with atomicMax (atomics of one CTA on shared memory do not
//     race), with barriers around the claims.
// Launch: -g 2 -b 128; out = s32[256].
// Fixed result: out[b*128 + t] = t % 64 + 64 (the larger of the two ids).
extern "C" __global__ void shared_waw_buggy(int *out) {
  __shared__ int owner[64];
  const int t = threadIdx.x;
  owner[t % 64] = t;
  __syncthreads();
  out[blockIdx.x * 128 + t] = owner[t % 64];
}

extern "C" __global__ void shared_waw_fixed(int *out) {
  __shared__ int owner[64];
  const int t = threadIdx.x;
  if (t < 64)
    owner[t] = -1;
  __syncthreads();
  atomicMax(&owner[t % 64], t);
  __syncthreads();
  out[blockIdx.x * 128 + t] = owner[t % 64];
}
