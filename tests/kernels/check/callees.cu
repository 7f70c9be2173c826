// callees: racy accesses inside device functions that stay calls
// (__noinline__, recursion, function pointers), templates, and accesses of
// different types and widths to one piece of shared memory.
//   noinline_buggy: put() stores s[t] and get() loads another warp's
//     element, both __noinline__ (called through generic pointers), no
//     barrier between the calls: the report names the callees' lines.
//   noinline_fixed: __syncthreads() between the calls (clean).
//   recurse_buggy: a recursive fill(d) stores s[(t + 32 * d) % 128] for
//     d = 3, 2, 1: threads of different warps store different values to
//     one element.
//   recurse_fixed: fill stores s[4 * t + d] (disjoint, clean).
//   fnptr_buggy: odd threads call add_op through a function pointer, even
//     threads store_op, both on s[t / 2]: lanes 2k and 2k + 1 of a warp
//     access one element.
//   fnptr_fixed: each on s[t] (clean).
//   rotate_buggy: a template device function rotate<float, 33>() stores
//     its element and loads another warp's, no barrier.
//   rotate_fixed: rotate<int, 33> with the barrier (clean).
//   extern_alias_buggy: dynamic shared memory seen as float f[128] at 0
//     and int k[64] at byte 256: k[t] is f[64 + t], stored by warps 0-1
//     (k) and 2-3 (f) with different values.
//   int2_overlap_buggy: every word is stored, a barrier; then warp 0
//     stores the odd words again as scalars while warp 1 loads int2 pairs
//     (s[2i], s[2i + 1]).
//   int2_fixed: the barrier between (clean).
//   short_char_fixed: one word per thread group: bytes 0-1 a short stored
//     by warp 0, bytes 2 and 3 chars stored by warps 1 and 2; a barrier,
//     then the word is read whole (different bytes: clean).
// Launch: -g 1 -b 128; in = s32[128] (iota), out = s32[128].
// extern_alias_buggy: --shared-bytes 512. short_char_fixed: out = s32[32].

__device__ __noinline__ void put(int *s, int i, int v) { s[i] = v; }

__device__ __noinline__ int get(const int *s, int i) { return s[i]; }

extern "C" __global__ void noinline_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  put(s, t, in[t] + 1);
  out[t] = get(s, (t + 32) % 128); // BUG: no barrier after the puts
}

extern "C" __global__ void noinline_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  put(s, t, in[t] + 1);
  __syncthreads();
  out[t] = get(s, (t + 32) % 128);
}

__device__ void fill(int *s, int t, int d) {
  if (d == 0)
    return;
  s[(t + 32 * d) % 128] = 100 * d + t;
  fill(s, t, d - 1);
}

__device__ void fill_own(int *s, int t, int d) {
  if (d == 0)
    return;
  s[4 * t + d] = 100 * d + t;
  fill_own(s, t, d - 1);
}

extern "C" __global__ void recurse_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  fill(s, t, in[3]); // in[3] = 3 levels: BUG, warps store to one element
  __syncthreads();
  out[t] = s[t];
}

extern "C" __global__ void recurse_fixed(const int *in, int *out) {
  __shared__ int s[512];
  const int t = threadIdx.x;
  s[4 * t] = t;
  fill_own(s, t, in[3]);
  __syncthreads();
  out[t] = s[4 * t] + s[4 * t + 1] + s[4 * t + 2] + s[4 * t + 3];
}

typedef void (*op_t)(int *, int);

__device__ void store_op(int *p, int v) { *p = v; }

__device__ void add_op(int *p, int v) { *p += v; }

__device__ op_t ops[2] = {store_op, add_op};

extern "C" __global__ void fnptr_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = 0;
  __syncthreads();
  ops[t & 1](&s[t / 2], in[t]); // BUG: lanes 2k and 2k + 1 share s[k]
  __syncthreads();
  out[t] = s[t];
}

extern "C" __global__ void fnptr_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = 0;
  __syncthreads();
  ops[t & 1](&s[t], in[t]);
  __syncthreads();
  out[t] = s[(t + 32) % 128];
}

