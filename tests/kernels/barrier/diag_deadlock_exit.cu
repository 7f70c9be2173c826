// diag_deadlock_exit (expect-fail: deadlock): warp 3 exits, warps 0-2 wait
// at `bar.sync 1, 128`. Exited threads only shrink a barrier that has no
// thread count (all threads of the CTA); with an explicit count of 128 the
// 96 live threads can never complete it, so this is a deadlock.
extern "C" __global__ void diag_deadlock_exit(int *out) {
  const int warp = threadIdx.x / 32;
  if (warp == 3)
    return;
  asm volatile("bar.sync 1, 128;" ::: "memory");
  out[threadIdx.x] = warp;
}
