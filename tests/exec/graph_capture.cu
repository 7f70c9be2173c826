// Stream capture across streams: one stream captures, an event recorded
// in the capture makes a second stream join it (fork), and an event of the
// second stream makes the first wait for it (join). The graph has one node
// per operation with the fork/join edges, and it computes what the
// streams would have.
#include "common.h"

__global__ void set(int *p, int v) { p[threadIdx.x] = v; }
__global__ void twice(const int *in, int *out) {
  out[threadIdx.x] = 2 * in[threadIdx.x];
}
__global__ void sum(const int *a, const int *b, int *out) {
  out[threadIdx.x] = a[threadIdx.x] + b[threadIdx.x];
}

int main() {
  int *x, *y, *z, *w;
  CHECK(cudaMallocManaged(&w, 32 * sizeof(int)));
  CHECK(cudaMallocManaged(&x, 32 * sizeof(int)));
  CHECK(cudaMallocManaged(&y, 32 * sizeof(int)));
  CHECK(cudaMallocManaged(&z, 32 * sizeof(int)));
  cudaStream_t a, b;
  CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

  CHECK(cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal));
  set<<<1, 32, 0, a>>>(x, 5);      // n0
  CHECK(cudaEventRecord(fork, a)); // not a node
  CHECK(cudaStreamWaitEvent(b, fork, 0));
  cudaStreamCaptureStatus st;
  CHECK(cudaStreamIsCapturing(b, &st));
  EXPECT(st == cudaStreamCaptureStatusActive);
  twice<<<1, 32, 0, b>>>(x, y); // n1, after n0
  set<<<1, 32, 0, a>>>(w, 7);   // n2, after n0, beside n1
  CHECK(cudaEventRecord(join, b));
  CHECK(cudaStreamWaitEvent(a, join, 0));
  sum<<<1, 32, 0, a>>>(y, w, z); // n3, after n1 and n2
  cudaGraph_t g;
  CHECK(cudaStreamEndCapture(a, &g));
  CHECK(cudaStreamIsCapturing(b, &st));
  EXPECT(st == cudaStreamCaptureStatusNone);

  size_t nodes = 0, edges = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &nodes));
  CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges));
  EXPECT(nodes == 4);
  EXPECT(edges == 4);
  size_t roots = 0;
  CHECK(cudaGraphGetRootNodes(g, nullptr, &roots));
  EXPECT(roots == 1);
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphLaunch(e, a));
  CHECK(cudaStreamSynchronize(a));
  EXPECT(y[0] == 10 && y[31] == 10);
  EXPECT(z[0] == 17 && z[31] == 17);
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));
  return finish("graph_capture");
}
