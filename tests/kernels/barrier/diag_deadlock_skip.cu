// diag_deadlock_skip (expect-fail: deadlock): warps 0-2 wait at
// `bar.sync 1, 128` for 128 threads, but warp 3 skips it and waits at
// __syncthreads (barrier 0) instead, which in turn needs warps 0-2. Neither
// barrier can complete: the engine must report a deadlock (which warps wait
// on which barrier, arrived / expected counts) and exit non-zero.
extern "C" __global__ void diag_deadlock_skip(int *out) {
  const int warp = threadIdx.x / 32;
  if (warp != 3)
    asm volatile("bar.sync 1, 128;" ::: "memory");
  __syncthreads();
  out[threadIdx.x] = warp;
}
