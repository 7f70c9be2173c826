// diag_arrive_twice (expect-fail: arriv): warp 0 executes bar.arrive 1, 64
// and then bar.sync 1, 64 before barrier 1 has reset; warp 1 never uses
// barrier 1. PTX: care must be taken to keep a warp from executing more
// barrier instructions than intended (bar.arrive followed by any other
// bar instruction to the same barrier) prior to the reset of the barrier.
// The second arrival of the same warp must be reported, not counted as a
// second warp completing the barrier.
extern "C" __global__ void diag_arrive_twice(int *out) {
  const int warp = threadIdx.x / 32;
  if (warp == 0) {
    asm volatile("bar.arrive 1, 64;" ::: "memory");
    asm volatile("bar.sync 1, 64;" ::: "memory");
  }
  out[threadIdx.x] = warp;
}
