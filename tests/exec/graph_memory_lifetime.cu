// Graph and stream-ordered memory accessed outside its lifetime: a kernel
// that reads an allocation after its free node, cudaFreeAsync or cudaFree
// ran is reported (a use after free; the memory stays mapped, so the launch
// completes as on a GPU); one that reads it before its allocation node
// first ran faults (the memory is not mapped yet, as on a GPU).
//
//   graph_memory_lifetime CASE   with CASE one of
//     free_node    a kernel node after the free node reads the memory
//     fixed        the same kernel node before the free node (clean)
//     captured     the same by stream capture: cudaFreeAsync before the
//                  kernel that reads (cudaMallocAsync in a capture)
//     after_launch a graph leaves its allocation allocated, the program
//                  frees it with cudaFreeAsync and then reads it in a kernel
//     before_alloc a kernel reads the allocation before the graph ran: the
//                  launch fails with cudaErrorIllegalAddress (sticky)
//     async        cudaMallocAsync / cudaFreeAsync outside a capture, then
//                  a kernel in the same stream reads the memory
//     async_fixed  the kernel reads before cudaFreeAsync (clean)
#include "common.h"

#include <cstring>
#include <string>

static const int N = 256;

__global__ void fill(int *p) { p[threadIdx.x] = int(threadIdx.x); }
__global__ void sum(const int *p, int *out) { atomicAdd(out, p[threadIdx.x]); }

static cudaMemAllocNodeParams alloc_params() {
  cudaMemAllocNodeParams p;
  std::memset(&p, 0, sizeof(p));
  p.bytesize = N * sizeof(int);
  p.poolProps.allocType = cudaMemAllocationTypePinned;
  p.poolProps.location.type = cudaMemLocationTypeDevice;
  p.poolProps.location.id = 0;
  return p;
}

static cudaGraphNode_t kernel_node(cudaGraph_t g, cudaGraphNode_t dep,
                                   void *func, void **args) {
  cudaKernelNodeParams kp = {};
  kp.func = func;
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(N);
  kp.kernelParams = args;
  cudaGraphNode_t n = nullptr;
  CHECK(cudaGraphAddKernelNode(&n, g, dep ? &dep : nullptr, dep ? 1 : 0, &kp));
  return n;
}

int main(int argc, char **argv) {
  const std::string c = argc > 1 ? argv[1] : "";
  cudaStream_t s; // blocking: ordered after the cudaMemset below
  CHECK(cudaStreamCreate(&s));
  int *out = nullptr;
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(out, 0, sizeof(int)));
  const int want = N * (N - 1) / 2;
  if (c == "free_node" || c == "fixed" || c == "after_launch" ||
      c == "before_alloc") {
    // alloc a -> fill a -> [sum a] -> free a -> [sum a]
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaMemAllocNodeParams ap = alloc_params();
    cudaGraphNode_t alloc, k1, k2, freed;
    CHECK(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
    int *a = static_cast<int *>(ap.dptr);
    void *fargs[] = {&a};
    void *sargs[] = {&a, &out};
    k1 = kernel_node(g, alloc, (void *)fill, fargs);
    if (c == "free_node") {
      CHECK(cudaGraphAddMemFreeNode(&freed, g, &k1, 1, a));
      k2 = kernel_node(g, freed, (void *)sum, sargs);
    } else if (c == "fixed") {
      k2 = kernel_node(g, k1, (void *)sum, sargs);
      CHECK(cudaGraphAddMemFreeNode(&freed, g, &k2, 1, a));
    }
    cudaGraphExec_t x;
    CHECK(cudaGraphInstantiate(&x, g, 0));
    if (c == "before_alloc") {
      // The memory is not mapped before the allocation node first ran: the
      // kernel faults, and the error is sticky.
      sum<<<1, N, 0, s>>>(a, out);
      cudaGraphLaunch(x, s); // refused if the fault came first
      EXPECT(cudaStreamSynchronize(s) == cudaErrorIllegalAddress);
      EXPECT(cudaGetLastError() == cudaErrorIllegalAddress);
      int h = 0;
      EXPECT(cudaMemcpy(&h, out, sizeof(int), cudaMemcpyDeviceToHost) ==
             cudaErrorIllegalAddress);
      return finish("graph_memory_lifetime");
    }
    CHECK(cudaGraphLaunch(x, s));
    if (c == "after_launch") {
      CHECK(cudaFreeAsync(a, s));
      sum<<<1, N, 0, s>>>(a, out);
      CHECK(cudaGetLastError());
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(x));
    CHECK(cudaGraphDestroy(g));
  } else if (c == "captured") {
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    int *a = nullptr;
    CHECK(cudaMallocAsync(&a, N * sizeof(int), s));
    fill<<<1, N, 0, s>>>(a);
    CHECK(cudaFreeAsync(a, s));
    sum<<<1, N, 0, s>>>(a, out);
    cudaGraph_t g;
    CHECK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t x;
    CHECK(cudaGraphInstantiate(&x, g, 0));
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(x));
    CHECK(cudaGraphDestroy(g));
  } else if (c == "async" || c == "async_fixed") {
    int *a = nullptr;
    CHECK(cudaMallocAsync(&a, N * sizeof(int), s));
    fill<<<1, N, 0, s>>>(a);
    if (c == "async_fixed")
      sum<<<1, N, 0, s>>>(a, out);
    CHECK(cudaFreeAsync(a, s));
    if (c == "async")
      sum<<<1, N, 0, s>>>(a, out);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));
    // Released at the synchronization: freeing again is an error.
    EXPECT(cudaFree(a) == cudaErrorInvalidValue);
    cudaGetLastError();
  } else {
    return 2;
  }
  int h = 0;
  CHECK(cudaMemcpy(&h, out, sizeof(int), cudaMemcpyDeviceToHost));
  // Freed memory keeps its bytes here (a GPU gives no such promise).
  if (c == "fixed" || c == "async_fixed" || c == "free_node" ||
      c == "captured" || c == "async")
    EXPECT(h == want);
  CHECK(cudaFree(out));
  CHECK(cudaStreamDestroy(s));
  return finish("graph_memory_lifetime");
}
