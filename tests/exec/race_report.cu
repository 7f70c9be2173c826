// A racy kernel under `bcusim exec --check race` for the report test: the
// finding must name the kernel as the source spells it, the CUDA line of
// each access (built with -lineinfo), the cudaMalloc allocation with its
// size and the offset in it, and the host stacks of the allocation and of
// the launch (built with -g). The program itself passes whether or not the
// launch reports the race as an error.
#include "common.h"

__global__ void neighbours(int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    data[i] = i;
    int next = data[(i + 1) % n];
    data[i] += next;
  }
}

__attribute__((noinline)) static int *make_buffer(int n) {
  int *d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  return d;
}

__attribute__((noinline)) static void run(int *d, int n) {
  neighbours<<<2, 32>>>(d, n);
  cudaDeviceSynchronize();
}

int main() {
  const int n = 64;
  int *d = make_buffer(n);
  run(d, n);
  // Under --check the race may fail the launch (a sticky error): what the
  // program then gets back is not what this test is about.
  cudaGetLastError();
  cudaFree(d);
  return finish("race_report");
}
