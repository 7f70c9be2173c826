// shapes: indexing by 2D/3D threads, block sizes, partial last blocks,
// dynamic shared memory, grid-stride loops and aliasing pointers.
//   transpose_buggy: a 32x8 block transposes a 32x32 tile through shared
//     memory (block (32,8), 4 rows per thread) and reads the transposed
//     element before any barrier: rows written by other warps.
//   transpose_fixed: __syncthreads() between (clean).
//   index3d_buggy: a 3D block (8,4,4) writes out[y * 8 + x], forgetting z:
//     threads of different z (different warps) write one element with
//     different values.
//   index3d_fixed: out[(z * 4 + y) * 8 + x] (clean).
//   slot_by_mod: s[t % 64] = t, barrier, read: clean for blocks of 64
//     threads, a race between t and t + 64 (another warp) for 128.
//   partial_block: a barrier inside `if (i < n)`: with n a multiple of the
//     block size every thread reaches it; otherwise the partial last block
//     diverges (its threads past n exit).
//   dyn_overlap_buggy: two arrays carved out of dynamic shared memory, the
//     second starting at blockDim.x / 2 instead of blockDim.x: a[t] and
//     b[t - 64] are one word (different warps, different values).
//   dyn_fixed: b starts at blockDim.x (clean).
//   stride_buggy: a grid-stride loop that strides by blockDim.x: CTA 0's
//     second iteration writes what CTA 1's first iteration writes.
//   stride_fixed: strides by gridDim.x * blockDim.x (clean).
//   shift_copy: out[i] = in[i + 1] + 1; clean with two buffers, a race when
//     in and out are the same buffer (`-a @0`): thread i + 1 writes what
//     thread i reads (lanes of one warp; across warps and CTAs at their
//     edges).
// arch: sm_90

extern "C" __global__ void transpose_buggy(const int *in, int *out) {
  __shared__ int tile[32][33];
  const int x = threadIdx.x, y = threadIdx.y;
#pragma unroll 1
  for (int r = y; r < 32; r += 8)
    tile[r][x] = in[r * 32 + x];
#pragma unroll 1
  for (int r = y; r < 32; r += 8)
    out[r * 32 + x] = tile[x][r];
}

extern "C" __global__ void transpose_fixed(const int *in, int *out) {
  __shared__ int tile[32][33];
  const int x = threadIdx.x, y = threadIdx.y;
#pragma unroll 1
  for (int r = y; r < 32; r += 8)
    tile[r][x] = in[r * 32 + x];
  __syncthreads();
#pragma unroll 1
  for (int r = y; r < 32; r += 8)
    out[r * 32 + x] = tile[x][r];
}

extern "C" __global__ void index3d_buggy(int *out) {
  const int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
  out[y * 8 + x] = (z * 4 + y) * 8 + x;
}

extern "C" __global__ void index3d_fixed(int *out) {
  const int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
  out[(z * 4 + y) * 8 + x] = (z * 4 + y) * 8 + x;
}

extern "C" __global__ void slot_by_mod(int *out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t % 64] = t;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = s[(t + 1) % 64];
}

extern "C" __global__ void partial_block(const int *in, int *out, int n) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  if (i < n) {
    s[t] = in[i];
    __syncthreads();
    out[i] = s[t ^ 1];
  }
}

extern "C" __global__ void dyn_overlap_buggy(const int *in, int *out) {
  extern __shared__ int buf[];
  const int t = threadIdx.x;
  int *a = buf;
  int *b = buf + blockDim.x / 2;
  a[t] = in[t];
  b[t] = in[t] * 2;
  __syncthreads();
  out[t] = a[t] + b[t];
}

extern "C" __global__ void dyn_fixed(const int *in, int *out) {
  extern __shared__ int buf[];
  const int t = threadIdx.x;
  int *a = buf;
  int *b = buf + blockDim.x;
  a[t] = in[t];
  b[t] = in[t] * 2;
  __syncthreads();
  out[t] = a[t] + b[t];
}

extern "C" __global__ void stride_buggy(const int *in, int *out, int n) {
#pragma unroll 1
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x)
    out[i] = in[i] + blockIdx.x;
}

extern "C" __global__ void stride_fixed(const int *in, int *out, int n) {
#pragma unroll 1
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    out[i] = in[i] + blockIdx.x;
}

extern "C" __global__ void shift_copy(const int *in, int *out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n)
    out[i] = in[i + 1] + 1;
}
