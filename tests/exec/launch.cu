// Launch API group: <<<>>> with dynamic shared memory, cudaLaunchKernel,
// cudaLaunchKernelEx with cluster dimensions and programmatic dependent
// launch, __cluster_dims__, cooperative launch, function attributes,
// occupancy, device queries, events, streams and graph replay.
#include "common.h"
#include <cooperative_groups.h>
#include <cstring>
namespace cg = cooperative_groups;

__global__ void block_sum(const int *in, int *out) {
  extern __shared__ int buf[];
  buf[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

__global__ void cluster_rank(int *out) {
  cg::cluster_group c = cg::this_cluster();
  if (threadIdx.x == 0)
    out[blockIdx.x] = int(c.block_rank()) * 100 + int(c.num_blocks());
}

__global__ void __cluster_dims__(2, 1, 1) fixed_cluster(int *out) {
  cg::cluster_group c = cg::this_cluster();
  if (threadIdx.x == 0)
    out[blockIdx.x] = int(c.num_blocks());
}

__global__ void grid_total(int *data, int *total) {
  cg::grid_group g = cg::this_grid();
  atomicAdd(total, data[g.thread_rank()]);
  g.sync();
  data[g.thread_rank()] = *total;
}

__global__ void add_one(int *x) { x[threadIdx.x] += 1; }

__global__ void dependent(int *x) {
  cudaGridDependencySynchronize();
  x[threadIdx.x] *= 2;
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  EXPECT(prop.major == 9 && prop.minor == 0 && prop.warpSize == 32);
  EXPECT(prop.multiProcessorCount == 132 && prop.maxThreadsPerBlock == 1024);
  EXPECT(prop.cooperativeLaunch == 1 && prop.managedMemory == 1);
  EXPECT(prop.sharedMemPerBlockOptin == 232448);
  int v = 0, count = 0;
  CHECK(cudaGetDeviceCount(&count));
  EXPECT(count == 1);
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrClusterLaunch, 0));
  EXPECT(v == 1);
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 0));
  EXPECT(v > 1000000);
  // The attributes a device query reads agree with the properties (the
  // CUDA samples' simpleMultiCopy prints whether copies overlap kernels).
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrGpuOverlap, 0));
  EXPECT(v == 1);
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrAsyncEngineCount, 0));
  EXPECT(v == prop.asyncEngineCount);
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrTexturePitchAlignment, 0));
  EXPECT(v == int(prop.texturePitchAlignment));
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxTexture2DHeight, 0));
  EXPECT(v == prop.maxTexture2D[1]);
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxPersistingL2CacheSize, 0));
  EXPECT(v == prop.persistingL2CacheMaxSize);
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrHostRegisterReadOnlySupported,
                               0));
  EXPECT(v == prop.hostRegisterReadOnlySupported);
  CHECK(cudaDriverGetVersion(&v));
  EXPECT(v >= 13000);

  const int blocks = 8, threads = 256;
  int *in, *out;
  CHECK(cudaMallocManaged(&in, blocks * threads * sizeof(int)));
  CHECK(cudaMallocManaged(&out, blocks * threads * sizeof(int)));
  for (int i = 0; i < blocks * threads; ++i)
    in[i] = i % 7;
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  block_sum<<<blocks, threads, threads * sizeof(int)>>>(in, out);
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  EXPECT(ms >= 0);
  for (int b = 0; b < blocks; ++b) {
    int want = 0;
    for (int t = 0; t < threads; ++t)
      want += (b * threads + t) % 7;
    EXPECT(out[b] == want);
  }
  // The same through cudaLaunchKernel.
  void *args[] = {&in, &out};
  std::memset(out, 0, blocks * sizeof(int));
  CHECK(cudaLaunchKernel((const void *)block_sum, dim3(blocks), dim3(threads),
                         args, threads * sizeof(int), 0));
  // A launch returns before its kernel ends: the host waits before it
  // reads managed memory.
  CHECK(cudaDeviceSynchronize());
  EXPECT(out[0] > 0);
  // More dynamic shared memory than 48 KiB needs the opt-in attribute.
  block_sum<<<1, threads, 64 * 1024>>>(in, out);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaFuncSetAttribute(block_sum,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             64 * 1024));
  block_sum<<<1, threads, 64 * 1024>>>(in, out);
  CHECK(cudaGetLastError());

  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, fixed_cluster));
  EXPECT(fa.requiredClusterWidth == 2);
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_total,
                                                      256, 0));
  EXPECT(per_sm == 8);
  int min_grid = 0, best_block = 0;
  CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &best_block,
                                           grid_total));
  EXPECT(best_block > 0 && min_grid > 0);

  // Clusters: through the launch attribute and through __cluster_dims__.
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(8);
  cfg.blockDim = dim3(32);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 4;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, cluster_rank, out));
  CHECK(cudaDeviceSynchronize());
  EXPECT(out[0] == 4 && out[5] == 104 && out[7] == 304);
  fixed_cluster<<<4, 32>>>(out);
  CHECK(cudaDeviceSynchronize());
  EXPECT(out[3] == 2);

  // Cooperative launch with grid.sync.
  int *total;
  CHECK(cudaMallocManaged(&total, sizeof(int)));
  *total = 0;
  for (int i = 0; i < 4 * 64; ++i)
    in[i] = 1;
  void *gargs[] = {&in, &total};
  CHECK(cudaLaunchCooperativeKernel((const void *)grid_total, dim3(4),
                                    dim3(64), gargs, 0, 0));
  CHECK(cudaDeviceSynchronize());
  EXPECT(in[0] == 256 && in[255] == 256);
  EXPECT(cudaLaunchCooperativeKernel((const void *)grid_total, dim3(100000),
                                     dim3(1024), gargs, 0, 0) ==
         cudaErrorCooperativeLaunchTooLarge);

  // Programmatic dependent launch.
  for (int i = 0; i < 32; ++i)
    in[i] = i;
  add_one<<<1, 32>>>(in);
  cudaLaunchAttribute pdl[1];
  pdl[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  pdl[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.gridDim = dim3(1);
  cfg.attrs = pdl;
  CHECK(cudaLaunchKernelEx(&cfg, dependent, in));
  CHECK(cudaDeviceSynchronize());
  EXPECT(in[5] == 12);

  // Stream capture into a graph, replayed three times.
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  for (int i = 0; i < 32; ++i)
    in[i] = 0;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  add_one<<<1, 32, 0, s>>>(in);
  add_one<<<1, 32, 0, s>>>(in);
  CHECK(cudaStreamEndCapture(s, &graph));
  EXPECT(in[0] == 0); // captured, not run
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int k = 0; k < 3; ++k)
    CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(in[0] == 6 && in[31] == 6);
  // Host callbacks run in stream order.
  int calls = 0;
  CHECK(cudaLaunchHostFunc(s, [](void *p) { *static_cast<int *>(p) += 1; },
                           &calls));
  CHECK(cudaStreamAddCallback(
      s,
      [](cudaStream_t, cudaError_t status, void *p) {
        *static_cast<int *>(p) += status == cudaSuccess ? 10 : 100;
      },
      &calls, 0));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(calls == 11);
  const char *name = nullptr;
  CHECK(cudaFuncGetName(&name, add_one));
  EXPECT(name && std::strcmp(name, "_Z7add_onePi") == 0);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return finish("launch");
}
