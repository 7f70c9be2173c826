// Happens-before knowledge (vc.h).
#include "vc.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace bcusim::check::detail {

namespace {

VcNode *new_node(unsigned height) {
  VcNode *n = new VcNode;
  n->height = height;
  n->id = VcData::Stamp::next();
  std::memset(n->v, 0, sizeof n->v);
  return n;
}

// The node in `slot` made this holder's own to change: a node held by
// one parent is changed in place (a new id: facts about its old state no
// longer hold of it), a shared one is copied (its children then shared).
VcNode *own(VcNode *&slot) {
  VcNode *n = slot;
  if (n->refs == 1) {
    n->id = VcData::Stamp::next();
    return n;
  }
  VcNode *c = new VcNode(*n);
  c->refs = 1;
  c->id = VcData::Stamp::next();
  if (c->height)
    for (VcNode *ch : c->c)
      if (ch)
        ++ch->refs;
  --n->refs;
  slot = c;
  return c;
}

void share(VcNode *&slot, const VcNode *y) {
  VcNode *n = const_cast<VcNode *>(y);
  ++n->refs;
  VcMap::release(slot);
  slot = n;
}

// Whether x knows all of y (shared subtrees and known facts skipped; a
// success is remembered in x).
bool node_dominates(const VcNode *x, const VcNode *y) {
  if (!y || x == y)
    return true;
  if (!x)
    return false;
  if (x->covers(y))
    return true;
  if (x->height == 0) {
    for (unsigned k = 0; k < 32; ++k)
      if (y->v[k] > x->v[k])
        return false;
  } else {
    for (unsigned i = 0; i < 16; ++i)
      if (!node_dominates(x->c[i], y->c[i]))
        return false;
  }
  x->absorb_compared(y);
  return true;
}

// `slot` (a node at y's height and place) raised to y's entries; true when
// it changed. The subtrees y adds are shared, not copied.
bool merge_node(VcNode *&slot, const VcNode *y) {
  VcNode *x = slot;
  if (!y || x == y)
    return false;
  if (!x) {
    share(slot, y);
    return true;
  }
  if (x->covers(y))
    return false;
  if (y->covers(x)) {
    share(slot, y);
    return true;
  }
  if (x->height == 0) {
    bool xge = true, yge = true;
    for (unsigned k = 0; k < 32; ++k) {
      xge &= x->v[k] >= y->v[k];
      yge &= y->v[k] >= x->v[k];
    }
    if (xge) {
      x->absorb(y);
      return false;
    }
    if (yge) {
      share(slot, y);
      return true;
    }
    VcNode *n = own(slot);
    for (unsigned k = 0; k < 32; ++k)
      n->v[k] = std::max(n->v[k], y->v[k]);
    n->absorb(y);
    return true;
  }
  if (node_dominates(x, y))
    return false;
  VcNode *n = own(slot);
  bool all_y = true;
  for (unsigned i = 0; i < 16; ++i) {
    merge_node(n->c[i], y->c[i]);
    all_y &= n->c[i] == y->c[i];
  }
  if (all_y) // y itself: shared, so that later joins with it are free
    share(slot, y);
  else
    n->absorb(y);
  return true;
}

// Entries of the leaf under `slot` (at height h) for keys of `block` at
// most m removed; nodes left empty are removed. True when `slot` is empty.
bool drop_node(VcNode *&slot, unsigned h, uint32_t block, uint32_t m) {
  VcNode *n = own(slot);
  bool empty = true;
  if (h == 0) {
    for (uint32_t &v : n->v) {
      if (v <= m)
        v = 0;
      empty &= v == 0;
    }
  } else {
    VcNode *&ch = n->c[(block >> (4 * (h - 1))) & 15];
    if (ch && drop_node(ch, h - 1, block, m)) {
      VcMap::release(ch);
      ch = nullptr;
    }
    for (VcNode *c : n->c)
      empty &= c == nullptr;
  }
  return empty;
}

void collect(const VcNode *n, uint32_t base,
             std::vector<std::pair<uint32_t, uint32_t>> &out) {
  if (!n)
    return;
  if (n->height == 0) {
    for (uint32_t k = 0; k < 32; ++k)
      if (n->v[k])
        out.push_back({base + k, n->v[k]});
    return;
  }
  for (uint32_t i = 0; i < 16; ++i)
    collect(n->c[i], base + (i << VcMap::shift(n->height - 1)), out);
}

} // namespace

