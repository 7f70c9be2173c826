// arch: sm_90
// syncwarp_diverged: __syncwarp() and __shfl_xor_sync() at different places
// in divergent code. With independent thread scheduling (sm_70+) the lanes
// of a mask may meet at different bar.warp.sync / shfl.sync instructions:
// the low half-warp synchronizes at the __syncwarp() of the `if` branch, the
// high half at the one of the `else` branch, and they synchronize with each
// other; the same holds for the two shuffles. bar.warp.sync orders memory
// among the lanes of the mask, so each half reads what the other half stored
// before its own __syncwarp().
//   low lanes (lane < 16):  s[tid] = tid * 7, then
//     out[tid * 3]     = s[base + 31 - lane]  (the high lane's -tid' - 5)
//     out[tid * 3 + 1] = shfl_xor 16 of (tid * 7 + 1)  (the high lane's -tid')
//   high lanes:             s[tid] = -tid - 5, then
//     out[tid * 3]     = s[base + 31 - lane] * 2  (the low lane's value * 2)
//     out[tid * 3 + 1] = shfl_xor 16 of (-tid)    (the low lane's tid * 7 + 1)
//   out[tid * 3 + 2] = s[tid ^ 1] after a full-warp __syncwarp() outside.
extern "C" __global__ void syncwarp_diverged(int *out) {
  __shared__ int s[128];
  const int tid = threadIdx.x, lane = tid % 32, base = tid - lane;
  int a, b;
  if (lane < 16) {
    s[tid] = tid * 7;
    __syncwarp();
    a = s[base + 31 - lane];
    b = __shfl_xor_sync(0xffffffffu, tid * 7 + 1, 16);
  } else {
    s[tid] = -tid - 5;
    __syncwarp();
    a = s[base + 31 - lane] * 2;
    b = __shfl_xor_sync(0xffffffffu, -tid, 16);
  }
  __syncwarp();
  out[tid * 3] = a;
  out[tid * 3 + 1] = b;
  out[tid * 3 + 2] = s[tid ^ 1];
}
