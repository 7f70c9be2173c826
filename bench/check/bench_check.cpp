// The checker's cost (docs/performance.md "Checker"): each workload runs
// plain (no observer), with an observer that ignores every event (the cost
// of the observation point itself), and under `--check all`; counters give
// the simulated thread-instructions per second and, for checked runs, the
// peak shadow memory as a multiple of the memory it covers (global buffers
// plus the shared memory of the CTAs resident at once). Mode 3 runs plain
// under `--schedule random:1` (docs/performance.md "Schedules": at most 2x
// round-robin).
//
//   build/bench/bench_check --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <functional>
#include <numeric>
#include <vector>

#include "bcusim/check/checker.h"
#include "bcusim/engine/engine.h"
#include "bcusim/engine/observer.h"

using namespace bcusim;
using namespace bcusim::engine;

namespace {

const Module &load(const char *path) {
  DiagnosticSink sink;
  auto mod = Module::load_file(path, sink);
  if (!mod) {
    std::fputs(sink.render_all().c_str(), stderr);
    std::abort();
  }
  return *mod.release(); // lives for the whole benchmark process
}
const Module &bench_module() {
  static const Module &m = load(BCUSIM_BENCH_PTX);
  return m;
}
const Module &check_module() {
  static const Module &m = load(BCUSIM_CHECK_PTX);
  return m;
}
const Module &gridsync_module() {
  static const Module &m = load(BCUSIM_GRIDSYNC_PTX);
  return m;
}
const Module &graph_module() {
  static const Module &m = load(BCUSIM_GRAPH_PTX);
  return m;
}
const Module &seqcst_module() {
  static const Module &m = load(BCUSIM_SEQCST_PTX);
  return m;
}

struct Workload {
  const Module *module;
  std::string kernel;
  LaunchConfig cfg;
  std::vector<KernelArg> args;
  uint64_t covered = 0; // bytes of memory the accesses cover
};

// mode 0: plain; 1: an observer that ignores everything; 2: --check all;
// 3: plain under a random schedule.
struct Ignore : Observer {};

// `reset`, when given, runs before each launch, untimed.
void run(benchmark::State &state, Device &dev, Workload &w,
         const std::function<void()> &reset = {}) {
  const int mode = int(state.range(0));
  uint64_t steps = 0, shadow = 0, warnings = 0;
  for (auto _ : state) {
    if (reset) {
      state.PauseTiming();
      reset();
      state.ResumeTiming();
    }
    Ignore ignore;
    std::unique_ptr<check::Checker> checker;
    LaunchConfig cfg = w.cfg;
    if (mode == 1)
      cfg.observer = &ignore;
    if (mode == 3)
      cfg.schedule = *Schedule::parse("random:1");
    if (mode == 2) {
      std::string err;
      checker =
          std::make_unique<check::Checker>(*check::Checks::parse("all", err));
      cfg.observer = checker.get();
    }
    auto r = dev.launch(*w.module, w.kernel, cfg, w.args);
    if (!r.ok())
      state.SkipWithError(r.diagnostics_text().c_str());
    // Warnings (a benign race) are expected of some workloads; an error
    // means the workload is not what it is meant to measure.
    if (checker && checker->error_count() > 0)
      for (const auto &f : checker->findings())
        if (f.severity == Severity::Error) {
          state.SkipWithError(f.text.c_str());
          break;
        }
    steps = r.thread_steps;
    if (checker) {
      shadow = checker->shadow_bytes();
      warnings = checker->warning_count();
    }
  }
  state.counters["thread_instr_per_s"] = benchmark::Counter(
      double(steps), benchmark::Counter::kIsIterationInvariantRate);
  if (mode == 2) {
    state.counters["shadow_x"] = double(shadow) / double(w.covered);
    if (warnings)
      state.counters["warnings"] = double(warnings);
  }
}

void BM_Compute(benchmark::State &state) {
  Device dev;
  Workload w{&bench_module(), "_Z7computePfi", {}, {}, 0};
  w.cfg.grid = {16};
  w.cfg.block = {256};
  w.args = {KernelArg::ptr(dev.alloc(16 * 256 * 4)), KernelArg::s32(500)};
  w.covered = 16 * 256 * 4;
  run(state, dev, w);
}

void BM_Stream(benchmark::State &state) {
  Device dev;
  constexpr uint32_t n = 1 << 20;
  Workload w{&bench_module(), "_Z6streamifPKfPf", {}, {}, 0};
  w.cfg.grid = {256};
  w.cfg.block = {256};
  w.args = {KernelArg::s32(n), KernelArg::f32(2.0f),
            KernelArg::ptr(dev.alloc(n * 4)), KernelArg::ptr(dev.alloc(n * 4))};
  w.covered = 2ull * n * 4;
  run(state, dev, w);
}

void BM_TiledMatmul(benchmark::State &state) {
  Device dev;
  constexpr uint32_t n = 128;
  std::vector<float> host(n * n);
  std::iota(host.begin(), host.end(), 0.0f);
  DevicePtr a = dev.alloc(n * n * 4), b = dev.alloc(n * n * 4),
            c = dev.alloc(n * n * 4);
  dev.write(a, host.data(), n * n * 4);
  dev.write(b, host.data(), n * n * 4);
  Workload w{&check_module(), "matmul", {}, {}, 0};
  w.cfg.grid = {n / 16, n / 16};
  w.cfg.block = {16, 16};
  w.args = {KernelArg::ptr(a), KernelArg::ptr(b), KernelArg::ptr(c),
            KernelArg::s32(int(n))};
  // One CTA is resident at a time (one host thread): 2 KiB of tiles.
  w.covered = 3ull * n * n * 4 + 2 * 16 * 16 * 4;
  run(state, dev, w);
  state.counters["flop_per_s"] = benchmark::Counter(
      2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate);
}

// The same 128x128 product on tensor cores (f16 inputs, f32 result):
// mma_matmul, ldmatrix + mma.sync.m16n8k16; the counter flop_per_s is the
// simulated 2 n^3 per second, for both matmuls.
void BM_MmaMatmul(benchmark::State &state) {
  Device dev;
  constexpr uint32_t n = 128;
  std::vector<uint16_t> host(n * n);
  for (uint32_t i = 0; i < n * n; ++i)
    host[i] = uint16_t(0x3c00 + (i % 64)); // f16 values in [1, 1.0625)
  DevicePtr a = dev.alloc(n * n * 2), b = dev.alloc(n * n * 2),
            c = dev.alloc(n * n * 4);
  dev.write(a, host.data(), n * n * 2);
  dev.write(b, host.data(), n * n * 2);
  Workload w{&check_module(), "mma_matmul", {}, {}, 0};
  w.cfg.grid = {n / 16, n / 16};
  w.cfg.block = {64};
  w.args = {KernelArg::ptr(a), KernelArg::ptr(b), KernelArg::ptr(c),
            KernelArg::s32(int(n))};
  w.covered = 2ull * n * n * 2 + n * n * 4 + 2 * 16 * 16 * 2;
  run(state, dev, w);
  state.counters["flop_per_s"] = benchmark::Counter(
      2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_BlockReduce(benchmark::State &state) {
  Device dev;
  constexpr uint32_t blocks = 512;
  std::vector<int> host(blocks * 256, 1);
  DevicePtr in = dev.alloc(blocks * 256 * 4), out = dev.alloc(blocks * 4);
  dev.write(in, host.data(), host.size() * 4);
  Workload w{&check_module(), "reduce", {}, {}, 0};
  w.cfg.grid = {blocks};
  w.cfg.block = {256};
  w.args = {KernelArg::ptr(in), KernelArg::ptr(out)};
  w.covered = blocks * 256 * 4 + blocks * 4 + 256 * 4;
  run(state, dev, w);
}

// A persistent kernel whose every access is a seq_cst
// cuda::atomic_ref<int, thread_scope_system> (tests/kernels/check/seqcst.cu):
// each access is a fence.sc.sys plus a .sys strong access, the pattern that
// must not make the checker super-linear (docs/performance.md "Checker"):
// 16 CTAs x 256 threads over `n` work items.
void seqcst(benchmark::State &state, uint32_t n) {
  Device dev;
  std::vector<int> host(n);
  std::iota(host.begin(), host.end(), 0);
  DevicePtr work = dev.alloc(n * 4), next = dev.alloc(4),
            out = dev.alloc((n + 1) * 4);
  dev.write(work, host.data(), n * 4);
  Workload w{&seqcst_module(), "seqcst_persistent", {}, {}, 0};
  w.cfg.grid = {16};
  w.cfg.block = {256};
  w.args = {KernelArg::ptr(work), KernelArg::ptr(next), KernelArg::ptr(out),
            KernelArg::s32(int(n))};
  w.covered = 2ull * n * 4 + 8;
  // Each iteration starts from an empty work counter and total.
  run(state, dev, w, [&dev, next, out, n] {
    const int zero = 0;
    dev.write(next, &zero, 4);
    dev.write(out + n * 4, &zero, 4);
  });
  // Work items per second: flat across `n` when the cost per access does
  // not grow with the accesses, fences and atomics executed before it.
  state.SetItemsProcessed(int64_t(state.iterations()) * n);
}

void BM_SeqCstPersistent(benchmark::State &state) { seqcst(state, 1u << 15); }

// The same kernel growing from 4 Ki to 256 Ki work items (an item is one
// thread's four seq_cst accesses), plain (mode 0) and checked (mode 2):
// items_per_second stays flat when the checker's cost per access does not
// grow with what ran before it (docs/performance.md "Checker").
void BM_SeqCstGrowth(benchmark::State &state) {
  seqcst(state, uint32_t(state.range(1)));
}

// Grid-wide synchronization: `gridsync_scale` (gridsync_kernels.cu), 4 rounds
// of three grid.sync() over 33 to 264 CTAs of 256 threads, plain (mode 0)
// and checked (mode 2): the checked time per CTA stays flat when the cost
// of a grid sync is linear in the CTAs (docs/performance.md "Checker").
void BM_GridSync(benchmark::State &state) {
  Device dev;
  const uint32_t blocks = uint32_t(state.range(1)), n = blocks * 256;
  DevicePtr a = dev.alloc(n * 4);
  std::vector<int> zero(n, 0);
  dev.write(a, zero.data(), n * 4);
  Workload w{&gridsync_module(), "gridsync_scale", {}, {}, 0};
  w.cfg.grid = {blocks};
  w.cfg.block = {256};
  w.args = {KernelArg::ptr(a), KernelArg::s32(4)};
  w.covered = uint64_t(n) * 4;
  run(state, dev, w);
  state.SetItemsProcessed(int64_t(state.iterations()) * blocks);
}

// A synthetic power-law-ish graph of `n` vertices, symmetric, in CSR form
// in device memory: vertices 0..3 are hubs adjacent to every other vertex;
// each other vertex also links to 4 neighbours drawn by a fixed-seed LCG.
struct Graph {
  uint32_t n = 0, edges = 0;
  DevicePtr row = 0, col = 0;
};
constexpr uint32_t kHubs = 4;

Graph make_graph(Device &dev, uint32_t n) {
  std::vector<std::vector<int>> adj(n);
  uint64_t lcg = 0x2545f4914f6cdd1dull;
  auto next = [&lcg, n] {
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t((lcg >> 33) % n);
  };
  for (uint32_t v = kHubs; v < n; ++v) {
    for (uint32_t h = 0; h < kHubs; ++h) {
      adj[v].push_back(int(h));
      adj[h].push_back(int(v));
    }
    for (int k = 0; k < 4; ++k) {
      const uint32_t r = next();
      if (r == v)
        continue;
      adj[v].push_back(int(r));
      adj[r].push_back(int(v));
    }
  }
  std::vector<int> row(n + 1, 0), col;
  for (uint32_t v = 0; v < n; ++v) {
    row[v + 1] = row[v] + int(adj[v].size());
    col.insert(col.end(), adj[v].begin(), adj[v].end());
  }
  Graph g;
  g.n = n;
  g.edges = uint32_t(col.size());
  g.row = dev.alloc((n + 1) * 4);
  g.col = dev.alloc(col.size() * 4);
  dev.write(g.row, row.data(), row.size() * 4);
  dev.write(g.col, col.data(), col.size() * 4);
  return g;
}

// One BFS step (graph_kernels.cu `bfs_step`) from a frontier of every
// even non-hub vertex (distance 1); the hubs and the odd vertices are
// undiscovered. Each hub's distance word is read, and written with the same
// value, by every frontier vertex, from every CTA; every discovery appends
// to one queue through one atomicAdd counter. `vertices` 4 Ki to 64 Ki,
// plain (mode 0) and checked (mode 2), with the flag `changed` (flag 1), a
// `volatile` flag instead (flag 2: `vchanged`) or without (flag 0, null
// pointers): items_per_second (edges) stays flat
// when the checker's cost per access does not grow with the accessors of a
// word.
void BM_GraphBfs(benchmark::State &state) {
  Device dev;
  const uint32_t n = uint32_t(state.range(1));
  const int64_t flag = state.range(2);
  const Graph g = make_graph(dev, n);
  DevicePtr dist = dev.alloc(n * 4), next = dev.alloc(g.edges * 4),
            size = dev.alloc(4), changed = dev.alloc(4);
  std::vector<int> start(n);
  for (uint32_t v = 0; v < n; ++v)
    start[v] = v >= kHubs && v % 2 == 0 ? 1 : 0x7fffffff;
  Workload w{&graph_module(), "bfs_step", {}, {}, 0};
  w.cfg.grid = {(n + 255) / 256};
  w.cfg.block = {256};
  w.args = {KernelArg::ptr(g.row),
            KernelArg::ptr(g.col),
            KernelArg::ptr(dist),
            KernelArg::ptr(next),
            KernelArg::ptr(size),
            KernelArg::ptr(flag == 1 ? changed : 0),
            KernelArg::s32(int(n)),
            KernelArg::s32(1),
            KernelArg::ptr(flag == 2 ? changed : 0)};
  w.covered = (n + 1) * 4ull + g.edges * 8ull + n * 4ull + 8;
  run(state, dev, w, [&] {
    const int zero = 0;
    dev.write(dist, start.data(), n * 4);
    dev.write(size, &zero, 4);
    dev.write(changed, &zero, 4);
  });
  state.SetItemsProcessed(int64_t(state.iterations()) * g.edges);
}

// One label-propagation step (graph_kernels.cu `label_step`) from labels
// n-1-v: the hubs have the highest labels, so every vertex reads each hub's
// label word and lowers it with atomicMin, from every CTA. Arguments as
// BM_GraphBfs.
void BM_GraphLabel(benchmark::State &state) {
  Device dev;
  const uint32_t n = uint32_t(state.range(1));
  const bool flag = state.range(2) != 0;
  const Graph g = make_graph(dev, n);
  DevicePtr label = dev.alloc(n * 4), changed = dev.alloc(4);
  std::vector<int> start(n);
  for (uint32_t v = 0; v < n; ++v)
    start[v] = int(n - 1 - v);
  Workload w{&graph_module(), "label_step", {}, {}, 0};
  w.cfg.grid = {(n + 255) / 256};
  w.cfg.block = {256};
  w.args = {KernelArg::ptr(g.row), KernelArg::ptr(g.col), KernelArg::ptr(label),
            KernelArg::ptr(flag ? changed : 0), KernelArg::s32(int(n))};
  w.covered = (n + 1) * 4ull + g.edges * 4ull + n * 4ull + 4;
  run(state, dev, w, [&] {
    const int zero = 0;
    dev.write(label, start.data(), n * 4);
    dev.write(changed, &zero, 4);
  });
  state.SetItemsProcessed(int64_t(state.iterations()) * g.edges);
}

#define MODES                                                                  \
  ->ArgName("mode")->Arg(0)->Arg(1)->Arg(2)->Arg(3)->Unit(                     \
      benchmark::kMillisecond)
BENCHMARK(BM_Compute) MODES;
BENCHMARK(BM_Stream) MODES;
BENCHMARK(BM_TiledMatmul) MODES;
BENCHMARK(BM_MmaMatmul) MODES;
BENCHMARK(BM_BlockReduce) MODES;
BENCHMARK(BM_SeqCstPersistent) MODES;
BENCHMARK(BM_SeqCstGrowth)
    ->ArgNames({"mode", "items"})
    ->ArgsProduct({{0, 2}, {1 << 12, 1 << 14, 1 << 16, 1 << 18}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GraphBfs)
    ->ArgNames({"mode", "vertices", "flag"})
    ->ArgsProduct({{0, 2},
                   {1 << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 16},
                   {1, 0, 2}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GraphLabel)
    ->ArgNames({"mode", "vertices", "flag"})
    ->ArgsProduct({{0, 2},
                   {1 << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 16},
                   {1, 0}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GridSync)
    ->ArgNames({"mode", "ctas"})
    ->ArgsProduct({{0, 2}, {33, 66, 132, 264}})
    ->Unit(benchmark::kMillisecond);

} // namespace
