// The device runtime's calls besides launches (nvcc -rdc=true): streams
// and events created in a kernel, the last error of a failed device-side
// launch, the device and its attributes, cudaMalloc/cudaFree in a kernel.
#include "common.h"

__global__ void fill(int *p, int v) { p[threadIdx.x] = v; }
__global__ void add_one(int *p) { p[threadIdx.x] += 1; }

// r[k]: the cudaError_t of call k (0 = cudaSuccess), then values.
__global__ void runtime_calls(int *p, int *r) {
  if (threadIdx.x != 0)
    return;
  cudaStream_t s;
  r[0] = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaEvent_t e;
  r[1] = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  fill<<<1, 32, 0, s>>>(p, 41);
  r[2] = cudaGetLastError();
  r[3] = cudaEventRecord(e, s);
  cudaStream_t s2;
  r[4] = cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  r[5] = cudaStreamWaitEvent(s2, e, 0);
  add_one<<<1, 32, 0, s2>>>(p);
  // A launch the device cannot make (a block of 2048 threads): its error
  // is the thread's last error until read.
  fill<<<1, 2048, 0, s>>>(p, 0);
  r[6] = cudaPeekAtLastError();
  r[7] = cudaGetLastError();
  r[8] = cudaGetLastError();
  int dev = -1, sms = 0;
  r[9] = cudaGetDevice(&dev);
  r[10] = dev;
  r[11] = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  r[12] = sms;
  int *m = nullptr;
  r[13] = cudaMalloc((void **)&m, 16 * sizeof(int));
  if (m) {
    for (int i = 0; i < 16; ++i)
      m[i] = i;
    r[14] = m[15];
  }
  r[15] = cudaFree(m);
  r[16] = cudaEventDestroy(e);
  r[17] = cudaStreamDestroy(s);
  r[18] = cudaStreamDestroy(s2);
  // Destroying a stream again, and a stream created without
  // cudaStreamNonBlocking (which CUDA documents as required in device
  // code), succeed on an H100.
  r[19] = cudaStreamDestroy(s); // destroyed already
  cudaStream_t blocking;
  r[20] = cudaStreamCreateWithFlags(&blocking, cudaStreamDefault);
  r[21] = cudaGetLastError();
}

int main() {
  int *p, *r;
  CHECK(cudaMallocManaged(&p, 32 * sizeof(int)));
  CHECK(cudaMallocManaged(&r, 32 * sizeof(int)));
  for (int i = 0; i < 32; ++i)
    r[i] = -1;
  runtime_calls<<<1, 32>>>(p, r);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int want[22] = {cudaSuccess,
                        cudaSuccess,
                        cudaSuccess,
                        cudaSuccess,
                        cudaSuccess,
                        cudaSuccess,
                        cudaErrorInvalidConfiguration,
                        cudaErrorInvalidConfiguration,
                        cudaSuccess,
                        cudaSuccess,
                        0,
                        cudaSuccess,
                        sms,
                        cudaSuccess,
                        15,
                        cudaSuccess,
                        cudaSuccess,
                        cudaSuccess,
                        cudaSuccess,
                        cudaSuccess,
                        cudaSuccess,
                        cudaSuccess};
  for (int k = 0; k < 22; ++k)
    if (r[k] != want[k]) {
      std::printf("r[%d] = %d, expected %d\n", k, r[k], want[k]);
      ++g_failures;
    }
  // fill ran before add_one (the event orders them).
  EXPECT(p[0] == 42 && p[31] == 42);
  EXPECT(sms == 132);
  CHECK(cudaFree(p));
  CHECK(cudaFree(r));
  return finish("cdp_runtime");
}
