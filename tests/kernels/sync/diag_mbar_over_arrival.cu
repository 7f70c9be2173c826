// diag_mbar_over_arrival (expect-fail: over-arrival): an mbarrier expects 32
// arrivals per phase; the warp's 32 arrivals complete phase 0, then thread 0
// arrives with count 40 on phase 1, which has only 32 arrivals pending. PTX:
// the arrival count must not exceed the pending count ("arrival with
// nothing pending (over-arrival)" is a diagnosed misuse).
//
// arch: sm_90
extern "C" __global__ void diag_mbar_over_arrival(int *out) {
  __shared__ alignas(8) unsigned long long mbar;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared.b64 [%0], 32;" ::"r"(bar) : "memory");
  __syncthreads();
  asm volatile(
      "{ .reg .b64 st; mbarrier.arrive.shared.b64 st, [%0]; }" ::"r"(bar)
      : "memory");
  if (threadIdx.x == 0)
    asm volatile(
        "{ .reg .b64 st; mbarrier.arrive.shared.b64 st, [%0], 40; }" ::"r"(bar)
        : "memory");
  out[threadIdx.x] = 1;
}
