// diag_aligned_divergent (expect-fail: aligned): the two halves of each
// warp reach two different bar.sync 0 instructions (bar.sync means
// barrier.sync.aligned). PTX: an .aligned barrier in conditionally executed
// code may only be used if all threads evaluate the condition identically,
// otherwise the behaviour is undefined; the engine must report it.
extern "C" __global__ void diag_aligned_divergent(int *out) {
  const int lane = threadIdx.x % 32;
  if (lane < 16)
    asm volatile("bar.sync 0;" ::: "memory");
  else
    asm volatile("barrier.sync.aligned 0;" ::: "memory");
  out[threadIdx.x] = lane;
}
