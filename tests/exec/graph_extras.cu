// Graph nodes that copy to and from symbols (__device__ and __constant__
// variables), kernel node attributes (the cluster dimension takes effect,
// others are kept and reported), a copy node into a CUDA array and
// cudaGraphDebugDotPrint.
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

#include "common.h"

constexpr int N = 64;

__device__ int dev_var[N];
__constant__ int const_var[N];

__global__ void use(int *out, unsigned *ranks) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  dev_var[i] += 1;
  out[i] = dev_var[i] + const_var[i];
  unsigned n;
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  if (threadIdx.x == 0)
    ranks[blockIdx.x] = n;
}

static void expect_all(const int *v, int (*f)(int)) {
  bool ok = true;
  for (int i = 0; i < N; ++i)
    ok = ok && v[i] == f(i);
  EXPECT(ok);
}

int main() {
  static int a[N], b[N], c[N], out_h[N];
  for (int i = 0; i < N; ++i)
    a[i] = i, b[i] = 1000;
  int *out = nullptr;
  unsigned *ranks = nullptr;
  CHECK(cudaMalloc(&out, N * sizeof(int)));
  CHECK(cudaMalloc(&ranks, 4 * sizeof(unsigned)));

  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphNode_t to_dev, to_const, kernel, from_dev, child;
  CHECK(cudaGraphAddMemcpyNodeToSymbol(&to_dev, g, nullptr, 0, dev_var, a,
                                       sizeof(a), 0, cudaMemcpyHostToDevice));
  CHECK(cudaGraphAddMemcpyNodeToSymbol(&to_const, g, nullptr, 0, const_var, b,
                                       sizeof(b), 0, cudaMemcpyHostToDevice));
  cudaKernelNodeParams kp;
  std::memset(&kp, 0, sizeof(kp));
  void *args[] = {&out, &ranks};
  kp.func = reinterpret_cast<void *>(use);
  kp.gridDim = dim3(4);
  kp.blockDim = dim3(N / 4);
  kp.kernelParams = args;
  cudaGraphNode_t deps[] = {to_dev, to_const};
  CHECK(cudaGraphAddKernelNode(&kernel, g, deps, 2, &kp));
  CHECK(cudaGraphAddMemcpyNodeFromSymbol(&from_dev, g, &kernel, 1, c, dev_var,
                                         sizeof(c), 0, cudaMemcpyDeviceToHost));
  cudaGraph_t inner;
  CHECK(cudaGraphCreate(&inner, 0));
  cudaGraphNode_t empty;
  CHECK(cudaGraphAddEmptyNode(&empty, inner, nullptr, 0));
  CHECK(cudaGraphAddChildGraphNode(&child, g, &from_dev, 1, inner));

  // A copy to a __device__ or __constant__ variable reads back with the
  // variable's address.
  cudaMemcpy3DParms p;
  CHECK(cudaGraphMemcpyNodeGetParams(to_dev, &p));
  void *addr = nullptr;
  CHECK(cudaGetSymbolAddress(&addr, dev_var));
  EXPECT(p.dstPtr.ptr == addr && p.srcPtr.ptr == a &&
         p.extent.width == sizeof(a));
  CHECK(cudaGraphMemcpyNodeGetParams(to_const, &p));
  CHECK(cudaGetSymbolAddress(&addr, const_var));
  EXPECT(p.dstPtr.ptr == addr && p.extent.width == sizeof(b));
  // Bad symbol copies are refused when the node is made.
  cudaGraphNode_t bad;
  EXPECT(cudaGraphAddMemcpyNodeToSymbol(&bad, g, nullptr, 0, dev_var, a,
                                        sizeof(a), 4, cudaMemcpyHostToDevice) ==
         cudaErrorInvalidValue);
  EXPECT(cudaGraphAddMemcpyNodeToSymbol(&bad, g, nullptr, 0, dev_var, a,
                                        sizeof(a), 0, cudaMemcpyDeviceToHost) ==
         cudaErrorInvalidMemcpyDirection);
  cudaGetLastError();

  // Kernel node attributes: defaults, then a cluster of 2 and a priority.
  cudaKernelNodeAttrValue v;
  CHECK(cudaGraphKernelNodeGetAttribute(
      kernel, cudaKernelNodeAttributeClusterDimension, &v));
  EXPECT(v.clusterDim.x == 0);
  std::memset(&v, 0, sizeof(v));
  v.clusterDim.x = 2, v.clusterDim.y = 1, v.clusterDim.z = 1;
  CHECK(cudaGraphKernelNodeSetAttribute(
      kernel, cudaKernelNodeAttributeClusterDimension, &v));
  // A priority is clamped into the stream priority range [greatest, least].
  int least = 0, greatest = 0;
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  for (int set : {3, -9, -1}) {
    std::memset(&v, 0, sizeof(v));
    v.priority = set;
    CHECK(cudaGraphKernelNodeSetAttribute(kernel,
                                          cudaKernelNodeAttributePriority, &v));
    std::memset(&v, 0, sizeof(v));
    CHECK(cudaGraphKernelNodeGetAttribute(kernel,
                                          cudaKernelNodeAttributePriority, &v));
    EXPECT(v.priority == (set > least      ? least
                          : set < greatest ? greatest
                                           : set));
  }
  EXPECT(least == 0 && greatest == -5);
  EXPECT(cudaGraphKernelNodeSetAttribute(to_dev,
                                         cudaKernelNodeAttributePriority,
                                         &v) == cudaErrorInvalidValue);
  cudaGetLastError();

  cudaGraphExec_t x;
  CHECK(cudaGraphInstantiate(&x, g, 0));
  CHECK(cudaGraphLaunch(x, 0));
  CHECK(cudaStreamSynchronize(0));
  CHECK(cudaMemcpy(out_h, out, sizeof(out_h), cudaMemcpyDeviceToHost));
  expect_all(out_h, [](int i) { return i + 1 + 1000; });
  expect_all(c, [](int i) { return i + 1; });
  unsigned rh[4];
  CHECK(cudaMemcpy(rh, ranks, sizeof(rh), cudaMemcpyDeviceToHost));
  EXPECT(rh[0] == 2 && rh[1] == 2 && rh[2] == 2 && rh[3] == 2);

  // New sources: in the graph (for the next instantiation) and in the
  // executable graph.
  static int a2[N], b2[N];
  for (int i = 0; i < N; ++i)
    a2[i] = 10 * i, b2[i] = 7;
  CHECK(cudaGraphExecMemcpyNodeSetParamsToSymbol(
      x, to_dev, dev_var, a2, sizeof(a2), 0, cudaMemcpyHostToDevice));
  CHECK(cudaGraphExecMemcpyNodeSetParamsToSymbol(
      x, to_const, const_var, b2, sizeof(b2), 0, cudaMemcpyHostToDevice));
  CHECK(cudaGraphLaunch(x, 0));
  CHECK(cudaStreamSynchronize(0));
  CHECK(cudaMemcpy(out_h, out, sizeof(out_h), cudaMemcpyDeviceToHost));
  expect_all(out_h, [](int i) { return 10 * i + 1 + 7; });
  expect_all(c, [](int i) { return 10 * i + 1; });
  CHECK(cudaGraphMemcpyNodeSetParamsFromSymbol(
      from_dev, out_h, dev_var, sizeof(out_h), 0, cudaMemcpyDeviceToHost));

  // A copy node into a CUDA array: widths and positions in elements.
  {
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<int>();
    cudaArray_t arr;
    CHECK(cudaMallocArray(&arr, &desc, 16, 2));
    static int rows[2][16], back[2][16];
    for (int i = 0; i < 32; ++i)
      rows[i / 16][i % 16] = 3 * i;
    cudaMemcpy3DParms cp;
    std::memset(&cp, 0, sizeof(cp));
    cp.srcPtr = make_cudaPitchedPtr(rows, sizeof(rows[0]), 16, 2);
    cp.dstArray = arr;
    cp.extent = make_cudaExtent(16, 2, 1);
    cp.kind = cudaMemcpyHostToDevice;
    cudaGraph_t ag;
    cudaGraphNode_t an;
    cudaGraphExec_t ax;
    CHECK(cudaGraphCreate(&ag, 0));
    CHECK(cudaGraphAddMemcpyNode(&an, ag, nullptr, 0, &cp));
    CHECK(cudaGraphInstantiate(&ax, ag, 0));
    CHECK(cudaGraphLaunch(ax, 0));
    CHECK(cudaStreamSynchronize(0));
    CHECK(cudaMemcpy2DFromArray(back, sizeof(back[0]), arr, 0, 0,
                                sizeof(back[0]), 2, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int i = 0; i < 32; ++i)
      ok = ok && back[i / 16][i % 16] == 3 * i;
    EXPECT(ok);
    CHECK(cudaGraphExecDestroy(ax));
    CHECK(cudaGraphDestroy(ag));
    CHECK(cudaFreeArray(arr));
  }

  // The DOT file: nodes, edges, the child graph as a cluster.
  char path[] = "/tmp/bcusim_graph_XXXXXX";
  int fd = mkstemp(path);
  EXPECT(fd >= 0);
  close(fd);
  CHECK(cudaGraphDebugDotPrint(g, path, cudaGraphDebugDotFlagsVerbose));
  std::string dot;
  if (std::FILE *f = std::fopen(path, "r")) {
    char buf[4096];
    size_t k;
    while ((k = std::fread(buf, 1, sizeof(buf), f)) > 0)
      dot.append(buf, k);
    std::fclose(f);
  }
  std::remove(path);
  // A GPU's runtime writes another layout (records of the nodes' fields,
  // docs/exec.md "Measured on H200"): only its graph and kernel name are
  // common to both.
  const bool bcusim = under_bcusim();
  std::vector<const char *> wants = {"digraph", "_Z3usePiPj"};
  if (bcusim)
    wants.insert(wants.end(),
                 {"0: MEMCPY", "2: KERNEL", "4: CHILD_GRAPH", "n_0 -> n_2;",
                  "n_1 -> n_2;", "n_2 -> n_3;", "n_3 -> n_4;",
                  "subgraph cluster_n_4_0", "n_4_0_0 [label=\"0: EMPTY",
                  "cluster (2,1,1)", "priority -1"});
  for (const char *want : wants) {
    if (dot.find(want) == std::string::npos) {
      std::printf("the DOT file lacks '%s':\n%s\n", want, dot.c_str());
      ++g_failures;
    }
  }
  EXPECT(cudaGraphDebugDotPrint(g, "/nonexistent/dir/g.dot", 0) ==
         cudaErrorOperatingSystem);
  cudaGetLastError();

  CHECK(cudaGraphExecDestroy(x));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaGraphDestroy(inner));
  CHECK(cudaFree(out));
  CHECK(cudaFree(ranks));
  return finish("graph_extras");
}
