// CTA barriers in the scheduler (docs/barriers.md): each PTX barrier was
// lowered to BCU words at compile time; here a warp's lanes at a barrier
// instruction become one arrival executed by the CTA's barrier unit, and
// the unit's completions release the waiting warps. The unit's own events
// (arrivals, completions) are what the observer sees.
#include <optional>

#include <fmt/format.h>

#include "worker.h"

namespace bcusim::engine::detail {

namespace {

// The values of one arrival's mapped BCU operands (lower.h): R0 = barrier
// id, R1 = count, R2 = packed id | count << 4, P0 = reduction input.
class BarLaneValues final : public bcu::LaneValues {
public:
  std::array<uint32_t, kWarpSize> id{}, count{}, packed{};
  uint32_t input = 0;
  uint32_t reg(unsigned lane, unsigned r) const override {
    lane &= kWarpSize - 1;
    return r == kBarIdReg       ? id[lane]
           : r == kBarCountReg  ? count[lane]
           : r == kBarPackedReg ? packed[lane]
                                : 0;
  }
  uint32_t pred(unsigned p) const override {
    return p == kBarInputPred ? input : 0;
  }
};

bool is_red(BarrierOp op) {
  return op == BarrierOp::RedPopc || op == BarrierOp::RedAnd ||
         op == BarrierOp::RedOr;
}

// Kinds of barrier diagnostics (warn-only deduplication key).
constexpr int kAlignedDivergent = 100;
constexpr int kRegisterOperand = 101;

} // namespace

std::optional<uint32_t> Worker::path_barrier(Warp &w, const Path &p) const {
  const BarrierCode &bc = P.barriers[P.code[p.pc].aux];
  if (bc.id_slot == kNone)
    return bc.imm_id;
  if (p.mask == 0)
    return std::nullopt;
  return uint32_t(w.lanes<uint32_t>(bc.id_slot)[std::countr_zero(p.mask)]) &
         0xfu;
}

bool Worker::bar_report(Cta &c, Warp &w, uint32_t pc, int kind, Diagnostic d) {
  (void)w;
  const RunProblem problem = kind == kAlignedDivergent
                                 ? RunProblem::BarrierDivergence
                                 : RunProblem::SyncMisuse;
  if (!S.cfg.warn_only) {
    S.fail(RunStatus::Fault, problem, {std::move(d)});
    return false;
  }
  // --warn-only: the run goes on as the barrier unit does (docs/barriers.md
  // "--warn-only"); each (instruction, kind) is reported once per CTA.
  if (!c.bars.warned.insert({pc, kind}).second)
    return true;
  d.severity = Severity::Warning;
  std::lock_guard<std::mutex> g(S.mu);
  S.warnings.push_back({std::move(d), problem});
  return true;
}

bool Worker::barrier_step(Cta &c, Warp &w, uint32_t pi) {
  // PTX: a barrier instruction makes the thread wait for all non-exited
  // threads of its warp, and the warp arrives once (sm_70+). For .aligned
  // forms the lanes must all be at this same instruction: the engine's
  // divergent paths are merged here first (as the hardware reconverges
  // before an aligned barrier), and lanes found at another instruction are
  // the .aligned divergence error.
  w.paths[pi].state = PathState::WaitBarrier;
  return try_group(c, w);
}

bool Worker::try_group(Cta &c, Warp &w) {
  uint32_t live = w.valid & ~w.exited, waiting = 0;
  // Every barrier instruction of every warp comes here: no allocation. A
  // warp has at most 32 paths (their lane masks are disjoint, non-empty).
  std::array<uint32_t, kWarpSize> slots;
  size_t n = 0;
  for (uint32_t i = 0; i < w.paths.size() && n < slots.size(); ++i)
    if (w.paths[i].state == PathState::WaitBarrier) {
      waiting |= w.paths[i].mask;
      slots[n++] = i;
    }
  const std::span<const uint32_t> group(slots.data(), n);
  if (group.empty() || (live & ~waiting) != 0)
    return true; // other lanes of the warp have still to come
  auto b0 = path_barrier(w, w.paths[group[0]]);
  for (uint32_t i : group)
    if (path_barrier(w, w.paths[i]) != b0)
      return true; // lanes at different barriers: reported as a deadlock
  // Converged: every path at one instruction, in the same calls. Paths at
  // one instruction of a function called from different call sites (a
  // __noinline__ helper holding __syncthreads() called in both branches
  // of a divergent if) cannot reconverge there.
  bool one_pc = true, one_stack = true;
  for (uint32_t i : group) {
    one_pc = one_pc && w.paths[i].pc == w.paths[group[0]].pc;
    one_stack = one_stack && w.paths[i].calls == w.paths[group[0]].calls;
  }
  for (uint32_t i : group) {
    const Path &p = w.paths[i];
    const BarrierCode &bc = P.barriers[P.code[p.pc].aux];
    if ((one_pc && one_stack) || !bc.aligned)
      continue;
    uint32_t pc = p.pc, here = 0;
    for (uint32_t j : group)
      if (w.paths[j].pc == pc && (!one_pc || w.paths[j].calls == p.calls))
        here |= w.paths[j].mask;
    Diagnostic d = where(
        c, w, uint32_t(std::countr_zero(here)),
        one_pc ? fmt::format("'{}' is .aligned{}, but warp {} reaches it "
                             "divergent, through different calls: lanes "
                             "{:#010x} and lanes {:#010x} execute it apart",
                             P.code_text[pc],
                             bc.aligned_by_target ? " on this .target" : "",
                             w.index, here, live & ~here)
               : fmt::format("'{}' is .aligned{}, but warp {} reaches it "
                             "divergent: lanes {:#010x} execute it, lanes "
                             "{:#010x} do not",
                             P.code_text[pc],
                             bc.aligned_by_target ? " on this .target" : "",
                             w.index, here, live & ~here),
        pc);
    for (uint32_t j : group)
      if (w.paths[j].pc != pc) {
        Diagnostic n;
        n.severity = Severity::Note;
        n.loc = P.locs[w.paths[j].pc];
        n.message = fmt::format("lanes {:#010x} of warp {} are at this "
                                "barrier instruction instead",
                                w.paths[j].mask, w.index);
        d.notes.push_back(std::move(n));
      } else if (one_pc && !w.paths[j].calls.empty()) {
        Diagnostic n;
        n.severity = Severity::Note;
        n.loc = P.locs[w.paths[j].calls.back()];
        n.message = fmt::format("lanes {:#010x} of warp {} come from this "
                                "call",
                                w.paths[j].mask, w.index);
        d.notes.push_back(std::move(n));
      }
    Diagnostic n;
    n.severity = Severity::Note;
    n.message =
        bc.aligned_by_target
            ? "for .target sm_6x and below, barrier{.cta} without .aligned "
              "is equivalent to the .aligned variant (PTX): every non-exited "
              "thread of the warp must execute the same barrier instruction "
              "in convergence"
            : "bar.* is barrier.*.aligned: every thread of the warp must "
              "execute the same barrier instruction; in divergent code use "
              "the non-aligned barrier.sync / barrier.arrive / barrier.red";
    d.notes.push_back(std::move(n));
    if (!bar_report(c, w, pc, kAlignedDivergent, std::move(d)))
      return false;
    break;
  }
  return bar_arrive(c, w, group);
}

bool Worker::bar_arrive(Cta &c, Warp &w, std::span<const uint32_t> group) {
  uint32_t active = 0, lead = group[0];
  for (uint32_t i : group) {
    active |= w.paths[i].mask;
    if (std::countr_zero(w.paths[i].mask) <
        std::countr_zero(w.paths[lead].mask))
      lead = i;
  }
  const uint32_t pc = w.paths[lead].pc;
  const BarrierCode &lc = P.barriers[P.code[pc].aux];
  BarLaneValues v;
  // PTX (seeds 000/004): a barrier id is 0..15 and a thread count at most
  // the CTA's threads; the unit reads only the low 4 / 12 bits of a
  // register (seed 001), which would silently name another barrier or
  // count, so larger register values are reported here first.
  std::optional<Diagnostic> bad_operand;
  for (uint32_t i : group) {
    const Path &q = w.paths[i];
    const BarrierCode &bc = P.barriers[P.code[q.pc].aux];
    if (bc.id_slot != kNone || bc.count_slot != kNone)
      for_lanes(q.mask, [&](uint32_t l) {
        uint32_t id = bc.id_slot != kNone
                          ? uint32_t(w.lanes<uint32_t>(bc.id_slot)[l])
                          : bc.imm_id;
        uint32_t n = bc.count_slot != kNone
                         ? uint32_t(w.lanes<uint32_t>(bc.count_slot)[l])
                         : 0;
        v.id[l] = id;
        v.count[l] = n;
        v.packed[l] = (id & 0xfu) | (n & 0xfffu) << 4;
        if (bad_operand || (id <= 0xfu && n <= 0xfffu))
          return;
        bad_operand = where(
            c, w, l,
            id > 0xfu
                ? fmt::format("barrier id {} from a register is outside "
                              "0..15 (PTX: operand a names one of the CTA's "
                              "16 barriers); the barrier unit reads only its "
                              "low 4 bits, barrier {}",
                              id, id & 0xfu)
                : fmt::format("bad thread count {} from a register on "
                              "barrier {} (PTX: the count must be a multiple "
                              "of the warp size, and at most the CTA's "
                              "threads); the barrier unit reads only its low "
                              "12 bits, {}",
                              n, id, n & 0xfffu),
            q.pc);
      });
    if (bc.pred != kNone) {
      // Lanes of another instruction (non-aligned, different pcs) are given
      // so that the lead instruction's negation yields their own input.
      uint32_t raw = w.preds[bc.pred];
      if (bc.pred_negated != lc.pred_negated)
        raw = ~raw;
      v.input |= raw & q.mask;
    }
  }
  if (bad_operand &&
      !bar_report(c, w, pc, kRegisterOperand, std::move(*bad_operand)))
    return false;
  auto &unit = *c.bars.unit;
  c.bars.raised.clear();
  bcu::Outcome out = unit.execute(w.index, active, lc.arrive, v);
  ++x.progress;
  if (S.obs)
    forward_bar_events(c, w.index, active, pc);
  if (!c.bars.raised.empty()) {
    std::vector<bcu::Event> raised = std::move(c.bars.raised);
    c.bars.raised.clear();
    for (const auto &e : raised) {
      unsigned b = e.barrier >= 0 ? unsigned(e.barrier) : 0;
      std::string msg;
      switch (e.exception) {
      case bcu::ExceptionKind::CountMismatch:
        msg = fmt::format("different thread counts on barrier {}: warp {} "
                          "arrives with another count than the warps already "
                          "there (PTX: cooperating warps must use the same "
                          "thread count)",
                          b, w.index);
        break;
      case bcu::ExceptionKind::RedMixed:
        msg = fmt::format("barrier {} mixes .red (a reduction) with "
                          ".sync/.arrive in one phase (PTX: barrier.red "
                          "should not be intermixed with barrier.sync or "
                          "barrier.arrive using the same active barrier)",
                          b);
        break;
      case bcu::ExceptionKind::DoubleArrival:
        msg = fmt::format("warp {} arrives again at barrier {} before it "
                          "reset (PTX: a warp must not execute another "
                          "barrier instruction on a barrier it arrived at "
                          "before the barrier completes)",
                          w.index, b);
        break;
      case bcu::ExceptionKind::BadCount:
        msg = fmt::format("bad thread count on barrier {} (PTX: the count "
                          "must be a multiple of the warp size, and at most "
                          "the CTA's threads)",
                          b);
        break;
      default:
        msg = fmt::format("barrier unit exception on barrier {}", b);
        break;
      }
      Diagnostic d = where(c, w, uint32_t(std::countr_zero(active)), msg, pc);
      Diagnostic n;
      n.severity = Severity::Note;
      n.message = fmt::format("barrier unit: {} exception: {}",
                              bcu::name(e.exception), e.message);
      d.notes.push_back(n);
      if (e.barrier >= 0)
        bcu::for_each_bit(e.warps, [&](unsigned x) {
          if (x >= c.warps.size() ||
              (x == w.index &&
               e.exception != bcu::ExceptionKind::DoubleArrival))
            return;
          Diagnostic m;
          m.severity = Severity::Note;
          m.loc = P.locs[c.bars.pc[b][x]];
          m.message =
              x == w.index
                  ? fmt::format("warp {} arrived at barrier {} here before", x,
                                b)
                  : fmt::format("warp {} arrived at barrier {} here", x, b);
          d.notes.push_back(std::move(m));
        });
      if (!bar_report(c, w, pc, int(e.exception), std::move(d)))
        return false;
    }
  }
  if (out.barrier >= 0)
    c.bars.pc[unsigned(out.barrier)][w.index] = pc;
  if (out.status == bcu::Status::Blocked) {
    for (uint32_t i : group)
      w.paths[i].state = PathState::BlockedCta;
    w.bar_blocked = true;
  } else {
    for (uint32_t i : group)
      bar_finish(c, w, w.paths[i]);
  }
  bar_released(c);
  return true;
}

// The path's barrier completed: BAR.RESULT for .red, then the next pc.
void Worker::bar_finish(Cta &c, Warp &w, Path &p) {
  const BarrierCode &bc = P.barriers[P.code[p.pc].aux];
  if (is_red(bc.op)) {
    BarLaneValues none;
    bcu::Outcome out = c.bars.unit->execute(w.index, p.mask, bc.result, none);
    c.bars.raised.clear();
    if (out.rd)
      for_lanes(out.rd->lanes & p.mask, [&](uint32_t l) {
        w.lanes<uint32_t>(bc.dst)[l] = out.rd->values[l];
      });
    if (out.pu) {
      uint32_t lanes = out.pu->lanes & p.mask;
      w.preds[bc.dst] = (w.preds[bc.dst] & ~lanes) | (out.pu->values & lanes);
    }
  }
  if (S.obs && bc.op != BarrierOp::Arrive) {
    auto e = event<BarrierResumeEvent>(c, w, p.mask, p.pc);
    auto id = path_barrier(w, p);
    e.barrier = int(id.value_or(0));
    e.phase = c.bars.unit->phase(unsigned(e.barrier)) - 1;
    S.obs->on_barrier_resume(e);
  }
  p.state = PathState::Ready;
  ++p.pc;
}

// Sends the barrier unit's arrivals and completions of the instruction just
// executed to the observer (warp `warp`, lanes `lanes` at `pc` arrived).
void Worker::forward_bar_events(Cta &c, uint32_t warp, uint32_t lanes,
                                uint32_t pc) {
  for (const bcu::Event &u : c.bars.seen) {
    if (u.kind == bcu::EventKind::Arrive) {
      BarrierArriveEvent e;
      e.cta = c.linear;
      e.warp = warp;
      e.lanes = lanes;
      e.pc = pc;
      e.barrier = u.barrier;
      e.phase = u.phase;
      e.count = u.expected;
      if (pc < P.code.size() && P.code[pc].kind == Kind::CtaBarrier) {
        const BarrierCode &bc = P.barriers[P.code[pc].aux];
        e.op = bc.op;
        e.aligned = bc.aligned;
      } else {
        e.op = u.op == bcu::Op::Arrive ? BarrierOp::Arrive
               : u.op == bcu::Op::Red  ? BarrierOp::RedPopc
                                       : BarrierOp::Sync;
      }
      S.obs->on_barrier_arrive(e);
    } else {
      BarrierCompleteEvent e;
      e.cta = c.linear;
      e.barrier = u.barrier;
      e.phase = u.phase;
      e.warps = u.warps;
      e.count = u.expected;
      S.obs->on_barrier_complete(e);
    }
  }
  c.bars.seen.clear();
}

void Worker::bar_released(Cta &c) {
  uint32_t released = c.bars.unit->take_released();
  bcu::for_each_bit(released, [&](unsigned wi) {
    Warp &x = c.warps[wi];
    x.bar_blocked = false;
    for (auto &p : x.paths)
      if (p.state == PathState::BlockedCta)
        bar_finish(c, x, p);
  });
}

// Lanes of `w` exited: a fully exited warp is no longer waited for by
// count-0 barriers; partly exited, its lanes waiting at a non-aligned
// barrier may now be complete.
bool Worker::bar_exited(Cta &c, Warp &w) {
  if (w.paths.empty()) {
    c.bars.raised.clear();
    c.bars.unit->warp_exited(w.index);
    c.bars.raised.clear();
    if (S.obs)
      forward_bar_events(c, w.index, 0, 0);
    bar_released(c);
    return true;
  }
  return try_group(c, w);
}

} // namespace bcusim::engine::detail
