// The session layer under `bcusim run` and `bcusim exec`
// (include/bcusim/runtime/session.h), without a CUDA program.
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "bcusim/runtime/session.h"

using namespace bcusim;

namespace {

std::string read_exec(const std::string &name) {
  std::ifstream in(std::string(BCUSIM_SOURCE_DIR) + "/tests/exec/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace

// Loading validates as ptxas does: a form that needs sm_90 in an sm_80
// module is refused before it compiles.
TEST(Session, LoadValidatesAsPtxas) {
  DiagnosticSink sink;
  // The diagnostics point into the source: it outlives them.
  auto src = SourceFile::from_string("k.ptx",
                                     ".version 8.0\n.target sm_80\n"
                                     ".address_size 64\n"
                                     ".visible .entry k()\n{\n"
                                     "\tbarrier.cluster.arrive;\n\tret;\n}\n");
  auto bad = runtime::load_module(src, sink);
  EXPECT_FALSE(bad);
  EXPECT_NE(sink.render_all().find("sm_90"), std::string::npos)
      << sink.render_all();
  DiagnosticSink ok;
  auto good = SourceFile::from_string("streams.ptx", read_exec("streams.ptx"));
  EXPECT_TRUE(runtime::load_module(good, ok)) << ok.render_all();
}

// Launches in two streams that nothing orders race; the session's findings
// and summary say so, and an event orders them.
TEST(Session, LaunchesInStreams) {
  std::string err;
  check::Checks checks = *check::Checks::parse("race", err);
  runtime::RunOptions options;
  runtime::Session s(checks, engine::Schedule{}, options);
  DiagnosticSink sink;
  auto src = SourceFile::from_string("streams.ptx", read_exec("streams.ptx"));
  auto m = runtime::load_module(src, sink);
  ASSERT_TRUE(m) << sink.render_all();
  engine::Device dev;
  dev.map_module(*m);
  const uint64_t buf = dev.alloc(256 * 4, "buf"), out = dev.alloc(256 * 4);
  engine::LaunchConfig cfg;
  cfg.grid = {2};
  cfg.block = {128};
  const std::vector<engine::KernelArg> pargs = {engine::KernelArg::ptr(buf),
                                                engine::KernelArg::u32(1)};
  const std::vector<engine::KernelArg> cargs = {engine::KernelArg::ptr(buf),
                                                engine::KernelArg::ptr(out)};
  auto &order = s.streams();
  auto s1 = order.create(), s2 = order.create();
  auto a = s.launch(dev, *m, "produce", cfg, pargs, s1);
  EXPECT_TRUE(a.report.ok());
  auto b = s.launch(dev, *m, "consume", cfg, cargs, s2);
  EXPECT_TRUE(b.report.ok());
  ASSERT_EQ(s.findings().size(), 1u);
  EXPECT_EQ(s.findings()[0].kind, check::FindingKind::DataRace);
  EXPECT_NE(s.findings()[0].diag.message.find("between streams"),
            std::string::npos);
  EXPECT_EQ(s.summary_line(),
            "bcusim: check (race): 1 data-race in 2 launches: 1 error, 0 "
            "warnings");
  EXPECT_EQ(s.summary_line(false),
            "bcusim: check (race): 1 data-race: 1 error, 0 warnings");
  order.host_sync_all();
  s.launch(dev, *m, "produce", cfg, pargs, s1);
  order.wait(s2, order.record(s1));
  s.launch(dev, *m, "consume", cfg, cargs, s2);
  EXPECT_EQ(s.errors(), 1u);
  // A memset in stream 1 then races with the reads of stream 2's kernel
  // that nothing orders after it.
  s.begin_work(s1, "cudaMemsetAsync");
  s.work_access(buf, 256 * 4, true);
  EXPECT_EQ(s.end_work(), 1u);
  EXPECT_EQ(s.errors(), 2u);
}
