// Graph memory: allocation and free nodes made explicitly
// (cudaGraphAddMemAllocNode / cudaGraphAddMemFreeNode) and by stream
// capture (cudaMallocAsync / cudaFreeAsync), an allocation a graph leaves
// allocated and frees with cudaFree, cudaFreeAsync or another graph's free
// node, the memory graphs hold (cudaDeviceGetGraphMemAttribute) and
// cudaDeviceGraphMemTrim.
#include "common.h"

#include <cstdint>
#include <cstring>

__global__ void fill(int *p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = v + i;
}
__global__ void twice(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 2 * in[i];
}

static const int N = 1000;
static const size_t BYTES = N * sizeof(int);

static cudaMemAllocNodeParams alloc_params(size_t bytes) {
  cudaMemAllocNodeParams p;
  std::memset(&p, 0, sizeof(p));
  p.bytesize = bytes;
  p.poolProps.allocType = cudaMemAllocationTypePinned;
  p.poolProps.location.type = cudaMemLocationTypeDevice;
  p.poolProps.location.id = 0;
  return p;
}

static cudaGraphNode_t kernel_node(cudaGraph_t g, cudaGraphNode_t dep,
                                   void *func, void **args) {
  cudaKernelNodeParams kp = {};
  kp.func = func;
  kp.gridDim = dim3((N + 127) / 128);
  kp.blockDim = dim3(128);
  kp.kernelParams = args;
  cudaGraphNode_t n = nullptr;
  CHECK(cudaGraphAddKernelNode(&n, g, dep ? &dep : nullptr, dep ? 1 : 0, &kp));
  return n;
}

// The memory graphs hold, reserved in 32 MiB units.
static uint64_t units(uint64_t bytes) {
  const uint64_t unit = 32ull << 20;
  return (bytes + unit - 1) / unit * unit;
}

static uint64_t footprint() {
  uint64_t v = ~0ull;
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &v));
  return v;
}

static bool check_values(const int *h, int first) {
  for (int i = 0; i < N; ++i)
    if (h[i] != first + 2 * i)
      return false;
  return true;
}

