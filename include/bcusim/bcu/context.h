// Context switch of a CTA's barrier unit (docs/bcu.md, "Save and restore").
//
// A barrier's 32-bit state word (B2R.BAR/R2B.BAR) holds its counters and
// accumulators, a warp's WarpBARState (B2R.WARP/R2B.WARP) its last
// reduction. What does not fit a state word belongs to each warp's own
// context, as its program counter does: whether it has exited and which
// barrier it is blocked on. Restoring = R2B every word into a fresh unit,
// replay the exits, and put the blocked warps back to wait without counting
// them again (BarrierUnit::resume_blocked).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "bcusim/bcu/barrier_unit.h"

namespace bcusim::bcu {

struct SavedContext {
  unsigned threads = 0;
  std::array<uint32_t, kNumBarriers> barrier_words{};
  std::array<uint32_t, kMaxWarps> warp_words{};
  uint32_t exited = 0;
  std::array<std::optional<unsigned>, kMaxWarps> blocked_on{};
};

// Saves with B2R.BAR issued by the lowest warp that can issue (or, when
// every warp is blocked or exited, by reading the same words directly), and
// the warps' copies as B2R.WARP would read them.
SavedContext save_context(BarrierUnit &unit);
// Restores into `fresh` (a new unit of the same thread count): exits first,
// then R2B.BAR and R2B.WARP issued by live warps, then the blocked warps.
void restore_context(BarrierUnit &fresh, const SavedContext &context);

} // namespace bcusim::bcu
