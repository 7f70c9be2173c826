// diag_count_mismatch (expect-fail: count): warp 0 executes bar.sync 1, 64
// and warp 1 executes bar.sync 1, 96 on the same barrier (96-thread CTA;
// warp 2 does not take part). Whichever arrives second finds the barrier
// in flight with another thread count: warps that cooperate on a barrier
// must use the same count (a BCU run-time exception, UB in PTX).
extern "C" __global__ void diag_count_mismatch(int *out) {
  const int warp = threadIdx.x / 32;
  if (warp == 0)
    asm volatile("bar.sync 1, 64;" ::: "memory");
  else if (warp == 1)
    asm volatile("bar.sync 1, 96;" ::: "memory");
  out[threadIdx.x] = warp;
}
