// Probe: lazy loading (CUDA_MODULE_LOADING) and kernels that wait for each
// other.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <thread>
__global__ void spin_dev(volatile int *flag) {
  while (flag[0] == 0) {
  }
}
__global__ void spin_host(volatile int *flag) {
  while (flag[0] == 0) {
  }
}
__global__ void setter(volatile int *flag) { flag[0] = 1; }
__global__ void other(int *p) { p[1] = 7; }
static double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}
int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  const char *mode = argv[1];
  int *d;
  cudaMalloc(&d, 16);
  cudaMemset(d, 0, 16);
  cudaDeviceSynchronize();
  int *h, *hd;
  cudaHostAlloc(&h, 16, cudaHostAllocMapped);
  h[0] = 0;
  cudaHostGetDevicePointer(&hd, h, 0);
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  cudaFuncAttributes fa;
  if (!strcmp(mode, "preload_attr"))
    printf("attr %s\n", cudaGetErrorName(cudaFuncGetAttributes(&fa, setter)));
  if (!strcmp(mode, "preload_launch")) {
    int *z;
    cudaMalloc(&z, 16);
    cudaMemset(z, 1, 16);
    setter<<<1, 1, 0, s1>>>(z);
    cudaDeviceSynchronize();
  }
  if (!strcmp(mode, "preload_getfunc")) {
    cudaFunction_t f;
    printf("getfunc %s\n",
           cudaGetErrorName(cudaGetFuncBySymbol(&f, (const void *)setter)));
  }
  if (!strcmp(mode, "preload_occ")) {
    int n;
    printf("occ %s\n",
           cudaGetErrorName(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
               &n, setter, 32, 0)));
  }
  if (!strcmp(mode, "host_block")) {
    // spinner waits on host memory; a host thread sets it after 2 s; how long
    // does a first launch of `other` take?
    spin_host<<<1, 32, 0, s2>>>(hd);
    std::thread t([&] {
      std::this_thread::sleep_for(std::chrono::seconds(2));
      *(volatile int *)h = 1;
    });
    double t0 = now();
    other<<<1, 1, 0, s1>>>(d);
    double t1 = now();
    printf("first launch of other took %.3f s (%s)\n", t1 - t0,
           cudaGetErrorName(cudaGetLastError()));
    t.join();
    cudaDeviceSynchronize();
    printf("host_block done %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
  }
  if (!strcmp(mode, "host_block_loaded")) {
    other<<<1, 1, 0, s1>>>(d);
    cudaDeviceSynchronize();
    spin_host<<<1, 32, 0, s2>>>(hd);
    std::thread t([&] {
      std::this_thread::sleep_for(std::chrono::seconds(2));
      *(volatile int *)h = 1;
    });
    double t0 = now();
    other<<<1, 1, 0, s1>>>(d);
    double t1 = now();
    printf("second launch of other took %.3f s (%s)\n", t1 - t0,
           cudaGetErrorName(cudaGetLastError()));
    t.join();
    cudaDeviceSynchronize();
    printf("host_block_loaded done %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
  }
  if (!strncmp(mode, "query_during_spin", 17)) {
    spin_host<<<1, 32, 0, s2>>>(hd);
    std::thread t([&] {
      std::this_thread::sleep_for(std::chrono::seconds(2));
      *(volatile int *)h = 1;
    });
    double t0 = now();
    cudaError_t e;
    if (!strcmp(mode, "query_during_spin_attr"))
      e = cudaFuncGetAttributes(&fa, setter);
    else if (!strcmp(mode, "query_during_spin_getfunc")) {
      cudaFunction_t f;
      e = cudaGetFuncBySymbol(&f, (const void *)setter);
    } else {
      int n;
      e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, setter, 32, 0);
    }
    double t1 = now();
    printf("%s took %.3f s (%s)\n", mode, t1 - t0, cudaGetErrorName(e));
    t.join();
    cudaDeviceSynchronize();
    return 0;
  }
  if (!strcmp(mode, "later_stream")) {
    // spinner in s2 waits for setter (first launch, s1); a third kernel queued
    // after in s2
    spin_dev<<<1, 64, 0, s2>>>(d);
    setter<<<1, 1, 0, s1>>>(d);
    cudaError_t e = cudaStreamSynchronize(s2);
    printf("later_stream: %s\n", cudaGetErrorName(e));
    return 0;
  }
  if (!strcmp(mode, "query_then_launch")) {
    spin_dev<<<1, 64, 0, s2>>>(d);
    int n;
    cudaError_t e0 = cudaFuncGetAttributes(&fa, setter);
    setter<<<1, 1, 0, s1>>>(d);
    cudaError_t e = cudaStreamSynchronize(s2);
    printf("query_then_launch: %s %s\n", cudaGetErrorName(e0),
           cudaGetErrorName(e));
    return 0;
  }
  if (!strcmp(mode, "when_other_runs")) {
    spin_host<<<1, 32, 0, s2>>>(hd);
    cudaEvent_t ev;
    cudaEventCreate(&ev);
    other<<<1, 1, 0, s1>>>(d);
    cudaEventRecord(ev, s1);
    double t0 = now();
    cudaError_t q;
    while ((q = cudaEventQuery(ev)) == cudaErrorNotReady && now() - t0 < 1.5) {
    }
    printf("when_other_runs: after %.3f s with the spinner running: %s\n",
           now() - t0, cudaGetErrorName(q));
    *(volatile int *)h = 1;
    cudaDeviceSynchronize();
    printf("when_other_runs: end %s\n", cudaGetErrorName(cudaEventQuery(ev)));
    return 0;
  }
  if (!strcmp(mode, "memcpy_while_spin")) {
    // does a synchronous cudaMemset / cudaMalloc while a kernel spins block?
    spin_host<<<1, 32, 0, s2>>>(hd);
    std::thread t([&] {
      std::this_thread::sleep_for(std::chrono::seconds(2));
      *(volatile int *)h = 1;
    });
    double t0 = now();
    int *z;
    cudaError_t e = cudaMalloc(&z, 1 << 20);
    double t1 = now();
    printf("cudaMalloc during spin took %.3f s (%s)\n", t1 - t0,
           cudaGetErrorName(e));
    t.join();
    cudaDeviceSynchronize();
    return 0;
  }
  // default: flag case: spinner on device flag in s2, setter launched later in
  // s1
  printf("launching spinner\n");
  spin_dev<<<1, 64, 0, s2>>>(d);
  printf("launching setter\n");
  setter<<<1, 1, 0, s1>>>(d);
  printf("setter launched\n");
  cudaError_t e = cudaStreamSynchronize(s2);
  printf("%s: flag case done: %s\n", mode, cudaGetErrorName(e));
  return 0;
}
