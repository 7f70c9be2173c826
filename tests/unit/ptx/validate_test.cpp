// ptx::validate and the facts table (docs/ptx-validation.md). The probes of
// tests/ptx-probes check the rules against ptxas; these tests check the
// parts around them: targets, versions, locations, the documented table.
#include "bcusim/ptx/instructions.h"

#include <filesystem>
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

// What nvcc 13 emits validates: every committed input of tests/ptx-inputs
// (arith.cu covers the instruction types and operand forms the signatures
// check).
TEST(PtxValidate, EveryCommittedInputValidates) {
  int n = 0;
  for (const auto &e : std::filesystem::directory_iterator(
           std::filesystem::path(BCUSIM_SOURCE_DIR) / "tests/ptx-inputs")) {
    if (e.path().extension() != ".ptx")
      continue;
    SCOPED_TRACE(e.path().string());
    std::ifstream f(e.path());
    std::stringstream ss;
    ss << f.rdbuf();
    bool ok = false;
    EXPECT_EQ(validate_text(ss.str(), &ok), "");
    EXPECT_TRUE(ok);
    ++n;
  }
  EXPECT_GE(n, 9);
}

TEST(PtxValidate, OperandSignatures) {
  const std::string head = ".version 8.8\n.target sm_90\n.address_size 64\n"
                           ".visible .entry k()\n{\n"
                           ".reg .b32 %r<4>;\n.reg .f32 %f<4>;\n"
                           ".reg .b64 %rd<4>;\n.reg .b16 %h<4>;\n";
  auto check = [&](const std::string &line, bool *ok) {
    return validate_text(head + line + "\nret;\n}\n", ok);
  };
  bool ok = true;
  std::string err = check("add.u32 %r1, %r2;", &ok);
  EXPECT_FALSE(ok);
  EXPECT_NE(err.find("v.ptx:10:1: error: 'add.u32' takes 3 operands, 2 given"),
            std::string::npos)
      << err;
  err = check("add.b32 %r1, %r2, %r3;", &ok);
  EXPECT_FALSE(ok);
  EXPECT_NE(err.find("'add' does not take type .b32 (it takes .u16"),
            std::string::npos)
      << err;
  // The caret is under the operand at fault.
  err = check("add.u32 %r1, %f1, %r2;", &ok);
  EXPECT_FALSE(ok);
  EXPECT_NE(err.find("v.ptx:10:14: error: register '%f1' (.f32) does not "
                     "match the type .u32 of 'add.u32'"),
            std::string::npos)
      << err;
  // ld widens: a 32-bit register takes a byte, not the other way round.
  check("ld.global.u8 %r1, [%rd1];", &ok);
  EXPECT_TRUE(ok);
  err = check("ld.global.u32 %h1, [%rd1];", &ok);
  EXPECT_FALSE(ok);
  EXPECT_NE(err.find("a wider integer or bit-size register is allowed"),
            std::string::npos)
      << err;
  err = check("shl.b32 %r1, %r2, %f1;", &ok);
  EXPECT_FALSE(ok);
  EXPECT_NE(err.find("must be a 32-bit integer register"), std::string::npos)
      << err;
  err = check("div.f32 %f1, %f2, %f3;", &ok);
  EXPECT_FALSE(ok);
  EXPECT_NE(err.find("'div.f32' requires a rounding modifier"),
            std::string::npos)
      << err;
  err = check("ld.global.u32 %r1, [%f1];", &ok);
  EXPECT_FALSE(ok);
  EXPECT_NE(err.find("the address register '%f1' (.f32)"), std::string::npos)
      << err;
}

