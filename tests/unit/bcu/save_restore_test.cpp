// Save/restore (SPEC-NOTES point 8, docs/bcu.md "Save and restore"): all 16
// barriers in flight are saved with B2R, restored with R2B into a fresh
// unit, and the continuation gives the same results as never stopping.
#include <gtest/gtest.h>

#include "bcusim/bcu/context.h"
#include "helpers.h"

namespace bcusim::bcu::test {
namespace {

// Sixteen barriers in flight in a 1000-thread CTA (32 warps, the last one
// partial): barrier b (1..15) has one or two arrivals (warps 0..19) of a
// count of 64..128, mixing BAR.SYNC, BAR.ARV and the three reductions with
// divergent masks and negated predicates; warp 31 has exited and count-0
// barrier 0 holds warp 30.
Instr op_for(unsigned b, unsigned count, bool first) {
  switch (b % 4) {
  case 0:
    return sync(b, count);
  case 1:
    return first ? arv(b, count) : sync(b, count);
  case 2:
    return red(RedOp::Popc, b, count, 0);
  default:
    return red(b % 8 == 3 ? RedOp::And : RedOp::Or, b, count, 0, true);
  }
}

// Returns, per barrier, the warps that arrived (the program knows them; a
// restored unit does not: docs/bcu.md "Save and restore").
std::array<uint32_t, 16> prefix(Cta &cta) {
  std::array<uint32_t, 16> arrived{};
  cta.values.set_pred(0, 0x0F0F0F0Fu);
  unsigned warp = 0;
  for (unsigned b = 1; b < 16; ++b) {
    unsigned arrivals = b % 3 == 0 ? 2 : 1;
    unsigned count = (arrivals + 1 + b % 2) * 32;
    for (unsigned i = 0; i < arrivals; ++i, ++warp) {
      cta.run(warp, op_for(b, count, i == 0), 0xFFFF00FFu >> (warp % 8));
      arrived[b] |= 1u << warp;
    }
  }
  cta.unit.warp_exited(31);
  cta.run(30, sync(0));
  return arrived;
}

// The continuation: every barrier gets its missing arrivals from free warps,
// then every warp syncs on barrier 0 and reads its reduction result.
std::vector<std::string> suffix(Cta &cta, std::array<uint32_t, 16> arrived) {
  std::vector<std::string> trace;
  cta.values.set_pred(0, 0x12345678u);
  for (unsigned b = 1; b < 16; ++b) {
    while (cta.unit.status(b).kind != BarrierKind::Idle) {
      BarrierStatus s = cta.unit.status(b);
      unsigned w = 0;
      while (w < 31 && (cta.unit.is_blocked(w) || (arrived[b] >> w & 1)))
        ++w;
      if (w == 31) {
        trace.push_back("stuck " + std::to_string(b));
        break;
      }
      arrived[b] |= 1u << w;
      Outcome o = cta.run(w, op_for(b, s.expected_threads, false),
                          0x00FF00FFu << (w % 3));
      trace.push_back("b" + std::to_string(b) + " w" + std::to_string(w) +
                      " status " + std::to_string(int(o.status)) + " woken " +
                      render_warps(o.woken));
    }
  }
  for (unsigned w = 0; w < 31; ++w)
    if (!cta.unit.is_blocked(w))
      trace.push_back("w" + std::to_string(w) + " sync0 woken " +
                      render_warps(cta.run(w, sync(0)).woken));
  for (unsigned w = 0; w < 31; ++w) {
    Outcome r = cta.run(w, result(4, 1));
    trace.push_back("w" + std::to_string(w) + " result " +
                    (r.rd ? std::to_string(r.rd->values[0]) : "-") + " " +
                    (r.pu ? std::to_string(r.pu->values) : "-"));
  }
  for (unsigned b = 0; b < 16; ++b)
    trace.push_back("state " + std::to_string(cta.unit.bar_state(b)));
  return trace;
}

TEST(SaveRestore, SixteenBarriersInFlightContinueIdentically) {
  Cta reference(1000);
  std::array<uint32_t, 16> arrived = prefix(reference);
  Cta original(1000);
  prefix(original);

  // Every barrier is in flight.
  for (unsigned b = 0; b < 16; ++b)
    EXPECT_NE(original.unit.status(b).kind, BarrierKind::Idle) << b;

  SavedContext ctx = save_context(original.unit);
  Cta restored(1000);
  restored.values = original.values;
  restore_context(restored.unit, ctx);

  for (unsigned b = 0; b < 16; ++b) {
    EXPECT_EQ(restored.unit.bar_state(b), reference.unit.bar_state(b));
    EXPECT_EQ(restored.unit.status(b).waiting,
              reference.unit.status(b).waiting);
  }
  EXPECT_EQ(restored.unit.blocked_warps(), reference.unit.blocked_warps());
  EXPECT_EQ(restored.unit.exited_warps(), reference.unit.exited_warps());

  std::vector<std::string> expected = suffix(reference, arrived);
  std::vector<std::string> actual = suffix(restored, arrived);
  EXPECT_EQ(actual, expected);
  EXPECT_GT(expected.size(), 50u);
}

TEST(SaveRestore, SaveUsesB2RAndRestoreUsesR2B) {
  Cta cta(128);
  cta.run(0, red(RedOp::Popc, 5, 96, kPT));
  cta.run(1, arv(6, 64));
  SavedContext ctx = save_context(cta.unit);
  size_t saves = 0;
  for (const Event &e : cta.unit.events())
    saves += e.kind == EventKind::Save;
  EXPECT_EQ(saves, 16u);
  BarrierUnit fresh(128);
  restore_context(fresh, ctx);
  size_t restores = 0;
  for (const Event &e : fresh.events())
    restores += e.kind == EventKind::Restore;
  EXPECT_EQ(restores, 16u + 4u);
  EXPECT_EQ(fresh.waiting_on(0), 5u);
  // The ARV arrival is in the restored count: one more arrival completes.
  LaneValueTable v;
  EXPECT_EQ(fresh.execute(2, ~0u, arv(6, 64), v).status, Status::Continue);
  EXPECT_EQ(fresh.phase(6), 1u);
  // BAR.RED on 5 needs two more warps; its popcount continues from 32.
  fresh.execute(2, ~0u, red(RedOp::Popc, 5, 96, kPT), v);
  EXPECT_EQ(fresh.execute(3, 0x1u, red(RedOp::Popc, 5, 96, kPT), v).woken,
            0x5u);
  EXPECT_EQ(StateWord::unpack(fresh.warp_state(0)).popc, 65u);
}

} // namespace
} // namespace bcusim::bcu::test
