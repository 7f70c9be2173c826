// `bcusim run`: load a PTX module, allocate and fill the argument buffers,
// launch one kernel (or several in order, `--then`), print device printf
// output and the requested dumps.
//
//   bcusim run FILE.ptx [-k NAME] -g X[,Y[,Z]] -b X[,Y[,Z]]
//              [--cluster X[,Y[,Z]]] [--shared-bytes N] [-a ARG]... [--pdl]
//              [--then [FILE2.ptx] [-k NAME] -g ... -b ... [-a ARG|@I]...]...
//              [--dump I[=FILE]]... [--max-steps N] [--schedule S]
//              [--time-limit SECONDS] [--threads N] [--verbose]
//
// Exit status: 0 success; 1 the PTX does not compile, the launch does not
// fit the kernel, or the kernel faults / deadlocks / hits a limit; 2 a
// malformed command line. See docs/engine.md "bcusim run".
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bcusim/engine/args.h"
#include "bcusim/engine/engine.h"
#include "commands.h"

namespace bcusim::cli {

namespace {

// The per-launch options as CLI11 collects them (every occurrence, in
// order); the callback splits them into launches at each `--then` using
// the parse order.
struct RunOptions {
  std::vector<std::string> files;
  std::vector<std::string> kernels;
  std::vector<std::string> grids, blocks, clusters;
  std::vector<uint64_t> shared_bytes;
  std::vector<std::string> args;
  std::vector<std::string> dumps;
  uint64_t max_steps = 0;
  std::string schedule = "rr";
  double time_limit = 60;
  unsigned threads = 1;
  bool verbose = false;
  struct Launch {
    std::vector<std::string> files, kernels, grids, blocks, clusters;
    std::vector<uint64_t> shared_bytes;
    std::vector<size_t> args; // indices among all -a arguments
    bool pdl = false;
  };
  std::vector<Launch> launches;
  bool warn_only = false;
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
    // --pdl with the first launch's options: every later launch is a
    // programmatic dependent of the one before; after --then: that launch.
    lp.cfg.has_prerequisite = li > 0 && (L.pdl || o.launches[0].pdl);
    lp.args = L.args;
    plans.push_back(std::move(lp));
  }
  auto sched = Schedule::parse(o.schedule);
  if (!sched) {
    usage_error(
        fmt::format("--schedule: '{}' is not rr or random:SEED", o.schedule));
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
    specs.push_back(std::move(*a));
    spec_text.push_back(t);
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
  struct Dump {
    size_t index;
    std::string file;
  };
  std::vector<Dump> dumps;
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

  // The modules: each file is loaded once, so launches of one module share
  // its .global variables (like one CUmodule).
  std::map<std::string, std::unique_ptr<Module>> modules;
  for (size_t li = 0; li < plans.size(); ++li) {
    LaunchPlan &lp = plans[li];
    auto it = modules.find(lp.file);
    if (it == modules.end()) {
      DiagnosticSink sink;
      auto module = Module::load_file(lp.file, sink);
      std::fputs(sink.render_all().c_str(), stderr);
      if (!module)
        return 1;
      it = modules.emplace(lp.file, std::move(module)).first;
    }
    lp.module = it->second.get();
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
        return names.empty() ? 1 : 2;
      }
      lp.kernel = names[0];
    } else if (std::find(names.begin(), names.end(), lp.kernel) ==
               names.end()) {
      usage_error(fmt::format("{}-k: no kernel named '{}' in {} (kernels: {})",
                              pre, lp.kernel, lp.file,
                              list.empty() ? "none" : list));
      return 2;
    }
  }

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
      return 2;
    }
    ptrs[i] = dev.alloc(bytes->size());
    dev.write(ptrs[i], bytes->data(), bytes->size());
  }

  // The launches, in order; each one completes before the next starts.
  for (size_t li = 0; li < plans.size(); ++li) {
    LaunchPlan &lp = plans[li];
    std::vector<KernelArg> kargs;
    for (size_t k : lp.args) {
      const size_t i = number_of[k];
      const ArgSpec &s = specs[i];
      if (!s.is_buffer) {
        KernelArg a = KernelArg::raw(s.scalar.data(), s.scalar.size());
        a.is_float = is_float(s.type);
        a.is_signed = is_signed(s.type);
        kargs.push_back(std::move(a));
        continue;
      }
      kargs.push_back(KernelArg::ptr(ptrs[i]));
    }
    LaunchConfig cfg = lp.cfg;
    cfg.max_steps = o.max_steps;
    cfg.time_limit_s = o.time_limit;
    cfg.schedule = *sched;
    cfg.host_threads = o.threads;
    cfg.warn_only = o.warn_only;
    RunReport r = dev.launch(*lp.module, lp.kernel, cfg, kargs);
    std::fwrite(r.printf_output.data(), 1, r.printf_output.size(), stdout);
    if (o.verbose && !r.notes.empty()) {
      std::fflush(stdout);
      for (const auto &n : r.notes)
        std::fputs(render(n).c_str(), stderr);
    }
    if (!r.ok()) {
      std::fflush(stdout);
      std::fputs(r.diagnostics_text().c_str(), stderr);
      if (plans.size() > 1)
        std::fputs(fmt::format("bcusim: note: launch {} (kernel '{}', 0-based "
                               "among {} launches) failed; later launches "
                               "did not run\n",
                               li, lp.kernel, plans.size())
                       .c_str(),
                   stderr);
      return 1;
    }
    if (!r.diagnostics.empty()) // --warn-only warnings
      std::fputs(r.diagnostics_text().c_str(), stderr);
  }
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
             "INIT zeros|iota|fill:V|rand:SEED|file:PATH, or @I (buffer "
             "argument "
             "I again; arguments are numbered over the command line, @ "
             "references not counted)")
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
  run->add_option("--max-steps", o->max_steps,
                  "stop after N warp-instructions per launch (0: no limit)");
  run->add_option("--schedule", o->schedule, "rr (default) or random:SEED");
  run->add_option("--time-limit", o->time_limit,
                  "wall-clock limit per launch in seconds (default 60; 0: "
                  "none)");
  run->add_option("--threads", o->threads,
                  "host threads running CTAs in parallel (default 1: "
                  "deterministic; 0: all cores)");
  run->add_flag("--verbose", o->verbose,
                "also print notes that do not fail the run");
  run->add_flag("--warn-only", o->warn_only,
                "report barrier misuse the barrier unit survives as warnings "
                "and keep running (docs/barriers.md)");
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
