// The 32-bit barrier state word read by B2R and written by R2B
// (getBarState/setBarState in seed 001; layout decided by the project,
// SPEC-NOTES point 8, documented in docs/bcu.md "State word").
//
//   bits  6:0   arrived   warp arrivals in the current phase (count / 32)
//   bits 13:7   expected  expected count / 32; 0 = "all live warps" (count 0)
//   bits 15:14  kind      0 idle, 1 BAR.SYNC/BAR.ARV, 2 BAR.RED, 3 reserved
//   bits 17:16  redop     BARREDOp of the reduction (AND 0, OR 1, POPC 2)
//   bits 28:18  popc      number of participating threads whose predicate
//                         was true (0..1024)
//   bit  29     any_false some participating thread's predicate was false
//   bit  30     reserved  (reads 0, ignored when written)
//   bit  31     valid     WarpBARState only: a reduction was performed (the
//                         copy is defined). Always 0 in a barrier's word.
//
// The same layout serves the barrier (B2R.BAR/R2B.BAR) and a warp's copy of
// its last reduction (B2R.WARP/R2B.WARP). AND = !any_false, OR = popc != 0,
// POPC = popc: the accumulators do not depend on the reduction operator.
#pragma once

#include <cstdint>

#include "bcusim/bcu/instr.h"

namespace bcusim::bcu {

enum class BarrierKind : uint8_t { Idle = 0, SyncArv = 1, Red = 2 };

struct StateWord {
  unsigned arrived = 0;  // warps, 0..127
  unsigned expected = 0; // warps, 0..127 (0 = all live warps)
  BarrierKind kind = BarrierKind::Idle;
  RedOp redop = RedOp::And;
  unsigned popc = 0; // 0..2047 representable
  bool any_false = false;
  bool valid = false;

  static constexpr unsigned kArrivedBits = 7;
  static constexpr unsigned kExpectedBits = 7;
  static constexpr unsigned kMaxWarpCount = (1u << kArrivedBits) - 1; // 127

  uint32_t pack() const;
  static StateWord unpack(uint32_t word);

  // The result of the reduction the word describes (for a warp's copy).
  bool logical_result() const {
    return redop == RedOp::And ? !any_false : popc != 0;
  }
  friend bool operator==(const StateWord &, const StateWord &) = default;
};

} // namespace bcusim::bcu
