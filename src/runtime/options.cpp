// Run options shared by `bcusim run`, `bcusim exec` and the CUDA runtime
// stand-in (include/bcusim/runtime/options.h).
#include "bcusim/runtime/options.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace bcusim::runtime {

void add_run_options(CLI::App &app, RunOptions &o) {
  app.add_option("--max-steps", o.max_steps,
                 "stop after N warp-instructions per launch (0: no limit)");
  app.add_option("--stack-size", o.stack_size,
                 "per-thread stack for recursive device functions in bytes "
                 "(default 1024, cudaLimitStackSize; at most 262144)")
      ->check(CLI::Range(0u, 262144u));
  app.add_option("--schedule", o.schedule,
                 "rr (default), reverse, delay:W (warp W last) or "
                 "random:SEED (docs/engine.md \"Schedule\")");
  app.add_option("--time-limit", o.time_limit,
                 "wall-clock limit per launch in seconds (default 60; 0: "
                 "none)");
  app.add_option("--threads", o.threads,
                 "host threads running CTAs in parallel (default 1: "
                 "deterministic; 0: all cores)");
  app.add_flag("--verbose", o.verbose,
               "also print notes that do not fail the run");
  app.add_option("--check", o.check,
                 "checks: all, none, or a comma list of race, sync, init "
                 "(default: sync; docs/checker.md)");
  app.add_option("--report", o.report,
                 "write every diagnostic and finding as JSON to FILE");
  app.add_option("--explore", o.explore,
                 "run the launches under N schedules and report hazards "
                 "and results that differ (docs/checker.md)");
  app.add_flag("--warn-only", o.warn_only,
               "report barrier misuse the barrier unit survives as warnings "
               "and keep running (docs/barriers.md)");
  app.add_option("--sarif", o.sarif,
                 "write the findings as a SARIF 2.1.0 log to FILE "
                 "(docs/checker.md \"SARIF\")");
  app.add_option("--timeline", o.timeline,
                 "write a timeline of the run (Chrome / Perfetto trace "
                 "events) to FILE (docs/checker.md \"Timeline\")");
  app.add_option("--save-ptx", o.save_ptx,
                 "bcusim exec: write the PTX of the program's kernels to "
                 "DIR, so that every PTX location in a report can be opened");
}

void add_exec_options(CLI::App &app, RunOptions &o) {
  app.add_option("--error-exitcode", o.error_exitcode,
                 "exit status of the program when there were error findings "
                 "(default 0: the program's own status)");
}

std::vector<std::string> to_args(const RunOptions &o) {
  const RunOptions d;
  std::vector<std::string> a;
  auto opt = [&](const char *name, std::string value) {
    a.push_back(name);
    a.push_back(std::move(value));
  };
  if (o.max_steps != d.max_steps)
    opt("--max-steps", std::to_string(o.max_steps));
  if (o.stack_size != d.stack_size)
    opt("--stack-size", std::to_string(o.stack_size));
  if (o.schedule != d.schedule)
    opt("--schedule", o.schedule);
  if (o.time_limit != d.time_limit)
    opt("--time-limit", fmt::format("{}", o.time_limit));
  if (o.threads != d.threads)
    opt("--threads", std::to_string(o.threads));
  if (o.verbose)
    a.push_back("--verbose");
  if (!o.check.empty())
    opt("--check", o.check);
  if (!o.report.empty())
    opt("--report", o.report);
  if (o.explore != d.explore)
    opt("--explore", std::to_string(o.explore));
  if (o.warn_only)
    a.push_back("--warn-only");
  if (!o.sarif.empty())
    opt("--sarif", o.sarif);
  if (!o.timeline.empty())
    opt("--timeline", o.timeline);
  if (!o.save_ptx.empty())
    opt("--save-ptx", o.save_ptx);
  if (o.error_exitcode != d.error_exitcode)
    opt("--error-exitcode", std::to_string(o.error_exitcode));
  return a;
}

std::optional<RunOptions>
parse_run_options(const std::vector<std::string> &args, std::string &error) {
  RunOptions o;
  CLI::App app{"run options", "bcusim"};
  add_run_options(app, o);
  add_exec_options(app, o);
  std::vector<std::string> rev(args.rbegin(), args.rend());
  try {
    app.parse(rev);
  } catch (const CLI::ParseError &e) {
    error = e.what();
    return std::nullopt;
  }
  if (!app.remaining().empty()) {
    error = fmt::format("unexpected argument '{}'", app.remaining()[0]);
    return std::nullopt;
  }
  return o;
}

std::string to_env(const RunOptions &o) {
  std::string s;
  for (const auto &a : to_args(o))
    s += a + "\n";
  return s;
}

std::optional<RunOptions> from_env(const std::string &text,
                                   std::string &error) {
  std::vector<std::string> args;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos)
      nl = text.size();
    if (nl > pos)
      args.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return parse_run_options(args, error);
}

} // namespace bcusim::runtime
