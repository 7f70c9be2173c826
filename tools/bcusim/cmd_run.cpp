// `bcusim run`: load a PTX module, allocate and fill the argument buffers,
// launch one kernel (or several in order, `--then`), print device printf
// output and the requested dumps.
//
//   bcusim run FILE.ptx [-k NAME] -g X[,Y[,Z]] -b X[,Y[,Z]]
//              [--cluster X[,Y[,Z]]] [--shared-bytes N] [-a ARG]... [--pdl]
//              [--then [FILE2.ptx] [-k NAME] -g ... -b ... [-a ARG|@I]...]...
//              [--dump I[=FILE]]... [--max-steps N] [--schedule S]
//              [--time-limit SECONDS] [--threads N] [--stack-size BYTES]
//              [--verbose]
//              [--on-gpu | --compare-gpu]
//
// Exit status: 0 success; 1 the PTX does not compile, the launch does not
// fit the kernel, or the kernel faults / deadlocks / hits a limit; 2 a
// malformed command line or no GPU for --on-gpu / --compare-gpu. See
// docs/engine.md "bcusim run" and "Checking against your GPU".
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "bcusim/check/checker.h"
#include "bcusim/check/output.h"
#include "bcusim/engine/args.h"
#include "bcusim/engine/engine.h"
#include "bcusim/ptx/instructions.h"
#include "bcusim/runtime/gpu.h"
#include "bcusim/runtime/options.h"
#include "bcusim/runtime/session.h"
#include "commands.h"

namespace bcusim::cli {

namespace {

// The per-launch options as CLI11 collects them (every occurrence, in
// order); the callback splits them into launches at each `--then` using
// the parse order.
struct RunOptions : runtime::RunOptions {
  std::vector<std::string> files;
  std::vector<std::string> kernels;
  std::vector<std::string> grids, blocks, clusters;
  std::vector<uint64_t> shared_bytes;
  std::vector<std::string> args;
  std::vector<std::string> dumps;
  bool on_gpu = false;      // --on-gpu: the launches on the GPU only
  bool compare_gpu = false; // --compare-gpu: on bcusim and on the GPU
  struct Launch {
    std::vector<std::string> files, kernels, grids, blocks, clusters;
    std::vector<uint64_t> shared_bytes;
    std::vector<size_t> args; // indices among all -a arguments
    bool pdl = false;
  };
  std::vector<Launch> launches;
};

void usage_error(const std::string &msg) {
  std::fputs(fmt::format("bcusim: error: {}\n", msg).c_str(), stderr);
}

// One launch after checking its command-line values.
struct LaunchPlan {
  std::string file, kernel;
  engine::LaunchConfig cfg;
  std::vector<size_t> args;
  const engine::Module *module = nullptr;
};

// Prefix for messages about a later launch; empty for the first, so that
// the messages of a single launch stay as they were.
std::string launch_prefix(size_t i) {
  return i == 0 ? "" : fmt::format("launch {} (after --then): ", i);
}

bool parse_index(const std::string &text, size_t &v) {
  bool ok = !text.empty() && text.size() < 10;
  for (char ch : text)
    ok &= ch >= '0' && ch <= '9';
  if (ok)
    v = std::stoul(text);
  return ok;
}

using runtime::Outcome;

struct DumpSpec {
  size_t index;
  std::string file;
};

// Runs the command line's launches, once per schedule (--explore runs them
// again with fresh modules and buffers), each time in a fresh session
// (runtime::Session: loading, launching, checks and findings).
struct Executions {
  const RunOptions &o;
  std::vector<LaunchPlan> &plans;
  const std::vector<engine::ArgSpec> &specs;
  const std::vector<std::string> &spec_text;
  const std::vector<size_t> &number_of;
  const std::vector<DumpSpec> &dumps;
  // Modules of every execution stay loaded: findings point into them.
  std::vector<std::unique_ptr<engine::Module>> loaded;
  // --timeline: the first execution's launches.
  std::unique_ptr<check::Timeline> timeline;
  // Dumps without a file go to stdout (not under --compare-gpu, which
  // prints the comparison instead).
  bool print_dumps = true;

