// What a stream says about itself (cudaStreamGetId, cudaStreamGetDevice,
// its attributes), cudaMemcpyPeerAsync on the one device and
// cudaGetFuncBySymbol.
#include <cstring>

#include "common.h"

__global__ void scale(int *p, int k) { p[threadIdx.x] *= k; }

int main() {
  const int N = 64;
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  unsigned long long id1 = 0, id2 = 0, legacy = 0, per_thread = 0, again = 0;
  CHECK(cudaStreamGetId(s1, &id1));
  CHECK(cudaStreamGetId(s2, &id2));
  CHECK(cudaStreamGetId(s1, &again));
  CHECK(cudaStreamGetId(cudaStreamLegacy, &legacy));
  CHECK(cudaStreamGetId(cudaStreamPerThread, &per_thread));
  EXPECT(id1 == again);
  EXPECT(id1 != id2 && id1 != legacy && id2 != legacy);
  EXPECT(per_thread != legacy && per_thread != id1 && per_thread != id2);
  EXPECT(cudaStreamGetId(s1, nullptr) == cudaErrorInvalidValue);
  cudaGetLastError();
  int device = -1;
  CHECK(cudaStreamGetDevice(s2, &device));
  EXPECT(device == 0);
  device = -1;
  CHECK(cudaStreamGetDevice(nullptr, &device));
  EXPECT(device == 0);

  // Attributes: kept and reported back, copied to another stream. One
  // never set: bcusim leaves the caller's value as it is, as the H200's
  // runtime did for a stream nothing else was asked about; for this one
  // (after cudaStreamGetId and cudaStreamGetDevice) it wrote a value that
  // was not recorded, so only bcusim's answer is checked.
  cudaStreamAttrValue v;
  std::memset(&v, 0x55, sizeof(v));
  CHECK(
      cudaStreamGetAttribute(s1, cudaStreamAttributeSynchronizationPolicy, &v));
  if (under_bcusim())
    EXPECT(int(v.syncPolicy) == 0x55555555);
  CHECK(cudaStreamGetAttribute(s1, cudaStreamAttributePriority, &v));
  if (under_bcusim())
    EXPECT(v.priority == 0x55555555);
  std::memset(&v, 0, sizeof(v));
  CHECK(cudaStreamGetAttribute(s1, cudaStreamAttributeAccessPolicyWindow, &v));
  EXPECT(v.accessPolicyWindow.num_bytes == 0);
  static int window_data[1024];
  std::memset(&v, 0, sizeof(v));
  v.accessPolicyWindow.base_ptr = window_data;
  v.accessPolicyWindow.num_bytes = sizeof(window_data);
  v.accessPolicyWindow.hitRatio = 0.5f;
  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  CHECK(cudaStreamSetAttribute(s1, cudaStreamAttributeAccessPolicyWindow, &v));
  std::memset(&v, 0, sizeof(v));
  v.syncPolicy = cudaSyncPolicyBlockingSync;
  CHECK(
      cudaStreamSetAttribute(s1, cudaStreamAttributeSynchronizationPolicy, &v));
  CHECK(cudaStreamCopyAttributes(s2, s1));
  std::memset(&v, 0, sizeof(v));
  CHECK(cudaStreamGetAttribute(s2, cudaStreamAttributeAccessPolicyWindow, &v));
  EXPECT(v.accessPolicyWindow.base_ptr == window_data &&
         v.accessPolicyWindow.num_bytes == sizeof(window_data) &&
         v.accessPolicyWindow.hitRatio == 0.5f &&
         v.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting);
  CHECK(
      cudaStreamGetAttribute(s2, cudaStreamAttributeSynchronizationPolicy, &v));
  EXPECT(v.syncPolicy == cudaSyncPolicyBlockingSync);
  v.accessPolicyWindow.hitRatio = 2.0f;
  EXPECT(cudaStreamSetAttribute(s1, cudaStreamAttributeAccessPolicyWindow,
                                &v) == cudaErrorInvalidValue);
  cudaGetLastError();

  // The kernel's function handle is not a kernel symbol: the runtime's
  // calls that take a kernel refuse it as a kernel handle.
  cudaFunction_t f = nullptr;
  CHECK(cudaGetFuncBySymbol(&f, reinterpret_cast<const void *>(scale)));
  EXPECT(f != nullptr);
  cudaFuncAttributes fa;
  EXPECT(cudaFuncGetAttributes(&fa, reinterpret_cast<const void *>(f)) ==
         cudaErrorInvalidResourceHandle);
  EXPECT(cudaGetLastError() == cudaErrorInvalidResourceHandle);
  CHECK(cudaFuncGetAttributes(&fa, reinterpret_cast<const void *>(scale)));
  EXPECT(fa.maxThreadsPerBlock > 0);
  static int not_a_kernel;
  EXPECT(cudaGetFuncBySymbol(&f, &not_a_kernel) ==
         cudaErrorInvalidDeviceFunction);
  cudaGetLastError();

  // A peer copy on one device, in stream order after the kernel.
  int host[N], *a = nullptr, *b = nullptr;
  for (int i = 0; i < N; ++i)
    host[i] = i;
  CHECK(cudaMalloc(&a, N * sizeof(int)));
  CHECK(cudaMalloc(&b, N * sizeof(int)));
  CHECK(cudaMemcpyAsync(a, host, sizeof(host), cudaMemcpyHostToDevice, s1));
  scale<<<1, N, 0, s1>>>(a, 3);
  CHECK(cudaMemcpyPeerAsync(b, 0, a, 0, N * sizeof(int), s1));
  CHECK(cudaMemcpyAsync(host, b, sizeof(host), cudaMemcpyDeviceToHost, s1));
  CHECK(cudaStreamSynchronize(s1));
  bool ok = true;
  for (int i = 0; i < N; ++i)
    ok = ok && host[i] == 3 * i;
  EXPECT(ok);
  EXPECT(cudaMemcpyPeerAsync(b, 1, a, 0, N * sizeof(int), s1) ==
         cudaErrorInvalidDevice);
  cudaGetLastError();
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  return finish("stream_info");
}