uint32_t VcMap::get_deep(uint32_t key) const {
  const VcNode *n = root_;
  unsigned h = n->height;
  if ((uint64_t(key) >> shift(h)) != prefix_)
    return 0;
  while (h) {
    --h;
    n = n->c[(key >> shift(h)) & 15];
    if (!n)
      return 0;
  }
  return n->v[key & 31];
}

void VcMap::release(VcNode *n) {
  if (!n || --n->refs)
    return;
  if (n->height)
    for (VcNode *c : n->c)
      release(c);
  delete n;
}

// The root made to cover the keys under (h, prefix) as well (new roots
// above the old one; the entries do not change).
void VcMap::grow_to(unsigned h, uint64_t prefix) {
  if (!root_) {
    root_ = new_node(h);
    prefix_ = prefix;
    return;
  }
  while (root_->height < h ||
         (prefix >> (4 * (root_->height - h))) != prefix_) {
    VcNode *p = new_node(root_->height + 1);
    p->c[prefix_ & 15] = root_;
    root_ = p;
    prefix_ >>= 4;
  }
}

bool VcMap::raise(uint32_t key, uint32_t v) {
  VcNode *r = root_;
  if (r && r->height == 0 && (key >> 5) == prefix_ && r->refs == 1) {
    // A leaf held once (a barrier phase's knowledge of one CTA's warps).
    if (r->v[key & 31] >= v)
      return false;
    r->v[key & 31] = v;
    r->id = VcData::Stamp::next();
    return true;
  }
  if (get(key) >= v)
    return false;
  grow_to(0, key >> 5);
  VcNode **slot = &root_;
  for (;;) {
    VcNode *n = own(*slot);
    if (n->height == 0) {
      n->v[key & 31] = v;
      return true;
    }
    VcNode *&ch = n->c[(key >> shift(n->height - 1)) & 15];
    if (!ch)
      ch = new_node(n->height - 1);
    slot = &ch;
  }
}

bool VcMap::merge(const VcMap &b) {
  if (!b.root_ || b.root_ == root_)
    return false;
  if (!root_) {
    root_ = b.root_;
    ++root_->refs;
    prefix_ = b.prefix_;
    return true;
  }
  const unsigned hb = b.root_->height;
  grow_to(hb, b.prefix_);
  VcNode **slot = &root_;
  for (unsigned h = root_->height; h > hb; --h) {
    VcNode *n = own(*slot);
    slot = &n->c[(b.prefix_ >> (4 * (h - 1 - hb))) & 15];
    if (!*slot && h - 1 > hb)
      *slot = new_node(h - 1);
  }
  return merge_node(*slot, b.root_);
}

bool VcMap::dominates(const VcMap &b) const {
  if (!b.root_ || b.root_ == root_)
    return true;
  if (!root_)
    return false;
  const unsigned ha = root_->height, hb = b.root_->height;
  if (ha >= hb) {
    if ((b.prefix_ >> (4 * (ha - hb))) != prefix_)
      return false;
    const VcNode *n = root_;
    for (unsigned h = ha; h > hb && n; --h)
      n = n->c[(b.prefix_ >> (4 * (h - 1 - hb))) & 15];
    return node_dominates(n, b.root_);
  }
  // b's root is above this one's: it must have entries under this root
  // only.
  if ((prefix_ >> (4 * (hb - ha))) != b.prefix_)
    return false;
  const VcNode *n = b.root_;
  for (unsigned h = hb; h > ha; --h) {
    const unsigned at = (prefix_ >> (4 * (h - 1 - ha))) & 15;
    for (unsigned i = 0; i < 16; ++i)
      if (i != at && n->c[i])
        return false;
    n = n->c[at];
    if (!n)
      return true;
  }
  return node_dominates(root_, n);
}

const VcNode *VcMap::leaf(uint32_t block) const {
  const VcNode *n = root_;
  if (!n || (uint64_t(block) >> (4 * n->height)) != prefix_)
    return nullptr;
  for (unsigned h = n->height; h && n; --h)
    n = n->c[(block >> (4 * (h - 1))) & 15];
  return n;
}

