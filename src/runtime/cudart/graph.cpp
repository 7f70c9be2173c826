// Graphs of the libcudart.so.13 stand-in (graph.h, docs/exec.md "Graphs").
#include "graph.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <fmt/format.h>

namespace bcusim::cudart {

// The memory of a graph allocation node (docs/exec.md "Graph memory"): its
// address is fixed when the node is made (cudaGraphAddMemAllocNode, or
// cudaMallocAsync in a capture) and the memory stays mapped while a node
// names it or a launch left it allocated; `live` from the allocation
// node's run to its free (a free node, cudaFree, cudaFreeAsync).
struct GraphAlloc {
  void *ptr = nullptr;
  size_t bytes = 0;
  bool live = false;
  // How it was made ("cudaGraphAddMemAllocNode", "cudaMallocAsync in a
  // capture"), for reports of accesses outside its lifetime.
  std::string made_by = "an allocation node";
  // A free node of the graph that allocates it frees it.
  bool freed_in_graph = false;
};

namespace {

struct GraphObj;

uint64_t next_serial() {
  static std::atomic<uint64_t> n{0};
  return ++n;
}

struct NodeObj {
  GraphObj *graph = nullptr;
  size_t index = 0; // position in graph->nodes
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  std::vector<NodeObj *> deps; // incoming edges
  std::vector<NodeObj *> out;  // outgoing edges
  // Kernel: the arguments are copied when the node is made or set.
  cudaKernelNodeParams kernel{};
  std::vector<std::vector<uint8_t>> args;
  std::vector<void *> arg_ptrs;
  // Kernel node attributes that were set (cudaGraphKernelNodeSetAttribute).
  std::map<int, cudaLaunchAttributeValue> kattrs;
  // Memcpy, memset (the pattern of a memset of 2- or 4-byte elements),
  // host, event record/wait, child graph, captured operation.
  cudaMemcpy3DParms copy{};
  // A copy to or from a symbol runs as `work`; `copy` holds it with the
  // symbol's address unless the symbol has none (a __constant__ variable).
  bool copy_unknown = false;
  cudaMemsetParams set{};
  std::vector<uint8_t> pattern;
  cudaHostNodeParams host{};
  cudaEvent_t event = nullptr;
  std::unique_ptr<GraphObj> child;
  CapturedWork work;
  bool enabled = true; // cudaGraphNodeSetEnabled (executable graphs)
  // Memory allocation and free nodes: the allocation.
  std::shared_ptr<GraphAlloc> alloc;
  // Conditional: the handle, kind and body graphs (phGraph_out points at
  // `body_handles`).
  cudaConditionalNodeParams cond{};
  std::vector<std::unique_ptr<GraphObj>> bodies;
  std::vector<cudaGraph_t> body_handles;
};

// A conditional handle: the device address of its 32-bit value
// (cudaGraphSetConditional in device code stores there), and the value a
// launch starts with (cudaGraphCondAssignDefault).
struct CondHandle {
  cudaGraphConditionalHandle handle = 0;
  unsigned value = 0;
  bool assign = false;
};

struct GraphObj {
  // Tells graphs apart after one is destroyed and another made at its
  // address.
  uint64_t serial = next_serial();
  std::vector<std::unique_ptr<NodeObj>> nodes;
  std::vector<CondHandle> handles; // made for this graph
};

// An instantiated graph: a copy of the graph (same node positions, so that
// a node of the original names its copy) and the order it runs in.
struct ExecObj {
  // The graph it was instantiated from (GraphObj::serial): its nodes, and
  // no other graph's, name this graph's nodes in cudaGraphExec*SetParams,
  // also after cudaGraphExecUpdate (measured on H100, driver 580.159.04: a
  // node of the update's source graph gets cudaErrorInvalidValue).
  uint64_t source = 0;
  std::unique_ptr<GraphObj> graph;
  unsigned long long flags = 0;
  // The nodes with child graphs expanded, in topological order; deps are
  // positions in `plan`.
  struct Step {
    NodeObj *node;
    std::vector<size_t> deps;
    size_t chain = 0; // which of `streams` it runs on
  };
  std::vector<Step> plan;
  size_t chains = 0;
  std::vector<cudaStream_t> streams; // made at the first launch
  std::vector<cudaEvent_t> events;   // one per step
  cudaEvent_t start = nullptr;
};

std::recursive_mutex g_graph_mutex;

// Graph allocations by address, and the memory that backs them: `pool` is
// what graphs hold (cudaGraphMemAttrUsedMemCurrent); it grows when the
// live allocations need more and shrinks, to what they use, only at
// cudaDeviceGraphMemTrim. Launches run one after another, so allocations
// of graphs in different streams share it too.
struct GraphMemory {
  std::map<uintptr_t, std::shared_ptr<GraphAlloc>> allocs;
  size_t in_use = 0, pool = 0, high = 0;
};
GraphMemory &graph_memory() {
  static auto *m = new GraphMemory; // still there when the program exits
  return *m;
}

std::shared_ptr<GraphAlloc> find_alloc(const void *p) {
  auto &m = graph_memory().allocs;
  auto it = m.find(reinterpret_cast<uintptr_t>(p));
  return it == m.end() ? nullptr : it->second;
}

// The allocation's lifetime starts (live) or ends (freed `by`: "a free
// node", "cudaFreeAsync", ...). Kernels' accesses outside it are reported
// (docs/exec.md "Graph memory").
void set_live(GraphAlloc &a, bool live, const char *by = "") {
  GraphMemory &m = graph_memory();
  if (a.live == live)
    return;
  a.live = live;
  if (live) {
    m.in_use += a.bytes;
    m.pool = std::max(m.pool, m.in_use);
    m.high = std::max(m.high, m.pool);
    set_retired(a.ptr, {});
  } else {
    m.in_use -= a.bytes;
    set_retired(a.ptr, fmt::format("use after free: the {}-byte graph "
                                   "allocation at {} (made by {}) was freed "
                                   "by {}",
                                   a.bytes, a.ptr, a.made_by, by));
  }
}

// Frees the memory of the allocations that no node names and no launch
// left allocated.
void collect() {
  auto &m = graph_memory().allocs;
  for (auto it = m.begin(); it != m.end();) {
    if (it->second.use_count() == 1 && !it->second->live) {
      void *p = it->second->ptr;
      it = m.erase(it);
      cudaFree(p);
    } else {
      ++it;
    }
  }
}

GraphObj *graph_of(cudaGraph_t g) { return reinterpret_cast<GraphObj *>(g); }
NodeObj *node_of(cudaGraphNode_t n) { return reinterpret_cast<NodeObj *>(n); }
ExecObj *exec_of(cudaGraphExec_t x) { return reinterpret_cast<ExecObj *>(x); }
cudaGraphNode_t handle(NodeObj *n) {
  return reinterpret_cast<cudaGraphNode_t>(n);
}

cudaError_t set_kernel(NodeObj &n, const cudaKernelNodeParams &p) {
  if (!p.func)
    return cudaErrorInvalidDeviceFunction;
  std::vector<std::vector<uint8_t>> args;
  for (size_t i = 0;; ++i) {
    size_t offset = 0, size = 0;
    cudaError_t e = cudaFuncGetParamInfo(p.func, i, &offset, &size);
    if (e == cudaErrorInvalidValue)
      break; // past the last parameter
    if (e != cudaSuccess)
      return e;
    if (!p.kernelParams)
      return cudaErrorInvalidValue; // `extra` is not supported
    auto *a = static_cast<const uint8_t *>(p.kernelParams[i]);
    args.emplace_back(a, a + size);
  }
  n.kernel = p;
  n.kernel.extra = nullptr;
  n.args = std::move(args);
  n.arg_ptrs.clear();
  for (auto &a : n.args)
    n.arg_ptrs.push_back(a.data());
  n.kernel.kernelParams = n.arg_ptrs.data();
  return cudaSuccess;
}

cudaError_t set_memset(NodeObj &n, const cudaMemsetParams &p) {
  if (!p.dst ||
      (p.elementSize != 1 && p.elementSize != 2 && p.elementSize != 4))
    return cudaErrorInvalidValue;
  n.set = p;
  n.pattern.clear();
  uint32_t v = p.value;
  bool uniform = p.elementSize == 1;
  if (!uniform) {
    uint8_t b[4];
    std::memcpy(b, &v, 4);
    uniform =
        std::all_of(b, b + p.elementSize, [&](uint8_t x) { return x == b[0]; });
  }
  if (!uniform) {
    // Copied from a row of the element repeated.
    n.pattern.resize(p.width * p.elementSize);
    for (size_t i = 0; i < p.width; ++i)
      std::memcpy(n.pattern.data() + i * p.elementSize, &v, p.elementSize);
  }
  return cudaSuccess;
}

cudaError_t set_copy(NodeObj &n, const cudaMemcpy3DParms &p) {
  n.copy = p;
  n.work = nullptr; // no longer a symbol copy
  n.copy_unknown = false;
  return cudaSuccess;
}

cudaError_t set_host(NodeObj &n, const cudaHostNodeParams &p) {
  if (!p.fn)
    return cudaErrorInvalidValue;
  n.host = p;
  return cudaSuccess;
}

// A node's parameters of one node type: `get` copies them out of the node;
// `set` checks and stores them with the type's setter (set_kernel,
// set_copy, ...). Both refuse a null node or pointer and a node of another
// type.
template <class P>
cudaError_t get_params(const NodeObj *n, cudaGraphNodeType type,
                       P NodeObj::*field, P *out) {
  if (!n || !out || n->type != type)
    return cudaErrorInvalidValue;
  *out = n->*field;
  return cudaSuccess;
}

template <class P>
cudaError_t set_params(NodeObj *n, cudaGraphNodeType type, const P *p,
                       cudaError_t (*set)(NodeObj &, const P &)) {
  if (!n || !p || n->type != type)
    return cudaErrorInvalidValue;
  return set(*n, *p);
}

// The same on a node of an executable graph: an error is also the last error
// (measured on H100: a node of another graph gives cudaErrorInvalidValue,
// which cudaGetLastError then returns).
template <class P>
cudaError_t exec_set_params(NodeObj *n, cudaGraphNodeType type, const P *p,
                            cudaError_t (*set)(NodeObj &, const P &)) {
  const cudaError_t e = set_params(n, type, p, set);
  return e == cudaSuccess ? e : record_error(e);
}

NodeObj *node_or_null(cudaGraphNode_t n) { return n ? node_of(n) : nullptr; }

cudaError_t add_node(cudaGraphNode_t *out, cudaGraph_t graph,
                     const cudaGraphNode_t *deps, size_t ndeps,
                     cudaGraphNodeType type,
                     const std::function<cudaError_t(NodeObj &)> &init) {
  if (!out || !graph || (ndeps && !deps))
    return cudaErrorInvalidValue;
  GraphObj *g = graph_of(graph);
  for (size_t i = 0; i < ndeps; ++i)
    if (!deps[i] || node_of(deps[i])->graph != g)
      return cudaErrorInvalidValue;
  auto n = std::make_unique<NodeObj>();
  n->graph = g;
  n->type = type;
  if (init)
    if (cudaError_t e = init(*n))
      return e;
  for (size_t i = 0; i < ndeps; ++i) {
    NodeObj *d = node_of(deps[i]);
    if (std::find(n->deps.begin(), n->deps.end(), d) != n->deps.end())
      continue;
    n->deps.push_back(d);
    d->out.push_back(n.get());
  }
  n->index = g->nodes.size();
  *out = handle(n.get());
  g->nodes.push_back(std::move(n));
  return cudaSuccess;
}

std::unique_ptr<GraphObj> clone(const GraphObj &g);

// Copies a node's parameters (not its edges) into `to`.
void copy_params(NodeObj &to, const NodeObj &from) {
  to.type = from.type;
  if (from.type == cudaGraphNodeTypeKernel) {
    to.kernel = from.kernel;
    to.args = from.args;
    to.arg_ptrs.clear();
    for (auto &a : to.args)
      to.arg_ptrs.push_back(a.data());
    to.kernel.kernelParams = to.arg_ptrs.data();
    to.kattrs = from.kattrs;
  }
  to.copy = from.copy;
  to.copy_unknown = from.copy_unknown;
  to.set = from.set;
  to.pattern = from.pattern;
  to.host = from.host;
  to.event = from.event;
  to.work = from.work;
  if (from.child)
    to.child = clone(*from.child);
  to.alloc = from.alloc;
  to.cond = from.cond;
  to.bodies.clear();
  to.body_handles.clear();
  for (auto &b : from.bodies) {
    to.bodies.push_back(clone(*b));
    to.body_handles.push_back(
        reinterpret_cast<cudaGraph_t>(to.bodies.back().get()));
  }
  to.cond.phGraph_out = to.body_handles.data();
}

std::unique_ptr<GraphObj> clone(const GraphObj &g) {
  auto c = std::make_unique<GraphObj>();
  c->handles = g.handles;
  for (auto &n : g.nodes) {
    auto m = std::make_unique<NodeObj>();
    m->graph = c.get();
    m->index = n->index;
    copy_params(*m, *n);
    c->nodes.push_back(std::move(m));
  }
  for (auto &n : g.nodes)
    for (NodeObj *d : n->deps) {
      c->nodes[n->index]->deps.push_back(c->nodes[d->index].get());
      c->nodes[d->index]->out.push_back(c->nodes[n->index].get());
    }
  return c;
}

// Appends `g`'s nodes to `plan` in topological order (Kahn's algorithm,
// ties by creation order); child graphs are expanded in place. `entry` are
// the steps the graph's roots follow; returns false on a cycle. `exits`
// receives the steps of the graph's sinks.
bool build_plan(const GraphObj &g, std::vector<ExecObj::Step> &plan,
                const std::vector<size_t> &entry, std::vector<size_t> &exits) {
  const size_t n = g.nodes.size();
  std::vector<size_t> pending(n);
  std::vector<std::vector<size_t>> done_at(n); // a node's exit steps
  for (size_t i = 0; i < n; ++i)
    pending[i] = g.nodes[i]->deps.size();
  std::vector<size_t> ready;
  for (size_t i = 0; i < n; ++i)
    if (!pending[i])
      ready.push_back(i);
  size_t placed = 0;
  while (!ready.empty()) {
    std::sort(ready.begin(), ready.end(), std::greater<>());
    size_t i = ready.back();
    ready.pop_back();
    ++placed;
    NodeObj *node = g.nodes[i].get();
    std::vector<size_t> deps;
    if (node->deps.empty())
      deps = entry;
    for (NodeObj *d : node->deps)
      for (size_t s : done_at[d->index])
        deps.push_back(s);
    if (node->type == cudaGraphNodeTypeGraph && node->child) {
      std::vector<size_t> sub;
      if (!build_plan(*node->child, plan, deps, sub))
        return false;
      if (sub.empty()) // an empty child graph: an empty step
        plan.push_back({nullptr, deps}), sub.push_back(plan.size() - 1);
      done_at[i] = sub;
    } else {
      plan.push_back({node, deps});
      done_at[i] = {plan.size() - 1};
    }
    for (NodeObj *o : node->out)
      if (--pending[o->index] == 0)
        ready.push_back(o->index);
  }
  if (placed != n)
    return false;
  for (size_t i = 0; i < n; ++i)
    if (g.nodes[i]->out.empty())
      for (size_t s : done_at[i])
        exits.push_back(s);
  return true;
}

// Gives each step a chain (stream): a step continues the chain of its
// first dependency that no earlier step continued, else starts a new one.
void assign_chains(ExecObj &x) {
  std::vector<bool> continued(x.plan.size(), false);
  x.chains = 0;
  for (auto &s : x.plan) {
    bool found = false;
    for (size_t d : s.deps)
      if (!continued[d]) {
        continued[d] = true;
        s.chain = x.plan[d].chain;
        found = true;
        break;
      }
    if (!found)
      s.chain = x.chains++;
  }
}

// A copy node runs as cudaMemcpy3DAsync (positions and widths in elements
// on a CUDA array's side); a zero height or depth counts as one.
cudaError_t run_copy(const cudaMemcpy3DParms &p, cudaStream_t s) {
  cudaMemcpy3DParms q = p;
  q.extent.height = std::max<size_t>(q.extent.height, 1);
  q.extent.depth = std::max<size_t>(q.extent.depth, 1);
  return cudaMemcpy3DAsync(&q, s);
}

cudaError_t run_node(const NodeObj &n, cudaStream_t s);

// A conditional node: reads its handle's value in stream order and runs
// the body it selects (IF: body 0 when non-zero, body 1 when zero and
// present; WHILE: body 0 until the value is zero; SWITCH: body `value`).
cudaError_t run_conditional(const NodeObj &n, cudaStream_t s) {
  auto value = [&](unsigned &v) {
    return read_condition(&v, reinterpret_cast<void *>(n.cond.handle), s);
  };
  auto run_body = [&](size_t i) -> cudaError_t {
    cudaGraphExec_t x = nullptr;
    if (cudaError_t e = cudaGraphInstantiate(&x, n.body_handles[i], 0))
      return e;
    cudaError_t e = cudaGraphLaunch(x, s);
    cudaGraphExecDestroy(x);
    return e;
  };
  unsigned v = 0;
  if (cudaError_t e = value(v))
    return e;
  switch (n.cond.type) {
  case cudaGraphCondTypeIf:
    if (v)
      return run_body(0);
    return n.bodies.size() > 1 ? run_body(1) : cudaSuccess;
  case cudaGraphCondTypeWhile:
    while (v) {
      if (cudaError_t e = run_body(0))
        return e;
      if (cudaError_t e = value(v))
        return e;
    }
    return cudaSuccess;
  case cudaGraphCondTypeSwitch:
    return v < n.bodies.size() ? run_body(v) : cudaSuccess;
  default:
    return cudaErrorInvalidValue;
  }
}

cudaError_t run_node(const NodeObj &n, cudaStream_t s) {
  if (!n.enabled)
    return cudaSuccess;
  switch (n.type) {
  case cudaGraphNodeTypeConditional:
    return run_conditional(n, s);
  case cudaGraphNodeTypeKernel: {
    // The cluster dimension and cooperative attributes are the launch's.
    cudaLaunchAttribute attrs[2];
    unsigned k = 0;
    for (int id :
         {cudaLaunchAttributeClusterDimension, cudaLaunchAttributeCooperative})
      if (auto it = n.kattrs.find(id); it != n.kattrs.end()) {
        attrs[k].id = cudaLaunchAttributeID(id);
        attrs[k++].val = it->second;
      }
    if (k == 0)
      return cudaLaunchKernel(
          n.kernel.func, n.kernel.gridDim, n.kernel.blockDim,
          const_cast<void **>(n.arg_ptrs.data()), n.kernel.sharedMemBytes, s);
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = n.kernel.gridDim;
    cfg.blockDim = n.kernel.blockDim;
    cfg.dynamicSmemBytes = n.kernel.sharedMemBytes;
    cfg.stream = s;
    cfg.attrs = attrs;
    cfg.numAttrs = k;
    return cudaLaunchKernelExC(&cfg, n.kernel.func,
                               const_cast<void **>(n.arg_ptrs.data()));
  }
  case cudaGraphNodeTypeMemcpy:
    if (n.work) // a captured copy
      return n.work(s);
    return run_copy(n.copy, s);
  case cudaGraphNodeTypeMemset: {
    const cudaMemsetParams &p = n.set;
    size_t row = p.width * p.elementSize;
    size_t pitch = p.height > 1 ? p.pitch : row;
    if (n.pattern.empty())
      return cudaMemset2DAsync(p.dst, pitch, int(p.value & 0xff), row,
                               std::max<size_t>(p.height, 1), s);
    for (size_t y = 0; y < std::max<size_t>(p.height, 1); ++y)
      if (cudaError_t e =
              cudaMemcpyAsync(static_cast<char *>(p.dst) + y * pitch,
                              n.pattern.data(), row, cudaMemcpyHostToDevice, s))
        return e;
    return cudaSuccess;
  }
  case cudaGraphNodeTypeHost:
    return cudaLaunchHostFunc(s, n.host.fn, n.host.userData);
  case cudaGraphNodeTypeEventRecord:
    // A real record, also when replayed into a capturing stream.
    return cudaEventRecordWithFlags(n.event, s, cudaEventRecordExternal);
  case cudaGraphNodeTypeWaitEvent:
    return cudaStreamWaitEvent(s, n.event, 0);
  case cudaGraphNodeTypeMemAlloc:
  case cudaGraphNodeTypeMemFree: {
    std::lock_guard lock(g_graph_mutex);
    set_live(*n.alloc, n.type == cudaGraphNodeTypeMemAlloc, "a free node");
    return cudaSuccess;
  }
  default:
    return n.work ? n.work(s) : cudaSuccess;
  }
}

cudaError_t instantiate(cudaGraphExec_t *out, cudaGraph_t graph,
                        unsigned long long flags) {
  if (!out || !graph)
    return cudaErrorInvalidValue;
  auto x = std::make_unique<ExecObj>();
  x->source = graph_of(graph)->serial;
  x->graph = clone(*graph_of(graph));
  x->flags = flags;
  std::vector<size_t> exits;
  if (!build_plan(*x->graph, x->plan, {}, exits))
    return cudaErrorInvalidValue; // a cycle
  assign_chains(*x);
  *out = reinterpret_cast<cudaGraphExec_t>(x.release());
  return cudaSuccess;
}

// The node of executable graph `x` that stands for `node` of the graph it
// was made from.
NodeObj *exec_node(cudaGraphExec_t x, cudaGraphNode_t node) {
  if (!x || !node)
    return nullptr;
  ExecObj *e = exec_of(x);
  NodeObj *n = node_of(node);
  if (n->graph->serial != e->source || n->index >= e->graph->nodes.size())
    return nullptr;
  NodeObj *m = e->graph->nodes[n->index].get();
  return m->type == n->type ? m : nullptr;
}

// Whether `a` and `b` have the same nodes (types) and edges.
bool same_shape(const GraphObj &a, const GraphObj &b,
                cudaGraphExecUpdateResultInfo &info) {
  if (a.nodes.size() != b.nodes.size()) {
    info.result = cudaGraphExecUpdateErrorTopologyChanged;
    return false;
  }
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const NodeObj &x = *a.nodes[i], &y = *b.nodes[i];
    if (x.type != y.type) {
      info.result = cudaGraphExecUpdateErrorNodeTypeChanged;
      info.errorNode = handle(b.nodes[i].get());
      return false;
    }
    if (x.deps.size() != y.deps.size()) {
      info.result = cudaGraphExecUpdateErrorTopologyChanged;
      info.errorNode = handle(b.nodes[i].get());
      return false;
    }
    for (size_t k = 0; k < x.deps.size(); ++k)
      if (x.deps[k]->index != y.deps[k]->index) {
        info.result = cudaGraphExecUpdateErrorTopologyChanged;
        info.errorNode = handle(b.nodes[i].get());
        info.errorFromNode = handle(y.deps[k]);
        return false;
      }
    if (x.type == cudaGraphNodeTypeGraph &&
        (!x.child || !y.child || !same_shape(*x.child, *y.child, info)))
      return false;
    if (x.type == cudaGraphNodeTypeMemcpy && bool(x.work) != bool(y.work)) {
      info.result = cudaGraphExecUpdateErrorNotSupported;
      info.errorNode = handle(b.nodes[i].get());
      return false;
    }
  }
  return true;
}

// Copies the parameters of `from`'s nodes into `to`'s (same shape),
// keeping `to`'s enabled flags.
void update_params(GraphObj &to, const GraphObj &from) {
  for (size_t i = 0; i < to.nodes.size(); ++i) {
    NodeObj &t = *to.nodes[i];
    const NodeObj &f = *from.nodes[i];
    if (t.type == cudaGraphNodeTypeGraph) {
      update_params(*t.child, *f.child);
      continue;
    }
    copy_params(t, f);
  }
}

} // namespace

