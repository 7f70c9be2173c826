// Per-launch overhead of the CUDA runtime stand-in (docs/exec.md): a tiny
// kernel launched through runtime::Runtime (what every cudaLaunchKernel and
// <<<>>> does) against the same launch on engine::Device directly. The
// difference is the runtime's cost per launch; the budget is 1 ms.
#include <benchmark/benchmark.h>
#include <fstream>
#include <sstream>

#include "bcusim/runtime/runtime.h"

using namespace bcusim;

namespace {
std::string launch_ptx() {
  std::ifstream in(std::string(BCUSIM_SOURCE_DIR) + "/tests/exec/launch.ptx");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
char add_one_fn;
} // namespace

static void BM_RuntimeLaunch(benchmark::State &state) {
  runtime::RunOptions o;
  o.check = state.range(0) ? "" : "none";
  runtime::Runtime rt(o);
  int m = rt.add_ptx("launch.ptx", launch_ptx());
  rt.register_function(m, &add_one_fn, "_Z7add_onePi");
  void *d = nullptr;
  rt.malloc(&d, 32 * 4);
  void *args[] = {&d};
  runtime::Runtime::LaunchParams p;
  p.grid = {1};
  p.block = {32};
  for (auto _ : state)
    if (rt.launch(&add_one_fn, p, args) != runtime::Error::Success)
      state.SkipWithError("launch failed");
}
BENCHMARK(BM_RuntimeLaunch)->Arg(0)->Arg(1)->ArgName("default_checks");

static void BM_EngineLaunch(benchmark::State &state) {
  DiagnosticSink sink;
  auto mod = engine::Module::load_string("launch.ptx", launch_ptx(), sink);
  engine::Device dev;
  auto d = dev.alloc(32 * 4);
  engine::LaunchConfig cfg;
  cfg.grid = {1};
  cfg.block = {32};
  for (auto _ : state)
    if (!dev.launch(*mod, "_Z7add_onePi", cfg, {engine::KernelArg::ptr(d)})
             .ok())
      state.SkipWithError("launch failed");
}
BENCHMARK(BM_EngineLaunch);
