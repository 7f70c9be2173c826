// The checker's bundled example (make run, docs/checker.md): each CTA
// stages 256 values in shared memory and every thread adds up its
// neighbourhood. tile_sum_racy forgets the __syncthreads() between staging
// and reading, so a thread may read a slot before its owner wrote it (and
// runs fine on the default schedule, which is what makes such bugs hide);
// tile_sum is the fixed version.
// out[i] = in[i-1] + in[i] + in[i+1] within each CTA's tile (0 past ends).
#define N 256

__device__ int neighbourhood(const int *s, int t) {
  int left = t > 0 ? s[t - 1] : 0;
  int right = t < N - 1 ? s[t + 1] : 0;
  return left + s[t] + right;
}

extern "C" __global__ void tile_sum_racy(const int *in, int *out) {
  __shared__ int s[N];
  const int t = threadIdx.x, i = blockIdx.x * N + t;
  s[t] = in[i];
  out[i] = neighbourhood(s, t); // BUG: no barrier after staging
}

extern "C" __global__ void tile_sum(const int *in, int *out) {
  __shared__ int s[N];
  const int t = threadIdx.x, i = blockIdx.x * N + t;
  s[t] = in[i];
  __syncthreads();
  out[i] = neighbourhood(s, t);
}
