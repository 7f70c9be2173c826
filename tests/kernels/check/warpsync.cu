// warpsync: warp-synchronous code on sm_70+, where the lanes of a warp are
// independent threads.
//   warp_reduce_buggy: the last-warp step of a reduction without
//     __syncwarp(): lane t reads s[t + o] while lane t + o updates it.
//   warp_reduce_syncwarp: load, __syncwarp(), add, __syncwarp() (clean).
//   warp_reduce_volatile: the legacy form on a volatile pointer without
//     __syncwarp() (volatile accesses are relaxed .sys strong accesses).
//   lanes_exchange_buggy: every lane writes its own element and reads its
//     neighbour's with no __syncwarp() between (lanes of one warp).
//   lanes_exchange_fixed: __syncwarp() between (clean).
//   shfl_partial_buggy: __shfl_sync with a full mask executed by the lower
//     half of the warp only (the mask names lanes that do not execute it;
//     they exit, and the lower half reads their values: undefined).
//   shfl_fixed: every lane executes the shuffle (clean).
//   shfl_outside_mask_buggy: the lower half shuffles with its own mask
//     (0xffff) but reads lanes 16-31, outside the mask: undefined values.
// Launch: -g 1 -b 64; in = s32[64] (iota), out = s32[64].
// arch: sm_90

extern "C" __global__ void warp_reduce_buggy(const int *in, int *out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  if (t < 32) {
#pragma unroll 1
    for (int o = 16; o > 0; o >>= 1)
      s[t] += s[t + o];
  }
  if (t == 0)
    out[0] = s[0];
}

extern "C" __global__ void warp_reduce_syncwarp(const int *in, int *out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  if (t < 32) {
    s[t] += s[t + 32];
    __syncwarp();
#pragma unroll 1
    for (int o = 16; o > 0; o >>= 1) {
      const int v = s[t + o];
      __syncwarp();
      s[t] += v;
      __syncwarp();
    }
  }
  if (t == 0)
    out[0] = s[0];
}

extern "C" __global__ void warp_reduce_volatile(const int *in, int *out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  if (t < 32) {
    volatile int *vs = s;
#pragma unroll 1
    for (int o = 16; o > 0; o >>= 1)
      vs[t] += vs[t + o];
  }
  if (t == 0)
    out[0] = s[0];
}

extern "C" __global__ void lanes_exchange_buggy(const int *in, int *out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = in[t] * 3;
  const int lane = t % 32;
  out[t] = s[(t - lane) + (lane + 1) % 32];
}

extern "C" __global__ void lanes_exchange_fixed(const int *in, int *out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = in[t] * 3;
  __syncwarp();
  const int lane = t % 32;
  out[t] = s[(t - lane) + (lane + 1) % 32];
}

extern "C" __global__ void shfl_partial_buggy(const int *in, int *out) {
  const int t = threadIdx.x;
  int v = in[t];
  if (t % 32 < 16)
    v += __shfl_sync(0xffffffffu, v, (t + 16) % 32);
  out[t] = v;
}

extern "C" __global__ void shfl_fixed(const int *in, int *out) {
  const int t = threadIdx.x;
  int v = in[t];
  const int w = __shfl_sync(0xffffffffu, v, (t + 16) % 32);
  if (t % 32 < 16)
    v += w;
  out[t] = v;
}

extern "C" __global__ void shfl_outside_mask_buggy(const int *in, int *out) {
  const int t = threadIdx.x;
  int v = in[t];
  if (t % 32 < 16)
    v += __shfl_sync(0x0000ffffu, v, (t + 16) % 32);
  out[t] = v;
}
