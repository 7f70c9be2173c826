#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>
#include <cuda_runtime.h>
__global__ void fill(int *p, int n, int v) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = v + i; }
__device__ unsigned long long gt() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__global__ void spin(long long cycles, long long *el) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {}
  if (threadIdx.x == 0 && blockIdx.x == 0) el[0] = clock64() - t0;
}
__global__ void trapper() { __trap(); }
__global__ void poke(int *p, long long i) { p[i] = 1; }
__global__ void ufree(int *out) { int *p = (int *)malloc(16); p[0] = 7; free(p); out[0] = p[0]; }
__global__ void dfree() { void *p = malloc(32); free(p); free(p); }
static const char *idx(cudaGraphNode_t n, cudaGraphNode_t *all, int k, char *buf) {
  for (int i = 0; i < k; ++i) if (all[i] == n) { sprintf(buf, "n%d", i); return buf; }
  return "?";
}
int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "graph";
  int dev = 0, cm = -1, clk = 0;
  cudaDeviceGetAttribute(&cm, cudaDevAttrComputeMode, dev);
  cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, dev);
  printf("compute mode %d clock %d\n", cm, clk);
  int *a; cudaMalloc(&a, 1024 * sizeof(int));
  if (!strcmp(mode, "graph")) {
    cudaGraph_t g; cudaGraphCreate(&g, 0);
    cudaGraphNode_t n[6];
    int N = 64, v[6];
    void *args[6][3];
    for (int i = 0; i < 6; ++i) {
      v[i] = i * 10; args[i][0] = &a; args[i][1] = &N; args[i][2] = &v[i];
      cudaKernelNodeParams kp{}; kp.func = (void *)fill; kp.gridDim = dim3(1); kp.blockDim = dim3(64); kp.kernelParams = args[i];
      // n0,n1,n2 roots; n3 depends on n0,n1 ; n4 depends on n2 ; n5 root
      cudaGraphNode_t deps[2]; size_t nd = 0;
      if (i == 3) { deps[0] = n[0]; deps[1] = n[1]; nd = 2; }
      if (i == 4) { deps[0] = n[2]; nd = 1; }
      cudaError_t e = cudaGraphAddKernelNode(&n[i], g, deps, nd, &kp);
      if (e) printf("add %d: %s\n", i, cudaGetErrorName(e));
    }
    char b[16];
    size_t c = 6; cudaGraphNode_t r[6];
    cudaGraphGetRootNodes(g, r, &c); printf("roots:"); for (size_t i = 0; i < c; ++i) printf(" %s", idx(r[i], n, 6, b)); printf("\n");
    c = 6; cudaGraphGetNodes(g, r, &c); printf("nodes:"); for (size_t i = 0; i < c; ++i) printf(" %s", idx(r[i], n, 6, b)); printf("\n");
    cudaGraphNode_t f[6], t[6]; c = 6; cudaGraphGetEdges(g, f, t, nullptr, &c); printf("edges:"); for (size_t i = 0; i < c; ++i) { printf(" %s->", idx(f[i], n, 6, b)); printf("%s", idx(t[i], n, 6, b)); } printf("\n");
    c = 6; cudaGraphNodeGetDependencies(n[3], r, nullptr, &c); printf("deps n3:"); for (size_t i = 0; i < c; ++i) printf(" %s", idx(r[i], n, 6, b)); printf("\n");
    // Exec set params: node of the instantiated graph / of the update graph.
    cudaStream_t s; cudaStreamCreate(&s);
    cudaGraph_t g1, g2; cudaGraphExec_t x;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal); fill<<<1, 64, 0, s>>>(a, 64, 10); cudaStreamEndCapture(s, &g1);
    printf("inst: %s\n", cudaGetErrorName(cudaGraphInstantiate(&x, g1, 0)));
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal); fill<<<1, 64, 0, s>>>(a, 64, 20); cudaStreamEndCapture(s, &g2);
    cudaGraphExecUpdateResultInfo info;
    printf("update: %s\n", cudaGetErrorName(cudaGraphExecUpdate(x, g2, &info)));
    cudaGraphLaunch(x, s); cudaStreamSynchronize(s); int h[2]; cudaMemcpy(h, a, 8, cudaMemcpyDeviceToHost); printf("after update a[1]=%d\n", h[1]);
    cudaGraphNode_t n1, n2; c = 1; cudaGraphGetNodes(g1, &n1, &c); c = 1; cudaGraphGetNodes(g2, &n2, &c);
    cudaKernelNodeParams kp{}; cudaGraphKernelNodeGetParams(n1, &kp);
    int vv = 300; void *ka[] = {kp.kernelParams[0], kp.kernelParams[1], &vv}; kp.kernelParams = ka;
    printf("set with g1 node: %s\n", cudaGetErrorName(cudaGraphExecKernelNodeSetParams(x, n1, &kp)));
    cudaGraphLaunch(x, s); cudaStreamSynchronize(s); cudaMemcpy(h, a, 8, cudaMemcpyDeviceToHost); printf(" a[1]=%d\n", h[1]);
    vv = 400;
    printf("set with g2 node: %s\n", cudaGetErrorName(cudaGraphExecKernelNodeSetParams(x, n2, &kp)));
    printf("last error after: %s\n", cudaGetErrorName(cudaGetLastError()));
    cudaGraphLaunch(x, s); cudaStreamSynchronize(s); cudaMemcpy(h, a, 8, cudaMemcpyDeviceToHost); printf(" a[1]=%d\n", h[1]);
    cudaGraphNode_t nc; cudaGraph_t gc; cudaGraphClone(&gc, g1); cudaGraphNodeFindInClone(&nc, n1, gc);
    printf("set with clone node: %s\n", cudaGetErrorName(cudaGraphExecKernelNodeSetParams(x, nc, &kp)));
    cudaGraphDestroy(g1);
    vv = 500;
    // clock
    long long *el; cudaMalloc(&el, 8);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    for (int k = 0; k < 3; ++k) {
      cudaEventRecord(e0); spin<<<2, 64>>>(2000000, el); cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); long long he; cudaMemcpy(&he, el, 8, cudaMemcpyDeviceToHost);
      printf("spin 2M cycles: %.4f ms, clock64 %lld\n", ms, he);
    }
  } else if (!strcmp(mode, "reset")) {
    trapper<<<1, 1>>>();
    printf("trap: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    printf("reset: %s\n", cudaGetErrorName(cudaDeviceReset()));
    int *d; printf("malloc: %s\n", cudaGetErrorName(cudaMalloc(&d, 4)));
    sleep(2);
    printf("malloc after 2 s: %s\n", cudaGetErrorName(cudaMalloc(&d, 4)));
    printf("reset again: %s\n", cudaGetErrorName(cudaDeviceReset()));
    printf("malloc: %s\n", cudaGetErrorName(cudaMalloc(&d, 4)));
  } else if (!strcmp(mode, "far")) {
    poke<<<1, 1>>>(a, 1ll << 28);
    printf("poke 1 GiB past: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  } else if (!strcmp(mode, "near")) {
    poke<<<1, 1>>>(a, 1024 + 64);
    printf("poke 256 B past a 4 KiB allocation: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  } else if (!strcmp(mode, "hostfar")) {
    std::vector<int> small(16, 0);
    cudaHostRegister(small.data(), 64, cudaHostRegisterMapped);
    poke<<<1, 1>>>(small.data(), 16);
    printf("host poke 1 past: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    poke<<<1, 1>>>(small.data(), 1 << 22);
    printf("host poke 16 MiB past: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  } else if (!strcmp(mode, "uaf")) {
    ufree<<<1, 1>>>(a);
    printf("use after free: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    dfree<<<1, 1>>>();
    printf("double free: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  }
  return 0;
}
