// idioms: hand-made synchronization as real code writes it.
//   volatile_fence_flag_fixed: thread 0 of CTA 0 stores data,
//     __threadfence(), sets a volatile flag; thread 0 of CTA 1 spins on
//     the volatile flag, __threadfence(), reads the data: release and
//     acquire patterns (volatile = relaxed .sys), clean.
//   volatile_flag_nofence_buggy: no fences: the flag accesses are strong
//     (no race on the flag), but nothing orders the data.
//   sw_grid_barrier_fixed: a software grid barrier (the CTA's barrier,
//     thread 0 fences, counts with atomicAdd and spins on a volatile load
//     of the counter, fences, the CTA's barrier), then each thread reads
//     another CTA's element (clean).
//   sw_grid_barrier_buggy: the same barrier without the fences: the
//     relaxed counter orders nothing between the CTAs.
//   continue_skip_buggy: a `continue` skips one iteration's
//     __syncthreads() for thread 0: warp 0 reaches the barrier without its
//     lane 0, and the threads fall out of step (barrier divergence).
//   sum_read_buggy: every thread adds to a global sum with atomicAdd,
//     __syncthreads(), thread 0 reads the sum plainly: the other CTA's
//     atomics are not ordered before the read.
//   sum_read_atomic_fixed: thread 0 reads it with atomicAdd(sum, 0): a
//     morally strong read (its value depends on the schedule, but there
//     is no data race): clean.
//   warp_private_fixed: each warp works in its own 32-element slice of
//     shared memory with __syncwarp() only (clean).
//   warp_slice_buggy: the slice is read at lane + 1: lane 31 reads the
//     first element of the next warp's slice, which that warp writes.
//   matmul_fixed: a 32x32 matrix product in 16x16 shared tiles, two
//     barriers per tile (clean).
//   matmul_nobar2_buggy: the barrier after the inner product is left out:
//     the next tile's stores race with the reads of the current one.
// Launch: flags: -g 2 -b 32, data = s32[1], flag = s32[1], out = s32[1].
// sw_grid_*: -g 4 -b 64, a = s32[256] (iota), b = s32[256], count =
// u32[1]. continue_skip_buggy, warp_*: -g 1 -b 128, in = s32[128] (iota),
// out = s32[128]. sum_*: -g 2 -b 64, in = s32[128] (iota), sum = s32[1],
// out = s32[2]. matmul_*: -b 16,16, A = f32[1024] (iota), B = f32[1024]
// (iota), C = f32[1024].

extern "C" __global__ void volatile_fence_flag_fixed(int *data, int *flag,
                                                     int *out) {
  if (threadIdx.x != 0)
    return;
  volatile int *vf = flag;
  if (blockIdx.x == 0) {
    data[0] = 42;
    __threadfence();
    *vf = 1;
  } else {
#pragma unroll 1
    while (*vf == 0) {
    }
    __threadfence();
    out[0] = data[0];
  }
}

extern "C" __global__ void volatile_flag_nofence_buggy(int *data, int *flag,
                                                       int *out) {
  if (threadIdx.x != 0)
    return;
  volatile int *vf = flag;
  if (blockIdx.x == 0) {
    data[0] = 42;
    *vf = 1; // BUG: no __threadfence() before the flag
  } else {
#pragma unroll 1
    while (*vf == 0) {
    }
    out[0] = data[0];
  }
}

__device__ void sw_grid_barrier(unsigned *count, bool fence) {
  __syncthreads();
  if (threadIdx.x == 0) {
    if (fence)
      __threadfence();
    atomicAdd(count, 1u);
    volatile unsigned *vc = count;
#pragma unroll 1
    while (*vc < gridDim.x) {
    }
    if (fence)
      __threadfence();
  }
  __syncthreads();
}

extern "C" __global__ void sw_grid_barrier_fixed(int *a, int *b,
                                                 unsigned *count) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  a[g] = 3 * g + 1;
  sw_grid_barrier(count, true);
  b[g] = a[(g + 64) % 256];
}

extern "C" __global__ void sw_grid_barrier_buggy(int *a, int *b,
                                                 unsigned *count) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  a[g] = 3 * g + 1;
  sw_grid_barrier(count, false); // BUG: no fences around the counter
  b[g] = a[(g + 64) % 256];
}

extern "C" __global__ void continue_skip_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[t];
  int acc = 0;
#pragma unroll 1
  for (int k = 0; k < 4; ++k) {
    if (k == 1 && t == 0)
      continue; // BUG: skips this iteration's barrier
    acc += s[t] * k;
    __syncthreads();
  }
  out[t] = acc;
}

extern "C" __global__ void sum_read_buggy(const int *in, int *sum, int *out) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(sum, in[g]);
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = *sum; // BUG: the other CTA may still be adding
}

extern "C" __global__ void sum_read_atomic_fixed(const int *in, int *sum,
                                                 int *out) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(sum, in[g]);
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = atomicAdd(sum, 0);
}

