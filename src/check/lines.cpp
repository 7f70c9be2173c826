// Line records of global memory (docs/checker.md "Shadow memory"): the
// accesses that a record per 128-byte line stands for, tried before the
// per-lane path of race.cpp (check_access); GlobalShadow (race.cpp) expands
// the records of a page into its granules when anything asks for one.
// (Apart from race.cpp: its per-lane path compiles as it did without them.)
#include <bit>
#include <cstring>

#include "state.h"

namespace bcusim::check::detail {

// Line records (GlobalShadow::line_record): a plain access of 4 or 8
// bytes per lane to global memory by lanes at consecutive addresses (lane l
// at A + l * size, A aligned) at one clock finds nothing to check in a
// 128-byte line that nothing touched, and takes there the cells that
// fresh_lanes would give it: one record per such line stands for them.
// In a line whose record is an access of the same lanes (the same warp) to
// the same addresses, it finds nothing to check either (each lane meets its
// own cell and another lane's other bytes), and each lane takes its own
// cell again (access_granule: its own older access that it covers and
// stands for, or merged into it at the same clock and kind), which leaves
// the cells as fresh ones would be; except for a read after a write (which
// keeps the write) and a merge of a store that keeps its bytes with one that
// does not. Then the new record replaces the old one.
// Returns the lanes in other lines (the other layouts: every lane), checked
// as before (each line's granules are its own: the order of the lanes of
// different lines does not matter).
uint32_t record_lines(LaunchSt &L, const AccessEvent &e) {
  const uint32_t lanes = e.lanes;
  const CtaSt *cta = L.cta(e.cta);
  if (!cta)
    return lanes;
  const Tid tid0 = L.tid_of(e.cta, e.warp, 0);
  const uint32_t *const clock0 = cta->clock.data() + size_t(e.warp) * 32;
  const bool write = e.type == engine::AccessType::Write;
  const uint8_t *const values = write ? e.values : nullptr;
  const uint8_t flags =
      uint8_t((write ? kWrite : 0) | (uint8_t(e.scope) << kScopeShift));
  const uint32_t size = e.size, f = uint32_t(std::countr_zero(lanes));
  const uint64_t a0 = e.addr[f] - uint64_t(f) * size; // lane 0's place
  const uint32_t clock = clock0[f];
  // (The last lane first: other layouts, rows of a tile, fail there.)
  const uint32_t last = 31 - uint32_t(std::countl_zero(lanes));
  if ((a0 & (size - 1)) || e.addr[last] != a0 + uint64_t(last) * size)
    return lanes;
  if (lanes == ~0u) { // a whole warp: one pass without branches
    uint64_t d = 0, x = a0;
    uint32_t dc = 0;
    for (uint32_t l = 0; l < 32; ++l, x += size) {
      d |= e.addr[l] ^ x;
      dc |= clock0[l] ^ clock;
    }
    if (d | dc)
      return lanes;
  } else {
    for (uint32_t m = lanes & (lanes - 1); m; m &= m - 1) {
      const uint32_t l = uint32_t(std::countr_zero(m));
      if (e.addr[l] != a0 + uint64_t(l) * size || clock0[l] != clock)
        return lanes;
    }
  }
  const uint16_t rsize = uint16_t(values ? size | kValued : size);
  uint32_t rest = 0;
  for (uint32_t m = lanes; m;) {
    const uint64_t line =
        e.addr[std::countr_zero(m)] & ~uint64_t(GlobalShadow::kLineBytes - 1);
    // The lanes in this line: below lane `past`.
    const uint64_t past = (line + GlobalShadow::kLineBytes - a0) / size;
    const uint32_t in = past >= 32 ? m : m & ((1u << past) - 1);
    m &= ~in;
    uint8_t *bytes = nullptr;
    LineRecord *r = L.global.line_record(line, values != nullptr, bytes);
    const int32_t first = int32_t(int64_t(a0 - line));
    if (!r || (r->lanes && (r->lanes != in || r->tid0 != tid0 ||
                            r->first != first || (r->size & kSizeMax) != size ||
                            (!write && (r->flags & kWrite)) ||
                            (r->clock == clock && r->flags == flags &&
                             ((r->size ^ rsize) & kValued))))) {
      rest |= in;
      continue;
    }
    r->lanes = in;
    r->tid0 = tid0;
    r->clock = clock;
    r->pc = e.pc;
    r->first = first;
    r->size = rsize;
    r->flags = flags;
    if (values) { // the lanes' bytes, lowest to highest lane at once
      const uint32_t lo = uint32_t(std::countr_zero(in)),
                     hi = 31 - uint32_t(std::countl_zero(in));
      std::memcpy(bytes + (a0 + uint64_t(lo) * size - line),
                  values + size_t(lo) * size, size_t(hi - lo + 1) * size);
    }
  }
  return rest;
}

} // namespace bcusim::check::detail
