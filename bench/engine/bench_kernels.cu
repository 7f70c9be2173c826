// Benchmark kernels for bench/engine (compiled with
// nvcc -ptx -arch=sm_80 bench_kernels.cu -o bench_kernels.ptx).
// compute: per thread, `iters` iterations of a dependent FMA chain
// (compute-bound). stream: out[i] = a * x[i] + y[i] over a grid-stride loop
// (memory-bound). matmul, copy: see below.
__global__ void compute(float *out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = (float)threadIdx.x * 1e-3f, b = 0.999f, c = 0.25f;
  for (int k = 0; k < iters; ++k) {
    a = a * b + c;
    c = c * b - a * 1e-3f;
  }
  out[i] = a + c;
}

__global__ void stream(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

// matmul: C = A * B (n x n floats, n a multiple of 16) with 16x16
// shared-memory tiles and __syncthreads (one CTA per output tile).
extern "C" __global__ void matmul(const float *A, const float *B, float *C,
                                  int n) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += 16) {
    As[ty][tx] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k)
      acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

// copy: y[i] = x[i] over a grid-stride loop.
extern "C" __global__ void copy(int n, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i];
}
