// Happens-before knowledge (vc.h).
#include "vc.h"

#include <algorithm>
#include <atomic>

namespace bcusim::check::detail {

namespace {

using Entries = std::vector<std::pair<uint32_t, uint32_t>>;

// Merges sorted `b` into sorted `a` (max per key); true when `a` changed.
bool merge_into(Entries &a, const Entries &b) {
  if (b.empty())
    return false;
  // Nothing new: every entry of b is dominated by a's (no allocation).
  bool news = false;
  for (size_t i = 0, j = 0; j < b.size() && !news; ++j) {
    while (i < a.size() && a[i].first < b[j].first)
      ++i;
    news =
        i == a.size() || a[i].first != b[j].first || a[i].second < b[j].second;
  }
  if (!news)
    return false;
  Entries out;
  out.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first))
      out.push_back(a[i++]);
    else if (i == a.size() || b[j].first < a[i].first)
      out.push_back(b[j++]);
    else {
      out.push_back({a[i].first, std::max(a[i].second, b[j].second)});
      ++i;
      ++j;
    }
  }
  a = std::move(out);
  return true;
}

// Whether every entry of sorted b is dominated by one of sorted a.
bool entries_dominate(const Entries &a, const Entries &b) {
  for (size_t i = 0, j = 0; j < b.size(); ++j) {
    while (i < a.size() && a[i].first < b[j].first)
      ++i;
    if (i == a.size() || a[i].first != b[j].first || a[i].second < b[j].second)
      return false;
  }
  return true;
}

// Merges the floor blocks of b into a; true when a changed.
bool merge_floors(VcData &a, const VcData &b) {
  bool changed = false;
  for (size_t j = 0; j < b.blocks.size(); ++j) {
    auto it = std::lower_bound(a.blocks.begin(), a.blocks.end(), b.blocks[j]);
    size_t i = size_t(it - a.blocks.begin());
    if (it == a.blocks.end() || *it != b.blocks[j]) {
      a.blocks.insert(it, b.blocks[j]);
      a.floor.insert(a.floor.begin() + long(i * 32),
                     b.floor.begin() + long(j * 32),
                     b.floor.begin() + long(j * 32 + 32));
      changed = true;
      continue;
    }
    for (size_t k = 0; k < 32; ++k)
      if (b.floor[j * 32 + k] > a.floor[i * 32 + k]) {
        a.floor[i * 32 + k] = b.floor[j * 32 + k];
        changed = true;
      }
  }
  return changed;
}

