// Local arrays with dynamic indexing and non-inlined calls.
__device__ __noinline__ int pick(const int *a, int i) { return a[i & 15]; }
__device__ __noinline__ float scale(float v, float s) { return v * s + 1.0f; }

__global__ void locals(const int *idx, int *out, float *fout) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int a[16];
  for (int i = 0; i < 16; ++i)
    a[i] = t * i + idx[(t + i) % 64];
  int r = 0;
  for (int i = 0; i < 4; ++i)
    r += pick(a, idx[(t * 3 + i) % 64]);
  out[t] = r;
  fout[t] = scale((float)t, 0.5f);
}
