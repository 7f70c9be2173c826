// Randomized differential test: random valid BCU instruction streams run on
// the BarrierUnit and on the independent thread-counting ReferenceModel
// (reference_model.h); every step must agree. Some runs context-switch the
// unit at random points (save_context/restore_context into a fresh unit);
// the reference never stops, so agreement also proves the round trip.
// Fixed seeds: deterministic.
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <memory>
#include <random>

#include "bcusim/bcu/context.h"
#include "helpers.h"
#include "reference_model.h"

namespace bcusim::bcu::test {
namespace {

struct Protocol {
  unsigned id = 0;
  bool red = false;
  RedOp redop = RedOp::And;
  unsigned count = 0; // threads; 0 = all live warps
};

class Generator {
public:
  Generator(uint32_t seed, bool switches) : rng_(seed), switches_(switches) {
    unsigned threads = pick(0, 3) == 0 ? 32 * pick(1, 32) : pick(1, 1024);
    unit_ = std::make_unique<BarrierUnit>(threads);
    ref_ = std::make_unique<ReferenceModel>(threads);
    unsigned warps = unit_->warps();
    std::vector<unsigned> ids(16);
    for (unsigned i = 0; i < 16; ++i)
      ids[i] = i;
    std::shuffle(ids.begin(), ids.end(), rng_);
    unsigned n = pick(1, 6);
    for (unsigned i = 0; i < n; ++i) {
      Protocol p;
      p.id = ids[i];
      p.red = pick(0, 2) == 0;
      p.redop = static_cast<RedOp>(pick(0, 2));
      p.count = pick(0, 2) == 0 ? 0 : 32 * pick(1, warps);
      protocols_.push_back(p);
    }
  }

  unsigned pick(unsigned lo, unsigned hi) {
    return std::uniform_int_distribution<unsigned>(lo, hi)(rng_);
  }
  uint32_t bits() { return static_cast<uint32_t>(rng_()); }

  // Returns false when no warp can issue any more.
  bool step(int index) {
    std::vector<unsigned> ready;
    for (unsigned w = 0; w < unit_->warps(); ++w)
      if (!ref_->blocked(w) && !ref_->exited(w))
        ready.push_back(w);
    if (ready.empty())
      return false;
    unsigned warp = ready[pick(0, static_cast<unsigned>(ready.size()) - 1)];
    SCOPED_TRACE(::testing::Message() << "step " << index << " warp " << warp);

    if (switches_ && pick(0, 30) == 0)
      context_switch();

    unsigned action = pick(0, 99);
    if (action < 3) {
      uint32_t woken = unit_->warp_exited(warp);
      std::vector<unsigned> ref_woken = ref_->exit(warp);
      EXPECT_EQ(woken, mask_of(ref_woken));
      return compare_state();
    }
    values_ = LaneValueTable();
    uint32_t active = pick(0, 3) == 0 ? bits() | 1u << pick(0, 31) : ~0u;
    Instr in;
    if (action < 15) {
      if (!has_copy_[warp])
        return true;
      in.op = Op::Result;
      in.rd = 20;
      in.pu = 5;
    } else {
      std::vector<const Protocol *> open;
      for (const Protocol &p : protocols_)
        if (!ref_->arrived_this_phase(p.id, warp))
          open.push_back(&p);
      if (open.empty())
        return true;
      const Protocol &p =
          *open[pick(0, static_cast<unsigned>(open.size()) - 1)];
      in = make_arrival(p);
    }
    // A guard on a third of the instructions.
    if (pick(0, 2) == 0) {
      in.pg = pick(0, 6);
      in.pg_not = pick(0, 1) == 1;
      values_.set_pred(in.pg, bits());
    }
    if (in.op == Op::Red && in.pp != kPT)
      values_.set_pred(in.pp, bits());
    uint32_t guard = in.pg == kPT ? ~0u : values_.pred(in.pg);
    if (in.pg_not)
      guard = ~guard;
    uint32_t executed = active & guard & unit_->lane_mask(warp);
    fill_registers(in, executed);

    Outcome o = unit_->execute(warp, active, in, values_);
    ReferenceModel::Step r = ref_->execute(warp, active, in, values_);
    EXPECT_EQ(o.executed != 0, r.executed);
    EXPECT_EQ(o.status == Status::Blocked, r.blocked);
    EXPECT_EQ(o.woken, mask_of(r.woken));
    if (in.op == Op::Result && r.executed) {
      if (!o.rd || !o.pu) {
        ADD_FAILURE() << "BAR.RESULT wrote nothing";
        return false;
      }
      unsigned lane = static_cast<unsigned>(std::countr_zero(executed));
      EXPECT_EQ(o.rd->values[lane], *r.rd);
      ++results_compared_;
      EXPECT_EQ((o.pu->values >> lane & 1) != 0, *r.pu);
    }
    // A BAR.RED warp waits until its reduction completes: from then on it
    // has a copy.
    if (in.op == Op::Red && r.executed)
      has_copy_[warp] = true;
    return compare_state();
  }

  void check_no_exceptions() const {
    for (const Event &e : events_) {
      if (e.kind == EventKind::Exception) {
        EXPECT_EQ(e.exception, ExceptionKind::UndefinedResult) << render(e);
      }
    }
  }

