// Graphs of the libcudart.so.13 stand-in (docs/exec.md "Graphs"): the
// objects behind cudaGraph_t, cudaGraphNode_t and cudaGraphExec_t. A graph
// launch replays its nodes through the runtime's own stream operations
// (cudaLaunchKernel, cudaMemcpy2DAsync, cudaEventRecord, ...) on streams of
// its own, joined by events along the graph's edges, so that nodes without
// a path between them are ordered as concurrent work.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace bcusim::cudart {

// One operation recorded by stream capture; it runs on the stream given.
using CapturedWork = std::function<cudaError_t(cudaStream_t)>;
// A plain kernel launch among them, with its arguments' bytes.
struct CapturedKernel {
  const void *func = nullptr;
  dim3 grid, block;
  unsigned shared = 0;
  std::vector<std::vector<uint8_t>> args;
};
struct Captured {
  CapturedWork work;
  std::optional<CapturedKernel> kernel; // then a kernel node
  std::vector<size_t> deps;             // the earlier operations it depends on
};

// The graph of a capture: a node per operation, in the order they were
// recorded (cudaStreamEndCapture), with an edge from each of an operation's
// dependencies (the operations before it in its stream, and those an event
// it waited for covers). Kernel launches are kernel nodes; other operations
// are opaque (empty nodes that run them).
cudaGraph_t graph_from_capture(std::vector<Captured> work);

// Makes `e` the last error (cudaGetLastError) when it is one; returns it.
cudaError_t record_error(cudaError_t e);

} // namespace bcusim::cudart
