// algos: textbook shared-memory algorithms whose barriers sit in loops.
//   bitonic_fixed: a bitonic sort of 128 keys; each compare-exchange step
//     reads the thread's own key and its partner's (t ^ j), a barrier, the
//     thread writes its own key, a barrier (clean).
//   bitonic_nobar_buggy: the barrier between the reads and the write is
//     left out: thread t writes s[t] while its partner t ^ j reads it in
//     the same step (warps apart for j >= 32, lanes of a warp below).
//   oddeven_fixed: odd-even transposition sort (descending, so that the
//     ascending input swaps), one barrier after every phase: the pairs of
//     one phase are disjoint (clean).
//   oddeven_nobar_buggy: one barrier after the loop only: phase p + 1
//     touches the element that a neighbour swapped in phase p.
//   stencil_halo_fixed: a 3-point stencil, tile plus two halo cells loaded
//     by threads 0 and 1 before the barrier (clean).
//   stencil_late_halo_buggy: thread 1 loads the right halo cell after the
//     barrier; thread 127 (another warp) reads it.
//   stencil_own_halo_fixed: the edge threads 0 and 127 load the halo cells
//     after the barrier, and only they read them: the same thread, no
//     race although no barrier orders them (clean).
//   transpose_pad_fixed: a 32x8 block transposes a 32x32 tile through a
//     padded [32][33] shared tile (clean).
//   transpose_reuse_buggy: two tiles through one shared tile, no barrier
//     at the end of the loop: the stores of the second tile race with the
//     loads of the first.
//   hist_zero_buggy: warp 0 zeroes the shared bins with plain stores, no
//     barrier, every thread counts with atomicAdd: another warp's atomic
//     and the plain store race.
//   hist_zero_fixed: a barrier after the zeroing (clean).
//   chunk_overlap_benign: CTA b handles [b * 64, (b + 1) * 64] (<=, one
//     too many): CTAs b and b + 1 both write element (b + 1) * 64, the same
//     value (out[i] = 2 * in[i]): a benign race.
//   chunk_overlap_buggy: the same loop updating data in place (+= 1): the
//     shared element is read and written by both CTAs.
//   blelloch_fixed: work-efficient exclusive scan, up-sweep and down-sweep
//     with a barrier per step; thread 127 clears the root between them,
//     followed by a barrier (clean).
//   blelloch_root_buggy: no barrier after the root is cleared: thread 0
//     reads and writes s[127] in the first down-sweep step.
//   hs_double_fixed: Hillis-Steele inclusive scan through two buffers that
//     swap each step, one barrier per step (clean).
// Launch: -g 1 -b 128 unless noted; in = s32[128] (iota), out = s32[128].
// transpose_*: -b 32,8, in = s32[2048] (iota), out = s32[2048], width 32.
// hist_*: -g 2 -b 128, in = s32[256] (iota), hist = s32[32].
// chunk_*: -g 2 -b 64, n = 128 (the arrays have 129 elements).
// Fixed results: bitonic/oddeven: the keys sorted (descending for oddeven);
// blelloch: out[t] = t * (t - 1) / 2; hs_double: out[t] = t * (t + 1) / 2.

extern "C" __global__ void bitonic_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[(t * 37) % 128];
  __syncthreads();
#pragma unroll 1
  for (int k = 2; k <= 128; k <<= 1) {
#pragma unroll 1
    for (int j = k >> 1; j > 0; j >>= 1) {
      const int p = t ^ j;
      const int mine = s[t];
      const int other = s[p];
      __syncthreads();
      const bool up = (t & k) == 0;
      const bool low = t < p;
      const int lo = mine < other ? mine : other;
      const int hi = mine < other ? other : mine;
      s[t] = (low == up) ? lo : hi;
      __syncthreads();
    }
  }
  out[t] = s[t];
}

extern "C" __global__ void bitonic_nobar_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[(t * 37) % 128];
  __syncthreads();
#pragma unroll 1
  for (int k = 2; k <= 128; k <<= 1) {
#pragma unroll 1
    for (int j = k >> 1; j > 0; j >>= 1) {
      const int p = t ^ j;
      const int mine = s[t];
      const int other = s[p]; // BUG: read while the partner writes s[p]
      const bool up = (t & k) == 0;
      const bool low = t < p;
      const int lo = mine < other ? mine : other;
      const int hi = mine < other ? other : mine;
      s[t] = (low == up) ? lo : hi;
      __syncthreads();
    }
  }
  out[t] = s[t];
}

extern "C" __global__ void oddeven_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
#pragma unroll 1
  for (int phase = 0; phase < 128; ++phase) {
    if ((t & 1) == (phase & 1) && t + 1 < 128) {
      const int a = s[t];
      const int b = s[t + 1];
      if (a < b) {
        s[t] = b;
        s[t + 1] = a;
      }
    }
    __syncthreads();
  }
  out[t] = s[t];
}

extern "C" __global__ void oddeven_nobar_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
#pragma unroll 1
  for (int phase = 0; phase < 128; ++phase) {
    if ((t & 1) == (phase & 1) && t + 1 < 128) {
      const int a = s[t];
      const int b = s[t + 1];
      if (a < b) {
        s[t] = b;
        s[t + 1] = a;
      }
    }
    // BUG: no barrier between the phases
  }
  __syncthreads();
  out[t] = s[t];
}

extern "C" __global__ void stencil_halo_fixed(const int *in, int *out) {
  __shared__ int s[130];
  const int t = threadIdx.x;
  s[t + 1] = in[t];
  if (t == 0)
    s[0] = in[127];
  if (t == 1)
    s[129] = in[0];
  __syncthreads();
  out[t] = s[t] + 2 * s[t + 1] + s[t + 2];
}

