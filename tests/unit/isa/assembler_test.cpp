// Assembler: spellings, variant choice by operand kinds (SPEC-NOTES 6),
// defaults (SPEC-NOTES 3, 7) and rejections with locations.
#include "bcusim/isa/model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace bcusim;
using namespace bcusim::isa;

namespace {

struct Result {
  std::optional<Decoded> inst;
  std::string diags;
};

Result assemble_text(std::string text) {
  static std::vector<std::shared_ptr<const SourceFile>> keep;
  auto f = SourceFile::from_string("t.s", text);
  keep.push_back(f);
  DiagnosticSink sink;
  Result r;
  r.inst = assemble_one(*builtin(), f->text(), {f.get(), 1, 1, 1}, sink);
  r.diags = sink.render_all();
  return r;
}

Decoded ok(const std::string &text) {
  auto r = assemble_text(text);
  EXPECT_TRUE(r.inst) << text << "\n" << r.diags;
  return r.inst.value_or(Decoded{});
}

std::string err(const std::string &text) {
  auto r = assemble_text(text);
  EXPECT_FALSE(r.inst) << text << " assembled as "
                       << (r.inst ? r.inst->opcode : "");
  return r.diags;
}

} // namespace

TEST(IsaAssembler, BarSyncImmediate) {
  Decoded d = ok("BAR.SYNC 0x1, 0x40");
  EXPECT_EQ(d.opcode, "BAR_I");
  EXPECT_EQ(d.optype, "BAR");
  EXPECT_EQ(d.field("barid"), 1u);
  EXPECT_EQ(d.field("cnt"), 0x40u);
  EXPECT_EQ(d.enumerator("mode"), "SYNC");
  EXPECT_EQ(d.field("pg"), 7u);
  EXPECT_EQ(d.enumerator("pg"), "PT");
  EXPECT_EQ(d.enumerator("cnt"), std::nullopt);
  EXPECT_EQ(d.field("nosuch"), std::nullopt);
  // optype 0x01 in [7:0], stype I=1 in [11:8], PT=7 in [14:12],
  // barid in [43:40], cnt in [55:44], mode SYNC=0 at 80.
  EXPECT_EQ(d.word.to_hex(), "00000000000000000004010000007101");
}

TEST(IsaAssembler, OperandKindsChooseTheVariant) {
  // SPEC-NOTES 6.
  Decoded a = ok("BAR.SYNC R4 ;");
  EXPECT_EQ(a.opcode, "BAR_RRI");
  EXPECT_EQ(a.field("rb"), 4u);
  EXPECT_EQ(a.field("cnt"), 0u);
  Decoded b = ok("BAR.RED.AND R4, P0 ;");
  EXPECT_EQ(b.opcode, "BAR_RED_R");
  EXPECT_EQ(b.field("rb"), 4u);
  EXPECT_EQ(b.field("pp"), 0u);
  Decoded c = ok("BAR.SYNC 0x0 ;");
  EXPECT_EQ(c.opcode, "BAR_I");
  EXPECT_EQ(c.field("barid"), 0u);
  EXPECT_EQ(c.field("cnt"), 0u);
  Decoded d = ok("BAR.RED.OR 0x0, P0 ;");
  EXPECT_EQ(d.opcode, "BAR_RED_I");
  EXPECT_EQ(d.field("cnt"), 0u);
  EXPECT_EQ(d.enumerator("redop"), "OR");
  Decoded e = ok("BAR.SYNC R0, R1");
  EXPECT_EQ(e.opcode, "BAR_RR");
  EXPECT_EQ(e.field("ra"), 0u); // barrier id register
  EXPECT_EQ(e.field("rb"), 1u); // count register
  Decoded f = ok("BAR.ARV 0x1, R5");
  EXPECT_EQ(f.opcode, "BAR_RIR");
  EXPECT_EQ(f.field("barid"), 1u);
  EXPECT_EQ(f.field("rc"), 5u);
  EXPECT_EQ(f.enumerator("mode"), "ARV");
  Decoded g = ok("BAR.ARV R4, 0x80");
  EXPECT_EQ(g.opcode, "BAR_RRI");
  EXPECT_EQ(g.field("rb"), 4u);
  EXPECT_EQ(g.field("cnt"), 0x80u);
  Decoded h = ok("BAR.RED.AND R4, 0x80, P0");
  EXPECT_EQ(h.opcode, "BAR_RED_RRI");
  Decoded i = ok("BAR.RED.AND 0x1, R5, P0");
  EXPECT_EQ(i.opcode, "BAR_RED_RIR");
}

