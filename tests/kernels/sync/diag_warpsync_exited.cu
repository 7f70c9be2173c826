// diag_warpsync_exited (expect-fail: exited): lanes 16-31 return; lanes 0-15
// then execute __syncwarp() (bar.warp.sync 0xffffffff), which lists the
// exited lanes: they can never arrive, a deadlock.
extern "C" __global__ void diag_warpsync_exited(int *out) {
  const unsigned lane = threadIdx.x % 32;
  if (lane >= 16)
    return;
  out[threadIdx.x] = 1;
  __syncwarp();
  out[threadIdx.x] = 2;
}
