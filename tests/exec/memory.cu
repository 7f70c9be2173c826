// Memory API group: device, host-mapped and managed memory, copies and
// memsets (1-D, 2-D, async), symbols, pointer attributes.
#include "common.h"
#include <vector>

__constant__ float scale[2];
__device__ int counter;
__device__ __managed__ int managed_total;

__global__ void axpb(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = scale[0] * x[i] + scale[1];
    atomicAdd(&counter, 1);
    atomicAdd(&managed_total, 2);
  }
}

__global__ void fill2d(int *p, size_t pitch, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h)
    reinterpret_cast<int *>(reinterpret_cast<char *>(p) + y * pitch)[x] =
        y * 100 + x;
}

int main() {
  const int n = 1000;
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i)
    hx[i] = float(i);
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dy, 0xff, n * sizeof(float)));
  const float s[2] = {2.0f, 1.0f};
  CHECK(cudaMemcpyToSymbol(scale, s, sizeof(s)));
  int zero = 0;
  CHECK(cudaMemcpyToSymbol(counter, &zero, sizeof(int)));
  // A pointer plus an offset: the kernel sees elements 10.. of x.
  axpb<<<(n - 10 + 127) / 128, 128>>>(dx + 10, dy, n - 10);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(hy.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT(hy[0] == 21.0f && hy[n - 11] == 2.0f * (n - 1) + 1.0f);
  int c = 0;
  CHECK(cudaMemcpyFromSymbol(&c, counter, sizeof(int)));
  EXPECT(c == n - 10);
  EXPECT(managed_total == 2 * (n - 10)); // a __managed__ variable
  size_t ssize = 0;
  CHECK(cudaGetSymbolSize(&ssize, scale));
  EXPECT(ssize == 8);
  int *counter_ptr = nullptr;
  CHECK(cudaGetSymbolAddress((void **)&counter_ptr, counter));
  CHECK(cudaMemset(counter_ptr, 0, sizeof(int)));
  CHECK(cudaMemcpyFromSymbol(&c, counter, sizeof(int)));
  EXPECT(c == 0);

  // Device to device, async on a stream.
  cudaStream_t st;
  CHECK(cudaStreamCreate(&st));
  CHECK(
      cudaMemcpyAsync(dx, dy, n * sizeof(float), cudaMemcpyDeviceToDevice, st));
  CHECK(cudaMemsetAsync(dy, 0, 4 * sizeof(float), st));
  CHECK(cudaStreamSynchronize(st));
  CHECK(cudaMemcpy(hx.data(), dx, n * sizeof(float), cudaMemcpyDefault));
  EXPECT(hx[0] == 21.0f);
  CHECK(cudaMemcpy(hy.data(), dy, 8 * sizeof(float), cudaMemcpyDefault));
  EXPECT(hy[3] == 0.0f && hy[4] == 29.0f);

  // Pitched 2-D memory.
  int *d2;
  size_t pitch = 0;
  const int w = 20, h = 7;
  CHECK(cudaMallocPitch((void **)&d2, &pitch, w * sizeof(int), h));
  EXPECT(pitch >= w * sizeof(int));
  CHECK(cudaMemset2D(d2, pitch, 0, w * sizeof(int), h));
  fill2d<<<h, 32>>>(d2, pitch, w, h);
  std::vector<int> h2(w * h);
  CHECK(cudaMemcpy2D(h2.data(), w * sizeof(int), d2, pitch, w * sizeof(int), h,
                     cudaMemcpyDeviceToHost));
  EXPECT(h2[3 * w + 5] == 305 && h2[6 * w + 19] == 619);

  // Managed and mapped host memory: one pointer on both sides.
  float *m;
  CHECK(cudaMallocManaged(&m, n * sizeof(float)));
  for (int i = 0; i < n; ++i)
    m[i] = 1.0f;
  axpb<<<(n + 255) / 256, 256>>>(m, m, n);
  CHECK(cudaDeviceSynchronize());
  EXPECT(m[0] == 3.0f && m[n - 1] == 3.0f);
  float *pinned, *pinned_dev;
  CHECK(cudaHostAlloc(&pinned, n * sizeof(float), cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer((void **)&pinned_dev, pinned, 0));
  for (int i = 0; i < n; ++i)
    pinned[i] = 2.0f;
  axpb<<<(n + 255) / 256, 256>>>(pinned_dev, pinned_dev, n);
  CHECK(cudaDeviceSynchronize());
  EXPECT(pinned[7] == 5.0f);

  cudaPointerAttributes a;
  CHECK(cudaPointerGetAttributes(&a, dx));
  EXPECT(a.type == cudaMemoryTypeDevice);
  CHECK(cudaPointerGetAttributes(&a, m));
  EXPECT(a.type == cudaMemoryTypeManaged);
  size_t fr = 0, tot = 0;
  CHECK(cudaMemGetInfo(&fr, &tot));
  EXPECT(tot > fr && fr > 0);

  // A __constant__ variable has a device address: a copy through it is
  // what the symbol and the kernel read.
  float *scale_ptr = nullptr;
  CHECK(cudaGetSymbolAddress((void **)&scale_ptr, scale));
  const float s3[2] = {3.0f, 0.5f};
  CHECK(cudaMemcpy(scale_ptr, s3, sizeof(s3), cudaMemcpyHostToDevice));
  float back[2] = {0, 0};
  CHECK(cudaMemcpyFromSymbol(back, scale, sizeof(back)));
  EXPECT(back[0] == 3.0f && back[1] == 0.5f);
  for (int i = 0; i < 32; ++i)
    pinned[i] = float(i);
  axpb<<<1, 32>>>(pinned_dev, pinned_dev, 32);
  CHECK(cudaDeviceSynchronize());
  EXPECT(pinned[0] == 0.5f && pinned[31] == 93.5f);

  CHECK(cudaFree(m));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(d2));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  EXPECT(cudaFree((void *)0x1234) != cudaSuccess);
  CHECK(cudaStreamDestroy(st));
  return finish("memory");
}
