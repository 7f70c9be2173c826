// Footprints of the race checks between grids (bcusim/check/footprint.h).
#include "bcusim/check/footprint.h"

#include <algorithm>

namespace bcusim::check {

void Footprint::add(uint64_t a, uint64_t b, GridAccess k, Span s) {
  Spans &m = spans[size_t(k)];
  auto it = m.upper_bound(a);
  if (it != m.begin()) {
    auto p = std::prev(it);
    if (p->second.end >= a) {
      if (p->second.end >= b)
        return;
      a = p->first;
      s.site = p->second.site;
      s.owner = p->second.owner;
      it = p;
    }
  }
  uint64_t end = b;
  while (it != m.end() && it->first <= end) {
    end = std::max(end, it->second.end);
    it = m.erase(it);
  }
  s.end = end;
  m[a] = s;
}

void Footprint::merge(const Footprint &o, uint32_t owner) {
  for (size_t k = 0; k < spans.size(); ++k)
    for (const auto &[a, sp] : o.spans[k]) {
      Span t = sp;
      if (owner != kKeepOwner)
        t.owner = owner;
      add(a, sp.end, GridAccess(k), t);
    }
}

bool Footprint::empty() const {
  return std::all_of(spans.begin(), spans.end(),
                     [](const Spans &m) { return m.empty(); });
}

const Footprint::Spans::value_type *Footprint::overlap(GridAccess k, uint64_t a,
                                                       uint64_t b) const {
  const Spans &m = spans[size_t(k)];
  auto nx = m.upper_bound(a);
  if (nx != m.begin() && std::prev(nx)->second.end > a)
    return &*std::prev(nx);
  if (nx != m.end() && nx->first < b)
    return &*nx;
  return nullptr;
}

} // namespace bcusim::check
