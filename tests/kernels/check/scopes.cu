// scopes: atomics, loads and fences whose scope is too narrow for the
// threads they are meant to order.
//   atomic_ref_block_buggy: every thread of two CTAs adds to one global
//     counter through cuda::atomic_ref<int, thread_scope_block>: the
//     atomics of different CTAs are not morally strong (a .cta scope does
//     not include the other CTA): a race.
//   atomic_ref_device_fixed: thread_scope_device (clean).
//   acquire_cta_buggy: thread 0 of CTA 0 stores data and sets a flag with
//     st.release.gpu; thread 0 of CTA 1 spins with ld.acquire.cta: the
//     acquire's scope does not include the writer, so the flag accesses
//     race (not morally strong) and the acquire orders nothing (the data
//     accesses race).
//   acquire_gpu_fixed: ld.acquire.gpu (clean).
//   last_block_fence_block_buggy: the "last block" reduction with
//     __threadfence_block() where __threadfence() is needed: the partial
//     sums of other CTAs are not ordered before the last CTA's reads.
//   last_block_gpu_fence_fixed: __threadfence() (clean).
// Launch: -g 2 -b 64. atomic_ref_*: counter = s32[1].
// acquire_*: -b 32, data = s32[1], flag = s32[1], out = s32[1].
// last_block_*: -g 4 -b 64, in = s32[256] (iota), partial = s32[4],
// count = u32[1], out = s32[1].
// arch: sm_90
#include <cuda/atomic>

extern "C" __global__ void atomic_ref_block_buggy(int *counter) {
  cuda::atomic_ref<int, cuda::thread_scope_block> c(*counter);
  c.fetch_add(1, cuda::memory_order_relaxed); // BUG: CTAs share it
}

extern "C" __global__ void atomic_ref_device_fixed(int *counter) {
  cuda::atomic_ref<int, cuda::thread_scope_device> c(*counter);
  c.fetch_add(1, cuda::memory_order_relaxed);
}

extern "C" __global__ void acquire_cta_buggy(int *data, int *flag,
                                             int *out) {
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == 0) {
    data[0] = 42;
    asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(flag), "r"(1)
                 : "memory");
  } else {
    int f = 0;
#pragma unroll 1
    do {
      asm volatile("ld.acquire.cta.global.s32 %0, [%1];" // BUG: .cta
                   : "=r"(f)
                   : "l"(flag)
                   : "memory");
    } while (f == 0);
    out[0] = data[0];
  }
}

extern "C" __global__ void acquire_gpu_fixed(int *data, int *flag, int *out) {
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == 0) {
    data[0] = 42;
    asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(flag), "r"(1)
                 : "memory");
  } else {
    int f = 0;
#pragma unroll 1
    do {
      asm volatile("ld.acquire.gpu.global.s32 %0, [%1];"
                   : "=r"(f)
                   : "l"(flag)
                   : "memory");
    } while (f == 0);
    out[0] = data[0];
  }
}

template <bool GPU_FENCE>
__device__ void last_block(const int *in, int *partial, unsigned *count,
                           int *out) {
  __shared__ int s[64];
  __shared__ bool last;
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  if (t == 0) {
    int sum = 0;
#pragma unroll 1
    for (int i = 0; i < 64; ++i)
      sum += s[i];
    partial[blockIdx.x] = sum;
    if (GPU_FENCE)
      __threadfence();
    else
      __threadfence_block(); // BUG: orders nothing for other CTAs
    last = atomicAdd(count, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && t == 0) {
    int total = 0;
#pragma unroll 1
    for (int b = 0; b < (int)gridDim.x; ++b)
      total += partial[b];
    out[0] = total;
  }
}

extern "C" __global__ void last_block_fence_block_buggy(const int *in,
                                                        int *partial,
                                                        unsigned *count,
                                                        int *out) {
  last_block<false>(in, partial, count, out);
}

extern "C" __global__ void last_block_gpu_fence_fixed(const int *in, int *partial,
                                            unsigned *count, int *out) {
  last_block<true>(in, partial, count, out);
}
