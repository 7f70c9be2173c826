// flags: message passing between two CTAs through a flag in global memory.
// Thread 0 of CTA 0 (the producer) stores data[0] and then sets the flag;
// thread 0 of CTA 1 (the consumer) spins until it sees the flag and reads
// data[0]. Whether the data store is ordered before the data load depends
// only on how the flag is written and read (PTX memory model):
//   flag_release_acquire: st.release.gpu / ld.acquire.gpu (cuda::atomic_ref
//     with thread_scope_device): release/acquire synchronization (clean).
//   flag_fence_relaxed: __threadfence() (fence.sc.gpu) then a relaxed .gpu
//     store of the flag; relaxed .gpu loads of the flag then
//     __threadfence(). The flag accesses are morally strong and the fences
//     are .gpu-scoped, so the fences synchronize (a release pattern and an
//     acquire pattern): clean, although the flag itself is relaxed.
//   flag_relaxed_buggy: relaxed flag store and load without fences: the
//     flag accesses do not race (morally strong), but nothing orders the
//     data store before the data load (data race on data[0]).
//   flag_plain_buggy: a plain store of the flag, read by a volatile spin
//     loop: a plain access is not morally strong with anything, so the
//     flag races too (two races: data[0] and flag[0]).
//   flag_cta_release_buggy: the producer releases with .cta scope
//     (atomic_ref with thread_scope_block: st.release.cta), the consumer
//     acquires with .gpu scope. The release's scope does not include the
//     consumer's thread (another CTA): the two flag accesses are not morally
//     strong (they race) and do not synchronize (data[0] races too). With
//     .gpu scope (flag_release_acquire) the same code is clean.
//   flag_fence_block_buggy: like flag_fence_relaxed but with
//     __threadfence_block() (.cta-scoped fences) on both sides: fences
//     synchronize only when morally strong, and a .cta fence does not
//     include a thread of another CTA, so data[0] races (the relaxed .gpu
//     flag accesses themselves do not).
// Launch: -g 2 -b 32; data = s32[1], flag = s32[1], out = s32[1].
// Fixed result (clean kernels): out[0] = 42, data[0] = 42, flag[0] = 1.
#include <cuda/atomic>

using device_flag = cuda::atomic_ref<int, cuda::thread_scope_device>;
using block_flag = cuda::atomic_ref<int, cuda::thread_scope_block>;

extern "C" __global__ void flag_release_acquire(int *data, int *flag,
                                                int *out) {
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == 0) {
    data[0] = 42;
    device_flag(*flag).store(1, cuda::memory_order_release);
  } else {
    while (device_flag(*flag).load(cuda::memory_order_acquire) == 0) {
    }
    out[0] = data[0];
  }
}

extern "C" __global__ void flag_fence_relaxed(int *data, int *flag, int *out) {
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == 0) {
    data[0] = 42;
    __threadfence();
    device_flag(*flag).store(1, cuda::memory_order_relaxed);
  } else {
    while (device_flag(*flag).load(cuda::memory_order_relaxed) == 0) {
    }
    __threadfence();
    out[0] = data[0];
  }
}

extern "C" __global__ void flag_relaxed_buggy(int *data, int *flag, int *out) {
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == 0) {
    data[0] = 42;
    device_flag(*flag).store(1, cuda::memory_order_relaxed);
  } else {
    while (device_flag(*flag).load(cuda::memory_order_relaxed) == 0) {
    }
    out[0] = data[0];
  }
}

extern "C" __global__ void flag_plain_buggy(int *data, int *flag, int *out) {
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == 0) {
    data[0] = 42;
    flag[0] = 1;
  } else {
    while (*static_cast<volatile int *>(flag) == 0) {
    }
    out[0] = data[0];
  }
}

extern "C" __global__ void flag_cta_release_buggy(int *data, int *flag,
                                                  int *out) {
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == 0) {
    data[0] = 42;
    block_flag(*flag).store(1, cuda::memory_order_release);
  } else {
    while (device_flag(*flag).load(cuda::memory_order_acquire) == 0) {
    }
    out[0] = data[0];
  }
}

extern "C" __global__ void flag_fence_block_buggy(int *data, int *flag,
                                                  int *out) {
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == 0) {
    data[0] = 42;
    __threadfence_block();
    device_flag(*flag).store(1, cuda::memory_order_relaxed);
  } else {
    while (device_flag(*flag).load(cuda::memory_order_relaxed) == 0) {
    }
    __threadfence_block();
    out[0] = data[0];
  }
}
