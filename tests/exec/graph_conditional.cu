// Conditional graph nodes: a WHILE node whose body kernel counts down and
// sets the condition from the device (cudaGraphSetConditional), an IF node
// with an ELSE body, and a SWITCH node choosing one of three bodies. With
// the argument `unordered`, an IF node that does not follow the kernel
// setting its condition: a race the checker reports.
#include "common.h"

#include <cstring>

__global__ void step(int *counter, int *trips, cudaGraphConditionalHandle h) {
  if (threadIdx.x == 0) {
    ++*trips;
    --*counter;
    cudaGraphSetConditional(h, *counter > 0);
  }
}
__global__ void set_cond(cudaGraphConditionalHandle h, const int *v) {
  cudaGraphSetConditional(h, *v);
}
__global__ void put(int *p, int v) { *p = v; }

// One conditional node of `type` with `size` bodies; body i writes
// 100 + i to *out. A kernel before the node (unless `unordered`: beside
// it) sets the condition to *cond.
static cudaGraphExec_t make_selector(cudaGraphConditionalNodeType type,
                                     unsigned size, int *cond, int *out,
                                     bool unordered = false) {
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphConditionalHandle h;
  CHECK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
  cudaGraphNode_t setter;
  cudaKernelNodeParams kp = {};
  void *sargs[] = {&h, &cond};
  kp.func = (void *)set_cond;
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(1);
  kp.kernelParams = sargs;
  CHECK(cudaGraphAddKernelNode(&setter, g, nullptr, 0, &kp));
  cudaGraphNodeParams np = {};
  np.type = cudaGraphNodeTypeConditional;
  np.conditional.handle = h;
  np.conditional.type = type;
  np.conditional.size = size;
  cudaGraphNode_t node;
  CHECK(cudaGraphAddNode(&node, g, &setter, nullptr, unordered ? 0 : 1, &np));
  for (unsigned i = 0; i < size; ++i) {
    cudaGraphNode_t k;
    int v = 100 + int(i);
    void *args[] = {&out, &v};
    kp.func = (void *)put;
    kp.kernelParams = args;
    CHECK(cudaGraphAddKernelNode(&k, np.conditional.phGraph_out[i], nullptr, 0,
                                 &kp));
  }
  cudaGraphExec_t x;
  CHECK(cudaGraphInstantiate(&x, g, 0));
  CHECK(cudaGraphDestroy(g));
  return x;
}

int main(int argc, char **argv) {
  int *m;
  CHECK(cudaMallocManaged(&m, 4 * sizeof(int)));
  int *counter = m, *trips = m + 1, *cond = m + 2, *out = m + 3;
  if (argc > 1 && std::strcmp(argv[1], "unordered") == 0) {
    cudaGraphExec_t x = make_selector(cudaGraphCondTypeIf, 1, cond, out, true);
    *cond = 1;
    *out = -1;
    CHECK(cudaGraphLaunch(x, 0));
    CHECK(cudaStreamSynchronize(0));
    CHECK(cudaGraphExecDestroy(x));
    CHECK(cudaFree(m));
    return finish("graph_conditional");
  }

  // WHILE: the body runs until the counter reaches 0; the handle starts
  // each launch at 1 (cudaGraphCondAssignDefault).
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphConditionalHandle h;
  CHECK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams np = {};
  np.type = cudaGraphNodeTypeConditional;
  np.conditional.handle = h;
  np.conditional.type = cudaGraphCondTypeWhile;
  np.conditional.size = 1;
  cudaGraphNode_t loop;
  CHECK(cudaGraphAddNode(&loop, g, nullptr, nullptr, 0, &np));
  cudaGraphNodeType type;
  CHECK(cudaGraphNodeGetType(loop, &type));
  EXPECT(type == cudaGraphNodeTypeConditional);
  cudaKernelNodeParams kp = {};
  void *args[] = {&counter, &trips, &h};
  kp.func = (void *)step;
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(32);
  kp.kernelParams = args;
  cudaGraphNode_t body;
  CHECK(cudaGraphAddKernelNode(&body, np.conditional.phGraph_out[0], nullptr, 0,
                               &kp));
  cudaGraphExec_t x;
  CHECK(cudaGraphInstantiate(&x, g, 0));
  *counter = 5;
  *trips = 0;
  CHECK(cudaGraphLaunch(x, 0));
  CHECK(cudaStreamSynchronize(0));
  EXPECT(*counter == 0 && *trips == 5);
  *counter = 3;
  CHECK(cudaGraphLaunch(x, 0));
  CHECK(cudaStreamSynchronize(0));
  EXPECT(*counter == 0 && *trips == 8);
  CHECK(cudaGraphExecDestroy(x));
  CHECK(cudaGraphDestroy(g));

  // IF with ELSE, and SWITCH.
  cudaGraphExec_t ifelse = make_selector(cudaGraphCondTypeIf, 2, cond, out);
  cudaGraphExec_t sw = make_selector(cudaGraphCondTypeSwitch, 3, cond, out);
  const int cases[][3] = {// cond, IF result, SWITCH result
                          {1, 100, 101},
                          {0, 101, 100},
                          {2, 100, 102},
                          {7, 100, -1}};
  for (const auto &c : cases) {
    *cond = c[0];
    *out = -1;
    CHECK(cudaGraphLaunch(ifelse, 0));
    CHECK(cudaStreamSynchronize(0));
    EXPECT(*out == c[1]);
    *out = -1;
    CHECK(cudaGraphLaunch(sw, 0));
    CHECK(cudaStreamSynchronize(0));
    EXPECT(*out == c[2]);
  }
  CHECK(cudaGraphExecDestroy(ifelse));
  CHECK(cudaGraphExecDestroy(sw));
  CHECK(cudaFree(m));
  return finish("graph_conditional");
}
