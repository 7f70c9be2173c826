// Contraction of a floating-point multiply into the add that uses it, as
// the PTX assembler does it (docs/engine.md "Multiply-add contraction").
#pragma once

#include <cstdint>
#include <vector>

#include "bcusim/ptx/ast.h"

namespace bcusim::engine::detail {

// An `add`/`sub` that the assembler turns into one fused multiply-add: it
// computes `(neg_product ? -1 : 1) * a * b + (neg_addend ? -1 : 1) * c`,
// rounded once, with `a` and `b` the sources of the `mul` at body index
// `mul` and `c` the add's other operand (operand `addend` of the add).
struct Contraction {
  static constexpr uint32_t kNone = ~0u;
  uint32_t mul = kNone;
  uint8_t addend = 0;
  bool neg_product = false;
  bool neg_addend = false;
  bool contracted() const { return mul != kNone; }
};

// One entry per instruction of `f.body`; contracted() only for the adds
// and subs that become fused multiply-adds.
std::vector<Contraction> find_contractions(const ptx::Function &f);

} // namespace bcusim::engine::detail