TEST(IsaAssembler, SpellingsAndDefaults) {
  Decoded a = ok("B2R.RESULT RZ, P0 ;");
  Decoded b = ok("BAR.RESULT RZ, P0 ;");
  EXPECT_EQ(a.word, b.word);
  EXPECT_EQ(a.opcode, "B2R_RESULT_X");
  EXPECT_EQ(a.field("rd"), 255u);
  Decoded c = ok("B2R.RESULT R4 ;");
  EXPECT_EQ(c.field("pu"), 7u); // PT: predicate output discarded
  // SPEC-NOTES 7: no mode means .BAR.
  EXPECT_EQ(ok("B2R R0, 0x0").word, ok("B2R.BAR R0, 0x0").word);
  EXPECT_EQ(ok("R2B 0x0, R0").word, ok("R2B.BAR 0x0, R0").word);
  EXPECT_EQ(ok("B2R R0, 0x0").enumerator("mode"), "BAR");
  // .WARP with and without the (ignored) barrier id.
  EXPECT_EQ(ok("B2R.WARP R4").word, ok("B2R.WARP R4, 0x0").word);
  EXPECT_EQ(ok("R2B.WARP R4").word, ok("R2B.WARP 0x0, R4").word);
  EXPECT_EQ(ok("R2B.WARP 0x4, R1").field("barid"), 4u);
  EXPECT_EQ(ok("B2R.WARP R1, 0x4").field("barid"), 4u);
}

TEST(IsaAssembler, GuardsNegationAndNumbers) {
  Decoded a = ok("@P0 BAR.SYNC 0x1, 0x40");
  EXPECT_EQ(a.field("pg"), 0u);
  EXPECT_EQ(a.field("pg.not"), 0u);
  Decoded b = ok("@!P3 BAR.SYNC 0x1, 64 ; // comment");
  EXPECT_EQ(b.field("pg"), 3u);
  EXPECT_EQ(b.field("pg.not"), 1u);
  EXPECT_EQ(b.field("cnt"), 64u);
  Decoded c = ok("@PT BAR.RED.OR R0, !P1");
  EXPECT_EQ(c.field("pg"), 7u);
  EXPECT_EQ(c.field("pp"), 1u);
  EXPECT_EQ(c.field("pp.not"), 1u);
  EXPECT_EQ(ok("BAR.SYNC 0XF, 0XFE0").field("cnt"), 0xFE0u);
}

TEST(IsaAssembler, RejectsWhatTheSpecMakesIllegal) {
  using ::testing::HasSubstr;
  // SPEC-NOTES 5: GPR/GPR is not encodable for BAR.RED.
  std::string e = err("BAR.RED.AND R5, R5, P0 ;");
  EXPECT_THAT(e, HasSubstr("t.s:1:13: error: no form of BAR.RED.AND takes "
                           "operands (Reg, Reg, Pred)"));
  EXPECT_THAT(e, HasSubstr("note: legal form: BAR.RED.AND UImm4 barid, Reg rc, "
                           "{!}Pred pp  (BAR_RED_RIR)"));
  EXPECT_THAT(err("BAR.ARV 0x1"),
              HasSubstr("t.s:1:12: error: BAR.ARV requires a count"));
  EXPECT_THAT(err("BAR.ARV 0x1, 0x0"),
              HasSubstr("t.s:1:14: error: BAR.ARV requires a non-zero count"));
  EXPECT_THAT(err("BAR.ARV R1"), HasSubstr("BAR.ARV requires a count"));
  EXPECT_THAT(err("BAR.SYNC 0x10, 0x40"),
              HasSubstr("t.s:1:10: error: immediate 0x10 does not fit UImm4 "
                        "barid (0..0xf)"));
  EXPECT_THAT(err("BAR.SYNC 0x1, 4096"),
              HasSubstr("immediate 0x1000 does not fit UImm12 cnt (0..0xfff)"));
  EXPECT_THAT(err("BAR.SYNC 0x1, 0x30"),
              HasSubstr("count 0x30 (48) is not a multiple of 32"));
  EXPECT_THAT(err("BAR.RED.XOR R4, P0"),
              HasSubstr("t.s:1:8: error: unknown modifier '.XOR' for BAR.RED; "
                        "expected .AND, .OR, .POPC"));
  EXPECT_THAT(err("BAR.WAIT 0x1"), HasSubstr("unknown modifier '.WAIT'"));
  EXPECT_THAT(err("BAZ R1"), HasSubstr("unknown mnemonic 'BAZ'"));
  EXPECT_THAT(err("BAR.SYNC P0"),
              HasSubstr("no form of BAR.SYNC takes operands (Pred)"));
  EXPECT_THAT(err("BAR.SYNC 0x1, 0x40, 0x0"),
              HasSubstr("BAR.SYNC takes 1 to 2 operand(s), 3 given"));
  EXPECT_THAT(err("BAR.RESULT"),
              HasSubstr("BAR.RESULT takes 1 to 2 operand(s), 0 given"));
  EXPECT_THAT(err("B2R.BAR R4, 0x2 $wsb"),
              HasSubstr("'$wsb' is scheduling control information"));
  EXPECT_THAT(err("@P9 BAR.SYNC 0x0"), HasSubstr("guard 'P9'"));
  EXPECT_THAT(err("BAR.SYNC -1"), HasSubstr("negative"));
  EXPECT_THAT(err("BAR.SYNC 0x1 0x2"), HasSubstr("expected ','"));
  EXPECT_THAT(err(""), HasSubstr("expected an instruction mnemonic"));
}
