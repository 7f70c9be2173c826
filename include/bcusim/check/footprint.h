// What the race checks between grids see of global memory (docs/checker.md
// "Races between streams" and "Parent and child grids"): the work items of
// different streams, and sibling child grids, are checked against each
// other by their footprints — byte ranges by access kind — not access by
// access.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <map>
#include <utility>

#include "bcusim/engine/observer.h"

namespace bcusim::check {

// An access between grids: weak or strong (relaxed or stronger at
// .gpu/.sys scope, or volatile: morally strong with another grid's strong
// access), read or write.
enum class GridAccess : uint8_t {
  WeakRead,
  WeakWrite,
  StrongRead,
  StrongWrite
};

constexpr bool writes(GridAccess k) { return (uint8_t(k) & 1) != 0; }
constexpr bool strong(GridAccess k) { return (uint8_t(k) & 2) != 0; }
constexpr GridAccess grid_access(bool write, bool strong) {
  return GridAccess((strong ? 2 : 0) + (write ? 1 : 0));
}
inline GridAccess grid_access(const engine::AccessEvent &e) {
  return grid_access(e.type != engine::AccessType::Read,
                     e.order != engine::MemOrder::Weak &&
                         (e.order == engine::MemOrder::Volatile ||
                          e.scope >= engine::MemScope::Gpu));
}
// Two accesses of different grids conflict unless both read or both are
// strong.
constexpr bool conflict(GridAccess a, GridAccess b) {
  return (writes(a) || writes(b)) && !(strong(a) && strong(b));
}

// The kind of a race, by whether its earlier and later access write.
constexpr const char *race_type(bool earlier_write, bool later_write) {
  return earlier_write && later_write ? "write-after-write (WAW)"
         : earlier_write              ? "read-after-write (RAW)"
                                      : "write-after-read (WAR)";
}

// Byte ranges by kind, overlapping or adjacent ranges of one kind merged;
// each range keeps the site of one access that stands for it (the first
// one's, when merged) and the work it came from (`owner`).
struct Footprint {
  struct Span {
    uint64_t end = 0;
    uint32_t site = 0, owner = 0;
  };
  using Spans = std::map<uint64_t, Span>; // by start
  std::array<Spans, 4> spans;

  const Spans &of(GridAccess k) const { return spans[size_t(k)]; }
  void add(uint64_t a, uint64_t b, GridAccess k, Span s);
  // Adds all of `o`, its spans owned by `owner` unless that is kKeepOwner.
  static constexpr uint32_t kKeepOwner = UINT32_MAX;
  void merge(const Footprint &o, uint32_t owner = kKeepOwner);
  bool empty() const;
  // A span of kind k overlapping [a, b) (the one holding `a`, else the
  // first after it), or nullptr.
  const Spans::value_type *overlap(GridAccess k, uint64_t a, uint64_t b) const;
};

// The byte ranges of a warp's access, sorted and merged (a warp's access is
// usually one contiguous run): f(begin, end, lane) with the lowest-address
// lane of each range; lanes whose address `keep` refuses are left out.
template <class Keep, class F>
void for_each_range(const engine::AccessEvent &e, Keep &&keep, F &&f) {
  std::array<std::pair<uint64_t, uint32_t>, 32> r;
  size_t n = 0;
  for (uint32_t m = e.lanes; m; m &= m - 1) {
    const uint32_t l = uint32_t(std::countr_zero(m));
    if (keep(e.addr[l]))
      r[n++] = {e.addr[l], l};
  }
  if (n == 0)
    return;
  std::sort(r.begin(), r.begin() + long(n));
  uint64_t a = r[0].first, b = a + e.size;
  uint32_t lane = r[0].second;
  for (size_t i = 1; i < n; ++i) {
    if (r[i].first <= b) {
      b = std::max(b, r[i].first + e.size);
      continue;
    }
    f(a, b, lane);
    a = r[i].first;
    b = a + e.size;
    lane = r[i].second;
  }
  f(a, b, lane);
}

} // namespace bcusim::check
