// tricky: race-free kernels that look suspicious (and their broken
// twins), and reads of shared memory nothing wrote.
//   xor_allreduce_fixed: a __shfl_xor_sync butterfly leaves the warp's sum
//     in every lane; each thread stores its own element (clean).
//   smem_butterfly_fixed: the same butterfly through shared memory, with
//     __syncwarp() between the read of the partner's slot and the write of
//     the own one, and after the write (clean).
//   smem_butterfly_buggy: the __syncwarp() between the read and the write
//     is left out: lane l writes s[l] while lane l ^ m reads it.
//   perm_index_fixed: out[(t * 5) % 128] = t: 5 is odd, so the indices are
//     a permutation (clean).
//   perm_index_buggy: out[(t * 6) % 128] = t: threads t and t + 64
//     (different warps) store different values to one element.
//   double_buffer_fixed: tiles prefetched into the other of two shared
//     buffers, one barrier per iteration (clean).
//   ticket_slots_fixed: each thread takes a slot with atomicAdd on a shared
//     counter and stores into it; a barrier; the slots are read (clean).
//   warp_compact_fixed: warp-aggregated stream compaction: the leader
//     reserves with one atomicAdd, __shfl_sync broadcasts the base, each
//     lane stores at base + its rank among the selected lanes (clean).
//   reduce_partial_uninit_buggy: a block reduction whose last block is
//     partial (n = 100): slots of threads i >= n are never stored, and the
//     tree reads them.
//   reduce_partial_fixed: those threads store 0 (clean).
//   some_warps_init_buggy: warps 0-1 fill the shared array, all four
//     warps read it after the barrier (the upper half: nothing wrote it).
// Launch: -g 1 -b 128 unless noted; in = s32[128] (iota), out = s32[128].
// double_buffer_fixed: in = s32[512] (iota), 4 tiles.
// ticket_slots_fixed, warp_compact_fixed: out = s32[128], count = s32[1].
// reduce_partial_*: -g 2 -b 64, in = s32[128] (iota), out = s32[2], n.

extern "C" __global__ void xor_allreduce_fixed(const int *in, int *out) {
  int v = in[threadIdx.x];
#pragma unroll 1
  for (int m = 16; m > 0; m >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, m);
  out[threadIdx.x] = v;
}

extern "C" __global__ void smem_butterfly_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  const int w = t & ~31, l = t & 31;
  int v = in[t];
  s[t] = v;
  __syncwarp();
#pragma unroll 1
  for (int m = 16; m > 0; m >>= 1) {
    v += s[w + (l ^ m)];
    __syncwarp();
    s[t] = v;
    __syncwarp();
  }
  out[t] = v;
}

extern "C" __global__ void smem_butterfly_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  const int w = t & ~31, l = t & 31;
  int v = in[t];
  s[t] = v;
  __syncwarp();
#pragma unroll 1
  for (int m = 16; m > 0; m >>= 1) {
    v += s[w + (l ^ m)];
    s[t] = v; // BUG: the partner may not have read s[t] yet
    __syncwarp();
  }
  out[t] = v;
}

extern "C" __global__ void perm_index_fixed(const int *in, int *out) {
  const int t = threadIdx.x;
  out[(t * 5) % 128] = in[t];
}

extern "C" __global__ void perm_index_buggy(const int *in, int *out) {
  const int t = threadIdx.x;
  out[(t * 6) % 128] = in[t]; // BUG: t and t + 64 collide
}

extern "C" __global__ void double_buffer_fixed(const int *in, int *out) {
  __shared__ int buf[2][128];
  const int t = threadIdx.x;
  buf[0][t] = in[t];
  __syncthreads();
  int acc = 0;
#pragma unroll 1
  for (int k = 0; k < 4; ++k) {
    const int cur = k & 1;
    if (k + 1 < 4)
      buf[cur ^ 1][t] = in[(k + 1) * 128 + t];
    acc += buf[cur][(t + 1) % 128];
    __syncthreads();
  }
  out[t] = acc;
}

extern "C" __global__ void ticket_slots_fixed(const int *in, int *out) {
  __shared__ int slots[128];
  __shared__ int next;
  const int t = threadIdx.x;
  if (t == 0)
    next = 0;
  __syncthreads();
  const int mine = atomicAdd(&next, 1);
  slots[mine] = in[t] * 2;
  __syncthreads();
  out[t] = slots[t] + slots[127 - t];
}

extern "C" __global__ void warp_compact_fixed(const int *in, int *out,
                                              int *count) {
  const int t = threadIdx.x;
  const int v = in[t];
  const bool keep = v % 3 != 0;
  const unsigned mask = __ballot_sync(0xffffffffu, keep);
  const int lane = t & 31;
  int base = 0;
  if (lane == 0)
    base = atomicAdd(count, __popc(mask));
  base = __shfl_sync(0xffffffffu, base, 0);
  if (keep)
    out[base + __popc(mask & ((1u << lane) - 1))] = v;
}

extern "C" __global__ void reduce_partial_uninit_buggy(const int *in,
                                                       int *out, int n) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  const int i = blockIdx.x * 64 + t;
  if (i < n)
    s[t] = in[i]; // BUG: slots of i >= n stay unwritten
  __syncthreads();
#pragma unroll 1
  for (int o = 32; o > 0; o >>= 1) {
    if (t < o) {
      const int r = s[t + o];
      s[t] += r;
    }
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce_partial_fixed(const int *in, int *out,
                                                int n) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  const int i = blockIdx.x * 64 + t;
  s[t] = i < n ? in[i] : 0;
  __syncthreads();
#pragma unroll 1
  for (int o = 32; o > 0; o >>= 1) {
    if (t < o) {
      const int r = s[t + o];
      s[t] += r;
    }
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

extern "C" __global__ void some_warps_init_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  if (t < 64)
    s[t] = in[t]; // BUG: warps 2-3 leave s[64..127] unwritten
  __syncthreads();
  out[t] = s[127 - t];
}

// fields_buggy: warp 0 stores both fields of its record (.x, then .y: one
// 8-byte granule, two instructions), warp 1 does some work, then reads the
// .x field of a record without a barrier: the race is between the .x store
// and the load (the .y store touches other bytes).
struct __align__(8) Rec {
  int x, y;
};

extern "C" __global__ void fields_buggy(const int *in, int *out) {
  __shared__ Rec r[32];
  const int t = threadIdx.x;
  if (t < 32) {
    r[t].x = in[t];
    asm volatile("" ::: "memory"); // two stores, not one v2 store
    r[t].y = -in[t];
  } else if (t < 64) {
    int acc = 0;
#pragma unroll 1
    for (int i = 0; i < 32; ++i) // some work first: the stores come before
      acc += in[i];
    out[t] = acc + r[t - 32].x; // BUG: no barrier
  }
}
