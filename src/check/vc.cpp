// Happens-before knowledge (vc.h).
#include "vc.h"

#include <algorithm>

namespace bcusim::check::detail {

namespace {

using Entries = std::vector<std::pair<uint32_t, uint32_t>>;

const std::pair<uint32_t, uint32_t> *find(const Entries &v, uint32_t key) {
  auto it = std::lower_bound(v.begin(), v.end(), key,
                             [](const std::pair<uint32_t, uint32_t> &e,
                                uint32_t k) { return e.first < k; });
  return it != v.end() && it->first == key ? &*it : nullptr;
}

// Merges sorted `b` into sorted `a` (max per key); true when `a` changed.
bool merge_into(Entries &a, const Entries &b) {
  if (b.empty())
    return false;
  Entries out;
  out.reserve(a.size() + b.size());
  bool changed = false;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) {
      out.push_back(a[i++]);
    } else if (i == a.size() || b[j].first < a[i].first) {
      out.push_back(b[j++]);
      changed = true;
    } else {
      if (b[j].second > a[i].second)
        changed = true;
      out.push_back({a[i].first, std::max(a[i].second, b[j].second)});
      ++i;
      ++j;
    }
  }
  if (changed)
    a = std::move(out);
  return changed;
}

void normalize(Entries &v) {
  std::sort(v.begin(), v.end());
  size_t w = 0;
  for (size_t r = 0; r < v.size(); ++r) {
    if (w && v[w - 1].first == v[r].first)
      v[w - 1].second = std::max(v[w - 1].second, v[r].second);
    else
      v[w++] = v[r];
  }
  v.resize(w);
}

} // namespace

bool VcData::knows(Tid u, uint32_t clock) const {
  if (!is_agent(u)) {
    if (auto *f = find(floors, warp_key(u)); f && clock < f->second)
      return true;
  }
  auto *t = find(threads, u);
  return t && clock <= t->second;
}

Vc join(const Vc &a, const Vc &b) {
  if (!b || b == a)
    return a;
  if (!a)
    return b;
  auto r = std::make_shared<VcData>(*a);
  bool changed = merge_into(r->floors, b->floors);
  changed = merge_into(r->threads, b->threads) || changed;
  if (!changed)
    return a;
  return r;
}

void VcBuilder::add(const Vc &v) {
  if (!v)
    return;
  floors_.insert(floors_.end(), v->floors.begin(), v->floors.end());
  threads_.insert(threads_.end(), v->threads.begin(), v->threads.end());
}

Vc VcBuilder::build() {
  if (empty())
    return nullptr;
  auto r = std::make_shared<VcData>();
  normalize(floors_);
  normalize(threads_);
  r->floors = std::move(floors_);
  r->threads = std::move(threads_);
  floors_.clear();
  threads_.clear();
  return r;
}

} // namespace bcusim::check::detail
