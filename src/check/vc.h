// Happens-before knowledge for the race checker (docs/checker.md "How
// races are found"). Internal to src/check.
//
// Every thread of a launch has a clock that advances at each of its
// release points; an access is recorded as (thread, clock). A thread's
// knowledge says which accesses of other threads happen before its current
// point. It has two kinds of entries:
//   - warp floors: "every lane of warp W: accesses with clock < F", made
//     when a whole warp releases together (barriers, warp syncs), whose
//     lanes' clocks are then aligned to F;
//   - thread entries: "thread T: accesses with clock <= C", for the
//     releases of single threads or of part of a warp (mbarrier arrivals,
//     release stores, partial warp syncs) and for async-copy agents.
// Knowledge objects are immutable and shared: the 32 lanes of a warp that
// went through the same barrier hold one object.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace bcusim::check::detail {

// A thread id: (global warp index) * 32 + lane, where global warp index =
// CTA linear index * warps per CTA + warp. Bits 30-31 mark the async-copy
// agents of a thread: copies made by the async proxy on its behalf.
using Tid = uint32_t;
constexpr Tid kAgentCp = 1u << 30;   // cp.async copies and arrive-ons
constexpr Tid kAgentBulk = 2u << 30; // cp.async.bulk copies
constexpr Tid kKindMask = 3u << 30;
constexpr Tid kNoTid = 0xffffffffu;
inline bool is_agent(Tid t) { return (t & kKindMask) != 0; }
inline Tid thread_of(Tid t) { return t & ~kKindMask; }
inline uint32_t warp_key(Tid t) { return thread_of(t) >> 5; }

struct VcData {
  // Warp floors in blocks of 32 consecutive global warps (a CTA's warps
  // fall in one or two blocks): block ids sorted, 32 floors each (0: none).
  std::vector<uint32_t> blocks;
  std::vector<uint32_t> floor;                        // blocks.size() * 32
  std::vector<std::pair<uint32_t, uint32_t>> threads; // tid -> C, sorted

  bool knows(Tid u, uint32_t clock) const {
    if (!is_agent(u)) {
      const uint32_t w = warp_key(u), b = w >> 5;
      const size_t n = blocks.size();
      size_t i = n && blocks[0] == b ? 0 : find_block(b);
      if (i < n && clock < floor[i * 32 + (w & 31)])
        return true;
    }
    return knows_thread(u, clock);
  }
  size_t find_block(uint32_t b) const;
  bool knows_thread(Tid u, uint32_t clock) const;
  uint32_t floor_of(uint32_t warp) const {
    size_t i = find_block(warp >> 5);
    return i < blocks.size() ? floor[i * 32 + (warp & 31)] : 0;
  }
};
using Vc = std::shared_ptr<const VcData>;

inline bool knows(const Vc &v, Tid u, uint32_t clock) {
  return v && v->knows(u, clock);
}

// a joined with b (either may be empty); returns a or b itself when the
// other adds nothing.
Vc join(const Vc &a, const Vc &b);

// v with warp `warp`'s floor raised to at least f (a copy).
Vc with_floor(const Vc &v, uint32_t warp, uint32_t f);

// Collects entries, then builds one knowledge object (max per key).
class VcBuilder {
public:
  void add(const Vc &v);
  void floor(uint32_t warp, uint32_t f) { floors_.push_back({warp, f}); }
  void thread(Tid t, uint32_t c) { threads_.push_back({t, c}); }
  bool empty() const { return floors_.empty() && threads_.empty(); }
  Vc build();

private:
  std::vector<std::pair<uint32_t, uint32_t>> floors_, threads_;
};

} // namespace bcusim::check::detail
