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
#include <memory>
#include <optional>
#include <string>
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
// The memory of a graph allocation node (graph.cpp).
struct GraphAlloc;
struct Captured {
  CapturedWork work;
  std::optional<CapturedKernel> kernel; // then a kernel node
  // cudaMallocAsync / cudaFreeAsync of graph memory: then a memory node
  // (cudaGraphNodeTypeMemAlloc / MemFree) of `alloc`.
  cudaGraphNodeType mem = cudaGraphNodeTypeEmpty;
  std::shared_ptr<GraphAlloc> alloc;
};

// Adds a captured operation to `graph` as a node after `deps` (nodes of
// `graph`); returns the node. The graph of a capture gets a node per
// operation, in the order they were recorded, after the operations before
// it in its stream and those an event it waited for covers. Kernel launches
// are kernel nodes, allocations and frees of graph memory memory nodes;
// other operations are opaque (empty nodes that run them).
cudaGraphNode_t add_captured(cudaGraph_t graph, Captured c,
                             const std::vector<cudaGraphNode_t> &deps);

// Graph memory (docs/exec.md "Graph memory"): a new allocation of `bytes`
// (its address is fixed now; cudaMallocAsync in a capture), `made_by` the
// API that made it; the graph allocation at `p`, or null; its address.
cudaError_t new_graph_alloc(size_t bytes, std::shared_ptr<GraphAlloc> &out,
                            const char *made_by);
std::shared_ptr<GraphAlloc> graph_alloc(const void *p);
void *graph_alloc_ptr(const GraphAlloc &a);
// cudaFree / cudaFreeAsync (`api`) of graph memory outside a graph: ends
// the allocation's lifetime (its address stays the graph's); false when
// `p` is not graph memory.
bool free_graph_alloc(void *p, const char *api);
// Marks the device memory at `p` as outside its lifetime (`why`) or inside
// it (empty): kernels' accesses to it are reported (engine
// Device::set_retired).
void set_retired(void *p, std::string why, bool unmapped = false);

// Copies a conditional node's condition at `handle` (device memory) to
// `value` in `stream`'s order; race reports name the node.
cudaError_t read_condition(unsigned *value, const void *handle,
                           cudaStream_t stream);

// Makes `e` the last error (cudaGetLastError) when it is one; returns it.
cudaError_t record_error(cudaError_t e);

} // namespace bcusim::cudart
