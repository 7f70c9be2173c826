// Context switch of the barrier unit (docs/bcu.md, "Save and restore").
#include "bcusim/bcu/context.h"

namespace bcusim::bcu {
namespace {

constexpr unsigned kScratchReg = 0;

std::optional<unsigned> issuing_warp(const BarrierUnit &unit) {
  for (unsigned w = 0; w < unit.warps(); ++w)
    if (!unit.is_exited(w) && !unit.is_blocked(w))
      return w;
  return std::nullopt;
}

} // namespace

SavedContext save_context(BarrierUnit &unit) {
  SavedContext ctx;
  ctx.threads = unit.threads();
  ctx.exited = unit.exited_warps();
  std::optional<unsigned> handler = issuing_warp(unit);
  LaneValueTable none;
  for (unsigned b = 0; b < kNumBarriers; ++b) {
    if (handler) {
      Instr in;
      in.op = Op::B2RBar;
      in.barid = Source::imm(b);
      in.rd = kScratchReg;
      Outcome o = unit.execute(*handler, 1u, in, none);
      ctx.barrier_words[b] = o.rd ? o.rd->values[0] : unit.bar_state(b);
    } else {
      ctx.barrier_words[b] = unit.bar_state(b);
    }
  }
  for (unsigned w = 0; w < unit.warps(); ++w) {
    ctx.warp_words[w] = unit.warp_state(w);
    ctx.blocked_on[w] = unit.waiting_on(w);
  }
  return ctx;
}

void restore_context(BarrierUnit &fresh, const SavedContext &ctx) {
  for (unsigned w = 0; w < fresh.warps(); ++w)
    if (ctx.exited >> w & 1)
      fresh.warp_exited(w);
  std::optional<unsigned> handler = issuing_warp(fresh);
  LaneValueTable values;
  if (handler) {
    for (unsigned b = 0; b < kNumBarriers; ++b) {
      values.set_reg(kScratchReg, ctx.barrier_words[b]);
      Instr in;
      in.op = Op::R2BBar;
      in.barid = Source::imm(b);
      in.ra = kScratchReg;
      fresh.execute(*handler, 1u, in, values);
    }
  }
  for (unsigned w = 0; w < fresh.warps(); ++w) {
    if (fresh.is_exited(w))
      continue;
    values.set_reg(kScratchReg, ctx.warp_words[w]);
    Instr in;
    in.op = Op::R2BWarp;
    in.ra = kScratchReg;
    fresh.execute(w, 1u, in, values);
  }
  for (unsigned w = 0; w < fresh.warps(); ++w)
    if (ctx.blocked_on[w])
      fresh.resume_blocked(w, *ctx.blocked_on[w]);
}

} // namespace bcusim::bcu
