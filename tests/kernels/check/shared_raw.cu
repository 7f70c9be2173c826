// shared_raw: read-after-write on shared memory. Every thread stores its
// value to s[t] and then reads s[(t + 37) % 128], which another thread
// stores; that thread is always in another warp ((t + 37) % 128 - t is 37
// or -91, never within one warp of 32).
//   shared_raw_buggy: no barrier between the store and the load
//                     (data race: the load may run before the store).
//   shared_raw_fixed: __syncthreads() between them.
// Launch: -g 2 -b 128; in = s32[256] (iota), out = s32[256].
// Fixed result: out[b*128 + t] = 3 * in[b*128 + (t + 37) % 128] + 1.
extern "C" __global__ void shared_raw_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = 3 * in[blockIdx.x * 128 + t] + 1;
  out[blockIdx.x * 128 + t] = s[(t + 37) % 128];
}

extern "C" __global__ void shared_raw_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = 3 * in[blockIdx.x * 128 + t] + 1;
  __syncthreads();
  out[blockIdx.x * 128 + t] = s[(t + 37) % 128];
}