extern "C" __global__ void warp_private_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  const int base = t & ~31, l = t & 31;
  s[t] = in[t];
  __syncwarp();
  const int v = s[base + (l + 1) % 32];
  __syncwarp();
  s[t] = v * 2;
  __syncwarp();
  out[t] = s[base + (l + 31) % 32];
}

extern "C" __global__ void warp_slice_buggy(const int *in, int *out) {
  __shared__ int s[129];
  const int t = threadIdx.x;
  s[t] = in[t];
  __syncwarp();
  out[t] = s[t + 1]; // BUG: lane 31 reads the next warp's slice
}

template <bool SECOND_BARRIER>
__device__ void matmul(const float *A, const float *B, float *C) {
  __shared__ float As[16][16], Bs[16][16];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0.f;
#pragma unroll 1
  for (int k0 = 0; k0 < 32; k0 += 16) {
    As[ty][tx] = A[row * 32 + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * 32 + col];
    __syncthreads();
#pragma unroll 1
    for (int k = 0; k < 16; ++k)
      acc += As[ty][k] * Bs[k][tx];
    if (SECOND_BARRIER)
      __syncthreads();
  }
  C[row * 32 + col] = acc;
}

extern "C" __global__ void matmul_fixed(const float *A, const float *B,
                                        float *C) {
  matmul<true>(A, B, C);
}

extern "C" __global__ void matmul_nobar2_buggy(const float *A, const float *B,
                                               float *C) {
  matmul<false>(A, B, C); // BUG: no barrier before the next tile's stores
}

// exit_writes_buggy: threads 64-127 store their element and exit; the
//   others pass a __syncthreads() and read those elements. An exited
//   thread takes no part in the barrier, so its store is not ordered
//   before the reads (PTX orders accesses among the participants only).
extern "C" __global__ void exit_writes_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[t] * 2;
  if (t >= 64)
    return;
  __syncthreads();
  out[t] = s[t + 64];
}

// coalesced_fixed: the even lanes of each warp form a coalesced group
//   inside a divergent branch, store, g.sync() (bar.warp.sync with their
//   mask), and read another even lane's element (clean).
#include <cooperative_groups.h>
extern "C" __global__ void coalesced_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  if ((t & 1) == 0) {
    cooperative_groups::coalesced_group g =
        cooperative_groups::coalesced_threads();
    s[t] = in[t] + 5;
    g.sync();
    out[t] = s[(t & ~31) + ((t + 2) & 31)];
  }
}

// release_seq_fixed: CTA 0 stores data, __threadfence(), atomicExch(flag,
//   1); CTA 1 turns 1 into 2 with atomicCAS (a relaxed RMW: it continues
//   CTA 0's release sequence); CTA 2 spins until it reads 2 with
//   atomicAdd(flag, 0), __threadfence(), reads the data: it synchronizes
//   with CTA 0's release through the sequence (clean).
// release_seq_broken_buggy: CTA 1 stores 2 with a volatile store instead
//   of the RMW: a plain (relaxed) store ends the release sequence, CTA 2's
//   acquire reads a value nobody released, and the data accesses race.
// Launch: -g 3 -b 32, data = s32[1], flag = s32[1], out = s32[1].
template <bool RMW>
__device__ void release_seq(int *data, int *flag, int *out) {
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == 0) {
    data[0] = 7;
    __threadfence();
    atomicExch(flag, 1);
  } else if (blockIdx.x == 1) {
    if (RMW) {
#pragma unroll 1
      while (atomicCAS(flag, 1, 2) != 1) {
      }
    } else {
      volatile int *vf = flag;
#pragma unroll 1
      while (*vf != 1) {
      }
      *vf = 2;
    }
  } else {
#pragma unroll 1
    while (atomicAdd(flag, 0) != 2) {
    }
    __threadfence();
    out[0] = data[0];
  }
}

extern "C" __global__ void release_seq_fixed(int *data, int *flag, int *out) {
  release_seq<true>(data, flag, out);
}

extern "C" __global__ void release_seq_broken_buggy(int *data, int *flag,
                                                    int *out) {
  release_seq<false>(data, flag, out);
}

// syncwarp_branches_fixed: lanes 0-15 and 16-31 call __syncwarp() in the
//   two branches of an if: one warp-wide synchronization met at two
//   instructions (sm_70+), ordering each half's store before the other
//   half's load (clean).
extern "C" __global__ void syncwarp_branches_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  int v;
  if ((t & 31) < 16) {
    s[t] = in[t] + 1;
    __syncwarp();
    v = s[t ^ 16];
  } else {
    s[t] = in[t] - 1;
    __syncwarp();
    v = s[t ^ 16] * 2;
  }
  out[t] = v;
}

