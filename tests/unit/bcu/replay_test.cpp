// The replayer as a library: every shipped example trace holds, and
// failures stop at the right line.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "bcusim/bcu/replay.h"

namespace bcusim::bcu {
namespace {

bool run(const std::string &text, std::string &out, DiagnosticSink &sink) {
  auto file = SourceFile::from_string("t.trace", text);
  std::ostringstream os;
  bool ok = replay(*file, os, sink);
  out = os.str();
  return ok;
}

TEST(Replay, EveryExampleTraceHolds) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(BCUSIM_SOURCE_DIR) / "examples" / "replay";
  unsigned count = 0;
  for (const auto &entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".trace")
      continue;
    std::string why;
    auto file = SourceFile::read(entry.path().string(), why);
    ASSERT_TRUE(file) << why;
    DiagnosticSink sink;
    std::ostringstream os;
    EXPECT_TRUE(replay(*file, os, sink)) << entry.path() << "\n"
                                         << sink.render_all();
    ++count;
  }
  EXPECT_GE(count, 20u);
}

TEST(Replay, MismatchReportsLineAndColumn) {
  DiagnosticSink sink;
  std::string out;
  EXPECT_FALSE(run("cta 64\nwarp 1 : BAR.SYNC 0x2, 0x40 ;\n"
                   "expect warp 1 running\nwarp 0 : BAR.SYNC 0x2, 0x40 ;\n",
                   out, sink));
  ASSERT_EQ(sink.all().size(), 1u);
  EXPECT_EQ(sink.all()[0].loc.line, 3u);
  EXPECT_EQ(sink.all()[0].loc.col, 15u);
  EXPECT_NE(out.find("2: warp 1: "), std::string::npos);
  EXPECT_EQ(out.find("4: warp 0"), std::string::npos); // stopped at line 3
}

TEST(Replay, ReportsDeadlockAtTheEnd) {
  DiagnosticSink sink;
  std::string out;
  EXPECT_TRUE(
      run("cta 64\nwarp 0 : BAR.SYNC 0x0, 0x40 ;\nwarp 1 exit\n", out, sink));
  EXPECT_NE(out.find("end: barrier 0: 32 of 64 threads arrived, waiting {0}, "
                     "32 threads missing and cannot complete (deadlock)"),
            std::string::npos)
      << out;
}

} // namespace
} // namespace bcusim::bcu
