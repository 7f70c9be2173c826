// cta_reduce: __syncthreads (bar.sync 0) used in a loop for a shared-memory
// tree reduction over a CTA of any size (not only powers of two or
// multiples of 32), plus a reversal through shared memory. Checks that
// barrier 0 with no count waits for every thread of the CTA (including a
// partial last warp) and orders shared-memory accesses, phase after phase.
// rev[gtid] = in[ctaid * n + n - 1 - tid]; sums[ctaid] = sum of the CTA's
// inputs.
extern "C" __global__ void cta_reduce(const int *in, int *rev, int *sums) {
  __shared__ int s[1024];
  const int tid = threadIdx.x, n = blockDim.x;
  const int gtid = blockIdx.x * n + tid;
  s[tid] = in[gtid];
  __syncthreads();
  rev[gtid] = s[n - 1 - tid];
  __syncthreads(); // every read above happens before the sums overwrite s
  for (int stride = 1; stride < n; stride *= 2) {
    if (tid % (2 * stride) == 0 && tid + stride < n)
      s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0)
    sums[blockIdx.x] = s[0];
}