// mixed_size_atomics_buggy: CTA 0 adds to a 64-bit counter, CTA 1 to its
//   low 32-bit half: strong accesses of different sizes are not morally
//   strong (a race).
// mixed_scope_buggy: CTA 0 uses atomicAdd_block, CTA 1 atomicAdd on one
//   counter: the .cta scope of the first does not include CTA 1.
// Launch: -g 2 -b 32, counter = u64[1].
extern "C" __global__ void mixed_size_atomics_buggy(unsigned long long *c) {
  if (blockIdx.x == 0)
    atomicAdd(c, 1ull);
  else
    atomicAdd(reinterpret_cast<unsigned *>(c), 1u);
}

extern "C" __global__ void mixed_scope_buggy(unsigned long long *c) {
  unsigned *w = reinterpret_cast<unsigned *>(c);
  if (blockIdx.x == 0)
    atomicAdd_block(w, 1u);
  else
    atomicAdd(w, 1u);
}

// hist_nozero_buggy: shared bins counted with atomicAdd but never zeroed:
//   the atomics read bytes nothing wrote (an uninitialized read).
// Launch: -g 1 -b 128, in = s32[128] (iota), hist = s32[32].
extern "C" __global__ void hist_nozero_buggy(const int *in, int *hist) {
  __shared__ int bins[32];
  const int t = threadIdx.x;
  atomicAdd(&bins[in[t] % 32], 1);
  __syncthreads();
  if (t < 32)
    hist[t] = bins[t];
}

// local_partial_init_buggy: a per-thread array (local memory: indexed by
//   a run-time value) filled up to n = 5 of its 8 elements, then summed
//   whole.
// Launch: -g 1 -b 32, in = s32[32] (iota), out = s32[32], n = 5.
extern "C" __global__ void local_partial_init_buggy(const int *in, int *out,
                                                    int n) {
  int a[8];
  const int t = threadIdx.x;
#pragma unroll 1
  for (int i = 0; i < n; ++i)
    a[i] = in[(t + i) % 32];
  int sum = 0;
#pragma unroll 1
  for (int i = 0; i < 8; ++i)
    sum += a[(i + t) % 8];
  out[t] = sum;
}

// pipeline_thread_fixed: each thread copies its element into shared memory
//   with cuda::memcpy_async through its own cuda::pipeline (thread scope),
//   waits for it, then __syncthreads() before reading its neighbour's
//   element (clean).
// pipeline_thread_buggy: no __syncthreads(): the thread's own wait covers
//   its own copy only; the neighbour's copy races with the read.
// Launch: -g 1 -b 128, in = s32[128] (iota), out = s32[128].
#include <cuda/pipeline>
template <bool SYNC>
__device__ void pipeline_thread(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  pipe.producer_acquire();
  cuda::memcpy_async(&s[t], &in[t], sizeof(int), pipe);
  pipe.producer_commit();
  pipe.consumer_wait();
  if (SYNC)
    __syncthreads();
  out[t] = s[t ^ 1] + s[t];
  pipe.consumer_release();
}

extern "C" __global__ void pipeline_thread_fixed(const int *in, int *out) {
  pipeline_thread<true>(in, out);
}

extern "C" __global__ void pipeline_thread_buggy(const int *in, int *out) {
  pipeline_thread<false>(in, out); // BUG: no barrier after the waits
}

// warp_acquire_fixed: thread 0 of CTA 0 stores 32 values and releases a
//   flag (st.release.gpu); in CTA 1, lane 0 spins with ld.acquire.gpu,
//   then __syncwarp() passes what it acquired to the other lanes, which
//   read the values (clean).
// warp_acquire_buggy: no __syncwarp(): lanes 1-31 read the values with
//   nothing ordering the stores before their loads.
// Launch: -g 2 -b 32, data = s32[32], flag = s32[1], out = s32[32].
template <bool SYNCWARP>
__device__ void warp_acquire(int *data, int *flag, int *out) {
  const int l = threadIdx.x;
  if (blockIdx.x == 0) {
    if (l == 0) {
#pragma unroll 1
      for (int i = 0; i < 32; ++i)
        data[i] = 10 * i;
      asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(flag), "r"(1)
                   : "memory");
    }
    return;
  }
  if (l == 0) {
    int f = 0;
#pragma unroll 1
    do {
      asm volatile("ld.acquire.gpu.global.s32 %0, [%1];"
                   : "=r"(f)
                   : "l"(flag)
                   : "memory");
    } while (f == 0);
  }
  if (SYNCWARP)
    __syncwarp();
  out[l] = data[(l + 1) % 32];
}

extern "C" __global__ void warp_acquire_fixed(int *data, int *flag,
                                              int *out) {
  warp_acquire<true>(data, flag, out);
}

extern "C" __global__ void warp_acquire_buggy(int *data, int *flag,
                                              int *out) {
  warp_acquire<false>(data, flag, out); // BUG: lanes 1-31 acquire nothing
}
