// Engine throughput (docs/performance.md): simulated thread-instructions per
// second on a compute-bound and a memory-bound kernel (bench_kernels.cu),
// on 1 and 2 host threads, a tiled shared-memory matmul and a copy, under
// the default and a random schedule, against native C++ doing the same work
// (native_o2.cpp, native_o3.cpp), and the simulator's peak memory for a
// 1024-CTA launch. After the runs it prints the side-by-side table of
// docs/performance.md (engine time / native time per comparison).
//
//   build/bench/bench_engine --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <sys/resource.h>
#include <vector>

#include "bcusim/engine/engine.h"
#include "native.h"

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

constexpr int kMatN = 512;

// Tiled matmul 512 x 512 (16 x 16 tiles, __syncthreads), one host thread;
// state.range(0) = 1 runs it under the random schedule "random:1".
void BM_EngineMatmul512(benchmark::State &state) {
  Device dev;
  const size_t bytes = size_t(kMatN) * kMatN * 4;
  std::vector<float> a(size_t(kMatN) * kMatN), b(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = float(i % 13) * 0.25f;
    b[i] = float(i % 7) * 0.5f;
  }
  DevicePtr pa = dev.alloc(bytes), pb = dev.alloc(bytes), pc = dev.alloc(bytes);
  dev.write(pa, a.data(), bytes);
  dev.write(pb, b.data(), bytes);
  LaunchConfig cfg;
  cfg.grid = {kMatN / 16, kMatN / 16};
  cfg.block = {16, 16};
  if (state.range(0))
    cfg.schedule = *Schedule::parse("random:1");
  uint64_t steps = 0;
  for (auto _ : state) {
    auto r = dev.launch(module(), "matmul", cfg,
                        {KernelArg::ptr(pa), KernelArg::ptr(pb),
                         KernelArg::ptr(pc), KernelArg::s32(kMatN)});
    if (!r.ok())
      state.SkipWithError(r.diagnostics_text().c_str());
    steps = r.thread_steps;
  }
  report(state, steps);
}
BENCHMARK(BM_EngineMatmul512)
    ->ArgName("random")
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_NativeMatmul512O2(benchmark::State &state) {
  std::vector<float> a(size_t(kMatN) * kMatN), b(a.size()), c(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = float(i % 13) * 0.25f;
    b[i] = float(i % 7) * 0.5f;
  }
  for (auto _ : state) {
    bench::native_matmul_o2(a.data(), b.data(), c.data(), kMatN);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_NativeMatmul512O2)->UseRealTime()->Unit(benchmark::kMillisecond);

// The compute kernel's work at -O3 -march=native: state.range(0) = 0 the
// loop as the kernel is written, 1 interchanged to vectorize across threads.
void BM_NativeComputeO3Native(benchmark::State &state) {
  std::vector<float> out(kBlocks * kThreads);
  for (auto _ : state) {
    if (state.range(0))
      bench::native_compute_o3_vec(out.data(), kBlocks * kThreads, kThreads,
                                   kIters);
    else
      bench::native_compute_o3_loop(out.data(), kBlocks * kThreads, kThreads,
                                    kIters);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_NativeComputeO3Native)
    ->ArgName("vectorized")
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// Stream copy y[i] = x[i] over 4 Mi floats (grid-stride), one host thread;
// state.range(0) = 1: under "random:1".
void BM_EngineCopy(benchmark::State &state) {
  Device dev;
  std::vector<float> x(kStreamN, 1.0f);
  DevicePtr px = dev.alloc(kStreamN * 4), py = dev.alloc(kStreamN * 4);
  dev.write(px, x.data(), kStreamN * 4);
  LaunchConfig cfg;
  cfg.grid = {256};
  cfg.block = {256};
  if (state.range(0))
    cfg.schedule = *Schedule::parse("random:1");
  uint64_t steps = 0;
  for (auto _ : state) {
    auto r = dev.launch(
        module(), "copy", cfg,
        {KernelArg::s32(kStreamN), KernelArg::ptr(px), KernelArg::ptr(py)});
    if (!r.ok())
      state.SkipWithError(r.diagnostics_text().c_str());
    steps = r.thread_steps;
  }
  report(state, steps);
}
BENCHMARK(BM_EngineCopy)
    ->ArgName("random")
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_NativeCopyO2(benchmark::State &state) {
  std::vector<float> x(kStreamN, 1.0f), y(kStreamN, 0.0f);
  for (auto _ : state) {
    bench::native_copy_o2(x.data(), y.data(), kStreamN);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_NativeCopyO2)->UseRealTime()->Unit(benchmark::kMillisecond);

// Keeps each run's wall-clock seconds per iteration for the table.
class TableReporter : public benchmark::ConsoleReporter {
public:
  std::map<std::string, std::pair<double, double>> seconds; // real, CPU
  void ReportRuns(const std::vector<Run> &runs) override {
    for (const Run &r : runs)
      if (r.run_type == Run::RT_Iteration && !r.error_occurred &&
          r.iterations > 0)
        seconds[r.benchmark_name()] = {
            r.real_accumulated_time / double(r.iterations),
            r.cpu_accumulated_time / double(r.iterations)};
    ConsoleReporter::ReportRuns(runs);
  }
};

// The side-by-side table (docs/performance.md): each comparison whose two
// runs were selected by --benchmark_filter. Single-threaded comparisons use
// CPU time (steadier than wall-clock time on a shared machine); host-thread
// scaling uses wall-clock time.
void print_table(const std::map<std::string, std::pair<double, double>> &t) {
  struct Row {
    const char *what, *engine, *base, *target;
    bool speedup; // wall-clock base / engine (host-thread scaling)
  };
  const Row rows[] = {
      {"tiled matmul 512^2 / native C++ -O2",
       "BM_EngineMatmul512/random:0/real_time",
       "BM_NativeMatmul512O2/real_time", "<= 4x", false},
      {"FMA chain / native -O3 -march=native", "BM_EngineCompute/1/real_time",
       "BM_NativeComputeO3Native/vectorized:0/real_time", "<= 8x", false},
      {"FMA chain / native, vectorized by hand", "BM_EngineCompute/1/real_time",
       "BM_NativeComputeO3Native/vectorized:1/real_time", "-", false},
      {"stream copy / native C++ -O2", "BM_EngineCopy/random:0/real_time",
       "BM_NativeCopyO2/real_time", "<= 10x", false},
      {"stream a*x+y / native C++ -O2", "BM_EngineStream/1/real_time",
       "BM_PlainStream/real_time", "-", false},
      {"matmul: random:1 / default schedule",
       "BM_EngineMatmul512/random:1/real_time",
       "BM_EngineMatmul512/random:0/real_time", "<= 1.5x", false},
      {"copy: random:1 / default schedule", "BM_EngineCopy/random:1/real_time",
       "BM_EngineCopy/random:0/real_time", "<= 1.5x", false},
      {"FMA chain: 2 host threads, speedup (wall)",
       "BM_EngineCompute/2/real_time", "BM_EngineCompute/1/real_time",
       ">= 1.9x", true},
  };
  std::printf("\n| comparison | engine | baseline | ratio | target |\n"
              "|---|---|---|---|---|\n");
  for (const Row &r : rows) {
    auto e = t.find(r.engine), b = t.find(r.base);
    if (e == t.end() || b == t.end())
      continue;
    const double te = r.speedup ? e->second.first : e->second.second;
    const double tb = r.speedup ? b->second.first : b->second.second;
    std::printf("| %s | %.2f ms | %.2f ms | %.2fx | %s |\n", r.what, te * 1e3,
                tb * 1e3, r.speedup ? tb / te : te / tb, r.target);
  }
}

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  TableReporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  print_table(rep.seconds);
  benchmark::Shutdown();
  return 0;
}
