// Two kernel nodes of a graph with no path between them write the same
// buffer: a race between graph nodes (as between streams). With an edge
// between them the graph is race-free.
#include "common.h"

#include <cstring>

__global__ void write_all(int *p, int v) { p[threadIdx.x] = v; }

int main(int argc, char **argv) {
  const bool ordered = argc > 1 && std::strcmp(argv[1], "ordered") == 0;
  int *buf;
  CHECK(cudaMalloc(&buf, 64 * sizeof(int)));
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  int one = 1, two = 2;
  void *a1[] = {&buf, &one};
  void *a2[] = {&buf, &two};
  cudaKernelNodeParams p{};
  p.func = (void *)write_all;
  p.gridDim = dim3(1);
  p.blockDim = dim3(64);
  p.kernelParams = a1;
  cudaGraphNode_t n1, n2;
  CHECK(cudaGraphAddKernelNode(&n1, g, nullptr, 0, &p));
  p.kernelParams = a2;
  CHECK(cudaGraphAddKernelNode(&n2, g, ordered ? &n1 : nullptr, ordered ? 1 : 0,
                               &p));
  cudaGraphExec_t x;
  CHECK(cudaGraphInstantiate(&x, g, 0));
  CHECK(cudaGraphLaunch(x, 0));
  CHECK(cudaDeviceSynchronize());
  int h[64];
  CHECK(cudaMemcpy(h, buf, sizeof(h), cudaMemcpyDeviceToHost));
  EXPECT(h[0] == 2 && h[63] == 2); // creation order when unordered
  CHECK(cudaGraphExecDestroy(x));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(buf));
  return finish("graph_race");
}
