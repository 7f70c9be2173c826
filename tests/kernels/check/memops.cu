// memops: atomics, fences and flags, vector and byte accesses, uninitialized
// shared memory.
//   hist_plain_buggy: a shared histogram incremented with hist[b]++ (load
//     and store): warps that hit the same bin race (bin = t % 32, so the
//     lanes of one warp hit different bins).
//   hist_atomic_fixed: atomicAdd on the shared bins, a barrier, atomicAdd
//     into the global histogram (atomics only: clean).
//   lock_fixed: thread 0 of every CTA takes a spin lock (atomicCAS +
//     __threadfence()), increments a plain counter, releases it
//     (__threadfence() + atomicExch): fence + relaxed atomic on both sides
//     are an acquire and a release pattern (clean).
//   lock_nofence_buggy: the same lock without the fences: the relaxed
//     atomics order nothing, the counter's load and store race across CTAs.
//   fence_noflag_buggy: CTA 0 stores data and executes __threadfence(); CTA
//     1 loads it: a fence without a flag the reader observes (and an
//     acquire on the reader's side) synchronizes with nothing.
//   fence_both_buggy: the same with __threadfence() on both sides and still
//     no flag: the fences are ordered only by which runs first (their
//     per-scope total order), which no flag lets the reader rely on.
//   acqrel_flag_fixed: CTA 0 stores data, then a release store of a
//     cuda::atomic_ref flag; CTA 1 spins on an acquire load (clean).
//   relaxed_reader_buggy: the writer releases, the reader spins with a
//     relaxed load and no fence: the data load is not ordered.
//   warp_flag_fixed: in one CTA, warp 0 writes shared data, __syncwarp()
//     (the lanes' stores before lane 0's), then lane 0 executes
//     __threadfence_block() and sets a volatile flag; warp 1 spins on the
//     volatile flag, then __threadfence_block() and reads (fence + volatile
//     are release and acquire patterns at .cta scope: clean).
//   vec_overlap_buggy: warp 0 stores float4 v[t] (floats 4t..4t+3), warp 1
//     stores the float 4u+3 (the last float of u's vector): partial
//     overlap, different values.
//   vec_fixed: warp 1 stores into the second half of the buffer (clean).
//   bytes_fixed: thread t stores byte (t % 32) * 4 + t / 32: the four bytes
//     of each word come from the four warps (different bytes: clean).
//   short_char_buggy: warp 0 stores shorts at bytes 2u, 2u + 1; warp 1
//     stores the char at byte 2u + 1 (one byte shared).
//   benign_bool_buggy: lane 0 of every warp sets a shared bool to true
//     (same value: a benign race, a warning).
//   halo_uninit_buggy: a 3-point stencil whose tile has a left halo but no
//     right one: the last thread reads s[t + 2], which nothing wrote.
//   halo_fixed: the last thread also loads the right halo (clean).
// arch: sm_90
#include <cuda/atomic>

extern "C" __global__ void hist_plain_buggy(const int *in, int *out) {
  __shared__ int hist[32];
  const int t = threadIdx.x;
  if (t < 32)
    hist[t] = 0;
  __syncthreads();
  hist[t % 32]++;
  __syncthreads();
  if (t < 32)
    out[t] = hist[t];
}

extern "C" __global__ void hist_atomic_fixed(const int *in, int *out) {
  __shared__ int hist[32];
  const int t = threadIdx.x;
  if (t < 32)
    hist[t] = 0;
  __syncthreads();
  atomicAdd(&hist[in[blockIdx.x * blockDim.x + t] % 32], 1);
  __syncthreads();
  if (t < 32)
    atomicAdd(&out[t], hist[t]);
}

extern "C" __global__ void lock_fixed(int *lock, int *counter) {
  if (threadIdx.x == 0) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    *counter = *counter + 1;
    __threadfence();
    atomicExch(lock, 0);
  }
}

extern "C" __global__ void lock_nofence_buggy(int *lock, int *counter) {
  if (threadIdx.x == 0) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    *counter = *counter + 1;
    atomicExch(lock, 0);
  }
}

