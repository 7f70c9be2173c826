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
  void add(const Vc &v);
  void floor(uint32_t warp, uint32_t f) { floors_.push_back({warp, f}); }
  void thread(Tid t, uint32_t c) { threads_.push_back({t, c}); }
  bool empty() const { return floors_.empty() && threads_.empty(); }
  Vc build();

private:
  std::vector<std::pair<uint32_t, uint32_t>> floors_, threads_;
};

} // namespace bcusim::check::detail