  unsigned switches_done() const { return switches_done_; }
  unsigned completions() const {
    unsigned n = 0;
    for (const Event &e : events_)
      n += e.kind == EventKind::Complete;
    return n;
  }
  unsigned results_compared() const { return results_compared_; }

private:
  Instr make_arrival(const Protocol &p) {
    Op op = Op::Sync;
    if (p.red)
      op = Op::Red;
    else if (p.count != 0 && pick(0, 2) == 0)
      op = Op::Arrive;
    Instr in;
    in.op = op;
    in.redop = p.redop;
    id_ = p.id;
    count_ = p.count;
    // BAR forms: imm/imm, reg/reg, reg/imm, imm/reg. BAR.RED forms: packed,
    // imm/imm, reg/imm, imm/reg (no GPR/GPR: seed 001).
    unsigned form = pick(0, 3);
    if (op == Op::Red && form == 0) {
      in.packed = true;
      in.barid = Source::reg(1);
    } else {
      bool id_reg = form == 2 || (form == 1 && op != Op::Red);
      bool cnt_reg = form == 3 || (form == 1 && op != Op::Red);
      in.barid = id_reg ? Source::reg(2) : Source::imm(p.id);
      in.count = cnt_reg ? Source::reg(3) : Source::imm(p.count);
    }
    if (op == Op::Red) {
      in.pp = pick(0, 4) == 0 ? kPT : pick(0, 6);
      in.pp_not = pick(0, 1) == 1;
    }
    return in;
  }

  // Register operands: the first executing lane holds the value (with
  // garbage above the 4/12 significant bits), the other lanes garbage.
  void fill_registers(const Instr &in, uint32_t executed) {
    unsigned lane =
        executed ? static_cast<unsigned>(std::countr_zero(executed)) : 0;
    for (unsigned l = 0; l < 32; ++l) {
      values_.set_reg(1, l, bits());
      values_.set_reg(2, l, bits());
      values_.set_reg(3, l, bits());
    }
    values_.set_reg(1, lane, (bits() << 16) | (count_ << 4) | id_);
    values_.set_reg(2, lane, (bits() << 4) | id_);
    values_.set_reg(3, lane, (bits() << 12) | count_);
    (void)in;
  }

  bool compare_state() {
    for (const Event &e : unit_->take_events())
      events_.push_back(e);
    for (unsigned w = 0; w < unit_->warps(); ++w) {
      EXPECT_EQ(unit_->is_blocked(w), ref_->blocked(w)) << "warp " << w;
      EXPECT_EQ(unit_->is_exited(w), ref_->exited(w)) << "warp " << w;
    }
    for (unsigned b = 0; b < 16; ++b) {
      EXPECT_EQ(unit_->bar_state_fields(b).arrived * 32, ref_->count(b))
          << "barrier " << b;
    }
    return !::testing::Test::HasFailure();
  }

  void context_switch() {
    SavedContext ctx = save_context(*unit_);
    auto fresh = std::make_unique<BarrierUnit>(unit_->threads());
    restore_context(*fresh, ctx);
    for (unsigned b = 0; b < 16; ++b)
      EXPECT_EQ(fresh->bar_state(b), unit_->bar_state(b)) << "barrier " << b;
    for (unsigned w = 0; w < unit_->warps(); ++w) {
      if (!unit_->is_exited(w)) {
        EXPECT_EQ(fresh->warp_state(w), unit_->warp_state(w));
      }
    }
    unit_->take_events();
    fresh->take_events();
    unit_ = std::move(fresh);
    ++switches_done_;
  }

  static uint32_t mask_of(const std::vector<unsigned> &warps) {
    uint32_t m = 0;
    for (unsigned w : warps)
      m |= 1u << w;
    return m;
  }

  std::mt19937 rng_;
  bool switches_;
  std::unique_ptr<BarrierUnit> unit_;
  std::unique_ptr<ReferenceModel> ref_;
  std::vector<Protocol> protocols_;
  LaneValueTable values_;
  std::array<bool, 32> has_copy_{};
  std::vector<Event> events_;
  unsigned id_ = 0;
  unsigned count_ = 0;
  unsigned switches_done_ = 0;
  unsigned results_compared_ = 0;
};

void run_streams(bool switches, uint32_t first_seed, unsigned runs) {
  unsigned total_switches = 0, completions = 0, results = 0;
  for (uint32_t seed = first_seed; seed < first_seed + runs; ++seed) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    Generator gen(seed, switches);
    for (int i = 0; i < 600; ++i)
      if (!gen.step(i))
        break;
    gen.check_no_exceptions();
    total_switches += gen.switches_done();
    completions += gen.completions();
    results += gen.results_compared();
    if (::testing::Test::HasFailure())
      return;
  }
  // The streams must exercise the unit, not just stop at once.
  EXPECT_GT(completions, runs * 5);
  EXPECT_GT(results, runs);
  std::printf("%u runs: %u completions, %u results, %u switches\n", runs,
              completions, results, total_switches);
  if (switches) {
    EXPECT_GT(total_switches, runs);
  }
}

TEST(Differential, RandomValidStreamsMatchTheReferenceModel) {
  run_streams(false, 1, 300);
}

TEST(Differential, RandomStreamsWithContextSwitchesMatchNeverStopping) {
  run_streams(true, 1000, 300);
}

} // namespace
} // namespace bcusim::bcu::test