template <typename T, int K, bool SYNC>
__device__ T rotate(T *s, T v) {
  const int t = threadIdx.x;
  s[t] = v;
  if (SYNC)
    __syncthreads();
  return s[(t + K) % 128];
}

extern "C" __global__ void rotate_buggy(const int *in, int *out) {
  __shared__ float s[128];
  out[threadIdx.x] = (int)rotate<float, 33, false>(s, in[threadIdx.x] * 0.5f);
}

extern "C" __global__ void rotate_fixed(const int *in, int *out) {
  __shared__ int s[128];
  out[threadIdx.x] = rotate<int, 33, true>(s, in[threadIdx.x] * 2);
}

extern "C" __global__ void extern_alias_buggy(const int *in, int *out) {
  extern __shared__ unsigned char smem[];
  float *f = reinterpret_cast<float *>(smem);
  int *k = reinterpret_cast<int *>(smem + 256); // BUG: inside f
  const int t = threadIdx.x;
  if (t >= 64)
    f[t] = in[t] * 0.25f;
  else
    k[t] = in[t] + 1000;
  __syncthreads();
  out[t] = (int)f[t];
}

extern "C" __global__ void int2_overlap_buggy(const int *in, int *out) {
  __shared__ int2 s[32];
  int *w = reinterpret_cast<int *>(s);
  const int t = threadIdx.x;
  if (t < 64)
    w[t] = in[t];
  __syncthreads();
  if (t < 32) {
    w[2 * t + 1] = -in[t]; // BUG: warp 1 reads the pairs without a barrier
  } else if (t < 64) {
    const int2 p = s[(t + 5) % 32];
    out[t] = p.x + p.y;
  }
}

extern "C" __global__ void int2_fixed(const int *in, int *out) {
  __shared__ int2 s[32];
  int *w = reinterpret_cast<int *>(s);
  const int t = threadIdx.x;
  if (t < 64)
    w[t] = in[t];
  __syncthreads();
  if (t < 32)
    w[2 * t + 1] = -in[t];
  __syncthreads();
  if (t >= 32 && t < 64) {
    const int2 p = s[(t + 5) % 32];
    out[t] = p.x + p.y;
  }
}

extern "C" __global__ void short_char_fixed(const int *in, int *out) {
  __shared__ unsigned int w[32];
  const int t = threadIdx.x;
  const int l = t % 32;
  unsigned char *b = reinterpret_cast<unsigned char *>(w);
  if (t < 32)
    reinterpret_cast<unsigned short *>(w)[2 * l] = (unsigned short)in[t];
  else if (t < 64)
    b[4 * l + 2] = (unsigned char)(in[t] + 1);
  else if (t < 96)
    b[4 * l + 3] = (unsigned char)(in[t] + 2);
  __syncthreads();
  if (t < 32)
    out[t] = w[(t + 7) % 32];
}

// helper_sync_divergent_buggy: a __noinline__ helper holding the
//   __syncthreads() is called from both branches of an if on the lane's
//   parity: one barrier instruction, but reached by each warp's lanes on
//   two diverged paths (CUDA: a barrier in conditional code needs a
//   condition uniform over the block).
// helper_sync_fixed: the helper is called once, after the if (clean).
// Launch: -g 1 -b 128, in = s32[128] (iota), out = s32[128].
__device__ __noinline__ void block_sync() { __syncthreads(); }

extern "C" __global__ void helper_sync_divergent_buggy(const int *in,
                                                       int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  if (t & 1) {
    s[t] = in[t] * 3;
    block_sync(); // BUG: called on two diverged paths
  } else {
    s[t] = in[t] + 3;
    block_sync();
  }
  out[t] = s[127 - t];
}

extern "C" __global__ void helper_sync_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  if (t & 1)
    s[t] = in[t] * 3;
  else
    s[t] = in[t] + 3;
  block_sync();
  out[t] = s[127 - t];
}
