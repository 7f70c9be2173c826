// One test per semantic rule of seed 001 (BAR, BAR_RED, B2R, B2R_RESULT,
// R2B) and per decision in docs/bcu.md.
#include <gtest/gtest.h>

#include "helpers.h"

namespace bcusim::bcu::test {
namespace {

constexpr uint32_t kAll = 0xffffffffu;

TEST(BarrierUnit, WarpsAreCeilOfThreadsAndLastWarpIsPartial) {
  BarrierUnit u(100);
  EXPECT_EQ(u.warps(), 4u);
  EXPECT_EQ(u.lane_mask(0), kAll);
  EXPECT_EQ(u.lane_mask(3), 0xFu);
  EXPECT_EQ(u.lane_mask(4), 0u);
  EXPECT_THROW(BarrierUnit(0), std::invalid_argument);
  EXPECT_THROW(BarrierUnit(1025), std::invalid_argument);
}

// BAR/__Semantics BAR.SYNC, SrcCnt = 0: all warps arrive, the last one does
// not block, the others wake, the count returns to 0.
TEST(BarrierUnit, SyncCountZeroCompletesWhenEveryWarpArrived) {
  Cta cta(128);
  for (unsigned w = 0; w < 3; ++w) {
    Outcome o = cta.run(w, sync(0));
    EXPECT_EQ(o.status, Status::Blocked);
    EXPECT_EQ(o.barrier, 0);
    EXPECT_EQ(cta.unit.bar_state_fields(0).arrived, w + 1);
  }
  Outcome last = cta.run(3, sync(0));
  EXPECT_EQ(last.status, Status::Continue);
  EXPECT_EQ(last.woken, 0x7u);
  EXPECT_EQ(cta.unit.blocked_warps(), 0u);
  EXPECT_EQ(cta.unit.take_released(), 0x7u);
  EXPECT_EQ(cta.unit.take_released(), 0u);
  EXPECT_EQ(cta.unit.bar_state(0), 0u); // count reset, idle
  EXPECT_EQ(cta.unit.phase(0), 1u);
}

// Decision (docs/bcu.md "Counts"): the partial last warp counts as 32, so
// __syncthreads() in a 100-thread CTA completes after its 4 warps.
TEST(BarrierUnit, PartialLastWarpCountsAs32UnderCountZero) {
  Cta cta(100);
  for (unsigned w = 0; w < 3; ++w)
    EXPECT_EQ(cta.run(w, sync(0)).status, Status::Blocked);
  Outcome o = cta.run(3, sync(0), cta.unit.lane_mask(3));
  EXPECT_EQ(o.status, Status::Continue);
  EXPECT_EQ(o.woken, 0x7u);
}

TEST(BarrierUnit, LanesBeyondTheCtaDoNotExecute) {
  Cta cta(40); // warp 1 has lanes 0..7
  Outcome o = cta.run(1, sync(0), 0xFFFFFF00u);
  EXPECT_EQ(o.status, Status::Ignored);
  EXPECT_EQ(o.executed, 0u);
  EXPECT_EQ(cta.unit.bar_state(0), 0u);
}

// "存在分支时 ... barrier计数仍然会增加32": one executing lane adds 32.
TEST(BarrierUnit, DivergentWarpStillAdds32) {
  Cta cta(256);
  EXPECT_EQ(cta.run(0, sync(2, 64), 0x1u).status, Status::Blocked);
  EXPECT_EQ(cta.unit.status(2).arrived_threads, 32u);
  Outcome o = cta.run(5, sync(2, 64), 0x80000000u);
  EXPECT_EQ(o.status, Status::Continue);
  EXPECT_EQ(o.woken, 0x1u);
}

// SrcCnt > 0: completes when the count equals SrcCnt; other warps of the CTA
// are not involved.
TEST(BarrierUnit, PositiveCountCompletesAtEquality) {
  Cta cta(1024);
  EXPECT_EQ(cta.run(7, sync(1, 96)).status, Status::Blocked);
  EXPECT_EQ(cta.run(9, sync(1, 96)).status, Status::Blocked);
  Outcome o = cta.run(31, sync(1, 96));
  EXPECT_EQ(o.status, Status::Continue);
  EXPECT_EQ(o.woken, (1u << 7) | (1u << 9));
  EXPECT_EQ(cta.unit.bar_state(1), 0u);
}

// Arrivals beyond the count belong to the next phase.
TEST(BarrierUnit, ArrivalAfterCompletionStartsTheNextPhase) {
  Cta cta(128);
  cta.run(0, sync(3, 64));
  EXPECT_EQ(cta.run(1, sync(3, 64)).status, Status::Continue);
  Outcome third = cta.run(2, sync(3, 64));
  EXPECT_EQ(third.status, Status::Blocked);
  EXPECT_EQ(cta.unit.phase(3), 1u);
  EXPECT_EQ(cta.unit.status(3).arrived_threads, 32u);
  EXPECT_EQ(cta.unit.status(3).arrived, 0x4u);
  // Warp 0, released, may arrive again: it is the next phase.
  Outcome again = cta.run(0, sync(3, 64));
  EXPECT_EQ(again.status, Status::Continue);
  EXPECT_EQ(again.woken, 0x4u);
  EXPECT_TRUE(cta.exceptions().empty());
}

// BAR.ARV never blocks; it may complete a barrier and wake the BAR.SYNC
// waiters (PTX producer/consumer).
TEST(BarrierUnit, ArriveNeverBlocksAndCanComplete) {
  Cta cta(128);
  EXPECT_EQ(cta.run(0, arv(1, 96)).status, Status::Continue);
  EXPECT_EQ(cta.run(1, sync(1, 96)).status, Status::Blocked);
  EXPECT_EQ(cta.unit.status(1).waiting, 0x2u);
  Outcome completes = cta.run(2, sync(1, 96));
  EXPECT_EQ(completes.status, Status::Continue);
  EXPECT_EQ(completes.woken, 0x2u);
  Cta producer_last(128);
  producer_last.run(1, sync(1, 96));
  producer_last.run(2, sync(1, 96));
  Outcome o = producer_last.run(0, arv(1, 96));
  EXPECT_EQ(o.status, Status::Continue);
  EXPECT_EQ(o.woken, 0x6u);
}

TEST(BarrierUnit, SeveralBarriersInFlightAreIndependent) {
  Cta cta(256); // 8 warps
  cta.run(0, sync(0, 64));
  cta.run(1, sync(1, 96));
  cta.run(2, arv(2, 64));
  cta.run(3, sync(1, 96));
  cta.run(4, red(RedOp::Popc, 15, 64, kPT));
  EXPECT_EQ(cta.unit.liveness().size(), 4u);
  EXPECT_EQ(cta.unit.waiting_on(0), 0u);
  EXPECT_EQ(cta.unit.waiting_on(1), 1u);
  EXPECT_EQ(cta.unit.waiting_on(3), 1u);
  EXPECT_EQ(cta.unit.waiting_on(4), 15u);
  EXPECT_EQ(cta.run(5, sync(1, 96)).woken, 0xAu); // barrier 1 only
  EXPECT_TRUE(cta.unit.is_blocked(0));
  EXPECT_TRUE(cta.unit.is_blocked(4));
  EXPECT_EQ(cta.run(6, sync(2, 64)).woken, 0u); // barrier 2: ARV + SYNC
  EXPECT_EQ(cta.run(7, sync(0, 64)).woken, 0x1u);
  EXPECT_EQ(cta.run(6, red(RedOp::Popc, 15, 64, kPT)).woken, 0x10u);
  EXPECT_TRUE(cta.unit.liveness().empty());
  EXPECT_TRUE(cta.exceptions().empty());
}

// Count 0: "barrier计数 + 已经完全退出的warp数 * 32 = CTA内线程总数".
TEST(BarrierUnit, ExitedWarpsCountUnderCountZero) {
  Cta cta(128);
  cta.unit.warp_exited(3);
  cta.run(0, sync(0));
  cta.run(1, sync(0));
  EXPECT_EQ(cta.run(2, sync(0)).status, Status::Continue);
  EXPECT_EQ(cta.unit.take_released(), 0x3u);
}

TEST(BarrierUnit, WarpExitReevaluatesCountZeroBarriers) {
  Cta cta(100); // 4 warps, partial last
  cta.run(0, sync(0));
  cta.run(1, red(RedOp::Or, 4, 0, kPT));
  cta.run(2, sync(0));
  cta.run(3, red(RedOp::Or, 4, 0, kPT));
  EXPECT_EQ(cta.unit.blocked_warps(), 0xFu); // 0,2 on 0; 1,3 on 4
  // Warp 3 is blocked: it cannot exit; nothing changes.
  EXPECT_EQ(cta.unit.warp_exited(3), 0u);
  EXPECT_EQ(cta.exceptions().back(), ExceptionKind::BlockedWarp);
  EXPECT_FALSE(cta.unit.is_exited(3));
}

TEST(BarrierUnit, ExitOfTheLastMissingWarpCompletesCountZero) {
  Cta cta(128);
  cta.run(0, sync(0));
  cta.run(1, sync(0));
  cta.run(2, sync(0));
  EXPECT_EQ(cta.unit.warp_exited(3), 0x7u);
  EXPECT_EQ(cta.unit.blocked_warps(), 0u);
  EXPECT_EQ(cta.last(EventKind::Complete)->barrier, 0);
  // The next count-0 phase needs the 3 live warps only.
  cta.run(0, red(RedOp::Popc, 0, 0, kPT));
  BarrierStatus s = cta.unit.status(0);
  EXPECT_EQ(s.expected_threads, 96u);
  EXPECT_EQ(s.missing_threads, 64u);
  EXPECT_EQ(s.candidates, 0x6u);
  EXPECT_TRUE(s.can_complete);
  cta.unit.warp_exited(1);
  EXPECT_TRUE(cta.unit.is_blocked(0));
  EXPECT_EQ(cta.unit.warp_exited(2), 0x1u);
  EXPECT_EQ(StateWord::unpack(cta.unit.warp_state(0)).popc, 32u);
}

TEST(BarrierUnit, ExitedWarpsDoNotCountUnderPositiveCount) {
  Cta cta(128);
  cta.run(0, sync(0, 96));
  cta.run(1, sync(0, 96));
  EXPECT_EQ(cta.unit.warp_exited(2), 0u);
  EXPECT_TRUE(cta.unit.is_blocked(0));
  BarrierStatus s = cta.unit.status(0);
  EXPECT_EQ(s.missing_threads, 32u);
  EXPECT_EQ(s.candidates, 0x8u);
  EXPECT_TRUE(s.can_complete);
  cta.unit.warp_exited(3);
  EXPECT_FALSE(cta.unit.status(0).can_complete); // a deadlock
  EXPECT_EQ(cta.unit.status(0).waiting, 0x3u);
}

// Guard: a lane whose guard is false does not execute; no lane, no arrival.
TEST(BarrierUnit, GuardFalseInEveryLaneMeansNoArrival) {
  Cta cta(64);
  cta.values.set_pred(0, 0);
  Outcome o = cta.run(0, guarded(sync(0), 0));
  EXPECT_EQ(o.status, Status::Ignored);
  EXPECT_EQ(cta.unit.bar_state(0), 0u);
  Outcome never = cta.run(0, guarded(sync(0), kPT, /*pg_not=*/true));
  EXPECT_EQ(never.status, Status::Ignored);
  cta.values.set_pred(0, 0x10);
  Outcome some = cta.run(0, guarded(sync(0), 0));
  EXPECT_EQ(some.status, Status::Blocked);
  EXPECT_EQ(some.executed, 0x10u);
}

// "如果SrcBarId的来源位宽大于4位，则只有最低的4bit是有效的" and 12 bits for
// SrcCnt.
TEST(BarrierUnit, RegisterOperandsAreTruncatedTo4And12Bits) {
  Cta cta(128);
  cta.values.set_reg(4, 0xFFFFFFF3u); // barrier 3
  cta.values.set_reg(5, 0xABCD1040u); // count 0x040 = 64
  Instr in = bar(Op::Sync, Source::reg(4), Source::reg(5));
  EXPECT_EQ(cta.run(0, in).barrier, 3);
  EXPECT_EQ(cta.unit.status(3).expected_threads, 64u);
  EXPECT_EQ(cta.run(1, in).status, Status::Continue);
  EXPECT_TRUE(cta.exceptions().empty());
}

// docs/bcu.md "Instruction operands": the first executing lane's value.
TEST(BarrierUnit, RegisterOperandsComeFromTheFirstExecutingLane) {
  Cta cta(128);
  for (unsigned l = 0; l < 32; ++l)
    cta.values.set_reg(4, l, l % 16);
  Instr in = bar(Op::Sync, Source::reg(4), Source::imm(64));
  EXPECT_EQ(cta.run(0, in, 0xFFFFFF00u).barrier, 8);
  cta.values.set_pred(1, 0x00F00000u);
  EXPECT_EQ(cta.run(1, guarded(in, 1), 0xFFFFFF00u).barrier, 4);
}

TEST(BarrierUnit, RzReadsZeroAsCount) {
  Cta cta(64);
  Instr in = bar(Op::Sync, Source::imm(1), Source::reg(kRZ));
  cta.run(0, in);
  EXPECT_TRUE(cta.unit.status(1).all_live_warps);
}

// SPEC-NOTES 4: BAR.RED two-operand form, id = Rb & 0xF, count =
// (Rb >> 4) & 0xFFF (OperandInfo wins over the example comment).
TEST(BarrierUnit, PackedBarRedRegister) {
  Cta cta(128);
  cta.values.set_reg(0, 0xFFFF0000u | (64u << 4) | 9u);
  EXPECT_EQ(cta.run(0, red_packed(RedOp::Or, 0, kPT)).barrier, 9);
  EXPECT_EQ(cta.unit.status(9).expected_threads, 64u);
  EXPECT_EQ(cta.run(1, red_packed(RedOp::Or, 0, kPT)).status, Status::Continue);
  // The example comment's reading, (R0 & 0xFFF) >> 4 = 0x40 >> 4 = 4, would
  // have been a bad count; it is not used.
  EXPECT_TRUE(cta.exceptions().empty());
}

// BAR_RED "归约计算": AND/OR/POPC over every participating thread's
// (possibly negated) predicate; only executing lanes contribute.
struct RedCase {
  RedOp redop;
  bool negate;
  uint32_t expect_popc;
  bool expect_logical;
};

class ReductionTest : public ::testing::TestWithParam<RedCase> {};

TEST_P(ReductionTest, DivergentMasksAndNegation) {
  const RedCase &c = GetParam();
  Cta cta(96);
  // Warp 0: lanes 0..15 execute, P0 true in lanes 0..3 and 20.
  cta.values.set_pred(0, 0x0010000Fu);
  EXPECT_EQ(cta.run(0, red(c.redop, 6, 0, 0, c.negate), 0x0000FFFFu).status,
            Status::Blocked);
  // Warp 1: guard P1 keeps lanes 0..7 of the active 0..15.
  cta.values.set_pred(1, 0x000000FFu);
  cta.values.set_pred(0, 0x000000F0u);
  cta.run(1, guarded(red(c.redop, 6, 0, 0, c.negate), 1), 0x0000FFFFu);
  // Warp 2 (completes): one lane, predicate PT (negated: false).
  Instr last = red(c.redop, 6, 0, kPT, c.negate);
  Outcome o = cta.run(2, last, 0x1u);
  EXPECT_EQ(o.status, Status::Continue);
  EXPECT_EQ(o.woken, 0x3u);
  for (unsigned w = 0; w < 3; ++w) {
    StateWord copy = StateWord::unpack(cta.unit.warp_state(w));
    EXPECT_TRUE(copy.valid);
    EXPECT_EQ(copy.popc, c.expect_popc) << "warp " << w;
    EXPECT_EQ(copy.logical_result(), c.expect_logical) << "warp " << w;
    Outcome r = cta.run(w, result(10, 3));
    ASSERT_TRUE(r.rd && r.pu);
    EXPECT_EQ(r.rd->values[0], c.expect_popc);
    EXPECT_EQ(r.pu->values, c.expect_logical ? kAll : 0u);
  }
}

// Participating threads: warp 0 lanes 0..15 (P0 true in 4), warp 1 lanes
// 0..7 (P0 true in 4..7 = 4), warp 2 lane 0 (PT). 25 threads, 9 true.
INSTANTIATE_TEST_SUITE_P(BarRed, ReductionTest,
                         ::testing::Values(RedCase{RedOp::Popc, false, 9, true},
                                           RedCase{RedOp::Popc, true, 16, true},
                                           RedCase{RedOp::And, false, 9, false},
                                           RedCase{RedOp::And, true, 16, false},
                                           RedCase{RedOp::Or, false, 9, true},
                                           RedCase{RedOp::Or, true, 16, true}),
                         [](const ::testing::TestParamInfo<RedCase> &info) {
                           return std::string(name(info.param.redop)) +
                                  (info.param.negate ? "_negated" : "");
                         });

TEST(BarrierUnit, AndIsTrueWhenEveryParticipatingLaneIsTrue) {
  Cta cta(64);
  cta.values.set_pred(2, 0x0000FFFFu); // true exactly where lanes execute
  cta.run(0, red(RedOp::And, 0, 64, 2), 0x0000FFFFu);
  cta.run(1, red(RedOp::And, 0, 64, 2), 0x00000001u);
  EXPECT_TRUE(StateWord::unpack(cta.unit.warp_state(0)).logical_result());
  cta.values.set_pred(2, 0);
  cta.run(0, red(RedOp::Or, 0, 64, 2));
  cta.run(1, red(RedOp::Or, 0, 64, 2));
  EXPECT_FALSE(StateWord::unpack(cta.unit.warp_state(1)).logical_result());
}

// "下一次归约计算会覆盖前一次的结果"; warps that did not take part keep theirs.
TEST(BarrierUnit, NextReductionOverwritesOnlyItsParticipants) {
  Cta cta(96);
  cta.run(0, red(RedOp::Popc, 1, 64, kPT));
  cta.run(1, red(RedOp::Popc, 1, 64, kPT));
  EXPECT_EQ(cta.run(0, result(4, kPT)).rd->values[0], 64u);
  cta.values.set_pred(0, 0x3u);
  cta.run(0, red(RedOp::Popc, 2, 64, 0));
  cta.run(2, red(RedOp::Popc, 2, 64, 0));
  EXPECT_EQ(cta.run(0, result(4, kPT)).rd->values[0], 4u);
  EXPECT_EQ(cta.run(1, result(4, kPT)).rd->values[0], 64u);
  EXPECT_EQ(cta.run(2, result(4, kPT)).rd->values[0], 4u);
  EXPECT_TRUE(cta.unit.reduction_performed(2));
}

TEST(BarrierUnit, ResultWritesOnlyExecutingLanesAndDiscardsRzPt) {
  Cta cta(32);
  cta.run(0, red(RedOp::Popc, 0, 32, kPT), 0x5u);
  Outcome r = cta.run(0, result(7, kPT), 0x6u);
  ASSERT_TRUE(r.rd);
  EXPECT_FALSE(r.pu);
  EXPECT_EQ(r.rd->reg, 7u);
  EXPECT_EQ(r.rd->lanes, 0x6u);
  EXPECT_EQ(r.rd->values[1], 2u);
  EXPECT_EQ(r.rd->values[0], 0u);
  Outcome none = cta.run(0, result(kRZ, kPT));
  EXPECT_FALSE(none.rd);
  EXPECT_FALSE(none.pu);
}

TEST(BarrierUnit, B2RBarReadsTheStateWordMidFlight) {
  Cta cta(128);
  cta.values.set_pred(0, 0x7u);
  cta.run(0, red(RedOp::Or, 3, 96, 0, /*pp_not=*/true), 0xFu);
  cta.run(1, red(RedOp::Or, 3, 96, 0, true), 0x1u);
  Outcome o = cta.run(2, b2r_bar(8, 3));
  StateWord expected;
  expected.arrived = 2;
  expected.expected = 3;
  expected.kind = BarrierKind::Red;
  expected.redop = RedOp::Or;
  expected.popc = 1; // lane 3 of warp 0 (!P0 true), lane 0 of warp 1 false
  expected.any_false = true;
  ASSERT_TRUE(o.rd);
  EXPECT_EQ(o.rd->values[0], expected.pack());
  EXPECT_EQ(StateWord::unpack(o.rd->values[5]), expected);
  EXPECT_EQ(o.rd->lanes, kAll);
  const Event *save = cta.last(EventKind::Save);
  ASSERT_NE(save, nullptr);
  EXPECT_EQ(save->barrier, 3);
}

TEST(StateWord, LayoutIsAsDocumented) {
  StateWord s;
  s.arrived = 5;
  s.expected = 32;
  s.kind = BarrierKind::Red;
  s.redop = RedOp::Popc;
  s.popc = 1024;
  s.any_false = true;
  s.valid = true;
  EXPECT_EQ(s.pack(), 5u | 32u << 7 | 2u << 14 | 2u << 16 | 1024u << 18 |
                          1u << 29 | 1u << 31);
  EXPECT_EQ(StateWord::unpack(s.pack()), s);
  for (uint32_t w : {0u, 0x7Fu, 0x3F80u, 0x1FFC0000u, 0xA0000000u})
    EXPECT_EQ(StateWord::unpack(w).pack(), w);
  // Reserved bit 30 and kind 3 are dropped.
  EXPECT_EQ(StateWord::unpack(1u << 30).pack(), 0u);
  EXPECT_EQ(StateWord::unpack(3u << 14).kind, BarrierKind::Idle);
}

TEST(BarrierUnit, R2BWarpThenBarResultReadsTheRestoredCopy) {
  Cta cta(32);
  StateWord copy;
  copy.kind = BarrierKind::Red;
  copy.redop = RedOp::And;
  copy.popc = 3;
  copy.valid = true;
  cta.values.set_reg(1, copy.pack());
  cta.run(0, r2b_warp(1));
  EXPECT_TRUE(cta.unit.reduction_performed(0));
  Outcome r = cta.run(0, result(kRZ, 2));
  EXPECT_EQ(r.pu->values, kAll);
  EXPECT_EQ(cta.run(0, b2r_warp(9)).rd->values[0], copy.pack());
  EXPECT_EQ(cta.last(EventKind::Restore)->state, copy.pack());
}

TEST(BarrierUnit, EventStreamRendering) {
  Cta cta(64);
  std::vector<std::string> seen;
  cta.unit.set_observer([&](const Event &e) { seen.push_back(render(e)); });
  cta.run(0, red(RedOp::Popc, 2, 64, kPT));
  cta.run(1, red(RedOp::Popc, 2, 64, kPT));
  cta.run(1, b2r_warp(3));
  cta.unit.warp_exited(1);
  std::vector<std::string> want = {
      "arrive bar=2 warp=0 op=BAR.RED.POPC arrived=32 expected=64",
      "arrive bar=2 warp=1 op=BAR.RED.POPC arrived=64 expected=64",
      "complete bar=2 phase=0 warps={0,1}",
      "wake bar=2 warps={0}",
      "save warp=1 state=0x81028102",
      "exit warp=1",
  };
  EXPECT_EQ(seen, want);
  EXPECT_EQ(cta.unit.events().size(), want.size());
  EXPECT_EQ(cta.unit.take_events().size(), want.size());
  EXPECT_TRUE(cta.unit.events().empty());
}

} // namespace
} // namespace bcusim::bcu::test
