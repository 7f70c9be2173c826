// The bcusim CLI is thin: each part registers its subcommands here and does
// its work in its library. A subcommand's callback stores the process exit
// status in Context::exit_code (0 ok, 1 a diagnosed failure of the input or
// the simulated program, 2 usage errors are CLI11's own).
#pragma once

#include <CLI/CLI.hpp>

namespace bcusim::cli {

struct Context {
  int exit_code = 0;
};

void add_isa_commands(CLI::App &app, Context &ctx);   // asm, disasm, isa
void add_replay_command(CLI::App &app, Context &ctx); // replay
void add_run_command(CLI::App &app, Context &ctx);    // run
void add_exec_command(CLI::App &app, Context &ctx);   // exec
void add_lower_command(CLI::App &app, Context &ctx);  // lower
void add_ptx_commands(CLI::App &app, Context &ctx);   // ptx check

} // namespace bcusim::cli
