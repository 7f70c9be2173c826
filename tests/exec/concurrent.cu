// Work in different streams runs concurrently, as a GPU allows it
// (docs/exec.md "Concurrent streams"): a kernel that spins on a flag yields
// to work the host submits later, and completes when the flag is set. The
// first argument picks the case:
//   flag      a consumer in stream 2 spins on a flag in global memory that a
//             producer launched later into stream 1 sets
//   racy      the same with plain accesses of the data, which the streams
//             do not order: a race between streams under --check race
//   pingpong  two kernels in two streams take turns through two flags
//   mapped    a kernel spins on mapped host memory that the host sets after
//             the launch; cudaStreamQuery says cudaErrorNotReady meanwhile
//   event     the consumer's stream waits for an event recorded after the
//             producer, a host function runs after the consumer
//   memset    a cudaMemset of the legacy default stream queued behind a
//             spinning kernel of a blocking stream, released by a producer
//             in a cudaStreamNonBlocking stream
//   nonblocking  a kernel in a cudaStreamNonBlocking stream spins on a flag
//             set by a kernel in the legacy default stream, which does not
//             wait for it
//   blocking  the same with a blocking stream: the legacy default stream's
//             kernel waits for the spinning kernel, which never ends: a
//             deadlock (cudaErrorLaunchTimeout), as on a GPU
//   default   a kernel in stream 0 spins on a flag set by a kernel in a
//             blocking stream: with nvcc --default-stream per-thread (second
//             argument "per-thread") stream 0 is the per-thread default
//             stream and they are concurrent; with the legacy default stream
//             (second argument "legacy") the blocking stream waits: deadlock
//   preload   the flag case with the producer used (cudaFuncGetAttributes)
//             before the consumer is launched
//   query     the flag case with that query made while the consumer spins
//   loading   a kernel spins on mapped host memory; another kernel's first
//             launch, in another stream, is followed by an event: the host
//             queries the event, then releases the spinner
// With lazy loading (CUDA_MODULE_LOADING unset or LAZY, CUDA's default) a
// kernel is loaded at its first use and starts only after the work in
// flight then (docs/exec.md "Lazy loading"; measured on an NVIDIA H200,
// driver 580.159.04, CUDA 13.0, 2026-11-28): a producer first launched while
// its consumer spins never runs, and flag, racy, event, memset, nonblocking,
// default per-thread and query deadlock (cudaErrorLaunchTimeout; a GPU
// hangs); with CUDA_MODULE_LOADING=EAGER they complete. pingpong (one kernel
// launched twice, the first time with nothing in flight), mapped and preload
// complete under both.
#include <cstdlib>
#include <cstring>
#include <strings.h>

#include "common.h"

constexpr int kN = 64;

// Data and flags are volatile (strong) accesses: the kernels of the two
// streams communicate through them.
extern "C" __global__ void consume(volatile int *flag, volatile int *data,
                                   int *out) {
  int i = int(threadIdx.x);
  while (flag[0] == 0) {
  }
  out[i] = 2 * data[i];
}

extern "C" __global__ void produce(volatile int *flag, volatile int *data,
                                   int base) {
  int i = int(threadIdx.x);
  data[i] = base + i;
  __threadfence();
  __syncthreads();
  if (i == 0)
    flag[0] = 1;
}

// The same with plain (weak) accesses of the data: the kernels of the two
// streams are not ordered, so --check race reports them.
extern "C" __global__ void consume_weak(volatile int *flag, const int *data,
                                        int *out) {
  int i = int(threadIdx.x);
  while (flag[0] == 0) {
  }
  out[i] = 2 * data[i];
}

extern "C" __global__ void produce_weak(volatile int *flag, int *data,
                                        int base) {
  int i = int(threadIdx.x);
  data[i] = base + i;
  __threadfence();
  __syncthreads();
  if (i == 0)
    flag[0] = 1;
}

// Turns: kernel `me` waits until turn[0] == me, adds to the counter and
// passes the turn on, `rounds` times.
extern "C" __global__ void player(volatile int *turn, volatile int *count,
                                  int me, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    while (turn[0] != me) {
    }
    count[0] = count[0] + 1;
    __threadfence();
    turn[0] = 1 - me;
  }
}

static void expect_out(const int *d_out, int base) {
  int h[kN];
  CHECK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < kN; ++i)
    ok &= h[i] == 2 * (base + i);
  EXPECT(ok);
}

static void host_fn(void *p) { *static_cast<int *>(p) += 1; }