bool floors_dominate(const VcData &a, const VcData &b) {
  // Both block lists are sorted: a walk over both when they are of like
  // size (grid-wide knowledge against grid-wide knowledge), a search per
  // block of b when b is small.
  const bool walk = b.blocks.size() * 8 >= a.blocks.size();
  size_t at = 0;
  for (size_t j = 0; j < b.blocks.size(); ++j) {
    size_t i;
    if (walk) {
      while (at < a.blocks.size() && a.blocks[at] < b.blocks[j])
        ++at;
      i = at < a.blocks.size() && a.blocks[at] == b.blocks[j] ? at
                                                              : a.blocks.size();
    } else {
      i = a.find_block(b.blocks[j]);
    }
    if (i == a.blocks.size()) {
      for (size_t k = 0; k < 32; ++k)
        if (b.floor[j * 32 + k])
          return false;
      continue;
    }
    for (size_t k = 0; k < 32; ++k)
      if (b.floor[j * 32 + k] > a.floor[i * 32 + k])
        return false;
  }
  return true;
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

uint64_t VcData::Stamp::next() {
  static std::atomic<uint64_t> n{1};
  return n.fetch_add(1, std::memory_order_relaxed);
}

size_t VcData::find_block(uint32_t b) const {
  auto it = std::lower_bound(blocks.begin(), blocks.end(), b);
  return it != blocks.end() && *it == b ? size_t(it - blocks.begin())
                                        : blocks.size();
}

bool VcData::knows_thread(Tid u, uint32_t clock) const {
  auto it = std::lower_bound(threads.begin(), threads.end(), u,
                             [](const std::pair<uint32_t, uint32_t> &e,
                                uint32_t k) { return e.first < k; });
  return it != threads.end() && it->first == u && clock <= it->second;
}

Vc join(const Vc &a, const Vc &b) {
  if (!b || b == a)
    return a;
  if (!a)
    return b;
  if (a->has_absorbed(b.get()))
    return a;
  if (b->has_absorbed(a.get()))
    return b;
  // Most joins add nothing (a thread acquiring what it already knows):
  // check before copying.
  if (floors_dominate(*a, *b) && entries_dominate(a->threads, b->threads)) {
    a->absorb(b.get());
    return a;
  }
  Vc r(new VcData(*a));
  merge_floors(*r.mutable_data(), *b);
  merge_into(r.mutable_data()->threads, b->threads);
  r->absorb(b.get());
  return r;
}

Vc with_floor(const Vc &v, uint32_t warp, uint32_t f) {
  Vc out(v ? new VcData(*v) : new VcData());
  VcData *r = out.mutable_data();
  if (v)
    r->absorb(v.get());
  const uint32_t b = warp >> 5;
  auto it = std::lower_bound(r->blocks.begin(), r->blocks.end(), b);
  size_t i = size_t(it - r->blocks.begin());
  if (it == r->blocks.end() || *it != b) {
    r->blocks.insert(it, b);
    r->floor.insert(r->floor.begin() + long(i * 32), 32, 0u);
  }
  uint32_t &slot = r->floor[i * 32 + (warp & 31)];
  slot = std::max(slot, f);
  return out;
}

void join_into(Vc &a, const Vc &b) {
  if (!b || b == a)
    return;
  if (!a) {
    a = b;
    return;
  }
  if (a->has_absorbed(b.get()))
    return;
  if (b->has_absorbed(a.get())) {
    a = b; // b knows all that a knows: share it
    return;
  }
  if (floors_dominate(*a, *b) && entries_dominate(a->threads, b->threads)) {
    a->absorb(b.get());
    return;
  }
  if (a.use_count() != 1) {
    a = join(a, b);
    return;
  }
  // Only this holder sees the object: change it in place.
  auto &d = *a.mutable_data();
  merge_floors(d, *b);
  merge_into(d.threads, b->threads);
  d.stamp.renew();
  d.absorb(b.get());
}

void floor_into(Vc &a, uint32_t warp, uint32_t f) {
  if (!f)
    return;
  if (a && a.use_count() == 1) {
    auto &d = *a.mutable_data();
    const uint32_t b = warp >> 5;
    auto it = std::lower_bound(d.blocks.begin(), d.blocks.end(), b);
    size_t i = size_t(it - d.blocks.begin());
    if (it == d.blocks.end() || *it != b) {
      d.blocks.insert(it, b);
      d.floor.insert(d.floor.begin() + long(i * 32), 32, 0u);
    }
    uint32_t &slot = d.floor[i * 32 + (warp & 31)];
    if (slot < f) {
      slot = f;
      d.stamp.renew();
    }
    return;
  }
  if (a && a->floor_of(warp) >= f)
    return;
  a = with_floor(a, warp, f);
}

void thread_into(Vc &a, Tid t, uint32_t clock) {
  if (a && a->knows(t, clock))
    return;
  if (!a)
    a = Vc(new VcData());
  else if (a.use_count() != 1) {
    Vc c(new VcData(*a));
    c->absorb(a.get());
    a = std::move(c);
  }
  auto &v = a.mutable_data()->threads;
  auto key_less = [](const std::pair<uint32_t, uint32_t> &e, uint32_t k) {
    return e.first < k;
  };
  auto it = std::lower_bound(v.begin(), v.end(), t, key_less);
  if (it != v.end() && it->first == t)
    it->second = std::max(it->second, clock);
  else
    v.insert(it, {t, clock});
  a.mutable_data()->stamp.renew();
  if (is_agent(t))
    return;
  // Entries are unique and sorted: the warp is complete when its lane 0's
  // entry is followed by 31 more, the last one lane 31's.
  const uint32_t w = warp_key(t);
  const Tid lane0 = w * 32;
  auto b = std::lower_bound(v.begin(), v.end(), lane0, key_less);
  if (v.end() - b < 32 || b->first != lane0 || b[31].first != lane0 + 31)
    return;
  uint32_t m = b->second;
  for (int i = 1; i < 32; ++i)
    m = std::min(m, b[i].second);
  floor_into(a, w, m + 1); // in place: `a` holds it alone
  auto &u = a.mutable_data()->threads;
  auto first = std::lower_bound(u.begin(), u.end(), lane0, key_less);
  auto kept = std::remove_if(first, first + 32,
                             [m](const auto &e) { return e.second <= m; });
  u.erase(kept, first + 32);
}

void join_into(Vc &a, const Released &r) {
  join_into(a, r.vc);
  floor_into(a, r.warp, r.floor);
}

Vc materialize(const Released &r) {
  return r.floor ? with_floor(r.vc, r.warp, r.floor) : r.vc;
}

void VcBuilder::add(const Vc &v) {
  if (!v)
    return;
  for (size_t j = 0; j < v->blocks.size(); ++j)
    for (size_t k = 0; k < 32; ++k)
      if (uint32_t f = v->floor[j * 32 + k])
        floors_.push_back({v->blocks[j] * 32 + uint32_t(k), f});
  threads_.insert(threads_.end(), v->threads.begin(), v->threads.end());
}

Vc VcBuilder::build() {
  if (empty())
    return nullptr;
  Vc out(new VcData());
  VcData *r = out.mutable_data();
  normalize(floors_);
  normalize(threads_);
  for (auto [w, f] : floors_) {
    uint32_t b = w >> 5;
    if (r->blocks.empty() || r->blocks.back() != b) {
      r->blocks.push_back(b);
      r->floor.resize(r->floor.size() + 32, 0);
    }
    r->floor[(r->blocks.size() - 1) * 32 + (w & 31)] = f;
  }
  r->threads = std::move(threads_);
  floors_.clear();
  threads_.clear();
  return out;
}

} // namespace bcusim::check::detail
