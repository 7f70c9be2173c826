// Device-heap misuse, each reported with the kernel, instruction, CTA, warp
// and lane: a use after free and an overrun of a heap block (errors the
// launch survives: the heap is mapped memory, a GPU makes the access), a
// block never freed (a warning at exit under --check), and with the
// argument double_free a double free (a launch failure, as on a GPU: the
// device is then unavailable to the process, even after cudaDeviceReset).
#include "common.h"
#include <string>

__global__ void use_after_free(int *out) {
  int *p = static_cast<int *>(malloc(4 * sizeof(int)));
  p[0] = 7;
  free(p);
  out[0] = p[0]; // the block is gone
}

__global__ void overrun(int *out, int n) {
  int *p = static_cast<int *>(malloc(n * sizeof(int)));
  for (int i = 0; i <= n; ++i) // one past the end
    p[i] = i;
  out[0] = p[0];
  free(p);
}

__global__ void double_free() {
  void *p = malloc(32);
  free(p);
  free(p);
}

__global__ void leak(int **keep) { keep[threadIdx.x] = new int[4]; }

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "double_free") {
    double_free<<<1, 1>>>();
    EXPECT(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
    CHECK(cudaDeviceReset());
    int *p;
    EXPECT(cudaMalloc(&p, sizeof(int)) == cudaErrorDevicesUnavailable);
    return finish("heap_errors");
  }
  int *out;
  CHECK(cudaMalloc(&out, sizeof(int)));
  use_after_free<<<1, 1>>>(out);
  CHECK(cudaDeviceSynchronize());

  overrun<<<1, 1>>>(out, 8);
  CHECK(cudaDeviceSynchronize());
  int h = -1;
  CHECK(cudaMemcpy(&h, out, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(h == 0);

  int **keep;
  CHECK(cudaMalloc(&keep, 2 * sizeof(int *)));
  leak<<<1, 2>>>(keep);
  CHECK(cudaDeviceSynchronize());
  return finish("heap_errors");
}
