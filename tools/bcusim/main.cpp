// bcusim: ISA tools, barrier-unit golden model, PTX engine and checker.
#include <cstdio>
#include <exception>

#include "commands.h"

int main(int argc, char **argv) {
  CLI::App app{"bcusim - GPU thread-block synchronization, simulated exactly",
               "bcusim"};
  app.set_version_flag("--version", "bcusim 0.1.0");
  app.require_subcommand(1);
  bcusim::cli::Context ctx;
  bcusim::cli::add_isa_commands(app, ctx);
  bcusim::cli::add_replay_command(app, ctx);
  bcusim::cli::add_run_command(app, ctx);
  bcusim::cli::add_exec_command(app, ctx);
  bcusim::cli::add_lower_command(app, ctx);
  bcusim::cli::add_ptx_commands(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  } catch (const std::exception &e) {
    // Last line of defence: every part reports diagnostics itself; reaching
    // this is a bcusim bug, but the user still gets a message, not a crash.
    std::fprintf(stderr, "bcusim: internal error: %s\n", e.what());
    return 3;
  }
  return ctx.exit_code;
}
