// Placeholder: filled in by the issue that builds this subcommand.
#include "commands.h"

namespace bcusim::cli {

void add_ptx_commands(CLI::App &app, Context &ctx) {
  (void)app;
  (void)ctx;
}

} // namespace bcusim::cli
