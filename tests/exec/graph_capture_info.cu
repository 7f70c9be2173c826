// Building graphs around a capture: cudaStreamGetCaptureInfo hands out the
// capture's graph and the nodes the stream's next work depends on; a node
// the program adds to that graph (here a conditional WHILE node) joins the
// stream through cudaStreamUpdateCaptureDependencies;
// cudaStreamBeginCaptureToGraph records into an existing graph (here the
// WHILE node's body); cudaGraphAddNode makes every kind of node from
// cudaGraphNodeParams.
#include "common.h"

#include <cstring>

__global__ void count_down(int *counter, int *trips,
                           cudaGraphConditionalHandle h) {
  ++*trips;
  --*counter;
  cudaGraphSetConditional(h, *counter > 0);
}
__global__ void test_counter(const int *counter, cudaGraphConditionalHandle h) {
  cudaGraphSetConditional(h, *counter > 0);
}
__global__ void add(int *p, int v) { *p += v; }

static void CUDART_CB host_fn(void *p) { *static_cast<int *>(p) += 1000; }

int main() {
  int *m;
  CHECK(cudaMallocManaged(&m, 8 * sizeof(int)));
  std::memset(m, 0, 8 * sizeof(int));
  int *counter = m, *trips = m + 1, *after = m + 2, *root = m + 3;

  // 1. start -> test -> WHILE [count_down] -> add(after), by capture.
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaGraph_t g = nullptr;
  const cudaGraphNode_t *deps = nullptr;
  size_t ndeps = 99;
  unsigned long long id = 0;
  CHECK(cudaStreamGetCaptureInfo(s, &status, &id, &g, &deps, nullptr, &ndeps));
  EXPECT(status == cudaStreamCaptureStatusActive && g && id != 0);
  EXPECT(ndeps == 0);
  cudaGraphConditionalHandle h;
  CHECK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
  add<<<1, 1, 0, s>>>(root, 1);
  test_counter<<<1, 1, 0, s>>>(counter, h);
  cudaGraph_t g2 = nullptr;
  CHECK(cudaStreamGetCaptureInfo(s, &status, nullptr, &g2, &deps, nullptr,
                                 &ndeps));
  EXPECT(g2 == g && ndeps == 1);
  cudaGraphNodeType t = cudaGraphNodeTypeEmpty;
  if (ndeps == 1)
    CHECK(cudaGraphNodeGetType(deps[0], &t));
  EXPECT(t == cudaGraphNodeTypeKernel);
  cudaGraphNodeParams cp = {};
  cp.type = cudaGraphNodeTypeConditional;
  cp.conditional.handle = h;
  cp.conditional.type = cudaGraphCondTypeWhile;
  cp.conditional.size = 1;
  cudaGraphNode_t loop;
  CHECK(cudaGraphAddNode(&loop, g, deps, nullptr, ndeps, &cp));
  cudaGraph_t body = cp.conditional.phGraph_out[0];
  CHECK(cudaStreamUpdateCaptureDependencies(s, &loop, nullptr, 1,
                                            cudaStreamSetCaptureDependencies));
  add<<<1, 1, 0, s>>>(after, 1);
  cudaGraph_t out = nullptr;
  CHECK(cudaStreamEndCapture(s, &out));
  EXPECT(out == g);
  size_t count = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &count));
  EXPECT(count == 4);
  // The last node follows the loop node only.
  cudaGraphNode_t nodes[4] = {};
  CHECK(cudaGraphGetNodes(g, nodes, &count));
  cudaGraphNode_t dep_of_last[2] = {};
  size_t nd = 2;
  CHECK(cudaGraphNodeGetDependencies(nodes[3], dep_of_last, nullptr, &nd));
  EXPECT(nd == 1 && dep_of_last[0] == loop);

  // The loop's body by capture into it.
  cudaStream_t bs;
  CHECK(cudaStreamCreate(&bs));
  CHECK(cudaStreamBeginCaptureToGraph(bs, body, nullptr, nullptr, 0,
                                      cudaStreamCaptureModeGlobal));
  count_down<<<1, 1, 0, bs>>>(counter, trips, h);
  CHECK(cudaStreamEndCapture(bs, nullptr));
  CHECK(cudaGraphGetNodes(body, nullptr, &count));
  EXPECT(count == 1);

  cudaGraphExec_t x;
  CHECK(cudaGraphInstantiate(&x, g, 0));
  *counter = 4;
  CHECK(cudaGraphLaunch(x, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(*trips == 4 && *counter == 0 && *after == 1 && *root == 1);
  *counter = 0; // the loop does not run
  CHECK(cudaGraphLaunch(x, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(*trips == 4 && *after == 2 && *root == 2);
  CHECK(cudaGraphExecDestroy(x));
  CHECK(cudaGraphDestroy(g));

  // Outside a capture: no graph; an update is an error.
  CHECK(cudaStreamGetCaptureInfo(s, &status, nullptr, nullptr, nullptr, nullptr,
                                 nullptr));
  EXPECT(status == cudaStreamCaptureStatusNone);
  cudaGraphNode_t none = nullptr;
  EXPECT(cudaStreamUpdateCaptureDependencies(s, &none, nullptr, 0, 0) ==
         cudaErrorIllegalState);
  cudaGetLastError();

  // 2. A capture into a graph after one of its nodes (roots follow it), and
  // cudaStreamAddCaptureDependencies.
  {
    cudaGraph_t g3;
    CHECK(cudaGraphCreate(&g3, 0));
    cudaGraphNode_t first;
    cudaGraphNodeParams kp = {};
    kp.type = cudaGraphNodeTypeKernel;
    int *p = m + 4;
    int v = 1;
    void *args[] = {&p, &v};
    kp.kernel.func = (void *)add;
    kp.kernel.gridDim = dim3(1);
    kp.kernel.blockDim = dim3(1);
    kp.kernel.kernelParams = args;
    CHECK(cudaGraphAddNode(&first, g3, nullptr, nullptr, 0, &kp));
    cudaGraphNode_t other;
    CHECK(cudaGraphAddEmptyNode(&other, g3, nullptr, 0));
    CHECK(cudaStreamBeginCaptureToGraph(s, g3, &first, nullptr, 1,
                                        cudaStreamCaptureModeGlobal));
    add<<<1, 1, 0, s>>>(m + 4, 10);
    CHECK(cudaStreamUpdateCaptureDependencies(
        s, &other, nullptr, 1, cudaStreamAddCaptureDependencies));
    add<<<1, 1, 0, s>>>(m + 4, 100);
    CHECK(cudaStreamEndCapture(s, nullptr));
    size_t n3 = 0;
    CHECK(cudaGraphGetNodes(g3, nullptr, &n3));
    EXPECT(n3 == 4);
    cudaGraphNode_t all[4] = {};
    CHECK(cudaGraphGetNodes(g3, all, &n3));
    size_t d2 = 4, d3 = 4;
    cudaGraphNode_t deps2[4], deps3[4];
    CHECK(cudaGraphNodeGetDependencies(all[2], deps2, nullptr, &d2));
    CHECK(cudaGraphNodeGetDependencies(all[3], deps3, nullptr, &d3));
    EXPECT(d2 == 1 && deps2[0] == first);
    EXPECT(d3 == 2);
    cudaGraphExec_t x3;
    CHECK(cudaGraphInstantiate(&x3, g3, 0));
    CHECK(cudaGraphLaunch(x3, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(m[4] == 111);
    CHECK(cudaGraphExecDestroy(x3));
    CHECK(cudaGraphDestroy(g3));
  }

  // 3. cudaGraphAddNode for the other node types.
  {
    cudaGraph_t g4;
    CHECK(cudaGraphCreate(&g4, 0));
    int *d = nullptr;
    CHECK(cudaMalloc(&d, 4 * sizeof(int)));
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeMemset;
    p.memset.dst = d;
    p.memset.value = 7;
    p.memset.elementSize = 4;
    p.memset.width = 4;
    p.memset.height = 1;
    cudaGraphNode_t set, copy, host, empty, rec, wait, child;
    CHECK(cudaGraphAddNode(&set, g4, nullptr, nullptr, 0, &p));
    std::memset(&p, 0, sizeof(p));
    p.type = cudaGraphNodeTypeMemcpy;
    p.memcpy.copyParams.srcPtr = make_cudaPitchedPtr(d, 16, 4, 1);
    p.memcpy.copyParams.dstPtr = make_cudaPitchedPtr(m + 4, 16, 4, 1);
    p.memcpy.copyParams.extent = make_cudaExtent(16, 1, 1);
    p.memcpy.copyParams.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaGraphAddNode(&copy, g4, &set, nullptr, 1, &p));
    std::memset(&p, 0, sizeof(p));
    p.type = cudaGraphNodeTypeHost;
    p.host.fn = host_fn;
    p.host.userData = m + 4;
    CHECK(cudaGraphAddNode(&host, g4, &copy, nullptr, 1, &p));
    std::memset(&p, 0, sizeof(p));
    p.type = cudaGraphNodeTypeEmpty;
    CHECK(cudaGraphAddNode(&empty, g4, &host, nullptr, 1, &p));
    cudaEvent_t ev;
    CHECK(cudaEventCreate(&ev));
    std::memset(&p, 0, sizeof(p));
    p.type = cudaGraphNodeTypeEventRecord;
    p.eventRecord.event = ev;
    CHECK(cudaGraphAddNode(&rec, g4, &empty, nullptr, 1, &p));
    std::memset(&p, 0, sizeof(p));
    p.type = cudaGraphNodeTypeWaitEvent;
    p.eventWait.event = ev;
    CHECK(cudaGraphAddNode(&wait, g4, &rec, nullptr, 1, &p));
    cudaGraph_t sub;
    CHECK(cudaGraphCreate(&sub, 0));
    cudaGraphNode_t sub_k;
    int *q = m + 5;
    int v = 5;
    void *args[] = {&q, &v};
    cudaKernelNodeParams skp = {};
    skp.func = (void *)add;
    skp.gridDim = dim3(1);
    skp.blockDim = dim3(1);
    skp.kernelParams = args;
    CHECK(cudaGraphAddKernelNode(&sub_k, sub, nullptr, 0, &skp));
    std::memset(&p, 0, sizeof(p));
    p.type = cudaGraphNodeTypeGraph;
    p.graph.graph = sub;
    CHECK(cudaGraphAddNode(&child, g4, &wait, nullptr, 1, &p));
    std::memset(&p, 0, sizeof(p));
    p.type = cudaGraphNodeTypeMemAlloc;
    p.alloc.bytesize = 64;
    p.alloc.poolProps.allocType = cudaMemAllocationTypePinned;
    p.alloc.poolProps.location.type = cudaMemLocationTypeDevice;
    cudaGraphNode_t alloc, free_node;
    CHECK(cudaGraphAddNode(&alloc, g4, &child, nullptr, 1, &p));
    void *dptr = p.alloc.dptr;
    EXPECT(dptr != nullptr);
    std::memset(&p, 0, sizeof(p));
    p.type = cudaGraphNodeTypeMemFree;
    p.free.dptr = dptr;
    CHECK(cudaGraphAddNode(&free_node, g4, &alloc, nullptr, 1, &p));
    std::memset(&p, 0, sizeof(p));
    p.type = cudaGraphNodeTypeExtSemaphoreSignal;
    cudaGraphNode_t sem;
    CHECK(cudaGraphAddNode(&sem, g4, nullptr, nullptr, 0, &p)); // none
    cudaGraphNodeType sem_type;
    CHECK(cudaGraphNodeGetType(sem, &sem_type));
    EXPECT(sem_type == cudaGraphNodeTypeExtSemaphoreSignal);
    cudaGraphNodeType types[] = {
        cudaGraphNodeTypeMemset,      cudaGraphNodeTypeMemcpy,
        cudaGraphNodeTypeHost,        cudaGraphNodeTypeEmpty,
        cudaGraphNodeTypeEventRecord, cudaGraphNodeTypeWaitEvent,
        cudaGraphNodeTypeGraph,       cudaGraphNodeTypeMemAlloc,
        cudaGraphNodeTypeMemFree};
    cudaGraphNode_t made[] = {set,  copy,  host,  empty,    rec,
                              wait, child, alloc, free_node};
    for (int i = 0; i < 9; ++i) {
      cudaGraphNodeType got;
      CHECK(cudaGraphNodeGetType(made[i], &got));
      EXPECT(got == types[i]);
    }
    m[4] = m[5] = 0;
    cudaGraphExec_t x4;
    CHECK(cudaGraphInstantiate(&x4, g4, 0));
    CHECK(cudaGraphLaunch(x4, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(m[4] == 1007 && m[5] == 12); // the copy wrote 7 to both
    CHECK(cudaGraphExecDestroy(x4));
    CHECK(cudaGraphDestroy(g4));
    CHECK(cudaGraphDestroy(sub));
    CHECK(cudaEventDestroy(ev));
    CHECK(cudaFree(d));
  }

  CHECK(cudaStreamDestroy(bs));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(m));
  return finish("graph_capture_info");
}