cudaGraphNode_t add_captured(cudaGraph_t graph, Captured c,
                             const std::vector<cudaGraphNode_t> &deps) {
  GraphObj *g = graph_of(graph);
  auto n = std::make_unique<NodeObj>();
  n->graph = g;
  n->index = g->nodes.size();
  if (c.kernel) {
    n->type = cudaGraphNodeTypeKernel;
    n->kernel.func = const_cast<void *>(c.kernel->func);
    n->kernel.gridDim = c.kernel->grid;
    n->kernel.blockDim = c.kernel->block;
    n->kernel.sharedMemBytes = c.kernel->shared;
    n->args = std::move(c.kernel->args);
    for (auto &a : n->args)
      n->arg_ptrs.push_back(a.data());
    n->kernel.kernelParams = n->arg_ptrs.data();
  } else if (c.alloc) {
    n->type = c.mem; // cudaMallocAsync / cudaFreeAsync of graph memory
    n->alloc = std::move(c.alloc);
  } else {
    // Other captured operations are opaque: empty nodes that carry
    // their operation.
    n->type = cudaGraphNodeTypeEmpty;
    n->work = std::move(c.work);
  }
  for (cudaGraphNode_t d : deps) {
    NodeObj *dn = node_of(d);
    if (dn->graph != g ||
        std::find(n->deps.begin(), n->deps.end(), dn) != n->deps.end())
      continue;
    n->deps.push_back(dn);
    dn->out.push_back(n.get());
  }
  cudaGraphNode_t h = handle(n.get());
  g->nodes.push_back(std::move(n));
  return h;
}

