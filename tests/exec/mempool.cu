// Memory pools: the device's default and current pool, pools of the
// program's own (cudaMemPoolCreate, cudaMallocFromPoolAsync), their
// attributes (release threshold, reuse flags, the reserved and used memory
// counters: the used bytes of the program's stream-ordered allocations, the
// reservation in 32 MiB units), trimming, access and a maximum size (of the
// reservation).
//
//   mempool              the checks above (PASS)
//   mempool after_free   a kernel reads memory of a created pool after
//                        cudaFreeAsync freed it (a use after free)
#include "common.h"

#include <cstring>

static const int N = 256;

__global__ void fill(int *p, int base) { p[threadIdx.x] = base + threadIdx.x; }
__global__ void sum(const int *p, int *out) { atomicAdd(out, p[threadIdx.x]); }

// A pool reserves device memory in 32 MiB units.
static const unsigned long long kUnit = 32ull << 20;

static unsigned long long attr64(cudaMemPool_t pool, cudaMemPoolAttr a) {
  unsigned long long v = ~0ull;
  CHECK(cudaMemPoolGetAttribute(pool, a, &v));
  return v;
}

static cudaMemPoolProps device_props() {
  cudaMemPoolProps props;
  std::memset(&props, 0, sizeof(props));
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  return props;
}

