// CTA barriers in the engine (docs/barriers.md): the compiled form of one
// PTX barrier instruction (its BCU words already decoded) and the per-CTA
// barrier unit state. Internal to src/engine.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "bcusim/bcu/barrier_unit.h"
#include "bcusim/engine/lower.h"

namespace bcusim::engine::detail {

// One lowered PTX barrier (Program::barriers[Inst::aux]).
struct BarrierCode {
  BarrierOp op = BarrierOp::Sync;
  bool aligned = true;
  // Non-aligned form made .aligned by the module's target (sm_6x and below:
  // seed 004 "Note"); only the diagnostic's wording depends on it.
  bool aligned_by_target = false;
  bool packed = false;
  // Register slots of the operands mapped to BCU R0/R1 (kNone: immediate or
  // absent; the immediates are in the words).
  uint32_t id_slot = 0xffffffffu, count_slot = 0xffffffffu;
  uint32_t pred = 0xffffffffu; // PTX predicate index of `c` (BCU P0)
  bool pred_negated = false;
  uint32_t dst = 0xffffffffu; // .red destination: slot (popc) or predicate
  uint32_t imm_id = 0;        // the immediate barrier id (id_slot == kNone)
  // The decoded BCU words: the arrival, and BAR.RESULT for .red.
  bcu::Instr arrive, result;
};

// The barrier unit of one CTA and what diagnostics need to know about it.
struct CtaBarriers {
  std::unique_ptr<bcu::BarrierUnit> unit;
  // pc of each warp's latest arrival at each barrier (notes of reports).
  std::array<std::array<uint32_t, bcu::kMaxWarps>, bcu::kNumBarriers> pc{};
  // Exceptions raised by the unit during the current instruction.
  std::vector<bcu::Event> raised;
  // With an observer attached: the unit's arrivals and completions during
  // the current instruction (sync_cta.cpp forwards them).
  std::vector<bcu::Event> seen;
  // (pc, kind) pairs already warned about under --warn-only.
  std::set<std::pair<uint32_t, int>> warned;
};

} // namespace bcusim::engine::detail
