// from_decoded: the register meaning of each opcode (seed 001
// `__OperandInfo`; SPEC-NOTES points 4, 6, 7), through the real assembler.
#include <gtest/gtest.h>

#include "bcusim/bcu/instr.h"
#include "bcusim/isa/isa.h"

namespace bcusim::bcu {
namespace {

Instr convert(std::string_view text) {
  DiagnosticSink sink;
  auto d = isa::assemble_one(*isa::builtin(), text, SourceLoc{}, sink);
  EXPECT_TRUE(d) << text << "\n" << sink.render_all();
  if (!d)
    return {};
  std::string why;
  auto in = from_decoded(*d, &why);
  EXPECT_TRUE(in) << text << ": " << why;
  // The word decodes to the same instruction.
  auto again = isa::decode(*isa::builtin(), d->word);
  EXPECT_TRUE(again);
  if (again && in) {
    EXPECT_EQ(from_decoded(*again), in) << text;
  }
  return in.value_or(Instr{});
}

TEST(FromDecoded, BarForms) {
  Instr i = convert("BAR.SYNC 0x1, 0x80 ;");
  EXPECT_EQ(i.op, Op::Sync);
  EXPECT_EQ(i.barid, Source::imm(1));
  EXPECT_EQ(i.count, Source::imm(0x80));
  i = convert("BAR.ARV R5, R6 ;"); // BAR_RR: ra = id, rb = count
  EXPECT_EQ(i.op, Op::Arrive);
  EXPECT_EQ(i.barid, Source::reg(5));
  EXPECT_EQ(i.count, Source::reg(6));
  i = convert("BAR.SYNC R4 ;"); // BAR_RRI: rb = id, count 0
  EXPECT_EQ(i.barid, Source::reg(4));
  EXPECT_EQ(i.count, Source::imm(0));
  i = convert("BAR.ARV R4, 0x80 ;");
  EXPECT_EQ(i.barid, Source::reg(4));
  EXPECT_EQ(i.count, Source::imm(0x80));
  i = convert("BAR.ARV 0x1, R5 ;"); // BAR_RIR: rc = count
  EXPECT_EQ(i.barid, Source::imm(1));
  EXPECT_EQ(i.count, Source::reg(5));
  i = convert("BAR.SYNC 0x0 ;");
  EXPECT_EQ(i.barid, Source::imm(0));
  EXPECT_EQ(i.count, Source::imm(0));
}

TEST(FromDecoded, BarRedForms) {
  Instr i = convert("BAR.RED.AND R4, P0 ;"); // packed two-operand form
  EXPECT_EQ(i.op, Op::Red);
  EXPECT_EQ(i.redop, RedOp::And);
  EXPECT_TRUE(i.packed);
  EXPECT_EQ(i.barid, Source::reg(4));
  EXPECT_EQ(i.pp, 0u);
  i = convert("BAR.RED.OR R0, !P1 ;");
  EXPECT_EQ(i.redop, RedOp::Or);
  EXPECT_TRUE(i.pp_not);
  EXPECT_EQ(i.pp, 1u);
  i = convert("BAR.RED.POPC 0x0, 0x40, PT ;");
  EXPECT_EQ(i.redop, RedOp::Popc);
  EXPECT_FALSE(i.packed);
  EXPECT_EQ(i.count, Source::imm(0x40));
  EXPECT_EQ(i.pp, kPT);
  i = convert("BAR.RED.AND 0x1, R5, P0 ;"); // BAR_RED_RIR
  EXPECT_EQ(i.barid, Source::imm(1));
  EXPECT_EQ(i.count, Source::reg(5));
  i = convert("BAR.RED.AND R4, 0x80, P0 ;"); // BAR_RED_RRI
  EXPECT_EQ(i.barid, Source::reg(4));
  EXPECT_EQ(i.count, Source::imm(0x80));
  i = convert("BAR.RED.OR 0x0, P0 ;");
  EXPECT_EQ(i.barid, Source::imm(0));
  EXPECT_EQ(i.count, Source::imm(0));
}

TEST(FromDecoded, ResultB2RR2B) {
  Instr i = convert("BAR.RESULT R4, P2 ;");
  EXPECT_EQ(i.op, Op::Result);
  EXPECT_EQ(i.rd, 4u);
  EXPECT_EQ(i.pu, 2u);
  i = convert("B2R.RESULT RZ, P0 ;");
  EXPECT_EQ(i.rd, kRZ);
  EXPECT_EQ(i.pu, 0u);
  i = convert("B2R.BAR R4, 0x2 ;");
  EXPECT_EQ(i.op, Op::B2RBar);
  EXPECT_EQ(i.barid, Source::imm(2));
  i = convert("B2R R0, 0x0 ;"); // default mode is BAR (SPEC-NOTES 7)
  EXPECT_EQ(i.op, Op::B2RBar);
  i = convert("B2R.WARP R4 ;");
  EXPECT_EQ(i.op, Op::B2RWarp);
  EXPECT_EQ(i.rd, 4u);
  i = convert("R2B.BAR 0x4, R4 ;");
  EXPECT_EQ(i.op, Op::R2BBar);
  EXPECT_EQ(i.barid, Source::imm(4));
  EXPECT_EQ(i.ra, 4u);
  i = convert("R2B.WARP 0x4, R1 ;");
  EXPECT_EQ(i.op, Op::R2BWarp);
  EXPECT_EQ(i.ra, 1u);
}

TEST(FromDecoded, Guard) {
  Instr i = convert("@!P3 BAR.SYNC 0x0 ;");
  EXPECT_EQ(i.pg, 3u);
  EXPECT_TRUE(i.pg_not);
  i = convert("BAR.SYNC 0x0 ;");
  EXPECT_EQ(i.pg, kPT);
  EXPECT_FALSE(i.pg_not);
}

} // namespace
} // namespace bcusim::bcu