static int after_free() {
  cudaMemPoolProps props = device_props();
  cudaMemPool_t pool;
  CHECK(cudaMemPoolCreate(&pool, &props));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  int *p = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(out, 0, sizeof(int)));
  CHECK(cudaMallocFromPoolAsync(&p, N * sizeof(int), pool, s));
  fill<<<1, N, 0, s>>>(p, 0);
  CHECK(cudaFreeAsync(p, s));
  sum<<<1, N, 0, s>>>(p, out); // after the free, in stream order
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaFree(out));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaMemPoolDestroy(pool));
  return finish("mempool");
}

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "after_free") == 0)
    return after_free();
  const size_t bytes = N * sizeof(int);

  // The default pool is the device's current pool.
  cudaMemPool_t def, cur;
  CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
  CHECK(cudaDeviceGetMemPool(&cur, 0));
  EXPECT(def != nullptr && def == cur);
  EXPECT(cudaDeviceGetDefaultMemPool(&def, 1) == cudaErrorInvalidDevice);
  cudaGetLastError();
  cudaMemLocation loc;
  std::memset(&loc, 0, sizeof(loc));
  loc.type = cudaMemLocationTypeDevice;
  cudaMemPool_t same;
  CHECK(cudaMemGetDefaultMemPool(&same, &loc, cudaMemAllocationTypePinned));
  EXPECT(same == def);

  // Attributes and their defaults.
  EXPECT(attr64(def, cudaMemPoolAttrReleaseThreshold) == 0);
  int reuse = -1;
  CHECK(
      cudaMemPoolGetAttribute(def, cudaMemPoolReuseAllowOpportunistic, &reuse));
  EXPECT(reuse == 1);
  EXPECT(attr64(def, cudaMemPoolAttrUsedMemCurrent) == 0);
  EXPECT(attr64(def, cudaMemPoolAttrReservedMemCurrent) == 0);

  // The counters follow cudaMallocAsync / cudaFreeAsync.
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  int *a = nullptr, *b = nullptr;
  CHECK(cudaMallocAsync(&a, bytes, s));
  CHECK(cudaMallocAsync(&b, 2 * bytes, s));
  EXPECT(attr64(def, cudaMemPoolAttrUsedMemCurrent) == 3 * bytes);
  EXPECT(attr64(def, cudaMemPoolAttrReservedMemCurrent) == kUnit);
  fill<<<1, N, 0, s>>>(a, 1);
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaFreeAsync(a, s));
  // Freed in stream order: no longer used, still held by the pool until
  // the next synchronization releases it (release threshold 0).
  EXPECT(attr64(def, cudaMemPoolAttrUsedMemCurrent) == 2 * bytes);
  EXPECT(attr64(def, cudaMemPoolAttrReservedMemCurrent) == kUnit);
  CHECK(cudaMemPoolTrimTo(def, 0)); // released now, b still in the unit
  EXPECT(attr64(def, cudaMemPoolAttrReservedMemCurrent) == kUnit);
  CHECK(cudaFreeAsync(b, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(attr64(def, cudaMemPoolAttrUsedMemCurrent) == 0);
  EXPECT(attr64(def, cudaMemPoolAttrReservedMemCurrent) == 0);
  EXPECT(attr64(def, cudaMemPoolAttrUsedMemHigh) == 3 * bytes);
  EXPECT(attr64(def, cudaMemPoolAttrReservedMemHigh) == kUnit);
  unsigned long long zero = 0, one = 1;
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &zero));
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReservedMemHigh, &zero));
  EXPECT(attr64(def, cudaMemPoolAttrUsedMemHigh) == 0);
  EXPECT(attr64(def, cudaMemPoolAttrReservedMemHigh) == 0);
  EXPECT(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &one) ==
         cudaErrorInvalidValue);
  EXPECT(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &zero) ==
         cudaErrorInvalidValue);
  cudaGetLastError();
  unsigned long long threshold = 64ull << 20;
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold,
                                &threshold));
  EXPECT(attr64(def, cudaMemPoolAttrReleaseThreshold) == 64ull << 20);
  int off = 0;
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolReuseAllowOpportunistic, &off));
  CHECK(
      cudaMemPoolGetAttribute(def, cudaMemPoolReuseAllowOpportunistic, &reuse));
  EXPECT(reuse == 0);

  // A pool of the program's own, and the results of its memory.
  cudaMemPoolProps props = device_props();
  cudaMemPool_t pool;
  CHECK(cudaMemPoolCreate(&pool, &props));
  EXPECT(pool != def);
  int *c = nullptr;
  CHECK(cudaMallocFromPoolAsync(&c, bytes, pool, s));
  fill<<<1, N, 0, s>>>(c, 100);
  int host[N];
  CHECK(cudaMemcpyAsync(host, c, bytes, cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  bool ok = true;
  for (int i = 0; i < N; ++i)
    ok = ok && host[i] == 100 + i;
  EXPECT(ok);
  EXPECT(attr64(pool, cudaMemPoolAttrUsedMemCurrent) == bytes);
  EXPECT(attr64(def, cudaMemPoolAttrUsedMemCurrent) == 0);
  // cudaFree ends a pool allocation too, but its bytes stay counted as
  // used (also after a synchronization).
  CHECK(cudaFree(c));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(attr64(pool, cudaMemPoolAttrUsedMemCurrent) == bytes);

  // The device's current pool serves cudaMallocAsync.
  CHECK(cudaDeviceSetMemPool(0, pool));
  CHECK(cudaDeviceGetMemPool(&cur, 0));
  EXPECT(cur == pool);
  CHECK(cudaMallocAsync(&c, bytes, s));
  EXPECT(attr64(pool, cudaMemPoolAttrUsedMemCurrent) == 2 * bytes);
  CHECK(cudaFreeAsync(c, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(attr64(pool, cudaMemPoolAttrUsedMemCurrent) == bytes);

  // Access: the one device reads and writes.
  cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
  CHECK(cudaMemPoolGetAccess(&flags, pool, &loc));
  EXPECT(flags == cudaMemAccessFlagsProtReadWrite);
  cudaMemAccessDesc desc;
  std::memset(&desc, 0, sizeof(desc));
  desc.location = loc;
  desc.flags = cudaMemAccessFlagsProtReadWrite;
  CHECK(cudaMemPoolSetAccess(pool, &desc, 1));
  desc.location.id = 1;
  EXPECT(cudaMemPoolSetAccess(pool, &desc, 1) == cudaErrorInvalidDevice);
  cudaGetLastError();

  // Destroying the current pool makes the default pool current again; the
  // handle is then refused.
  CHECK(cudaMemPoolDestroy(pool));
  CHECK(cudaDeviceGetMemPool(&cur, 0));
  EXPECT(cur == def);
  EXPECT(cudaMallocFromPoolAsync(&c, bytes, pool, s) == cudaErrorInvalidValue);
  EXPECT(cudaMemPoolDestroy(def) == cudaErrorInvalidValue);
  cudaGetLastError();

  // A pool's maximum size limits its reservation, in units: 2 KiB allows
  // one unit, 64 MiB two.
  props.maxSize = 2 * bytes;
  CHECK(cudaMemPoolCreate(&pool, &props));
  CHECK(cudaMallocFromPoolAsync(&c, bytes, pool, s));
  int *d = nullptr, *e = nullptr;
  CHECK(cudaMallocFromPoolAsync(&d, 2 * bytes, pool, s));
  EXPECT(cudaMallocFromPoolAsync(&e, 40 << 20, pool, s) ==
         cudaErrorMemoryAllocation);
  cudaGetLastError();
  EXPECT(attr64(pool, cudaMemPoolAttrReservedMemCurrent) == kUnit);
  CHECK(cudaFreeAsync(c, s));
  CHECK(cudaFreeAsync(d, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemPoolDestroy(pool));
  props.maxSize = 2 * kUnit;
  CHECK(cudaMemPoolCreate(&pool, &props));
  CHECK(cudaMallocFromPoolAsync(&c, 40 << 20, pool, s));
  EXPECT(cudaMallocFromPoolAsync(&d, 40 << 20, pool, s) ==
         cudaErrorMemoryAllocation);
  cudaGetLastError();
  EXPECT(attr64(pool, cudaMemPoolAttrReservedMemCurrent) == 2 * kUnit);
  CHECK(cudaFreeAsync(c, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemPoolDestroy(pool));

  CHECK(cudaStreamDestroy(s));
  return finish("mempool");
}
