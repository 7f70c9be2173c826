// The PTX parser: every committed input parses, and the AST holds what the
// text says (registers and scopes, labels, operands, literals, directives,
// parameters, initializers, symbol resolution, locations, diagnostics).
#include "bcusim/ptx/ast.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bcusim::ptx {
namespace {

using K = Operand::Kind;
using S = Operand::SymbolKind;

struct Parsed {
  std::shared_ptr<const SourceFile> src;
  DiagnosticSink sink;
  std::optional<Module> mod;
};

std::unique_ptr<Parsed> parse_text(const std::string &text) {
  auto p = std::make_unique<Parsed>();
  p->src = SourceFile::from_string("t.ptx", text);
  p->mod = parse(p->src, p->sink);
  return p;
}

const std::string kHeader = ".version 9.0\n.target sm_90\n.address_size 64\n";

// Parses one kernel body; fails the test on diagnostics.
std::unique_ptr<Parsed> parse_body(const std::string &body,
                                   const std::string &params = "") {
  auto p = parse_text(kHeader + ".visible .entry k(" + params + ")\n{\n" +
                      body + "\n}\n");
  EXPECT_TRUE(p->mod.has_value()) << p->sink.render_all();
  return p;
}

const Function &kernel(const Parsed &p) { return *p.mod->find_function("k"); }

std::string only_error(const Parsed &p) {
  EXPECT_FALSE(p.mod.has_value());
  EXPECT_GE(p.sink.error_count(), 1u);
  if (p.sink.all().empty())
    return "";
  const Diagnostic &d = p.sink.all().front();
  return std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ":" +
         std::to_string(d.loc.length) + ": " + d.message;
}

std::string read_file(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::filesystem::path> inputs() {
  std::vector<std::filesystem::path> out;
  for (const auto &e : std::filesystem::directory_iterator(
           std::filesystem::path(BCUSIM_SOURCE_DIR) / "tests/ptx-inputs"))
    if (e.path().extension() == ".ptx")
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// ---------------------------------------------------------------------------
// Whole inputs
// ---------------------------------------------------------------------------

TEST(PtxParser, EveryCommittedInputParsesAndRoundTrips) {
  auto files = inputs();
  ASSERT_GE(files.size(), 5u);
  for (const auto &path : files) {
    SCOPED_TRACE(path.string());
    auto p = parse_text(read_file(path));
    ASSERT_TRUE(p->mod) << p->sink.render_all();
    EXPECT_FALSE(p->mod->kernels().empty());
    // print() output parses again and prints identically (normal form).
    std::string once = print(*p->mod);
    auto q = parse_text(once);
    ASSERT_TRUE(q->mod) << q->sink.render_all() << once;
    EXPECT_EQ(print(*q->mod), once);
    // Same shape after the round trip.
    ASSERT_EQ(q->mod->functions.size(), p->mod->functions.size());
    for (size_t i = 0; i < p->mod->functions.size(); ++i) {
      EXPECT_EQ(q->mod->functions[i].body.size(),
                p->mod->functions[i].body.size());
      EXPECT_EQ(q->mod->functions[i].regs.size(),
                p->mod->functions[i].regs.size());
    }
  }
}

TEST(PtxParser, BasicInputShape) {
  auto p = parse_text(read_file(std::filesystem::path(BCUSIM_SOURCE_DIR) /
                                "tests/ptx-inputs/basic.ptx"));
  ASSERT_TRUE(p->mod) << p->sink.render_all();
  const Module &m = *p->mod;
  EXPECT_EQ(m.version, "9.0");
  EXPECT_EQ(m.target, "sm_90");
  EXPECT_EQ(m.address_size, 64u);
  EXPECT_EQ(m.kernels().size(), 6u);
  const Function *vprintf = m.find_function("vprintf");
  ASSERT_NE(vprintf, nullptr);
  EXPECT_TRUE(vprintf->is_extern);
  EXPECT_FALSE(vprintf->is_entry);
  ASSERT_EQ(vprintf->returns.size(), 1u);
  EXPECT_EQ(vprintf->returns[0].name, "func_retval0");
  EXPECT_EQ(vprintf->params.size(), 2u);
  EXPECT_EQ(m.find_function("nope"), nullptr);

  // Module-scope variables with initializers.
  auto global = [&](const std::string &n) -> const VarDecl & {
    for (const auto &v : m.globals)
      if (v.name == n)
        return v;
    ADD_FAILURE() << n;
    return m.globals.front();
  };
  const VarDecl &coeffs = global("coeffs");
  EXPECT_EQ(coeffs.space, Space::Const);
  EXPECT_EQ(coeffs.align, 4u);
  EXPECT_EQ(coeffs.type, "b8");
  EXPECT_EQ(coeffs.element_count(), 16u);
  ASSERT_EQ(coeffs.init.size(), 16u);
  EXPECT_EQ(coeffs.init[3].bits, 63u);
  const VarDecl &table = global("table");
  EXPECT_EQ(table.element_count(), 12u);
  EXPECT_EQ(table.init.size(), 9u); // the rest is zero
  const VarDecl &counter = global("counter");
  EXPECT_TRUE(counter.dims.empty());
  EXPECT_EQ(counter.element_count(), 1u);
  ASSERT_EQ(counter.init.size(), 1u);
  EXPECT_EQ(counter.init[0].bits, 7u);
  const VarDecl &dyn = global("dyn");
  EXPECT_TRUE(dyn.is_extern);
  EXPECT_EQ(dyn.space, Space::Shared);
  EXPECT_EQ(dyn.element_count(), 0u);
  ASSERT_EQ(dyn.dims.size(), 1u);
  EXPECT_EQ(dyn.dims[0], 0u);

  // The printf kernel: by-value struct param, local depot, call sequence.
  const Function *k = m.find_function("_Z13kernel_printfi4Pair");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->params.size(), 2u);
  EXPECT_EQ(k->params[1].align, 8u);
  EXPECT_EQ(k->params[1].type, "b8");
  EXPECT_EQ(k->params[1].array_size, 16u);
  const Instruction *call = nullptr;
  for (const auto &in : k->body)
    if (in.opcode == "call")
      call = &in;
  ASSERT_NE(call, nullptr);
  EXPECT_THAT(call->modifiers, ::testing::ElementsAre("uni"));
  ASSERT_EQ(call->operands.size(), 3u);
  EXPECT_EQ(call->operands[0].kind, K::List);
  ASSERT_EQ(call->operands[0].elems.size(), 1u);
  EXPECT_EQ(call->operands[0].elems[0].kind, K::Symbol);
  EXPECT_EQ(call->operands[0].elems[0].sym_kind, S::Local);
  EXPECT_EQ(k->locals[call->operands[0].elems[0].sym_index].name, "retval0");
  EXPECT_EQ(call->operands[1].kind, K::Symbol);
  EXPECT_EQ(call->operands[1].sym_kind, S::Function);
  EXPECT_EQ(&m.functions[call->operands[1].sym_index], vprintf);
  ASSERT_EQ(call->operands[2].elems.size(), 2u);
  EXPECT_EQ(k->locals[call->operands[2].elems[1].sym_index].name, "param1");
  EXPECT_EQ(k->locals[call->operands[2].elems[1].sym_index].space,
            Space::Param);
}

// ---------------------------------------------------------------------------
// Registers and scopes
// ---------------------------------------------------------------------------

TEST(PtxParser, RegisterRangesDeclareNRegisters) {
  auto p = parse_body(".reg .b32 %r<45>;\n.reg .v4 .f32 %v;\n"
                      "mov.u32 %r0, %r44;\nmov.v4.f32 %v, {0f3F800000, "
                      "0f00000000, 0f00000000, 0f00000000};");
  const Function &f = kernel(*p);
  ASSERT_EQ(f.regs.size(), 46u);
  EXPECT_EQ(f.regs[0].name, "%r0");
  EXPECT_EQ(f.regs[44].name, "%r44");
  EXPECT_EQ(f.regs[44].type, "b32");
  EXPECT_EQ(f.regs[45].vec, 4);
  EXPECT_EQ(f.regs[45].type, "f32");
  EXPECT_EQ(f.body[0].operands[0].reg, 0u);
  EXPECT_EQ(f.body[0].operands[1].reg, 44u);
  EXPECT_EQ(f.body[1].operands[1].kind, K::Vector);
}

TEST(PtxParser, RegisterOutsideRangeIsUndeclared) {
  auto p = parse_text(kHeader + ".entry k()\n{\n.reg .b32 %r<45>;\n"
                                "mov.u32 %r45, 1;\n}\n");
  EXPECT_EQ(only_error(*p), "7:9:4: use of undeclared register '%r45'");
}

TEST(PtxParser, LeadingZeroIsNotARangeMember) {
  auto p = parse_text(kHeader + ".entry k()\n{\n.reg .b32 %r<45>;\n"
                                "mov.u32 %r01, 1;\n}\n");
  EXPECT_EQ(only_error(*p), "7:9:4: use of undeclared register '%r01'");
}

TEST(PtxParser, NestedScopesGetDistinctRegistersAndShadow) {
  auto p = parse_body(".reg .pred %p<3>;\n"
                      ".reg .b32 %r<3>;\n"
                      "{ .reg .pred %p1; setp.ne.u32 %p1, %r1, 0; }\n"
                      "{ .reg .pred %p1; .reg .b32 %r1; mov.u32 %r1, 0; "
                      "setp.ne.u32 %p1, %r1, 0; { .reg .pred %p1; @%p1 "
                      "bra $L; } }\n"
                      "setp.ne.u32 %p1, %r2, 0;\n$L: ret;");
  const Function &f = kernel(*p);
  // 3 + 3 + 1 + 2 + 1 registers, each declaration its own index.
  ASSERT_EQ(f.regs.size(), 10u);
  const uint32_t outer_p1 = 1, outer_r1 = 4;
  const auto &b = f.body;
  ASSERT_EQ(b.size(), 6u);
  // Block 1: inner %p1, outer %r1.
  EXPECT_EQ(b[0].operands[0].reg, 6u);
  EXPECT_EQ(b[0].operands[1].reg, outer_r1);
  // Block 2: its own %p1 and %r1.
  EXPECT_EQ(b[1].operands[0].reg, 8u);
  EXPECT_EQ(b[2].operands[0].reg, 7u);
  EXPECT_EQ(b[2].operands[1].reg, 8u);
  // Innermost block's guard uses the innermost %p1.
  ASSERT_TRUE(b[3].guard.has_value());
  EXPECT_EQ(b[3].guard->reg, 9u);
  // After the blocks close, %p1 is the outer one again.
  EXPECT_EQ(b[4].operands[0].reg, outer_p1);
  EXPECT_EQ(f.regs[9].scope, 3u);
  EXPECT_EQ(f.scope_parents[3], 2u);
  EXPECT_EQ(f.scope_parents[2], 0u);
  EXPECT_EQ(f.regs[6].name, "%p1");
  EXPECT_EQ(f.regs[7].type, "pred");
  EXPECT_EQ(f.regs[8].type, "b32");
}

TEST(PtxParser, ExactDeclarationShadowsRangeInInnerScope) {
  auto p = parse_body(".reg .b32 %r<4>;\n{ .reg .b64 %r2; mov.b64 %r2, 0; "
                      "mov.b32 %r3, 0; }\nmov.b32 %r2, 0;");
  const Function &f = kernel(*p);
  EXPECT_EQ(f.body[0].operands[0].reg, 4u);
  EXPECT_EQ(f.body[1].operands[0].reg, 3u);
  EXPECT_EQ(f.body[2].operands[0].reg, 2u);
}

TEST(PtxParser, NamesWithoutPercentAreRegisters) {
  auto p = parse_body(".reg .pred complete;\n.reg .b64 state;\n"
                      "mbarrier.test_wait.shared.b64 complete, [state], "
                      "state;\n@!complete bra done;\ndone: ret;");
  const Function &f = kernel(*p);
  EXPECT_EQ(f.body[0].operands[0].kind, K::Reg);
  EXPECT_EQ(f.body[0].operands[1].elems[0].kind, K::Reg);
  EXPECT_EQ(f.body[0].operands[2].reg, 1u);
  ASSERT_TRUE(f.body[1].guard);
  EXPECT_TRUE(f.body[1].guard->negated);
  EXPECT_EQ(f.body[1].guard->reg, 0u);
}

TEST(PtxParser, RedeclarationInSameScopeIsAnError) {
  auto p = parse_text(kHeader + ".entry k()\n{\n.reg .b32 %x;\n"
                                ".reg .b32 %x;\n}\n");
  EXPECT_EQ(only_error(*p), "7:11:2: redeclaration of register '%x'");
  ASSERT_EQ(p->sink.all()[0].notes.size(), 1u);
  EXPECT_EQ(p->sink.all()[0].notes[0].loc.line, 6u);
}

TEST(PtxParser, RegisterListDeclaration) {
  auto p = parse_body(".reg .pred p, q;\nand.pred p, p, q;");
  const Function &f = kernel(*p);
  ASSERT_EQ(f.regs.size(), 2u);
  EXPECT_EQ(f.regs[1].name, "q");
  EXPECT_EQ(f.body[0].operands[2].reg, 1u);
}

// ---------------------------------------------------------------------------
// Labels
// ---------------------------------------------------------------------------

TEST(PtxParser, LabelsResolveToBodyIndicesIncludingForwardReferences) {
  auto p = parse_body(".reg .pred %p;\n"
                      "$L_top:\n"
                      "  @%p bra $L_end;\n"
                      "  bra.uni $L_top;\n"
                      "$L_end:\n"
                      "  ret;\n"
                      "$L_after:");
  const Function &f = kernel(*p);
  ASSERT_EQ(f.body.size(), 3u);
  EXPECT_EQ(f.body[0].operands[0].kind, K::Label);
  EXPECT_EQ(f.body[0].operands[0].label, 2u);
  EXPECT_EQ(f.body[1].operands[0].label, 0u);
  ASSERT_EQ(f.labels.size(), 3u);
  EXPECT_EQ(f.labels[0], (std::pair<std::string, uint32_t>("$L_top", 0)));
  EXPECT_EQ(f.labels[1].second, 2u);
  EXPECT_EQ(f.labels[2].second, 3u); // a label at the end points past it
}

TEST(PtxParser, LabelsAreScopedLikeInlineAsmBlocks) {
  auto p = parse_body(".reg .pred P1;\n"
                      "{ W: @P1 bra D; bra W; D: }\n"
                      "{ W: @P1 bra D; bra W; D: }\n"
                      "ret;");
  const Function &f = kernel(*p);
  ASSERT_EQ(f.body.size(), 5u);
  EXPECT_EQ(f.body[0].operands[0].label, 2u);
  EXPECT_EQ(f.body[1].operands[0].label, 0u);
  EXPECT_EQ(f.body[2].operands[0].label, 4u);
  EXPECT_EQ(f.body[3].operands[0].label, 2u);
  EXPECT_EQ(f.labels.size(), 4u);
}

TEST(PtxParser, InnerScopeSeesOuterLabels) {
  auto p = parse_body("{ { bra OUT; } }\nOUT: ret;");
  EXPECT_EQ(kernel(*p).body[0].operands[0].label, 1u);
}

TEST(PtxParser, DuplicateLabelInSameScopeIsAnError) {
  auto p = parse_text(kHeader + ".entry k()\n{\nL: ret;\nL: ret;\n}\n");
  EXPECT_EQ(only_error(*p), "7:1:1: duplicate label 'L'");
  ASSERT_EQ(p->sink.all()[0].notes.size(), 1u);
  EXPECT_EQ(p->sink.all()[0].notes[0].loc.line, 6u);
}

TEST(PtxParser, UndefinedLabelIsAnError) {
  auto p = parse_text(kHeader + ".entry k()\n{\n\tbra $L__BB0_9;\n}\n");
  EXPECT_EQ(only_error(*p), "6:6:9: use of undeclared identifier '$L__BB0_9'");
}

TEST(PtxParser, LabelInSiblingScopeIsNotVisible) {
  auto p = parse_text(kHeader + ".entry k()\n{\n{ X: ret; }\n{ bra X; }\n}\n");
  EXPECT_EQ(only_error(*p), "7:7:1: use of undeclared identifier 'X'");
}

// ---------------------------------------------------------------------------
// Operands
// ---------------------------------------------------------------------------

TEST(PtxParser, OpcodeAndModifiersKeepDoubleColons) {
  auto p = parse_body(
      ".reg .b64 %rd<3>;\n.reg .b32 %r<3>;\n"
      "ld.global.nc.v4.f32 {%r0, %r1, %r2, %r2}, [%rd1];\n"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 _, [%rd1], "
      "0;\n"
      "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster."
      "cluster;\n"
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
      "[%rd1], [%rd2], 64, [%rd0];");
  const Function &f = kernel(*p);
  EXPECT_EQ(f.body[0].opcode, "ld");
  EXPECT_THAT(f.body[0].modifiers,
              ::testing::ElementsAre("global", "nc", "v4", "f32"));
  EXPECT_THAT(f.body[1].modifiers,
              ::testing::ElementsAre("try_wait", "parity", "acquire", "cluster",
                                     "shared::cta", "b64"));
  EXPECT_THAT(f.body[2].modifiers,
              ::testing::ElementsAre("proxy", "async::generic", "acquire",
                                     "sync_restrict::shared::cluster",
                                     "cluster"));
  EXPECT_THAT(f.body[3].modifiers,
              ::testing::Contains("mbarrier::complete_tx::bytes"));
  EXPECT_EQ(f.body[1].operands[0].kind, K::Sink);
  // The instruction location spans the opcode and its modifiers.
  EXPECT_EQ(f.body[0].loc.line, 8u);
  EXPECT_EQ(f.body[0].loc.col, 1u);
  EXPECT_EQ(f.body[0].loc.length, std::strlen("ld.global.nc.v4.f32"));
}

TEST(PtxParser, VectorPairSinkAndNegatedPredicate) {
  auto p = parse_body(".reg .b32 %r<9>;\n.reg .pred %p<3>;\n"
                      "shfl.sync.idx.b32 %r8|%p1, %r3, %r6, %r5, %r7;\n"
                      "elect.sync _|%p2, -1;\n"
                      "bar.red.popc.u32 %r1, 3, 64, !%p1;\n"
                      "st.local.v4.u32 [%r0], {%r1, _, %r3, %r4};");
  const Function &f = kernel(*p);
  const Operand &pair = f.body[0].operands[0];
  EXPECT_EQ(pair.kind, K::Pair);
  ASSERT_EQ(pair.elems.size(), 2u);
  EXPECT_EQ(pair.elems[0].reg, 8u);
  EXPECT_EQ(pair.elems[1].reg, 10u);
  EXPECT_EQ(pair.loc.col, 19u);
  EXPECT_EQ(pair.loc.length, 7u);
  EXPECT_EQ(f.body[1].operands[0].elems[0].kind, K::Sink);
  EXPECT_EQ(f.body[1].operands[1].ival, -1);
  const Operand &neg = f.body[2].operands[3];
  EXPECT_EQ(neg.kind, K::Reg);
  EXPECT_TRUE(neg.negated);
  EXPECT_EQ(neg.loc.length, 4u); // `!%p1`
  const Operand &vec = f.body[3].operands[1];
  EXPECT_EQ(vec.kind, K::Vector);
  ASSERT_EQ(vec.elems.size(), 4u);
  EXPECT_EQ(vec.elems[1].kind, K::Sink);
}

TEST(PtxParser, IntegerAndFloatLiterals) {
  auto p = parse_body(".reg .b64 %rd;\n.reg .f32 %f;\n.reg .f64 %fd;\n"
                      "mov.b64 %rd, 0x7FFFFFFFFFFFFFFF;\n"
                      "mov.b64 %rd, -9223372036854775808;\n"
                      "mov.b64 %rd, 0xFFFFFFFFFFFFFFFF;\n"
                      "mov.b64 %rd, 017;\n"
                      "mov.b64 %rd, 0b1011;\n"
                      "mov.b64 %rd, 42U;\n"
                      "mov.b64 %rd, -4;\n"
                      "mov.f32 %f, 0f3F800000;\n"
                      "mov.f32 %f, -0f3F800000;\n"
                      "mov.f64 %fd, 0d4002000000000000;\n"
                      "mov.f64 %fd, 1.5;\n"
                      "mov.f64 %fd, -2.5e1;");
  const auto &b = kernel(*p).body;
  EXPECT_EQ(b[0].operands[1].ival, INT64_MAX);
  EXPECT_EQ(b[1].operands[1].ival, INT64_MIN);
  EXPECT_EQ(b[2].operands[1].ival, -1);
  EXPECT_EQ(b[3].operands[1].ival, 15);
  EXPECT_EQ(b[4].operands[1].ival, 11);
  EXPECT_EQ(b[5].operands[1].ival, 42);
  EXPECT_EQ(b[6].operands[1].ival, -4);
  EXPECT_EQ(b[6].operands[1].loc.length, 2u);
  EXPECT_EQ(b[7].operands[1].kind, K::FImm);
  EXPECT_TRUE(b[7].operands[1].is_f32);
  EXPECT_EQ(b[7].operands[1].ival, 0x3F800000);
  EXPECT_EQ(b[8].operands[1].ival, 0xBF800000);
  EXPECT_FALSE(b[9].operands[1].is_f32);
  EXPECT_EQ(static_cast<uint64_t>(b[9].operands[1].ival),
            0x4002000000000000ull);
  double d;
  std::memcpy(&d, &b[10].operands[1].ival, 8);
  EXPECT_EQ(d, 1.5);
  std::memcpy(&d, &b[11].operands[1].ival, 8);
  EXPECT_EQ(d, -25.0);
}

TEST(PtxParser, Addresses) {
  auto p = parse_body(".reg .b64 %rd1;\n.reg .b32 %r;\n"
                      ".shared .align 8 .b8 buf[64];\n"
                      "ld.u32 %r, [%rd1];\n"
                      "ld.u32 %r, [%rd1+16];\n"
                      "ld.u32 %r, [%rd1+-4];\n"
                      "ld.u32 %r, [%rd1-8];\n"
                      "ld.shared.u32 %r, [buf];\n"
                      "ld.shared.u32 %r, [buf+8];\n"
                      "ld.u32 %r, [0x100];\n"
                      "cp.async.bulk.tensor.1d.shared::cluster.global.tile "
                      "[buf], [%rd1, {%r}], [buf+32];");
  const auto &b = kernel(*p).body;
  auto addr = [&](size_t i, size_t op = 1) -> const Operand & {
    EXPECT_EQ(b[i].operands[op].kind, K::Address);
    return b[i].operands[op];
  };
  EXPECT_EQ(addr(0).elems[0].kind, K::Reg);
  EXPECT_EQ(addr(0).ival, 0);
  EXPECT_EQ(addr(1).ival, 16);
  EXPECT_EQ(addr(2).ival, -4);
  EXPECT_EQ(addr(3).ival, -8);
  EXPECT_EQ(addr(4).elems[0].kind, K::Symbol);
  EXPECT_EQ(addr(4).elems[0].name, "buf");
  EXPECT_EQ(addr(4).elems[0].sym_kind, S::Local);
  EXPECT_EQ(addr(5).ival, 8);
  EXPECT_TRUE(addr(6).elems.empty());
  EXPECT_EQ(addr(6).ival, 0x100);
  const Operand &t = addr(7, 1);
  ASSERT_EQ(t.elems.size(), 2u);
  EXPECT_EQ(t.elems[1].kind, K::Vector);
  EXPECT_EQ(t.elems[1].elems[0].kind, K::Reg);
  EXPECT_EQ(addr(7, 2).elems[0].sym_kind, S::Local);
  // Address location covers the brackets.
  EXPECT_EQ(addr(1).loc.col, 12u);
  EXPECT_EQ(addr(1).loc.length, 9u);
}

TEST(PtxParser, SymbolWithOffsetOutsideBrackets) {
  auto p = parse_text(kHeader + ".global .b8 arr[16];\n.entry k()\n{\n"
                                ".reg .b64 %rd;\nmov.u64 %rd, arr+8;\n"
                                "mov.u64 %rd, arr;\n}\n");
  ASSERT_TRUE(p->mod) << p->sink.render_all();
  const auto &b = p->mod->functions[0].body;
  EXPECT_EQ(b[0].operands[1].kind, K::Symbol);
  EXPECT_EQ(b[0].operands[1].sym_kind, S::Global);
  EXPECT_EQ(b[0].operands[1].ival, 8);
  EXPECT_EQ(b[0].operands[1].loc.length, 5u);
  EXPECT_EQ(b[1].operands[1].ival, 0);
}

TEST(PtxParser, SpecialRegisters) {
  auto p = parse_body(
      ".reg .b32 %r;\n.reg .b64 %rd;\n"
      "mov.u32 %r, %tid.x;\nmov.u32 %r, %nctaid.z;\nmov.u32 %r, %laneid;\n"
      "mov.u32 %r, %lanemask_lt;\nmov.u64 %rd, %clock64;\n"
      "mov.u32 %r, %envreg31;\nmov.u32 %r, %cluster_ctarank;\n"
      "mov.u32 %r, %clusterid.y;\nmov.u32 %r, %dynamic_smem_size;\n"
      "mov.u64 %rd, %globaltimer;\nmov.pred %r, %is_explicit_cluster;");
  const auto &b = kernel(*p).body;
  const char *names[] = {"%tid.x",
                         "%nctaid.z",
                         "%laneid",
                         "%lanemask_lt",
                         "%clock64",
                         "%envreg31",
                         "%cluster_ctarank",
                         "%clusterid.y",
                         "%dynamic_smem_size",
                         "%globaltimer",
                         "%is_explicit_cluster"};
  ASSERT_EQ(b.size(), std::size(names));
  for (size_t i = 0; i < b.size(); ++i) {
    EXPECT_EQ(b[i].operands[1].kind, K::Special) << i;
    EXPECT_EQ(b[i].operands[1].name, names[i]);
  }
  EXPECT_EQ(b[0].operands[1].loc.length, 6u);
}

// WARP_SZ (what `warpSize` compiles to) and the reserved shared-memory
// registers read like special registers.
TEST(PtxParser, PredefinedIdentifiers) {
  auto p = parse_body(".reg .b32 %r;\n.reg .b64 %rd;\n"
                      "mov.u32 %r, WARP_SZ;\nadd.s32 %r, %r, WARP_SZ;\n"
                      "mov.u32 %r, %reserved_smem_offset_1;\n"
                      "mov.u32 %r, %reserved_smem_offset_cap;\n"
                      "mov.u64 %rd, %pm3_64;\nmov.u32 %r, %aggr_smem_size;");
  const auto &b = kernel(*p).body;
  ASSERT_EQ(b.size(), 6u);
  EXPECT_EQ(b[0].operands[1].kind, K::Special);
  EXPECT_EQ(b[0].operands[1].name, "WARP_SZ");
  EXPECT_EQ(b[0].operands[1].loc.length, 7u);
  EXPECT_EQ(b[1].operands[2].kind, K::Special);
  for (size_t i = 2; i < b.size(); ++i)
    EXPECT_EQ(b[i].operands[1].kind, K::Special) << i;
}

// nvcc names every parameter of a .callprototype `_`.
TEST(PtxParser, CallPrototypeParametersNamedUnderscore) {
  auto p = parse_body(".reg .b64 %rd;\n{\n.param .b32 a;\n.param .b64 b;\n"
                      ".param .b32 r;\n"
                      "proto : .callprototype (.param .b32 _) _ (.param .b64 "
                      "_, .param .b32 _);\n"
                      "call (r), %rd, (b, a), proto;\n}");
  const Function &f = kernel(*p);
  ASSERT_EQ(f.prototypes.size(), 1u);
  EXPECT_EQ(f.prototypes[0].params.size(), 2u);
  EXPECT_EQ(f.prototypes[0].returns.size(), 1u);
  const Instruction &call = f.body.back();
  EXPECT_EQ(call.operands[1].kind, K::Reg);
  EXPECT_EQ(call.operands[3].sym_kind, S::Prototype);
}

TEST(PtxParser, UnknownPercentNameIsAnUndeclaredRegister) {
  auto p = parse_text(
      kHeader + ".entry k()\n{\n.reg .b32 %r;\nmov.u32 %r, %envreg32;\n}\n");
  EXPECT_EQ(only_error(*p), "7:13:9: use of undeclared register '%envreg32'");
}

TEST(PtxParser, OperandLocations) {
  auto p = parse_body(".reg .b32 %r<3>;\n\tadd.s32 \t%r1, %r2, 100;");
  const Instruction &in = kernel(*p).body[0];
  EXPECT_EQ(in.loc.line, 7u);
  EXPECT_EQ(in.loc.col, 2u);
  EXPECT_EQ(in.loc.length, 7u);
  EXPECT_EQ(in.operands[0].loc.col, 11u);
  EXPECT_EQ(in.operands[0].loc.length, 3u);
  EXPECT_EQ(in.operands[1].loc.col, 16u);
  EXPECT_EQ(in.operands[2].loc.col, 21u);
  EXPECT_EQ(in.operands[2].loc.length, 3u);
  EXPECT_EQ(in.stmt_loc.col, 2u);
  EXPECT_EQ(in.stmt_loc.length, 22u);
}

// ---------------------------------------------------------------------------
// Directives, parameters, declarations
// ---------------------------------------------------------------------------

TEST(PtxParser, KernelDirectives) {
  auto p =
      parse_text(kHeader + ".visible .entry k(\n"
                           "  .param .u64 .ptr .global .align 8 k_param_0,\n"
                           "  .param .align 8 .b8 k_param_1[24],\n"
                           "  .param .f32 k_param_2\n)\n"
                           "  .maxntid 256, 1, 1\n  .reqntid 128\n"
                           "  .minnctapersm 2\n  .maxnreg 64\n"
                           "  .explicitcluster\n  .reqnctapercluster 2, 2\n"
                           "  .maxclusterrank 8\n"
                           "{\n  ret;\n}\n");
  ASSERT_TRUE(p->mod) << p->sink.render_all();
  const Function &f = *p->mod->find_function("k");
  EXPECT_TRUE(f.is_entry);
  EXPECT_TRUE(f.is_visible);
  EXPECT_EQ(f.maxntid, (std::array<uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(f.reqntid, (std::array<uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(f.minnctapersm, 2u);
  EXPECT_EQ(f.maxnreg, 64u);
  EXPECT_TRUE(f.explicitcluster);
  EXPECT_EQ(f.reqnctapercluster, (std::array<uint32_t, 3>{2, 2, 1}));
  EXPECT_EQ(f.maxclusterrank, 8u);
  ASSERT_EQ(f.params.size(), 3u);
  EXPECT_TRUE(f.params[0].is_ptr);
  EXPECT_EQ(f.params[0].ptr_space, Space::Global);
  EXPECT_EQ(f.params[0].align, 8u);
  EXPECT_EQ(f.params[0].type, "u64");
  EXPECT_EQ(f.params[1].array_size, 24u);
  EXPECT_EQ(f.params[1].align, 8u);
  EXPECT_EQ(f.params[2].type, "f32");
  EXPECT_EQ(f.params[2].array_size, 0u);
  EXPECT_EQ(p->mod->kernels().size(), 1u);
}

TEST(PtxParser, FunctionsReturnsCallsAndParamResolution) {
  auto p = parse_text(kHeader +
                      ".func (.param .b32 func_retval0) foo(.param .b32 a);\n"
                      ".visible .func (.reg .b32 r) bar(.reg .b32 x)\n{\n"
                      "  add.s32 r, x, 1;\n  ret;\n}\n"
                      ".func (.param .b32 func_retval0) foo(.param .b32 a)\n"
                      ".noreturn\n{\n"
                      "  .reg .b32 %r;\n  ld.param.b32 %r, [a];\n"
                      "  st.param.b32 [func_retval0+0], %r;\n  ret;\n}\n"
                      ".entry k()\n{\n  .reg .b32 %r<3>;\n"
                      "  call (%r1), bar, (%r2);\n"
                      "  { .param .b32 param0; .param .b32 retval0;\n"
                      "    call.uni (retval0), foo, (param0); }\n"
                      "  { .param .b32 param0;\n"
                      "    st.param.b32 [param0], %r1; }\n"
                      "  mov.u64 %r0, foo;\n"
                      "  ret;\n}\n");
  ASSERT_TRUE(p->mod) << p->sink.render_all();
  const Module &m = *p->mod;
  ASSERT_EQ(m.functions.size(), 3u); // foo's declaration and definition merge
  const Function &foo = m.functions[0];
  EXPECT_EQ(foo.name, "foo");
  EXPECT_FALSE(foo.is_extern);
  EXPECT_TRUE(foo.noreturn);
  EXPECT_EQ(foo.body.size(), 3u);
  EXPECT_EQ(foo.body[0].operands[1].elems[0].sym_kind, S::Param);
  EXPECT_EQ(foo.body[1].operands[0].elems[0].sym_kind, S::Return);
  const Function &bar = m.functions[1];
  EXPECT_EQ(bar.params[0].space, Space::Reg);
  EXPECT_EQ(bar.returns[0].space, Space::Reg);
  // .reg parameters are registers in the body.
  EXPECT_EQ(bar.body[0].operands[0].kind, K::Symbol);
  const Function &k = m.functions[2];
  EXPECT_EQ(k.body[0].operands[1].sym_kind, S::Function);
  EXPECT_EQ(k.body[0].operands[1].sym_index, 1u);
  EXPECT_EQ(k.body[0].operands[0].elems[0].kind, K::Reg);
  // Each call scope's param0 is its own local.
  ASSERT_EQ(k.locals.size(), 3u);
  EXPECT_EQ(k.body[1].operands[2].elems[0].sym_index, 0u);
  EXPECT_EQ(k.body[2].operands[0].elems[0].sym_index, 2u);
  EXPECT_NE(k.locals[0].scope, k.locals[2].scope);
  EXPECT_EQ(k.body[3].operands[1].sym_kind, S::Function);
}

TEST(PtxParser, IndirectCallWithPrototype) {
  auto p = parse_body(".reg .b64 %rd;\n"
                      "{ .param .b64 param0; .param .b32 retval0;\n"
                      "proto_0 : .callprototype (.param .b32 _) _ (.param "
                      ".b64 _);\n"
                      "call (retval0), %rd, (param0), proto_0; }");
  const Function &f = kernel(*p);
  ASSERT_EQ(f.prototypes.size(), 1u);
  EXPECT_EQ(f.prototypes[0].params.size(), 1u);
  EXPECT_EQ(f.prototypes[0].returns.size(), 1u);
  EXPECT_EQ(f.body[0].operands[3].sym_kind, S::Prototype);
  EXPECT_EQ(f.body[0].operands[1].kind, K::Reg);
}

TEST(PtxParser, VariableDeclarationsAndInitializers) {
  auto p =
      parse_text(kHeader + ".global .align 4 .u32 a = 7;\n"
                           ".global .s32 neg[3] = {-1, 2, -3};\n"
                           ".const .f32 f[2] = {0f3F800000, 1.5};\n"
                           ".const .f64 d = 0f40000000;\n"
                           ".global .v4 .f32 v = {1.0, 2.0, 3.0, 4.0};\n"
                           ".global .u32 m[2][3] = {{1, 2, 3}, {4, 5, 6}};\n"
                           ".global .u64 ptrs[3] = {generic(a), neg, a+4};\n"
                           ".global .u8 open[] = {1, 2, 3};\n"
                           ".shared .align 16 .b8 sh[128];\n"
                           ".extern .shared .align 16 .b8 dyn[];\n"
                           ".global .u32 x, y[2];\n"
                           ".entry k() { ret; }\n");
  ASSERT_TRUE(p->mod) << p->sink.render_all();
  const auto &g = p->mod->globals;
  ASSERT_EQ(g.size(), 12u);
  EXPECT_EQ(g[0].init[0].bits, 7u);
  EXPECT_EQ(g[1].init[0].bits, static_cast<uint64_t>(-1));
  EXPECT_EQ(g[1].init[2].bits, static_cast<uint64_t>(-3));
  EXPECT_EQ(g[2].init[0].kind, VarDecl::Init::Kind::Float);
  EXPECT_EQ(g[2].init[0].bits, 0x3F800000u);
  EXPECT_EQ(g[2].init[1].bits, 0x3FC00000u); // 1.5 stored as f32 bits
  // A 0f literal keeps its 32 bits in an .f64, as ptxas assembles it.
  EXPECT_EQ(g[3].init[0].bits, 0x40000000ull);
  EXPECT_EQ(g[4].vec, 4);
  EXPECT_EQ(g[4].element_count(), 4u);
  EXPECT_EQ(g[4].size_bytes(), 16u);
  EXPECT_EQ(g[4].init[3].bits, 0x40800000u);
  EXPECT_EQ(g[5].element_count(), 6u);
  EXPECT_EQ(g[5].init.size(), 6u);
  EXPECT_EQ(g[5].init[5].bits, 6u);
  EXPECT_EQ(g[6].init[0].kind, VarDecl::Init::Kind::Symbol);
  EXPECT_TRUE(g[6].init[0].generic);
  EXPECT_EQ(g[6].init[0].symbol, "a");
  EXPECT_FALSE(g[6].init[1].generic);
  EXPECT_EQ(g[6].init[2].bits, 4u);
  EXPECT_EQ(g[7].dims[0], 3u); // sized by its initializer
  EXPECT_EQ(g[8].space, Space::Shared);
  EXPECT_EQ(g[8].align, 16u);
  EXPECT_EQ(g[8].size_bytes(), 128u);
  EXPECT_TRUE(g[9].is_extern);
  EXPECT_EQ(g[10].name, "x");
  EXPECT_EQ(g[11].name, "y");
  EXPECT_EQ(g[11].element_count(), 2u);
}

TEST(PtxParser, DebugDirectivesAreSkipped) {
  auto p = parse_text(kHeader + ".file 1 \"/tmp/x.cu\", 1700000000, 1234\n"
                                ".entry k()\n{\n"
                                ".loc 1 10 5\n"
                                "ret;\n"
                                ".loc 1 11 3, function_name $L__info_string0, "
                                "inlined_at 1 20 3\n"
                                "}\n"
                                ".section .debug_str\n{\n"
                                "$L__info_string0:\n.b8 95,90,0\n}\n");
  ASSERT_TRUE(p->mod) << p->sink.render_all();
  EXPECT_EQ(p->mod->functions[0].body.size(), 1u);
}

TEST(PtxParser, PragmaInBodyAndTargetList) {
  auto p = parse_text(".version 8.5\n.target sm_90a, texmode_independent\n"
                      ".address_size 64\n.entry k()\n{\n"
                      "$L: .pragma \"nounroll\";\nbra $L;\n}\n");
  ASSERT_TRUE(p->mod) << p->sink.render_all();
  EXPECT_EQ(p->mod->version, "8.5");
  EXPECT_EQ(p->mod->target, "sm_90a");
  EXPECT_THAT(p->mod->targets,
              ::testing::ElementsAre("sm_90a", "texmode_independent"));
  EXPECT_EQ(p->mod->functions[0].body[0].operands[0].label, 0u);
  ASSERT_EQ(p->mod->functions[0].body_pragmas.size(), 1u);
  EXPECT_EQ(p->mod->functions[0].body_pragmas[0].first, 0u);
  EXPECT_EQ(p->mod->functions[0].body_pragmas[0].second, "nounroll");
}

TEST(PtxParser, TypeBytes) {
  EXPECT_EQ(type_bytes("pred"), 1u);
  EXPECT_EQ(type_bytes("u16"), 2u);
  EXPECT_EQ(type_bytes("f32"), 4u);
  EXPECT_EQ(type_bytes("b64"), 8u);
  EXPECT_EQ(type_bytes("b128"), 16u);
  EXPECT_EQ(type_bytes("x"), 0u);
}

// ---------------------------------------------------------------------------
// Diagnostics (rendering is covered by tests/golden/ptx)
// ---------------------------------------------------------------------------

struct ErrorCase {
  const char *text; // body text (after the header and `.entry k()\n{\n`)
  const char *want; // line:col:length: message
};

class PtxParseErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(PtxParseErrors, ReportsTheRightLocationAndMessage) {
  auto p = parse_text(kHeader + ".entry k()\n{\n" + GetParam().text + "\n}\n");
  EXPECT_EQ(only_error(*p), GetParam().want) << p->sink.render_all();
}

INSTANTIATE_TEST_SUITE_P(
    Body, PtxParseErrors,
    ::testing::Values(
        ErrorCase{"\tmov.u32 %r1, 1;",
                  "6:10:3: use of undeclared register '%r1'"},
        ErrorCase{"@%p bra L;\nL: ret;",
                  "6:2:2: use of undeclared register '%p'"},
        ErrorCase{".reg .b32 %r;\nadd.u32 %r, %r %r;",
                  "7:16:2: expected ',' or ';', found '%r'"},
        ErrorCase{".reg .b32 %r;\nmov.u32 %r, 0f3F80;",
                  "7:13:6: invalid floating-point literal: 0f needs exactly 8 "
                  "hexadecimal digits"},
        ErrorCase{".reg .b32 %r;\nmov.u32 %r, 99999999999999999999;",
                  "7:13:20: integer literal does not fit in 64 bits"},
        ErrorCase{".reg .b64 %rd;\nld.u32 %rd, [%rd+%rd];",
                  "7:18:3: expected an integer offset, found '%rd'"},
        ErrorCase{".reg .b64 %rd;\nld.u32 %rd, [%rd;",
                  "7:17:1: expected ']', found ';'"},
        ErrorCase{".foo 1;",
                  "6:1:4: unknown directive '.foo' in function body"},
        ErrorCase{".reg .b33 %r;", "6:6:4: unknown register attribute '.b33'"},
        ErrorCase{".reg .b32 %r<0>;",
                  "6:14:1: register count must be between 1 and 1048576"},
        ErrorCase{".reg .b32 %r<1000000>;\n.reg .b32 %q<100000>;",
                  "7:14:6: too many registers in one function (more than "
                  "1048576)"},
        ErrorCase{".local .b8 huge[1099511627777];",
                  "6:12:4: 'huge' is too large"},
        ErrorCase{".local .b64 huge[1000000][1000000][1000000][1000000];",
                  "6:13:4: 'huge' is too large"},
        ErrorCase{"mov.u32 _, 1;\n.reg .b32 _;",
                  "7:11:1: '_' cannot be declared as a register"},
        ErrorCase{"ld .global.u32 x;",
                  "6:4:7: unexpected space before instruction modifier"},
        ErrorCase{"{ ret;", "5:1:1: unterminated '{' (missing '}')"},
        ErrorCase{"ret", "7:1:1: expected an operand, found '}'"},
        ErrorCase{"foo#bar;", "6:4:1: unexpected character"},
        ErrorCase{".local .b8 buf[0];", "6:16:1: array size must be positive"},
        ErrorCase{".local .b8 buf[4] = {1};",
                  "6:19:1: variables in this state space cannot be "
                  "initialized"},
        ErrorCase{".local .b8 buf[4];\n.local .b8 buf[4];",
                  "7:12:3: redefinition of 'buf'"},
        ErrorCase{"call foo, (x);",
                  "6:6:3: use of undeclared identifier 'foo'"}));

struct ModuleErrorCase {
  const char *text;
  const char *want;
};
class PtxModuleErrors : public ::testing::TestWithParam<ModuleErrorCase> {};

TEST_P(PtxModuleErrors, ReportsTheRightLocationAndMessage) {
  auto p = parse_text(GetParam().text);
  EXPECT_EQ(only_error(*p), GetParam().want) << p->sink.render_all();
}

INSTANTIATE_TEST_SUITE_P(
    Module, PtxModuleErrors,
    ::testing::Values(
        ModuleErrorCase{".version 9.0\n.bogus 1;\n",
                        "2:1:6: unknown directive '.bogus'"},
        ModuleErrorCase{".version 9.0\nret;\n",
                        "2:1:3: expected a directive, found 'ret'"},
        ModuleErrorCase{".version 9.0\n.address_size 48\n",
                        "2:15:2: address size must be 32 or 64"},
        ModuleErrorCase{".version 9.0\n.global .u32 a;\n.global .u32 a;\n",
                        "3:14:1: redefinition of 'a'"},
        ModuleErrorCase{".version 9.0\n.global .u8 a[2] = {1, 2, 3};\n",
                        "2:13:1: too many initializers for 'a' (3 for 2 "
                        "elements)"},
        ModuleErrorCase{".version 9.0\n.global .align 3 .u32 a;\n",
                        "2:16:1: alignment must be a power of two"},
        ModuleErrorCase{".version 9.0\n.global .u64 p = generic(nothing);\n",
                        "2:14:1: initializer of 'p' names undeclared symbol "
                        "'nothing'"},
        ModuleErrorCase{".version 9.0\n.entry k() .maxntid 0 { ret; }\n",
                        "2:21:1: '.maxntid' dimensions must be positive"},
        ModuleErrorCase{".version 9.0\n.entry k() .frobnicate { ret; }\n",
                        "2:12:11: unknown function directive '.frobnicate'"},
        ModuleErrorCase{
            ".version 9.0\n.entry k() { ret; }\n.entry k() { ret; }\n",
            "3:8:1: redefinition of 'k'"},
        ModuleErrorCase{
            ".version 9.0\n.entry k(.param .u32 a, .param .u64 a) { ret; }\n",
            "2:37:1: redefinition of parameter 'a'"},
        ModuleErrorCase{".version 9.0\n.entry k(.param .u32) { ret; }\n",
                        "2:21:1: expected a parameter name, found ')'"},
        ModuleErrorCase{".version 9.0\n.section .debug_info {\n.b8 1\n",
                        "2:22:1: unterminated '.section' block"},
        ModuleErrorCase{".target sm_90\n.version 9.0\n",
                        "1:1:7: a PTX module must begin with a .version "
                        "directive (such as .version 9.0)"},
        ModuleErrorCase{"", "1:1:1: a PTX module must begin with a .version "
                            "directive (such as .version 9.0)"},
        ModuleErrorCase{".version 9.0\n.target\n.entry k() { ret; }\n",
                        "3:1:6: expected a target name such as sm_90, found "
                        "'.entry'"}));

TEST(PtxParser, ErrorRecoveryReportsSeveralErrorsInOneBody) {
  auto p = parse_text(kHeader + ".entry k()\n{\nmov.u32 %a, 1;\nmov.u32 %b, "
                                "2;\nret;\n}\n");
  EXPECT_FALSE(p->mod);
  ASSERT_EQ(p->sink.error_count(), 2u);
  EXPECT_EQ(p->sink.all()[1].loc.line, 7u);
}

TEST(PtxParser, StopsAfterFiftyErrors) {
  std::string body;
  for (int i = 0; i < 80; ++i)
    body += "mov.u32 %nope, 1;\n";
  auto p = parse_text(kHeader + ".entry k()\n{\n" + body + "}\n");
  EXPECT_FALSE(p->mod);
  EXPECT_EQ(p->sink.error_count(), 50u);
  ASSERT_EQ(p->sink.all().back().notes.size(), 1u);
  EXPECT_EQ(p->sink.all().back().notes[0].message,
            "too many errors (50); stopping");
}

// Constant expressions are folded to constants in the AST
// (docs/ptx-frontend.md "Constant expressions").
TEST(PtxParser, ConstantExpressionsFoldInOperandsAndOffsets) {
  // Expressions in operands, address and symbol offsets, vectors and
  // initializers, next to a call whose `(` lists stay lists.
  auto q = parse_text(kHeader +
                      ".visible .global .u32 arr[8] = {1+1, 3*3, ~0, -(2)};\n"
                      ".visible .global .u64 ptr = arr+4*2;\n"
                      ".func (.reg .b32 r) f(.reg .b32 a) { ret; }\n"
                      ".visible .entry k()\n{\n"
                      ".reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n"
                      ".reg .f64 %fd<2>;\n"
                      "bar.cta.sync 1, (8*12);\n"
                      "add.s32 %r1, %r2, (1<<4)+3;\n"
                      "ld.global.u32 %r1, [%rd1+(4*8)];\n"
                      "ld.global.u32 %r1, [%rd1-4+2];\n"
                      "ld.global.u32 %r1, [arr+2*4];\n"
                      "mov.u64 %rd1, arr+(2*4);\n"
                      "mov.u64 %rd1, ~0 / 2;\n"
                      "mov.u64 %rd1, -7 % 2;\n"
                      "mov.u64 %rd1, (1 ? -1 : 2U) < 0;\n"
                      "add.f64 %fd1, %fd1, 1.0/4.0;\n"
                      "mov.b64 %rd1, {1+1, 2*2};\n"
                      "call (%r1), f, (%r2);\n"
                      "add.f64 %fd1, %fd1, -(0f40000000);\n"
                      "ret;\n}\n");
  ASSERT_TRUE(q->mod) << q->sink.render_all();
  const auto &b = q->mod->find_function("k")->body;
  ASSERT_EQ(b.size(), 14u);
  EXPECT_EQ(b[0].operands[1].kind, K::Imm);
  EXPECT_EQ(b[0].operands[1].ival, 96);
  // The operand's location covers the whole expression.
  EXPECT_EQ(b[0].operands[1].loc.length, 6u);
  EXPECT_EQ(b[1].operands[2].ival, 19);
  EXPECT_EQ(b[2].operands[1].kind, K::Address);
  EXPECT_EQ(b[2].operands[1].ival, 32);
  EXPECT_EQ(b[3].operands[1].ival, -2); // the minus binds to the first term
  EXPECT_EQ(b[4].operands[1].elems[0].sym_kind, S::Global);
  EXPECT_EQ(b[4].operands[1].ival, 8);
  EXPECT_EQ(b[5].operands[1].kind, K::Symbol);
  EXPECT_EQ(b[5].operands[1].ival, 8);
  EXPECT_EQ(b[6].operands[1].ival, INT64_MAX); // `~` gives .u64
  EXPECT_EQ(b[7].operands[1].ival, 1);         // `%` is unsigned
  EXPECT_EQ(b[8].operands[1].ival, 1);         // `?:` keeps -1 signed
  EXPECT_EQ(b[9].operands[2].kind, K::FImm);
  EXPECT_FALSE(b[9].operands[2].is_f32);
  EXPECT_EQ(static_cast<uint64_t>(b[9].operands[2].ival),
            0x3FD0000000000000ull); // 0.25
  ASSERT_EQ(b[10].operands[1].kind, K::Vector);
  EXPECT_EQ(b[10].operands[1].elems[0].ival, 2);
  EXPECT_EQ(b[10].operands[1].elems[1].ival, 4);
  // `(` followed by a register still opens a call's parameter list.
  EXPECT_EQ(b[11].operands[0].kind, K::List);
  EXPECT_EQ(b[11].operands[2].kind, K::List);
  // ptxas reads an operated-on 0f literal's bits as an f64.
  EXPECT_EQ(static_cast<uint64_t>(b[12].operands[2].ival),
            0x8000000040000000ull);
  const VarDecl &arr = q->mod->globals[0];
  ASSERT_EQ(arr.init.size(), 4u);
  EXPECT_EQ(arr.init[0].bits, 2u);
  EXPECT_EQ(arr.init[1].bits, 9u);
  EXPECT_EQ(arr.init[2].bits, ~0ull);
  EXPECT_EQ(arr.init[3].bits, static_cast<uint64_t>(-2));
  const VarDecl &ptr = q->mod->globals[1];
  ASSERT_EQ(ptr.init.size(), 1u);
  EXPECT_EQ(ptr.init[0].kind, VarDecl::Init::Kind::Symbol);
  EXPECT_EQ(ptr.init[0].bits, 8u);
}

TEST(PtxParser, ConstantExpressionsPrintAsTheirValue) {
  auto p = parse_text(kHeader + ".visible .entry k()\n{\n.reg .b32 %r<3>;\n"
                                "add.s32 %r1, %r2, 2*3+1;\n"
                                "bar.cta.sync 1, (8*12);\nret;\n}\n");
  ASSERT_TRUE(p->mod) << p->sink.render_all();
  std::string text = print(*p->mod);
  EXPECT_NE(text.find("add.s32 %r1, %r2, 7;"), std::string::npos) << text;
  EXPECT_NE(text.find("bar.cta.sync 1, 96;"), std::string::npos) << text;
}

struct ExprErrorCase {
  const char *text;
  const char *want;
};

class PtxConstantExpressionErrors
    : public ::testing::TestWithParam<ExprErrorCase> {};

TEST_P(PtxConstantExpressionErrors, ReportTheRightLocationAndMessage) {
  auto p = parse_text(kHeader + ".entry k()\n{\n.reg .b32 %r;\n" +
                      GetParam().text + "\n}\n");
  EXPECT_EQ(only_error(*p), GetParam().want) << p->sink.render_all();
}

INSTANTIATE_TEST_SUITE_P(
    Expr, PtxConstantExpressionErrors,
    ::testing::Values(
        ExprErrorCase{"add.s32 %r, %r, 3/0;",
                      "7:17:3: division by zero in constant expression"},
        ExprErrorCase{"add.s32 %r, %r, 3 % (1-1);",
                      "7:17:9: remainder by zero in constant expression"},
        ExprErrorCase{"add.s32 %r, %r, (1<<63)/-1;",
                      "7:17:10: constant expression overflows (the most "
                      "negative 64-bit value divided by -1)"},
        ExprErrorCase{"add.s32 %r, %r, 1.5*2;",
                      "7:17:5: constant expression mixes integer and "
                      "floating-point operands"},
        ExprErrorCase{"add.s32 %r, %r, (1+2;",
                      "7:21:1: expected ')', found ';'"},
        ExprErrorCase{"add.s32 %r, %r, 1+;",
                      "7:19:1: expected a constant, found ';'"},
        ExprErrorCase{"add.s32 %r, %r, (.u32)1;",
                      "7:18:4: unsupported cast to '.u32' (a constant "
                      "expression casts only to .s64 or .u64)"},
        ExprErrorCase{".reg .b32 %q<2*2>;",
                      "7:15:1: a constant expression cannot be used as a "
                      "register count (only an integer literal)"}));

TEST(PtxParser, ConstantExpressionsAreRejectedWhereOnlyLiteralsGo) {
  EXPECT_EQ(only_error(*parse_text(kHeader + ".global .u32 a[2*4];\n")),
            "4:17:1: a constant expression cannot be used as an array size "
            "(only an integer literal)");
  EXPECT_EQ(
      only_error(*parse_text(kHeader + ".entry k() .maxntid (32), 1, 1 {}\n")),
      "4:21:1: a constant expression cannot be used as a dimension (only an "
      "integer literal)");
  EXPECT_EQ(only_error(*parse_text(kHeader + ".global .align 2*4 .u32 a;\n")),
            "4:17:1: a constant expression cannot be used as an alignment "
            "(only an integer literal)");
}

TEST(PtxParser, DeeplyNestedConstantExpressionIsAnErrorNotACrash) {
  std::string e(100000, '(');
  auto p = parse_text(kHeader +
                      ".entry k()\n{\n.reg .b32 %r;\nadd.s32 %r, "
                      "%r, " +
                      e + "1;\n}\n");
  EXPECT_FALSE(p->mod);
  EXPECT_NE(p->sink.render_all().find("constant expression nested too deeply"),
            std::string::npos);
  std::string ternary;
  for (int i = 0; i < 100000; ++i)
    ternary += "1?1:";
  auto t = parse_text(kHeader +
                      ".entry k()\n{\n.reg .b32 %r;\nadd.s32 %r, "
                      "%r, " +
                      ternary + "1;\n}\n");
  EXPECT_FALSE(t->mod);
  EXPECT_NE(t->sink.render_all().find("constant expression nested too deeply"),
            std::string::npos);
  std::string minus(100000, '-');
  auto q = parse_text(kHeader +
                      ".entry k()\n{\n.reg .b32 %r;\nadd.s32 %r, "
                      "%r, " +
                      minus + "1;\n}\n");
  EXPECT_FALSE(q->mod);
}

TEST(PtxParser, GarbageNeverCrashes) {
  // A few hostile inputs: each is rejected with a diagnostic.
  const char *inputs[] = {"",
                          "{",
                          "}",
                          ".entry",
                          ".entry k(",
                          ".entry k() {",
                          ".func (",
                          ".global",
                          ".global .u32",
                          ".entry k() { { { {",
                          "\"",
                          "@",
                          ".entry k(){@!",
                          ".entry k(){ld.u32 [",
                          ".entry k(){mov {,}",
                          ".entry k(){ a|b|c; }"};
  for (const char *in : inputs) {
    auto p = parse_text(in);
    EXPECT_FALSE(p->mod) << in;
    EXPECT_GE(p->sink.error_count(), 1u) << in;
  }
}

TEST(PtxParser, LargeGeneratedFileParses) {
  // 20000 inline-asm-style scopes: names repeat, indices must not.
  std::string text = kHeader + ".visible .entry k()\n{\n.reg .b32 %r<4>;\n";
  for (int i = 0; i < 20000; ++i)
    text += "{ .reg .pred p; setp.ne.u32 p, %r1, 0; @p bra L; L: }\n";
  text += "ret;\n}\n";
  auto p = parse_text(text);
  ASSERT_TRUE(p->mod) << p->sink.render_all();
  const Function &f = p->mod->functions[0];
  EXPECT_EQ(f.regs.size(), 4u + 20000u);
  EXPECT_EQ(f.body.size(), 40001u);
  EXPECT_EQ(f.body[39999].guard->reg, 4u + 19999u);
  EXPECT_EQ(f.body[39999].operands[0].label, 40000u);
}

} // namespace
} // namespace bcusim::ptx
