// Work in different streams that nothing orders is concurrent on a GPU:
// `bcusim exec --check race` checks such kernels, copies and memsets
// against each other (docs/checker.md "Streams"). The first argument picks
// the case:
//   race    kernel A in stream 1 writes a buffer, kernel B in stream 2
//           reads it, nothing orders them (a race)
//   copy    a copy in stream 1 writes the buffer kernel B in stream 2
//           reads (a race)
//   ordered the same work ordered by an event, by a stream
//           synchronization, by the legacy default stream and by stream
//           order (no race)
#include <cstring>

#include "common.h"

constexpr int kN = 256;

extern "C" __global__ void produce(int *buf, int base) {
  int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < kN)
    buf[i] = base + i;
}

extern "C" __global__ void consume(const int *buf, int *out) {
  int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < kN)
    out[i] = 2 * buf[i];
}

static void expect_out(const int *d_out, int base) {
  int h[kN];
  CHECK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < kN; ++i)
    ok &= h[i] == 2 * (base + i);
  EXPECT(ok);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "ordered";
  int *buf = nullptr, *out = nullptr, *pinned = nullptr;
  CHECK(cudaMalloc(&buf, kN * sizeof(int)));
  CHECK(cudaMalloc(&out, kN * sizeof(int)));
  CHECK(cudaMallocHost(&pinned, kN * sizeof(int)));
  for (int i = 0; i < kN; ++i)
    pinned[i] = 7 + i;
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  if (std::strcmp(mode, "race") == 0) {
    produce<<<2, 128, 0, s1>>>(buf, 1);
    consume<<<2, 128, 0, s2>>>(buf, out);
    CHECK(cudaDeviceSynchronize());
    expect_out(out, 1);
  } else if (std::strcmp(mode, "copy") == 0) {
    CHECK(cudaMemcpyAsync(buf, pinned, kN * sizeof(int), cudaMemcpyHostToDevice,
                          s1));
    consume<<<2, 128, 0, s2>>>(buf, out);
    CHECK(cudaDeviceSynchronize());
    expect_out(out, 7);
  } else {
    cudaEvent_t done;
    CHECK(cudaEventCreate(&done));
    // An event: stream 2 waits for what stream 1 recorded.
    produce<<<2, 128, 0, s1>>>(buf, 1);
    CHECK(cudaEventRecord(done, s1));
    CHECK(cudaStreamWaitEvent(s2, done, 0));
    consume<<<2, 128, 0, s2>>>(buf, out);
    CHECK(cudaStreamSynchronize(s2));
    expect_out(out, 1);
    // The host waits for stream 1 before it submits to stream 2.
    CHECK(cudaMemcpyAsync(buf, pinned, kN * sizeof(int), cudaMemcpyHostToDevice,
                          s1));
    CHECK(cudaStreamSynchronize(s1));
    consume<<<2, 128, 0, s2>>>(buf, out);
    CHECK(cudaEventRecord(done, s2));
    CHECK(cudaEventSynchronize(done));
    expect_out(out, 7);
    // The legacy default stream waits for stream 1 and stream 2 waits for
    // it.
    produce<<<2, 128, 0, s1>>>(buf, 3);
    CHECK(cudaMemsetAsync(out, 0, kN * sizeof(int), 0));
    consume<<<2, 128, 0, s2>>>(buf, out);
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
    // nvcc --default-stream per-thread: stream 0 is the per-thread default
    // stream, which orders nothing here, so stream 2 races with stream 1 (as
    // the race checker reports) and the copy in expect_out does not wait
    // for stream 2: the result is whatever the race gave.
    CHECK(cudaStreamSynchronize(s2));
#else
    expect_out(out, 3);
#endif
    // Stream order.
    produce<<<2, 128, 0, s2>>>(buf, 4);
    consume<<<2, 128, 0, s2>>>(buf, out);
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
    CHECK(cudaStreamSynchronize(s2));
#endif
    expect_out(out, 4);
    CHECK(cudaEventDestroy(done));
  }
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  CHECK(cudaFree(buf));
  CHECK(cudaFree(out));
  CHECK(cudaFreeHost(pinned));
  return finish("streams");
}
