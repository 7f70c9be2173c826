// The checker's state during one launch (internal to src/check). Its parts:
//   hb.cpp      synchronization events -> happens-before knowledge
//   race.cpp    shadow memory and the check of every access
//   init.cpp    uninitialized reads of shared and local memory
//   rules.cpp   synchronization rules (barrier divergence, mbarrier phases)
//   report.cpp  findings with locations, threads and explanations
// docs/checker.md describes what each finds and why.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bcusim/check/checker.h"
#include "bcusim/check/footprint.h"
#include "bcusim/engine/observer.h"
#include "vc.h"

namespace bcusim::check::detail {

using engine::AccessEvent;
using engine::Dim3;
using engine::LaunchView;
using engine::MemOrder;
using engine::MemScope;
using engine::StateSpace;

// One recorded access in shadow memory: 24 bytes (docs/checker.md
// "Shadow memory": two cells and a history index per 8-byte granule = 7x).
struct Cell {
  Tid tid = kNoTid; // kNoTid: empty
  uint32_t clock = 0;
  uint32_t pc = 0;
  uint8_t mask = 0;  // bytes of the granule
  uint8_t flags = 0; // kWrite | kAtomic | kStrong | scope << kScopeShift
  // Bytes of the whole access (morally strong = same), up to kSizeMax;
  // kValued: `value` holds the bytes a write stored.
  uint16_t size = 0;
  uint64_t value = 0; // written bytes, byte i = byte i of the granule
  bool empty() const { return tid == kNoTid; }
};
// kSpilledWrite (cell 0 only): the granule's evicted history
// (Granule::spill) holds writes (what a read must be checked against).
// kWarpRead: a read entry of several lanes of one warp (race.cpp).
constexpr uint16_t kValued = 0x8000, kWarpRead = 0x4000, kSpilledWrite = 0x2000,
                   kSizeMax = 0x1fff;
constexpr uint8_t kWrite = 1, kAtomic = 2, kStrong = 4, kScopeShift = 3,
                  kAsync = 64;
// cell[0].flags: the granule has release-sequence states (Granule::sync),
// tested on the cell's cache line before the index is read.
constexpr uint8_t kSyncBit = 0x80;
inline MemScope scope_of(uint8_t flags) {
  return MemScope((flags >> kScopeShift) & 7);
}

struct Granule {
  Cell cell[2];
  // 1 + the index of its evicted history in LaunchSt::spill (0: none).
  uint32_t spill = 0;
  // 1 + the index in LaunchSt::syncs of the first release-sequence state
  // of an address in this granule (0: none; SyncLoc::next chains them).
  uint32_t sync = 0;
};
static_assert(sizeof(Granule) == 56);

// A thread's synchronization state: 32 bytes, read by every access (its
// latest release fence is kept apart: CtaSt::fence_of).
// (Its clock lives in CtaSt::clock: the one field every access reads.)
struct ThreadSt {
  Vc vc; // knowledge of other threads
  // Released to it by relaxed reads; an acquire fence takes it (its lane
  // bit is in CtaSt::pending_lanes while it may be non-empty).
  Vc pending;
  uint32_t own_floor = 0; // its warp's lanes: accesses with clock < known
  // The latest acquire that could not synchronize because a release's
  // scope did not include this thread (explains race reports).
  uint32_t miss_pc = ~0u, miss_release_pc = ~0u;
  MemScope miss_scope = MemScope::None;
};
static_assert(sizeof(ThreadSt) == 32);

struct BarrierSt {
  Vc acc, completed;
  uint32_t acc_warps = 0;  // warps that arrived in the current phase
  uint32_t last_warps = 0; // warps of the last completed phase
  uint32_t first_pc = ~0u; // the first arrival's instruction this phase
  uint32_t partial_lanes = 0, partial_warp = 0, partial_pc = ~0u;
  // An arrival at another instruction than first_pc in the same phase.
  uint32_t other_pc = ~0u, other_warp = 0, first_warp = 0;
  bool first_aligned = true, other_aligned = true; // those instructions
  uint64_t completions = 0;
  // Warps whose every lane arrived in one event of a waiting operation
  // (bar.sync, bar.red) in the current phase, none of them exited: when
  // all warps did, the phase orders the whole CTA (CtaSt::dead_floor).
  uint32_t whole_warps = 0;
  bool whole = true; // no other arrival in the current phase
};

struct MbarSt {
  std::map<uint64_t, Vc> acc;       // phase -> released into it
  std::map<uint64_t, Vc> completed; // phase -> what a wait acquires
  int64_t observed = -1;            // latest phase a wait saw complete
  bool warned_early = false;
};

// A thread's latest release fence: the knowledge it published and its
// scope.
struct LaneFence {
  Released rel;
  MemScope scope = MemScope::None;
};
// The latest release fence of lanes of a warp that fenced together (a
// fence.sc before every access of a seq_cst loop): kept once for the warp
// instead of for each lane (LaneFence).
struct WarpFence {
  Released rel;
  MemScope scope = MemScope::None;
  uint32_t lanes = 0; // the lanes whose latest fence this is
};

// A CTA's plain shared-memory reads between two barriers of the whole CTA
// while its shared memory is "clean" (readlog.cpp; docs/checker.md "Shadow
// memory", the read log): each warp read that read_groups would take whole
// as read entries, not yet put into the granules. Replayed into them
// (readlog_replay) before anything else reaches the CTA's shared memory;
// dropped at the next barrier of the whole CTA (every read in it dead).
struct ReadLogEntry {
  Vc vc;               // what the lanes knew (they know the same)
  uint64_t first = 0;  // the granule of the first lane's address
  uint32_t layout = 0; // ReadLog::layouts
  uint32_t pc = 0;
  Tid tid0 = 0; // lane 0's thread
  uint32_t clock = 0, own_floor = 0;
  uint16_t size = 0;
  uint8_t flags = 0;
};
struct ReadLog {
  std::vector<ReadLogEntry> log;
  // How the lanes of logged reads fall into granules (race.cpp
  // ReadLayout): by index, kept for the CTA's life; `seen` maps the
  // remembered layouts (by their serial number) to an index here.
  struct Group {
    uint64_t dgb;
    uint32_t lo, hi;
    uint8_t mask;
  };
  struct Layout {
    std::vector<Group> g;
  };
  std::vector<Layout> layouts;
  std::array<std::pair<uint64_t, uint32_t>, 4> seen{};
  // Reads are logged: a barrier of the whole CTA raised its dead floors,
  // and nothing but logged reads reached its shared memory since.
  bool on = false;
  uint8_t replays = 0; // epochs whose log had to be replayed
  void reset() {
    log.clear();
    layouts.clear();
    seen = {};
    on = false;
    replays = 0;
  }
};

struct CtaSt {
  uint64_t linear = 0;
  uint64_t cluster = 0;
  std::vector<ThreadSt> threads;       // by warp * 32 + lane
  std::vector<WarpFence> fences;       // per warp
  std::vector<LaneFence> lane_fences;  // per thread, unless in `fences`
  bool lane_fences_used = false;       // one was set (cleared per CTA)
  std::vector<uint32_t> pending_lanes; // per warp: ThreadSt::pending set
  // Per warp: lanes found to have one clock and one knowledge (read
  // entries) at LaunchSt::sync_gen `same_gen`.
  std::vector<uint64_t> same_gen;
  std::vector<uint32_t> same_lanes;
  // Per warp: its clock at the CTA's latest barrier that every thread of
  // the CTA took part in, waiting (0: none yet). An access of the warp with
  // a lower clock happens before every later access of every thread of the
  // CTA: where no other CTA can reach the CTA's shared memory and no
  // asynchronous copy was issued (LaunchSt::dead_ok), its record there can
  // never race again (race.cpp, "dead" records).
  std::vector<uint32_t> dead_floor;
  ReadLog rlog; // readlog.cpp
  // Lane `l` of warp `w`: what its latest release fence published and the
  // fence's scope.
  const Released &fence_of(uint32_t w, uint32_t l, MemScope &scope) const {
    const WarpFence &f = fences[w];
    if (f.lanes >> l & 1) {
      scope = f.scope;
      return f.rel;
    }
    const LaneFence &t = lane_fences[w * 32 + l];
    scope = t.scope;
    return t.rel;
  }
  std::vector<uint32_t> clock;   // by warp * 32 + lane
  std::vector<uint32_t> valid;   // per warp: lanes that exist
  std::vector<uint32_t> exited;  // per warp: lanes that exited
  std::vector<uint32_t> exit_pc; // per thread: where it exited (~0u: not)
  std::array<BarrierSt, 16> bars;
  std::unordered_map<uint64_t, MbarSt> mbars; // by offset
  std::vector<Granule> shadow;                // shared memory
  std::vector<uint8_t> shared_init;           // bit per shared byte
  // Bytes of shared memory without their bit in `shared_init` (0: every
  // byte was written: a read has nothing to report).
  uint64_t shared_unset = 0;
  std::vector<uint8_t> local_init; // bit per byte of every thread frame
  // The last acquire of knowledge `src` by a thread that knew `in`, which
  // then knew `out`: threads that knew the same and acquire the same object
  // in later events (lanes leaving an mbarrier wait one by one) share the
  // result, so that their warp's next release needs no merge.
  struct {
    Vc in, src, out;
  } acquire_memo;
  bool divergence_reported = false;
};

struct ClusterSt {
  Vc acc, completed;
};

// Releases into one memory location by morally strong writes (PTX release
// patterns), kept by the scope that may acquire them. Found from the
// location's granule (Granule::sync), not through a hash map.
struct SyncLoc {
  // By CTA / cluster (linear index), sorted: a grid sync's counter has an
  // entry for every CTA, searched at every spin of every CTA.
  struct Scoped {
    std::vector<std::pair<uint64_t, Vc>> v;
    const Vc *find(uint64_t k) const {
      auto it = std::lower_bound(v.begin(), v.end(), k,
                                 [](const std::pair<uint64_t, Vc> &e,
                                    uint64_t x) { return e.first < x; });
      return it != v.end() && it->first == k ? &it->second : nullptr;
    }
    Vc &operator[](uint64_t k) {
      auto it = std::lower_bound(v.begin(), v.end(), k,
                                 [](const std::pair<uint64_t, Vc> &e,
                                    uint64_t x) { return e.first < x; });
      if (it == v.end() || it->first != k)
        it = v.emplace(it, k, nullptr);
      return it->second;
    }
  };
  struct Multi {
    Scoped by_cta, by_cluster;
    Vc gpu;
  };
  // Most release sequences come from one CTA at one scope (a flag, a
  // result published with a fence): `one` is what they released, from
  // CTA `one_cta` at scope `one_scope`, without the tables of `multi`
  // (made when a second CTA or scope releases into the location).
  // (CTA linear indices fit 32 bits: the race checker runs on launches of
  // fewer than 2^30 threads, LaunchSt::race_on.)
  Vc one;
  std::unique_ptr<Multi> multi;
  uint32_t one_cta = 0, one_cluster = 0;
  uint32_t last_pc = ~0u; // the latest release
  uint32_t last_cta = 0;
  uint32_t next = 0;  // 1 + index of the next location in the granule
  uint8_t offset = 0; // the location: its byte in the (implied) granule
  MemScope one_scope = MemScope::None;
  MemScope last_scope = MemScope::None;