cudaError_t new_graph_alloc(size_t bytes, std::shared_ptr<GraphAlloc> &out,
                            const char *made_by) {
  if (!bytes)
    return cudaErrorInvalidValue;
  void *p = nullptr;
  if (cudaError_t e = cudaMalloc(&p, bytes))
    return e;
  std::lock_guard lock(g_graph_mutex);
  auto a = std::make_shared<GraphAlloc>();
  a->ptr = p;
  a->bytes = bytes;
  a->made_by = made_by;
  // Its lifetime starts when its allocation node runs; until it first
  // runs, a GPU has not mapped the memory: an access faults (measured on
  // H200). Mapped from then on.
  set_retired(p,
              fmt::format("use before allocation: the {}-byte graph "
                          "allocation at {} is not allocated: its "
                          "allocation node has not run",
                          bytes, p),
              true);
  graph_memory().allocs[reinterpret_cast<uintptr_t>(p)] = a;
  out = std::move(a);
  return cudaSuccess;
}

std::shared_ptr<GraphAlloc> graph_alloc(const void *p) {
  std::lock_guard lock(g_graph_mutex);
  return find_alloc(p);
}

void *graph_alloc_ptr(const GraphAlloc &a) { return a.ptr; }

bool free_graph_alloc(void *p, const char *api) {
  std::lock_guard lock(g_graph_mutex);
  std::shared_ptr<GraphAlloc> a = find_alloc(p);
  if (!a)
    return false;
  set_live(*a, false, api);
  a.reset();
  collect();
  return true;
}

} // namespace bcusim::cudart

using namespace bcusim::cudart;

extern "C" {

// ---- graphs and nodes ---------------------------------------------------
cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags) {
  if (!pGraph || flags)
    return cudaErrorInvalidValue;
  *pGraph = reinterpret_cast<cudaGraph_t>(new GraphObj);
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  if (!graph)
    return cudaErrorInvalidValue;
  std::lock_guard lock(g_graph_mutex);
  delete graph_of(graph);
  collect();
  return cudaSuccess;
}

cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone,
                           cudaGraph_t originalGraph) {
  if (!pGraphClone || !originalGraph)
    return cudaErrorInvalidValue;
  for (auto &n : graph_of(originalGraph)->nodes)
    if (n->alloc) // graphs with memory nodes cannot be cloned
      return cudaErrorNotSupported;
  *pGraphClone =
      reinterpret_cast<cudaGraph_t>(clone(*graph_of(originalGraph)).release());
  return cudaSuccess;
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode,
                                     cudaGraphNode_t originalNode,
                                     cudaGraph_t clonedGraph) {
  if (!pNode || !originalNode || !clonedGraph)
    return cudaErrorInvalidValue;
  GraphObj *c = graph_of(clonedGraph);
  size_t i = node_of(originalNode)->index;
  if (i >= c->nodes.size())
    return cudaErrorInvalidValue;
  *pNode = handle(c->nodes[i].get());
  return cudaSuccess;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode,
                                   cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies,
                                   size_t numDependencies,
                                   const cudaKernelNodeParams *pNodeParams) {
  if (!pNodeParams)
    return cudaErrorInvalidValue;
  return add_node(pGraphNode, graph, pDependencies, numDependencies,
                  cudaGraphNodeTypeKernel,
                  [&](NodeObj &n) { return set_kernel(n, *pNodeParams); });
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
                                         cudaKernelNodeParams *pNodeParams) {
  return get_params(node_or_null(node), cudaGraphNodeTypeKernel,
                    &NodeObj::kernel, pNodeParams);
}

cudaError_t
cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                             const cudaKernelNodeParams *pNodeParams) {
  return set_params(node_or_null(node), cudaGraphNodeTypeKernel, pNodeParams,
                    set_kernel);
}

