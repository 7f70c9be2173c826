// syncwarp_partial: __syncwarp (bar.warp.sync) with partial member masks in
// divergent code: the low and high half-warps each synchronize among
// themselves and exchange data, the odd lanes then synchronize with mask
// 0xaaaaaaaa, and finally the whole warp with 0xffffffff. bar.warp.sync
// orders memory among the listed lanes.
// s[tid] = tid * 3 (low half) or -tid (high half);
// out[tid * 3] = value of the lane 5 (low) / 3 (high) further on in the
//                same half; out[tid * 3 + 1] = odd lanes: value from lane ^ 2
//                after they rewrote it (+1000), even lanes 0;
// out[tid * 3 + 2] = s[tid ^ 16] after the full-warp sync.
extern "C" __global__ void syncwarp_partial(int *out) {
  __shared__ int s[128];
  const int tid = threadIdx.x, lane = tid % 32, base = tid - lane;
  int a, b = 0;
  if (lane < 16) {
    s[tid] = tid * 3;
    __syncwarp(0x0000ffffu);
    a = s[base + (lane + 5) % 16];
  } else {
    s[tid] = -tid;
    __syncwarp(0xffff0000u);
    a = s[base + 16 + (lane - 16 + 3) % 16];
  }
  __syncwarp();
  if (lane & 1) {
    s[tid] += 1000;
    __syncwarp(0xaaaaaaaau);
    b = s[tid ^ 2];
  }
  __syncwarp();
  out[tid * 3] = a;
  out[tid * 3 + 1] = b;
  out[tid * 3 + 2] = s[tid ^ 16];
}
