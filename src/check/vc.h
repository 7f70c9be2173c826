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
// went through the same barrier hold one object, and objects made from one
// another share the parts of their entries that they have in common
// (VcMap).
#pragma once

#include <cstddef>
#include <cstdint>
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

// A persistent map from 32-bit keys to clocks (0: no entry), a radix tree
// whose nodes are shared between the knowledge objects made from one
// another: a copy shares the whole tree, a change copies the path to its
// leaf (the nodes held once are changed in place), and a join or a
// dominance test skips the subtrees two objects share, so that its cost is
// what differs between them, not their size (a grid sync: every CTA's
// knowledge is the grid's, plus its own warps' floors).
// A leaf holds the clocks of 32 consecutive keys (a block of warps, the
// lanes of a warp); an inner node 16 children. Every node present has an
// entry somewhere below it.
struct VcNode {
  uint32_t refs = 1; // parents holding it (maps and inner nodes)
  uint32_t height;   // 0: a leaf
  uint64_t id;       // a number no other node state has had (renewed at
                     // each change in place)
  // Ids of node states this one is known to know all of: a join with
  // them again adds nothing, found without walking. cov[0]: the latest
  // merged into it; cov[1]: the latest found by comparing entries (kept
  // through merges and copies: the node of the grid's knowledge that the
  // CTAs' objects share, which a location's knowledge grew from while
  // the CTAs arrived one by one), cov[2]: what that one was known to
  // know the same way (the grid's knowledge a sync before, which a CTA's
  // own earlier release still holds).
  mutable uint64_t cov[3] = {0, 0, 0};
  union {
    uint32_t v[32];
    VcNode *c[16];
  };
  bool covers(const VcNode *o) const {
    return cov[0] == o->id || cov[1] == o->id || cov[2] == o->id;
  }
  void absorb(const VcNode *o) const { cov[0] = o->id; }
  void absorb_compared(const VcNode *o) const {
    cov[1] = o->id;
    cov[2] = o->cov[1];
  }
};

class VcMap {
public:
  VcMap() = default;
  VcMap(const VcMap &o) : root_(o.root_), prefix_(o.prefix_) {
    if (root_)
      ++root_->refs;
  }
  VcMap &operator=(const VcMap &o) {
    if (o.root_)
      ++o.root_->refs;
    release(root_);
    root_ = o.root_;
    prefix_ = o.prefix_;
    return *this;
  }
  ~VcMap() {
    if (root_)
      release(root_);
  }
  // Keys under a node of height h agree in their bits from shift(h) up.
  static unsigned shift(unsigned h) { return 5 + 4 * h; }
  uint32_t get(uint32_t key) const {
    const VcNode *n = root_;
    if (!n)
      return 0;
    // A single leaf (a CTA's warps, the common case) inline.
    if (n->height == 0)
      return (key >> 5) == prefix_ ? n->v[key & 31] : 0;
    return get_deep(key);
  }
  uint32_t get_deep(uint32_t key) const;
  bool empty() const { return !root_; }
  // More than one leaf: get() walks the tree (get_deep).
  bool deep() const { return root_ && root_->height; }
  // The entry of `key` raised to at least v; true when it changed.
  bool raise(uint32_t key, uint32_t v);
  // Every entry raised to b's; true when one changed.
  bool merge(const VcMap &b);
  // Whether every entry of b is at most this map's.
  bool dominates(const VcMap &b) const;
  // The leaf of keys [32 * block, 32 * block + 32), or null.
  const VcNode *leaf(uint32_t block) const;
  // In that leaf, the entries at most m removed.
  void drop_upto(uint32_t block, uint32_t m);
  // Every entry (key, clock) in key order.
  std::vector<std::pair<uint32_t, uint32_t>> entries() const;
  static void release(VcNode *n);

private:
  void grow_to(unsigned h, uint64_t prefix);
  VcNode *root_ = nullptr;
  uint64_t prefix_ = 0; // the keys under the root: key >> shift(height)
};