  // A new release sequence (a store): nothing released.
  void restart() {
    one = nullptr;
    one_scope = MemScope::None;
    multi.reset();
  }
  void clear() {
    restart();
    last_pc = ~0u;
    last_scope = MemScope::None;
    last_cta = 0;
  }
  bool empty() const { return !one && !multi; }
};
// One per location a strong write reached (every `out[i]` a seq_cst loop
// stores): 40 bytes.
static_assert(sizeof(SyncLoc) == 40);

// The release-sequence states of a launch, in chunks that do not move; a
// state is constructed when first used (a chunk is not written in advance
// and only the states made are destroyed).
class SyncStore {
public:
  static constexpr uint32_t kChunk = 1024;
  SyncStore() = default;
  SyncStore(SyncStore &&o) noexcept
      : chunks_(std::move(o.chunks_)), n_(std::exchange(o.n_, 0)) {}
  SyncStore &operator=(SyncStore &&o) noexcept {
    if (this != &o) {
      destroy();
      chunks_ = std::move(o.chunks_);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  ~SyncStore() { destroy(); }
  SyncLoc &at(uint32_t i) { // 1-based
    return reinterpret_cast<SyncLoc *>(
        chunks_[(i - 1) / kChunk].get())[(i - 1) % kChunk];
  }
  // A new state; returns its index.
  uint32_t make() {
    if (n_ % kChunk == 0)
      chunks_.emplace_back(new Raw[kChunk]);
    new (&reinterpret_cast<SyncLoc *>(chunks_.back().get())[n_ % kChunk])
        SyncLoc();
    return ++n_;
  }

private:
  struct Raw {
    alignas(SyncLoc) unsigned char b[sizeof(SyncLoc)];
  };
  void destroy() {
    for (uint32_t i = 1; i <= n_; ++i)
      at(i).~SyncLoc();
    n_ = 0;
    chunks_.clear();
  }
  std::vector<std::unique_ptr<Raw[]>> chunks_;
  uint32_t n_ = 0;
};

// A warp's plain access (4 or 8 bytes per lane, coalesced: lane l at
// `first + l * size` in the line, one clock for every lane) to a 128-byte
// line of global memory that nothing touched before: it stands for the
// cells the lanes would have taken in the line's 16 granules (race.cpp
// "Line records"; docs/checker.md "Shadow memory"); a later access of the
// same lanes to the same addresses that would take those cells again
// (record_lines) replaces it. 24 bytes.
struct LineRecord {
  uint32_t lanes = 0; // 0: none
  Tid tid0 = 0;       // lane 0's thread
  uint32_t clock = 0, pc = 0;
  int32_t first = 0; // byte of the line lane 0's address is at
  uint16_t size = 0; // Cell::size (kValued: the page's `bytes` hold them)
  uint8_t flags = 0; // Cell::flags
};
static_assert(sizeof(LineRecord) == 24);

// Global memory shadow: per 4 KiB page of memory, either line records
// (line_record: a page only ever accessed by accesses that records stand
// for) or granules. The page's granules are made when
// anything asks for one of them (granule(): every check, every other
// record), and its line records expanded into them then, as the accesses
// they stand for would have written them. Past the first kSmallBytes,
// memory is carved from 2 MiB slabs of transparent huge pages (one page
// fault per slab instead of one per 4 KiB of shadow: a stream over
// megabytes of global memory).
class GlobalShadow {
public:
  static constexpr size_t kPageGranules = 512;
  static constexpr size_t kPageBytes = kPageGranules * sizeof(Granule);
  static constexpr size_t kLineBytes = 128;
  static constexpr size_t kPageLines = 4096 / kLineBytes;
  static constexpr size_t kSlabBytes = size_t(2) << 20;
  static constexpr size_t kSmallPages = 16;
  static constexpr size_t kSmallBytes = kSmallPages * kPageBytes;
  GlobalShadow() = default;
  GlobalShadow(GlobalShadow &&o) noexcept { swap(o); }
  GlobalShadow &operator=(GlobalShadow &&o) noexcept {
    if (this != &o) {
      clear();
      swap(o);
    }
    return *this;
  }
  ~GlobalShadow() { clear(); }
  Granule *granule(uint64_t addr) {
    if ((addr >> 12) != last_page_)
      to_page(addr >> 12);
    return last_ + ((addr >> 3) & (kPageGranules - 1));
  }
  // The record of the line at `addr` (lanes 0: none yet) while its page
  // has no granules, to be filled in; nullptr once it has. `bytes`: where
  // the line's stored bytes go (in the page's 4 KiB of them, made when
  // `valued`; else nullptr when not made).
  LineRecord *line_record(uint64_t addr, bool valued, uint8_t *&bytes) {
    const uint64_t page = addr >> 12;
    if (page != rec_page_[0]) {
      if (page == rec_page_[1]) {
        std::swap(rec_page_[0], rec_page_[1]);
        std::swap(rec_last_[0], rec_last_[1]);
      } else {
        to_record_page(page);
      }
    }
    Page &p = *rec_last_[0];
    if (p.g)
      return nullptr;
    if (!p.rec) [[unlikely]]
      p.rec = static_cast<LineRecord *>(alloc(kPageLines * sizeof(LineRecord)));
    if (valued && !p.bytes) [[unlikely]]
      p.bytes = static_cast<uint8_t *>(alloc(4096));
    const uint32_t line = uint32_t(addr >> 7) & (kPageLines - 1);
    bytes = p.bytes ? p.bytes + line * kLineBytes : nullptr;
    return p.rec + line;
  }
  // Bytes of shadow memory allocated.
  size_t bytes() const { return bytes_; }
  void clear();

private:
  struct Page {
    Granule *g = nullptr;      // its granules (made on first use)
    LineRecord *rec = nullptr; // by line, while `g` is not made
    uint8_t *bytes = nullptr;  // bytes stored by valued records
  };
  // race.cpp: makes `page` the last one (its granules made on first touch,
  // its line records expanded into them).
  [[gnu::noinline]] void to_page(uint64_t page);
  [[gnu::noinline]] void to_record_page(uint64_t page);
  void expand(Page &p);
  Granule *new_page();
  // `n` bytes of zeroed memory (a multiple of 64), kept until clear().
  void *alloc(size_t n);
  // `n` bytes past the first kSmallBytes, from a slab (slabs.cpp): zeroed
  // when `slab_zeroed_` (a slab fresh from the kernel, not one kept from
  // an earlier launch).
  void *slab_alloc(size_t n);
  void swap(GlobalShadow &o) noexcept {
    pages_.swap(o.pages_);
    small_.swap(o.small_);
    small_pages_.swap(o.small_pages_);
    slabs_.swap(o.slabs_);
    std::swap(slab_next_, o.slab_next_);
    std::swap(slab_end_, o.slab_end_);
    std::swap(slab_zeroed_, o.slab_zeroed_);
    std::swap(last_page_, o.last_page_);
    std::swap(last_, o.last_);
    recent_.swap(o.recent_);
    rec_page_.swap(o.rec_page_);
    rec_last_.swap(o.rec_last_);
    std::swap(bytes_, o.bytes_);
    std::swap(small_bytes_, o.small_bytes_);
  }
  // (Node-based: a Page stays where it is while others are added.)
  std::unordered_map<uint64_t, Page> pages_;
  // The first allocations (past kSmallBytes: the slabs).
  std::vector<std::unique_ptr<Granule[]>> small_pages_;
  std::vector<std::unique_ptr<char[]>> small_;
  std::vector<std::pair<void *, size_t>> slabs_; // mapped: address, size
  char *slab_next_ = nullptr, *slab_end_ = nullptr;
  // The last page granule() found (one with granules) and the last two
  // pages line_record() found (a stream's input and output), latest first.
  uint64_t last_page_ = ~0ull;
  Granule *last_ = nullptr;
  // Pages to_page found, by page number modulo kRecent: a page asked for
  // again (lanes of a warp over a few pages, each page asked for by a lane
  // after another page) without a lookup in `pages_`.
  struct Recent {
    uint64_t page = ~0ull;
    Granule *g = nullptr;
  };
  static constexpr size_t kRecent = 256;
  std::array<Recent, kRecent> recent_{};
  std::array<uint64_t, 2> rec_page_{~0ull, ~0ull};
  std::array<Page *, 2> rec_last_{};
  size_t bytes_ = 0, small_bytes_ = 0;
  // Whether the current slab is zeroed memory (a slab kept from an earlier
  // launch is not).
  bool slab_zeroed_ = true;
};

// Who performed an access and what it knows.
struct Accessor {
  Tid tid = kNoTid;
  uint32_t clock = 0;
  const ThreadSt *ts = nullptr; // a thread; else `vc` is an agent's
  const VcData *vc = nullptr;
  // A thread's CTA: its warps' clocks at the CTA's latest barrier of the
  // whole CTA (CtaSt::dead_floor; `cta_wk0` the first warp's key, `cta_w`
  // its warps, 0: not given). Every thread of the CTA acquired those
  // floors there, so an access of the CTA below them is known without a
  // lookup in the thread's knowledge (a grid's worth of floors after a
  // grid sync).
  const uint32_t *cta_floor = nullptr;
  uint32_t cta_wk0 = 0, cta_w = 0;
  void set_cta(const CtaSt &c, uint32_t wk0) {
    cta_floor = c.dead_floor.data();
    cta_wk0 = wk0;
    cta_w = uint32_t(c.dead_floor.size());
  }
  bool knows(Tid u, uint32_t c) const {
    if (u == tid)
      return true;
    if (ts) {
      if (!is_agent(u) && warp_key(u) == warp_key(tid) && c < ts->own_floor)
        return true;
      const VcData *d = ts->vc.get();
      if (!d)
        return false;
      // (The CTA's floors first where the floors are a tree to walk.)
      if (!is_agent(u) && d->floors.deep() && warp_key(u) - cta_wk0 < cta_w &&
          c < cta_floor[warp_key(u) - cta_wk0])
        return true;
      return d->knows(u, c);
    }
    return vc && vc->knows(u, c);
  }
  // What it knows of the accesses at `clock` of the lanes of warp `wk`
  // other than itself: 1 all of them, 0 none, -1 it depends on the lane.
  int knows_warp(uint32_t wk, uint32_t clock) const {
    const VcData *d = vc;
    if (ts) {
      if (!is_agent(tid) && wk == warp_key(tid) && clock < ts->own_floor)
        return 1;
      d = ts->vc.get();
      if (d && d->floors.deep() && wk - cta_wk0 < cta_w &&
          clock < cta_floor[wk - cta_wk0])
        return 1;
    }
    if (!d)
      return 0;
    if (clock < d->floor_of(wk))
      return 1;
    return d->has_threads() ? -1 : 0;
  }
};

class Findings; // report.cpp

// Async-proxy rules (async_proxy.cpp): generic writes to shared memory
// that the async proxy reads, and mbarrier transaction accounting.
struct ProxySt {
  // The latest generic write of each 4-byte word of a CTA's shared memory
  // (by owner CTA; made on the first write) and the writing thread's count
  // of shared-memory `fence.proxy.async` at that write.
  struct Word {
    Tid tid = kNoTid;
    uint32_t pc = 0;
    uint32_t fences = 0;
  };
  std::unordered_map<uint64_t, std::vector<Word>> words;
  // The entry of `words` written last (nullptr: none) and its owner; the
  // vector of a retired CTA, kept for the next one's first write.
  uint64_t last_owner = 0;
  std::vector<Word> *last_words = nullptr;
  std::vector<Word> spare;
  std::unordered_map<Tid, uint32_t> fences; // per thread
  // wgmma proxy-fence reports made: (CTA, warp, wgmma pc, write pc).
  std::set<std::tuple<uint64_t, uint32_t, uint32_t, uint32_t>> wgmma_seen;
  // Transaction bytes of one phase of one mbarrier.
  struct Tx {
    int64_t expected = 0;  // expect_tx (incl. arrive.expect_tx)
    int64_t completed = 0; // complete_tx (copies and the instruction)
    int64_t late = 0; // completed here by copies issued in an earlier phase
    uint32_t expect_pc = ~0u, copy_pc = ~0u;
    Tid expect_tid = kNoTid, copy_tid = kNoTid;
    bool done = false; // the phase completed
  };
  struct Mbar {
    std::map<uint64_t, Tx> phases;
    // When each phase completed (`seq` then), by phase number.
    std::vector<uint64_t> completed_at;
  };
  // By mbarrier (owner << 32 | offset).
  std::unordered_map<uint64_t, Mbar> tx;
  // Copies completing transactions, by (issuer, async id): `seq` when
  // they were issued (the mbarrier is known only when they complete).
  std::unordered_map<uint64_t, uint64_t> issued;
  uint64_t seq = 0; // counts issues and phase completions
};

// Everything the checker knows about the launch being observed.
struct LaunchSt {
  Checks checks;
  const LaunchView *view = nullptr;
  uint64_t launch_index = 0;
  std::string kernel;
  Dim3 grid, block, cluster_dims;
  uint32_t tpc = 0, wpc = 0; // threads and warps per CTA
  uint32_t shared_bytes = 0, local_bytes = 0;
  std::pair<uint32_t, uint32_t> reserved{0, 0}; // LaunchView::reserved_shared
  bool race_on = true; // off when the launch is too large
  // Records of shared memory ordered before a whole-CTA barrier may be
  // dropped (CtaSt::dead_floor): clusters of one CTA (no distributed shared
  // memory), until the launch's first asynchronous copy (whose knowledge
  // may be older than the barrier).
  bool dead_ok = false;
  // Whether the program can access shared memory through the async proxy
  // (LaunchView::async_proxy): without it, generic writes are not
  // remembered for the cross-proxy fence rule (async_proxy.cpp).
  bool proxy_on = true;
  // For the access being checked: its CTA's dead floors when it is to
  // the CTA's own shared memory and they apply (race.cpp), else none.
  struct DeadFloors {
    const uint32_t *floor = nullptr;
    uint32_t wk0 = 0, wpc = 0; // the CTA's first warp key, its warps
  } dead_now;
  // Counts the barriers that raised some CTA's dead floors (Spill::live_gen).
  uint64_t dead_gen = 1;
  // Counts the events that may change a thread's knowledge or clock (every
  // synchronization event, every strong access): what is known of a warp's
  // lanes between two such events stays true (CtaSt::same_gen).
  uint64_t sync_gen = 1;
  std::unordered_map<uint64_t, std::unique_ptr<CtaSt>> ctas;
  std::vector<std::unique_ptr<CtaSt>> pool; // retired, for reuse
  std::unordered_map<uint64_t, ClusterSt> clusters;
  GlobalShadow global;
  // Release-sequence states, indexed by Granule::sync.
  SyncStore syncs;
  SyncLoc &sync_at(uint32_t i) { return syncs.at(i); }
  // The release-sequence state of `addr` in granule `g` (nullptr: none).
  SyncLoc *sync_loc(const Granule &g, uint64_t addr) {
    for (uint32_t i = g.sync; i; i = sync_at(i).next)
      if (sync_at(i).offset == (addr & 7))
        return &sync_at(i);
    return nullptr;
  }
  SyncLoc &sync_loc_new(Granule &g, uint64_t addr) {
    if (SyncLoc *l = sync_loc(g, addr))
      return *l;
    uint32_t i;
    if (!sync_free.empty()) {
      i = sync_free.back();
      sync_free.pop_back();
    } else {
      i = syncs.make();
    }
    SyncLoc &l = sync_at(i);
    l.offset = uint8_t(addr & 7);
    l.next = g.sync;
    g.sync = i;
    g.cell[0].flags |= kSyncBit;
    return l;
  }
  // Entries of retired CTAs' shared memory, for reuse (their vectors keep
  // their capacity: no allocation in the next CTA).
  std::vector<uint32_t> sync_free, spill_free;
  // Recycles the history and release-sequence states of `shadow`.
  void release_shadow(std::vector<Granule> &shadow);
  // Accesses evicted from a granule's two cells that the access evicting
  // them was not ordered after (concurrent reads by several threads, as
  // FastTrack's read-shared state): later accesses are checked against
  // them too. Indexed by Granule::spill; an entry goes once a write is
  // ordered after it.
  struct Spill {
    std::vector<Cell> reads, writes;
    // Beyond kGroupFrom kept writes, plain or strong (not atomic) writes of
    // one instruction, bytes, flags and value are one group (race.cpp
    // "Groups"): `w` the write
    // (its tid and clock unused), `members` each writer's thread and clock,
    // oldest first.
    struct Group {
      Cell w;
      std::vector<std::pair<Tid, uint32_t>> members;
    };
    static constexpr size_t kGroupFrom = 64;
    std::vector<Group> groups;
    // Beyond kGroupFrom kept reads, strong reads (not atomics) of one
    // instruction, bytes, flags and size are one group (race.cpp "Groups
    // of strong reads"): `w` the read (its tid, clock and value unused).
    std::vector<Group> strong_reads;
    // `dead_gen` when a record here was found not dead (race.cpp): until
    // dead floors are raised again or a write removes records, the history
    // is not all dead.
    uint64_t live_gen = 0;
  };
  std::vector<Spill> spill;
  // Async operations in flight: (agent tid, id) -> what the issuing thread
  // knew when it issued it (grouped: tracked by cp.async groups, dropped
  // when performed).
  struct AsyncSnap {
    Vc vc;
    bool grouped = false;
  };
  std::unordered_map<uint64_t, AsyncSnap> async_snap;
  // Per (agent tid): (group, highest id in that group) in issue order.
  std::unordered_map<Tid, std::vector<std::pair<uint32_t, uint32_t>>> groups;
  Findings *findings = nullptr;
  uint64_t peak_shadow = 0;
  std::array<uint64_t, 32> copy_from{}; // init: the source of a call copy
  // grid.sync: arrivals per CTA, and the CTAs that ended with their count
  // and where their first thread exited.
  struct GridSt {
    uint32_t arrivals = 0;
    uint32_t pc = ~0u; // the latest arrival's instruction
    uint32_t warp = 0, lane = 0;
    bool ended = false;
    uint32_t exit_pc = ~0u;
  };
  std::map<uint64_t, GridSt> grid_syncs; // by CTA; only once one arrived
  std::map<uint64_t, GridSt> ended_ctas; // CTAs that ended, by CTA
  ProxySt proxy;

  Tid tid_of(uint64_t cta, uint32_t warp, uint32_t lane) const {
    return Tid((cta * wpc + warp) * 32 + lane);
  }
  uint64_t cta_of(Tid t) const { return (thread_of(t) >> 5) / wpc; }
  uint32_t warp_of(Tid t) const { return (thread_of(t) >> 5) % wpc; }
  uint64_t cluster_of(uint64_t cta) const;
  CtaSt *cta(uint64_t linear) {
    if (linear == last_cta_ && last_cta_st_)
      return last_cta_st_;
    auto it = ctas.find(linear);
    if (it == ctas.end())
      return nullptr;
    last_cta_ = linear;
    return last_cta_st_ = it->second.get();
  }
  // The last CTA cta() found (every event of a warp's turn asks for it);
  // forgotten when `ctas` changes.
  uint64_t last_cta_ = 0;
  CtaSt *last_cta_st_ = nullptr;
  void ctas_changed() { last_cta_st_ = nullptr; }
  ThreadSt *thread(Tid t) {
    CtaSt *c = cta(cta_of(t));
    return c ? &c->threads[thread_of(t) - (cta_of(t) * wpc) * 32] : nullptr;
  }
  // Whether a strong operation of scope `s` by a thread of `cta_a`
  // includes a thread of `cta_b`.
  bool scope_covers(MemScope s, uint64_t cta_a, uint64_t cta_b) const {
    switch (s) {
    case MemScope::Cta:
      return cta_a == cta_b;
    case MemScope::Cluster:
      return cta_a == cta_b || cluster_of(cta_a) == cluster_of(cta_b);
    case MemScope::Gpu:
    case MemScope::Sys:
      return true;
    default:
      return false;
    }
  }
};

// ---- hb.cpp ----------------------------------------------------------------
// A release by thread `t` (lanes of one warp may release together:
// release_warp): what it publishes, then its clock advances.
Vc release_of(LaunchSt &L, CtaSt &c, uint32_t thread_index);
Released release_warp(LaunchSt &L, CtaSt &c, uint32_t warp, uint32_t lanes);
void acquire(ThreadSt &t, const Vc &v);
void cta_begin(LaunchSt &L, uint64_t linear, uint64_t cluster);
// One function per synchronization event (checker.cpp calls them for the
// CTA `c` that performed it).
void hb_thread_exit(CtaSt &c, const engine::ThreadEvent &e);
void hb_barrier_arrive(LaunchSt &L, CtaSt &c,
                       const engine::BarrierArriveEvent &e);
void hb_barrier_complete(CtaSt &c, const engine::BarrierCompleteEvent &e);
void hb_barrier_resume(CtaSt &c, const engine::BarrierResumeEvent &e);
void hb_warp_sync(LaunchSt &L, CtaSt &c, const engine::WarpSyncEvent &e);
void hb_cluster_arrive(LaunchSt &L, CtaSt &c, const engine::ClusterEvent &e);
void hb_cluster_complete(LaunchSt &L, const engine::ClusterEvent &e);
void hb_cluster_resume(LaunchSt &L, CtaSt &c, const engine::ClusterEvent &e);
void hb_mbar_init(LaunchSt &L, const engine::MbarEvent &e);
void hb_mbar_arrive(LaunchSt &L, CtaSt &c, const engine::MbarEvent &e);
void hb_mbar_complete_tx(LaunchSt &L, const engine::MbarEvent &e);
void hb_mbar_phase_complete(LaunchSt &L, const engine::MbarEvent &e);
void hb_mbar_wait_done(LaunchSt &L, CtaSt &c, const engine::MbarEvent &e);
void hb_async_issue(LaunchSt &L, CtaSt &c, const engine::AsyncIssueEvent &e);
void hb_async_complete(LaunchSt &L, const engine::AsyncCompleteEvent &e);
void hb_async_wait(LaunchSt &L, CtaSt &c, const engine::AsyncWaitEvent &e);
void hb_fence(LaunchSt &L, CtaSt &c, const engine::FenceEvent &e);
// Memory release/acquire patterns of one strong access by `lanes` of the
// event (race.cpp calls it after checking the access).
// `gran[l]`: the granule of lane l's address (in the shadow of its space).
void strong_access(LaunchSt &L, const AccessEvent &e, uint32_t lanes,
                   Granule *const *gran);

// Whether an acquire at `scope` by a thread of CTA `cta` of location `addr`
// (in granule `g`) takes knowledge of access (u, clock): the access happens
// before the acquiring access itself (race.cpp checks the access before
// strong_access acquires).
bool acquires(LaunchSt &L, const Granule &g, uint64_t addr, uint64_t cta,
              MemScope scope, Tid u, uint32_t clock);

// ---- race.cpp --------------------------------------------------------------
void check_access(LaunchSt &L, const AccessEvent &e);
// ---- readlog.cpp -----------------------------------------------------------
// A plain shared-memory read of CTA `owner`'s memory by lanes that know the
// same (`ts`: the first lane's state, `clock` its clock), which
// read_groups would take whole: logged instead while the CTA's shared
// memory is clean (returns true; nothing else to do for it), else the log
// is replayed (returns false).
bool readlog_read(LaunchSt &L, CtaSt &owner, const AccessEvent &e,
                  uint32_t lanes, uint8_t flags, Tid tid0, const ThreadSt &ts,
                  uint32_t clock);
// Anything else that reaches the CTA's shared memory: the log replayed into
// the granules first, and no more logging until the next barrier.
void readlog_flush(LaunchSt &L, CtaSt &owner);
// A barrier of the whole CTA that raises its dead floors completes (before
// they are raised).
void readlog_barrier(LaunchSt &L, CtaSt &c);
// race.cpp: the layout of the lanes of `e` as an index in `rl.layouts`,
// ~0u when read_groups would not take every lane in a read entry.
uint32_t readlog_layout(ReadLog &rl, const AccessEvent &e, uint32_t lanes);
// race.cpp: entry `x` into CTA `c`'s granules, with their history, as
// read_groups would have put it when logged. (Its knowledge is moved out:
// the log is cleared after.)
void readlog_replay(LaunchSt &L, CtaSt &c, ReadLogEntry &x);
// ---- lines.cpp -------------------------------------------------------------
// A plain access of 4 or 8 bytes per lane to global memory: records for the
// lanes in untouched lines (docs/checker.md "Shadow memory", line
// records); returns the other lanes, checked one by one (race.cpp).
uint32_t record_lines(LaunchSt &L, const AccessEvent &e);
// CTA barriers: whether a phase was one of the whole CTA, all waiting
// (CtaSt::dead_floor).
void race_barrier_arrive(CtaSt &c, const engine::BarrierArriveEvent &e);
void race_barrier_complete(LaunchSt &L, CtaSt &c,
                           const engine::BarrierCompleteEvent &e);

// ---- init.cpp --------------------------------------------------------------
void init_access_lanes(LaunchSt &L, const AccessEvent &e);
// An access's uninitialized-read test. Global memory has none, and a read
// or write of shared memory every byte of which was written (a tile after
// its first fill) has nothing to report and no bit to set: answered here,
// without the call (the tiles' loads of a checked matmul, one per event).
inline void init_access(LaunchSt &L, const AccessEvent &e) {
  if (e.space == StateSpace::Shared) {
    const CtaSt *c = L.cta(e.owner);
    if (!c ||
        (c->shared_unset == 0 && e.origin != engine::AccessOrigin::CallCopy))
      return;
  } else if (e.space != StateSpace::Local) {
    return;
  }
  init_access_lanes(L, e);
}
// A recursive activation's frame ends: its local bytes become
// uninitialized (a later activation there starts fresh).
void init_frame_end(LaunchSt &L, const AccessEvent &e);

// ---- async_proxy.cpp -------------------------------------------------------
// Generic writes to shared memory and proxy fences (race checks), the
// async proxy's reads of shared memory (a missing fence.proxy.async), and
// the transaction bytes of mbarrier phases (sync checks).
void proxy_access(LaunchSt &L, const AccessEvent &e);
void proxy_fence(LaunchSt &L, const engine::FenceEvent &e);
void proxy_async_issue(LaunchSt &L, const engine::AsyncIssueEvent &e);
void proxy_expect_tx(LaunchSt &L, const engine::MbarEvent &e, bool arrive);
void proxy_complete_tx(LaunchSt &L, const engine::MbarEvent &e);
void proxy_mbar_init(LaunchSt &L, const engine::MbarEvent &e);
void proxy_phase_complete(LaunchSt &L, const engine::MbarEvent &e);
// CTA `cta` ended: its shared memory's generic writes are forgotten (the
// vector kept for the next CTA).
void proxy_words_end(LaunchSt &L, uint64_t cta);
// Phases left incomplete with unbalanced transaction bytes (mbarriers of
// CTA `cta`, or of every CTA when `all`).
void proxy_cta_end(LaunchSt &L, uint64_t cta, bool all = false);

// ---- rules.cpp -------------------------------------------------------------
void rules_grid_sync(LaunchSt &L, const engine::ThreadEvent &e);
void rules_barrier_arrive(CtaSt &c, const engine::BarrierArriveEvent &e);
void rules_barrier_complete(LaunchSt &L, CtaSt &c,
                            const engine::BarrierCompleteEvent &e);
void rules_mbar_init(LaunchSt &L, const engine::MbarEvent &e);
void rules_mbar_wait_done(LaunchSt &L, const engine::MbarEvent &e);
void rules_mbar_arrive(LaunchSt &L, const engine::MbarEvent &e);
// A CTA ends (before its state is dropped) / the launch ends.
void rules_cta_end(LaunchSt &L, const CtaSt *c, uint64_t cta);
void rules_launch_end(LaunchSt &L);

} // namespace bcusim::check::detail

namespace bcusim::check::detail {

// Dynamic parallelism (cdp.cpp; docs/checker.md "Parent and child
// grids"): the global accesses of a grid that can make device-side
// launches, its launches, and for each child grid running, the parent's
// accesses that are not ordered before it; the streams and events of the
// grid's launches, and the footprints of finished child grids that later
// sibling grids may overlap with.
struct CdpSt {
  struct Access {
    uint64_t addr = 0;
    uint32_t size = 0, pc = 0;
    Tid tid = kNoTid;
    uint32_t clock = 0;
    bool write = false, strong = false;
  };
  // A vector clock over the streams of one grid's launches: (stream,
  // launches into it known to come before), sorted by stream.
  using Clock = std::vector<std::pair<uint32_t, uint32_t>>;
  struct Launch {
    Tid tid = kNoTid;
    uint32_t pc = 0;
    size_t at = 0;  // log entries before it
    ThreadSt known; // what the launching thread knew
    bool tail = false;
    uint32_t stream = 0, pos = 0; // its stream and place in it
    Clock clock;                  // the launches it follows
    std::string stream_text;      // "the NULL stream of CTA (0,0,0)"
  };
  // A parent's access a child grid is not ordered with.
  struct Side {
    uint64_t addr = 0;
    uint32_t size = 0, pc = 0;
    Tid tid = kNoTid;
    bool write = false, strong = false;
  };
  // The global-memory footprint of a child grid with its descendants
  // (owner: the child each span came from).
  using Footprint = check::Footprint;
  // An access of a footprint, rendered once per (grid, instruction, kind).
  struct Site {
    std::string who; // "write of 4 bytes by thread ... at 'st...'"
    SourceLoc loc;
  };
  struct Frame;
  struct Child {
    // While it runs: the parent's accesses it is not ordered with, sorted
    // by address (built when it starts, dropped when it ends), and the
    // largest of their sizes.
    std::vector<Side> sides;
    uint32_t max_size = 0;
    const Frame *frame = nullptr;
    std::string launch_at; // where the parent launched it
    std::string launcher;  // "thread ... of kernel 'k' (launch 0) at '...'"
    bool tail = false;
    uint32_t stream = 0, pos = 0;
    Clock clock;
    std::string stream_text;
    // A later sibling may overlap with it: its footprint is kept.
    bool later_concurrent = false;
  };
  // The children of a grid whose child grids are running, with what is
  // needed to check them against the grid: its log and launches, and to
  // name its threads and instructions.
  struct Frame {
    std::vector<Child> children;
    std::vector<Access> log;
    std::vector<Launch> launches;
    Dim3 grid, block;
    uint32_t wpc = 1;
    std::string kernel; // demangled
    uint64_t launch_index = 0;
    std::unordered_map<uint32_t, std::pair<std::string, SourceLoc>> pcs;
    std::vector<Footprint> done; // by child, once finished (if kept)
    std::vector<char> finished;
    // The union of the finished children the running one may overlap
    // with, and which children it holds.
    Footprint merged;
    std::vector<char> in_merged;
  };
  // A child grid running (with its descendants): what it and its
  // descendants accessed so far, kept while some grid may overlap with it,
  // and the footprint of the siblings it may overlap with.
  struct Level {
    Footprint cur;
    bool record = false;
    const Footprint *concurrent = nullptr; // in a Frame of `frames`
    const Frame *frame = nullptr;          // its parent's children
    uint64_t child = 0;                    // its index there
  };
  bool logging = false;
  std::pair<uint64_t, uint64_t> params; // parameter buffers: not logged
  std::vector<Access> log;
  std::vector<Launch> launches;      // of the launch being observed
  std::deque<Frame> frames;          // by launch depth: its children (stable)
  std::vector<uint32_t> depth;       // child grids running
  std::vector<const Child *> active; // their contexts
  std::vector<Level> levels;         // and their footprints
  // Streams of the launch being observed: ids by (kind, handle or CTA or
  // thread), each stream's clock, the clocks recorded in events, and
  // whether any stream waited for an event.
  std::map<std::pair<int, uint64_t>, uint32_t> stream_ids;
  std::vector<Clock> stream_clock;
  std::map<uint64_t, Clock> events;
  bool waited = false;
  std::vector<Site> sites;
  std::map<std::tuple<uint64_t, uint32_t, int>, uint32_t> site_of;
};

void cdp_launch_begin(CdpSt &s, const LaunchSt &L);
void cdp_access(CdpSt &s, LaunchSt &L, const AccessEvent &e);
void cdp_device_launch(CdpSt &s, LaunchSt &L,
                       const engine::DeviceLaunchEvent &e);
void cdp_stream_event(CdpSt &s, LaunchSt &L,
                      const engine::DeviceStreamEvent &e);
void cdp_launch_end(CdpSt &s, LaunchSt &L);
void cdp_child_begin(CdpSt &s, const engine::ChildGridEvent &e);
void cdp_child_end(CdpSt &s, const engine::ChildGridEvent &e);

} // namespace bcusim::check::detail
