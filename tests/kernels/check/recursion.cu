// Checker kernels with real recursive calls (nvcc keeps them as `call`s:
// work after the recursive call, so no loop): the race and uninitialized-
// read checks inside recursive activations (docs/engine.md "Recursion").
//   rec_race_buggy: climb(d) recurses to depth in[t] % 4 + 2, then on the
//     way back stores s[(t + 32 * d) % 128] = t: threads of different warps
//     store different values to one element, no barrier.
//   rec_race_fixed: climb_own stores s[4 * t + d % 4] (disjoint, clean).
//   rec_uninit_buggy: twice(n, fill) keeps a local array a[8] in every
//     activation; the first call (fill = 1) writes it, the second (fill = 0)
//     reads a[n & 7] without writing: a fresh activation's frame holds
//     nothing, although the first call's activation at the same depth
//     wrote the same stack bytes.
//   rec_uninit_fixed: both calls write before reading (clean).
// Launch: -g 1 -b 128; in = s32[128] (iota), out = s32[128].

__device__ __noinline__ void climb(int *s, int t, int d) {
  if (d == 0)
    return;
  climb(s, t, d - 1);
  s[(t + 32 * d) % 128] = t + d; // BUG: another warp's thread stores here
}

extern "C" __global__ void rec_race_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  climb(s, t, in[t] % 4 + 2);
  __syncthreads();
  out[t] = s[t];
}

__device__ __noinline__ void climb_own(int *s, int t, int d) {
  if (d == 0)
    return;
  climb_own(s, t, d - 1);
  s[4 * t + d % 4] += t + d;
}

extern "C" __global__ void rec_race_fixed(const int *in, int *out) {
  __shared__ int s[512];
  const int t = threadIdx.x;
  for (int i = 0; i < 4; ++i)
    s[4 * t + i] = 0;
  climb_own(s, t, in[t] % 4 + 2);
  __syncthreads();
  out[t] = s[4 * t] + s[4 * t + 1] + s[4 * t + 2] + s[4 * t + 3];
}

__device__ __noinline__ int twice(int n, int fill, const int *in) {
  int a[8];
  if (fill)
    for (int i = 0; i < 8; ++i)
      a[i] = in[(n + i) & 127];
  int r = 0;
  if (n > 0)
    r = twice(n - 1, fill, in);
  return r + a[(n + in[n & 127]) & 7]; // BUG when !fill: a is never written
}

extern "C" __global__ void rec_uninit_buggy(const int *in, int *out) {
  const int t = threadIdx.x;
  int x = twice(3, 1, in);
  out[t] = x + twice(3, in[t] - t, in); // in[t] == t: fill = 0
}

extern "C" __global__ void rec_uninit_fixed(const int *in, int *out) {
  const int t = threadIdx.x;
  int x = twice(3, 1, in);
  out[t] = x + twice(3, in[t] - t + 1, in);
}
