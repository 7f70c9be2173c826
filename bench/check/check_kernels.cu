// Benchmark kernels for bench/check (nvcc -ptx -lineinfo -arch=sm_80
// check_kernels.cu -o check_kernels.ptx): the workloads whose checked
// runs are measured against plain runs (docs/performance.md "Checker").
// matmul: C = A * B (n x n floats) with 16x16 shared-memory tiles.
// reduce: per CTA, a shared-memory tree reduction of 256 values, then a
// warp-shuffle tail; out[blockIdx.x] = the CTA's sum.
#define TILE 16

extern "C" __global__ void matmul(const float *A, const float *B, float *C,
                                  int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    As[ty][tx] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

extern "C" __global__ void reduce(const int *in, int *out) {
  __shared__ int s[256];
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (int stride = 128; stride >= 32; stride /= 2) {
    if (t < stride)
      s[t] += s[t + stride];
    __syncthreads();
  }
  if (t < 32) {
    int v = s[t];
    for (int off = 16; off > 0; off /= 2)
      v += __shfl_down_sync(0xffffffffu, v, off);
    if (t == 0)
      out[blockIdx.x] = v;
  }
}