// Kernel node attributes: the cluster dimension and cooperative launch
// take effect (as in cudaLaunchKernelEx); the access policy window, cluster
// scheduling preference, priority and memory synchronization domains are
// kept and reported without effect; others are not supported.
static cudaError_t kernel_attr_known(cudaKernelNodeAttrID attr) {
  switch (int(attr)) {
  case cudaLaunchAttributeAccessPolicyWindow:
  case cudaLaunchAttributeCooperative:
  case cudaLaunchAttributeClusterDimension:
  case cudaLaunchAttributeClusterSchedulingPolicyPreference:
  case cudaLaunchAttributePriority:
  case cudaLaunchAttributeMemSyncDomainMap:
  case cudaLaunchAttributeMemSyncDomain:
    return cudaSuccess;
  case cudaLaunchAttributeSynchronizationPolicy: // a stream's, not a node's
  case cudaLaunchAttributeIgnore:
    return cudaErrorInvalidValue;
  default:
    return cudaErrorNotSupported;
  }
}

cudaError_t
cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode,
                                cudaKernelNodeAttrID attr,
                                cudaKernelNodeAttrValue *value_out) {
  std::lock_guard lock(g_graph_mutex);
  NodeObj *n = node_or_null(hNode);
  if (!n || !value_out || n->type != cudaGraphNodeTypeKernel)
    return record_error(cudaErrorInvalidValue);
  if (cudaError_t e = kernel_attr_known(attr))
    return record_error(e);
  auto it = n->kattrs.find(int(attr));
  if (it != n->kattrs.end()) {
    *value_out = it->second;
  } else {
    std::memset(value_out, 0, sizeof(*value_out)); // the defaults
    if (int(attr) == cudaLaunchAttributeMemSyncDomainMap)
      value_out->memSyncDomainMap.remote = 1;
  }
  return cudaSuccess;
}

cudaError_t
cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode,
                                cudaKernelNodeAttrID attr,
                                const cudaKernelNodeAttrValue *value) {
  std::lock_guard lock(g_graph_mutex);
  NodeObj *n = node_or_null(hNode);
  if (!n || !value || n->type != cudaGraphNodeTypeKernel)
    return record_error(cudaErrorInvalidValue);
  if (cudaError_t e = kernel_attr_known(attr))
    return record_error(e);
  if (int(attr) == cudaLaunchAttributeAccessPolicyWindow &&
      (value->accessPolicyWindow.hitRatio < 0.0f ||
       value->accessPolicyWindow.hitRatio > 1.0f))
    return record_error(cudaErrorInvalidValue);
  n->kattrs[int(attr)] = *value;
  // A priority is clamped into the device's stream priority range, as on a
  // GPU (measured on H200: 3 reads back 0, -9 reads back -5).
  if (int(attr) == cudaLaunchAttributePriority) {
    int least = 0, greatest = 0;
    cudaDeviceGetStreamPriorityRange(&least, &greatest);
    int &p = n->kattrs[int(attr)].priority;
    p = std::clamp(p, greatest, least);
  }
  return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t hDst,
                                              cudaGraphNode_t hSrc) {
  std::lock_guard lock(g_graph_mutex);
  NodeObj *d = node_or_null(hDst), *s = node_or_null(hSrc);
  if (!d || !s || d->type != cudaGraphNodeTypeKernel ||
      s->type != cudaGraphNodeTypeKernel)
    return record_error(cudaErrorInvalidValue);
  d->kattrs = s->kattrs;
  return cudaSuccess;
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode,
                                   cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies,
                                   size_t numDependencies,
                                   const cudaMemcpy3DParms *pCopyParams) {
  if (!pCopyParams)
    return cudaErrorInvalidValue;
  return add_node(pGraphNode, graph, pDependencies, numDependencies,
                  cudaGraphNodeTypeMemcpy,
                  [&](NodeObj &n) { return set_copy(n, *pCopyParams); });
}

static cudaMemcpy3DParms linear_copy(void *dst, const void *src, size_t count,
                                     cudaMemcpyKind kind) {
  cudaMemcpy3DParms p{};
  p.dstPtr = cudaPitchedPtr{dst, count, count, 1};
  p.srcPtr = cudaPitchedPtr{const_cast<void *>(src), count, count, 1};
  p.extent = cudaExtent{count, 1, 1};
  p.kind = kind;
  return p;
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode,
                                     cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies,
                                     size_t numDependencies, void *dst,
                                     const void *src, size_t count,
                                     cudaMemcpyKind kind) {
  cudaMemcpy3DParms p = linear_copy(dst, src, count, kind);
  return cudaGraphAddMemcpyNode(pGraphNode, graph, pDependencies,
                                numDependencies, &p);
}

cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node,
                                         cudaMemcpy3DParms *pNodeParams) {
  if (node && node_of(node)->copy_unknown)
    return cudaErrorNotSupported; // a __constant__ variable has no address
  return get_params(node_or_null(node), cudaGraphNodeTypeMemcpy, &NodeObj::copy,
                    pNodeParams);
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node,
                                         const cudaMemcpy3DParms *pNodeParams) {
  return set_params(node_or_null(node), cudaGraphNodeTypeMemcpy, pNodeParams,
                    set_copy);
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst,
                                           const void *src, size_t count,
                                           cudaMemcpyKind kind) {
  cudaMemcpy3DParms p = linear_copy(dst, src, count, kind);
  return cudaGraphMemcpyNodeSetParams(node, &p);
}

// Copies to and from a symbol (a __device__ or __constant__ variable): the
// symbol is checked when the node is set, the copy runs as the symbol
// copies of streams do.
static cudaError_t set_symbol_copy(NodeObj &n, const void *symbol, void *other,
                                   size_t count, size_t offset,
                                   cudaMemcpyKind kind, bool to_symbol) {
  if (kind == (to_symbol ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice) ||
      kind == cudaMemcpyHostToHost || int(kind) < 0 || int(kind) > 4)
    return cudaErrorInvalidMemcpyDirection;
  const cudaError_t before = cudaPeekAtLastError();
  size_t size = 0;
  if (cudaError_t e = cudaGetSymbolSize(&size, symbol))
    return e;
  if (offset > size || count > size - offset)
    return cudaErrorInvalidValue;
  void *addr = nullptr;
  n.copy_unknown = cudaGetSymbolAddress(&addr, symbol) != cudaSuccess;
  if (n.copy_unknown) {
    // Not the program's error: its last error stays what it was.
    cudaGetLastError();
    if (before != cudaSuccess)
      record_error(before);
    n.copy = cudaMemcpy3DParms{};
  } else {
    char *at = static_cast<char *>(addr) + offset;
    n.copy = to_symbol ? linear_copy(at, other, count, kind)
                       : linear_copy(other, at, count, kind);
  }
  n.work = [=](cudaStream_t s) {
    return to_symbol
               ? cudaMemcpyToSymbolAsync(symbol, other, count, offset, kind, s)
               : cudaMemcpyFromSymbolAsync(other, symbol, count, offset, kind,
                                           s);
  };
  return cudaSuccess;
}

cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *pGraphNode,
                                           cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies,
                                           size_t numDependencies,
                                           const void *symbol, const void *src,
                                           size_t count, size_t offset,
                                           cudaMemcpyKind kind) {
  return add_node(pGraphNode, graph, pDependencies, numDependencies,
                  cudaGraphNodeTypeMemcpy, [&](NodeObj &n) {
                    return set_symbol_copy(n, symbol, const_cast<void *>(src),
                                           count, offset, kind, true);
                  });
}

cudaError_t cudaGraphAddMemcpyNodeFromSymbol(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dst,
    const void *symbol, size_t count, size_t offset, cudaMemcpyKind kind) {
  return add_node(pGraphNode, graph, pDependencies, numDependencies,
                  cudaGraphNodeTypeMemcpy, [&](NodeObj &n) {
                    return set_symbol_copy(n, symbol, dst, count, offset, kind,
                                           false);
                  });
}

cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node,
                                                 const void *symbol,
                                                 const void *src, size_t count,
                                                 size_t offset,
                                                 cudaMemcpyKind kind) {
  NodeObj *n = node_or_null(node);
  if (!n || n->type != cudaGraphNodeTypeMemcpy)
    return cudaErrorInvalidValue;
  return set_symbol_copy(*n, symbol, const_cast<void *>(src), count, offset,
                         kind, true);
}

cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node,
                                                   void *dst,
                                                   const void *symbol,
                                                   size_t count, size_t offset,
                                                   cudaMemcpyKind kind) {
  NodeObj *n = node_or_null(node);
  if (!n || n->type != cudaGraphNodeTypeMemcpy)
    return cudaErrorInvalidValue;
  return set_symbol_copy(*n, symbol, dst, count, offset, kind, false);
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode,
                                   cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies,
                                   size_t numDependencies,
                                   const cudaMemsetParams *pMemsetParams) {
  if (!pMemsetParams)
    return cudaErrorInvalidValue;
  return add_node(pGraphNode, graph, pDependencies, numDependencies,
                  cudaGraphNodeTypeMemset,
                  [&](NodeObj &n) { return set_memset(n, *pMemsetParams); });
}

cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node,
                                         cudaMemsetParams *pNodeParams) {
  return get_params(node_or_null(node), cudaGraphNodeTypeMemset, &NodeObj::set,
                    pNodeParams);
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node,
                                         const cudaMemsetParams *pNodeParams) {
  return set_params(node_or_null(node), cudaGraphNodeTypeMemset, pNodeParams,
                    set_memset);
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                 const cudaGraphNode_t *pDependencies,
                                 size_t numDependencies,
                                 const cudaHostNodeParams *pNodeParams) {
  if (!pNodeParams)
    return cudaErrorInvalidValue;
  return add_node(pGraphNode, graph, pDependencies, numDependencies,
                  cudaGraphNodeTypeHost,
                  [&](NodeObj &n) { return set_host(n, *pNodeParams); });
}

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node,
                                       cudaHostNodeParams *pNodeParams) {
  return get_params(node_or_null(node), cudaGraphNodeTypeHost, &NodeObj::host,
                    pNodeParams);
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node,
                                       const cudaHostNodeParams *pNodeParams) {
  return set_params(node_or_null(node), cudaGraphNodeTypeHost, pNodeParams,
                    set_host);
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode,
                                       cudaGraph_t graph,
                                       const cudaGraphNode_t *pDependencies,
                                       size_t numDependencies,
                                       cudaGraph_t childGraph) {
  if (!childGraph || childGraph == graph)
    return cudaErrorInvalidValue;
  return add_node(pGraphNode, graph, pDependencies, numDependencies,
                  cudaGraphNodeTypeGraph, [&](NodeObj &n) {
                    n.child = clone(*graph_of(childGraph)); // a copy, as CUDA
                    return cudaSuccess;
                  });
}

cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node,
                                            cudaGraph_t *pGraph) {
  if (!node || !pGraph || node_of(node)->type != cudaGraphNodeTypeGraph)
    return cudaErrorInvalidValue;
  *pGraph = reinterpret_cast<cudaGraph_t>(node_of(node)->child.get());
  return cudaSuccess;
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode,
                                  cudaGraph_t graph,
                                  const cudaGraphNode_t *pDependencies,
                                  size_t numDependencies) {
  return add_node(pGraphNode, graph, pDependencies, numDependencies,
                  cudaGraphNodeTypeEmpty, nullptr);
}

// ---- graph memory (docs/exec.md "Graph memory") -------------------------
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode,
                                     cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies,
                                     size_t numDependencies,
                                     cudaMemAllocNodeParams *nodeParams) {
  if (!nodeParams || !nodeParams->bytesize || !pGraphNode || !graph ||
      nodeParams->poolProps.allocType != cudaMemAllocationTypePinned ||
      nodeParams->poolProps.location.type != cudaMemLocationTypeDevice ||
      nodeParams->poolProps.location.id != 0)
    return cudaErrorInvalidValue;
  std::shared_ptr<GraphAlloc> a;
  if (cudaError_t e =
          new_graph_alloc(nodeParams->bytesize, a, "cudaGraphAddMemAllocNode"))
    return e;
  std::lock_guard lock(g_graph_mutex);
  cudaError_t e = add_node(pGraphNode, graph, pDependencies, numDependencies,
                           cudaGraphNodeTypeMemAlloc, [&](NodeObj &n) {
                             n.alloc = a;
                             return cudaSuccess;
                           });
  if (e == cudaSuccess)
    nodeParams->dptr = a->ptr;
  a.reset();
  collect();
  return e;
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node,
                                           cudaMemAllocNodeParams *params_out) {
  if (!node || !params_out || node_of(node)->type != cudaGraphNodeTypeMemAlloc)
    return cudaErrorInvalidValue;
  *params_out = cudaMemAllocNodeParams{};
  params_out->poolProps.allocType = cudaMemAllocationTypePinned;
  params_out->poolProps.location.type = cudaMemLocationTypeDevice;
  params_out->bytesize = node_of(node)->alloc->bytes;
  params_out->dptr = node_of(node)->alloc->ptr;
  return cudaSuccess;
}

// A free node frees an allocation of an allocation node, once: in the
// graph that allocates it, or else in other graphs.
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode,
                                    cudaGraph_t graph,
                                    const cudaGraphNode_t *pDependencies,
                                    size_t numDependencies, void *dptr) {
  std::lock_guard lock(g_graph_mutex);
  std::shared_ptr<GraphAlloc> a = find_alloc(dptr);
  if (!a || !graph || a->freed_in_graph)
    return cudaErrorInvalidValue;
  bool own = false;
  for (auto &n : graph_of(graph)->nodes)
    own |= n->alloc == a;
  cudaError_t e = add_node(pGraphNode, graph, pDependencies, numDependencies,
                           cudaGraphNodeTypeMemFree, [&](NodeObj &n) {
                             n.alloc = a;
                             return cudaSuccess;
                           });
  if (e == cudaSuccess && own)
    a->freed_in_graph = true;
  return e;
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node,
                                          void *dptr_out) {
  if (!node || !dptr_out || node_of(node)->type != cudaGraphNodeTypeMemFree)
    return cudaErrorInvalidValue;
  *static_cast<void **>(dptr_out) = node_of(node)->alloc->ptr;
  return cudaSuccess;
}

cudaError_t cudaDeviceGraphMemTrim(int device) {
  if (device != 0)
    return cudaErrorInvalidDevice;
  std::lock_guard lock(g_graph_mutex);
  collect();
  GraphMemory &m = graph_memory();
  m.pool = m.in_use;
  return cudaSuccess;
}

// Used and reserved memory are both the memory graphs hold, reserved in
// 32 MiB units as on a GPU (measured on H200: two allocations of 4000
// bytes are 33554432 bytes).
cudaError_t cudaDeviceGetGraphMemAttribute(int device,
                                           cudaGraphMemAttributeType attr,
                                           void *value) {
  if (device != 0)
    return cudaErrorInvalidDevice;
  if (!value)
    return cudaErrorInvalidValue;
  std::lock_guard lock(g_graph_mutex);
  const GraphMemory &m = graph_memory();
  constexpr uint64_t unit = 32ull << 20;
  auto units = [](uint64_t bytes) { return (bytes + unit - 1) / unit * unit; };
  switch (attr) {
  case cudaGraphMemAttrUsedMemCurrent:
  case cudaGraphMemAttrReservedMemCurrent:
    *static_cast<uint64_t *>(value) = units(m.pool);
    return cudaSuccess;
  case cudaGraphMemAttrUsedMemHigh:
  case cudaGraphMemAttrReservedMemHigh:
    *static_cast<uint64_t *>(value) = units(m.high);
    return cudaSuccess;
  default:
    return cudaErrorInvalidValue;
  }
}

// Only the high watermarks can be set, and only to zero (they restart at
// the current value).
cudaError_t cudaDeviceSetGraphMemAttribute(int device,
                                           cudaGraphMemAttributeType attr,
                                           void *value) {
  if (device != 0)
    return cudaErrorInvalidDevice;
  if (!value || *static_cast<uint64_t *>(value) != 0 ||
      (attr != cudaGraphMemAttrUsedMemHigh &&
       attr != cudaGraphMemAttrReservedMemHigh))
    return cudaErrorInvalidValue;
  std::lock_guard lock(g_graph_mutex);
  graph_memory().high = graph_memory().pool;
  return cudaSuccess;
}

cudaError_t cudaGraphConditionalHandleCreate(
    cudaGraphConditionalHandle *pHandle_out, cudaGraph_t graph,
    unsigned int defaultLaunchValue, unsigned int flags) {
  if (!pHandle_out || !graph || (flags & ~unsigned(cudaGraphCondAssignDefault)))
    return cudaErrorInvalidValue;
  std::lock_guard lock(g_graph_mutex);
  void *p = nullptr;
  if (cudaError_t e = cudaMalloc(&p, sizeof(unsigned)))
    return e;
  if (cudaError_t e = cudaMemcpy(p, &defaultLaunchValue, sizeof(unsigned),
                                 cudaMemcpyHostToDevice))
    return e;
  CondHandle h;
  h.handle = reinterpret_cast<cudaGraphConditionalHandle>(p);
  h.value = defaultLaunchValue;
  h.assign = (flags & cudaGraphCondAssignDefault) != 0;
  graph_of(graph)->handles.push_back(h);
  *pHandle_out = h.handle;
  return cudaSuccess;
}

