// Call stacks in reports: findings inside device functions that stay calls
// (__noinline__) name the calls that led there, innermost first.
//   two_sites: put() is called from two places; warp 1 reads warp 0's
//     element after the barrier while warp 0 overwrites it through the
//     second call (no barrier between): the report says which call.
//   deep: a race two calls deep (outer() calls put()).
//   fault_in_call: poke() stores past the end of the array when called
//     the second time: the engine's fault names that call.
// Launch: -g 1 -b 64.

__device__ __noinline__ void put(int *s, int i, int v) { s[i] = v; }

extern "C" __global__ void two_sites(const int *in, int *out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  put(s, t, in[t]);
  __syncthreads();
  if (t >= 32)
    out[t] = s[t - 32];
  else
    put(s, t, 0); // BUG: warp 1 may still read s[t]
}

__device__ __noinline__ void outer(int *s, int i, int v) { put(s, i, v + 1); }

extern "C" __global__ void deep(const int *in, int *out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  outer(s, (t + 32) % 64, in[t]); // BUG: another warp's element, no barrier
  out[t] = s[t];
}

__device__ __noinline__ void poke(int *p, int i) { p[i] = i; }

extern "C" __global__ void fault_in_call(int *data, int n) {
  poke(data, threadIdx.x);
  poke(data, threadIdx.x + n); // BUG: past the end
}

// uninit_in_call: peek() reads s[t], which only warp 0 wrote: warp 1's
// reads are uninitialized, inside the call.
__device__ __noinline__ int peek(const int *s, int i) { return s[i]; }

extern "C" __global__ void uninit_in_call(int *out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  if (t < 32)
    s[t] = t;
  __syncthreads();
  out[t] = peek(s, t); // BUG: s[32..63] is never written
}
