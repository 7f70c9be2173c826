// The report outputs (include/bcusim/check/output.h): the SARIF 2.1.0 log
// checked for what the specification requires of it, and the timeline of
// a real launch checked for well-formed Chrome trace events.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "bcusim/check/output.h"
#include "bcusim/engine/engine.h"

namespace bcusim::check {
namespace {

using nlohmann::json;

// A JSON-schema-like check of the SARIF 2.1.0 properties a consumer
// relies on (SARIF 2.1.0, sections 3.13 sarifLog, 3.14 run, 3.18 tool,
// 3.19 toolComponent, 3.49 reportingDescriptor, 3.27 result, 3.28
// location, 3.29 physicalLocation, 3.30 region). Returns what is wrong.
std::vector<std::string> sarif_problems(const json &log) {
  std::vector<std::string> bad;
  auto need = [&](bool ok, const std::string &what) {
    if (!ok)
      bad.push_back(what);
    return ok;
  };
  need(log.value("version", "") == "2.1.0", "version is \"2.1.0\"");
  need(log.contains("$schema") && log["$schema"].is_string() &&
           log["$schema"].get<std::string>().find("sarif") != std::string::npos,
       "$schema names the SARIF schema");
  if (!need(log.contains("runs") && log["runs"].is_array() &&
                !log["runs"].empty(),
            "runs is a non-empty array"))
    return bad;
  for (const auto &run : log["runs"]) {
    if (!need(run.contains("tool") && run["tool"].contains("driver"),
              "run.tool.driver"))
      continue;
    const auto &driver = run["tool"]["driver"];
    need(driver.value("name", "") == "bcusim", "driver.name");
    std::set<std::string> ids;
    if (need(driver.contains("rules") && driver["rules"].is_array(),
             "driver.rules is an array"))
      for (const auto &r : driver["rules"]) {
        need(r.contains("id") && r["id"].is_string(), "rule.id");
        need(ids.insert(r.value("id", "")).second, "rule ids are unique");
        need(r.contains("shortDescription") &&
                 r["shortDescription"].contains("text"),
             "rule.shortDescription.text");
      }
    if (!need(run.contains("results") && run["results"].is_array(),
              "run.results is an array"))
      continue;
    for (const auto &r : run["results"]) {
      need(r.contains("ruleId") && ids.count(r.value("ruleId", "")),
           "result.ruleId names a rule");
      if (r.contains("ruleIndex"))
        need(r["ruleIndex"].is_number_unsigned() &&
                 r["ruleIndex"].get<size_t>() < driver["rules"].size() &&
                 driver["rules"][r["ruleIndex"].get<size_t>()]["id"] ==
                     r["ruleId"],
             "result.ruleIndex points at its rule");
      const std::string level = r.value("level", "");
      need(level == "error" || level == "warning" || level == "note" ||
               level == "none",
           "result.level is error, warning, note or none");
      need(r.contains("message") && r["message"].contains("text") &&
               r["message"]["text"].is_string(),
           "result.message.text");
      auto check_loc = [&](const json &l) {
        if (!need(l.contains("physicalLocation"), "location.physical"))
          return;
        const auto &p = l["physicalLocation"];
        need(p.contains("artifactLocation") &&
                 p["artifactLocation"].contains("uri") &&
                 p["artifactLocation"]["uri"].is_string() &&
                 p["artifactLocation"]["uri"].get<std::string>().find(' ') ==
                     std::string::npos,
             "artifactLocation.uri is a URI");
        need(p.contains("region") && p["region"]["startLine"].is_number() &&
                 p["region"]["startLine"].get<int>() >= 1,
             "region.startLine >= 1");
        need(p["region"]["startColumn"].is_number() &&
                 p["region"]["startColumn"].get<int>() >= 1,
             "region.startColumn >= 1");
      };
      if (r.contains("locations"))
        for (const auto &l : r["locations"])
          check_loc(l);
      if (r.contains("relatedLocations"))
        for (const auto &l : r["relatedLocations"]) {
          check_loc(l);
          need(l.contains("id"), "relatedLocation.id");
        }
    }
  }
  return bad;
}

Finding race_finding(const SourceFile &ptx) {
  Finding f;
  f.kind = FindingKind::DataRace;
  f.kernel = "_Z10neighboursPii";
  f.diag.message = "data race: read-after-write (RAW) on .global";
  for (uint32_t line : {30u, 34u}) {
    Site s;
    s.pc = line;
    s.text = "st.global.u32";
    s.ptx = SourceLoc{&ptx, line, 2, 13};
    s.ptx_file = ptx.name();
    s.cuda_file = "dir with space/k.cu";
    s.cuda_line = line - 20;
    s.cuda_col = 5;
    s.access = "write of 4 bytes";
    f.sites.push_back(s);
  }
  f.instances = 7;
  return f;
}

TEST(Sarif, LogHasWhatTheSpecificationRequires) {
  auto ptx = SourceFile::from_string("k.ptx", std::string(40, '\n'));
  std::vector<Finding> fs{race_finding(*ptx)};
  Finding w;
  w.kind = FindingKind::BarrierDivergence;
  w.severity = Severity::Warning;
  w.diag.message = "barrier divergence";
  fs.push_back(w); // no site: no location
  json log = sarif_log(fs, "1.0");
  EXPECT_EQ(sarif_problems(log), std::vector<std::string>{});
  const json &res = log["runs"][0]["results"];
  ASSERT_EQ(res.size(), 2u);
  EXPECT_EQ(res[0]["ruleId"], "data-race");
  EXPECT_EQ(res[0]["level"], "error");
  EXPECT_EQ(res[1]["level"], "warning");
  EXPECT_FALSE(res[1].contains("locations"));
  const json &loc = res[0]["locations"][0]["physicalLocation"];
  // Source first: the CUDA line of the later access; the name is a URI.
  EXPECT_EQ(loc["artifactLocation"]["uri"], "dir%20with%20space/k.cu");
  EXPECT_EQ(loc["region"]["startLine"], 14);
  EXPECT_EQ(loc["region"]["startColumn"], 5);
  // The PTX instruction and the first access are related locations.
  ASSERT_EQ(res[0]["relatedLocations"].size(), 3u);
  EXPECT_EQ(res[0]["relatedLocations"][0]["physicalLocation"]
               ["artifactLocation"]["uri"],
            "k.ptx");
  EXPECT_EQ(res[0]["properties"]["kernel"], "neighbours(int*, int)");
  EXPECT_EQ(res[0]["properties"]["instances"], 7);
  EXPECT_EQ(log["runs"][0]["tool"]["driver"]["rules"].size(), 2u);
}

TEST(Sarif, TheCheckRejectsWhatTheSpecificationForbids) {
  auto ptx = SourceFile::from_string("k.ptx", std::string(40, '\n'));
  json log = sarif_log({race_finding(*ptx)});
  json broken = log;
  broken["version"] = "2.0.0";
  EXPECT_FALSE(sarif_problems(broken).empty());
  broken = log;
  broken["runs"][0]["results"][0]["ruleId"] = "no-such-rule";
  EXPECT_FALSE(sarif_problems(broken).empty());
  broken = log;
  broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
        ["startLine"] = 0;
  EXPECT_FALSE(sarif_problems(broken).empty());
}

// Two warps: each thread writes its word of shared memory, waits at a
// barrier, then reads its neighbour's word (clean), then writes the
// neighbour's word of the other warp without a barrier (a race).
const char *kPtx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .shared .align 4 .b8 s[256];
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  add.u32 %r5, %r1, 1;
  rem.u32 %r6, %r5, 64;
  shl.b32 %r7, %r6, 2;
  add.u32 %r8, %r3, %r7;
  ld.shared.u32 %r9, [%r8];
  add.u32 %r5, %r1, 32;
  rem.u32 %r6, %r5, 64;
  shl.b32 %r7, %r6, 2;
  add.u32 %r8, %r3, %r7;
  st.shared.u32 [%r8], %r9;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r9;
  ret;
}
)";

