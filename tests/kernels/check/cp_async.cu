// cp_async: a double-buffered cp.async pipeline (the <cuda_pipeline.h>
// primitives: __pipeline_memcpy_async = cp.async, __pipeline_commit =
// cp.async.commit_group, __pipeline_wait_prior(N) = cp.async.wait_group N).
// Tile i (128 ints) goes to stage[i % 2]; thread t copies element t and
// reads element (t + 37) % 128, copied by a thread of another warp.
//   cp_async_fixed: before reading tile i a thread waits with
//     wait_prior(1) (every group but the newest, the prefetch of tile i+1,
//     is complete: its own copy of tile i has landed), then __syncthreads()
//     (every thread has waited for its copy), and __syncthreads() again
//     before the next iteration issues a copy into the stage just read.
//     cp.async writes are ordered for other threads only through the
//     issuing thread's wait followed by a barrier: clean.
//   cp_async_buggy: the wait sits below the load (moved there to overlap
//     the copy with the computation): when tile i is read, the last wait
//     (at the end of iteration i-1) left the newest group, tile i's,
//     pending, and the barrier before the load does not order asynchronous
//     copies. The load races with the copies that wrote the stage: the
//     first copy (tile 0, issued before the loop) and the copies issued in
//     the loop (two reports). The next copy into the same stage is issued
//     after a wait that covers the previous one, so the copies themselves
//     do not race (two cp.async of one thread are ordered only by a wait).
//   cp_async_src_buggy: a thread copies its input element to shared memory
//     and then clears the input (in place) before waiting for the copy: the
//     store races with the copy's read of its source (global memory).
//   cp_async_src_fixed: the input is cleared after the wait.
// `#pragma unroll 1` keeps one instruction per access.
// Launch: -g 1 -b 128.
//   cp_async_fixed/buggy: in = s32[512] (iota), out = s32[128], ntiles = 4.
//   cp_async_src_*: data = s32[128] (iota), out = s32[128].
// Fixed results: cp_async_fixed: out[t] = sum over i < ntiles of
//   (i + 1) * in[i * 128 + (t + 37) % 128]; cp_async_src_fixed:
//   out[t] = data_before[(t + 37) % 128] * 2, data = 0.
#include <cuda_pipeline.h>

extern "C" __global__ void cp_async_fixed(const int *in, int *out, int ntiles) {
  __shared__ alignas(16) int stage[2][128];
  const int t = threadIdx.x;
  int acc = 0;
  __pipeline_memcpy_async(&stage[0][t], &in[t], sizeof(int));
  __pipeline_commit();
#pragma unroll 1
  for (int i = 0; i < ntiles; ++i) {
    if (i + 1 < ntiles)
      __pipeline_memcpy_async(&stage[(i + 1) % 2][t], &in[(i + 1) * 128 + t],
                              sizeof(int));
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    acc += (i + 1) * stage[i % 2][(t + 37) % 128];
    __syncthreads();
  }
  out[t] = acc;
}

extern "C" __global__ void cp_async_buggy(const int *in, int *out, int ntiles) {
  __shared__ alignas(16) int stage[2][128];
  const int t = threadIdx.x;
  int acc = 0;
  __pipeline_memcpy_async(&stage[0][t], &in[t], sizeof(int));
  __pipeline_commit();
#pragma unroll 1
  for (int i = 0; i < ntiles; ++i) {
    if (i + 1 < ntiles)
      __pipeline_memcpy_async(&stage[(i + 1) % 2][t], &in[(i + 1) * 128 + t],
                              sizeof(int));
    __pipeline_commit();
    __syncthreads();
    acc += (i + 1) * stage[i % 2][(t + 37) % 128];
    __pipeline_wait_prior(1);
    __syncthreads();
  }
  out[t] = acc;
}

extern "C" __global__ void cp_async_src_buggy(int *data, int *out) {
  __shared__ alignas(16) int buf[128];
  const int t = threadIdx.x;
  __pipeline_memcpy_async(&buf[t], &data[t], sizeof(int));
  __pipeline_commit();
  data[t] = 0;
  __pipeline_wait_prior(0);
  __syncthreads();
  out[t] = 2 * buf[(t + 37) % 128];
}

extern "C" __global__ void cp_async_src_fixed(int *data, int *out) {
  __shared__ alignas(16) int buf[128];
  const int t = threadIdx.x;
  __pipeline_memcpy_async(&buf[t], &data[t], sizeof(int));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  data[t] = 0;
  __syncthreads();
  out[t] = 2 * buf[(t + 37) % 128];
}
