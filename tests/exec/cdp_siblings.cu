// Sibling child grids in the race checker (CDP2, docs/checker.md "Parent
// and child grids"): children of one grid that may run concurrently on a
// GPU (launched by different blocks, into different streams, or
// fire-and-forget) race when they access the same memory and one writes;
// children launched into one stream, and tail launches, are ordered.
//
//   cdp_siblings CASE   with CASE one of
//     blocks      two blocks each launch a child into their NULL stream
//                 that writes the same buffer (race)
//     one_block   two threads of one block launch them into the block's
//                 NULL stream (ordered: one stream)
//     per_thread  two threads of one block launch them into
//                 cudaStreamPerThread, each its own stream (race)
//     tail        the second child is a tail launch (ordered)
//     faf         one thread launches both fire-and-forget (race)
//     streams     one thread launches them into two created streams (race)
//     event       the same, the second stream waits for an event recorded
//                 after the first launch (ordered)
//     nested      a grandchild (launched by the child of block 0) writes
//                 what the child of block 1 reads (race)
//     nested_ok   both children in one stream: the second follows the
//                 first and its child (ordered)
#include "common.h"

#include <cstring>
#include <string>

__global__ void fill(int *p, int v) { p[threadIdx.x] = v + int(threadIdx.x); }
__global__ void sum(const int *p, int *out) {
  atomicAdd(out, p[threadIdx.x]);
}
__global__ void fill_then_child(int *p, int v) {
  if (threadIdx.x == 0)
    fill<<<1, 32>>>(p, v);
}

__global__ void blocks(int *p) {
  if (threadIdx.x == 0)
    fill<<<1, 32>>>(p, int(blockIdx.x) * 100);
}

__global__ void one_block(int *p) {
  if (threadIdx.x % 32 == 0)
    fill<<<1, 32>>>(p, int(threadIdx.x) * 100);
}

__global__ void per_thread(int *p) {
  if (threadIdx.x % 32 == 0)
    fill<<<1, 32, 0, cudaStreamPerThread>>>(p, int(threadIdx.x) * 100);
}

__global__ void tail(int *p, int *out) {
  if (threadIdx.x == 0) {
    fill<<<1, 32, 0, cudaStreamFireAndForget>>>(p, 1);
    sum<<<1, 32, 0, cudaStreamTailLaunch>>>(p, out);
  }
}

__global__ void faf(int *p) {
  if (threadIdx.x == 0) {
    fill<<<1, 32, 0, cudaStreamFireAndForget>>>(p, 1);
    fill<<<1, 32, 0, cudaStreamFireAndForget>>>(p, 2);
  }
}

__global__ void streams(int *p, int *out, bool event) {
  if (threadIdx.x != 0)
    return;
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaEvent_t e;
  cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  fill<<<1, 32, 0, s1>>>(p, 1);
  if (event) {
    cudaEventRecord(e, s1);
    cudaStreamWaitEvent(s2, e, 0);
  }
  sum<<<1, 32, 0, s2>>>(p, out);
  cudaEventDestroy(e);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
}

__global__ void nested(int *p, int *out, bool ordered) {
  if (ordered) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
      fill_then_child<<<1, 32>>>(p, 1);
      sum<<<1, 32>>>(p, out);
    }
    return;
  }
  if (threadIdx.x == 0) {
    if (blockIdx.x == 0)
      fill_then_child<<<1, 32>>>(p, 1);
    else
      sum<<<1, 32>>>(p, out);
  }
}

int main(int argc, char **argv) {
  const std::string c = argc > 1 ? argv[1] : "";
  int *p, *out;
  CHECK(cudaMalloc(&p, 32 * sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(p, 0, 32 * sizeof(int)));
  CHECK(cudaMemset(out, 0, sizeof(int)));
  if (c == "blocks")
    blocks<<<2, 32>>>(p);
  else if (c == "one_block")
    one_block<<<1, 64>>>(p);
  else if (c == "per_thread")
    per_thread<<<1, 64>>>(p);
  else if (c == "tail")
    tail<<<1, 32>>>(p, out);
  else if (c == "faf")
    faf<<<1, 32>>>(p);
  else if (c == "streams" || c == "event")
    streams<<<1, 32>>>(p, out, c == "event");
  else if (c == "nested" || c == "nested_ok")
    nested<<<2, 32>>>(p, out, c == "nested_ok");
  else
    return 2;
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int h[32], s = 0;
  CHECK(cudaMemcpy(h, p, sizeof(h), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&s, out, sizeof(int), cudaMemcpyDeviceToHost));
  // What is certain whatever order the children ran in.
  if (c == "one_block")
    EXPECT(h[0] == 0 || h[0] == 3200);
  if (c == "tail" || c == "event" || c == "nested_ok")
    EXPECT(s == 32 + 31 * 32 / 2);
  CHECK(cudaFree(p));
  CHECK(cudaFree(out));
  return finish("cdp_siblings");
}
