// ptx::validate and the facts table (docs/ptx-validation.md). The probes of
// tests/ptx-probes check the rules against ptxas; these tests check the
// parts around them: targets, versions, locations, the documented table.
#include "bcusim/ptx/instructions.h"

#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

namespace bcusim::ptx {
namespace {

std::string validate_text(const std::string &text, bool *ok = nullptr) {
  auto src = SourceFile::from_string("v.ptx", text);
  DiagnosticSink sink;
  auto m = parse(src, sink);
  EXPECT_TRUE(m) << sink.render_all();
  bool valid = m && validate(*m, sink);
  if (ok)
    *ok = valid;
  return sink.render_all();
}

TEST(PtxValidate, TargetsAndVersions) {
  EXPECT_EQ(parse_target("sm_90")->sm, 90);
  EXPECT_FALSE(parse_target("sm_90")->arch_specific);
  EXPECT_TRUE(parse_target("sm_90a")->arch_specific);
  EXPECT_EQ(parse_target("sm_100f")->sm, 100);
  EXPECT_FALSE(parse_target("compute_90"));
  EXPECT_FALSE(parse_target("sm_9x"));
  EXPECT_EQ(parse_version("7.8"), 78);
  EXPECT_EQ(parse_version("10.1"), 101);
  EXPECT_FALSE(parse_version("8"));
  EXPECT_FALSE(parse_version("8.10"));
}

TEST(PtxValidate, ErrorNamesInstructionRequirementAndLocation) {
  bool ok = true;
  std::string err =
      validate_text(".version 8.0\n.target sm_80\n.address_size 64\n"
                    ".visible .entry k()\n{\n  .reg .pred %p;\n"
                    "  elect.sync _|%p, -1;\n  ret;\n}\n",
                    &ok);
  EXPECT_FALSE(ok);
  EXPECT_EQ(err, "v.ptx:7:3: error: 'elect' requires .target sm_90 or higher "
                 "(the module's .target is sm_80)\n"
                 "  elect.sync _|%p, -1;\n"
                 "  ^~~~~~~~~~\n");
}

TEST(PtxValidate, VersionTooOldForTargetIsReportedAtTheTarget) {
  bool ok = true;
  std::string err =
      validate_text(".version 7.7\n.target sm_90\n.address_size 64\n", &ok);
  EXPECT_FALSE(ok);
  EXPECT_EQ(err, "v.ptx:2:9: error: PTX .version 7.7 does not support .target "
                 "sm_90 (it needs .version 7.8 or later)\n"
                 ".target sm_90\n"
                 "        ^~~~~\n");
}

TEST(PtxValidate, ValidModuleHasNoDiagnostics) {
  bool ok = false;
  std::string err =
      validate_text(".version 8.0\n.target sm_90\n.address_size 64\n"
                    ".visible .entry k()\n.reqnctapercluster 2\n{\n"
                    "  .reg .b32 %r<3>;\n  .reg .pred %p;\n"
                    "  barrier.cluster.arrive.release.aligned;\n"
                    "  barrier.cluster.wait.acquire.aligned;\n"
                    "  elect.sync %r1|%p, -1;\n  griddepcontrol.wait;\n"
                    "  mov.u32 %r2, %cluster_ctarank;\n  ret;\n}\n",
                    &ok);
  EXPECT_TRUE(ok);
  EXPECT_EQ(err, "");
}

// docs/ptx-validation.md lists every row of the table.
TEST(PtxValidate, EveryFeatureIsDocumented) {
  std::ifstream f(std::string(BCUSIM_SOURCE_DIR) + "/docs/ptx-validation.md");
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string doc = ss.str();
  ASSERT_FALSE(doc.empty());
  std::set<std::string> seen;
  for (const auto &ft : features()) {
    std::string key = std::string(ft.name);
    if (ft.kind == Feature::Kind::Modifier ||
        ft.kind == Feature::Kind::Directive)
      key = "." + key;
    if (ft.kind != Feature::Kind::Target)
      key = "`" + key + "`";
    EXPECT_NE(doc.find(key), std::string::npos) << key;
    if (ft.kind == Feature::Kind::Instruction ||
        ft.kind == Feature::Kind::Target) {
      EXPECT_TRUE(seen.insert(std::string(ft.name)).second)
          << "duplicate row " << ft.name;
    }
  }
}

} // namespace
} // namespace bcusim::ptx

namespace bcusim::ptx {
namespace {
TEST(PtxFacts, WhatOtherThreadsSee) {
  auto inst = [](std::string op, std::vector<std::string> mods) {
    Instruction in;
    in.opcode = std::move(op);
    in.modifiers = std::move(mods);
    return in;
  };
  EXPECT_TRUE(affects_other_threads(inst("ld", {"shared", "u32"})));
  EXPECT_TRUE(affects_other_threads(inst("atom", {"global", "add", "u32"})));
  EXPECT_TRUE(affects_other_threads(inst("bar", {"sync"})));
  EXPECT_TRUE(affects_other_threads(inst("mbarrier", {"try_wait", "b64"})));
  EXPECT_TRUE(affects_other_threads(inst("shfl", {"sync", "idx", "b32"})));
  EXPECT_TRUE(affects_other_threads(inst("ldmatrix", {"sync", "aligned"})));
  EXPECT_FALSE(affects_other_threads(inst("ld", {"param", "u64"})));
  EXPECT_FALSE(affects_other_threads(inst("st", {"local", "u32"})));
  EXPECT_FALSE(affects_other_threads(inst("add", {"s32"})));
  EXPECT_FALSE(affects_other_threads(inst("nanosleep", {"u32"})));
}
} // namespace
} // namespace bcusim::ptx
