// Probes: reserved shared memory, cuLaunchKernel `extra` sizes, memory pools,
// kernel node priority.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;
#define P(...) std::printf(__VA_ARGS__)
__global__ void layout(unsigned *out) {
  __shared__ int a[4];
  __shared__ int b[8];
  extern __shared__ int dyn[];
  a[threadIdx.x] = 1;
  b[threadIdx.x] = 2;
  dyn[threadIdx.x] = 3;
  unsigned tot, dsz, r0;
  asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(tot));
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dsz));
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r0) : "r"(unsigned(out[60])));
  out[0] = unsigned(__cvta_generic_to_shared(a));
  out[1] = unsigned(__cvta_generic_to_shared(b));
  out[2] = unsigned(__cvta_generic_to_shared(dyn));
  out[3] = tot;
  out[4] = dsz;
  out[5] = r0;
}
__global__ void dyn_only(unsigned *out) {
  extern __shared__ int dyn[];
  dyn[threadIdx.x] = 3;
  out[0] = unsigned(__cvta_generic_to_shared(dyn));
}
__global__ void store0(unsigned *out, unsigned z) {
  unsigned v;
  asm volatile("st.shared.u32 [%1], 77;\n\tld.shared.u32 %0, [%1];"
               : "=r"(v)
               : "r"(z));
  out[0] = v;
}
__global__ void store_below(unsigned *out) {
  __shared__ int a[4];
  int *p = a - 4; // 16 bytes below the first variable
  p[threadIdx.x] = 5;
  out[0] = unsigned(__cvta_generic_to_shared(p));
}
__global__ void __cluster_dims__(2, 1, 1) peer(unsigned *out) {
  __shared__ int a[4];
  auto cl = cg::this_cluster();
  a[0] = int(cl.block_rank());
  cl.sync();
  int *q = cl.map_shared_rank(a, 1 - cl.block_rank());
  unsigned m;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(m)
               : "r"(unsigned(__cvta_generic_to_shared(a))),
                 "r"(1 - cl.block_rank()));
  out[blockIdx.x * 4 + 0] = unsigned(__cvta_generic_to_shared(a));
  out[blockIdx.x * 4 + 1] = m;
  out[blockIdx.x * 4 + 2] = unsigned(q[0]);
  cl.sync();
}
__global__ void saxpy(float a, float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
__global__ void k1(int *p) {
  if (p)
    *p = 1;
}
int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  const char *mode = argc > 1 ? argv[1] : "all";
  unsigned *out;
  cudaMalloc(&out, 64 * sizeof(unsigned));
  unsigned h[64];
  if (!strcmp(mode, "store0") || !strcmp(mode, "store_below")) {
    cudaMemset(out, 0xff, 64 * 4);
    if (!strcmp(mode, "store0"))
      store0<<<1, 1>>>(out, 0u);
    else
      store_below<<<1, 4>>>(out);
    cudaError_t e = cudaDeviceSynchronize();
    cudaError_t e2 = cudaMemcpy(h, out, 8, cudaMemcpyDeviceToHost);
    P("%s: sync %s copy %s value %u\n", mode, cudaGetErrorName(e),
      cudaGetErrorName(e2), h[0]);
    return 0;
  }
  int v = -1;
  cudaDeviceGetAttribute(&v, cudaDevAttrReservedSharedMemoryPerBlock, 0);
  P("ReservedSharedMemoryPerBlock %d\n", v);
  cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
  P("MaxSharedMemoryPerBlockOptin %d\n", v);
  cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlock, 0);
  P("MaxSharedMemoryPerBlock %d\n", v);
  cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0);
  P("MaxSharedMemoryPerMultiprocessor %d\n", v);
  cudaFuncAttributes fa;
  cudaFuncGetAttributes(&fa, layout);
  P("layout: sharedSizeBytes %zu maxDynamicSharedSizeBytes %d\n",
    fa.sharedSizeBytes, fa.maxDynamicSharedSizeBytes);
  cudaMemset(out, 0, 64 * 4);
  layout<<<1, 4, 100>>>(out);
  cudaDeviceSynchronize();
  cudaMemcpy(h, out, 6 * 4, cudaMemcpyDeviceToHost);
  P("layout (dyn 100 B): a@%u b@%u dyn@%u total_smem_size %u dynamic_smem_size "
    "%u ld[0] %u (%s)\n",
    h[0], h[1], h[2], h[3], h[4], h[5], cudaGetErrorName(cudaGetLastError()));
  dyn_only<<<1, 4, 64>>>(out);
  cudaDeviceSynchronize();
  cudaMemcpy(h, out, 4, cudaMemcpyDeviceToHost);
  P("dyn_only: dyn@%u\n", h[0]);
  peer<<<2, 32>>>(out);
  cudaError_t pe = cudaDeviceSynchronize();
  cudaMemcpy(h, out, 8 * 4, cudaMemcpyDeviceToHost);
  P("peer (%s): cta0 a@%u mapa %#x peer a[0] %u; cta1 a@%u mapa %#x peer a[0] "
    "%u\n",
    cudaGetErrorName(pe), h[0], h[1], h[2], h[4], h[5], h[6]);
  // cuLaunchKernel with `extra`
  cudaFunction_t f;
  cudaGetFuncBySymbol(&f, (const void *)saxpy);
  float *x, *y;
  cudaMalloc(&x, 1024 * 4);
  cudaMalloc(&y, 1024 * 4);
  struct Packed {
    float a;
    int pad;
    float *x, *y;
    int n;
  } pk{1.0f, 0, x, y, 1024};
  for (size_t sz : {size_t(24), size_t(28), size_t(32), size_t(40)}) {
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &pk,
                     CU_LAUNCH_PARAM_BUFFER_SIZE, &sz, CU_LAUNCH_PARAM_END};
    CUresult r = cuLaunchKernel((CUfunction)f, 8, 1, 1, 128, 1, 1, 0, nullptr,
                                nullptr, extra);
    const char *nm = nullptr;
    cuGetErrorName(r, &nm);
    P("extra size %zu: %s; sync %s\n", sz, nm,
      cudaGetErrorName(cudaDeviceSynchronize()));
  }
  // kernel node priority
  int lo, hi;
  cudaDeviceGetStreamPriorityRange(&lo, &hi);
  P("stream priority range least %d greatest %d\n", lo, hi);
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaKernelNodeParams kp{};
  int *np = nullptr;
  void *args[] = {&np};
  kp.func = (void *)k1;
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(1);
  kp.kernelParams = args;
  cudaGraphNode_t kn;
  cudaGraphAddKernelNode(&kn, g, nullptr, 0, &kp);
  for (int pr : {3, 1, 0, -1, -5, -9}) {
    cudaKernelNodeAttrValue av;
    memset(&av, 0, sizeof av);
    av.priority = pr;
    cudaError_t e = cudaGraphKernelNodeSetAttribute(
        kn, cudaKernelNodeAttributePriority, &av);
    memset(&av, 0x55, sizeof av);
    cudaError_t e2 = cudaGraphKernelNodeGetAttribute(
        kn, cudaKernelNodeAttributePriority, &av);
    P("node priority set %d: %s get %s -> %d\n", pr, cudaGetErrorName(e),
      cudaGetErrorName(e2), av.priority);
  }
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaStreamAttrValue sv;
  memset(&sv, 0x55, sizeof sv);
  P("stream syncPolicy get %s -> %d\n",
    cudaGetErrorName(cudaStreamGetAttribute(
        s, cudaStreamAttributeSynchronizationPolicy, &sv)),
    int(sv.syncPolicy));
  memset(&sv, 0x55, sizeof sv);
  P("stream priority attr get %s -> %d\n",
    cudaGetErrorName(
        cudaStreamGetAttribute(s, cudaStreamAttributePriority, &sv)),
    sv.priority);
  // memory pools
  cudaMemPool_t def;
  cudaDeviceGetDefaultMemPool(&def, 0);
  auto a64 = [](cudaMemPool_t p, cudaMemPoolAttr at) {
    unsigned long long v = ~0ull;
    cudaMemPoolGetAttribute(p, at, &v);
    return v;
  };
  int *c1, *c2, *c3;
  cudaMallocAsync(&c1, 1024, s);
  P("pool: after 1 KiB async: used %llu reserved %llu\n",
    a64(def, cudaMemPoolAttrUsedMemCurrent),
    a64(def, cudaMemPoolAttrReservedMemCurrent));
  cudaMallocAsync(&c2, 40 << 20, s);
  P("pool: after +40 MiB: used %llu reserved %llu\n",
    a64(def, cudaMemPoolAttrUsedMemCurrent),
    a64(def, cudaMemPoolAttrReservedMemCurrent));
  cudaError_t fe = cudaFree(c1);
  P("pool: cudaFree(1 KiB) %s: used %llu reserved %llu\n", cudaGetErrorName(fe),
    a64(def, cudaMemPoolAttrUsedMemCurrent),
    a64(def, cudaMemPoolAttrReservedMemCurrent));
  cudaStreamSynchronize(s);
  P("pool: after sync: used %llu reserved %llu\n",
    a64(def, cudaMemPoolAttrUsedMemCurrent),
    a64(def, cudaMemPoolAttrReservedMemCurrent));
  cudaFreeAsync(c2, s);
  cudaStreamSynchronize(s);
  P("pool: after freeAsync 40 MiB + sync: used %llu reserved %llu high "
    "%llu/%llu\n",
    a64(def, cudaMemPoolAttrUsedMemCurrent),
    a64(def, cudaMemPoolAttrReservedMemCurrent),
    a64(def, cudaMemPoolAttrUsedMemHigh),
    a64(def, cudaMemPoolAttrReservedMemHigh));
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  for (size_t mx : {size_t(2048), size_t(64) << 20}) {
    props.maxSize = mx;
    cudaMemPool_t p;
    cudaError_t ce = cudaMemPoolCreate(&p, &props);
    size_t one = mx == 2048 ? 1024 : (size_t(40) << 20);
    cudaError_t e1 = cudaMallocFromPoolAsync(&c1, one, p, s);
    cudaError_t e2 = cudaMallocFromPoolAsync(&c2, one, p, s);
    cudaError_t e3 = cudaMallocFromPoolAsync(&c3, size_t(40) << 20, p, s);
    P("maxSize %zu (create %s): %zu %s, %zu %s, 40 MiB %s; reserved %llu\n", mx,
      cudaGetErrorName(ce), one, cudaGetErrorName(e1), one,
      cudaGetErrorName(e2), cudaGetErrorName(e3),
      a64(p, cudaMemPoolAttrReservedMemCurrent));
    cudaGetLastError();
    cudaStreamSynchronize(s);
  }
  return 0;
}
