// warp_scan: an inclusive prefix sum over each warp (Hillis-Steele), the
// warp-synchronous idiom that independent thread scheduling (sm_70+)
// broke: the lanes of a warp are independent threads.
//   warp_scan_buggy: the scan in place in shared memory with no __syncwarp:
//     a[t] = in[t]; for k: if (lane >= k) a[t] = a[t - k] + a[t];
//     Lane t's load of a[t - k] races with lane t - k's store of a[t - k]
//     (in the same step, and with the store of the step before), and with
//     lane t - k's first store a[t] = in[t]. Both pairs are within a warp:
//     intra-warp races (they need __syncwarp), never across warps.
//   warp_scan_syncwarp: load a[t - k], __syncwarp(), store, __syncwarp()
//     (clean).
//   warp_scan_shfl: __shfl_up_sync in registers, no memory (clean).
// `#pragma unroll 1` keeps one instruction per access.
// Launch: -g 1 -b 64; in = s32[64] (iota), out = s32[64].
// Fixed result: out[t] = sum of in[32 * (t / 32) .. t].
extern "C" __global__ void warp_scan_buggy(const int *in, int *out) {
  __shared__ int a[64];
  const int t = threadIdx.x;
  const int lane = t % 32;
  a[t] = in[t];
#pragma unroll 1
  for (int k = 1; k < 32; k *= 2)
    if (lane >= k)
      a[t] = a[t - k] + a[t];
  out[t] = a[t];
}

extern "C" __global__ void warp_scan_syncwarp(const int *in, int *out) {
  __shared__ int a[64];
  const int t = threadIdx.x;
  const int lane = t % 32;
  a[t] = in[t];
  __syncwarp();
#pragma unroll 1
  for (int k = 1; k < 32; k *= 2) {
    const int v = lane >= k ? a[t - k] : 0;
    __syncwarp();
    a[t] += v;
    __syncwarp();
  }
  out[t] = a[t];
}

extern "C" __global__ void warp_scan_shfl(const int *in, int *out) {
  const int t = threadIdx.x;
  const int lane = t % 32;
  int v = in[t];
  for (int k = 1; k < 32; k *= 2) {
    const int n = __shfl_up_sync(0xffffffffu, v, k);
    if (lane >= k)
      v += n;
  }
  out[t] = v;
}
