// `bcusim replay FILE`: replays a co-simulation trace through the barrier
// unit golden model (format: docs/bcu.md, "Replay format"). The work is in
// bcusim_bcu (bcu/replay.h); this only reads the file and reports.
#include <iostream>
#include <string>

#include "bcusim/bcu/replay.h"
#include "commands.h"

namespace bcusim::cli {

void add_replay_command(CLI::App &app, Context &ctx) {
  auto *cmd = app.add_subcommand(
      "replay", "Replay a barrier unit trace (warp events and expectations); "
                "exits 1 at the first parse error or failed expectation");
  auto path = std::make_shared<std::string>();
  cmd->add_option("FILE", *path, "trace file (docs/bcu.md, Replay format)")
      ->required();
  cmd->callback([path, &ctx] {
    std::string why;
    auto file = SourceFile::read(*path, why);
    if (!file) {
      std::cerr << "bcusim: error: cannot read '" << *path << "': " << why
                << "\n";
      ctx.exit_code = 1;
      return;
    }
    DiagnosticSink sink;
    bool ok = bcu::replay(*file, std::cout, sink);
    std::cout.flush();
    std::cerr << sink.render_all();
    ctx.exit_code = ok ? 0 : 1;
  });
}

} // namespace bcusim::cli
