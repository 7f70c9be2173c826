// Parser test input: assert, device malloc, recursion, virtual calls
// (indirect call prototypes), switch tables, textures, 2-D/3-D indexing,
// half precision, __launch_bounds__, __restrict__ and __ldg.
#include <cassert>
#include <cstdio>
#include <cuda_fp16.h>

struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual ~Shape() {}
};
struct Square : Shape {
  float s;
  __device__ Square(float x) : s(x) {}
  __device__ float area() const override { return s * s; }
};
struct Circle : Shape {
  float r;
  __device__ Circle(float x) : r(x) {}
  __device__ float area() const override { return 3.14159f * r * r; }
};

__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__global__ void virtual_calls(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  Shape *s;
  if (i & 1)
    s = new Square(in[i]);
  else
    s = new Circle(in[i]);
  out[i] = s->area() + fib(i & 7);
  delete s;
}

__global__ void asserts_and_switch(int *data, int n) {
  int i = threadIdx.x;
  assert(i < n);
  int v;
  switch (data[i] & 7) {
  case 0: v = 11; break;
  case 1: v = 23; break;
  case 2: v = 37; break;
  case 3: v = 41; break;
  case 4: v = 59; break;
  case 5: v = 61; break;
  case 6: v = 79; break;
  default: v = 83; break;
  }
  data[i] = v;
  if (v == 1000)
    __trap();
}

__global__ void __launch_bounds__(128) grid3d(float *__restrict__ out,
                                              const float *__restrict__ in,
                                              int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) {
    int idx = (z * ny + y) * nx + x;
    out[idx] = __ldg(&in[idx]) * 2.0f + gridDim.z;
  }
}

__global__ void halves(const __half *a, const __half *b, __half *c, float *f) {
  int i = threadIdx.x;
  __half2 x = __halves2half2(a[i], b[i]);
  __half2 y = __hmul2(x, x);
  c[i] = __hadd(__low2half(y), __high2half(y));
  f[i] = __half2float(c[i]) + __int_as_float(__float_as_int(f[i]) ^ 1);
}

__global__ void texture_read(cudaTextureObject_t tex, float *out) {
  out[threadIdx.x] = tex2D<float>(tex, threadIdx.x + 0.5f, 0.5f) +
                     tex1Dfetch<float>(tex, threadIdx.x);
}