extern "C" __global__ void fence_noflag_buggy(int *data, int *out) {
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == 0) {
    data[0] = 42;
    __threadfence();
  } else {
    out[0] = data[0];
  }
}

extern "C" __global__ void acqrel_flag_fixed(int *data, int *flag, int *out) {
  if (threadIdx.x != 0)
    return;
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  if (blockIdx.x == 0) {
    data[0] = 42;
    f.store(1, cuda::memory_order_release);
  } else {
    while (f.load(cuda::memory_order_acquire) == 0) {
    }
    out[0] = data[0];
  }
}

extern "C" __global__ void relaxed_reader_buggy(int *data, int *flag,
                                                int *out) {
  if (threadIdx.x != 0)
    return;
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  if (blockIdx.x == 0) {
    data[0] = 42;
    f.store(1, cuda::memory_order_release);
  } else {
    while (f.load(cuda::memory_order_relaxed) == 0) {
    }
    out[0] = data[0];
  }
}

extern "C" __global__ void warp_flag_fixed(const int *in, int *out) {
  __shared__ int data[32];
  __shared__ volatile int flag;
  const int t = threadIdx.x;
  if (t == 0)
    flag = 0;
  __syncthreads();
  if (t < 32) {
    data[t] = in[t] * 5;
    __syncwarp();
    if (t == 0) {
      __threadfence_block();
      flag = 1;
    }
  } else if (t < 64) {
    while (flag == 0) {
    }
    __threadfence_block();
    out[t - 32] = data[t - 32];
  }
}

extern "C" __global__ void vec_overlap_buggy(float *buf) {
  const int t = threadIdx.x;
  if (t < 32) {
    reinterpret_cast<float4 *>(buf)[t] = make_float4(t, t, t, t);
  } else {
    buf[4 * (t - 32) + 3] = -1.0f;
  }
}

extern "C" __global__ void vec_fixed(float *buf) {
  const int t = threadIdx.x;
  if (t < 32) {
    reinterpret_cast<float4 *>(buf)[t] = make_float4(t, t, t, t);
  } else {
    buf[128 + 4 * (t - 32) + 3] = -1.0f;
  }
}

extern "C" __global__ void bytes_fixed(unsigned char *out) {
  const int t = threadIdx.x;
  out[(t % 32) * 4 + t / 32] = static_cast<unsigned char>(t);
}

extern "C" __global__ void short_char_buggy(unsigned char *out) {
  const int t = threadIdx.x;
  if (t < 32)
    reinterpret_cast<unsigned short *>(out)[t] = 0x0101 * t;
  else
    out[2 * (t - 32) + 1] = 0xff;
}

extern "C" __global__ void benign_bool_buggy(const int *in, int *out) {
  __shared__ bool seen;
  const int t = threadIdx.x;
  if (t == 0)
    seen = false;
  __syncthreads();
  if (t % 32 == 0 && in[t] >= 0)
    seen = true;
  __syncthreads();
  out[t] = seen;
}

extern "C" __global__ void halo_uninit_buggy(const int *in, int *out) {
  __shared__ int s[130];
  const int t = threadIdx.x;
  s[t + 1] = in[t];
  if (t == 0)
    s[0] = 0;
  __syncthreads();
  out[t] = s[t] + s[t + 1] + s[t + 2];
}

extern "C" __global__ void halo_fixed(const int *in, int *out) {
  __shared__ int s[130];
  const int t = threadIdx.x;
  s[t + 1] = in[t];
  if (t == 0)
    s[0] = 0;
  if (t == blockDim.x - 1)
    s[t + 2] = 0;
  __syncthreads();
  out[t] = s[t] + s[t + 1] + s[t + 2];
}

extern "C" __global__ void fence_both_buggy(int *data, int *out) {
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == 0) {
    data[0] = 42;
    __threadfence();
  } else {
    __threadfence();
    out[0] = data[0];
  }
}
