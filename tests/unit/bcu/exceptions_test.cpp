// Run-time exceptions (seed 001 BAR/__Semantics, BAR_RED 注意事项, B2R,
// B2R_RESULT; PTX arrive hazard): each is a structured event naming the
// barrier, the warps and the rule, and the unit goes on as documented in
// docs/bcu.md "Exceptions".
#include <gtest/gtest.h>

#include "helpers.h"

namespace bcusim::bcu::test {
namespace {

const Event &only_exception(const Cta &cta) {
  const Event *e = cta.last(EventKind::Exception);
  EXPECT_EQ(cta.exceptions().size(), 1u);
  static Event none;
  return e ? *e : none;
}

TEST(Exceptions, CountMismatchNamesTheCooperatingWarpsAndLatestCountWins) {
  Cta cta(256);
  cta.run(0, sync(4, 128));
  cta.run(1, arv(4, 128));
  Outcome o = cta.run(2, sync(4, 96));
  EXPECT_EQ(o.exceptions, 1u);
  const Event &e = only_exception(cta);
  EXPECT_EQ(e.exception, ExceptionKind::CountMismatch);
  EXPECT_EQ(e.barrier, 4);
  EXPECT_EQ(e.warps, 0x7u);
  EXPECT_EQ(render(e),
            "exception count-mismatch bar=4 warps={0,1,2}: count 96 differs "
            "from count 128 of the warps already at barrier 4; the arrival "
            "counts and the barrier now expects 96");
  // The arrival counted: 3 warps = 96 = the latest count, so it completed.
  EXPECT_EQ(o.status, Status::Continue);
  EXPECT_EQ(o.woken, 0x1u);
}

TEST(Exceptions, RedMixedWithSync) {
  Cta cta(128);
  cta.run(0, sync(2, 96));
  Outcome o = cta.run(1, red(RedOp::Popc, 2, 96, kPT));
  const Event &e = only_exception(cta);
  EXPECT_EQ(e.exception, ExceptionKind::RedMixed);
  EXPECT_EQ(e.barrier, 2);
  EXPECT_EQ(e.warps, 0x3u);
  EXPECT_EQ(o.status, Status::Blocked);
  EXPECT_EQ(cta.unit.bar_state_fields(2).kind, BarrierKind::SyncArv);
  // The arrival counted; the BAR.RED warp still gets its copy.
  cta.run(2, sync(2, 96));
  EXPECT_TRUE(cta.unit.reduction_performed(1));
  EXPECT_FALSE(cta.unit.reduction_performed(0));
  EXPECT_EQ(StateWord::unpack(cta.unit.warp_state(1)).popc, 32u);
}

TEST(Exceptions, ArvMixedIntoReduction) {
  Cta cta(128);
  cta.run(0, red(RedOp::And, 7, 64, kPT));
  Outcome o = cta.run(3, arv(7, 64));
  EXPECT_EQ(only_exception(cta).exception, ExceptionKind::RedMixed);
  EXPECT_EQ(only_exception(cta).warps, 0x9u);
  EXPECT_EQ(o.woken, 0x1u);
  EXPECT_TRUE(StateWord::unpack(cta.unit.warp_state(0)).logical_result());
}

TEST(Exceptions, CountNotAMultipleOf32IsRoundedUp) {
  Cta cta(128);
  Outcome o = cta.run(0, sync(1, 40));
  const Event &e = only_exception(cta);
  EXPECT_EQ(e.exception, ExceptionKind::BadCount);
  EXPECT_EQ(e.barrier, 1);
  EXPECT_EQ(e.warps, 0x1u);
  EXPECT_EQ(o.status, Status::Blocked);
  EXPECT_EQ(cta.unit.status(1).expected_threads, 64u);
  EXPECT_EQ(cta.run(1, sync(1, 40)).woken, 0x1u);
}

TEST(Exceptions, CountExceedingTheCtaNeverCompletes) {
  Cta cta(100); // rounded: 128
  cta.run(0, sync(1, 128));
  EXPECT_TRUE(cta.exceptions().empty()); // 128 = 32 x 4 warps is allowed
  cta.run(1, sync(2, 160));
  EXPECT_EQ(only_exception(cta).exception, ExceptionKind::BadCount);
  EXPECT_EQ(cta.unit.status(2).missing_threads, 128u);
  EXPECT_FALSE(cta.unit.status(2).can_complete); // only warps 2,3 remain
}

TEST(Exceptions, ArriveWithCountZero) {
  Cta cta(64);
  Instr in = bar(Op::Arrive, Source::imm(0), Source::reg(kRZ));
  Outcome o = cta.run(0, in);
  EXPECT_EQ(only_exception(cta).exception, ExceptionKind::BadCount);
  EXPECT_EQ(o.status, Status::Continue);
  EXPECT_TRUE(cta.unit.status(0).all_live_warps);
}

TEST(Exceptions, DoubleArrivalInOnePhase) {
  Cta cta(128);
  cta.run(0, arv(3, 96));
  Outcome o = cta.run(0, sync(3, 96));
  const Event &e = only_exception(cta);
  EXPECT_EQ(e.exception, ExceptionKind::DoubleArrival);
  EXPECT_EQ(e.barrier, 3);
  EXPECT_EQ(e.warps, 0x1u);
  EXPECT_EQ(o.status, Status::Blocked); // the arrival counted again: 64
  EXPECT_EQ(cta.unit.status(3).arrived_threads, 64u);
}

TEST(Exceptions, ResultBeforeAnyReductionIsUndefined) {
  Cta cta(32);
  Outcome o = cta.run(0, result(3, 1));
  const Event &e = only_exception(cta);
  EXPECT_EQ(e.exception, ExceptionKind::UndefinedResult);
  EXPECT_EQ(e.warps, 0x1u);
  EXPECT_EQ(e.barrier, -1);
  ASSERT_TRUE(o.rd && o.pu);
  EXPECT_EQ(o.rd->values[0], 0u);
  EXPECT_EQ(o.pu->values, 0u);
}

TEST(Exceptions, B2RWarpBeforeAnyReductionIsUndefined) {
  Cta cta(32);
  Outcome o = cta.run(0, b2r_warp(3));
  EXPECT_EQ(only_exception(cta).exception, ExceptionKind::UndefinedResult);
  EXPECT_EQ(o.rd->values[0], 0u);
}

TEST(Exceptions, UnusedOutputOfTheLastReductionIsUndefined) {
  Cta logical(32);
  logical.run(0, red(RedOp::And, 0, 32, kPT));
  logical.run(0, result(kRZ, 1)); // fine: Rd discarded
  EXPECT_TRUE(logical.exceptions().empty());
  Outcome o = logical.run(0, result(4, 1));
  EXPECT_EQ(only_exception(logical).exception, ExceptionKind::UndefinedResult);
  EXPECT_EQ(o.rd->values[0], 32u); // documented: the popcount
  Cta popc(32);
  popc.run(0, red(RedOp::Popc, 0, 32, kPT));
  popc.run(0, result(4, kPT));
  EXPECT_TRUE(popc.exceptions().empty());
  Outcome p = popc.run(0, result(4, 2));
  EXPECT_EQ(only_exception(popc).exception, ExceptionKind::UndefinedResult);
  EXPECT_EQ(p.pu->values, 0xffffffffu);
}

TEST(Exceptions, IssueFromExitedBlockedOrMissingWarpIsIgnored) {
  Cta cta(64);
  cta.unit.warp_exited(1);
  EXPECT_EQ(cta.run(1, sync(0)).status, Status::Ignored);
  EXPECT_EQ(cta.exceptions().back(), ExceptionKind::ExitedWarp);
  cta.run(0, sync(0, 64));
  EXPECT_EQ(cta.run(0, sync(1, 64)).status, Status::Ignored);
  EXPECT_EQ(cta.exceptions().back(), ExceptionKind::BlockedWarp);
  EXPECT_EQ(cta.last(EventKind::Exception)->barrier, 0);
  EXPECT_EQ(cta.run(2, sync(0)).status, Status::Ignored);
  EXPECT_EQ(cta.exceptions().back(), ExceptionKind::BadWarp);
  cta.unit.warp_exited(1);
  EXPECT_EQ(cta.exceptions().back(), ExceptionKind::ExitedWarp);
  EXPECT_EQ(cta.exceptions().size(), 4u);
}

TEST(Exceptions, NamesAreStable) {
  EXPECT_EQ(name(ExceptionKind::CountMismatch), "count-mismatch");
  EXPECT_EQ(name(ExceptionKind::RedMixed), "red-mixed");
  EXPECT_EQ(name(ExceptionKind::BadCount), "bad-count");
  EXPECT_EQ(name(ExceptionKind::DoubleArrival), "double-arrival");
  EXPECT_EQ(name(ExceptionKind::UndefinedResult), "undefined-result");
  EXPECT_EQ(exception_kind_from_name("red-mixed"), ExceptionKind::RedMixed);
  EXPECT_FALSE(exception_kind_from_name("nope"));
}

} // namespace
} // namespace bcusim::bcu::test
