// diag_warpsync_not_member (expect-fail: mask): lane 0 executes
// bar.warp.sync with a member mask that does not contain lane 0. PTX: the
// executing thread must be in membermask.
extern "C" __global__ void diag_warpsync_not_member(int *out, unsigned mask) {
  __syncwarp(mask);
  out[threadIdx.x] = 1;
}
