// Shorthands for building semantic BCU instructions in tests.
#pragma once

#include "bcusim/bcu/barrier_unit.h"

namespace bcusim::bcu::test {

inline Instr bar(Op op, Source id, Source count) {
  Instr in;
  in.op = op;
  in.barid = id;
  in.count = count;
  return in;
}
inline Instr sync(unsigned id, unsigned count = 0) {
  return bar(Op::Sync, Source::imm(id), Source::imm(count));
}
inline Instr arv(unsigned id, unsigned count) {
  return bar(Op::Arrive, Source::imm(id), Source::imm(count));
}
inline Instr red(RedOp redop, unsigned id, unsigned count, unsigned pp,
                 bool pp_not = false) {
  Instr in = bar(Op::Red, Source::imm(id), Source::imm(count));
  in.redop = redop;
  in.pp = pp;
  in.pp_not = pp_not;
  return in;
}
inline Instr red_packed(RedOp redop, unsigned reg, unsigned pp,
                        bool pp_not = false) {
  Instr in = bar(Op::Red, Source::reg(reg), Source::none());
  in.packed = true;
  in.redop = redop;
  in.pp = pp;
  in.pp_not = pp_not;
  return in;
}
inline Instr result(unsigned rd, unsigned pu) {
  Instr in;
  in.op = Op::Result;
  in.rd = rd;
  in.pu = pu;
  return in;
}
inline Instr b2r_bar(unsigned rd, unsigned id) {
  Instr in;
  in.op = Op::B2RBar;
  in.rd = rd;
  in.barid = Source::imm(id);
  return in;
}
inline Instr b2r_warp(unsigned rd) {
  Instr in;
  in.op = Op::B2RWarp;
  in.rd = rd;
  return in;
}
inline Instr r2b_bar(unsigned id, unsigned ra) {
  Instr in;
  in.op = Op::R2BBar;
  in.barid = Source::imm(id);
  in.ra = ra;
  return in;
}
inline Instr r2b_warp(unsigned ra) {
  Instr in;
  in.op = Op::R2BWarp;
  in.ra = ra;
  return in;
}
inline Instr guarded(Instr in, unsigned pg, bool pg_not = false) {
  in.pg = pg;
  in.pg_not = pg_not;
  return in;
}

// One CTA and one table of lane values shared by all warps (tests set what
// they need before each instruction).
struct Cta {
  explicit Cta(unsigned threads) : unit(threads) {}
  Outcome run(unsigned warp, const Instr &in, uint32_t active = 0xffffffffu) {
    return unit.execute(warp, active, in, values);
  }
  std::vector<ExceptionKind> exceptions() const {
    std::vector<ExceptionKind> out;
    for (const Event &e : unit.events())
      if (e.kind == EventKind::Exception)
        out.push_back(e.exception);
    return out;
  }
  const Event *last(EventKind kind) const {
    const auto &ev = unit.events();
    for (auto it = ev.rbegin(); it != ev.rend(); ++it)
      if (it->kind == kind)
        return &*it;
    return nullptr;
  }
  BarrierUnit unit;
  LaneValueTable values;
};

} // namespace bcusim::bcu::test
