// CTA barriers at compile time (docs/barriers.md): every bar{.cta} /
// barrier{.cta} form is lowered onto BCU words (lower.cpp, through the ISA
// library's assembler); the words are decoded again here and turned into
// the barrier unit's instructions (bcu::from_decoded), so the engine runs
// what the encoding says. The run-time side is in sync_cta.cpp
// (Kind::CtaBarrier).
#include <fmt/format.h>

#include "bcusim/bcu/instr.h"
#include "bcusim/isa/isa.h"
#include "bcusim/ptx/instructions.h"
#include "compile.h"

namespace bcusim::engine::detail {

namespace {
bool decode_word(Compiler &c, const isa::Word128 &word, bcu::Instr &out) {
  std::string why;
  auto decoded = isa::decode(*isa::builtin(), word, &why);
  std::optional<bcu::Instr> instr;
  if (decoded)
    instr = bcu::from_decoded(*decoded, &why);
  if (!instr) {
    c.error(c.cur->loc, fmt::format("internal error: the lowered BCU word {} "
                                    "does not decode: {}",
                                    word.to_hex(), why));
    return false;
  }
  out = *instr;
  return true;
}
} // namespace

bool compile_cta_barrier(Compiler &c, const ptx::Instruction &in) {
  auto lb = lower_barrier(in, c.ast(), c.sink);
  if (!lb) {
    c.failed = true;
    return true;
  }
  BarrierCode bc;
  bc.op = lb->op;
  bc.aligned = lb->aligned;
  // Seed 004, "Note": for .target sm_6x or below, barrier{.cta} without
  // .aligned is equivalent to the .aligned variant, with its restrictions.
  if (auto t = ptx::parse_target(c.mod.target); !bc.aligned && t && t->sm < 70)
    bc.aligned = bc.aligned_by_target = true;
  bc.packed = lb->packed;
  bool red = lb->op == BarrierOp::RedPopc || lb->op == BarrierOp::RedAnd ||
             lb->op == BarrierOp::RedOr;
  const auto &o = in.operands;
  size_t first = red ? 1 : 0;
  if (lb->id.kind == BarrierOperand::Kind::Reg)
    bc.id_slot = c.src(o[first], Ty{Ty::U32});
  else
    bc.imm_id = lb->id.value;
  if (lb->count.kind == BarrierOperand::Kind::Reg)
    bc.count_slot = c.src(o[first + 1], Ty{Ty::U32});
  if (red) {
    bc.pred = c.fn().reg_slot[lb->pred.value];
    bc.pred_negated = lb->pred_negated;
    bc.dst = lb->op == BarrierOp::RedPopc ? c.dst(o[0]) : c.pdst(o[0]);
  }
  if (!decode_word(c, lb->instrs[0].word, bc.arrive))
    return true;
  if (red && !decode_word(c, lb->instrs[1].word, bc.result))
    return true;
  c.prog.barriers.push_back(bc);
  Inst &i = c.emit(nullptr, Kind::CtaBarrier);
  i.aux = uint32_t(c.prog.barriers.size() - 1);
  return true;
}

} // namespace bcusim::engine::detail