// The generic node constructor: every node type through its own
// cudaGraphAdd*Node; external semaphore nodes only without semaphores.
cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                             const cudaGraphNode_t *pDependencies,
                             const cudaGraphEdgeData *, size_t numDependencies,
                             cudaGraphNodeParams *nodeParams) {
  if (!nodeParams)
    return cudaErrorInvalidValue;
  const cudaGraphNodeParams &q = *nodeParams;
  switch (q.type) {
  case cudaGraphNodeTypeKernel: {
    cudaKernelNodeParams k{};
    k.func = q.kernel.func;
    k.gridDim = q.kernel.gridDim;
    k.blockDim = q.kernel.blockDim;
    k.sharedMemBytes = q.kernel.sharedMemBytes;
    k.kernelParams = q.kernel.kernelParams;
    k.extra = q.kernel.extra;
    return cudaGraphAddKernelNode(pGraphNode, graph, pDependencies,
                                  numDependencies, &k);
  }
  case cudaGraphNodeTypeMemcpy:
    return cudaGraphAddMemcpyNode(pGraphNode, graph, pDependencies,
                                  numDependencies, &q.memcpy.copyParams);
  case cudaGraphNodeTypeMemset: {
    cudaMemsetParams m{};
    m.dst = q.memset.dst;
    m.pitch = q.memset.pitch;
    m.value = q.memset.value;
    m.elementSize = q.memset.elementSize;
    m.width = q.memset.width;
    m.height = q.memset.height;
    return cudaGraphAddMemsetNode(pGraphNode, graph, pDependencies,
                                  numDependencies, &m);
  }
  case cudaGraphNodeTypeHost: {
    cudaHostNodeParams h{q.host.fn, q.host.userData};
    return cudaGraphAddHostNode(pGraphNode, graph, pDependencies,
                                numDependencies, &h);
  }
  case cudaGraphNodeTypeGraph:
    return cudaGraphAddChildGraphNode(pGraphNode, graph, pDependencies,
                                      numDependencies, q.graph.graph);
  case cudaGraphNodeTypeEmpty:
    return cudaGraphAddEmptyNode(pGraphNode, graph, pDependencies,
                                 numDependencies);
  case cudaGraphNodeTypeWaitEvent:
    return cudaGraphAddEventWaitNode(pGraphNode, graph, pDependencies,
                                     numDependencies, q.eventWait.event);
  case cudaGraphNodeTypeEventRecord:
    return cudaGraphAddEventRecordNode(pGraphNode, graph, pDependencies,
                                       numDependencies, q.eventRecord.event);
  case cudaGraphNodeTypeMemAlloc: {
    cudaMemAllocNodeParams a{};
    a.poolProps = q.alloc.poolProps;
    a.accessDescs = q.alloc.accessDescs;
    a.accessDescCount = q.alloc.accessDescCount;
    a.bytesize = q.alloc.bytesize;
    cudaError_t e = cudaGraphAddMemAllocNode(pGraphNode, graph, pDependencies,
                                             numDependencies, &a);
    nodeParams->alloc.dptr = a.dptr;
    return e;
  }
  case cudaGraphNodeTypeMemFree:
    return cudaGraphAddMemFreeNode(pGraphNode, graph, pDependencies,
                                   numDependencies, q.free.dptr);
  case cudaGraphNodeTypeConditional:
    break;
  case cudaGraphNodeTypeExtSemaphoreSignal:
  case cudaGraphNodeTypeExtSemaphoreWait: {
    // bcusim has no external semaphores (cudaImportExternalSemaphore is not
    // supported): a node of none is accepted, as on a GPU (measured on
    // H200), and signals or waits for nothing when it runs.
    const unsigned sems = q.type == cudaGraphNodeTypeExtSemaphoreSignal
                              ? q.extSemSignal.numExtSems
                              : q.extSemWait.numExtSems;
    if (sems)
      return cudaErrorNotSupported;
    return add_node(pGraphNode, graph, pDependencies, numDependencies, q.type,
                    nullptr);
  }
  default:
    return cudaErrorNotSupported;
  }
  cudaConditionalNodeParams &p = nodeParams->conditional;
  const bool size_ok = p.type == cudaGraphCondTypeIf
                           ? p.size == 1 || p.size == 2
                       : p.type == cudaGraphCondTypeWhile  ? p.size == 1
                       : p.type == cudaGraphCondTypeSwitch ? p.size > 0
                                                           : false;
  if (!p.handle || !size_ok)
    return cudaErrorInvalidValue;
  std::lock_guard lock(g_graph_mutex);
  cudaError_t e =
      add_node(pGraphNode, graph, pDependencies, numDependencies,
               cudaGraphNodeTypeConditional, [&](NodeObj &n) {
                 n.cond = p;
                 for (unsigned i = 0; i < p.size; ++i) {
                   n.bodies.push_back(std::make_unique<GraphObj>());
                   n.body_handles.push_back(
                       reinterpret_cast<cudaGraph_t>(n.bodies.back().get()));
                 }
                 n.cond.phGraph_out = n.body_handles.data();
                 return cudaSuccess;
               });
  if (e == cudaSuccess)
    p.phGraph_out = node_of(*pGraphNode)->body_handles.data();
  return e;
}

static cudaError_t add_event_node(cudaGraphNode_t *pGraphNode,
                                  cudaGraph_t graph,
                                  const cudaGraphNode_t *pDependencies,
                                  size_t numDependencies, cudaEvent_t event,
                                  cudaGraphNodeType type) {
  if (!event)
    return cudaErrorInvalidValue;
  return add_node(pGraphNode, graph, pDependencies, numDependencies, type,
                  [&](NodeObj &n) {
                    n.event = event;
                    return cudaSuccess;
                  });
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode,
                                        cudaGraph_t graph,
                                        const cudaGraphNode_t *pDependencies,
                                        size_t numDependencies,
                                        cudaEvent_t event) {
  return add_event_node(pGraphNode, graph, pDependencies, numDependencies,
                        event, cudaGraphNodeTypeEventRecord);
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode,
                                      cudaGraph_t graph,
                                      const cudaGraphNode_t *pDependencies,
                                      size_t numDependencies,
                                      cudaEvent_t event) {
  return add_event_node(pGraphNode, graph, pDependencies, numDependencies,
                        event, cudaGraphNodeTypeWaitEvent);
}

static cudaError_t get_event(cudaGraphNode_t node, cudaEvent_t *out,
                             cudaGraphNodeType type) {
  return get_params(node_or_null(node), type, &NodeObj::event, out);
}

static cudaError_t set_event(NodeObj *n, cudaEvent_t event,
                             cudaGraphNodeType type) {
  if (!n || !event || n->type != type)
    return cudaErrorInvalidValue;
  n->event = event;
  return cudaSuccess;
}

cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node,
                                             cudaEvent_t *event_out) {
  return get_event(node, event_out, cudaGraphNodeTypeEventRecord);
}

cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node,
                                             cudaEvent_t event) {
  return set_event(node_of(node), event, cudaGraphNodeTypeEventRecord);
}

cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node,
                                           cudaEvent_t *event_out) {
  return get_event(node, event_out, cudaGraphNodeTypeWaitEvent);
}

cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node,
                                           cudaEvent_t event) {
  return set_event(node_of(node), event, cudaGraphNodeTypeWaitEvent);
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node,
                                 cudaGraphNodeType *pType) {
  if (!node || !pType)
    return cudaErrorInvalidValue;
  *pType = node_of(node)->type;
  return cudaSuccess;
}

// The count-then-fill pattern of the node queries: with `out` null only
// the count is stored; otherwise up to *count entries are written and
// *count becomes the number written.
static cudaError_t list(const std::vector<NodeObj *> &nodes,
                        cudaGraphNode_t *out, size_t *count) {
  if (!count)
    return cudaErrorInvalidValue;
  if (!out) {
    *count = nodes.size();
    return cudaSuccess;
  }
  size_t k = std::min(*count, nodes.size());
  for (size_t i = 0; i < k; ++i)
    out[i] = handle(nodes[i]);
  for (size_t i = k; i < *count; ++i)
    out[i] = nullptr;
  *count = k;
  return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes,
                              size_t *numNodes) {
  if (!graph)
    return cudaErrorInvalidValue;
  std::vector<NodeObj *> v;
  for (auto &n : graph_of(graph)->nodes)
    v.push_back(n.get());
  return list(v, nodes, numNodes);
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph,
                                  cudaGraphNode_t *pRootNodes,
                                  size_t *pNumRootNodes) {
  if (!graph)
    return cudaErrorInvalidValue;
  // Latest first (measured on H100, driver 580.159.04: roots made in the
  // order n0 n1 n2 n5 are listed n5 n2 n1 n0; cudaGraphGetNodes lists
  // creation order).
  std::vector<NodeObj *> v;
  const auto &nodes = graph_of(graph)->nodes;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it)
    if ((*it)->deps.empty())
      v.push_back(it->get());
  return list(v, pRootNodes, pNumRootNodes);
}

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from,
                              cudaGraphNode_t *to, cudaGraphEdgeData *edgeData,
                              size_t *numEdges) {
  if (!graph || !numEdges || bool(from) != bool(to))
    return cudaErrorInvalidValue;
  std::vector<NodeObj *> f, t;
  for (auto &n : graph_of(graph)->nodes)
    for (NodeObj *d : n->deps)
      f.push_back(d), t.push_back(n.get());
  size_t k = *numEdges;
  if (cudaError_t e = list(f, from, &k))
    return e;
  if (from)
    list(t, to, numEdges);
  else
    *numEdges = k;
  if (edgeData)
    for (size_t i = 0; i < *numEdges; ++i)
      edgeData[i] = cudaGraphEdgeData{};
  return cudaSuccess;
}

// A node's edges of one direction (its dependencies or its dependents),
// with default edge data.
static cudaError_t list_edges(cudaGraphNode_t node,
                              std::vector<NodeObj *> NodeObj::*edges,
                              cudaGraphNode_t *out, cudaGraphEdgeData *data,
                              size_t *count) {
  if (!node)
    return cudaErrorInvalidValue;
  cudaError_t e = list(node_of(node)->*edges, out, count);
  if (!e && data && out)
    for (size_t i = 0; i < *count; ++i)
      data[i] = cudaGraphEdgeData{};
  return e;
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node,
                                         cudaGraphNode_t *pDependencies,
                                         cudaGraphEdgeData *edgeData,
                                         size_t *pNumDependencies) {
  return list_edges(node, &NodeObj::deps, pDependencies, edgeData,
                    pNumDependencies);
}

cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node,
                                           cudaGraphNode_t *pDependentNodes,
                                           cudaGraphEdgeData *edgeData,
                                           size_t *pNumDependentNodes) {
  return list_edges(node, &NodeObj::out, pDependentNodes, edgeData,
                    pNumDependentNodes);
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph,
                                     const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to,
                                     const cudaGraphEdgeData *,
                                     size_t numDependencies) {
  if (!graph || (numDependencies && (!from || !to)))
    return cudaErrorInvalidValue;
  GraphObj *g = graph_of(graph);
  for (size_t i = 0; i < numDependencies; ++i) {
    NodeObj *a = node_of(from[i]), *b = node_of(to[i]);
    if (!a || !b || a == b || a->graph != g || b->graph != g ||
        std::find(b->deps.begin(), b->deps.end(), a) != b->deps.end())
      return cudaErrorInvalidValue;
  }
  for (size_t i = 0; i < numDependencies; ++i) {
    NodeObj *a = node_of(from[i]), *b = node_of(to[i]);
    b->deps.push_back(a);
    a->out.push_back(b);
  }
  return cudaSuccess;
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph,
                                        const cudaGraphNode_t *from,
                                        const cudaGraphNode_t *to,
                                        const cudaGraphEdgeData *,
                                        size_t numDependencies) {
  if (!graph || (numDependencies && (!from || !to)))
    return cudaErrorInvalidValue;
  for (size_t i = 0; i < numDependencies; ++i) {
    NodeObj *a = node_of(from[i]), *b = node_of(to[i]);
    if (!a || !b ||
        std::find(b->deps.begin(), b->deps.end(), a) == b->deps.end())
      return cudaErrorInvalidValue;
  }
  for (size_t i = 0; i < numDependencies; ++i) {
    NodeObj *a = node_of(from[i]), *b = node_of(to[i]);
    std::erase(b->deps, a);
    std::erase(a->out, b);
  }
  return cudaSuccess;
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
  if (!node)
    return cudaErrorInvalidValue;
  NodeObj *n = node_of(node);
  GraphObj *g = n->graph;
  for (NodeObj *d : n->deps)
    std::erase(d->out, n);
  for (NodeObj *o : n->out)
    std::erase(o->deps, n);
  g->nodes.erase(g->nodes.begin() + std::ptrdiff_t(n->index));
  for (size_t i = 0; i < g->nodes.size(); ++i)
    g->nodes[i]->index = i;
  return cudaSuccess;
}

