// cas: the compare-and-swap loop of the CUDA Programming Guide (atomicAdd
// for double, built from atomicCAS on the 64-bit word). Its first
// expected value comes from a plain load of the location, which other
// threads' atomics write meanwhile; the loop's atomicCAS checks that value,
// so the load only seeds the loop and is checked as a relaxed load of the
// CAS's scope (docs/checker.md "Decisions").
//   cas_loop_fixed: every thread adds its element to one double (clean).
//   cas_loop_reset_buggy: the same, then thread 0 of CTA 0 stores 1.0 to
//     the sum with a plain store after its CTA's barrier: CTA 1's seed loads
//     and atomics are not ordered with it.
// Launch: -g 2 -b 64; in = f64[128] (iota), sum = f64[1].
// Fixed result: sum = 8128.
// arch: sm_90

__device__ double add_double(double *address, double val) {
  unsigned long long *a = reinterpret_cast<unsigned long long *>(address);
  unsigned long long old = *a;
  unsigned long long assumed;
  do {
    assumed = old;
    old = atomicCAS(a, assumed,
                    __double_as_longlong(val + __longlong_as_double(assumed)));
  } while (assumed != old);
  return __longlong_as_double(old);
}

extern "C" __global__ void cas_loop_fixed(const double *in, double *sum) {
  add_double(sum, in[blockIdx.x * blockDim.x + threadIdx.x]);
}

extern "C" __global__ void cas_loop_reset_buggy(const double *in,
                                                double *sum) {
  add_double(sum, in[blockIdx.x * blockDim.x + threadIdx.x]);
  __syncthreads();
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *sum = 1.0;
}
