// Kernels that tests/exec/driver_api.cpp loads from their PTX file with
// cuModuleLoad (driver_api_kernels.ptx, from regen-ptx.sh).

// Launches of scale_add so far: read back with cuModuleGetGlobal.
__device__ int calls;
// Added to every result: set through its address (cuModuleGetGlobal).
__constant__ float bias;

extern "C" __global__ void scale_add(float a, const float *x, float b, float *y,
                                     int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + b + bias;
  if (i == 0)
    atomicAdd(&calls, 1);
}

// One sum per CTA: a shared-memory tree (256 threads).
extern "C" __global__ void block_sum(const int *in, int *out, int n) {
  __shared__ int s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = blockDim.x / 2; d > 0; d /= 2) {
    if (threadIdx.x < d)
      s[threadIdx.x] += s[threadIdx.x + d];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = s[0];
}