struct VcData {
  // Holders (Vc). Not atomic: the race checker runs on one host thread
  // (it is not a concurrent() observer), and a copy starts unheld.
  struct Refs {
    uint32_t n = 0;
    Refs() = default;
    Refs(const Refs &) {}
    Refs &operator=(const Refs &) { return *this; }
  };
  mutable Refs refs;
  // A number no other state of any knowledge object has had: drawn anew
  // when an object is made or copied and at each change in place.
  struct Stamp {
    uint64_t v = next();
    Stamp() = default;
    Stamp(const Stamp &) {}
    Stamp &operator=(const Stamp &) { return *this; }
    void renew() { v = next(); }
    // Numbers are handed out by host thread from blocks of a shared
    // counter (no atomic operation per number).
    static uint64_t next();
  };
  Stamp stamp;
  // An object (and its stamp then) that this one is known to dominate: a
  // join with it again adds nothing, found without comparing entries (the
  // threads of a CTA releasing one knowledge into a barrier phase one warp
  // at a time, a thread spinning on a location no one changed since).
  // Copied with the object: a copy, or the object changed in place, knows
  // at least as much.
  // Two, the latest first: a thread that acquires from a location both
  // what its CTA and what the whole GPU released there.
  mutable const VcData *absorbed[2] = {nullptr, nullptr};
  mutable uint64_t absorbed_stamp[2] = {0, 0};
  bool has_absorbed(const VcData *b) const {
    return (absorbed[0] == b && absorbed_stamp[0] == b->stamp.v) ||
           (absorbed[1] == b && absorbed_stamp[1] == b->stamp.v);
  }
  void absorb(const VcData *b) const {
    if (absorbed[0] != b) {
      absorbed[1] = absorbed[0];
      absorbed_stamp[1] = absorbed_stamp[0];
    }
    absorbed[0] = b;
    absorbed_stamp[0] = b->stamp.v;
  }

  // Warp floors by global warp index: accesses with clock < floor.
  VcMap floors;
  // Thread entries by Tid: accesses with clock < entry (a thread entry
  // "clock <= C" is kept as C + 1).
  VcMap threads;