void VcMap::drop_upto(uint32_t block, uint32_t m) {
  if (!leaf(block))
    return;
  if (drop_node(root_, root_->height, block, m)) {
    release(root_);
    root_ = nullptr;
    prefix_ = 0;
  }
}

std::vector<std::pair<uint32_t, uint32_t>> VcMap::entries() const {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  if (root_)
    collect(root_, uint32_t(prefix_ << shift(root_->height)), out);
  return out;
}

std::vector<std::pair<uint32_t, uint32_t>> VcData::thread_entries() const {
  auto v = threads.entries();
  for (auto &e : v)
    --e.second;
  return v;
}

namespace {
// The numbers a host thread may hand out next: [cur, end).
struct StampBlock { // zero-initialized (thread storage)
  uint64_t cur, end;
};
thread_local StampBlock stamp_block;
} // namespace

uint64_t VcData::Stamp::next() {
  StampBlock &b = stamp_block;
  if (b.cur == b.end) [[unlikely]] {
    constexpr uint64_t kBlock = 4096;
    static std::atomic<uint64_t> n{1};
    b.cur = n.fetch_add(kBlock, std::memory_order_relaxed);
    b.end = b.cur + kBlock;
  }
  return b.cur++;
}

namespace {
bool data_dominates(const VcData &a, const VcData &b) {
  return a.floors.dominates(b.floors) && a.threads.dominates(b.threads);
}
void merge_data(VcData &a, const VcData &b) {
  a.floors.merge(b.floors);
  a.threads.merge(b.threads);
}

// a joined with b in a new object, neither dominating the other.
Vc join_copy(const Vc &a, const Vc &b) {
  // The copy knows all of both: a thread holding `a` (a spinning thread
  // that acquired the location's previous knowledge) takes it whole.
  Vc r(new VcData(*a));
  merge_data(*r.mutable_data(), *b);
  r->absorb(a.get());
  r->absorb(b.get());
  return r;
}
} // namespace

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
  if (data_dominates(*a, *b)) {
    a->absorb(b.get());
    return a;
  }
  return join_copy(a, b);
}

Vc with_floor(const Vc &v, uint32_t warp, uint32_t f) {
  Vc out(v ? new VcData(*v) : new VcData());
  VcData *r = out.mutable_data();
  if (v)
    r->absorb(v.get());
  r->floors.raise(warp, f);
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
  if (data_dominates(*a, *b)) {
    a->absorb(b.get());
    return;
  }
  if (a.use_count() != 1) {
    a = join_copy(a, b); // (the tests of join above have failed)
    return;
  }
  // Only this holder sees the object: change it in place.
  auto &d = *a.mutable_data();
  merge_data(d, *b);
  d.stamp.renew();
  d.absorb(b.get());
}

void floor_into(Vc &a, uint32_t warp, uint32_t f) {
  if (!f)
    return;
  if (a && a.use_count() == 1) {
    auto &d = *a.mutable_data();
    if (d.floors.raise(warp, f))
      d.stamp.renew();
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
  VcData &d = *a.mutable_data();
  d.threads.raise(t, clock + 1);
  d.stamp.renew();
  if (is_agent(t))
    return;
  // The warp is complete when its leaf (its 32 lanes) has every entry.
  const uint32_t w = warp_key(t);
  const VcNode *leaf = d.threads.leaf(w);
  uint32_t m = ~0u;
  for (uint32_t v : leaf->v)
    m = std::min(m, v);
  if (!m)
    return;
  // Lanes with clock <= m - 1: the floor m, their entries dropped.
  d.floors.raise(w, m);
  d.threads.drop_upto(w, m);
}

void join_into(Vc &a, const Released &r) {
  join_into(a, r.vc);
  floor_into(a, r.warp, r.floor);
}

Vc materialize(const Released &r) {
  return r.floor ? with_floor(r.vc, r.warp, r.floor) : r.vc;
}

void VcBuilder::thread(Tid t, uint32_t c) {
  if (!acc_)
    acc_ = Vc(new VcData());
  else if (acc_.use_count() != 1)
    acc_ = Vc(new VcData(*acc_));
  VcData &d = *acc_.mutable_data();
  d.threads.raise(t, c + 1);
  d.stamp.renew();
}

} // namespace bcusim::check::detail