TEST(Timeline, TraceEventsAreWellFormed) {
  DiagnosticSink sink;
  auto module = engine::Module::load_string("k.ptx", kPtx, sink);
  ASSERT_TRUE(module) << sink.render_all();
  std::string err;
  Checker checker(*Checks::parse("race", err));
  Timeline timeline(&checker);
  engine::Device dev;
  auto out = dev.alloc(64 * 4);
  engine::LaunchConfig cfg;
  cfg.grid = {2, 1, 1};
  cfg.block = {64, 1, 1};
  cfg.observers = {&checker, &timeline};
  auto r = dev.launch(*module, "k", cfg, {engine::KernelArg::ptr(out)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  ASSERT_FALSE(checker.findings().empty());

  json trace = timeline.trace();
  ASSERT_TRUE(trace["traceEvents"].is_array());
  std::map<std::pair<int, int>, int> open; // B/E nesting per track
  int waits = 0, findings = 0, warps = 0, names = 0;
  for (const auto &e : trace["traceEvents"]) {
    for (const char *key : {"ph", "ts", "pid", "tid", "name"})
      ASSERT_TRUE(e.contains(key)) << key << " missing in " << e.dump();
    ASSERT_TRUE(e["ts"].is_number_unsigned()) << e.dump();
    ASSERT_TRUE(e["pid"].is_number_integer()) << e.dump();
    ASSERT_TRUE(e["tid"].is_number_integer()) << e.dump();
    ASSERT_TRUE(e["name"].is_string()) << e.dump();
    const std::string ph = e["ph"];
    ASSERT_TRUE(ph == "B" || ph == "E" || ph == "X" || ph == "i" || ph == "C" ||
                ph == "M")
        << e.dump();
    auto track = std::make_pair(e["pid"].get<int>(), e["tid"].get<int>());
    if (ph == "B")
      ++open[track];
    if (ph == "E") {
      ASSERT_GE(--open[track], 0) << "E without B: " << e.dump();
    }
    if (ph == "X") {
      ASSERT_TRUE(e.contains("dur") && e["dur"].is_number_unsigned());
    }
    if (ph == "C") {
      ASSERT_TRUE(e.contains("args") && e["args"].is_object());
    }
    if (ph == "M")
      names += e["name"] == "thread_name" || e["name"] == "process_name";
    if (ph == "X" && e["name"] == "barrier 0 wait")
      ++waits;
    if (ph == "X" && e["name"] == "running")
      ++warps;
    if (ph == "i" && e.value("cat", "") == "finding")
      ++findings;
  }
  for (const auto &[track, n] : open)
    EXPECT_EQ(n, 0) << "unclosed span on " << track.first << "/"
                    << track.second;
  EXPECT_EQ(warps, 4);               // 2 CTAs of 2 warps
  EXPECT_EQ(waits, 4);               // each warp waited at bar.sync 0 once
  EXPECT_EQ(names, 2 * (1 + 1 + 2)); // per CTA: process, CTA, 2 warps
  EXPECT_EQ(size_t(findings), checker.findings().size());
  // It serializes (what --timeline writes).
  EXPECT_NO_THROW(json::parse(trace.dump()));
}

// The engine's own diagnostics become findings after their launch ended
// (a trap here): each is an instant at the launch's last tick, across the
// tracks of a process the launch named.
TEST(Timeline, EngineFindingsAreInstants) {
  const char *ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry t()
{
  trap;
}
)";
  DiagnosticSink sink;
  auto module = engine::Module::load_string("t.ptx", ptx, sink);
  ASSERT_TRUE(module) << sink.render_all();
  Timeline timeline;
  engine::Device dev;
  engine::LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {32, 1, 1};
  cfg.observers = {&timeline};
  auto r = dev.launch(*module, "t", cfg, {});
  ASSERT_EQ(r.status, engine::RunStatus::Trap);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].kind, engine::RunProblem::Trap);
  Finding f;
  f.kind = FindingKind::Fault;
  f.diag = r.diagnostics[0];
  f.sites.push_back(site_at(r.diagnostics[0].loc, *module));
  EXPECT_EQ(f.sites[0].text, "trap");
  timeline.add_finding(f);
  json trace = timeline.trace();
  std::set<int> named;
  const json *instant = nullptr;
  for (const auto &e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name")
      named.insert(e["pid"].get<int>());
    if (e["ph"] == "i" && e.value("cat", "") == "finding")
      instant = &e;
  }
  ASSERT_NE(instant, nullptr);
  EXPECT_EQ((*instant)["name"], "fault at t.ptx:6");
  EXPECT_EQ((*instant)["s"], "g");
  EXPECT_LT((*instant)["ts"].get<uint64_t>(), timeline.now());
  EXPECT_TRUE(named.count((*instant)["pid"].get<int>()));
}

