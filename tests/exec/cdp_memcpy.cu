// Device-side cudaMemcpyAsync and cudaGetErrorString (CDP2, -rdc=true): a
// kernel copies one array into another in a stream it creates and in the
// fire-and-forget stream; a copy with a host direction fails with
// cudaErrorInvalidMemcpyDirection, whose text the kernel reads with
// cudaGetErrorString.
#include "common.h"

#include <cstring>

__global__ void copier(const int *src, int *dst, int n, int *err, char *text) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  err[0] = cudaMemcpyAsync(dst, src, n / 2 * sizeof(int),
                           cudaMemcpyDeviceToDevice, s);
  err[1] = cudaMemcpyAsync(dst + n / 2, src + n / 2, (n - n / 2) * sizeof(int),
                           cudaMemcpyDefault, cudaStreamFireAndForget);
  err[2] = cudaMemcpyAsync(dst, src, 4, cudaMemcpyHostToDevice, s);
  err[3] = cudaGetLastError();
  const char *t = cudaGetErrorString(cudaError_t(err[2]));
  int i = 0;
  for (; t && t[i] && i < 63; ++i)
    text[i] = t[i];
  text[i] = 0;
  cudaStreamDestroy(s);
}

int main() {
  const int n = 1001;
  int *src, *dst, *err;
  char *text;
  CHECK(cudaMalloc(&src, n * sizeof(int)));
  CHECK(cudaMalloc(&dst, n * sizeof(int)));
  CHECK(cudaMallocManaged(&err, 4 * sizeof(int)));
  CHECK(cudaMallocManaged(&text, 64));
  int h[n];
  for (int i = 0; i < n; ++i)
    h[i] = 3 * i + 1;
  CHECK(cudaMemcpy(src, h, sizeof(h), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dst, 0, n * sizeof(int)));
  copier<<<1, 1>>>(src, dst, n, err, text);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::memset(h, 0, sizeof(h));
  CHECK(cudaMemcpy(h, dst, sizeof(h), cudaMemcpyDeviceToHost));
  bool same = true;
  for (int i = 0; i < n; ++i)
    same &= h[i] == 3 * i + 1;
  EXPECT(same);
  EXPECT(err[0] == cudaSuccess && err[1] == cudaSuccess);
  EXPECT(err[2] == cudaErrorInvalidMemcpyDirection);
  EXPECT(err[3] == cudaErrorInvalidMemcpyDirection);
  EXPECT(std::strcmp(text,
                     cudaGetErrorString(cudaErrorInvalidMemcpyDirection)) == 0);
  CHECK(cudaFree(src));
  CHECK(cudaFree(dst));
  CHECK(cudaFree(err));
  CHECK(cudaFree(text));
  return finish("cdp_memcpy");
}
