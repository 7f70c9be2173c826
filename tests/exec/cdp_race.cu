// Parent and child grids in the race checker (CDP2): a parent grid that
// reads, after a device-side launch, what its child writes races with it
// (a CDP2 grid cannot wait for its children); so does a block of the
// parent that writes what a child another block launched reads (no
// barrier orders two blocks); with the parent writing only before the
// launch and the result read in a tail launch, it is race-free.
#include "common.h"

#include <cstring>

__global__ void produce(int *p) { p[threadIdx.x] = int(threadIdx.x) + 1; }
__global__ void consume(const int *p, int *out) {
  out[threadIdx.x] = 2 * p[threadIdx.x];
}

// The child may run before, during or after the parent's read.
__global__ void parent_reads(int *p, int *out) {
  if (threadIdx.x == 0)
    produce<<<1, 32>>>(p);
  __syncthreads();
  out[threadIdx.x] = p[threadIdx.x];
}

// Every write of the parent is ordered before the launch (the barrier);
// the tail launch runs after the parent and its other children complete.
__global__ void parent_tail(int *p, int *out) {
  p[threadIdx.x] = 0;
  __syncthreads();
  if (threadIdx.x == 0) {
    produce<<<1, 32>>>(p);
    consume<<<1, 32, 0, cudaStreamTailLaunch>>>(p, out);
  }
}

// Block 1 writes what the child block 0 launched reads.
__global__ void other_block(int *p, int *out) {
  if (blockIdx.x == 1)
    p[threadIdx.x] = 5;
  else if (threadIdx.x == 0)
    consume<<<1, 32>>>(p, out);
}

int main(int argc, char **argv) {
  const bool ordered = argc > 1 && std::strcmp(argv[1], "ordered") == 0;
  const bool other = argc > 1 && std::strcmp(argv[1], "other_block") == 0;
  int *p, *out;
  CHECK(cudaMalloc(&p, 32 * sizeof(int)));
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  CHECK(cudaMemset(p, 0, 32 * sizeof(int)));
  CHECK(cudaMemset(out, 0, 32 * sizeof(int)));
  if (other) {
    other_block<<<2, 32>>>(p, out);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(p));
    CHECK(cudaFree(out));
    return finish("cdp_race");
  }
  if (ordered)
    parent_tail<<<1, 32>>>(p, out);
  else
    parent_reads<<<1, 32>>>(p, out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int h[32];
  CHECK(cudaMemcpy(h, p, sizeof(h), cudaMemcpyDeviceToHost));
  EXPECT(h[0] == 1 && h[31] == 32);
  CHECK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
  if (ordered)
    EXPECT(h[0] == 2 && h[31] == 64);
  // Unordered: what the parent read depends on when the child ran.
  CHECK(cudaFree(p));
  CHECK(cudaFree(out));
  return finish("cdp_race");
}