// A bulk copy tracked by an mbarrier (tests/golden/mbarrier/bulk_group.ptx):
// the phase, the transaction count and the copy in flight are on the
// CTA's track.
TEST(Timeline, MbarrierPhasesTransactionsAndCopies) {
  std::string err;
  auto src = SourceFile::read(std::string(BCUSIM_SOURCE_DIR) +
                                  "/tests/golden/mbarrier/bulk_group.ptx",
                              err);
  ASSERT_TRUE(src) << err;
  DiagnosticSink sink;
  auto module =
      engine::Module::load_string("bulk_group.ptx", src->text(), sink);
  ASSERT_TRUE(module) << sink.render_all();
  Timeline timeline;
  engine::Device dev;
  auto in = dev.alloc(64 * 4), out = dev.alloc(64 * 4);
  engine::LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {32, 1, 1};
  cfg.observer = &timeline;
  auto names = module->kernel_names();
  ASSERT_EQ(names.size(), 1u);
  auto r =
      dev.launch(*module, names[0], cfg,
                 {engine::KernelArg::ptr(in), engine::KernelArg::ptr(out)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  std::vector<int64_t> pending, copies;
  int phases = 0;
  const json trace = timeline.trace();
  for (const auto &e : trace["traceEvents"]) {
    const std::string name = e["name"];
    if (e["ph"] == "C" && name.find("tx-count") != std::string::npos)
      pending.push_back(e["args"]["pending bytes"]);
    if (e["ph"] == "C" && name == "async copies in flight")
      copies.push_back(e["args"]["copies"]);
    if (e["ph"] == "i" && name.find("phase 0 complete") != std::string::npos &&
        name.find("mbarrier") != std::string::npos)
      ++phases;
  }
  // init (0), arrive.expect_tx (128 bytes), the copy completes them (0).
  EXPECT_EQ(pending, (std::vector<int64_t>{0, 128, 0}));
  // The load, then the bulk_group copy that writes the result back.
  EXPECT_EQ(copies, (std::vector<int64_t>{1, 0, 1, 0}));
  EXPECT_EQ(phases, 1);
}

// Just what the progress line reads.
class CountingView final : public engine::LaunchView {
public:
  std::string_view kernel() const override { return "_Z4tilePi"; }
  engine::Dim3 grid() const override { return {4, 1, 1}; }
  engine::Dim3 block() const override { return {32, 1, 1}; }
  engine::Dim3 cluster() const override { return {1, 1, 1}; }
  uint32_t shared_bytes() const override { return 0; }
  uint32_t local_bytes() const override { return 0; }
  SourceLoc ptx_loc(uint32_t) const override { return {}; }
  std::string_view text(uint32_t) const override { return ""; }
  engine::CudaLoc cuda_loc(uint32_t) const override { return {}; }
  std::string describe(engine::StateSpace, uint64_t) const override {
    return "";
  }
  engine::Dim3 cta_id(uint64_t) const override { return {}; }
  uint64_t grid_workspace() const override { return 0; }
  uint64_t thread_steps() const override { return 3'000'000; }
};

TEST(Progress, LineCountsCtasRateAndFindings) {
  std::string err;
  Checker checker(*Checks::parse("race", err));
  Progress p(&checker, 1e9); // never drawn in this test
  EXPECT_FALSE(p.wants_accesses());
  EXPECT_TRUE(p.concurrent());
  CountingView v;
  p.on_launch_begin(v);
  engine::CtaEvent e;
  p.on_cta_end(e);
  p.on_cta_end(e);
  EXPECT_EQ(p.line(2.0), "bcusim: tile(int*): 2 of 4 CTAs done, 1.5 M "
                         "thread-instructions/s, 2 s, 0 findings so far");
  p.on_launch_end(v);
}

} // namespace
} // namespace bcusim::check
