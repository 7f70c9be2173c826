// Recursive device functions under bcusim exec: the per-thread stack
// (cudaLimitStackSize) is 1024 bytes by default; a program that recurses
// deeper raises it with cudaDeviceSetLimit, as on a GPU. With the argument
// "overflow" the deep recursion runs at the default limit and the launch
// fails (a stack overflow, cudaErrorLaunchFailure).
#include "common.h"
#include <cstring>

// Each activation keeps a local array live across the recursive call.
__device__ __noinline__ long long walk(int n, const int *w) {
  int a[16];
  for (int i = 0; i < 16; ++i)
    a[i] = w[(n + i) % 64] + n * i;
  if (n == 0)
    return a[0];
  long long r = walk(n - 1, w);
  return r + a[n % 16] - a[(n * 7) % 16];
}

__global__ void deep(const int *w, const int *depth, long long *out) {
  int t = threadIdx.x;
  out[t] = walk(depth[t], w);
}

static long long host_walk(int n, const int *w) {
  int a[16];
  for (int i = 0; i < 16; ++i)
    a[i] = w[(n + i) % 64] + n * i;
  if (n == 0)
    return a[0];
  long long r = host_walk(n - 1, w);
  return r + a[n % 16] - a[(n * 7) % 16];
}

int main(int argc, char **argv) {
  const bool overflow = argc > 1 && std::strcmp(argv[1], "overflow") == 0;
  size_t limit = 0;
  CHECK(cudaDeviceGetLimit(&limit, cudaLimitStackSize));
  EXPECT(limit == 1024); // the default on NVIDIA GPUs
  if (!overflow) {
    CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 64 << 10));
    CHECK(cudaDeviceGetLimit(&limit, cudaLimitStackSize));
    EXPECT(limit == 64u << 10);
  }
  const int threads = 64;
  int hw[64], hd[threads];
  for (int i = 0; i < 64; ++i)
    hw[i] = (i * 37) % 53 - 20;
  for (int t = 0; t < threads; ++t)
    hd[t] = 100 + (t * 13) % 150; // 100 to 249 deep, different per lane
  int *w, *depth;
  long long *out;
  CHECK(cudaMalloc(&w, sizeof(hw)));
  CHECK(cudaMalloc(&depth, sizeof(hd)));
  CHECK(cudaMalloc(&out, threads * sizeof(long long)));
  CHECK(cudaMemcpy(w, hw, sizeof(hw), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(depth, hd, sizeof(hd), cudaMemcpyHostToDevice));
  deep<<<1, threads>>>(w, depth, out);
  cudaError_t e = cudaDeviceSynchronize();
  if (overflow) {
    std::printf("deep recursion at the default stack: %s\n",
                cudaGetErrorName(e));
    // An access outside the thread's stack: an illegal address, sticky.
    EXPECT(e == cudaErrorIllegalAddress);
    EXPECT(cudaMemcpy(hd, depth, sizeof(hd), cudaMemcpyDeviceToHost) ==
           cudaErrorIllegalAddress);
    return finish("recursion");
  }
  CHECK(e);
  long long h[threads];
  CHECK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int t = 0; t < threads; ++t)
    EXPECT(h[t] == host_walk(hd[t], hw));
  CHECK(cudaFree(w));
  CHECK(cudaFree(depth));
  CHECK(cudaFree(out));
  // A reset makes a new context, with the default limit.
  CHECK(cudaDeviceReset());
  CHECK(cudaDeviceGetLimit(&limit, cudaLimitStackSize));
  EXPECT(limit == 1024);
  return finish("recursion");
}
