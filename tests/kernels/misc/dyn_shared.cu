// dyn_shared: dynamic shared memory (extern __shared__, sized at launch with
// --shared-bytes) next to a static __shared__ array. Each CTA fills both,
// synchronizes, and reads other threads' entries.
// dyn[tid] = tid * tid + ctaid, dyn[n + tid] = 3 * tid; stat[tid % 8]
// written by threads < 8. out[gid] = dyn[(tid + 1) % n] + dyn[n + n - 1 - tid]
//                                     + stat[tid % 8]
extern __shared__ int dyn[];

extern "C" __global__ void dyn_shared(int *out) {
  __shared__ int stat[8];
  const int tid = threadIdx.x, n = blockDim.x;
  dyn[tid] = tid * tid + blockIdx.x;
  dyn[n + tid] = 3 * tid;
  if (tid < 8)
    stat[tid] = 1000 * (tid + 1);
  __syncthreads();
  out[blockIdx.x * n + tid] =
      dyn[(tid + 1) % n] + dyn[n + n - 1 - tid] + stat[tid % 8];
}
