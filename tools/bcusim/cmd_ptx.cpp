// `bcusim ptx check FILE.ptx...`, `bcusim ptx dump FILE.ptx` and `bcusim ptx
// table`: the PTX front end on its own (parse, report, print back) and its
// instruction table. See docs/ptx-frontend.md and docs/engine.md.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bcusim/ptx/ast.h"
#include "bcusim/ptx/instructions.h"
#include "commands.h"

namespace bcusim::cli {

namespace {

// Diagnostics point into the SourceFile: `src` keeps it alive until they are
// rendered, also when parsing fails and no Module holds it.
std::optional<ptx::Module> load(const std::string &path, DiagnosticSink &sink,
                                std::shared_ptr<const SourceFile> &src) {
  std::string err;
  src = SourceFile::read(path, err);
  if (!src) {
    sink.error(SourceLoc{}, err);
    return std::nullopt;
  }
  return ptx::parse(src, sink);
}

std::string plural(size_t n, const char *word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

} // namespace

void add_ptx_commands(CLI::App &app, Context &ctx) {
  auto *ptx_cmd = app.add_subcommand("ptx", "PTX front end: parse and check "
                                            "PTX without running it");
  ptx_cmd->require_subcommand(1);

  auto files = std::make_shared<std::vector<std::string>>();
  auto *check = ptx_cmd->add_subcommand(
      "check", "parse and validate PTX files (targets, versions, "
               "operands, as ptxas does); print a summary or diagnostics");
  check->add_option("files", *files, "PTX files")->required();
  check->callback([files, &ctx] {
    int status = 0;
    for (const std::string &path : *files) {
      DiagnosticSink sink;
      std::shared_ptr<const SourceFile> src;
      auto mod = load(path, sink, src);
      // Validation as ptxas does it (docs/ptx-validation.md).
      bool valid = mod && ptx::validate(*mod, sink);
      std::fputs(sink.render_all().c_str(), stderr);
      if (!valid) {
        status = 1;
        continue;
      }
      size_t kernels = 0, functions = 0, instructions = 0;
      for (const auto &f : mod->functions) {
        if (f.is_extern)
          continue;
        (f.is_entry ? kernels : functions) += 1;
        instructions += f.body.size();
      }
      std::printf("%s: ok: %s, %s, %s\n", path.c_str(),
                  plural(kernels, "kernel").c_str(),
                  plural(functions, "function").c_str(),
                  plural(instructions, "instruction").c_str());
    }
    ctx.exit_code = status;
  });

  auto dump_file = std::make_shared<std::string>();
  auto *dump = ptx_cmd->add_subcommand(
      "dump", "parse a PTX file and print it back as normalized PTX");
  dump->add_option("file", *dump_file, "PTX file")->required();
  dump->callback([dump_file, &ctx] {
    DiagnosticSink sink;
    std::shared_ptr<const SourceFile> src;
    auto mod = load(*dump_file, sink, src);
    std::fputs(sink.render_all().c_str(), stderr);
    if (!mod) {
      ctx.exit_code = 1;
      return;
    }
    std::fputs(ptx::print(*mod).c_str(), stdout);
    ctx.exit_code = 0;
  });

  auto *table = ptx_cmd->add_subcommand(
      "table", "print the PTX instruction table (docs/ptx-instructions.md)");
  auto markdown = std::make_shared<bool>(false);
  table->add_flag("--markdown", *markdown,
                  "as Markdown (the only format so far; the default)");
  table->callback([&ctx] {
    std::fputs(ptx::instruction_reference_markdown().c_str(), stdout);
    ctx.exit_code = 0;
  });
}

} // namespace bcusim::cli
