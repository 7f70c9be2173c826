// `bcusim lower FILE.ptx [-k NAME] [--format text|json]`: the BCU
// instructions each PTX CTA barrier becomes (docs/barriers.md, "bcusim
// lower"). The work is engine::lower_listing; this is the CLI.
#include <cstdio>
#include <memory>
#include <string>

#include "bcusim/engine/lower.h"
#include "bcusim/ptx/ast.h"
#include "bcusim/ptx/instructions.h"
#include "commands.h"

namespace bcusim::cli {

namespace {
struct LowerOptions {
  std::string file;
  std::string kernel;
  std::string format = "text";
};

int lower_command(const LowerOptions &o) {
  DiagnosticSink sink;
  std::string err;
  auto src = SourceFile::read(o.file, err);
  if (!src) {
    sink.error(SourceLoc{}, err);
    std::fputs(sink.render_all().c_str(), stderr);
    return 1;
  }
  auto module = ptx::parse(src, sink);
  std::string out;
  bool ok =
      module && !sink.has_errors() && ptx::validate(*module, sink) &&
      engine::lower_listing(*module, o.kernel, o.format == "json", out, sink);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  std::fputs(sink.render_all().c_str(), stderr);
  return ok ? 0 : 1;
}
} // namespace

void add_lower_command(CLI::App &app, Context &ctx) {
  auto o = std::make_shared<LowerOptions>();
  auto *cmd = app.add_subcommand(
      "lower", "show the BCU instructions (text and 128-bit words) each PTX "
               "CTA barrier is lowered to");
  cmd->add_option("file", o->file, "PTX file")->required();
  cmd->add_option("-k,--kernel", o->kernel, "only this kernel (.entry)");
  cmd->add_option("--format", o->format, "text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->callback([o, &ctx] { ctx.exit_code = lower_command(*o); });
}

} // namespace bcusim::cli