// ---- executable graphs --------------------------------------------------
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags) {
  std::lock_guard lock(g_graph_mutex);
  return instantiate(pGraphExec, graph, flags);
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec,
                                          cudaGraph_t graph,
                                          unsigned long long flags) {
  return cudaGraphInstantiate(pGraphExec, graph, flags);
}

cudaError_t
cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                               cudaGraphInstantiateParams *instantiateParams) {
  if (!instantiateParams)
    return cudaErrorInvalidValue;
  cudaError_t e =
      cudaGraphInstantiate(pGraphExec, graph, instantiateParams->flags);
  instantiateParams->errNode_out = nullptr;
  instantiateParams->result_out = e == cudaSuccess
                                      ? cudaGraphInstantiateSuccess
                                      : cudaGraphInstantiateInvalidStructure;
  if (e == cudaSuccess &&
      (instantiateParams->flags & cudaGraphInstantiateFlagUpload))
    e = cudaGraphUpload(*pGraphExec, instantiateParams->uploadStream);
  return e;
}

cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec,
                                  unsigned long long *flags) {
  if (!graphExec || !flags)
    return cudaErrorInvalidValue;
  *flags = exec_of(graphExec)->flags;
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  if (!graphExec)
    return cudaErrorInvalidValue;
  ExecObj *x = exec_of(graphExec);
  for (cudaStream_t s : x->streams)
    cudaStreamDestroy(s);
  for (cudaEvent_t e : x->events)
    cudaEventDestroy(e);
  if (x->start)
    cudaEventDestroy(x->start);
  std::lock_guard lock(g_graph_mutex);
  delete x;
  collect();
  return cudaSuccess;
}

cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t) {
  return graphExec ? cudaSuccess : cudaErrorInvalidValue;
}

// Runs the steps in their order, each on its chain's stream after the
// events of its dependencies on other chains; the launching stream then
// waits for every chain. A stream that captures records the steps in order
// on itself instead.
cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  if (!graphExec)
    return cudaErrorInvalidValue;
  std::lock_guard lock(g_graph_mutex);
  ExecObj *x = exec_of(graphExec);
  // An allocation a launch left allocated must be freed before the graph
  // allocates it again, unless the graph frees it itself
  // (cudaGraphInstantiateFlagAutoFreeOnLaunch).
  for (auto &s : x->plan)
    if (s.node && s.node->type == cudaGraphNodeTypeMemAlloc &&
        s.node->alloc->live) {
      if (!(x->flags & cudaGraphInstantiateFlagAutoFreeOnLaunch))
        return record_error(cudaErrorInvalidValue);
      set_live(*s.node->alloc, false,
               "the graph's next launch "
               "(cudaGraphInstantiateFlagAutoFreeOnLaunch)");
    }
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capturing) == cudaSuccess &&
      capturing != cudaStreamCaptureStatusNone) {
    for (auto &s : x->plan)
      if (s.node)
        if (cudaError_t e = run_node(*s.node, stream))
          return e;
    return cudaSuccess;
  }
  if (x->streams.empty() && x->chains) {
    for (size_t i = 0; i < x->chains; ++i) {
      cudaStream_t s = nullptr;
      if (cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking))
        return e;
      x->streams.push_back(s);
    }
    for (size_t i = 0; i < x->plan.size(); ++i) {
      cudaEvent_t e = nullptr;
      if (cudaError_t r = cudaEventCreateWithFlags(&e, cudaEventDisableTiming))
        return r;
      x->events.push_back(e);
    }
    if (cudaError_t r =
            cudaEventCreateWithFlags(&x->start, cudaEventDisableTiming))
      return r;
  }
  // Conditional handles made with cudaGraphCondAssignDefault start each
  // launch at their default value.
  for (const CondHandle &h : x->graph->handles)
    if (h.assign)
      if (cudaError_t e =
              cudaMemcpyAsync(reinterpret_cast<void *>(h.handle), &h.value,
                              sizeof(h.value), cudaMemcpyHostToDevice, stream))
        return e;
  if (x->plan.empty())
    return cudaSuccess;
  if (cudaError_t e = cudaEventRecord(x->start, stream))
    return e;
  std::vector<bool> started(x->chains, false);
  for (size_t i = 0; i < x->plan.size(); ++i) {
    const auto &s = x->plan[i];
    cudaStream_t st = x->streams[s.chain];
    if (!started[s.chain]) {
      started[s.chain] = true;
      if (cudaError_t e = cudaStreamWaitEvent(st, x->start, 0))
        return e;
    }
    for (size_t d : s.deps)
      if (x->plan[d].chain != s.chain)
        if (cudaError_t e = cudaStreamWaitEvent(st, x->events[d], 0))
          return e;
    if (s.node)
      if (cudaError_t e = run_node(*s.node, st))
        return e;
    if (cudaError_t e = cudaEventRecord(x->events[i], st))
      return e;
  }
  std::vector<bool> joined(x->chains, false);
  for (size_t i = x->plan.size(); i-- > 0;)
    if (!joined[x->plan[i].chain]) {
      joined[x->plan[i].chain] = true;
      if (cudaError_t e = cudaStreamWaitEvent(stream, x->events[i], 0))
        return e;
    }
  return cudaSuccess;
}

cudaError_t
cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec,
                                 cudaGraphNode_t node,
                                 const cudaKernelNodeParams *pNodeParams) {
  return exec_set_params(exec_node(hGraphExec, node), cudaGraphNodeTypeKernel,
                         pNodeParams, set_kernel);
}

cudaError_t
cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec,
                                 cudaGraphNode_t node,
                                 const cudaMemcpy3DParms *pNodeParams) {
  NodeObj *n = exec_node(hGraphExec, node);
  if (n && n->work)
    return record_error(cudaErrorInvalidValue);
  return exec_set_params(n, cudaGraphNodeTypeMemcpy, pNodeParams, set_copy);
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const void *symbol,
    const void *src, size_t count, size_t offset, cudaMemcpyKind kind) {
  NodeObj *n = exec_node(hGraphExec, node);
  if (!n || n->type != cudaGraphNodeTypeMemcpy)
    return record_error(cudaErrorInvalidValue);
  const cudaError_t e = set_symbol_copy(*n, symbol, const_cast<void *>(src),
                                        count, offset, kind, true);
  return e == cudaSuccess ? e : record_error(e);
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void *dst,
    const void *symbol, size_t count, size_t offset, cudaMemcpyKind kind) {
  NodeObj *n = exec_node(hGraphExec, node);
  if (!n || n->type != cudaGraphNodeTypeMemcpy)
    return record_error(cudaErrorInvalidValue);
  const cudaError_t e =
      set_symbol_copy(*n, symbol, dst, count, offset, kind, false);
  return e == cudaSuccess ? e : record_error(e);
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec,
                                               cudaGraphNode_t node, void *dst,
                                               const void *src, size_t count,
                                               cudaMemcpyKind kind) {
  cudaMemcpy3DParms p = linear_copy(dst, src, count, kind);
  return cudaGraphExecMemcpyNodeSetParams(hGraphExec, node, &p);
}

cudaError_t
cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec,
                                 cudaGraphNode_t node,
                                 const cudaMemsetParams *pNodeParams) {
  return exec_set_params(exec_node(hGraphExec, node), cudaGraphNodeTypeMemset,
                         pNodeParams, set_memset);
}

cudaError_t
cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                               const cudaHostNodeParams *pNodeParams) {
  return exec_set_params(exec_node(hGraphExec, node), cudaGraphNodeTypeHost,
                         pNodeParams, set_host);
}

cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec,
                                                 cudaGraphNode_t hNode,
                                                 cudaEvent_t event) {
  return set_event(exec_node(hGraphExec, hNode), event,
                   cudaGraphNodeTypeEventRecord);
}

cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec,
                                               cudaGraphNode_t hNode,
                                               cudaEvent_t event) {
  return set_event(exec_node(hGraphExec, hNode), event,
                   cudaGraphNodeTypeWaitEvent);
}

cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec,
                                                 cudaGraphNode_t node,
                                                 cudaGraph_t childGraph) {
  NodeObj *n = exec_node(hGraphExec, node);
  if (!n || !childGraph || n->type != cudaGraphNodeTypeGraph)
    return record_error(cudaErrorInvalidValue);
  cudaGraphExecUpdateResultInfo info{};
  if (!same_shape(*n->child, *graph_of(childGraph), info))
    return cudaErrorInvalidValue; // the topology may not change
  update_params(*n->child, *graph_of(childGraph));
  return cudaSuccess;
}

cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec,
                                    cudaGraphNode_t hNode,
                                    unsigned int isEnabled) {
  NodeObj *n = exec_node(hGraphExec, hNode);
  if (!n || (n->type != cudaGraphNodeTypeKernel &&
             n->type != cudaGraphNodeTypeMemcpy &&
             n->type != cudaGraphNodeTypeMemset))
    return record_error(cudaErrorInvalidValue);
  n->enabled = isEnabled != 0;
  return cudaSuccess;
}

cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec,
                                    cudaGraphNode_t hNode,
                                    unsigned int *isEnabled) {
  NodeObj *n = exec_node(hGraphExec, hNode);
  if (!n || !isEnabled)
    return record_error(cudaErrorInvalidValue);
  *isEnabled = n->enabled ? 1 : 0;
  return cudaSuccess;
}

// Whole-graph update: the same nodes and edges, new parameters.
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo *resultInfo) {
  if (!hGraphExec || !hGraph)
    return cudaErrorInvalidValue;
  std::lock_guard lock(g_graph_mutex);
  ExecObj *x = exec_of(hGraphExec);
  cudaGraphExecUpdateResultInfo info{};
  info.result = cudaGraphExecUpdateSuccess;
  bool ok = same_shape(*x->graph, *graph_of(hGraph), info);
  if (ok) {
    update_params(*x->graph, *graph_of(hGraph));
    // The plan points into x->graph, whose nodes stay; child graphs were
    // replaced, so the plan is made again.
    std::vector<ExecObj::Step> plan;
    std::vector<size_t> exits;
    build_plan(*x->graph, plan, {}, exits);
    x->plan = std::move(plan);
    size_t chains = x->chains;
    assign_chains(*x);
    if (x->chains != chains || x->events.size() != x->plan.size()) {
      for (cudaStream_t s : x->streams)
        cudaStreamDestroy(s);
      for (cudaEvent_t e : x->events)
        cudaEventDestroy(e);
      x->streams.clear();
      x->events.clear();
    }
  }
  if (resultInfo)
    *resultInfo = info;
  return ok ? cudaSuccess : cudaErrorGraphExecUpdateFailure;
}

} // extern "C"

// ---- cudaGraphDebugDotPrint (docs/exec.md "Decisions") --------------------
namespace {

const char *type_name(cudaGraphNodeType t) {
  switch (t) {
  case cudaGraphNodeTypeKernel:
    return "KERNEL";
  case cudaGraphNodeTypeMemcpy:
    return "MEMCPY";
  case cudaGraphNodeTypeMemset:
    return "MEMSET";
  case cudaGraphNodeTypeHost:
    return "HOST";
  case cudaGraphNodeTypeGraph:
    return "CHILD_GRAPH";
  case cudaGraphNodeTypeEmpty:
    return "EMPTY";
  case cudaGraphNodeTypeWaitEvent:
    return "EVENT_WAIT";
  case cudaGraphNodeTypeEventRecord:
    return "EVENT_RECORD";
  case cudaGraphNodeTypeMemAlloc:
    return "MEM_ALLOC";
  case cudaGraphNodeTypeMemFree:
    return "MEM_FREE";
  case cudaGraphNodeTypeConditional:
    return "CONDITIONAL";
  default:
    return "OTHER";
  }
}

const char *kind_name(cudaMemcpyKind k) {
  switch (k) {
  case cudaMemcpyHostToHost:
    return "HtoH";
  case cudaMemcpyHostToDevice:
    return "HtoD";
  case cudaMemcpyDeviceToHost:
    return "DtoH";
  case cudaMemcpyDeviceToDevice:
    return "DtoD";
  default:
    return "default";
  }
}

std::string dot_escape(const std::string &s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\')
      r += '\\';
    r += c;
  }
  return r;
}

// The node's label: its position and type, then what it does.
std::string dot_label(const NodeObj &n, unsigned flags) {
  std::string l = fmt::format("{}: {}", n.index, type_name(n.type));
  auto line = [&l](const std::string &s) { l += "\\n" + dot_escape(s); };
  switch (n.type) {
  case cudaGraphNodeTypeKernel: {
    const char *name = nullptr;
    if (cudaFuncGetName(&name, n.kernel.func) != cudaSuccess || !name) {
      cudaGetLastError();
      name = "?";
    }
    line(name);
    const dim3 g = n.kernel.gridDim, b = n.kernel.blockDim;
    line(fmt::format("grid ({},{},{}) block ({},{},{}) shared {}", g.x, g.y,
                     g.z, b.x, b.y, b.z, n.kernel.sharedMemBytes));
    if (flags & (cudaGraphDebugDotFlagsVerbose |
                 cudaGraphDebugDotFlagsKernelNodeAttributes))
      for (const auto &[id, v] : n.kattrs) {
        if (id == cudaLaunchAttributeClusterDimension)
          line(fmt::format("cluster ({},{},{})", v.clusterDim.x, v.clusterDim.y,
                           v.clusterDim.z));
        else if (id == cudaLaunchAttributeCooperative)
          line(fmt::format("cooperative {}", v.cooperative));
        else if (id == cudaLaunchAttributePriority)
          line(fmt::format("priority {}", v.priority));
        else
          line(fmt::format("attribute {} set", id));
      }
    break;
  }
  case cudaGraphNodeTypeMemcpy:
    if (n.work && !n.copy.extent.width) {
      line("captured copy");
      break;
    }
    line(fmt::format("{} {}x{}x{} bytes", kind_name(n.copy.kind),
                     n.copy.extent.width, n.copy.extent.height,
                     n.copy.extent.depth));
    line(
        fmt::format("{}{} -> {}{}", n.copy.srcArray ? "array " : "",
                    n.copy.srcArray ? static_cast<const void *>(n.copy.srcArray)
                                    : n.copy.srcPtr.ptr,
                    n.copy.dstArray ? "array " : "",
                    n.copy.dstArray ? static_cast<const void *>(n.copy.dstArray)
                                    : n.copy.dstPtr.ptr));
    break;
  case cudaGraphNodeTypeMemset:
    line(fmt::format("{} value {:#x}, {} x {} elements of {} bytes", n.set.dst,
                     n.set.value, n.set.width,
                     std::max<size_t>(n.set.height, 1), n.set.elementSize));
    break;
  case cudaGraphNodeTypeHost:
    line(fmt::format("fn {} data {}", reinterpret_cast<void *>(n.host.fn),
                     n.host.userData));
    break;
  case cudaGraphNodeTypeWaitEvent:
  case cudaGraphNodeTypeEventRecord:
    line(fmt::format("event {}", static_cast<void *>(n.event)));
    break;
  case cudaGraphNodeTypeMemAlloc:
  case cudaGraphNodeTypeMemFree:
    if (n.alloc)
      line(fmt::format("{} bytes at {}", n.alloc->bytes, n.alloc->ptr));
    break;
  case cudaGraphNodeTypeConditional: {
    static const char *kinds[] = {"IF", "WHILE", "SWITCH"};
    line(fmt::format("{} handle {:#x}, {} bodies",
                     unsigned(n.cond.type) < 3 ? kinds[n.cond.type] : "?",
                     n.cond.handle, n.bodies.size()));
    break;
  }
  default:
    if (n.work)
      line("captured operation");
    break;
  }
  if (!n.enabled)
    line("disabled");
  if (flags & (cudaGraphDebugDotFlagsVerbose | cudaGraphDebugDotFlagsHandles))
    line(fmt::format("node {}", static_cast<const void *>(&n)));
  return l;
}

// Writes `g`'s nodes (named PREFIX_I) and edges; child graphs and
// conditional bodies are clusters, joined to their node by a dashed edge.
void dot_graph(std::string &out, const GraphObj &g, const std::string &prefix,
               unsigned flags, int depth) {
  const std::string indent(2 * size_t(depth), ' ');
  auto id = [&](const NodeObj *n) {
    return fmt::format("{}_{}", prefix, n->index);
  };
  for (const auto &n : g.nodes) {
    out += fmt::format("{}{} [label=\"{}\"];\n", indent, id(n.get()),
                       dot_label(*n, flags));
    std::vector<std::pair<const GraphObj *, std::string>> inner;
    if (n->child)
      inner.emplace_back(n->child.get(), "child graph");
    for (size_t i = 0; i < n->bodies.size(); ++i)
      inner.emplace_back(n->bodies[i].get(), fmt::format("body {}", i));
    for (size_t i = 0; i < inner.size(); ++i) {
      const std::string sub = fmt::format("{}_{}_{}", prefix, n->index, i);
      out += fmt::format("{}subgraph cluster_{} {{\n{}  label=\"{}: {}\";\n",
                         indent, sub, indent, n->index, inner[i].second);
      dot_graph(out, *inner[i].first, sub, flags, depth + 1);
      out += indent + "}\n";
      for (const auto &c : inner[i].first->nodes)
        if (c->deps.empty())
          out += fmt::format("{}{} -> {}_{} [style=dashed];\n", indent,
                             id(n.get()), sub, c->index);
    }
  }
  for (const auto &n : g.nodes)
    for (const NodeObj *d : n->deps)
      out += fmt::format("{}{} -> {};\n", indent, id(d), id(n.get()));
}

} // namespace

extern "C" {

cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path,
                                   unsigned int flags) {
  if (!graph || !path)
    return record_error(cudaErrorInvalidValue);
  std::string out;
  {
    std::lock_guard lock(g_graph_mutex);
    out = "digraph bcusim_graph {\n  node [shape=box];\n";
    dot_graph(out, *graph_of(graph), "n", flags, 1);
    out += "}\n";
  }
  std::FILE *f = std::fopen(path, "w");
  if (!f)
    return record_error(cudaErrorOperatingSystem);
  const bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
  if (std::fclose(f) != 0 || !ok)
    return record_error(cudaErrorOperatingSystem);
  return cudaSuccess;
}

} // extern "C"
