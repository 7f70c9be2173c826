// A program with a data race that loops on the host until a kernel result
// is reached: under `bcusim exec --check all` the race is reported and the
// program runs to its own end (a finding changes nothing in the program,
// as on a GPU); `--error-exitcode N` makes its exit status N.
#include "common.h"

// Every thread stores its own index to scratch[0] (a write-write race
// between warps and CTAs); thread 0 of CTA 0 counts the steps.
extern "C" __global__ void racy_step(int *counter, int *scratch) {
  scratch[0] = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *counter += 1;
}

int main() {
  int *counter = nullptr, *scratch = nullptr;
  CHECK(cudaMalloc(&counter, sizeof(int)));
  CHECK(cudaMalloc(&scratch, sizeof(int)));
  CHECK(cudaMemset(counter, 0, sizeof(int)));
  int steps = 0, iterations = 0;
  // The host waits for the device to count to 5 (bounded, so that a
  // runtime that fails every call after the race cannot hang the test).
  while (steps < 5 && iterations < 100) {
    racy_step<<<2, 64>>>(counter, scratch);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&steps, counter, sizeof(int), cudaMemcpyDeviceToHost));
    ++iterations;
  }
  EXPECT(steps == 5);
  EXPECT(iterations == 5);
  CHECK(cudaFree(counter));
  CHECK(cudaFree(scratch));
  return finish("race_loop");
}