// docs/ptx-validation.md lists every opcode of the signature table.
TEST(PtxValidate, EverySignatureIsDocumented) {
  std::ifstream f(std::string(BCUSIM_SOURCE_DIR) + "/docs/ptx-validation.md");
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string doc = ss.str();
  const size_t at = doc.find("## Operand signatures");
  ASSERT_NE(at, std::string::npos);
  for (const auto &s : signatures()) {
    std::string key = "| `" + std::string(s.opcode);
    if (!s.modifier.empty())
      key += ".";
    for (char ch : s.modifier) // "test_wait parity" -> .test_wait.parity
      key += ch == ' ' ? '.' : ch;
    key += "` |";
    EXPECT_NE(doc.find(key, at), std::string::npos) << key;
  }
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
    resolve(in);
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

namespace bcusim::ptx {
namespace {
// The committed reference is what the rows produce; regenerate it with
// `build/bcusim ptx table --markdown > docs/ptx-instructions.md`.
TEST(PtxTable, ReferenceIsCurrent) {
  std::ifstream f(std::filesystem::path(BCUSIM_SOURCE_DIR) /
                  "docs/ptx-instructions.md");
  ASSERT_TRUE(f) << "docs/ptx-instructions.md is missing";
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(ss.str(), instruction_reference_markdown())
      << "docs/ptx-instructions.md differs from the instruction table; run "
         "`build/bcusim ptx table --markdown > docs/ptx-instructions.md`";
}

TEST(PtxTable, NamesResolveBothWays) {
  for (const OpInfo &row : opcode_rows()) {
    EXPECT_EQ(opcode_of(row.name), row.op) << row.name;
    EXPECT_EQ(name_of(row.op), row.name);
    EXPECT_EQ(&info(row.op), &row);
  }
  EXPECT_EQ(opcode_of("frobnicate"), Op::unknown);
  EXPECT_EQ(modifier_of("shared::cta"), Mod::shared_cta);
  EXPECT_EQ(name_of(Mod::and_), "and");
  EXPECT_EQ(modifier_of("no_such_modifier"), Mod::unknown);
  for (size_t i = 1; i < kModCount; ++i)
    EXPECT_EQ(modifier_of(name_of(static_cast<Mod>(i))), static_cast<Mod>(i));
}

TEST(PtxTable, ParserResolvesOnce) {
  DiagnosticSink sink;
  auto src = SourceFile::from_string(
      "t.ptx", ".version 8.0\n.target sm_90\n.address_size 64\n"
               ".visible .entry k()\n{\n"
               "  barrier.sync.aligned 0;\n  bar.warp.sync 1;\n"
               "  frob.wibble;\n}\n");
  auto m = parse(src, sink);
  ASSERT_TRUE(m) << sink.render_all();
  const auto &body = m->functions[0].body;
  ASSERT_EQ(body.size(), 3u);
  EXPECT_EQ(body[0].op, Op::barrier);
  EXPECT_TRUE(body[0].has(Mod::aligned));
  EXPECT_TRUE(body[0].has(Mod::sync));
  EXPECT_FALSE(body[0].has(Mod::warp));
  EXPECT_EQ(body[1].op, Op::bar);
  EXPECT_EQ(body[1].mods, (std::vector<Mod>{Mod::warp, Mod::sync}));
  EXPECT_EQ(body[2].op, Op::unknown);
  EXPECT_EQ(body[2].opcode, "frob");
  EXPECT_EQ(body[2].mods, std::vector<Mod>{Mod::unknown});
}

// Types and state spaces are enumerators too: the instruction's types in
// order, every declared type, and the space a modifier names.
TEST(PtxTable, ParserResolvesTypesAndSpaces) {
  DiagnosticSink sink;
  auto src = SourceFile::from_string(
      "t.ptx", ".version 8.0\n.target sm_90\n.address_size 64\n"
               ".global .f32 g[4];\n"
               ".visible .entry k(.param .u64 p)\n{\n"
               "  .reg .pred %p;\n  .reg .s32 %r;\n  .reg .f64 %d;\n"
               "  .shared .b8 s[16];\n"
               "  cvt.rn.f64.s32 %d, %r;\n"
               "  ld.shared::cta.u32 %r, [s];\n}\n");
  auto m = parse(src, sink);
  ASSERT_TRUE(m) << sink.render_all();
  EXPECT_EQ(m->globals[0].ty, Type::f32);
  const Function &f = m->functions[0];
  EXPECT_EQ(f.params[0].ty, Type::u64);
  ASSERT_EQ(f.regs.size(), 3u);
  EXPECT_EQ(f.regs[0].ty, Type::pred);
  EXPECT_EQ(f.regs[1].ty, Type::s32);
  EXPECT_EQ(f.regs[2].ty, Type::f64);
  EXPECT_EQ(f.locals[0].ty, Type::b8);
  EXPECT_EQ(f.body[0].types, (std::vector<Type>{Type::f64, Type::s32}));
  EXPECT_EQ(f.body[1].types, std::vector<Type>{Type::u32});
  EXPECT_EQ(space_of(f.body[1].mods[0]), Space::Shared);
  EXPECT_EQ(space_of(Mod::shared_cluster), Space::SharedCluster);
  EXPECT_EQ(space_of(Mod::param_entry), Space::Param);
  EXPECT_EQ(space_of(Mod::sync), Space::None);
}

// A register's width in the warp collectives' 32-bit rule is its type's
// size in the type table (docs/ptx-validation.md): .f16x2 is 32 bits.
TEST(PtxValidate, WarpCollectiveRegisterWidthFromTheTypeTable) {
  const std::string head = ".version 8.0\n.target sm_90\n.address_size 64\n"
                           ".visible .entry k()\n{\n"
                           "  .reg .f16x2 %h;\n  .reg .b64 %x;\n";
  bool ok = false;
  std::string out = validate_text(head + "  activemask.b32 %h;\n}\n", &ok);
  EXPECT_EQ(out.find("32-bit register"), std::string::npos) << out;
  out = validate_text(head + "  activemask.b32 %x;\n}\n", &ok);
  EXPECT_FALSE(ok);
  EXPECT_NE(out.find("must be a 32-bit register, not a 64-bit one"),
            std::string::npos)
      << out;
}

TEST(PtxTable, TypeRowsResolveBothWays) {
  for (const TypeInfo &row : type_rows()) {
    EXPECT_EQ(type_named(row.name), row.type) << row.name;
    EXPECT_EQ(name_of(row.type), row.name);
    EXPECT_EQ(&info(row.type), &row);
    EXPECT_EQ(type_bytes(row.name), row.bytes);
    // An instruction type is a modifier of the table too.
    if (row.instruction) {
      EXPECT_EQ(type_of(modifier_of(row.name)), row.type) << row.name;
    }
  }
  EXPECT_EQ(type_named("f17"), Type::unknown);
  EXPECT_EQ(type_of(Mod::sync), Type::unknown);
  EXPECT_EQ(info(Type::bf16x2).cls, 'x');
  EXPECT_TRUE(info(Type::tf32).is_float);
  EXPECT_FALSE(info(Type::u128).instruction);
}

// The validator matches instructions against the rows of features() and
// signatures() by enumerator: every name in them must be in the tables.
TEST(PtxTable, FeatureAndSignatureRowsResolve) {
  EXPECT_EQ(unresolved_row_names(), std::vector<std::string>{});
  EXPECT_EQ(feature_rows().size(), features().size());
  EXPECT_EQ(signature_rows().size(), signatures().size());
  for (const auto &r : feature_rows()) {
    if (r.row->kind == Feature::Kind::Instruction &&
        r.row->name == "cp.async.bulk") {
      EXPECT_EQ(r.name.op, Op::cp);
      EXPECT_EQ(r.name.mods, (std::vector<Mod>{Mod::async, Mod::bulk}));
    }
  }
}
} // namespace
} // namespace bcusim::ptx
