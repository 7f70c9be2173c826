// The run options every launch of `bcusim run` and `bcusim exec` takes
// (--check, --schedule, --threads, --time-limit, --max-steps, --report,
// --explore, --warn-only, --verbose, --sarif, --timeline, --save-ptx), defined
// once: both subcommands add them with add_run_options, and the CUDA runtime
// stand-in reads the same options from the environment variable BCUSIM_OPTIONS
// (docs/exec.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace bcusim::runtime {

struct RunOptions {
  uint64_t max_steps = 0;
  // The per-thread stack for recursive device functions
  // (cudaLimitStackSize; under exec the program's cudaDeviceSetLimit
  // changes it; docs/engine.md "Recursion").
  uint32_t stack_size = 1024;
  std::string schedule = "rr";
  double time_limit = 60;
  unsigned threads = 1;
  bool verbose = false;
  std::string check;  // empty: the default checks
  std::string report; // JSON report file; empty: none
  unsigned explore = 0;
  bool warn_only = false;
  std::string sarif;    // SARIF 2.1.0 log of the findings; empty: none
  std::string timeline; // Chrome / Perfetto trace of the run; empty: none
  std::string save_ptx; // exec: folder the program's PTX is written to
  // `bcusim exec --error-exitcode N`: the program's exit status becomes N
  // when there were error findings (0: the program's own status).
  int error_exitcode = 0;
};

// Adds the options to a CLI11 (sub)command, storing into `o`.
void add_run_options(CLI::App &app, RunOptions &o);
// The options only `bcusim exec` takes (--error-exitcode).
void add_exec_options(CLI::App &app, RunOptions &o);
// The options as command-line arguments (only those that differ from the
// defaults); parse_run_options(to_args(o)) == o.
std::vector<std::string> to_args(const RunOptions &o);
// Parses arguments written by to_args (or by a user); nullopt and `error`
// on bad input.
std::optional<RunOptions>
parse_run_options(const std::vector<std::string> &args, std::string &error);

// The environment variable `bcusim exec` passes the options in: one
// argument per line.
inline constexpr const char *kOptionsEnv = "BCUSIM_OPTIONS";
std::string to_env(const RunOptions &o);
std::optional<RunOptions> from_env(const std::string &text, std::string &error);

} // namespace bcusim::runtime
