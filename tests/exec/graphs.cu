// Graphs built node by node: kernel, memcpy, memset, host, event, empty and
// child-graph nodes with dependencies; instantiation, launches, parameter
// changes on graphs and on executable graphs, whole-graph update, node
// queries, and graphs of stream capture updated in place.
#include "common.h"

#include <vector>

__global__ void fill(int *p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = v + i;
}

__global__ void add(int *dst, const int *a, const int *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = a[i] + b[i];
}

__global__ void scale(int *p, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] *= k;
}

static const int N = 256;

static void count_calls(void *data) { ++*static_cast<int *>(data); }

// The host sees the result of the nodes before it (its dependencies).
struct Probe {
  const int *host;
  int seen;
};
static void probe(void *data) {
  auto *p = static_cast<Probe *>(data);
  p->seen = p->host[3];
}

static cudaKernelNodeParams kernel_params(void *func, void **args) {
  cudaKernelNodeParams p{};
  p.func = func;
  p.gridDim = dim3(N / 64);
  p.blockDim = dim3(64);
  p.sharedMemBytes = 0;
  p.kernelParams = args;
  p.extra = nullptr;
  return p;
}

int main() {
  int *a, *b, *c;
  CHECK(cudaMalloc(&a, N * sizeof(int)));
  CHECK(cudaMalloc(&b, N * sizeof(int)));
  CHECK(cudaMalloc(&c, N * sizeof(int)));
  int *host = nullptr;
  CHECK(cudaMallocHost(&host, N * sizeof(int)));
  std::vector<int> out(N);
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));

  // A diamond: fill a, fill b (independent) -> add c = a + b -> copy to the
  // host -> host node; a memset of b after the add.
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  int n = N, va = 100, vb = 1000;
  void *args_a[] = {&a, &n, &va};
  void *args_b[] = {&b, &n, &vb};
  cudaKernelNodeParams pa = kernel_params((void *)fill, args_a);
  cudaKernelNodeParams pb = kernel_params((void *)fill, args_b);
  cudaGraphNode_t fa, fb, sum, copy, memset_b, hostn, empty;
  CHECK(cudaGraphAddKernelNode(&fa, g, nullptr, 0, &pa));
  CHECK(cudaGraphAddKernelNode(&fb, g, nullptr, 0, &pb));
  va = -1; // the node copied the arguments when it was made
  void *args_sum[] = {&c, &a, &b, &n};
  cudaKernelNodeParams ps = kernel_params((void *)add, args_sum);
  cudaGraphNode_t both[] = {fa, fb};
  CHECK(cudaGraphAddKernelNode(&sum, g, both, 2, &ps));
  cudaMemcpy3DParms cp{};
  cp.srcPtr = make_cudaPitchedPtr(c, N * sizeof(int), N * sizeof(int), 1);
  cp.dstPtr = make_cudaPitchedPtr(host, N * sizeof(int), N * sizeof(int), 1);
  cp.extent = make_cudaExtent(N * sizeof(int), 1, 1);
  cp.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaGraphAddMemcpyNode(&copy, g, &sum, 1, &cp));
  cudaMemsetParams ms{};
  ms.dst = b;
  ms.value = 0x01020304; // 4-byte elements: not one repeated byte
  ms.elementSize = 4;
  ms.width = N;
  ms.height = 1;
  CHECK(cudaGraphAddMemsetNode(&memset_b, g, &sum, 1, &ms));
  Probe pr{host, 0};
  cudaHostNodeParams hp{probe, &pr};
  CHECK(cudaGraphAddHostNode(&hostn, g, &copy, 1, &hp));
  cudaGraphNode_t ends[] = {hostn, memset_b};
  CHECK(cudaGraphAddEmptyNode(&empty, g, ends, 2));

  // Queries.
  size_t count = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &count));
  EXPECT(count == 7);
  CHECK(cudaGraphGetRootNodes(g, nullptr, &count));
  EXPECT(count == 2);
  cudaGraphNode_t roots[2];
  CHECK(cudaGraphGetRootNodes(g, roots, &count));
  // Latest first, as CUDA 13's runtime lists them.
  EXPECT(count == 2 && roots[0] == fb && roots[1] == fa);
  CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &count));
  EXPECT(count == 7);
  CHECK(cudaGraphNodeGetDependencies(sum, nullptr, nullptr, &count));
  EXPECT(count == 2);
  CHECK(cudaGraphNodeGetDependentNodes(sum, nullptr, nullptr, &count));
  EXPECT(count == 2);
  cudaGraphNodeType type;
  CHECK(cudaGraphNodeGetType(memset_b, &type));
  EXPECT(type == cudaGraphNodeTypeMemset);
  cudaKernelNodeParams got{};
  CHECK(cudaGraphKernelNodeGetParams(fa, &got));
  EXPECT(got.func == (void *)fill && got.gridDim.x == N / 64 &&
         *static_cast<int *>(got.kernelParams[2]) == 100);

  cudaGraphExec_t x;
  CHECK(cudaGraphInstantiate(&x, g, 0));
  CHECK(cudaGraphLaunch(x, stream));
  CHECK(cudaStreamSynchronize(stream));
  bool ok = true;
  for (int i = 0; i < N; ++i)
    ok &= host[i] == 100 + i + 1000 + i;
  EXPECT(ok);
  EXPECT(pr.seen == 1106);
  CHECK(cudaMemcpy(out.data(), b, N * sizeof(int), cudaMemcpyDeviceToHost));
  ok = true;
  for (int i = 0; i < N; ++i)
    ok &= out[i] == 0x01020304;
  EXPECT(ok);

  // Parameters of the executable graph change; the graph's do not.
  int va2 = 5;
  void *args_a2[] = {&a, &n, &va2};
  cudaKernelNodeParams pa2 = kernel_params((void *)fill, args_a2);
  CHECK(cudaGraphExecKernelNodeSetParams(x, fa, &pa2));
  int calls = 0;
  cudaHostNodeParams hp2{count_calls, &calls};
  CHECK(cudaGraphExecHostNodeSetParams(x, hostn, &hp2));
  ms.value = 7;
  ms.elementSize = 1;
  ms.width = N * sizeof(int);
  CHECK(cudaGraphExecMemsetNodeSetParams(x, memset_b, &ms));
  CHECK(cudaGraphLaunch(x, stream));
  CHECK(cudaGraphLaunch(x, stream));
  CHECK(cudaStreamSynchronize(stream));
  EXPECT(calls == 2);
  EXPECT(host[10] == 5 + 10 + 1000 + 10);
  CHECK(cudaMemcpy(out.data(), b, N * sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(out[0] == 0x07070707 && out[N - 1] == 0x07070707);
  CHECK(cudaGraphKernelNodeGetParams(fa, &got));
  EXPECT(*static_cast<int *>(got.kernelParams[2]) == 100);

  // Whole-graph update from a graph of the same shape.
  int vb3 = 2000;
  void *args_b3[] = {&b, &n, &vb3};
  cudaKernelNodeParams pb3 = kernel_params((void *)fill, args_b3);
  CHECK(cudaGraphKernelNodeSetParams(fb, &pb3));
  cudaGraphExecUpdateResultInfo info{};
  CHECK(cudaGraphExecUpdate(x, g, &info));
  EXPECT(info.result == cudaGraphExecUpdateSuccess);
  pr.seen = 0;
  CHECK(cudaGraphLaunch(x, stream));
  CHECK(cudaStreamSynchronize(stream));
  EXPECT(pr.seen == 100 + 3 + 2000 + 3); // the graph's parameters again
  // A graph of another shape cannot update it.
  cudaGraphNode_t extra;
  CHECK(cudaGraphAddEmptyNode(&extra, g, nullptr, 0));
  EXPECT(cudaGraphExecUpdate(x, g, &info) == cudaErrorGraphExecUpdateFailure);
  EXPECT(info.result == cudaGraphExecUpdateErrorTopologyChanged);
  CHECK(cudaGraphDestroyNode(extra));
  CHECK(cudaGraphExecDestroy(x));

  // A child graph (fill a, then scale it by 3) in a graph with 1D copies,
  // events and a dependency added afterwards.
  cudaGraph_t child, parent;
  CHECK(cudaGraphCreate(&child, 0));
  int v0 = 1, k = 3;
  void *cf_args[] = {&a, &n, &v0};
  void *cs_args[] = {&a, &n, &k};
  cudaKernelNodeParams cf = kernel_params((void *)fill, cf_args);
  cudaKernelNodeParams cs = kernel_params((void *)scale, cs_args);
  cudaGraphNode_t n1, n2;
  CHECK(cudaGraphAddKernelNode(&n1, child, nullptr, 0, &cf));
  CHECK(cudaGraphAddKernelNode(&n2, child, &n1, 1, &cs));
  CHECK(cudaGraphCreate(&parent, 0));
  cudaEvent_t ev;
  CHECK(cudaEventCreate(&ev));
  cudaGraphNode_t ch, c1, rec, wait;
  CHECK(cudaGraphAddChildGraphNode(&ch, parent, nullptr, 0, child));
  CHECK(cudaGraphDestroy(child)); // the node holds its own copy
  CHECK(cudaGraphAddEventRecordNode(&rec, parent, &ch, 1, ev));
  CHECK(cudaGraphAddEventWaitNode(&wait, parent, &rec, 1, ev));
  CHECK(cudaGraphAddMemcpyNode1D(&c1, parent, nullptr, 0, out.data(), a,
                                 N * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaGraphAddDependencies(parent, &wait, &c1, nullptr, 1));
  CHECK(cudaGraphChildGraphNodeGetGraph(ch, &child));
  CHECK(cudaGraphGetNodes(child, nullptr, &count));
  EXPECT(count == 2);
  cudaGraphExec_t px;
  CHECK(cudaGraphInstantiateWithFlags(&px, parent, 0));
  CHECK(cudaGraphLaunch(px, stream));
  CHECK(cudaStreamSynchronize(stream));
  EXPECT(out[0] == 3 && out[N - 1] == 3 * N);
  CHECK(cudaEventQuery(ev));
  CHECK(cudaGraphExecDestroy(px));
  CHECK(cudaGraphDestroy(parent));
  CHECK(cudaEventDestroy(ev));

  // A cycle does not instantiate.
  cudaGraph_t cyc;
  CHECK(cudaGraphCreate(&cyc, 0));
  cudaGraphNode_t e1, e2;
  CHECK(cudaGraphAddEmptyNode(&e1, cyc, nullptr, 0));
  CHECK(cudaGraphAddEmptyNode(&e2, cyc, &e1, 1));
  CHECK(cudaGraphAddDependencies(cyc, &e2, &e1, nullptr, 1));
  cudaGraphExec_t cx;
  EXPECT(cudaGraphInstantiate(&cx, cyc, 0) != cudaSuccess);
  CHECK(cudaGraphDestroy(cyc));

  // A captured graph updated from a later capture of the same shape.
  cudaGraphExec_t capx = nullptr;
  cudaGraph_t first = nullptr; // the graph capx was instantiated from
  for (int round = 1; round <= 3; ++round) {
    cudaGraph_t cg;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    fill<<<N / 64, 64, 0, stream>>>(c, N, round * 10);
    CHECK(cudaMemcpyAsync(host, c, N * sizeof(int), cudaMemcpyDeviceToHost,
                          stream));
    CHECK(cudaStreamEndCapture(stream, &cg));
    if (!capx) {
      CHECK(cudaGraphInstantiate(&capx, cg, 0));
      first = cg;
    } else {
      CHECK(cudaGraphExecUpdate(capx, cg, &info));
    }
    CHECK(cudaGraphLaunch(capx, stream));
    CHECK(cudaStreamSynchronize(stream));
    EXPECT(host[1] == round * 10 + 1);
    // The captured launch is a kernel node whose parameters can be read
    // and set on the executable graph (as jacobiCudaGraphs does).
    cudaGraphNode_t nodes[2];
    count = 2;
    CHECK(cudaGraphGetNodes(cg, nodes, &count));
    EXPECT(count == 2);
    CHECK(cudaGraphNodeGetType(nodes[0], &type));
    EXPECT(type == cudaGraphNodeTypeKernel);
    cudaKernelNodeParams kp{};
    CHECK(cudaGraphKernelNodeGetParams(nodes[0], &kp));
    EXPECT(kp.func == (void *)fill && kp.gridDim.x == N / 64 &&
           kp.blockDim.x == 64 &&
           *static_cast<int *>(kp.kernelParams[2]) == round * 10);
    int v = round * 100;
    void *kargs[] = {kp.kernelParams[0], kp.kernelParams[1], &v};
    kp.kernelParams = kargs;
    // The node named is one of the graph capx was instantiated from, also
    // after an update; a node of the update's source graph is refused.
    cudaGraphNode_t first_nodes[2];
    count = 2;
    CHECK(cudaGraphGetNodes(first, first_nodes, &count));
    if (cg != first) {
      EXPECT(cudaGraphExecKernelNodeSetParams(capx, nodes[0], &kp) ==
             cudaErrorInvalidValue);
      EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
    }
    CHECK(cudaGraphExecKernelNodeSetParams(capx, first_nodes[0], &kp));
    CHECK(cudaGraphLaunch(capx, stream));
    CHECK(cudaStreamSynchronize(stream));
    EXPECT(host[1] == round * 100 + 1);
    if (cg != first)
      CHECK(cudaGraphDestroy(cg));
  }
  CHECK(cudaGraphDestroy(first));
  CHECK(cudaGraphExecDestroy(capx));
  CHECK(cudaGraphDestroy(g));

  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFreeHost(host));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  return finish("graphs");
}
