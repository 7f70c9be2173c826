// __syncthreads with static and dynamic shared memory; CTA sizes that are
// not multiples of 32; early exits of whole warps before the barrier.
__global__ void block_sum(const int *in, int *out, int n) {
  extern __shared__ int buf[];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? in[i] : 0;
  __syncthreads();
  if (t == 0) {
    int s = 0;
    for (int k = 0; k < blockDim.x; ++k)
      s += buf[k];
    out[blockIdx.x] = s;
  }
}

__global__ void reverse(int *data) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = data[blockIdx.x * blockDim.x + t];
  __syncthreads();
  data[blockIdx.x * blockDim.x + t] = s[blockDim.x - 1 - t];
}

__global__ void stencil_rounds(int *data, int rounds) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[t] = data[t];
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    int left = s[(t + blockDim.x - 1) % blockDim.x], right = s[(t + 1) % blockDim.x];
    __syncthreads();
    s[t] = left + right + (t % 3 == 0 ? 1 : 0);
    __syncthreads();
  }
  data[t] = s[t];
}
