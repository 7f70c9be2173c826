// `bcusim run`: load a PTX module, allocate and fill the argument buffers,
// launch one kernel, print device printf output and the requested dumps.
//
//   bcusim run FILE.ptx [-k NAME] -g X[,Y[,Z]] -b X[,Y[,Z]]
//              [--cluster X[,Y[,Z]]] [--shared-bytes N] [-a ARG]...
//              [--dump I[=FILE]]... [--max-steps N] [--schedule S]
//              [--time-limit SECONDS] [--threads N]
//
// Exit status: 0 success; 1 the PTX does not compile, the launch does not
// fit the kernel, or the kernel faults / deadlocks / hits a limit; 2 a
// malformed command line. See docs/engine.md "bcusim run".
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bcusim/engine/args.h"
#include "bcusim/engine/engine.h"
#include "commands.h"

namespace bcusim::cli {

namespace {

struct RunOptions {
  std::string file;
  std::string kernel;
  std::string grid, block, cluster;
  uint64_t shared_bytes = 0;
  std::vector<std::string> args;
  std::vector<std::string> dumps;
  uint64_t max_steps = 0;
  std::string schedule = "rr";
  double time_limit = 60;
  unsigned threads = 1;
  bool warn_only = false;
};

void usage_error(const std::string &msg) {
  std::fputs(fmt::format("bcusim: error: {}\n", msg).c_str(), stderr);
}

int run_command(const RunOptions &o) {
  using namespace engine;
  // Command-line values first: a malformed one is a usage error (2).
  std::string err;
  auto grid = parse_dims(o.grid, err);
  if (!grid) {
    usage_error(fmt::format("-g: {}", err));
    return 2;
  }
  auto block = parse_dims(o.block, err);
  if (!block) {
    usage_error(fmt::format("-b: {}", err));
    return 2;
  }
  Dim3 cluster{0, 0, 0};
  if (!o.cluster.empty()) {
    auto c = parse_dims(o.cluster, err);
    if (!c) {
      usage_error(fmt::format("--cluster: {}", err));
      return 2;
    }
    cluster = *c;
  }
  auto sched = Schedule::parse(o.schedule);
  if (!sched) {
    usage_error(
        fmt::format("--schedule: '{}' is not rr or random:SEED", o.schedule));
    return 2;
  }
  if (o.shared_bytes > 0xffffffffu) {
    usage_error("--shared-bytes: too large");
    return 2;
  }
  std::vector<ArgSpec> specs;
  for (size_t i = 0; i < o.args.size(); ++i) {
    auto a = parse_arg(o.args[i], err);
    if (!a) {
      usage_error(fmt::format("-a '{}' (argument {}): {}", o.args[i], i, err));
      return 2;
    }
    specs.push_back(std::move(*a));
  }
  struct Dump {
    size_t index;
    std::string file;
  };
  std::vector<Dump> dumps;
  for (const auto &d : o.dumps) {
    size_t eq = d.find('=');
    std::string idx = d.substr(0, eq);
    size_t v = 0;
    bool ok = !idx.empty() && idx.size() < 10;
    for (char ch : idx)
      ok &= ch >= '0' && ch <= '9';
    if (ok)
      v = std::stoul(idx);
    if (!ok || v >= specs.size() || !specs[v].is_buffer) {
      usage_error(
          fmt::format("--dump '{}': {} is not the index of a buffer argument "
                      "(0-based among the -a arguments)",
                      d, idx));
      return 2;
    }
    if (eq != std::string::npos && eq + 1 == d.size()) {
      usage_error(fmt::format("--dump '{}': missing file name after '='", d));
      return 2;
    }
    dumps.push_back({v, eq == std::string::npos ? "" : d.substr(eq + 1)});
  }

  // The module.
  DiagnosticSink sink;
  auto module = Module::load_file(o.file, sink);
  std::fputs(sink.render_all().c_str(), stderr);
  if (!module)
    return 1;
  std::string kernel = o.kernel;
  auto names = module->kernel_names();
  if (kernel.empty()) {
    if (names.size() != 1) {
      std::string list;
      for (auto &n : names)
        list += (list.empty() ? "" : ", ") + n;
      usage_error(names.empty()
                      ? fmt::format("{} has no kernel (.entry)", o.file)
                      : fmt::format("{} has {} kernels; choose one with -k: {}",
                                    o.file, names.size(), list));
      return names.empty() ? 1 : 2;
    }
    kernel = names[0];
  } else if (std::find(names.begin(), names.end(), kernel) == names.end()) {
    std::string list;
    for (auto &n : names)
      list += (list.empty() ? "" : ", ") + n;
    usage_error(fmt::format("-k: no kernel named '{}' in {} (kernels: {})",
                            kernel, o.file, list.empty() ? "none" : list));
    return 2;
  }

  // Buffers and arguments.
  Device dev;
  std::vector<KernelArg> kargs;
  std::vector<DevicePtr> ptrs(specs.size(), 0);
  for (size_t i = 0; i < specs.size(); ++i) {
    const ArgSpec &s = specs[i];
    if (!s.is_buffer) {
      KernelArg a = KernelArg::raw(s.scalar.data(), s.scalar.size());
      a.is_float = is_float(s.type);
      a.is_signed = is_signed(s.type);
      kargs.push_back(std::move(a));
      continue;
    }
    auto bytes = buffer_contents(s, err);
    if (!bytes) {
      usage_error(fmt::format("-a '{}' (argument {}): {}", o.args[i], i, err));
      return 2;
    }
    ptrs[i] = dev.alloc(bytes->size());
    dev.write(ptrs[i], bytes->data(), bytes->size());
    kargs.push_back(KernelArg::ptr(ptrs[i]));
  }

  LaunchConfig cfg;
  cfg.grid = *grid;
  cfg.block = *block;
  cfg.cluster = cluster;
  cfg.shared_bytes = uint32_t(o.shared_bytes);
  cfg.max_steps = o.max_steps;
  cfg.time_limit_s = o.time_limit;
  cfg.schedule = *sched;
  cfg.host_threads = o.threads;
  cfg.warn_only = o.warn_only;
  RunReport r = dev.launch(*module, kernel, cfg, kargs);
  std::fwrite(r.printf_output.data(), 1, r.printf_output.size(), stdout);
  if (!r.ok()) {
    std::fflush(stdout);
    std::fputs(r.diagnostics_text().c_str(), stderr);
    return 1;
  }
  if (!r.diagnostics.empty()) // --warn-only warnings
    std::fputs(r.diagnostics_text().c_str(), stderr);
  for (const auto &d : dumps) {
    const ArgSpec &s = specs[d.index];
    std::vector<uint8_t> data(s.count * size_of(s.type));
    dev.read(ptrs[d.index], data.data(), data.size());
    if (d.file.empty()) {
      std::string text = format_elements(s.type, data.data(), s.count);
      std::fwrite(text.data(), 1, text.size(), stdout);
    } else {
      std::ofstream f(d.file, std::ios::binary);
      f.write(reinterpret_cast<const char *>(data.data()),
              std::streamsize(data.size()));
      if (!f) {
        usage_error(fmt::format("--dump: cannot write '{}'", d.file));
        return 1;
      }
    }
  }
  return 0;
}

} // namespace

void add_run_command(CLI::App &app, Context &ctx) {
  auto o = std::make_shared<RunOptions>();
  auto *run =
      app.add_subcommand("run", "run a PTX kernel on the CPU (SIMT engine)");
  run->add_option("file", o->file, "PTX file (nvcc -ptx output)")->required();
  run->add_option("-k,--kernel", o->kernel,
                  "kernel (.entry) name; optional when the "
                  "module has one kernel");
  run->add_option("-g,--grid", o->grid, "grid dimensions X[,Y[,Z]]")
      ->required();
  run->add_option("-b,--block", o->block, "block dimensions X[,Y[,Z]]")
      ->required();
  run->add_option("--cluster", o->cluster, "cluster dimensions X[,Y[,Z]]");
  run->add_option("--shared-bytes", o->shared_bytes,
                  "dynamic (extern) shared memory per CTA, bytes");
  run->add_option(
         "-a,--arg", o->args,
         "kernel argument, in order: TYPE:VALUE or TYPE[N][=INIT] with INIT "
         "zeros|iota|fill:V|rand:SEED|file:PATH")
      ->allow_extra_args(false);
  run->add_option(
         "--dump", o->dumps,
         "after the run, print buffer argument I (or write its bytes to FILE)")
      ->allow_extra_args(false);
  run->add_option("--max-steps", o->max_steps,
                  "stop after N warp-instructions (0: no limit)");
  run->add_option("--schedule", o->schedule, "rr (default) or random:SEED");
  run->add_option("--time-limit", o->time_limit,
                  "wall-clock limit in seconds (default 60; 0: none)");
  run->add_option("--threads", o->threads,
                  "host threads running CTAs in parallel (default 1: deterministic; 0: all "
                  "cores)");
  run->add_flag("--warn-only", o->warn_only,
               "report barrier misuse the barrier unit survives as warnings "
               "and keep running (docs/barriers.md)");
  run->callback([o, &ctx] { ctx.exit_code = run_command(*o); });
}

} // namespace bcusim::cli