  Outcome execute(const engine::Schedule &sched, const check::Checks &checks,
                  bool print);
  // The same launches on a GPU (--on-gpu, --compare-gpu).
  Outcome execute_gpu(runtime::Gpu &gpu, bool print);

private:
  // Loads the launches' modules and, when printing (the first execution),
  // resolves their kernels; false with out.exit set when the run cannot
  // start.
  bool load(Outcome &out, bool print);
  // The kernel arguments of launch `lp` with buffer argument i at ptrs[i].
  std::vector<engine::KernelArg>
  kernel_args(const LaunchPlan &lp,
              const std::vector<engine::DevicePtr> &ptrs) const;
  // Prints or writes the dumps in out.dumps; false when a file cannot be
  // written.
  bool emit_dumps(const Outcome &out, bool print) const;
};

bool Executions::load(Outcome &out, bool print) {
  using namespace engine;
  auto say = [&](const std::string &text) {
    if (print)
      std::fputs(text.c_str(), stderr);
  };
  // The modules: each file is loaded once, so launches of one module share
  // its .global variables (like one CUmodule).
  std::map<std::string, Module *> modules;
  for (size_t li = 0; li < plans.size(); ++li) {
    LaunchPlan &lp = plans[li];
    auto it = modules.find(lp.file);
    if (it == modules.end()) {
      DiagnosticSink sink;
      // Parsed and validated as ptxas does (docs/ptx-validation.md), then
      // compiled; `src` keeps the diagnostics' source alive.
      std::string read_error;
      auto src = SourceFile::read(lp.file, read_error);
      if (!src)
        sink.error(SourceLoc{},
                   read_error.empty() ? "cannot read " + lp.file : read_error);
      std::unique_ptr<Module> module = runtime::load_module(src, sink);
      say(sink.render_all());
      if (!module) {
        out.exit = 1;
        out.load_failed = true;
        return false;
      }
      loaded.push_back(std::move(module));
      it = modules.emplace(lp.file, loaded.back().get()).first;
    }
    lp.module = it->second;
    if (!print)
      continue; // kernel names were checked by the first execution
    std::string pre = launch_prefix(li);
    auto names = lp.module->kernel_names();
    std::string list;
    for (auto &n : names)
      list += (list.empty() ? "" : ", ") + n;
    if (lp.kernel.empty()) {
      if (names.size() != 1) {
        usage_error(
            names.empty()
                ? fmt::format("{}{} has no kernel (.entry)", pre, lp.file)
                : fmt::format("{}{} has {} kernels; choose one with -k: {}",
                              pre, lp.file, names.size(), list));
        out.exit = names.empty() ? 1 : 2;
        out.load_failed = true;
        return false;
      }
      lp.kernel = names[0];
    } else if (std::find(names.begin(), names.end(), lp.kernel) ==
               names.end()) {
      usage_error(fmt::format("{}-k: no kernel named '{}' in {} (kernels: {})",
                              pre, lp.kernel, lp.file,
                              list.empty() ? "none" : list));
      out.exit = 2;
      out.load_failed = true;
      return false;
    }
  }
  return true;
}

std::vector<engine::KernelArg>
Executions::kernel_args(const LaunchPlan &lp,
                        const std::vector<engine::DevicePtr> &ptrs) const {
  using namespace engine;
  std::vector<KernelArg> kargs;
  for (size_t k : lp.args) {
    const size_t i = number_of[k];
    const ArgSpec &s = specs[i];
    if (!s.is_buffer) {
      KernelArg a = KernelArg::raw(s.scalar.data(), s.scalar.size());
      for (const auto &r : s.refs) // a structure's buffer addresses
        std::memcpy(a.bytes.data() + r.offset, &ptrs[r.number], 8);
      a.is_float = is_float(s.type);
      a.is_aggregate = s.is_aggregate;
      a.is_signed = is_signed(s.type);
      kargs.push_back(std::move(a));
      continue;
    }
    kargs.push_back(KernelArg::ptr(ptrs[i]));
  }
  return kargs;
}

bool Executions::emit_dumps(const Outcome &out, bool print) const {
  if (!print)
    return true;
  for (size_t k = 0; k < dumps.size() && k < out.dumps.size(); ++k) {
    const DumpSpec &d = dumps[k];
    const engine::ArgSpec &s = specs[d.index];
    const std::vector<uint8_t> &data = out.dumps[k];
    if (d.file.empty()) {
      if (!print_dumps)
        continue;
      std::string text = engine::format_elements(s.type, data.data(), s.count);
      std::fwrite(text.data(), 1, text.size(), stdout);
    } else {
      std::ofstream f(d.file, std::ios::binary);
      f.write(reinterpret_cast<const char *>(data.data()),
              std::streamsize(data.size()));
      if (!f) {
        usage_error(fmt::format("--dump: cannot write '{}'", d.file));
        return false;
      }
    }
  }
  std::fflush(stdout);
  return true;
}

Outcome Executions::execute(const engine::Schedule &sched,
                            const check::Checks &checks, bool print) {
  using namespace engine;
  Outcome out;
  std::string err;
  auto say = [&](const std::string &text) {
    if (print)
      std::fputs(text.c_str(), stderr);
  };
  if (!load(out, print))
    return out;

  // Buffers, all made before the first launch, in -a order.
  Device dev;
  std::vector<DevicePtr> ptrs(specs.size(), 0);
  for (size_t i = 0; i < specs.size(); ++i) {
    const ArgSpec &s = specs[i];
    if (!s.is_buffer)
      continue;
    auto bytes = buffer_contents(s, err);
    if (!bytes) {
      usage_error(
          fmt::format("-a '{}' (argument {}): {}", spec_text[i], i, err));
      out.exit = 2;
      out.load_failed = true;
      return out;
    }
    ptrs[i] = dev.alloc(bytes->size(),
                        fmt::format("argument {} ({})", i, spec_text[i]));
    dev.write(ptrs[i], bytes->data(), bytes->size());
  }

  runtime::Session session(checks, sched, o);
  // A timeline (--timeline) and, for long launches on a terminal, a
  // progress line watch the launches beside the checks.
  std::vector<engine::Observer *> also;
  if (print && !o.timeline.empty()) {
    timeline = std::make_unique<check::Timeline>(session.checker());
    also.push_back(timeline.get());
  }
  std::unique_ptr<check::Progress> progress;
  if (print && check::Progress::wanted()) {
    progress = std::make_unique<check::Progress>(session.checker());
    also.push_back(progress.get());
  }

  // The launches, in order; each one completes before the next starts.
  for (size_t li = 0; li < plans.size(); ++li) {
    LaunchPlan &lp = plans[li];
    std::vector<KernelArg> kargs = kernel_args(lp, ptrs);
    auto launched = session.launch(dev, *lp.module, lp.kernel, lp.cfg, kargs,
                                   runtime::StreamOrder::kLegacy, also);
    const RunReport &r = launched.report;
    if (print)
      std::fwrite(r.printf_output.data(), 1, r.printf_output.size(), stdout);
    std::fflush(stdout);
    if (print && o.verbose && !r.notes.empty())
      for (const auto &n : r.notes)
        say(render(n));
    for (size_t k = launched.first_finding; k < session.findings().size(); ++k)
      say(render(session.findings()[k].diag));
    const size_t run_first = session.findings().size();
    const std::string run_text =
        session.add_run_findings(r, lp.kernel, *lp.module);
    if (timeline)
      for (size_t k = run_first; k < session.findings().size(); ++k)
        timeline->add_finding(session.findings()[k]);
    for (size_t k = out.findings.size(); k < session.findings().size(); ++k)
      out.findings.push_back(session.findings()[k]);
    if (!r.ok()) {
      say(run_text);
      out.failure = r.diagnostics.empty() ? std::string(name_of(r.status))
                                          : r.diagnostics.back().message;
      if (plans.size() > 1)
        say(fmt::format("bcusim: note: launch {} (kernel '{}', 0-based "
                        "among {} launches) failed; later launches "
                        "did not run\n",
                        li, lp.kernel, plans.size()));
      out.exit = 1;
      return out;
    }
    if (!r.diagnostics.empty()) // warnings (--warn-only, harmless misuse)
      say(run_text);
  }
  // Device-heap blocks the kernels never freed (docs/engine.md "Device
  // heap"): a warning each when a check is on.
  if (session.checker())
    for (const auto &b : dev.heap_blocks()) {
      check::Finding f;
      f.kind = check::FindingKind::HeapLeak;
      f.severity = Severity::Warning;
      f.space = "global";
      f.address = b.base;
      f.launch = plans.size() - 1;
      f.diag.severity = Severity::Warning;
      f.diag.message =
          fmt::format("heap block of {} byte{} at {:#x} ({}) was never freed",
                      b.size, b.size == 1 ? "" : "s", b.base, b.by);
      f.text = render(f.diag);
      say(f.text);
      out.findings.push_back(std::move(f));
    }
  for (const auto &d : dumps) {
    const ArgSpec &s = specs[d.index];
    std::vector<uint8_t> data(s.count * size_of(s.type));
    dev.read(ptrs[d.index], data.data(), data.size());
    out.dumps.push_back(data);
  }
  if (!emit_dumps(out, print))
    out.exit = 1;
  return out;
}

Outcome Executions::execute_gpu(runtime::Gpu &gpu, bool print) {
  using namespace engine;
  Outcome out;
  std::string err;
  auto fail = [&](const std::string &text) {
    std::fflush(stdout);
    std::fputs(fmt::format("bcusim: error: {}\n", text).c_str(), stderr);
    out.exit = 1;
    return out;
  };
  // bcusim's front end checks the PTX and resolves the kernels (names,
  // parameter sizes) as for a run on bcusim; the driver compiles it again.
  if (!plans.front().module && !load(out, print))
    return out;
  std::map<std::string, std::shared_ptr<runtime::Gpu::Module>> modules;
  for (const LaunchPlan &lp : plans) {
    if (modules.count(lp.file))
      continue;
    std::ifstream f(lp.file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(f)),
                     std::istreambuf_iterator<char>());
    auto m = gpu.load(text, err);
    if (!m) {
      out.load_failed = true;
      return fail(fmt::format("{}: {}", lp.file, err));
    }
    modules.emplace(lp.file, std::move(m));
  }
  // Buffers, all made before the first launch, in -a order.
  std::vector<DevicePtr> ptrs(specs.size(), 0);
  for (size_t i = 0; i < specs.size(); ++i) {
    const ArgSpec &s = specs[i];
    if (!s.is_buffer)
      continue;
    auto bytes = buffer_contents(s, err);
    if (!bytes) {
      usage_error(
          fmt::format("-a '{}' (argument {}): {}", spec_text[i], i, err));
      out.exit = 2;
      out.load_failed = true;
      return out;
    }
    auto p = gpu.alloc(bytes->size(), err);
    if (!p || !gpu.write(*p, bytes->data(), bytes->size(), err))
      return fail(fmt::format("argument {} on the GPU: {}", i, err));
    ptrs[i] = *p;
  }
  for (size_t li = 0; li < plans.size(); ++li) {
    const LaunchPlan &lp = plans[li];
    auto sizes = lp.module->kernel_param_sizes(lp.kernel);
    if (!gpu.launch(*modules.at(lp.file), lp.kernel, lp.cfg,
                    kernel_args(lp, ptrs),
                    sizes ? *sizes : std::vector<uint32_t>{}, err)) {
      out.failure = err;
      return fail(fmt::format("{}kernel '{}' on the GPU: {}", launch_prefix(li),
                              lp.kernel, err));
    }
  }
  std::fflush(stdout); // the kernels' printf output, printed by the driver
  for (const auto &d : dumps) {
    const ArgSpec &s = specs[d.index];
    std::vector<uint8_t> data(s.count * size_of(s.type));
    if (!gpu.read(ptrs[d.index], data.data(), data.size(), err))
      return fail(
          fmt::format("reading argument {} from the GPU: {}", d.index, err));
    out.dumps.push_back(std::move(data));
  }
  if (!emit_dumps(out, print))
    out.exit = 1;
  return out;
}

// One element as --dump prints it; floats with their bits in hex, so that
// NaN payloads and the signs of zeros show.
std::string element_text(engine::ScalarType t, const uint8_t *p) {
  std::string v = engine::format_elements(t, p, 1);
  while (!v.empty() && v.back() == '\n')
    v.pop_back();
  if (engine::is_float(t)) {
    uint64_t bits = 0;
    std::memcpy(&bits, p, engine::size_of(t));
    v += fmt::format(" (0x{:0{}x})", bits, engine::size_of(t) * 2);
  }
  return v;
}

// --compare-gpu: per dump, identical or the first differing element; the
// number of dumps that differ.
size_t compare_with_gpu(const Outcome &sim, const Outcome &gpu,
                        const std::vector<engine::ArgSpec> &specs,
                        const std::vector<DumpSpec> &dumps) {
  size_t differ = 0;
  for (size_t k = 0; k < dumps.size(); ++k) {
    const engine::ArgSpec &s = specs[dumps[k].index];
    const uint32_t esz = engine::size_of(s.type);
    const std::vector<uint8_t> &a = sim.dumps[k], &b = gpu.dumps[k];
    std::string what = fmt::format("--dump {} ({}[{}])", dumps[k].index,
                                   engine::name_of(s.type), s.count);
    uint64_t first = s.count, count = 0;
    for (uint64_t e = 0; e < s.count; ++e)
      if (std::memcmp(a.data() + e * esz, b.data() + e * esz, esz) != 0) {
        first = std::min(first, e);
        ++count;
      }
    if (count == 0) {
      std::fputs(fmt::format("{}: identical\n", what).c_str(), stdout);
      continue;
    }
    ++differ;
    std::fputs(fmt::format("{}: differs in {} of {} elements; first at "
                           "element {}: bcusim {}, GPU {}\n",
                           what, count, s.count, first,
                           element_text(s.type, a.data() + first * esz),
                           element_text(s.type, b.data() + first * esz))
                   .c_str(),
               stdout);
  }
  std::fflush(stdout);
  return differ;
}

int run_command(const RunOptions &o) {
  using namespace engine;
  std::string err;
  std::vector<LaunchPlan> plans;
  for (size_t li = 0; li < o.launches.size(); ++li) {
    const auto &L = o.launches[li];
    std::string pre = launch_prefix(li);
    auto once = [&](size_t n, const char *name) {
      if (n > 1) {
        usage_error(fmt::format("{}{} given {} times", pre, name, n));
        return false;
      }
      return true;
    };
    if (!once(L.files.size(), "the PTX file") ||
        !once(L.kernels.size(), "-k") || !once(L.grids.size(), "-g") ||
        !once(L.blocks.size(), "-b") || !once(L.clusters.size(), "--cluster") ||
        !once(L.shared_bytes.size(), "--shared-bytes"))
      return 2;
    LaunchPlan lp;
    if (!L.files.empty())
      lp.file = L.files[0];
    else if (li > 0)
      lp.file = plans.back().file; // the previous launch's module
    if (lp.file.empty() || L.grids.empty() || L.blocks.empty()) {
      usage_error(fmt::format("{}{} is required", pre,
                              lp.file.empty()   ? "the PTX file"
                              : L.grids.empty() ? "-g"
                                                : "-b"));
      return 2;
    }
    if (!L.kernels.empty())
      lp.kernel = L.kernels[0];
    // Command-line values first: a malformed one is a usage error (2).
    auto grid = parse_dims(L.grids[0], err);
    if (!grid) {
      usage_error(fmt::format("{}-g: {}", pre, err));
      return 2;
    }
    auto block = parse_dims(L.blocks[0], err);
    if (!block) {
      usage_error(fmt::format("{}-b: {}", pre, err));
      return 2;
    }
    Dim3 cluster{0, 0, 0};
    if (!L.clusters.empty()) {
      auto c = parse_dims(L.clusters[0], err);
      if (!c) {
        usage_error(fmt::format("{}--cluster: {}", pre, err));
        return 2;
      }
      cluster = *c;
    }
    uint64_t shared = L.shared_bytes.empty() ? 0 : L.shared_bytes[0];
    if (shared > 0xffffffffu) {
      usage_error(fmt::format("{}--shared-bytes: too large", pre));
      return 2;
    }
    lp.cfg.grid = *grid;
    lp.cfg.block = *block;
    lp.cfg.cluster = cluster;
    lp.cfg.shared_bytes = uint32_t(shared);
    lp.cfg.stack_size = o.stack_size;
    // --pdl with the first launch's options: every later launch is a
    // programmatic dependent of the one before; after --then: that launch.
    lp.cfg.has_prerequisite = li > 0 && (L.pdl || o.launches[0].pdl);
    lp.args = L.args;
    plans.push_back(std::move(lp));
  }
  auto sched = Schedule::parse(o.schedule);
  if (!sched) {
    usage_error(fmt::format("--schedule: '{}' is not {}", o.schedule,
                            Schedule::kForms));
    return 2;
  }
  // Arguments. Every `-a TYPE:VALUE` / `-a TYPE[N]...` gets the next
  // argument number (0-based over the whole command line; --dump uses it);
  // `-a @I` passes buffer I again and gets no number of its own.
  std::vector<ArgSpec> specs;                   // by argument number
  std::vector<size_t> number_of(o.args.size()); // -a occurrence -> number
  std::vector<std::string> spec_text;           // by argument number
  for (size_t k = 0; k < o.args.size(); ++k) {
    const std::string &t = o.args[k];
    if (!t.empty() && t[0] == '@')
      continue;
    auto a = parse_arg(t, err);
    if (!a) {
      usage_error(
          fmt::format("-a '{}' (argument {}): {}", t, specs.size(), err));
      return 2;
    }
    number_of[k] = specs.size();
    const size_t own = specs.size();
    std::vector<ArgSpec> inner = std::move(a->buffers);
    a->buffers.clear();
    specs.push_back(std::move(*a));
    spec_text.push_back(t);
    // A structure's own buffers: the next argument numbers, not passed.
    for (auto &r : specs[own].refs)
      if (r.own) {
        r.own = false;
        r.number += own + 1;
      }
    for (auto &b : inner) {
      spec_text.push_back(
          fmt::format("{} field buffer {}", t, specs.size() - own - 1));
      specs.push_back(std::move(b));
    }
  }
  for (size_t k = 0; k < o.args.size(); ++k) {
    const std::string &t = o.args[k];
    if (t.empty() || t[0] != '@')
      continue;
    size_t v = 0;
    if (!parse_index(t.substr(1), v) || v >= specs.size() ||
        !specs[v].is_buffer) {
      usage_error(fmt::format(
          "-a '{}': {} is not the number of a buffer argument (0-based among "
          "the -a arguments that are not @ references)",
          t, t.substr(1)));
      return 2;
    }
    number_of[k] = v;
  }
  // @I fields of structures name buffer arguments too.
  for (size_t i = 0; i < specs.size(); ++i)
    for (const auto &r : specs[i].refs)
      if (r.number >= specs.size() || !specs[r.number].is_buffer) {
        usage_error(fmt::format(
            "-a '{}' (argument {}): @{} is not the number of a buffer "
            "argument (0-based among the -a arguments that are not @ "
            "references)",
            spec_text[i], i, r.number));
        return 2;
      }
  std::vector<DumpSpec> dumps;
  for (const auto &d : o.dumps) {
    size_t eq = d.find('=');
    std::string idx = d.substr(0, eq);
    size_t v = 0;
    bool ok = parse_index(idx, v);
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

  // Checks (docs/checker.md): --check LIST, else the default (sync).
  check::Checks checks;
  if (!o.check.empty()) {
    auto c = check::Checks::parse(o.check, err);
    if (!c) {
      usage_error(fmt::format("--check: {}", err));
      return 2;
    }
    checks = *c;
  }
  if (o.explore > 1000) {
    usage_error("--explore: at most 1000 schedules");
    return 2;
  }
  if (!o.save_ptx.empty()) {
    usage_error("--save-ptx: bcusim exec writes the PTX it extracts from a "
                "program; run's PTX is already a file");
    return 2;
  }
  const bool checked = !o.check.empty() || o.explore > 0 || !o.report.empty() ||
                       !o.sarif.empty();

  // --on-gpu / --compare-gpu (docs/engine.md "Checking against your GPU"):
  // the driver first, so that a machine without one says so at once.
  std::unique_ptr<runtime::Gpu> gpu;
  if (o.on_gpu || o.compare_gpu) {
    if (o.on_gpu && o.compare_gpu) {
      usage_error("--on-gpu and --compare-gpu exclude each other "
                  "(--compare-gpu runs on both)");
      return 2;
    }
    const char *flag = o.on_gpu ? "--on-gpu" : "--compare-gpu";
    const char *refused = o.explore > 0         ? "--explore"
                          : !o.on_gpu           ? nullptr
                          : !o.check.empty()    ? "--check"
                          : !o.report.empty()   ? "--report"
                          : !o.sarif.empty()    ? "--sarif"
                          : !o.timeline.empty() ? "--timeline"
                                                : nullptr;
    if (refused) {
      usage_error(fmt::format(
          "{} does not take {} ({})", flag, refused,
          o.on_gpu ? "the GPU runs without bcusim's checks; --compare-gpu "
                     "checks the run on bcusim"
                   : "the GPU runs one schedule"));
      return 2;
    }
    gpu = runtime::Gpu::open(err);
    if (!gpu) {
      usage_error(err);
      return 2;
    }
    if (o.verbose)
      std::fputs(fmt::format("bcusim: note: {}: {}\n", flag, gpu->description())
                     .c_str(),
                 stderr);
  }

  Executions ses{o, plans, specs, spec_text, number_of, dumps, {}, {}, true};
  if (o.on_gpu)
    return ses.execute_gpu(*gpu, true).exit;
  ses.print_dumps = !o.compare_gpu;
  Outcome first = ses.execute(*sched, checks, true);
  if (first.exit == 2 || first.load_failed)
    return first.exit;
  // --compare-gpu: the same launches on the GPU, each dump compared.
  bool gpu_failed = false;
  size_t gpu_differ = 0;
  if (o.compare_gpu && first.exit == 0) {
    Outcome on_gpu = ses.execute_gpu(*gpu, true);
    gpu_failed = on_gpu.exit != 0;
    if (!gpu_failed)
      gpu_differ = compare_with_gpu(first, on_gpu, specs, dumps);
    if (dumps.empty())
      std::fputs("bcusim: note: --compare-gpu compares the dumped buffers; "
                 "there is no --dump\n",
                 stderr);
    else if (gpu_differ)
      std::fputs(fmt::format("bcusim: error: {} of {} dumps differ between "
                             "bcusim and the GPU\n",
                             gpu_differ, dumps.size())
                     .c_str(),
                 stderr);
  }
  std::vector<check::Finding> findings = std::move(first.findings);

  // --explore N: the same launches under N schedules (the first is the one
  // given, rr by default); every new hazard and every schedule whose
  // dumped buffers differ from the first one's is reported with the
  // --schedule value that replays it. Reverse order and "each warp
  // delayed" go by the first launch's warps per CTA (docs/checker.md
  // "Schedule exploration").
  runtime::Exploration x;
  x.schedules = o.explore;
  x.first = *sched;
  x.warps = uint32_t((plans.front().cfg.block.count() + 31) / 32);
  for (const auto &d : dumps)
    x.dumps.push_back({d.index, specs[d.index].type, specs[d.index].count});
  findings = runtime::explore(
      x, first, std::move(findings),
      [&](const Schedule &s) { return ses.execute(s, checks, false); },
      [](const check::Finding &f) {
        std::fputs(render(f.diag).c_str(), stderr);
      });

  size_t errors = 0, warnings = 0;
  for (const auto &f : findings)
    (f.severity == Severity::Error ? errors : warnings) += 1;
  if (checked) {
    std::string line = runtime::check_summary(checks, findings, plans.size());
    std::fputs((line + "\n").c_str(), stderr);
    if (!o.report.empty()) {
      nlohmann::json j = runtime::report_json(checks.str(), plans.size(),
                                              errors, warnings, line, findings);
      j["schedules"] = o.explore > 1 ? o.explore : 1;
      if (!runtime::write_report(o.report, j)) {
        usage_error(fmt::format("--report: cannot write '{}'", o.report));
        return 1;
      }
    }
  }
  if (checked && !o.sarif.empty() &&
      !check::write_sarif(o.sarif, findings, err)) {
    usage_error(fmt::format("--sarif: {}", err));
    return 1;
  }
  if (ses.timeline) {
    if (!ses.timeline->write(o.timeline, err)) {
      usage_error(fmt::format("--timeline: {}", err));
      return 1;
    }
    std::fputs(fmt::format("bcusim: timeline written to {} (open it in "
                           "ui.perfetto.dev or chrome://tracing)\n",
                           o.timeline)
                   .c_str(),
               stderr);
  }
  if (first.exit != 0)
    return first.exit;
  return errors || gpu_failed || gpu_differ ? 1 : 0;
}

} // namespace

void add_run_command(CLI::App &app, Context &ctx) {
  auto o = std::make_shared<RunOptions>();
  auto *run =
      app.add_subcommand("run", "run PTX kernels on the CPU (SIMT engine)");
  // Per-launch options collect every occurrence; the callback assigns them
  // to launches by their position relative to --then.
  auto *file_opt =
      run->add_option("file", o->files, "PTX file (nvcc -ptx output)")
          ->required();
  auto *k_opt = run->add_option("-k,--kernel", o->kernels,
                                "kernel (.entry) name; optional when the "
                                "module has one kernel")
                    ->allow_extra_args(false);
  auto *g_opt =
      run->add_option("-g,--grid", o->grids, "grid dimensions X[,Y[,Z]]")
          ->required()
          ->allow_extra_args(false);
  auto *b_opt =
      run->add_option("-b,--block", o->blocks, "block dimensions X[,Y[,Z]]")
          ->required()
          ->allow_extra_args(false);
  auto *c_opt =
      run->add_option("--cluster", o->clusters, "cluster dimensions X[,Y[,Z]]")
          ->allow_extra_args(false);
  auto *s_opt = run->add_option("--shared-bytes", o->shared_bytes,
                                "dynamic (extern) shared memory per CTA, bytes")
                    ->allow_extra_args(false);
  auto *a_opt =
      run->add_option(
             "-a,--arg", o->args,
             "kernel argument, in order: TYPE:VALUE or TYPE[N][=INIT] with "
             "INIT zeros|iota|fill:V|rand:SEED|file:PATH, @I (buffer "
             "argument I again; arguments are numbered over the command "
             "line, @ references not counted), or {FIELD,...} (a structure "
             "by value, C layout; FIELD is TYPE:VALUE, @I or pad:N)")
          ->allow_extra_args(false);
  auto *then_opt = run->add_flag("--then")->description(
      "start the options of the next launch (launches run in order and "
      "share buffers)");
  auto *pdl_opt = run->add_flag("--pdl")->description(
      "programmatic dependent launch (griddepcontrol): with the first "
      "launch's options for every later launch, after --then for that "
      "launch");
  run->add_option(
         "--dump", o->dumps,
         "after the run, print buffer argument I (or write its bytes to FILE)")
      ->allow_extra_args(false);
  run->add_flag("--on-gpu", o->on_gpu,
                "run the launches on the GPU (CUDA driver, libcuda.so.1 or "
                "$BCUSIM_LIBCUDA) instead of bcusim; dumps as bcusim prints "
                "them");
  run->add_flag("--compare-gpu", o->compare_gpu,
                "run the launches on bcusim and on the GPU and compare each "
                "dump (identical, or its first differing element)");
  // --check, --schedule, --threads, ...: shared with `bcusim exec`.
  runtime::add_run_options(*run, *o);
  run->callback([o, &ctx, run, file_opt, k_opt, g_opt, b_opt, c_opt, s_opt,
                 a_opt, then_opt, pdl_opt] {
    o->launches.assign(1, {});
    size_t nf = 0, nk = 0, ng = 0, nb = 0, nc = 0, ns = 0, na = 0;
    for (const CLI::Option *op : run->parse_order()) {
      if (op == then_opt) {
        o->launches.emplace_back();
        continue;
      }
      auto &L = o->launches.back();
      if (op == pdl_opt)
        L.pdl = true;
      else if (op == file_opt && nf < o->files.size())
        L.files.push_back(o->files[nf++]);
      else if (op == k_opt && nk < o->kernels.size())
        L.kernels.push_back(o->kernels[nk++]);
      else if (op == g_opt && ng < o->grids.size())
        L.grids.push_back(o->grids[ng++]);
      else if (op == b_opt && nb < o->blocks.size())
        L.blocks.push_back(o->blocks[nb++]);
      else if (op == c_opt && nc < o->clusters.size())
        L.clusters.push_back(o->clusters[nc++]);
      else if (op == s_opt && ns < o->shared_bytes.size())
        L.shared_bytes.push_back(o->shared_bytes[ns++]);
      else if (op == a_opt && na < o->args.size())
        L.args.push_back(na++);
    }
    ctx.exit_code = run_command(*o);
  });
}

} // namespace bcusim::cli