// Whether kernels load lazily: CUDA_MODULE_LOADING unset or anything but
// EAGER.
// EAGER in any case turns lazy loading off ("eager" did on an H200).
static bool lazy_loading() {
  const char *v = std::getenv("CUDA_MODULE_LOADING");
  return !v || strcasecmp(v, "EAGER") != 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "flag";
  const char *variant = argc > 2 ? argv[2] : "";
  const bool lazy = lazy_loading();
  // A case that deadlocks leaves the device unusable (a sticky error).
  bool deadlocked = false;
  int *flag = nullptr, *data = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&flag, 2 * sizeof(int)));
  CHECK(cudaMalloc(&data, kN * sizeof(int)));
  CHECK(cudaMalloc(&out, kN * sizeof(int)));
  CHECK(cudaMemset(flag, 0, 2 * sizeof(int)));
  // cudaMemset is asynchronous: with the per-thread default stream nothing
  // else orders it before the other streams' kernels.
  CHECK(cudaDeviceSynchronize());
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  // The end of a case whose producer is first launched while the consumer
  // spins: a deadlock under lazy loading, else the consumer's output.
  auto consumed = [&](cudaError_t e, int base) {
    if (lazy) {
      EXPECT(e == cudaErrorLaunchTimeout);
      deadlocked = true;
    } else {
      CHECK(e);
      expect_out(out, base);
    }
  };
  if (std::strcmp(mode, "flag") == 0) {
    consume<<<1, kN, 0, s2>>>(flag, data, out);
    produce<<<1, kN, 0, s1>>>(flag, data, 5);
    consumed(cudaStreamSynchronize(s2), 5);
  } else if (std::strcmp(mode, "racy") == 0) {
    consume_weak<<<1, kN, 0, s2>>>(flag, data, out);
    produce_weak<<<1, kN, 0, s1>>>(flag, data, 5);
    consumed(cudaDeviceSynchronize(), 5);
  } else if (std::strcmp(mode, "preload") == 0) {
    // Used before the consumer spins: loaded at once.
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, produce));
    consume<<<1, kN, 0, s2>>>(flag, data, out);
    produce<<<1, kN, 0, s1>>>(flag, data, 5);
    CHECK(cudaStreamSynchronize(s2));
    expect_out(out, 5);
  } else if (std::strcmp(mode, "query") == 0) {
    // The query returns at once, but the load waits for the consumer.
    consume<<<1, kN, 0, s2>>>(flag, data, out);
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, produce));
    produce<<<1, kN, 0, s1>>>(flag, data, 5);
    consumed(cudaStreamSynchronize(s2), 5);
  } else if (std::strcmp(mode, "loading") == 0) {
    int *host = nullptr, *dev = nullptr;
    CHECK(cudaHostAlloc(&host, sizeof(int), cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer(&dev, host, 0));
    host[0] = 0;
    int *hdata = nullptr, *ddata = nullptr;
    CHECK(cudaHostAlloc(&hdata, kN * sizeof(int), cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer(&ddata, hdata, 0));
    cudaEvent_t ev;
    CHECK(cudaEventCreate(&ev));
    consume<<<1, kN, 0, s2>>>(dev, ddata, out);
    produce<<<1, kN, 0, s1>>>(flag + 1, data, 7);
    CHECK(cudaEventRecord(ev, s1));
    if (lazy) {
      // The producer waits for the spinner.
      bool waiting = true;
      for (int i = 0; i < 10; ++i)
        waiting &= cudaEventQuery(ev) == cudaErrorNotReady;
      EXPECT(waiting);
    } else {
      // The producer completes while the consumer still spins.
      cudaError_t q;
      while ((q = cudaEventQuery(ev)) == cudaErrorNotReady) {
      }
      CHECK(q);
      EXPECT(cudaStreamQuery(s2) == cudaErrorNotReady);
    }
    for (int i = 0; i < kN; ++i)
      hdata[i] = 9 + i;
    *static_cast<volatile int *>(host) = 1;
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventQuery(ev));
    expect_out(out, 9);
    int h[kN];
    CHECK(cudaMemcpy(h, data, sizeof(h), cudaMemcpyDeviceToHost));
    EXPECT(h[0] == 7 && h[kN - 1] == 7 + kN - 1);
    CHECK(cudaEventDestroy(ev));
    CHECK(cudaFreeHost(host));
    CHECK(cudaFreeHost(hdata));
  } else if (std::strcmp(mode, "pingpong") == 0) {
    player<<<1, 1, 0, s1>>>(flag, flag + 1, 0, 5);
    player<<<1, 1, 0, s2>>>(flag, flag + 1, 1, 5);
    CHECK(cudaDeviceSynchronize());
    int h[2] = {-1, -1};
    CHECK(cudaMemcpy(h, flag, sizeof(h), cudaMemcpyDeviceToHost));
    EXPECT(h[0] == 0 && h[1] == 10);
  } else if (std::strcmp(mode, "mapped") == 0) {
    int *host = nullptr, *dev = nullptr;
    CHECK(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer(&dev, host, 0));
    host[0] = 0;
    int *hdata = nullptr, *ddata = nullptr;
    CHECK(cudaHostAlloc(&hdata, kN * sizeof(int), cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer(&ddata, hdata, 0));
    consume<<<1, kN, 0, s1>>>(dev, ddata, out);
    int queries = 0;
    cudaError_t q;
    while ((q = cudaStreamQuery(s1)) == cudaErrorNotReady) {
      if (++queries == 3) {
        for (int i = 0; i < kN; ++i)
          hdata[i] = 9 + i;
        *static_cast<volatile int *>(host) = 1;
      }
    }
    EXPECT(q == cudaSuccess);
    // The kernel sees the host's write some time later: on a GPU more
    // queries may find it spinning.
    EXPECT(queries >= 3);
    expect_out(out, 9);
    CHECK(cudaFreeHost(host));
    CHECK(cudaFreeHost(hdata));
  } else if (std::strcmp(mode, "event") == 0) {
    cudaEvent_t produced;
    CHECK(cudaEventCreate(&produced));
    int calls = 0;
    // The consumer spins first; the host function after it runs when it is
    // done.
    consume<<<1, kN, 0, s2>>>(flag, data, out);
    CHECK(cudaLaunchHostFunc(s2, host_fn, &calls));
    produce<<<1, kN, 0, s1>>>(flag, data, 3);
    CHECK(cudaEventRecord(produced, s1));
    cudaError_t e = cudaEventSynchronize(produced);
    if (lazy) {
      EXPECT(e == cudaErrorLaunchTimeout);
      deadlocked = true;
      return finish("concurrent");
    }
    CHECK(e);
    CHECK(cudaStreamSynchronize(s2));
    EXPECT(calls == 1);
    expect_out(out, 3);
    // Ordered by an event: no spinning needed.
    CHECK(cudaMemset(flag, 0, sizeof(int)));
    produce<<<1, kN, 0, s1>>>(flag, data, 4);
    CHECK(cudaEventRecord(produced, s1));
    CHECK(cudaStreamWaitEvent(s2, produced, 0));
    consume<<<1, kN, 0, s2>>>(flag, data, out);
    CHECK(cudaEventQuery(produced));
    CHECK(cudaDeviceSynchronize());
    expect_out(out, 4);
    CHECK(cudaEventDestroy(produced));
  } else if (std::strcmp(mode, "memset") == 0) {
    // The legacy default stream's cudaMemset waits for the spinning
    // consumer of a blocking stream (it is queued behind it); a producer in
    // a cudaStreamNonBlocking stream releases both.
    cudaStream_t nb;
    CHECK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    consume<<<1, kN, 0, s2>>>(flag, data, out);
    CHECK(cudaMemset(out, 0, sizeof(int)));
    produce<<<1, kN, 0, nb>>>(flag, data, 2);
    cudaError_t e = cudaDeviceSynchronize();
    if (lazy) {
      EXPECT(e == cudaErrorLaunchTimeout);
      return finish("concurrent");
    }
    CHECK(e);
    int h[kN];
    CHECK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
    EXPECT(h[0] == 0 && h[1] == 2 * (2 + 1));
    CHECK(cudaStreamDestroy(nb));
  } else if (std::strcmp(mode, "nonblocking") == 0 ||
             std::strcmp(mode, "blocking") == 0) {
    const bool blocking = std::strcmp(mode, "blocking") == 0;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, blocking ? cudaStreamDefault
                                                 : cudaStreamNonBlocking));
    consume<<<1, kN, 0, s>>>(flag, data, out);
    produce<<<1, kN, 0, 0>>>(flag, data, 6);
    cudaError_t e = cudaDeviceSynchronize();
    if (blocking) {
      EXPECT(e == cudaErrorLaunchTimeout);
      deadlocked = true;
    } else {
      consumed(e, 6);
    }
    if (!deadlocked)
      CHECK(cudaStreamDestroy(s));
  } else if (std::strcmp(mode, "default") == 0) {
    const bool per_thread = std::strcmp(variant, "per-thread") == 0;
    consume<<<1, kN, 0, 0>>>(flag, data, out);
    produce<<<1, kN, 0, s1>>>(flag, data, 8);
    cudaError_t e = cudaDeviceSynchronize();
    if (per_thread) {
      consumed(e, 8);
    } else {
      EXPECT(e == cudaErrorLaunchTimeout);
      deadlocked = true;
    }
  } else {
    std::printf("unknown case '%s'\n", mode);
    ++g_failures;
  }
  if (!deadlocked) {
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaFree(flag));
    CHECK(cudaFree(data));
    CHECK(cudaFree(out));
  }
  return finish("concurrent");
}
