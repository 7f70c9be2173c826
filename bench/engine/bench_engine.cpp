// Engine throughput (docs/performance.md): simulated thread-instructions per
// second on a compute-bound and a memory-bound kernel (bench_kernels.cu),
// on 1 and 2 host threads, against a plain C++ loop doing the same work,
// and the simulator's peak memory for a 1024-CTA launch.
//
//   build/bench/bench_engine --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <cmath>
#include <sys/resource.h>
#include <vector>

#include "bcusim/engine/engine.h"

using namespace bcusim;
using namespace bcusim::engine;

namespace {

const Module &module() {
  static std::unique_ptr<Module> m = [] {
    DiagnosticSink sink;
    auto mod = Module::load_file(BCUSIM_BENCH_PTX, sink);
    if (!mod) {
      std::fputs(sink.render_all().c_str(), stderr);
      std::abort();
    }
    return mod;
  }();
  return *m;
}

constexpr uint32_t kBlocks = 64, kThreads = 256, kIters = 2000;
constexpr uint32_t kStreamN = 1 << 22;

void report(benchmark::State &state, uint64_t thread_steps) {
  state.counters["thread_instr_per_s"] = benchmark::Counter(
      double(thread_steps), benchmark::Counter::kIsIterationInvariantRate);
}

// Compute-bound: an FMA chain per thread, 16384 threads.
void BM_EngineCompute(benchmark::State &state) {
  Device dev;
  DevicePtr out = dev.alloc(kBlocks * kThreads * 4);
  LaunchConfig cfg;
  cfg.grid = {kBlocks};
  cfg.block = {kThreads};
  cfg.host_threads = unsigned(state.range(0));
  uint64_t steps = 0;
  for (auto _ : state) {
    auto r = dev.launch(module(), "_Z7computePfi", cfg,
                        {KernelArg::ptr(out), KernelArg::s32(kIters)});
    if (!r.ok())
      state.SkipWithError(r.diagnostics_text().c_str());
    steps = r.thread_steps;
  }
  report(state, steps);
}
BENCHMARK(BM_EngineCompute)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The same computation as a plain C++ loop (what one host thread does
// without simulation).
void BM_PlainCompute(benchmark::State &state) {
  std::vector<float> out(kBlocks * kThreads);
  for (auto _ : state) {
    for (uint32_t b = 0; b < kBlocks; ++b)
      for (uint32_t t = 0; t < kThreads; ++t) {
        float a = float(t) * 1e-3f, bb = 0.999f, c = 0.25f;
        for (uint32_t k = 0; k < kIters; ++k) {
          a = std::fma(a, bb, c);
          c = c * bb - a * 1e-3f;
        }
        out[b * kThreads + t] = a + c;
      }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_PlainCompute)->UseRealTime()->Unit(benchmark::kMillisecond);

// The same loop with the hardware FMA instruction (what the engine uses when
// the host has it): the strictest baseline.
__attribute__((target("fma"))) void plain_compute_fma(std::vector<float> &out) {
  for (uint32_t b = 0; b < kBlocks; ++b)
    for (uint32_t t = 0; t < kThreads; ++t) {
      float a = float(t) * 1e-3f, bb = 0.999f, c = 0.25f;
      for (uint32_t k = 0; k < kIters; ++k) {
        a = __builtin_fmaf(a, bb, c);
        c = c * bb - a * 1e-3f;
      }
      out[b * kThreads + t] = a + c;
    }
}
void BM_PlainComputeHwFma(benchmark::State &state) {
  if (!__builtin_cpu_supports("fma")) {
    state.SkipWithError("no FMA on this host");
    return;
  }
  std::vector<float> out(kBlocks * kThreads);
  for (auto _ : state) {
    plain_compute_fma(out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_PlainComputeHwFma)->UseRealTime()->Unit(benchmark::kMillisecond);

// Memory-bound: y = a*x + y over 4M floats, grid-stride.
void BM_EngineStream(benchmark::State &state) {
  Device dev;
  std::vector<float> x(kStreamN, 1.0f);
  DevicePtr px = dev.alloc(kStreamN * 4), py = dev.alloc(kStreamN * 4);
  dev.write(px, x.data(), kStreamN * 4);
  LaunchConfig cfg;
  cfg.grid = {256};
  cfg.block = {256};
  cfg.host_threads = unsigned(state.range(0));
  uint64_t steps = 0;
  for (auto _ : state) {
    auto r = dev.launch(module(), "_Z6streamifPKfPf", cfg,
                        {KernelArg::s32(kStreamN), KernelArg::f32(2.0f),
                         KernelArg::ptr(px), KernelArg::ptr(py)});
    if (!r.ok())
      state.SkipWithError(r.diagnostics_text().c_str());
    steps = r.thread_steps;
  }
  report(state, steps);
}
BENCHMARK(BM_EngineStream)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_PlainStream(benchmark::State &state) {
  std::vector<float> x(kStreamN, 1.0f), y(kStreamN, 0.0f);
  for (auto _ : state) {
    for (uint32_t i = 0; i < kStreamN; ++i)
      y[i] = 2.0f * x[i] + y[i];
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_PlainStream)->UseRealTime()->Unit(benchmark::kMillisecond);

// Peak resident memory growth of a 1024-CTA launch (256 threads each),
// minus the kernel's own buffer.
void BM_Launch1024CtasMemory(benchmark::State &state) {
  auto rss_kib = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_maxrss);
  };
  Device dev;
  const uint32_t blocks = 1024;
  DevicePtr out = dev.alloc(blocks * kThreads * 4);
  LaunchConfig cfg;
  cfg.grid = {blocks};
  cfg.block = {kThreads};
  cfg.host_threads = 2;
  double before = rss_kib();
  for (auto _ : state) {
    auto r = dev.launch(module(), "_Z7computePfi", cfg,
                        {KernelArg::ptr(out), KernelArg::s32(16)});
    if (!r.ok())
      state.SkipWithError(r.diagnostics_text().c_str());
  }
  state.counters["peak_rss_growth_MiB"] = (rss_kib() - before) / 1024.0;
  state.counters["buffer_MiB"] = blocks * kThreads * 4 / 1048576.0;
}
BENCHMARK(BM_Launch1024CtasMemory)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

} // namespace
