// Benchmark kernels for bench/engine (compiled with
// nvcc -ptx -arch=sm_80 bench_kernels.cu -o bench_kernels.ptx).
// compute: per thread, `iters` iterations of a dependent FMA chain
// (compute-bound). stream: out[i] = a * x[i] + y[i] over a grid-stride loop
// (memory-bound).
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
