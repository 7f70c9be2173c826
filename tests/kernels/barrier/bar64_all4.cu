// bar64_all4: all 4 warps of a 128-thread CTA execute `bar.sync 1, 64`.
// PTX: a barrier with a thread count completes when that many threads
// (2 warps) have arrived, and later arrivals belong to the next phase; so
// the 4 warps pass in two phases of two warps, whatever their order.
// Each warp's lane 0 counts its arrival (atomicAdd on shared) before the
// barrier; after it, it reads the count (>= 2: its phase needed two
// arrivals, and the barrier orders those increments) and counts its pass.
// out = { passes (4), arrivals (4), then per warp: seen >= 2 (1) }.
extern "C" __global__ void bar64_all4(int *out) {
  __shared__ int arrived, passed;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  if (tid == 0) {
    arrived = 0;
    passed = 0;
  }
  __syncthreads();
  if (lane == 0)
    atomicAdd(&arrived, 1);
  asm volatile("bar.sync 1, 64;" ::: "memory");
  if (lane == 0) {
    const int seen = atomicAdd(&arrived, 0);
    out[2 + warp] = seen >= 2;
    atomicAdd(&passed, 1);
  }
  __syncthreads();
  if (tid == 0) {
    out[0] = passed;
    out[1] = arrived;
  }
}