extern "C" __global__ void stencil_late_halo_buggy(const int *in, int *out) {
  __shared__ int s[130];
  const int t = threadIdx.x;
  s[t + 1] = in[t];
  if (t == 0)
    s[0] = in[127];
  __syncthreads();
  if (t == 1)
    s[129] = in[0]; // BUG: after the barrier
  const int left = s[t];
  const int mid = s[t + 1];
  const int right = s[t + 2];
  out[t] = left + 2 * mid + right;
}

extern "C" __global__ void stencil_own_halo_fixed(const int *in, int *out) {
  __shared__ int s[130];
  const int t = threadIdx.x;
  s[t + 1] = in[t];
  __syncthreads();
  if (t == 0)
    s[0] = in[127];
  if (t == 127)
    s[129] = in[0];
  out[t] = s[t] + 2 * s[t + 1] + s[t + 2];
}

extern "C" __global__ void transpose_pad_fixed(const int *in, int *out) {
  __shared__ int tile[32][33];
  const int x = threadIdx.x, y = threadIdx.y;
#pragma unroll 1
  for (int j = 0; j < 32; j += 8)
    tile[y + j][x] = in[(y + j) * 32 + x];
  __syncthreads();
#pragma unroll 1
  for (int j = 0; j < 32; j += 8)
    out[(y + j) * 32 + x] = tile[x][y + j];
}

extern "C" __global__ void transpose_reuse_buggy(const int *in, int *out) {
  __shared__ int tile[32][33];
  const int x = threadIdx.x, y = threadIdx.y;
#pragma unroll 1
  for (int b = 0; b < 2; ++b) {
    const int *src = in + b * 1024;
    int *dst = out + b * 1024;
#pragma unroll 1
    for (int j = 0; j < 32; j += 8)
      tile[y + j][x] = src[(y + j) * 32 + x];
    __syncthreads();
#pragma unroll 1
    for (int j = 0; j < 32; j += 8)
      dst[(y + j) * 32 + x] = tile[x][y + j];
    // BUG: no barrier before the next tile overwrites this one
  }
}

extern "C" __global__ void hist_zero_buggy(const int *in, int *hist) {
  __shared__ int bins[32];
  const int t = threadIdx.x;
  if (t < 32)
    bins[t] = 0;
  // BUG: no barrier after the zeroing
  atomicAdd(&bins[in[blockIdx.x * 128 + t] % 32], 1);
  __syncthreads();
  if (t < 32)
    atomicAdd(&hist[t], bins[t]);
}

extern "C" __global__ void hist_zero_fixed(const int *in, int *hist) {
  __shared__ int bins[32];
  const int t = threadIdx.x;
  if (t < 32)
    bins[t] = 0;
  __syncthreads();
  atomicAdd(&bins[in[blockIdx.x * 128 + t] % 32], 1);
  __syncthreads();
  if (t < 32)
    atomicAdd(&hist[t], bins[t]);
}

extern "C" __global__ void chunk_overlap_benign(const int *in, int *out,
                                                int n) {
  const int chunk = n / gridDim.x;
  const int end = (blockIdx.x + 1) * chunk;
#pragma unroll 1
  for (int i = blockIdx.x * chunk + threadIdx.x; i <= end; i += blockDim.x)
    out[i] = 2 * in[i]; // the last element of a chunk is the next's first
}

extern "C" __global__ void chunk_overlap_buggy(int *data, int n) {
  const int chunk = n / gridDim.x;
  const int end = (blockIdx.x + 1) * chunk;
#pragma unroll 1
  for (int i = blockIdx.x * chunk + threadIdx.x; i <= end; i += blockDim.x)
    data[i] += 1; // BUG: the last element of a chunk is the next's first
}

extern "C" __global__ void blelloch_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
#pragma unroll 1
  for (int d = 1; d < 128; d <<= 1) {
    const int i = (t + 1) * 2 * d - 1;
    if (i < 128)
      s[i] += s[i - d];
    __syncthreads();
  }
  if (t == 127)
    s[127] = 0;
  __syncthreads();
#pragma unroll 1
  for (int d = 64; d > 0; d >>= 1) {
    const int i = (t + 1) * 2 * d - 1;
    if (i < 128) {
      const int a = s[i - d];
      const int b = s[i];
      s[i - d] = b;
      s[i] = a + b;
    }
    __syncthreads();
  }
  out[t] = s[t];
}

extern "C" __global__ void blelloch_root_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
#pragma unroll 1
  for (int d = 1; d < 128; d <<= 1) {
    const int i = (t + 1) * 2 * d - 1;
    if (i < 128)
      s[i] += s[i - d];
    __syncthreads();
  }
  if (t == 127)
    s[127] = 0; // BUG: no barrier before the down-sweep reads the root
#pragma unroll 1
  for (int d = 64; d > 0; d >>= 1) {
    const int i = (t + 1) * 2 * d - 1;
    if (i < 128) {
      const int a = s[i - d];
      const int b = s[i];
      s[i - d] = b;
      s[i] = a + b;
    }
    __syncthreads();
  }
  out[t] = s[t];
}

extern "C" __global__ void hs_double_fixed(const int *in, int *out) {
  __shared__ int s[2][128];
  const int t = threadIdx.x;
  int cur = 0;
  s[cur][t] = in[t];
  __syncthreads();
#pragma unroll 1
  for (int d = 1; d < 128; d <<= 1) {
    const int v = s[cur][t] + (t >= d ? s[cur][t - d] : 0);
    s[cur ^ 1][t] = v;
    cur ^= 1;
    __syncthreads();
  }
  out[t] = s[cur][t];
}
