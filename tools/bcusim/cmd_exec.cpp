// `bcusim exec [RUN-OPTIONS] PROGRAM [ARGS...]`: run an unmodified CUDA
// program with every kernel executed by bcusim (docs/exec.md). Everything
// after PROGRAM is the program's.
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

#include "bcusim/runtime/exec.h"
#include "bcusim/runtime/options.h"
#include "commands.h"

namespace bcusim::cli {

void add_exec_command(CLI::App &app, Context &ctx) {
  auto o = std::make_shared<runtime::RunOptions>();
  auto *exec = app.add_subcommand(
      "exec", "run a CUDA program (built with nvcc -cudart shared) with its "
              "kernels in bcusim");
  exec->prefix_command(); // PROGRAM and what follows are the program's
  exec->footer("Usage: bcusim exec [RUN-OPTIONS] PROGRAM [ARGS...]\n"
               "PROGRAM [ARGS...] follow the options; the program's own "
               "arguments are passed on untouched.");
  runtime::add_run_options(*exec, *o);
  runtime::add_exec_options(*exec, *o);
  exec->callback([o, &ctx, exec] {
    std::vector<std::string> argv = exec->remaining();
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    std::string path = n > 0 ? std::string(self, size_t(n)) : "";
    ctx.exit_code = runtime::exec_program(*o, argv, runtime::cudart_dir(path));
  });
}

} // namespace bcusim::cli