int main() {
  int *host = nullptr;
  CHECK(cudaMallocHost(&host, BYTES));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  // 1. alloc a -> fill a -> alloc b -> twice a->b -> copy b out -> free a, b.
  {
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaMemAllocNodeParams ap = alloc_params(BYTES);
    cudaGraphNode_t alloc_a, alloc_b;
    CHECK(cudaGraphAddMemAllocNode(&alloc_a, g, nullptr, 0, &ap));
    int *a = static_cast<int *>(ap.dptr);
    EXPECT(a != nullptr);
    int n = N, v = 5;
    void *fargs[] = {&a, &n, &v};
    cudaGraphNode_t k1 = kernel_node(g, alloc_a, (void *)fill, fargs);
    CHECK(cudaGraphAddMemAllocNode(&alloc_b, g, &k1, 1, &ap));
    int *b = static_cast<int *>(ap.dptr);
    EXPECT(b != nullptr && b != a);
    void *targs[] = {&a, &b, &n};
    cudaGraphNode_t k2 = kernel_node(g, alloc_b, (void *)twice, targs);
    cudaGraphNode_t copy, free_a, free_b;
    CHECK(cudaGraphAddMemcpyNode1D(&copy, g, &k2, 1, host, b, BYTES,
                                   cudaMemcpyDeviceToHost));
    CHECK(cudaGraphAddMemFreeNode(&free_a, g, &k2, 1, a));
    CHECK(cudaGraphAddMemFreeNode(&free_b, g, &copy, 1, b));
    // A second free of the same allocation, and of memory no allocation
    // node returned, are refused.
    cudaGraphNode_t bad;
    EXPECT(cudaGraphAddMemFreeNode(&bad, g, &copy, 1, b) ==
           cudaErrorInvalidValue);
    EXPECT(cudaGraphAddMemFreeNode(&bad, g, nullptr, 0, host) ==
           cudaErrorInvalidValue);
    cudaMemAllocNodeParams got;
    CHECK(cudaGraphMemAllocNodeGetParams(alloc_b, &got));
    EXPECT(got.dptr == b && got.bytesize == BYTES);
    void *freed = nullptr;
    CHECK(cudaGraphMemFreeNodeGetParams(free_a, &freed));
    EXPECT(freed == a);
    cudaGraphNodeType t;
    CHECK(cudaGraphNodeGetType(free_b, &t));
    EXPECT(t == cudaGraphNodeTypeMemFree);
    cudaGraph_t c;
    EXPECT(cudaGraphClone(&c, g) == cudaErrorNotSupported);

    EXPECT(footprint() == 0);
    cudaGraphExec_t x;
    CHECK(cudaGraphInstantiate(&x, g, 0));
    CHECK(cudaGraphDestroy(g));
    for (int launch = 0; launch < 2; ++launch) {
      std::memset(host, 0, BYTES);
      CHECK(cudaGraphLaunch(x, s));
      CHECK(cudaStreamSynchronize(s));
      EXPECT(check_values(host, 10));
    }
    // The memory stays with the graphs until it is trimmed.
    EXPECT(footprint() == units(2 * BYTES));
    CHECK(cudaGraphExecDestroy(x));
    CHECK(cudaDeviceGraphMemTrim(0));
    EXPECT(footprint() == 0);
  }

  // 2. The same by stream capture.
  {
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    int *a = nullptr, *b = nullptr;
    CHECK(cudaMallocAsync(&a, BYTES, s));
    CHECK(cudaMallocAsync(&b, BYTES, s));
    fill<<<(N + 127) / 128, 128, 0, s>>>(a, N, 7);
    twice<<<(N + 127) / 128, 128, 0, s>>>(a, b, N);
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaMemcpyAsync(host, b, BYTES, cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(b, s));
    cudaGraph_t g;
    CHECK(cudaStreamEndCapture(s, &g));
    size_t count = 0;
    CHECK(cudaGraphGetNodes(g, nullptr, &count));
    EXPECT(count == 7);
    cudaGraphNode_t nodes[7];
    CHECK(cudaGraphGetNodes(g, nodes, &count));
    cudaGraphNodeType t0, t4;
    CHECK(cudaGraphNodeGetType(nodes[0], &t0));
    CHECK(cudaGraphNodeGetType(nodes[4], &t4));
    EXPECT(t0 == cudaGraphNodeTypeMemAlloc && t4 == cudaGraphNodeTypeMemFree);
    cudaGraphExec_t x;
    CHECK(cudaGraphInstantiate(&x, g, 0));
    for (int launch = 0; launch < 2; ++launch) {
      std::memset(host, 0, BYTES);
      CHECK(cudaGraphLaunch(x, s));
      CHECK(cudaStreamSynchronize(s));
      EXPECT(check_values(host, 14));
    }
    CHECK(cudaGraphExecDestroy(x));
    CHECK(cudaGraphDestroy(g));
  }

  // 3. A graph that leaves its allocation allocated: the memory is usable
  // after the launch until it is freed, and the graph may be launched
  // again only once it is.
  {
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaMemAllocNodeParams ap = alloc_params(BYTES);
    cudaGraphNode_t alloc;
    CHECK(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
    int *a = static_cast<int *>(ap.dptr);
    int n = N, v = 3;
    void *fargs[] = {&a, &n, &v};
    kernel_node(g, alloc, (void *)fill, fargs);
    cudaGraphExec_t x;
    CHECK(cudaGraphInstantiate(&x, g, 0));
    CHECK(cudaGraphDestroy(g));

    // A graph that only frees it.
    cudaGraph_t fg;
    CHECK(cudaGraphCreate(&fg, 0));
    cudaGraphNode_t fnode;
    CHECK(cudaGraphAddMemFreeNode(&fnode, fg, nullptr, 0, a));
    cudaGraphExec_t fx;
    CHECK(cudaGraphInstantiate(&fx, fg, 0));
    CHECK(cudaGraphDestroy(fg));

    int *b = nullptr;
    CHECK(cudaMalloc(&b, BYTES));
    for (int round = 0; round < 3; ++round) {
      CHECK(cudaGraphLaunch(x, s));
      // Still allocated: a second launch is refused.
      EXPECT(cudaGraphLaunch(x, s) == cudaErrorInvalidValue);
      EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
      twice<<<(N + 127) / 128, 128, 0, s>>>(a, b, N);
      CHECK(cudaMemcpyAsync(host, b, BYTES, cudaMemcpyDeviceToHost, s));
      CHECK(cudaStreamSynchronize(s));
      EXPECT(check_values(host, 6));
      EXPECT(footprint() >= BYTES);
      if (round == 0) {
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaFree(a));
      } else if (round == 1) {
        CHECK(cudaFreeAsync(a, s));
        CHECK(cudaStreamSynchronize(s));
      } else {
        CHECK(cudaGraphLaunch(fx, s));
        CHECK(cudaStreamSynchronize(s));
      }
    }
    CHECK(cudaFree(b));
    CHECK(cudaGraphExecDestroy(x));
    CHECK(cudaGraphExecDestroy(fx));
  }

  // Instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch, a launch
  // frees what the previous one left allocated.
  {
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaMemAllocNodeParams ap = alloc_params(BYTES);
    cudaGraphNode_t alloc;
    CHECK(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
    cudaGraphExec_t x;
    CHECK(
        cudaGraphInstantiate(&x, g, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(ap.dptr));
    CHECK(cudaGraphExecDestroy(x));
    CHECK(cudaGraphDestroy(g));
  }

  // 4. Trimming keeps what is still allocated; the high watermark can be
  // reset to the current value.
  {
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaMemAllocNodeParams ap = alloc_params(4 * BYTES);
    cudaGraphNode_t alloc;
    CHECK(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
    cudaGraphExec_t x;
    CHECK(cudaGraphInstantiate(&x, g, 0));
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaDeviceGraphMemTrim(0));
    EXPECT(footprint() == units(4 * BYTES));
    CHECK(cudaFree(ap.dptr));
    EXPECT(footprint() == units(4 * BYTES));
    CHECK(cudaDeviceGraphMemTrim(0));
    EXPECT(footprint() == 0);
    uint64_t high = 0, zero = 0;
    CHECK(
        cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &high));
    EXPECT(high >= 4 * BYTES);
    CHECK(
        cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
    CHECK(
        cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &high));
    EXPECT(high == 0);
    CHECK(cudaGraphExecDestroy(x));
    CHECK(cudaGraphDestroy(g));
  }

  // 5. cudaFreeAsync of ordinary memory frees it in stream order.
  {
    int *p = nullptr;
    CHECK(cudaMallocAsync(&p, BYTES, s));
    fill<<<(N + 127) / 128, 128, 0, s>>>(p, N, 1);
    CHECK(cudaMemcpyAsync(host, p, BYTES, cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(p, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(host[0] == 1 && host[N - 1] == N);
    EXPECT(cudaFree(p) == cudaErrorInvalidValue); // already freed
  }

  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFreeHost(host));
  return finish("graph_memory");
}
