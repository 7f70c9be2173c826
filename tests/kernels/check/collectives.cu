// collectives: block-wide reductions and warp collectives.
//   block_reduce_fixed: shuffle reduction per warp, the warp sums in shared
//     memory, a barrier, the first warp reduces them (clean).
//   all_write_result: the same result stored to out[blockIdx.x] by every
//     thread of the block (one value: a benign race, a warning).
//   ticket_acqrel_fixed: the last-block reduction with a
//     cuda::atomic_ref::fetch_add(acq_rel) ticket instead of fences: each
//     CTA's thread 0 stores its partial sum, then takes a ticket (release);
//     the CTA that takes the last ticket (acquire: the release sequence of
//     the RMWs carries every earlier CTA's partial), then a barrier, reads
//     all partial sums (clean).
//   split_syncwarp_buggy: lanes 0-15 store and execute __syncwarp(0xffff),
//     lanes 16-31 execute __syncwarp(0xffff0000) and load what lanes 0-15
//     stored: two disjoint masks order nothing between the halves.
//   or_diverged_buggy: __syncthreads_or() inside `if (t < 64)`: warps 2-3
//     never reach it (barrier divergence).
// Launch: -g 4 -b 128; in = s32[512] (iota).
// arch: sm_90
#include <cuda/atomic>

extern "C" __global__ void block_reduce_fixed(const int *in, int *out) {
  __shared__ int warp_sums[32];
  const int t = threadIdx.x;
  int v = in[blockIdx.x * blockDim.x + t];
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  if (t % 32 == 0)
    warp_sums[t / 32] = v;
  __syncthreads();
  if (t < 32) {
    v = t < blockDim.x / 32 ? warp_sums[t] : 0;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
      v += __shfl_down_sync(0xffffffffu, v, o);
    if (t == 0)
      out[blockIdx.x] = v;
  }
}

extern "C" __global__ void all_write_result(const int *in, int *out) {
  __shared__ int total;
  const int t = threadIdx.x;
  if (t == 0)
    total = 0;
  __syncthreads();
  atomicAdd(&total, in[blockIdx.x * blockDim.x + t]);
  __syncthreads();
  out[blockIdx.x] = total;
}

extern "C" __global__ void ticket_acqrel_fixed(const int *in, int *partial,
                                               unsigned *ticket, int *out) {
  __shared__ int total;
  __shared__ bool last;
  const int t = threadIdx.x;
  if (t == 0)
    total = 0;
  __syncthreads();
  atomicAdd(&total, in[blockIdx.x * blockDim.x + t]);
  __syncthreads();
  if (t == 0) {
    partial[blockIdx.x] = total;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> tk(*ticket);
    last = tk.fetch_add(1, cuda::memory_order_acq_rel) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && t < gridDim.x)
    out[t] = partial[t];
}

extern "C" __global__ void split_syncwarp_buggy(const int *in, int *out) {
  __shared__ int s[16];
  const int t = threadIdx.x;
  if (t < 16) {
    s[t] = in[t] * 2;
    __syncwarp(0x0000ffffu);
  } else {
    __syncwarp(0xffff0000u);
    out[t] = s[t - 16];
  }
}

extern "C" __global__ void or_diverged_buggy(const int *in, int *out) {
  const int t = threadIdx.x;
  int r = 0;
  if (t < 64)
    r = __syncthreads_or(in[t] > 5);
  out[t] = r;
}
