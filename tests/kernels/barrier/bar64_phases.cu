// bar64_phases: all 4 warps execute `bar.sync 1, 64`, and warps 2 and 3
// arrive only after warps 0 and 1 have passed it (they spin on a shared
// flag that warp 0 sets after the barrier). So phase 1 must complete with
// warps 0+1 alone (64 threads), and phase 2 with warps 2+3: a barrier that
// waited for more than its count would hang here. Within each phase the
// two warps exchange data written before the barrier.
// out[tid] = s[tid ^ 32] (the partner warp's value, tid * 3 + 7).
extern "C" __global__ void bar64_phases(int *out) {
  __shared__ int s[128];
  __shared__ volatile int flag;
  const int tid = threadIdx.x, warp = tid / 32;
  if (tid == 0)
    flag = 0;
  __syncthreads();
  if (warp >= 2)
    while (flag == 0) {
    }
  s[tid] = tid * 3 + 7;
  asm volatile("bar.sync 1, 64;" ::: "memory");
  out[tid] = s[tid ^ 32];
  if (tid == 0)
    flag = 1;
}