  bool knows(Tid u, uint32_t clock) const {
    if (!is_agent(u) && clock < floors.get(warp_key(u)))
      return true;
    return clock < threads.get(u);
  }
  bool knows_thread(Tid u, uint32_t clock) const {
    return clock < threads.get(u);
  }
  uint32_t floor_of(uint32_t warp) const { return floors.get(warp); }
  bool has_threads() const { return !threads.empty(); }
  // The thread entries (tid, C) in tid order.
  std::vector<std::pair<uint32_t, uint32_t>> thread_entries() const;
};
// A shared, immutable knowledge object (copy-on-write: join_into and
// floor_into change it in place only while one Vc holds it).
class Vc {
public:
  Vc() = default;
  Vc(std::nullptr_t) {}
  explicit Vc(VcData *p) : p_(p) {
    if (p_)
      ++p_->refs.n;
  }
  Vc(const Vc &o) : p_(o.p_) {
    if (p_)
      ++p_->refs.n;
  }
  Vc(Vc &&o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  Vc &operator=(const Vc &o) {
    if (o.p_ == p_)
      return *this;
    if (o.p_)
      ++o.p_->refs.n;
    drop();
    p_ = o.p_;
    return *this;
  }
  Vc &operator=(Vc &&o) noexcept {
    if (this != &o) {
      drop();
      p_ = o.p_;
      o.p_ = nullptr;
    }
    return *this;
  }
  ~Vc() { drop(); }
  const VcData *get() const { return p_; }
  const VcData *operator->() const { return p_; }
  const VcData &operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  long use_count() const { return p_ ? long(p_->refs.n) : 0; }
  bool operator==(const Vc &o) const { return p_ == o.p_; }
  bool operator==(std::nullptr_t) const { return p_ == nullptr; }
  // The object to change in place (only when use_count() == 1).
  VcData *mutable_data() const { return p_; }
  // The holders `at(i)` for the bits i of `m`, every one holding `old`,
  // given `v`'s object, each object's count updated once (the lanes of a
  // warp that went through a barrier together: one update, not 32).
  template <class At>
  static void reseat(uint32_t m, const VcData *old, const Vc &v, At &&at) {
    if (old == v.p_ || !m)
      return;
    uint32_t n = 0;
    if (m == ~0u) {
      for (uint32_t i = 0; i < 32; ++i)
        at(i).p_ = v.p_;
      n = 32;
    } else {
      for (; m; m &= m - 1, ++n)
        at(uint32_t(__builtin_ctz(m))).p_ = v.p_;
    }
    if (v.p_)
      v.p_->refs.n += n;
    if (old) {
      VcData *o = const_cast<VcData *>(old);
      if ((o->refs.n -= n) == 0)
        delete o;
    }
  }

private:
  friend class VcFill;
  void drop() {
    if (p_ && --p_->refs.n == 0)
      delete p_;
    p_ = nullptr;
  }
  VcData *p_ = nullptr;
};

// Gives several holders (the lanes of a warp) one knowledge object with one
// update of its reference count, and one of each object they held before
// per run of holders that held the same: the lanes' updates of one shared
// count one by one are a chain of dependent memory operations (a fence.sc
// per access in a seq_cst loop). A holder given to set() keeps its old
// object until flush() (or the end of the VcFill); nothing else may use
// it or change the counts of those objects in between (callers flush()
// before a join).
class VcFill {
public:
  VcFill() = default;
  VcFill(const VcFill &) = delete;
  VcFill &operator=(const VcFill &) = delete;
  ~VcFill() { flush(); }
  // `d` is to hold `v`'s object (which `v` keeps held until the flush).
  void set(Vc &d, const Vc &v) {
    if (d.p_ == v.p_)
      return;
    if (n_ && v.p_ != p_)
      flush();
    p_ = v.p_;
    dst_[n_++] = &d;
    if (n_ == 32)
      flush();
  }
  void flush() {
    if (!n_)
      return;
    VcData *old = nullptr;
    uint32_t dropped = 0;
    for (uint32_t i = 0; i < n_; ++i) {
      Vc &d = *dst_[i];
      if (d.p_ != old) {
        release(old, dropped);
        old = d.p_;
        dropped = 0;
      }
      ++dropped;
      d.p_ = p_;
    }
    release(old, dropped);
    if (p_)
      p_->refs.n += n_;
    n_ = 0;
  }

private:
  static void release(VcData *o, uint32_t n) {
    if (o && (o->refs.n -= n) == 0)
      delete o;
  }
  VcData *p_ = nullptr;
  Vc *dst_[32];
  uint32_t n_ = 0;
};

inline bool knows(const Vc &v, Tid u, uint32_t clock) {
  return v && v->knows(u, clock);
}

// a joined with b (either may be empty); returns a or b itself when the
// other adds nothing.
Vc join(const Vc &a, const Vc &b);

// v with warp `warp`'s floor raised to at least f (a copy).
Vc with_floor(const Vc &v, uint32_t warp, uint32_t f);

// Copy-on-write forms: `a` becomes a joined with b / a with a raised floor.
// An object that `a` alone holds is changed in place (no allocation: the
// knowledge a synchronization location or a barrier phase accumulates);
// a shared one is copied first, so holders of the old object never see it
// change.
void join_into(Vc &a, const Vc &b);
void floor_into(Vc &a, uint32_t warp, uint32_t f);
// `a` knowing thread t's accesses up to `clock` (copy-on-write, as
// join_into). A warp whose 32 lanes all have entries becomes a floor (the
// lowest of their clocks + 1) and keeps only the entries above it: the same
// knowledge, one entry instead of 32 (an mbarrier that every thread of a
// CTA arrives on one by one).
void thread_into(Vc &a, Tid t, uint32_t clock);

// What a release publishes, without a copy for the common case of a whole
// warp releasing together: knowledge `vc` plus warp `warp`'s floor raised
// to `floor` (0: none).
struct Released {
  Vc vc;
  uint32_t warp = 0, floor = 0;
  bool empty() const { return !vc && !floor; }
  bool operator==(const Released &o) const {
    return vc == o.vc && warp == o.warp && floor == o.floor;
  }
};
void join_into(Vc &a, const Released &r);
Vc materialize(const Released &r);

// Collects entries, then builds one knowledge object (max per key).
class VcBuilder {
public:
  void add(const Vc &v) { join_into(acc_, v); }
  void floor(uint32_t warp, uint32_t f) { floor_into(acc_, warp, f); }
  void thread(Tid t, uint32_t c);
  bool empty() const { return !acc_; }
  Vc build() { return std::move(acc_); }

private:
  Vc acc_;
};

} // namespace bcusim::check::detail
