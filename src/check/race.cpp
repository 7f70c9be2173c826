// Race detection on shadow memory (docs/checker.md "How races are found").
//
// Each 8-byte granule of shared and global memory has two cells that
// remember recent accesses (thread, clock, instruction, bytes, kind). A new
// access is checked against both: two accesses conflict when they overlap
// in some byte and one of them writes; they race unless they come from the
// same thread, are morally strong (both strong, the same size, each scope
// including the other thread: atomics among themselves, relaxed / acquire /
// release flags), or the earlier one happens before the new one. Then the
// new access takes a cell: the same thread's older access, an empty cell,
// an access that happens before it, or (atomics, which are totally ordered
// per location) another atomic; else the older of the two cells. An
// evicted access the new one is not ordered after is kept aside for the
// granule (LaunchSt::spill: concurrent readers, FastTrack's read-shared
// state) and checked against later; a write drops what it is ordered after.
// Cells keep the bytes a store wrote: unordered writes of the same value are
// a benign race (a warning), different values an error. A warp's plain
// reads of a granule by three lanes or more that know the same (in global
// memory, a coalesced word load's pairs of lanes too) are one cell (a read
// entry: which lanes read which half of the granule), checked once against
// the granule's writes; a write meets it lane by lane. Records of a CTA's
// shared memory made before a barrier that the whole CTA waited at can
// never race again ("dead"): they are not kept aside, and a warp's word
// stores onto granules of dead records take their cells per granule. A
// line of global memory that only a warp's coalesced plain access reached
// is a record (lines.cpp) until a granule of its page is needed
// (GlobalShadow::expand).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <tuple>
#include <type_traits>

#include <sys/mman.h>

#include "report.h"

namespace bcusim::check::detail {

static_assert(std::is_trivially_destructible_v<Granule> &&
              std::is_trivially_copyable_v<Granule>);

void GlobalShadow::to_page(uint64_t page) {
  Recent &r = recent_[page & (kRecent - 1)];
  if (r.page != page) {
    Page &p = pages_[page];
    if (!p.g) {
      p.g = new_page();
      if (p.rec)
        expand(p);
    }
    r.page = page;
    r.g = p.g;
  }
  last_page_ = page;
  last_ = r.g;
}

void GlobalShadow::to_record_page(uint64_t page) {
  rec_page_[1] = rec_page_[0];
  rec_last_[1] = rec_last_[0];
  rec_page_[0] = page;
  rec_last_[0] = &pages_[page];
}

namespace {

struct NewAccess {
  Tid tid;
  uint32_t clock, pc;
  uint8_t flags; // kWrite | kAtomic | kStrong | scope | kAsync
  uint16_t size; // with kValued when `value` holds the written bytes
  uint64_t cta;
  uint64_t value; // byte i = what the write stored in byte i of the granule
  bool acquire;   // a strong read with acquire semantics
};

// The bytes of a granule that `mask` selects, as a 64-bit mask.
inline uint64_t byte_mask(uint8_t mask) {
  uint64_t m = 0;
  for (int i = 0; i < 8; ++i)
    if (mask >> i & 1)
      m |= 0xffull << (8 * i);
  return m;
}

// When `sib` is `old`'s thread's cell of the same clock and kind (on other
// bytes of the granule), `old`'s bytes (and value) join it, as if the two
// had been one record when made; false, changing nothing, otherwise.
[[gnu::always_inline]] inline bool merge_sibling(Cell &sib, const Cell &old) {
  if (sib.tid != old.tid || sib.clock != old.clock ||
      ((sib.flags ^ old.flags) & 0x7f) != 0 ||
      ((sib.size ^ old.size) & kSizeMax) != 0)
    return false;
  if ((sib.size & kValued) && (old.size & kValued)) {
    const uint64_t bm = byte_mask(old.mask);
    sib.value = (sib.value & ~bm) | (old.value & bm);
  } else {
    sib.size &= uint16_t(~kValued);
  }
  sib.mask |= old.mask;
  return true;
}

// Two conflicting writes: did they store the same bytes where they overlap?
inline WriteValues compare_values(const Cell &c, const NewAccess &a,
                                  uint8_t mask) {
  if (!(c.flags & kWrite) || !(a.flags & kWrite) || (c.flags & kAtomic) ||
      (a.flags & kAtomic) || !(c.size & kValued) || !(a.size & kValued))
    return WriteValues::Unknown;
  return ((c.value ^ a.value) & byte_mask(c.mask & mask)) == 0
             ? WriteValues::Same
             : WriteValues::Different;
}

constexpr uint8_t kRecentBit = 0x80; // cell[1].flags: cell 1 is the newer
// (cell[0].flags & kSyncBit: Granule::sync has states; state.h)

// A shadow cell or a new access as one side of a race report (both keep
// tid, pc, flags, size and clock in the same encoding).
template <class Rec> RaceSide side(const Rec &c) {
  RaceSide s;
  s.tid = c.tid;
  s.pc = c.pc;
  s.write = c.flags & kWrite;
  s.atomic = c.flags & kAtomic;
  s.strong = c.flags & kStrong;
  s.scope = scope_of(c.flags);
  s.size = c.size & kSizeMax;
  s.async_id = is_agent(c.tid) ? c.clock : 0;
  return s;
}

// A read entry (kWarpRead): plain reads of the granule by lanes of one
// warp at one clock and instruction that knew the same. `tid` is a lane of
// it, `value` its lanes: bits 0-31 read the bytes `mask & 0x0f`, bits 32-63
// the bytes `mask & 0xf0`.
inline bool is_entry(const Cell &c) { return c.size & kWarpRead; }
inline uint32_t entry_lanes(const Cell &c) {
  return uint32_t(c.value) | uint32_t(c.value >> 32);
}
inline uint8_t lane_bytes(const Cell &c, uint32_t l) {
  return uint8_t(((c.value >> l) & 1 ? c.mask & 0x0f : 0) |
                 ((c.value >> (32 + l)) & 1 ? c.mask & 0xf0 : 0));
}
// An entry's `tid` has both kind bits set (no thread's or agent's tid is
// equal to it).
constexpr Tid kEntryKind = kKindMask;
inline Tid entry_tid(const Cell &c, uint32_t l) {
  return (thread_of(c.tid) & ~31u) + l;
}
// The lanes of entry `c` whose bytes pass `ok` (a test of a byte mask).
template <class Ok> inline uint32_t entry_lanes_if(const Cell &c, Ok ok) {
  const uint32_t cl = uint32_t(c.value), ch = uint32_t(c.value >> 32);
  uint32_t r = 0;
  if (cl & ~ch && ok(uint8_t(c.mask & 0x0f)))
    r |= cl & ~ch;
  if (ch & ~cl && ok(uint8_t(c.mask & 0xf0)))
    r |= ch & ~cl;
  if (cl & ch && ok(c.mask))
    r |= cl & ch;
  return r;
}
// At least three lanes in `m`.
inline bool three_or_more(uint32_t m) {
  m &= m - 1;
  return m & (m - 1);
}
// Removes lanes `d` from entry `c` (false: none left).
inline bool entry_trim(Cell &c, uint32_t d) {
  c.value &= ~(uint64_t(d) | uint64_t(d) << 32);
  const uint32_t lo = uint32_t(c.value), hi = uint32_t(c.value >> 32);
  c.mask &= uint8_t((lo ? 0x0f : 0) | (hi ? 0xf0 : 0));
  if (!(lo | hi))
    return false;
  c.tid = kEntryKind | entry_tid(c, uint32_t(std::countr_zero(lo | hi)));
  return true;
}

bool morally_strong(const LaunchSt &L, const Cell &c, const NewAccess &a) {
  if (!(c.flags & kStrong) || !(a.flags & kStrong) ||
      ((c.size ^ a.size) & kSizeMax))
    return false;
  // (Both at .gpu or .sys scope: each includes every thread of the launch,
  // whatever their CTAs.)
  if (scope_of(c.flags) >= MemScope::Gpu && scope_of(a.flags) >= MemScope::Gpu)
    return true;
  const uint64_t cc = L.cta_of(c.tid);
  return L.scope_covers(scope_of(c.flags), cc, a.cta) &&
         L.scope_covers(scope_of(a.flags), a.cta, cc);
}

// A CTA's shared memory whose records below its warps' dead floors
// (CtaSt::dead_floor: the latest barrier every thread of the CTA took part
// in, waiting) happen before every later access of the CTA, the only one
// that can reach it (LaunchSt::dead_ok): such a "dead" record can never
// race again, so it is not kept aside when evicted from a cell, and a
// history of dead records only is dropped. (The cells stay as they are:
// which cell a later access takes, and so what a report names, is the
// same.) `floor` nullptr: not such memory.
// (LaunchSt::dead_now, set for each access event.)
using Dead = LaunchSt::DeadFloors;
// Whether the record `c` (not empty) is dead: a thread's access or a read
// entry (whose tid has both kind bits) of the CTA below its warp's floor;
// an async-copy agent's never (its copy's knowledge is its issue's).
[[gnu::always_inline]] inline bool dead(const Dead &d, Tid tid,
                                        uint32_t clock) {
  const Tid k = tid & kKindMask;
  if (k == kAgentCp || k == kAgentBulk)
    return false;
  const uint32_t w = warp_key(tid) - d.wk0;
  return w < d.wpc && clock < d.floor[w];
}
[[gnu::always_inline]] inline bool dead(const Dead &d, const Cell &c) {
  return dead(d, c.tid, c.clock);
}
// The history of granule `g`, when every access in it is dead: dropped.
[[gnu::noinline]] bool drop_dead_spill(LaunchSt &L, Granule &g, const Dead &d) {
  LaunchSt::Spill &s = L.spill[g.spill - 1];
  if (s.live_gen == L.dead_gen)
    return false; // known to hold a live record (no barrier since)
  for (const Cell &c : s.reads)
    if (!dead(d, c)) {
      s.live_gen = L.dead_gen;
      return false;
    }
  for (const Cell &c : s.writes)
    if (!dead(d, c)) {
      s.live_gen = L.dead_gen;
      return false;
    }
  for (const auto *gs : {&s.groups, &s.strong_reads})
    for (const auto &gr : *gs)
      for (const auto &[tid, clock] : gr.members)
        if (!dead(d, tid, clock)) {
          s.live_gen = L.dead_gen;
          return false;
        }
  s.reads.clear();
  s.writes.clear();
  s.groups.clear();
  s.strong_reads.clear();
  L.spill_free.push_back(g.spill);
  g.spill = 0;
  g.cell[0].size &= uint16_t(~kSpilledWrite);
  return true;
}
// Drops the history of granule `g` if it holds dead records only (the
// reads of a tile that a write after the barrier ending them meets).
inline void clear_dead(LaunchSt &L, Granule &g, const Dead &d) {
  if (d.floor && g.spill && L.spill[g.spill - 1].live_gen != L.dead_gen)
      [[unlikely]] // shared memory (global: no test)
    drop_dead_spill(L, g, d);
}

// Keeps `c`, evicted from granule `g`, in the granule's spilled history
// (one entry per thread: its latest such access).
// Gives granule `g` a history (the first eviction into it).
[[gnu::noinline]] void spill_new(LaunchSt &L, Granule &g) {
  if (!L.spill_free.empty()) {
    g.spill = L.spill_free.back();
    L.spill_free.pop_back();
  } else {
    L.spill.emplace_back();
    g.spill = uint32_t(L.spill.size());
    // (Room for a few reads at once: a word read by every CTA keeps one
    // read entry per CTA, which grew the vector 1, 2, 4, 8.)
    L.spill.back().reads.reserve(8);
  }
  L.spill[g.spill - 1].live_gen = 0;
}

// Groups. A granule that keeps more than kGroupFrom writes (a flag stored
// by thousands of threads none of which is ordered with another) keeps
// further plain writes of one instruction, bytes, flags and value as one
// group: the write and its writers (thread, clock). An access is checked
// against a group by its newest member that it is not ordered after: one
// instance per access and group, not one per member, and nothing missed
// (an access unordered with some member finds one). A write ordered after
// every member that covers the group's bytes and stands for it makes the
// group redundant: it goes. A group of strong writes (a `volatile` flag) is
// checked so too, except that a strong access of its size at .gpu or .sys
// scope, the group's scope being .gpu or .sys too, is morally strong with
// every member: it passes over the group at once (passes_group). Only a
// plain write drops such a group (a strong one stands for an access of its
// own CTA only, and the members may be of several).
[[gnu::noinline]] void join_group(std::vector<LaunchSt::Spill::Group> &groups,
                                  const Cell &k) {
  for (auto &gr : groups)
    if (gr.w.pc == k.pc && gr.w.mask == k.mask && gr.w.flags == k.flags &&
        gr.w.size == k.size && gr.w.value == k.value) {
      // (The thread's later write stands for its earlier one.)
      if (gr.members.back().first == k.tid)
        gr.members.back().second = k.clock;
      else
        gr.members.emplace_back(k.tid, k.clock);
      return;
    }
  groups.push_back({k, {{k.tid, k.clock}}});
}

// Whether `a` is morally strong with every member of group `gr` (of strong
// writes or strong reads): both strong, of one size, at .gpu or .sys scope.
inline bool passes_group(const NewAccess &a, const LaunchSt::Spill::Group &gr) {
  return (a.flags & gr.w.flags & kStrong) &&
         !((gr.w.size ^ a.size) & kSizeMax) &&
         scope_of(a.flags) >= MemScope::Gpu &&
         scope_of(gr.w.flags) >= MemScope::Gpu;
}

// Groups of strong reads. A granule that keeps more than kGroupFrom reads
// (a word every thread reads with a strong load and then lowers with an
// atomic) keeps further strong reads (not atomics) of one instruction,
// bytes, flags and size as one group, joined by join_group (a read's value
// is unused: 0). A write is checked against such a group as against a
// group of writes (check_group), except that a strong write of the group's
// size at .gpu or .sys scope, the group's scope being .gpu or .sys too, is
// morally strong with every member: it passes over the group at once. Only
// a plain write drops the group (ordered after every member); the members
// a strong write is ordered after stay (a later access that races with one
// races with the write too: at most a further report of that race).
inline bool strong_read_joins(const LaunchSt::Spill &s, const Cell &k) {
  return (k.flags & kStrong) && !(k.flags & (kWrite | kAtomic)) &&
         !is_entry(k) && s.reads.size() >= LaunchSt::Spill::kGroupFrom;
}
[[gnu::noinline]] void join_strong_read(LaunchSt::Spill &s, Cell k) {
  k.value = 0;
  join_group(s.strong_reads, k);
}

// A cell kept aside: without the bits of its place in the granule
// (kSpilledWrite, kSyncBit, kRecentBit).
inline void clear_cell_bits(Cell &k) {
  k.size &= uint16_t(~kSpilledWrite);
  k.flags &= 0x7f;
}

[[gnu::noinline]] void spill_cell(LaunchSt &L, Granule &g, const Cell &c) {
  if (!g.spill) [[unlikely]]
    spill_new(L, g);
  auto &s = L.spill[g.spill - 1];
  auto &v = (c.flags & kWrite) ? s.writes : s.reads;
  if (c.flags & kWrite)
    g.cell[0].size |= kSpilledWrite;
  // (`c` is copied whole below; a copy with its cell bits cleared, made
  // field by field, only where it is compared or kept field by field.)
  // Atomics on a location are totally ordered: as in the cells, an atomic
  // subsumes the older atomics on its bytes that it writes over or that only
  // read (two atomics sharing a granule, each evicting the other's cell,
  // would otherwise keep one entry per thread and iteration).
  if (c.flags & kAtomic) {
    const uint8_t m = c.mask;
    auto subsumed = [m](const Cell &e) {
      return (e.flags & kAtomic) && !(e.mask & ~m);
    };
    std::erase_if(s.reads, subsumed);
    if (c.flags & kWrite)
      std::erase_if(s.writes, subsumed);
    s.live_gen = 0; // the live record may have gone
  }
  // Beyond kGroupFrom kept writes, a plain or strong (not atomic) write of
  // known bytes joins the group of its instruction, bytes, flags and value
  // ("Groups" below).
  if ((c.flags & kWrite) && !(c.flags & kAtomic) && (c.size & kValued) &&
      s.writes.size() >= LaunchSt::Spill::kGroupFrom) [[unlikely]] {
    Cell k = c;
    clear_cell_bits(k);
    join_group(s.groups, k);
    return;
  }
  if (strong_read_joins(s, c)) [[unlikely]] {
    Cell k = c;
    clear_cell_bits(k);
    join_strong_read(s, k);
    return;
  }
  // A later access of the thread to the same bytes stands for its earlier
  // one (what is ordered after it is ordered after the earlier one): the
  // latest entries are looked at, which keeps a spill O(1).
  // (A read entry: one of the same lanes of the warp.)
  for (size_t i = v.size(), n = 0; i-- > 0 && n < 2; ++n)
    if (v[i].tid == c.tid && !(v[i].mask & ~c.mask) &&
        (!is_entry(c) || v[i].value == c.value)) {
      v[i] = c;
      clear_cell_bits(v[i]);
      return;
    }
  v.push_back(c);
  clear_cell_bits(v.back());
}

// spill_cell of a read (a read entry or a lane's plain or strong read:
// no atomic), inline.
[[gnu::always_inline]] inline void spill_read(LaunchSt &L, Granule &g,
                                              const Cell &c) {
  if (!g.spill) [[unlikely]]
    spill_new(L, g);
  auto &s = L.spill[g.spill - 1];
  auto &v = s.reads;
  // (`c` is copied whole and its cell bits cleared in place: a copy made
  // on the stack field by field and then read back whole would wait for
  // its byte stores.)
  if (strong_read_joins(s, c)) [[unlikely]] {
    Cell k = c;
    clear_cell_bits(k);
    join_strong_read(s, k);
    return;
  }
  const size_t n = v.size();
  for (size_t i = n, j = 0; i-- > 0 && j < 2; ++j)
    if (v[i].tid == c.tid && !(v[i].mask & ~c.mask) &&
        (!is_entry(c) || v[i].value == c.value)) {
      v[i] = c;
      clear_cell_bits(v[i]);
      return;
    }
  v.push_back(c);
  clear_cell_bits(v.back());
}

// Whether the new access `a` stands for cell `c` in later checks: whatever
// is morally strong with it is morally strong with `c`. A plain access
// stands for any; a strong one only for a strong access of its size and CTA
// at no narrower scope (a plain write that its thread's atomic covers still
// races with another thread's atomic the atomic does not race with).
inline bool stands_for(const LaunchSt &L, const NewAccess &a, const Cell &c) {
  return !(a.flags & kStrong) ||
         ((c.flags & kStrong) && !((c.size ^ a.size) & kSizeMax) &&
          scope_of(c.flags) >= scope_of(a.flags) &&
          (c.tid == a.tid || L.cta_of(c.tid) == a.cta));
}

// Where the new access `a` (on bytes `mask` of granule `g`, byte 0 at
// `base`) is checked.
struct Target {
  Granule &g;
  uint8_t mask;
  StateSpace space;
  uint64_t owner, base;
};

// The races one access event found, reported at its end in a fixed order
// (docs/checker.md "Reports"): by the later thread, then the earlier access
// by its thread's clock, CTA and thread index, then the address. So which
// earlier access a report names does not depend on where shadow memory
// happened to keep it.
struct FoundRace {
  StateSpace space;
  uint64_t owner, addr;
  RaceSide earlier, later;
  uint32_t clock; // the earlier access's
  WriteValues values;
};
thread_local std::vector<FoundRace> found;

// A race that would only be counted (its kind suppressed, or its finding
// listing as many instances as it keeps) is counted now: where it falls in
// the report order changes nothing.
[[gnu::noinline, gnu::cold]] void found_race(LaunchSt &L, const Target &t,
                                             const RaceSide &earlier,
                                             uint32_t clock,
                                             const RaceSide &later,
                                             uint64_t addr, WriteValues v) {
  if (L.findings->race_counted(L, t.space, earlier, later, v))
    return;
  found.push_back({t.space, t.owner, addr, earlier, later, clock, v});
}

[[gnu::noinline]] void report_found(LaunchSt &L) {
  auto key = [](const FoundRace &f) {
    return std::make_tuple(thread_of(f.later.tid), f.later.tid, f.clock,
                           thread_of(f.earlier.tid), f.earlier.tid,
                           f.earlier.async_id, f.addr, f.earlier.pc);
  };
  std::stable_sort(
      found.begin(), found.end(),
      [&](const FoundRace &x, const FoundRace &y) { return key(x) < key(y); });
  for (const FoundRace &f : found)
    L.findings->race(L, f.space, f.owner, f.addr, f.earlier, f.later, f.values);
  found.clear();
}

// The lanes of read entry `c` that the access `a` (on bytes `mask`) makes
// redundant, as it would each lane's own cell: it covers the lane's bytes,
// is ordered after it, and stands for it (a plain access).
// (`k`: who.knows_warp of the entry's warp and clock, 2: not known yet.)
[[gnu::noinline]] uint32_t entry_dropped(const NewAccess &a,
                                         const Accessor &who, const Cell &c,
                                         uint8_t mask, int k = 2) {
  if (a.flags & kStrong)
    return 0;
  const uint32_t cov =
      entry_lanes_if(c, [mask](uint8_t m) { return !(m & ~mask); });
  if (!cov)
    return 0;
  if (k == 2)
    k = who.knows_warp(warp_key(c.tid), c.clock);
  if (k > 0)
    return cov;
  uint32_t d = 0;
  for (uint32_t m = cov; m; m &= m - 1) {
    const uint32_t l = uint32_t(std::countr_zero(m));
    const Tid u = entry_tid(c, l);
    if (u == a.tid || (k < 0 && who.knows(u, c.clock)))
      d |= 1u << l;
  }
  return d;
}

// Checks the write `a` against the lanes of read entry `c`, lane by lane;
// returns the lanes it makes redundant (entry_dropped).
[[gnu::noinline]] uint32_t check_entry(LaunchSt &L, const Target &t,
                                       const NewAccess &a, const Accessor &who,
                                       const Cell &c) {
  const uint8_t mask = t.mask;
  // The lanes that read some of these bytes, and the writer's own lane:
  // when no other lane did, nothing can conflict, and the lanes the write
  // covers are its own (no knowledge asked: a thread's store of the word
  // it loaded, the pair's other lane reading the other word).
  const uint32_t over = ((c.mask & mask & 0x0f) ? uint32_t(c.value) : 0u) |
                        ((c.mask & mask & 0xf0) ? uint32_t(c.value >> 32) : 0u);
  const uint32_t own = !is_agent(a.tid) && warp_key(c.tid) == warp_key(a.tid)
                           ? 1u << (a.tid & 31)
                           : 0u;
  // (A dead entry: every lane known, without a lookup.)
  const Dead &dd = L.dead_now;
  const int k = !(over & ~own) ? 1
                : dd.floor && dead(dd, c)
                    ? 1
                    : who.knows_warp(warp_key(c.tid), c.clock);
  uint32_t d;
  if (k > 0) { // ordered after every lane (a barrier since), or none other
    d = (a.flags & kStrong)
            ? 0
            : entry_lanes_if(c, [mask](uint8_t m) { return !(m & ~mask); });
  } else {
    for (uint32_t m = entry_lanes(c); m; m &= m - 1) {
      const uint32_t l = uint32_t(std::countr_zero(m));
      const uint8_t b = lane_bytes(c, l) & t.mask;
      const Tid u = entry_tid(c, l);
      if (!b || u == a.tid || (k < 0 && who.knows(u, c.clock)))
        continue;
      if (a.acquire &&
          acquires(L, t.g,
                   t.base + uint64_t(std::countr_zero(unsigned(t.mask))), a.cta,
                   scope_of(a.flags), u, c.clock))
        continue;
      RaceSide s = side(c);
      s.tid = u;
      s.async_id = 0;
      found_race(L, t, s, c.clock, side(a),
                 t.base + uint64_t(std::countr_zero(unsigned(b))),
                 WriteValues::Unknown);
    }
    // A plain write makes the lanes of an entry in the granule's cells that
    // it is ordered after and covers redundant, as it would their own
    // cells: they go now (the entry may stay for its other lanes).
    d = entry_dropped(a, who, c, t.mask, k);
  }
  if (d && (&c == &t.g.cell[0] || &c == &t.g.cell[1])) {
    Cell &e = t.g.cell[&c == &t.g.cell[0] ? 0 : 1];
    if (!entry_trim(e, d))
      e.tid = kNoTid;
    return 0;
  }
  return d;
}

// Whether every lane of read entry `c` is known to happen before `a`.
[[gnu::noinline]] bool entry_known(const NewAccess &a, const Accessor &who,
                                   const Cell &c) {
  const int k = who.knows_warp(warp_key(c.tid), c.clock);
  if (k > 0)
    return true;
  if (k == 0)
    return entry_lanes(c) == 1u << (a.tid & 31) &&
           warp_key(c.tid) == warp_key(a.tid);
  for (uint32_t m = entry_lanes(c); m; m &= m - 1) {
    const Tid u = entry_tid(c, uint32_t(std::countr_zero(m)));
    if (u != a.tid && !who.knows(u, c.clock))
      return false;
  }
  return true;
}

// Keeps the lanes of read entry `old`, evicted by `a`, that `a` does not
// make redundant.
[[gnu::noinline]] void spill_entry(LaunchSt &L, Granule &g, const Cell &old,
                                   const NewAccess &a, const Accessor &who,
                                   uint8_t mask) {
  Cell k = old;
  if (entry_trim(k, entry_dropped(a, who, old, mask)))
    spill_cell(L, g, k);
}

// Checks `a` against the earlier access `c`: a conflict is another
// thread's access to one of these bytes, one of the two a write, not
// morally strong, not known to happen before.
[[gnu::always_inline]] inline void check_cell(LaunchSt &L, const Target &t,
                                              const NewAccess &a,
                                              const Accessor &who,
                                              const Cell &c) {
  const uint8_t mask = t.mask;
  if (!(c.mask & mask) || c.tid == a.tid || c.tid == kNoTid ||
      !((c.flags | a.flags) & kWrite))
    return;
  if (((c.flags & a.flags) & kStrong) && morally_strong(L, c, a))
    return;
  if (is_entry(c)) [[unlikely]] {
    check_entry(L, t, a, who, c);
    return;
  }
  if (who.knows(c.tid, c.clock))
    return;
  // An acquire that reads a release ordered after `c` is ordered after it
  // too (checked here before strong_access acquires): a plain store and
  // its thread's release store to one flag, then another's acquire.
  if (a.acquire &&
      acquires(L, t.g, t.base + uint64_t(std::countr_zero(unsigned(mask))),
               a.cta, scope_of(a.flags), c.tid, c.clock))
    return;
  found_race(L, t, side(c), c.clock, side(a),
             t.base + uint64_t(std::countr_zero(unsigned(c.mask & mask))),
             compare_values(c, a, mask));
}

// Checks `a` against the granule's spilled history (a read: the writes; a
// write: all), after the cells. A write ordered after spilled accesses
// makes them redundant: whatever is ordered after the write is ordered
// after them, and what is not conflicts with the write itself; they go.
// (A read, the common case in granules with spilled writes, has a function
// of its own: a small one.)
// Checks `a` against group `gr` ("Groups"): the newest member that it is
// not ordered after, if any. Returns whether it overlaps the group's bytes
// and is ordered after every member (program order or knowledge).
[[gnu::noinline]] bool check_group(LaunchSt &L, const Target &t,
                                   const NewAccess &a, const Accessor &who,
                                   const LaunchSt::Spill::Group &gr) {
  const uint8_t mask = t.mask;
  if (!(gr.w.mask & mask))
    return false;
  bool all = true;
  for (size_t i = gr.members.size(); i-- > 0;) {
    const auto [tid, clock] = gr.members[i];
    if (tid == a.tid || who.knows(tid, clock))
      continue;
    all = false;
    Cell c = gr.w;
    c.tid = tid;
    c.clock = clock;
    // (A group of strong reads: a member may be morally strong with `a`.)
    if ((c.flags & a.flags & kStrong) && morally_strong(L, c, a))
      continue;
    if (a.acquire &&
        acquires(L, t.g, t.base + uint64_t(std::countr_zero(unsigned(mask))),
                 a.cta, scope_of(a.flags), tid, clock))
      continue;
    found_race(L, t, side(c), clock, side(a),
               t.base + uint64_t(std::countr_zero(unsigned(c.mask & mask))),
               compare_values(c, a, mask));
    return false;
  }
  return all;
}

[[gnu::noinline]] void check_spilled_read(LaunchSt &L, const Target &t,
                                          const NewAccess &a,
                                          const Accessor &who,
                                          const LaunchSt::Spill &spill) {
  for (const Cell &c : spill.writes)
    check_cell(L, t, a, who, c);
  for (const auto &gr : spill.groups)
    if (!passes_group(a, gr))
      check_group(L, t, a, who, gr);
}
[[gnu::noinline]] void check_spilled(LaunchSt &L, const Target &t,
                                     const NewAccess &a, const Accessor &who,
                                     LaunchSt::Spill &spill) {
  const uint8_t mask = t.mask;
  spill.live_gen = 0; // records leave: the live one may be among them
  for (const Cell &c : spill.writes)
    check_cell(L, t, a, who, c);
  auto ordered = [&](const Cell &c) {
    return !(c.mask & ~mask) && stands_for(L, a, c) &&
           (c.tid == a.tid || who.knows(c.tid, c.clock));
  };
  if (a.flags & kStrong) {
    for (const Cell &c : spill.reads)
      check_cell(L, t, a, who, c);
    std::erase_if(spill.reads, ordered);
  } else {
    // A plain write: its check against each spilled read (another
    // thread's read of some of its bytes that it does not know of) and the
    // removal of those it is ordered after and covers, in one pass that
    // keeps the order of the others.
    auto &v = spill.reads;
    size_t keep = 0;
    for (size_t i = 0, n = v.size(); i < n; ++i) {
      Cell &c = v[i];
      bool drop;
      if (is_entry(c)) [[unlikely]] {
        if (!(c.mask & mask)) {
          drop = false;
        } else {
          const uint32_t d = check_entry(L, t, a, who, c);
          drop = d && !entry_trim(c, d);
        }
      } else if (c.tid == a.tid)
        drop = !(c.mask & ~mask);
      else if (!(c.mask & mask))
        drop = false;
      else if (who.knows(c.tid, c.clock))
        drop = !(c.mask & ~mask);
      else {
        check_cell(L, t, a, who, c); // reports it
        drop = false;
      }
      if (!drop) {
        if (keep != i)
          v[keep] = c;
        ++keep;
      }
    }
    v.erase(v.begin() + ptrdiff_t(keep), v.end());
  }
  std::erase_if(spill.writes, ordered);
  if (!spill.groups.empty()) [[unlikely]]
    std::erase_if(spill.groups, [&](const LaunchSt::Spill::Group &gr) {
      if (passes_group(a, gr))
        return false;
      // (A strong write stands for no group: not a plain one, and not a
      // strong one whose members may be of other CTAs.)
      return check_group(L, t, a, who, gr) && !(gr.w.mask & ~mask) &&
             !(a.flags & kStrong);
    });
  if (!spill.strong_reads.empty()) [[unlikely]] {
    // ("Groups of strong reads": a strong write of the group's size, both
    // at .gpu or .sys scope, is morally strong with every member.)
    std::erase_if(spill.strong_reads, [&](const LaunchSt::Spill::Group &gr) {
      if (!(gr.w.mask & mask) || passes_group(a, gr))
        return false;
      // (A strong write stands for a read of its own CTA only, and the
      // members may be of several: it leaves the group.)
      return check_group(L, t, a, who, gr) && !(gr.w.mask & ~mask) &&
             !(a.flags & kStrong);
    });
  }
  if (spill.writes.empty() && spill.groups.empty())
    t.g.cell[0].size &= uint16_t(~kSpilledWrite);
}

// Records `a` (bytes `mask`) in cell `slot` of `g`: cell 0 keeps its
// release-sequence and spilled-write bits, and kRecentBit of cell 1 says
// which cell is the newer one.
[[gnu::always_inline]] inline void put_cell(Granule &g, int slot,
                                            const NewAccess &a, uint8_t mask) {
  Cell &n = g.cell[slot];
  const uint8_t keep = slot == 0 ? (n.flags & kSyncBit) : kRecentBit;
  const uint16_t keep_spilled = slot == 0 ? (n.size & kSpilledWrite) : 0;
  n.tid = a.tid;
  n.clock = a.clock;
  n.pc = a.pc;
  n.mask = mask;
  n.flags = uint8_t(a.flags | keep);
  n.size = uint16_t(a.size | keep_spilled);
  n.value = a.value;
  if (slot == 0)
    g.cell[1].flags &= uint8_t(~kRecentBit);
}

// Checks and records `a` on bytes `mask` of granule `g` (byte 0 of the
// granule at `base`).
[[gnu::always_inline]] inline void
access_granule(LaunchSt &L, Granule &g, const uint8_t mask, const NewAccess &ar,
               const Accessor &who, StateSpace space, uint64_t owner,
               uint64_t base) {
  const NewAccess &a = ar;
  const bool write = a.flags & kWrite;
  LaunchSt::Spill *spill = nullptr;
  if (g.spill && (write || (g.cell[0].size & kSpilledWrite))) [[unlikely]]
    spill = &L.spill[g.spill - 1];
  // The cells (a read conflicts with writes only: none to look for when
  // neither cell is a write and nothing spilled), then the spilled history.
  const Target t{g, mask, space, owner, base};
  if (write || spill || ((g.cell[0].flags | g.cell[1].flags) & kWrite)) {
    check_cell(L, t, a, who, g.cell[0]);
    check_cell(L, t, a, who, g.cell[1]);
  }
  if (spill) [[unlikely]] {
    if (write)
      check_spilled(L, t, a, who, *spill);
    else
      check_spilled_read(L, t, a, who, *spill);
  }
  auto stands_for = [&](const Cell &c) { return detail::stands_for(L, a, c); };
  // Record it. The same thread in the same epoch with the same kind of
  // access (bytes of one memcpy, fields of a struct, a loop re-reading a
  // value): one cell for all its bytes.
  Cell &c0 = g.cell[0], &c1 = g.cell[1];
  // Whether the new access makes cell `c` redundant as history: it is
  // ordered after it (program order or happens-before), covers its bytes,
  // writes if it wrote, and stands for it. Then every later access either
  // is ordered after the new one (so after `c`) or, racing with `c`, races
  // with the new one too.
  auto droppable = [&](const Cell &c) {
    if (c.tid == kNoTid)
      return true;
    if (!(c.mask & ~mask) && (write || !(c.flags & kWrite)) && stands_for(c)) {
      if (is_entry(c)) [[unlikely]] // every lane
        return entry_dropped(a, who, c, mask) == entry_lanes(c);
      return c.tid == a.tid || who.knows(c.tid, c.clock);
    }
    return false;
  };
  // droppable() of each cell, computed once (the cells do not change until
  // the new access is stored). Inlined at each use: left to the compiler,
  // whether it is depends on the rest of the file (docs/performance.md
  // "Line records for fresh global memory").
  int8_t dropc[2] = {-1, -1};
  auto dropped = [&](int i) __attribute__((always_inline)) {
    if (dropc[i] < 0)
      dropc[i] = droppable(g.cell[i]) ? 1 : 0;
    return dropc[i] == 1;
  };
  int slot = -1;
  // Merging a write into the cell keeps the bytes each stored.
  auto merge = [&](Cell &c) {
    if ((c.size & kValued) && (a.size & kValued)) {
      const uint64_t bm = byte_mask(mask);
      c.value = (c.value & ~bm) | (a.value & bm);
    } else {
      c.size &= uint16_t(~kValued);
    }
    c.mask |= mask;
    c.pc = a.pc;
  };
  // Another instruction on disjoint bytes takes the free cell while there
  // is one, so that a report names the instruction that accessed the bytes
  // (s[t] and s[t + 1] swapped by two stores); the two merge when the cell
  // is needed (below).
  // (A dead record, which can never race again, leaves its cell as good
  // as free: docs/checker.md "Records that can never race again".)
  auto merges = [&](const Cell &c, const Cell &other) {
    return c.clock == a.clock && ((c.flags ^ a.flags) & 0x7f) == 0 &&
           ((c.size ^ a.size) & kSizeMax) == 0 &&
           (c.pc == a.pc || (c.mask & mask) ||
            !(other.empty() || (L.dead_now.floor && dead(L.dead_now, other))));
  };
  if (c0.tid == a.tid) {
    if (merges(c0, c1)) {
      merge(c0);
      return;
    }
    // Its own older access to no more bytes, no stronger, that the new one
    // stands for.
    if (!(c0.mask & ~mask) && (write || !(c0.flags & kWrite)) && stands_for(c0))
      slot = 0;
  }
  if (c1.tid == a.tid) {
    if (merges(c1, c0)) {
      merge(c1);
      return;
    }
    if (slot < 0 && !(c1.mask & ~mask) && (write || !(c1.flags & kWrite)) &&
        stands_for(c1))
      slot = 1;
  }
  if (slot < 0) {
    if (c0.tid == kNoTid)
      slot = 0;
    else if (c1.tid == kNoTid)
      slot = 1;
    else {
      if (write) {
        // A write replaces an access known to happen before it, or (atomics
        // are totally ordered per location) an older atomic; a strong write
        // first one it stands for (nothing to keep aside), then any.
        const int passes = (a.flags & kStrong) ? 2 : 1;
        for (int pass = 0; pass < passes && slot < 0; ++pass)
          for (int i = 0; i < 2 && slot < 0; ++i) {
            const Cell &c = g.cell[i];
            if (!(c.mask & ~mask) &&
                (((a.flags & kAtomic) && (c.flags & kAtomic)) ||
                 ((is_entry(c) ? entry_known(a, who, c)
                               : who.knows(c.tid, c.clock)) &&
                  (pass || stands_for(c)))))
              slot = i;
          }
      } else {
        // A read replaces a read, keeping a write (it still matters for
        // readers that are not ordered after it): one it may drop if any
        // (below), else the older one.
        const bool r0 = !(c0.flags & kWrite), r1 = !(c1.flags & kWrite);
        if (r0 && r1) {
          const bool d0 = dropped(0), d1 = dropped(1);
          slot = d0 != d1 ? (d0 ? 0 : 1) : (c1.flags & kRecentBit) ? 0 : 1;
        } else if (r0 || r1) {
          slot = r0 ? 0 : 1;
        }
      }
      if (slot < 0) {
        const bool d0 = dropped(0), d1 = dropped(1);
        slot = d0 != d1                  ? (d0 ? 0 : 1)
               : (c1.flags & kRecentBit) ? 0
                                         : 1; // the older one
      }
      // The evicted access is history a later access must still be checked
      // against, unless the new one makes it redundant (droppable) or, being
      // an atomic, subsumes an older atomic on its bytes.
      const Cell &old = g.cell[slot];
      Cell &sib = g.cell[1 - slot];
      if (!dropped(slot)) {
        const Dead &dd = L.dead_now;
        const bool gone = dd.floor && dead(dd, old); // can never race
        if (is_entry(old)) [[unlikely]] {
          // The lanes it does not make redundant.
          if (!gone)
            spill_entry(L, g, old, a, who, mask);
        } else if (!((a.flags & kAtomic) && (old.flags & kAtomic) &&
                     !(old.mask & ~mask))) {
          // Two cells of one thread's epoch and kind on disjoint bytes
          // (kept apart above) become one again, as if merged when made:
          // nothing goes aside. (An entry's tid is no thread's.)
          if (!merge_sibling(sib, old) && !gone)
            spill_cell(L, g, old);
        }
      }
    }
  }
  // Atomics on a location are totally ordered (coherence): a new atomic
  // subsumes the older atomics on its bytes.
  if (a.flags & kAtomic) {
    Cell &o = g.cell[1 - slot];
    if (o.tid != kNoTid && (o.flags & kAtomic) && !(o.mask & ~mask))
      o.tid = kNoTid;
  }
  put_cell(g, slot, a, mask);
}

// Plain reads of granule `g` by lanes of one warp that know the same
// (`who`: the lowest of them), as one read entry `a` (bytes `mask`, lanes in
// `a.value`). Returns false, changing nothing, when an access in the
// granule's cells or history may conflict with one of them: the lanes are
// then checked one by one (and so reported as before).
// What the lanes of a warp's read know of another warp's lanes at one
// clock (Accessor::knows_warp), remembered across the granules of the read
// (their cells mostly hold one other warp's entries of one clock).
struct KnowsMemo {
  // The last two warps and clocks asked (the two cells of a granule read
  // by every CTA hold two other warps' entries).
  uint32_t wk[2] = {~0u, ~0u}, clock[2] = {0, 0};
  int k[2] = {0, 0};
  [[gnu::always_inline]] int get(const Accessor &who, uint32_t w, uint32_t c) {
    if (w == wk[0] && c == clock[0])
      return k[0];
    if (w == wk[1] && c == clock[1])
      return k[1];
    return ask(who, w, c);
  }
  [[gnu::noinline]] int ask(const Accessor &who, uint32_t w, uint32_t c) {
    wk[1] = wk[0];
    clock[1] = clock[0];
    k[1] = k[0];
    wk[0] = w;
    clock[0] = c;
    return k[0] = who.knows_warp(w, c);
  }
};

// The common cases of a tile granule read by every warp between two
// barriers (shared memory whose dead records are known, no write kept
// aside), recognized by a few tests: one cell holds another warp's read
// entry of this phase that the lanes know nothing of, the other a write
// stored before the barrier (dead) or on other bytes; or both cells hold
// such writes (the first read after the tile's stores). What access_group
// decides then: no conflict, no merge; the other warp's entry is evicted
// (not redundant: none of its lanes is known) and kept aside, or the older
// write is evicted (kept aside unless dead). Returns false, changing
// nothing, in any other case.
[[gnu::always_inline]] inline bool
tile_read(LaunchSt &L, Granule &g, const uint8_t mask, const NewAccess &a,
          const Accessor &who, KnowsMemo &km) {
  const Dead &dd = L.dead_now;
  const Cell &c0 = g.cell[0], &c1 = g.cell[1];
  // (An emptied cell keeps its other fields: its thread says it is empty.)
  if (c0.tid == kNoTid || c1.tid == kNoTid)
    return false;
  // A write the lanes read after: on other bytes, or dead.
  auto known_write = [&](const Cell &w) {
    return (w.flags & kWrite) && (!(w.mask & mask) || dead(dd, w));
  };
  int slot;
  if (c0.flags & c1.flags & kWrite) {
    if (!known_write(c0) || !known_write(c1))
      return false;
    slot = (c1.flags & kRecentBit) ? 0 : 1; // the older one
    if (!dead(dd, g.cell[slot]))
      spill_cell(L, g, g.cell[slot]);
  } else {
    slot = is_entry(c0) ? 0 : is_entry(c1) ? 1 : -1;
    if (slot < 0)
      return false;
    const Cell &e = g.cell[slot];
    if (!known_write(g.cell[1 - slot]) || warp_key(e.tid) == warp_key(a.tid) ||
        dead(dd, e) || km.get(who, warp_key(e.tid), e.clock) != 0)
      return false;
    spill_read(L, g, e);
  }
  put_cell(g, slot, a, mask);
  return true;
}

[[gnu::always_inline]] inline bool
access_group(LaunchSt &L, Granule &g, const uint8_t mask, const NewAccess &a,
             const Accessor &who, KnowsMemo &km) {
  const uint32_t wk = warp_key(a.tid);
  const Dead &dd = L.dead_now;
  clear_dead(L, g, dd);
  Cell &c0 = g.cell[0], &c1 = g.cell[1];
  if (dd.floor && !(c0.size & kSpilledWrite) &&
      tile_read(L, g, mask, a, who, km))
    return true;
  // Without dead records (global memory: a word read by every CTA), both
  // cells other warps' read entries that the lanes know nothing of and no
  // write kept aside: what the tests below decide then is no conflict, no
  // merge, none of either entry's lanes redundant, the older entry evicted
  // and kept aside.
  if (!dd.floor && c0.tid != kNoTid && c1.tid != kNoTid && is_entry(c0) &&
      is_entry(c1) && !(c0.size & kSpilledWrite) && warp_key(c0.tid) != wk &&
      warp_key(c1.tid) != wk && km.get(who, warp_key(c0.tid), c0.clock) == 0 &&
      km.get(who, warp_key(c1.tid), c1.clock) == 0) {
    const int slot = (c1.flags & kRecentBit) ? 0 : 1; // the older one
    spill_read(L, g, g.cell[slot]);
    put_cell(g, slot, a, mask);
    return true;
  }
  // A read conflicts with writes only; the lanes know what the lowest one
  // knows, except for their own warp's accesses (lane by lane).
  auto clean = [&](const Cell &c) {
    if (c.tid == kNoTid || !(c.flags & kWrite) || !(c.mask & mask))
      return true;
    // Before a barrier of the whole CTA since: every lane knows it (one
    // comparison instead of a lookup of the knowledge).
    if (dd.floor && dead(dd, c))
      return true;
    // The lane that wrote it reads after it; the others as they know.
    if (!is_agent(c.tid) && warp_key(c.tid) == wk)
      return c.clock < who.ts->own_floor || knows(who.ts->vc, c.tid, c.clock);
    return who.knows(c.tid, c.clock);
  };
  if (((c0.flags | c1.flags) & kWrite) && (!clean(c0) || !clean(c1)))
    return false;
  if (g.spill && (c0.size & kSpilledWrite)) [[unlikely]] {
    const LaunchSt::Spill &sp = L.spill[g.spill - 1];
    for (const Cell &c : sp.writes)
      if (!clean(c))
        return false;
    for (const auto &gr : sp.groups)
      for (const auto &[tid, clock] : gr.members) {
        Cell c = gr.w;
        c.tid = tid;
        c.clock = clock;
        if (!clean(c))
          return false;
      }
  }
  const uint32_t lo = uint32_t(a.value), hi = uint32_t(a.value >> 32);
  // An entry of the same lanes' reads in the same epoch: merged when each
  // lane keeps what it read (the same instruction, or the same lanes,
  // whose latest instruction a cell names) and each half of the granule
  // is read alike.
  auto merges = [&](Cell &c) {
    if (c.tid == kNoTid || !is_entry(c) || (c.tid & ~31u) != (a.tid & ~31u) ||
        c.clock != a.clock || ((c.flags ^ a.flags) & 0x7f) ||
        ((c.size ^ a.size) & kSizeMax) ||
        (c.pc != a.pc && entry_lanes(c) != (lo | hi)))
      return false;
    if (uint32_t(c.value) && lo && ((c.mask ^ mask) & 0x0f))
      return false;
    if (uint32_t(c.value >> 32) && hi && ((c.mask ^ mask) & 0xf0))
      return false;
    c.value |= a.value;
    c.mask |= mask;
    c.pc = a.pc;
    return true;
  };
  if (merges(c0) || merges(c1))
    return true;
  // Whether a lane of the entry reads all of bytes `m`.
  auto covers_bytes = [&](uint8_t m) {
    return (lo && !(m & ~(mask & 0x0f))) || (hi && !(m & ~(mask & 0xf0))) ||
           ((lo & hi) && !(m & ~mask));
  };
  // Whether a lane of the entry ordered after access (u, clock) reads all
  // of bytes `m`.
  auto covers = [&](Tid u, uint32_t clock, uint8_t m) {
    uint32_t cov = 0;
    if (!(m & ~(mask & 0x0f)))
      cov |= lo;
    if (!(m & ~(mask & 0xf0)))
      cov |= hi;
    if (!(m & ~mask))
      cov |= lo & hi;
    if (!cov)
      return false;
    if (dd.floor && dead(dd, u, clock))
      return true;
    if (!is_agent(u) && warp_key(u) == wk)
      return (cov >> (u & 31) & 1) || clock < who.ts->own_floor ||
             knows(who.ts->vc, u, clock);
    return who.knows(u, clock);
  };
  // The lanes of entry `c` it makes redundant.
  auto entry_drop = [&](const Cell &c) {
    // Lanes whose bytes a lane of the new entry reads, then those of them
    // it is ordered after.
    // (Another warp's lanes that it knows none of, the common case: no
    // bytes to compare.)
    const bool other = warp_key(c.tid) != wk;
    const int k = dd.floor && dead(dd, c) ? 1 // every lane known
                  : other ? km.get(who, warp_key(c.tid), c.clock)
                          : -1;
    if (k == 0)
      return 0u;
    const uint32_t cov = entry_lanes_if(c, covers_bytes);
    if (!cov || k > 0)
      return cov;
    uint32_t d = 0;
    for (uint32_t m = cov; m; m &= m - 1) {
      const uint32_t l = uint32_t(std::countr_zero(m));
      if (covers(entry_tid(c, l), c.clock, lane_bytes(c, l)))
        d |= 1u << l;
    }
    return d;
  };
  // The lanes of read cell `c` the new entry makes redundant (a lane
  // cell: bit 0), and whether that is all of it.
  auto drop_of = [&](const Cell &c) -> uint32_t {
    return is_entry(c) ? entry_drop(c)
                       : uint32_t(covers(c.tid, c.clock, c.mask));
  };
  auto all_of = [&](const Cell &c, uint32_t d) {
    return is_entry(c) ? d == entry_lanes(c) : d != 0;
  };
  int slot;
  if (c0.tid == kNoTid) {
    slot = 0;
  } else if (c1.tid == kNoTid) {
    slot = 1;
  } else {
    // A read replaces a read, keeping a write: one it may drop if any,
    // else the older one.
    const bool r0 = !(c0.flags & kWrite), r1 = !(c1.flags & kWrite);
    const bool older0 = c1.flags & kRecentBit;
    bool d = false;
    uint32_t dl = 0; // the evicted read's lanes made redundant
    if (r0 && r1) {
      const uint32_t l0 = drop_of(c0), l1 = drop_of(c1);
      const bool d0 = all_of(c0, l0), d1 = all_of(c1, l1);
      slot = d0 != d1 ? (d0 ? 0 : 1) : older0 ? 0 : 1;
      d = slot == 0 ? d0 : d1;
      dl = slot == 0 ? l0 : l1;
    } else if (r0 || r1) {
      slot = r0 ? 0 : 1;
      dl = drop_of(g.cell[slot]);
      d = all_of(g.cell[slot], dl);
    } else {
      slot = older0 ? 0 : 1;
    }
    const Cell &old = g.cell[slot];
    if (!d && !(dd.floor && dead(dd, old))) {
      if (old.flags & kWrite) {
        spill_cell(L, g, old);
      } else if (is_entry(old) && dl) {
        Cell k = old;
        if (entry_trim(k, dl))
          spill_read(L, g, k);
      } else {
        spill_read(L, g, old); // (a lane cell: dl is 0 here)
      }
    }
  }
  put_cell(g, slot, a, mask);
  return true;
}

// Whether the lanes' first and last address are close enough for some
// granule to hold three of the lanes or more (a tile row read by every
// row of a warp, a broadcast), not a coalesced access (at most two lanes
// in a granule, checked one by one).
inline bool few_granules(const AccessEvent &e, uint32_t lanes) {
  const uint64_t a = e.addr[std::countr_zero(lanes)],
                 b = e.addr[31 - std::countl_zero(lanes)];
  const uint64_t span = ((a > b ? a - b : b - a) >> 3) + 1;
  // (The lanes counted inline: std::popcount is a libgcc call on the
  // baseline x86-64 this is built for.)
  uint32_t n = lanes - ((lanes >> 1) & 0x55555555u);
  n = (n & 0x33333333u) + ((n >> 2) & 0x33333333u);
  n = (((n + (n >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
  return span * 2 < n;
}

// Whether the lanes of `e` reach global memory far apart (the first and the
// last lane more than 1 KiB from each other: a graph's neighbour words, one
// vertex per lane), where each lane's shadow is likely a cache miss of its
// own (scattered_lanes below).
inline bool scattered(const AccessEvent &e, uint32_t lanes) {
  const uint64_t a = e.addr[std::countr_zero(lanes)],
                 b = e.addr[31 - std::countl_zero(lanes)];
  return (a > b ? a - b : b - a) > 1024;
}

// Fetches ahead the shadow the lanes of `e` (in global memory, each within
// one granule) are about to reach: each lane's granule, then its kept
// history and release-sequence state, then the history's latest reads
// (where a read goes aside) and, for a write, its kept reads and writes
// (which it goes through). The lanes are then checked one by one as
// before, finding their shadow in the cache: the lanes' misses overlap
// instead of following one another. It changes nothing but the cache:
// every page it asks for is one a lane's check asks for in this event.
[[gnu::noinline]] void scattered_lanes(LaunchSt &L, const AccessEvent &e,
                                       uint32_t lanes, bool write) {
  Granule *gran[32];
  for (uint32_t m = lanes; m; m &= m - 1) {
    const uint32_t l = uint32_t(std::countr_zero(m));
    Granule *g = L.global.granule(e.addr[l] & ~7ull);
    __builtin_prefetch(g, 1);
    gran[l] = g;
  }
  for (uint32_t m = lanes; m; m &= m - 1) {
    const Granule &g = *gran[std::countr_zero(m)];
    if (g.spill)
      __builtin_prefetch(&L.spill[g.spill - 1]);
    if (g.sync)
      __builtin_prefetch(&L.sync_at(g.sync));
  }
  for (uint32_t m = lanes; m; m &= m - 1) {
    const Granule &g = *gran[std::countr_zero(m)];
    if (!g.spill)
      continue;
    const LaunchSt::Spill &s = L.spill[g.spill - 1];
    const Cell *r = s.reads.data(), *re = r + s.reads.size();
    if (!write) {
      if (r != re)
        __builtin_prefetch(re - 1, 1);
      __builtin_prefetch(re, 1);
      if (!s.writes.empty())
        __builtin_prefetch(s.writes.data());
      continue;
    }
    // (At most eight lines of each: the hardware's own prefetch follows
    // a longer pass.)
    const char *p = reinterpret_cast<const char *>(r),
               *pe = reinterpret_cast<const char *>(re);
    for (int k = 0; k < 8 && p < pe; ++k, p += 64)
      __builtin_prefetch(p, 1);
    p = reinterpret_cast<const char *>(s.writes.data());
    pe = reinterpret_cast<const char *>(s.writes.data() + s.writes.size());
    for (int k = 0; k < 8 && p < pe; ++k, p += 64)
      __builtin_prefetch(p, 1);
  }
}

// The shadow granule of granule base `gb`: in the CTA's shared-memory
// shadow when `shadow` is given (nullptr past its end: not checked), else in
// the launch's global shadow.
inline Granule *granule_at(LaunchSt &L, Granule *shadow, uint64_t shadow_n,
                           uint64_t gb) {
  if (!shadow)
    return L.global.granule(gb);
  return (gb >> 3) < shadow_n ? shadow + (gb >> 3) : nullptr;
}

// How the lanes of a warp's read fall into granules (read_groups), by
// their addresses relative to the first lane's: the lanes' offsets from
// it, the first lane's byte in its granule, and the granules read by three
// lanes or more alike (read entries), each by its offset from the first
// lane's granule. A warp reads with the same pattern again and again (a
// tile row at each step of a loop), so a few patterns are remembered and
// reused when every lane's offset matches (the same groups as computed
// anew: nothing else changes).
struct ReadLayout {
  uint64_t serial;           // renewed when regrouped (ReadLog::seen)
  uint32_t lanes, size, off; // lanes 0: unused
  uint32_t rest;             // lanes checked one by one
  uint32_t n;                // entries in `g`
  uint64_t delta[32];        // addr[l] - addr[first lane]; 0 for others
  struct G {
    uint64_t dgb; // granule base - the first lane's granule base
    uint32_t lo, hi;
    uint8_t mask;
  } g[32];
};
constexpr uint32_t kLayouts = 4;
thread_local ReadLayout layouts[kLayouts];
thread_local uint32_t layout_next;
std::atomic<uint64_t> layout_serial{1};

// Groups the lanes of `e` by granule into `r` (r.lanes, r.size, r.off and
// r.delta are set by the caller).
[[gnu::noinline]] void group_lanes(const AccessEvent &e, ReadLayout &r) {
  struct Group {
    uint64_t gb;
    uint32_t lo, hi;
    uint8_t mlo, mhi;
    bool exact;
  };
  const uint32_t lanes = r.lanes;
  Group gr[32];
  uint32_t n = 0, rest = 0;
  // Groups by granule, indexed from 32 granules below the first lane's.
  uint8_t at[64];
  std::memset(at, 0xff, sizeof at);
  const uint64_t first = e.addr[std::countr_zero(lanes)] & ~7ull;
  const uint64_t base = first - 256;
  const uint32_t ones = (1u << e.size) - 1;
  if (e.size >= 4) {
    // Words and double words: each half of a granule is read whole.
    for (uint32_t m = lanes; m; m &= m - 1) {
      const uint32_t l = uint32_t(std::countr_zero(m));
      const uint64_t addr = e.addr[l], d = (addr - base) >> 3;
      const uint32_t off = uint32_t(addr & 7);
      if (d >= 64 || off + e.size > 8) {
        rest |= 1u << l;
        continue;
      }
      uint32_t i = at[d];
      if (i == 0xff) {
        i = at[d] = uint8_t(n++);
        gr[i] = {addr & ~7ull, 0, 0, 0x0f, 0xf0, true};
      }
      if (e.size == 8) {
        gr[i].lo |= 1u << l;
        gr[i].hi |= 1u << l;
      } else if (off) {
        gr[i].hi |= 1u << l;
      } else {
        gr[i].lo |= 1u << l;
      }
    }
  } else
    for (uint32_t m = lanes; m; m &= m - 1) {
      const uint32_t l = uint32_t(std::countr_zero(m));
      const uint64_t addr = e.addr[l], d = (addr - base) >> 3;
      const uint32_t off = uint32_t(addr & 7);
      if (d >= 64 || off + e.size > 8) {
        rest |= 1u << l;
        continue;
      }
      uint32_t i = at[d];
      if (i == 0xff) {
        i = at[d] = uint8_t(n++);
        gr[i] = {addr & ~7ull, 0, 0, 0, 0, true};
      }
      Group &g = gr[i];
      const uint8_t bm = uint8_t(ones << off);
      if (bm & 0x0f) {
        g.exact &= !g.lo || g.mlo == (bm & 0x0f);
        g.lo |= 1u << l;
        g.mlo = bm & 0x0f;
      }
      if (bm & 0xf0) {
        g.exact &= !g.hi || g.mhi == (bm & 0xf0);
        g.hi |= 1u << l;
        g.mhi = bm & 0xf0;
      }
    }
  r.n = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const Group &gp = gr[i];
    const uint32_t gl = gp.lo | gp.hi;
    if (!gp.exact || !three_or_more(gl)) {
      rest |= gl;
      continue;
    }
    r.g[r.n++] = {gp.gb - first, gp.lo, gp.hi,
                  uint8_t((gp.lo ? gp.mlo : 0) | (gp.hi ? gp.mhi : 0))};
  }
  r.rest = rest;
}

// Whether every lane of a whole warp's `addr` is `a0` plus its `delta`
// (read_layout's test of a remembered layout): four lanes per step where
// the host has AVX2, which the baseline x86-64 build does not use.
using SameDeltas = bool (*)(const uint64_t *, uint64_t, const uint64_t *);
bool same_deltas(const uint64_t *addr, uint64_t a0, const uint64_t *delta) {
  uint64_t diff = 0;
  for (uint32_t l = 0; l < 32; ++l)
    diff |= (addr[l] - a0) ^ delta[l];
  return !diff;
}
__attribute__((target("avx2"))) bool
same_deltas_avx2(const uint64_t *addr, uint64_t a0, const uint64_t *delta) {
  using V = uint64_t __attribute__((vector_size(32)));
  const V base = {a0, a0, a0, a0};
  V diff = {0, 0, 0, 0};
  for (uint32_t l = 0; l < 32; l += 4) {
    V x, d;
    std::memcpy(&x, addr + l, sizeof x);
    std::memcpy(&d, delta + l, sizeof d);
    diff |= (x - base) ^ d;
  }
  return !(diff[0] | diff[1] | diff[2] | diff[3]);
}
// (Set before main: the CPU model is read first.)
const SameDeltas same_deltas_host = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") ? &same_deltas_avx2 : &same_deltas;
}();

// The layout of the lanes of `e` (remembered, or grouped now).
inline const ReadLayout &read_layout(const AccessEvent &e, uint32_t lanes) {
  const uint32_t f = uint32_t(std::countr_zero(lanes));
  const uint64_t a0 = e.addr[f];
  const uint32_t off = uint32_t(a0 & 7);
  const uint32_t last = 31 - uint32_t(std::countl_zero(lanes));
  const uint64_t dlast = e.addr[last] - a0;
  for (ReadLayout &r : layouts) {
    if (r.lanes != lanes || r.size != e.size || r.off != off ||
        r.delta[last] != dlast)
      continue;
    uint64_t diff = 0;
    if (lanes == ~0u) {
      if (same_deltas_host(e.addr, a0, r.delta))
        return r;
      continue;
    } else {
      for (uint32_t m = lanes; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        diff |= (e.addr[l] - a0) ^ r.delta[l];
      }
    }
    if (!diff)
      return r;
  }
  ReadLayout &r = layouts[layout_next++ % kLayouts];
  r.serial = layout_serial.fetch_add(1, std::memory_order_relaxed);
  r.lanes = lanes;
  r.size = e.size;
  r.off = off;
  for (uint32_t l = 0; l < 32; ++l)
    r.delta[l] = lanes >> l & 1 ? e.addr[l] - a0 : 0;
  group_lanes(e, r);
  return r;
}

// Plain reads by lanes `lanes` of a warp that all know the same: the
// lanes reading one granule become one read entry there. Returns the
// lanes left to check one by one.
[[gnu::noinline]] uint32_t read_groups(LaunchSt &L, const AccessEvent &e,
                                       uint32_t lanes, NewAccess &a, Tid tid0,
                                       const ThreadSt *ts0, uint32_t clock,
                                       Granule *shadow, uint64_t shadow_n,
                                       const CtaSt &cta) {
  const ReadLayout &r = read_layout(e, lanes);
  const uint64_t first = e.addr[std::countr_zero(lanes)] & ~7ull;
  uint32_t rest = r.rest;
  KnowsMemo km; // the lanes know the same: one answer for all groups
  a.clock = clock;
  a.size = uint16_t((a.size & kSizeMax) | kWarpRead);
  Accessor who;
  who.clock = clock;
  who.set_cta(cta, warp_key(tid0) - e.warp);
  for (uint32_t i = 0, n = r.n; i < n; ++i) {
    const ReadLayout::G &gp = r.g[i];
    Granule *g = granule_at(L, shadow, shadow_n, first + gp.dgb);
    if (!g)
      continue; // outside the shadow: not checked, as lane by lane
    const uint32_t gl = gp.lo | gp.hi;
    const uint32_t f = uint32_t(std::countr_zero(gl));
    who.tid = tid0 + f;
    who.ts = ts0 + f;
    a.tid = kEntryKind | who.tid;
    a.value = uint64_t(gp.lo) | uint64_t(gp.hi) << 32;
    if (!access_group(L, *g, gp.mask, a, who, km))
      rest |= gl;
  }
  a.size &= kSizeMax;
  a.value = 0;
  return rest;
}

// Whether lanes 2j and 2j+1 of `lanes` read the two words of one granule
// each, every pair in a granule above the previous pair's (a coalesced load
// of 4-byte words in global memory, perhaps in runs: the rows of a tile,
// A[row * n + t + tx]); no lane without its pair.
inline bool word_pairs(const AccessEvent &e, uint32_t lanes) {
  uint64_t bad = 0;
  if (lanes == ~0u) { // a whole warp: one pass without branches
    for (uint32_t j = 0; j < 32; j += 2) {
      const uint64_t x = e.addr[j];
      bad |= (x & 7) | (e.addr[j + 1] - x - 4);
      if (j)
        bad |= uint64_t(x < e.addr[j - 2] + 8);
    }
    return !bad;
  }
  if ((lanes & 0x55555555u) != ((lanes >> 1) & 0x55555555u))
    return false;
  uint64_t prev = 0;
  for (uint32_t m = lanes & 0x55555555u, first = 1; m; m &= m - 1, first = 0) {
    const uint32_t j = uint32_t(std::countr_zero(m));
    const uint64_t x = e.addr[j];
    bad |= (x & 7) | (e.addr[j + 1] - x - 4);
    if (!first)
      bad |= uint64_t(x < prev + 8);
    prev = x;
  }
  return !bad;
}

// Plain word reads by lanes `lanes` of a warp that all know the same, in
// pairs (word_pairs): each pair becomes one read entry of its granule, as
// read_groups makes entries of three lanes or more. Returns the lanes left
// to check one by one.
[[gnu::noinline]] uint32_t read_pairs(LaunchSt &L, const AccessEvent &e,
                                      uint32_t lanes, NewAccess &a, Tid tid0,
                                      const ThreadSt *ts0, uint32_t clock,
                                      const CtaSt &cta) {
  uint32_t rest = 0;
  KnowsMemo km; // the lanes know the same: one answer for all pairs
  a.clock = clock;
  a.size = uint16_t((a.size & kSizeMax) | kWarpRead);
  Accessor who;
  who.clock = clock;
  who.set_cta(cta, warp_key(tid0) - e.warp);
  for (uint32_t m = lanes & 0x55555555u; m; m &= m - 1) {
    const uint32_t l = uint32_t(std::countr_zero(m));
    Granule *g = L.global.granule(e.addr[l]);
    who.tid = tid0 + l;
    who.ts = ts0 + l;
    a.tid = kEntryKind | who.tid;
    a.value = uint64_t(1u << l) | uint64_t(2u << l) << 32;
    if (!access_group(L, *g, 0xff, a, who, km))
      rest |= 3u << l;
  }
  a.size &= kSizeMax;
  a.value = 0;
  return rest;
}

// Whether a whole warp's word loads are its neighbours' words (`v = a[t +
// 1]`): lanes 2j + 1 and 2j + 2 reading the two words of one granule each,
// every pair in a granule above the previous pair's, lane 0 the high word
// of a granule below the first pair's; lane 31 reads anything.
inline bool shifted_pairs(const AccessEvent &e) {
  uint64_t bad = (e.addr[0] & 7) ^ 4;
  for (uint32_t j = 1; j < 31; j += 2) {
    const uint64_t x = e.addr[j];
    bad |= (x & 7) | (e.addr[j + 1] - x - 4) | uint64_t(x < e.addr[j - 1] + 4);
  }
  return !bad;
}

// Plain word reads by a whole warp that knows the same, in shifted pairs
// (shifted_pairs): each pair becomes one read entry of its granule, as in
// read_pairs. Returns the lanes left to check one by one (0 and 31, and the
// pairs access_group leaves).
[[gnu::noinline]] uint32_t
read_shifted_pairs(LaunchSt &L, const AccessEvent &e, NewAccess &a, Tid tid0,
                   const ThreadSt *ts0, uint32_t clock, const CtaSt &cta) {
  uint32_t rest = 0x80000001u;
  KnowsMemo km; // the lanes know the same: one answer for all pairs
  a.clock = clock;
  a.size = uint16_t((a.size & kSizeMax) | kWarpRead);
  Accessor who;
  who.clock = clock;
  who.set_cta(cta, warp_key(tid0) - e.warp);
  for (uint32_t l = 1; l < 31; l += 2) {
    Granule *g = L.global.granule(e.addr[l]);
    who.tid = tid0 + l;
    who.ts = ts0 + l;
    a.tid = kEntryKind | who.tid;
    a.value = uint64_t(1u << l) | uint64_t(2u << l) << 32;
    if (!access_group(L, *g, 0xff, a, who, km))
      rest |= 3u << l;
  }
  a.size &= kSizeMax;
  a.value = 0;
  return rest;
}

// The bytes `n` (1 to 8) at `src` as the low bytes of a 64-bit value:
// loads of their own size (a memcpy of variable length would make the
// 64-bit load after it wait for its byte stores).
inline uint64_t load_bytes(const uint8_t *src, uint64_t n) {
  switch (n) {
  case 1:
    return *src;
  case 2: {
    uint16_t x;
    std::memcpy(&x, src, 2);
    return x;
  }
  case 4: {
    uint32_t x;
    std::memcpy(&x, src, 4);
    return x;
  }
  case 8: {
    uint64_t x;
    std::memcpy(&x, src, 8);
    return x;
  }
  default: {
    uint64_t v = 0;
    for (uint64_t i = 0; i < n; ++i)
      v |= uint64_t(src[i]) << (8 * i);
    return v;
  }
  }
}

// Accesses by lanes `lanes` (in lane order, each within one granule; plain
// or strong, not by the async proxy)
// to granules with a free second cell and no history or release sequences,
// whose first cell is free or another thread's access to other bytes (a
// fresh granule; the second lane of a coalesced access in one): nothing to
// check, and the access takes the first free cell, as access_granule
// decides after its tests. Records the first lanes for which this holds
// and returns the others, from the first that does not on (checked one by
// one, in order).
template <bool Strong>
[[gnu::noinline]] uint32_t
fresh_lanes(LaunchSt &L, const AccessEvent &e, uint32_t lanes, NewAccess &a,
            Tid tid0, const uint32_t *clock0, uint32_t &strong_lanes,
            Granule **gran, const uint8_t *values, Granule *shadow,
            uint64_t shadow_n) {
  for (; lanes; lanes &= lanes - 1) {
    const uint32_t lane = uint32_t(std::countr_zero(lanes));
    const uint64_t addr = e.addr[lane], gb = addr & ~7ull;
    if (addr + e.size > gb + 8)
      break;
    Granule *g = granule_at(L, shadow, shadow_n, gb);
    if (!g)
      break;
    const Tid tid = tid0 + lane;
    const uint8_t mask = uint8_t(((1u << e.size) - 1) << (addr - gb));
    const Cell &c0 = g->cell[0];
    auto fresh = [&] {
      return !(g->spill || g->sync || g->cell[1].tid != kNoTid ||
               (c0.tid != kNoTid && (c0.tid == tid || (c0.mask & mask))));
    };
    if (!fresh()) {
      // A history of records that can never race again does not count (a
      // tile rewritten after a barrier).
      if (!L.dead_now.floor || !g->spill ||
          !drop_dead_spill(L, *g, L.dead_now) || !fresh())
        break;
    }
    a.tid = tid;
    a.clock = clock0[lane];
    if (values) {
      a.value = load_bytes(values + size_t(lane) * e.size, e.size)
                << (8 * (addr - gb));
      a.size |= kValued;
    } else {
      a.size &= kSizeMax;
    }
    put_cell(*g, c0.tid == kNoTid ? 0 : 1, a, mask);
    if constexpr (Strong) { // its release/acquire patterns (strong_access)
      strong_lanes |= 1u << lane;
      gran[lane] = g;
    }
  }
  return lanes;
}

// A dead record that is not a read entry, or nothing.
[[gnu::always_inline]] inline bool dead_cell(const Dead &d, const Cell &c) {
  return c.tid == kNoTid || (!is_entry(c) && dead(d, c));
}

// Plain word loads by lanes `lanes` of a warp in pairs (word_pairs) from
// the CTA's own shared memory where its dead records apply (L.dead_now;
// the lanes' clocks above their warp's floor): a pair's granule whose
// cells are empty or dead lane cells (no read entry), without release
// sequences and without a history once its dead records are dropped (a
// reduction's `s[t]` read in the round after the one that wrote it).
// Nothing there can conflict with a read, and what access_granule decides,
// lane 2j then 2j + 1, follows from the cells: lane 2j's read takes its
// own thread's older read of no more bytes, else an empty cell, else of
// two reads one it covers (a dead record it would drop) or the older one,
// else the read of the two, else the older one (a dead record evicted is
// not kept aside; the other cell of the same thread, clock and kind takes
// its bytes, as if merged when made). Lane 2j + 1's read then takes the
// other cell when it is empty or a read (its own older one, one it covers
// or the older one), else it evicts lane 2j's live read into the
// granule's history. Returns the lanes of the other granules, checked one
// by one.
[[gnu::noinline]] uint32_t load_pairs(LaunchSt &L, const AccessEvent &e,
                                      uint32_t lanes, const NewAccess &ar,
                                      Tid tid0, const uint32_t *clock0,
                                      Granule *shadow, uint64_t shadow_n) {
  const Dead &dd = L.dead_now;
  uint32_t rest = 0;
  NewAccess a = ar; // (a copy of its own: kept in registers)
  a.size &= kSizeMax;
  a.value = 0;
  for (uint32_t m = lanes & 0x55555555u; m; m &= m - 1) {
    const uint32_t l = uint32_t(std::countr_zero(m));
    const uint64_t gi = e.addr[l] >> 3;
    Granule *g = gi < shadow_n ? shadow + gi : nullptr;
    const Tid tp = tid0 + l;
    if (!g || g->sync || (g->cell[0].flags & kSyncBit) ||
        dead(dd, tp, clock0[l]) || dead(dd, tp + 1, clock0[l + 1])) {
      rest |= 3u << l;
      continue;
    }
    clear_dead(L, *g, dd);
    Cell &x = g->cell[0], &y = g->cell[1];
    if (g->spill || !dead_cell(dd, x) || !dead_cell(dd, y)) {
      rest |= 3u << l;
      continue;
    }
    auto read = [](const Cell &c) { return !(c.flags & kWrite); };
    int s;
    if (x.tid == tp && !(x.mask & 0xf0) && read(x))
      s = 0;
    else if (y.tid == tp && !(y.mask & 0xf0) && read(y))
      s = 1;
    else if (x.tid == kNoTid)
      s = 0;
    else if (y.tid == kNoTid)
      s = 1;
    else {
      const int older = (y.flags & kRecentBit) ? 0 : 1;
      const bool r0 = read(x), r1 = read(y);
      // (A dead read of no more bytes: one the read would drop.)
      const bool d0 = r0 && !(x.mask & 0xf0), d1 = r1 && !(y.mask & 0xf0);
      s = r0 && r1   ? (d0 != d1 ? (d0 ? 0 : 1) : older)
          : r0 || r1 ? (r0 ? 0 : 1)
                     : older;
      if (!(s == 0 ? d0 : d1))
        merge_sibling(g->cell[1 - s], g->cell[s]);
    }
    a.tid = tp;
    a.clock = clock0[l];
    put_cell(*g, s, a, 0x0f);
    const Cell &z = g->cell[1 - s];
    int s2 = 1 - s;
    if (z.tid != kNoTid && !read(z)) {
      spill_read(L, *g, g->cell[s]);
      s2 = s;
    }
    a.tid = tp + 1;
    a.clock = clock0[l + 1];
    put_cell(*g, s2, a, 0xf0);
  }
  return rest;
}

// The stores of lanes 2j and 2j + 1 (threads `tp`, tp + 1, clocks and
// stored words at `clock` and `value`) onto granule `g` (with a history)
// as a pair's loads left it (load_pairs): one cell lane 2j + 1's read of
// the high word, the newer, the other empty or a dead lane cell, and lane
// 2j's read of the low word alone in the history. Nothing there can
// conflict with the stores: lane 2j's write drops its own read from the
// history (which, left empty, goes; so does a history of that read once
// it is dead) and takes the other cell (its own older access, an empty
// cell, one it is ordered after and covers, or the older one: dead, not
// kept aside), lane 2j + 1's write its own read's cell. Returns false,
// changing nothing, for any other granule.
[[gnu::always_inline]] inline bool over_own_reads(LaunchSt &L, Granule &g,
                                                  NewAccess &a, Tid tp,
                                                  const uint32_t *clock,
                                                  const uint8_t *value) {
  const Dead &dd = L.dead_now;
  if (dead(dd, tp, clock[0]) || dead(dd, tp + 1, clock[1]))
    return false;
  LaunchSt::Spill &sp = L.spill[g.spill - 1];
  if (sp.reads.size() != 1 || !sp.writes.empty() || !sp.groups.empty() ||
      !sp.strong_reads.empty() || sp.reads[0].tid != tp ||
      (sp.reads[0].mask & 0xf0))
    return false;
  const int p = (g.cell[1].flags & kRecentBit) ? 1 : 0; // the newer
  const Cell &r = g.cell[p], &z = g.cell[1 - p];
  if (r.tid != tp + 1 || (r.flags & kWrite) || (r.mask & 0x0f) ||
      !dead_cell(dd, z) || (z.tid == r.tid && z.clock == r.clock))
    return false;
  // (Left empty, the history goes at lane 2j + 1's write, as a history of
  // dead records only.)
  sp.live_gen = 0;
  sp.reads.clear();
  L.spill_free.push_back(g.spill);
  g.spill = 0;
  g.cell[0].size &= uint16_t(~kSpilledWrite);
  a.tid = tp;
  a.clock = clock[0];
  a.value = load_bytes(value, 4);
  put_cell(g, 1 - p, a, 0x0f);
  a.tid = tp + 1;
  a.clock = clock[1];
  a.value = load_bytes(value + 4, 4) << 32;
  put_cell(g, p, a, 0xf0);
  return true;
}

// Plain word stores by lanes `lanes` of a warp in pairs (word_pairs) to
// the CTA's own shared memory where its dead records apply (L.dead_now,
// `values` the bytes stored): a pair's granule whose cells hold dead
// records or nothing, without release sequences, and without a history once
// its dead records are dropped (a tile rewritten after the barrier that
// ended its reads). Nothing there can conflict (a dead record is known to
// every thread of the CTA), and what access_granule decides lane by lane,
// lane 2j then 2j + 1, follows from the cells at once: lane 2j's write
// takes the read entries' lanes it covers out of them (check_entry), then a
// cell: its own thread's older access it covers, an empty cell, one it
// covers, else the older one (evicted: dead, not kept aside); lane 2j + 1's
// write takes the other cell whatever it holds (lane 2j's new write is
// never one it may take). Both cells are rewritten, so only the choice is
// computed. Returns the lanes of the other granules, checked one by one.
[[gnu::noinline]] uint32_t store_pairs(LaunchSt &L, const AccessEvent &e,
                                       uint32_t lanes, const NewAccess &ar,
                                       Tid tid0, const uint32_t *clock0,
                                       const uint8_t *values, Granule *shadow,
                                       uint64_t shadow_n) {
  const Dead &dd = L.dead_now;
  uint32_t rest = 0;
  NewAccess a = ar; // (a copy of its own: kept in registers)
  a.size = uint16_t((a.size & kSizeMax) | kValued);
  for (uint32_t m = lanes & 0x55555555u; m; m &= m - 1) {
    const uint32_t l = uint32_t(std::countr_zero(m));
    const uint64_t gi = e.addr[l] >> 3;
    Granule *g = gi < shadow_n ? shadow + gi : nullptr;
    if (!g || g->sync || (g->cell[0].flags & kSyncBit)) {
      rest |= 3u << l;
      continue;
    }
    // (Before the test of its history, which its live read fails.)
    if (g->spill &&
        over_own_reads(L, *g, a, tid0 + l, clock0 + l, values + size_t(l) * 4))
      continue;
    clear_dead(L, *g, dd);
    const Cell &x = g->cell[0], &y = g->cell[1];
    if (g->spill || (x.tid != kNoTid && !dead(dd, x)) ||
        (y.tid != kNoTid && !dead(dd, y))) {
      rest |= 3u << l;
      continue;
    }
    // Each cell as lane 2j's write leaves it before it takes one: an entry
    // without the lanes whose bytes it covers (empty when none is left).
    auto after = [](const Cell &c, Tid &tid, uint8_t &mask) {
      tid = c.tid;
      mask = c.mask;
      if (tid == kNoTid || !is_entry(c) || !(c.mask & 0x0f))
        return;
      const uint32_t d =
          entry_lanes_if(c, [](uint8_t b) { return !(b & 0xf0); });
      if (!d)
        return;
      Cell k = c;
      if (entry_trim(k, d))
        mask = k.mask;
      else
        tid = kNoTid;
    };
    Tid xt, yt;
    uint8_t xm, ym;
    after(x, xt, xm);
    after(y, yt, ym);
    const Tid tp = tid0 + l;
    int s;
    if (xt == tp && !(xm & 0xf0))
      s = 0;
    else if (yt == tp && !(ym & 0xf0))
      s = 1;
    else if (xt == kNoTid)
      s = 0;
    else if (yt == kNoTid)
      s = 1;
    else if (!(xm & 0xf0))
      s = 0;
    else if (!(ym & 0xf0))
      s = 1;
    else
      s = (y.flags & kRecentBit) ? 0 : 1; // the older one
    a.tid = tp;
    a.clock = clock0[l];
    a.value = load_bytes(values + size_t(l) * 4, 4);
    put_cell(*g, s, a, 0x0f);
    a.tid = tp + 1;
    a.clock = clock0[l + 1];
    a.value = load_bytes(values + size_t(l + 1) * 4, 4) << 32;
    put_cell(*g, 1 - s, a, 0xf0);
  }
  return rest;
}

} // namespace

uint32_t readlog_layout(ReadLog &rl, const AccessEvent &e, uint32_t lanes) {
  const ReadLayout &r = read_layout(e, lanes);
  if (r.rest)
    return ~0u;
  auto &seen = rl.seen[size_t(&r - layouts) % rl.seen.size()];
  if (seen.first == r.serial)
    return seen.second;
  if (rl.layouts.size() >= 64)
    return ~0u; // (a kernel of many read patterns: not logged)
  ReadLog::Layout &k = rl.layouts.emplace_back();
  for (uint32_t i = 0; i < r.n; ++i)
    k.g.push_back({r.g[i].dgb, r.g[i].lo, r.g[i].hi, r.g[i].mask});
  seen = {r.serial, uint32_t(rl.layouts.size() - 1)};
  return seen.second;
}

void readlog_replay(LaunchSt &L, CtaSt &c, ReadLogEntry &x) {
  ThreadSt ts;
  ts.vc = std::move(x.vc); // (the log is cleared after its replay)
  ts.own_floor = x.own_floor;
  NewAccess a;
  a.pc = x.pc;
  a.flags = x.flags;
  a.size = uint16_t(x.size | kWarpRead);
  a.cta = c.linear;
  a.acquire = false;
  a.clock = x.clock;
  Granule *const shadow = c.shadow.data();
  const uint64_t shadow_n = c.shadow.size();
  KnowsMemo km;
  for (const ReadLog::Group &gp : c.rlog.layouts[x.layout].g) {
    Granule *g = granule_at(L, shadow, shadow_n, x.first + gp.dgb);
    if (!g)
      continue;
    const uint32_t gl = gp.lo | gp.hi;
    Accessor who;
    who.tid = x.tid0 + uint32_t(std::countr_zero(gl));
    who.ts = &ts;
    who.clock = x.clock;
    a.tid = kEntryKind | who.tid;
    a.value = uint64_t(gp.lo) | uint64_t(gp.hi) << 32;
    // (The CTA's records were all dead when it was logged: no write to
    // check against, so every group is taken whole, as it was.)
    access_group(L, *g, gp.mask, a, who, km);
  }
}

namespace {

// Whether lanes `lanes` of warp `warp` of `cta` have one clock and one
// knowledge: known from an earlier instruction of the warp since which
// nothing changed any thread's knowledge or clock (the loads of a tile
// between two barriers), else compared lane by lane.
inline bool same_knowledge(const LaunchSt &L, CtaSt &cta, uint32_t warp,
                           uint32_t lanes, const ThreadSt *ts0,
                           const uint32_t *clock0) {
  if (cta.same_gen[warp] == L.sync_gen && !(lanes & ~cta.same_lanes[warp]))
    return true;
  const uint32_t f = uint32_t(std::countr_zero(lanes));
  for (uint32_t m = lanes & (lanes - 1); m; m &= m - 1) {
    const uint32_t l = uint32_t(std::countr_zero(m));
    if (clock0[l] != clock0[f] || !(ts0[l].vc == ts0[f].vc) ||
        ts0[l].own_floor != ts0[f].own_floor)
      return false;
  }
  cta.same_gen[warp] = L.sync_gen;
  cta.same_lanes[warp] = lanes;
  return true;
}

// A warp's plain load of granules of three lanes or more from its own
// CTA's shared memory while the CTA's read log is on (a tile row between
// two barriers): logged (readlog_read) as check_access would log it,
// without the setup its other paths need. False, having changed nothing
// but what check_access's own tests change (the warp's same-knowledge
// memo, the remembered layouts), where check_access is to take it.
inline bool logged_read(LaunchSt &L, const AccessEvent &e) {
  const uint32_t lanes = e.lanes;
  CtaSt *const cta = L.cta(e.cta);
  if (!cta || !cta->rlog.on || !few_granules(e, lanes))
    return false;
  const ThreadSt *const ts0 = cta->threads.data() + size_t(e.warp) * 32;
  const uint32_t *const clock0 = cta->clock.data() + size_t(e.warp) * 32;
  if (!same_knowledge(L, *cta, e.warp, lanes, ts0, clock0))
    return false;
  const uint32_t f = uint32_t(std::countr_zero(lanes));
  // (The flags of a plain read: its scope only.)
  return readlog_read(L, *cta, e, lanes,
                      uint8_t(uint8_t(e.scope) << kScopeShift),
                      L.tid_of(e.cta, e.warp, 0), ts0[f], clock0[f]);
}

} // namespace

void check_access(LaunchSt &L, const AccessEvent &e) {
  // The tiles' loads between two barriers first (the read log).
  if (e.space == StateSpace::Shared && e.owner == e.cta &&
      e.type == engine::AccessType::Read && e.order == MemOrder::Weak &&
      e.atom == engine::AtomicOp::None &&
      e.origin == engine::AccessOrigin::Instruction && e.size <= 8 &&
      three_or_more(e.lanes) && logged_read(L, e))
    return;
  uint32_t lanes = e.lanes;
  // Line records first (lines.cpp).
  if (e.space == StateSpace::Global && e.type != engine::AccessType::Atomic &&
      e.order == MemOrder::Weak && e.atom == engine::AtomicOp::None &&
      e.origin == engine::AccessOrigin::Instruction &&
      (e.size == 4 || e.size == 8) && lanes) [[unlikely]] {
    lanes = record_lines(L, e);
    if (!lanes)
      return;
  } else if (e.space == StateSpace::Global && e.size <= 8 &&
             e.origin == engine::AccessOrigin::Instruction &&
             e.atom != engine::AtomicOp::Mbarrier && (lanes & (lanes - 1)) &&
             (e.type == engine::AccessType::Atomic ||
              e.order != MemOrder::Weak) &&
             scattered(e, lanes)) [[unlikely]] {
    // Strong accesses (never line records) of lanes far apart in global
    // memory: their shadow fetched first.
    scattered_lanes(L, e, lanes, e.type != engine::AccessType::Read);
  }
  if (e.space != StateSpace::Global && e.space != StateSpace::Shared)
    return;
  if (e.atom == engine::AtomicOp::Mbarrier)
    return; // mbarrier objects: their operations are the synchronization
  CtaSt *cta = L.cta(e.cta);
  if (!cta)
    return;
  CtaSt *owner = e.space == StateSpace::Shared ? L.cta(e.owner) : nullptr;
  if (e.space == StateSpace::Shared && !owner)
    return;
  const bool is_async = e.origin != engine::AccessOrigin::Instruction;
  const bool write = e.type != engine::AccessType::Read;
  const bool atomic = e.type == engine::AccessType::Atomic;
  const bool strong = atomic || e.order != MemOrder::Weak;
  MemScope scope =
      e.scope == MemScope::None && strong ? MemScope::Gpu : e.scope;
  NewAccess a;
  a.pc = e.pc;
  a.size = uint16_t(std::min<uint32_t>(e.size, kSizeMax));
  a.value = 0;
  // Stores give the bytes each lane wrote (value-aware write-write races).
  const uint8_t *const values =
      e.type == engine::AccessType::Write && !is_async ? e.values : nullptr;
  a.flags = uint8_t((write ? kWrite : 0) | (atomic ? kAtomic : 0) |
                    (strong ? kStrong : 0) | (uint8_t(scope) << kScopeShift) |
                    (is_async ? kAsync : 0));
  a.cta = e.cta;
  a.acquire = strong && !is_async && e.type != engine::AccessType::Write &&
              (e.order == MemOrder::Acquire || e.order == MemOrder::AcqRel ||
               e.order == MemOrder::Sc);
  const Tid tid0 = L.tid_of(e.cta, e.warp, 0);
  ThreadSt *const ts0 = cta->threads.data() + size_t(e.warp) * 32;
  const uint32_t *const clock0 = cta->clock.data() + size_t(e.warp) * 32;
  Granule *const shadow = owner ? owner->shadow.data() : nullptr;
  const uint64_t shadow_n = owner ? owner->shadow.size() : 0;
  const bool single = e.size <= 8;
  // (Set field by field from scalars: a 16-byte copy of a struct just
  // written as two 8-byte halves would wait for them.)
  const bool dead_on = owner && L.dead_ok && !is_async && e.owner == e.cta;
  L.dead_now.floor = dead_on ? owner->dead_floor.data() : nullptr;
  L.dead_now.wk0 = dead_on ? uint32_t(e.owner * L.wpc) : 0;
  L.dead_now.wpc = dead_on ? L.wpc : 0;
  const Dead &dd = L.dead_now;
  // A CTA's reads while its shared memory is clean are logged
  // (readlog.cpp); anything else that reaches it replays the log first.
  // (Whether the lanes read granules of three lanes or more: asked once.)
  const bool plain_read =
      !write && !strong && !is_async && single && three_or_more(lanes);
  const bool grouped = plain_read && few_granules(e, lanes);
  if (owner && owner->rlog.on) [[unlikely]]
    if (e.owner != e.cta || !grouped)
      readlog_flush(L, *owner);
  // Plain reads of one address by a run of lanes that know the same (tile
  // elements broadcast to a row of threads): the first and the last lane
  // of the run stand for it. Another thread's write conflicts with all of
  // them alike, and a lane of the run that writes later still finds the
  // read of one end of the run.
  // Plain reads by lanes that know the same (a warp after a barrier): one
  // read entry per granule (docs/checker.md "Shadow memory").
  // (In global memory, a coalesced load of words too: a read entry of two
  // lanes per granule, word_pairs.)
  // 1: granules of three lanes or more; 2: of word pairs
  // 3: of a neighbour's words in pairs (shifted_pairs)
  const int entries =
      grouped                                                        ? 1
      : plain_read && !shadow && e.size == 4 && word_pairs(e, lanes) ? 2
      : plain_read && !shadow && e.size == 4 && lanes == ~0u && shifted_pairs(e)
          ? 3
          : 0;
  if (entries) {
    const uint32_t f = uint32_t(std::countr_zero(lanes));
    const bool same = same_knowledge(L, *cta, e.warp, lanes, ts0, clock0);
    if (owner && owner->rlog.on) [[unlikely]] {
      if (same &&
          readlog_read(L, *owner, e, lanes, a.flags, tid0, ts0[f], clock0[f]))
        return; // nothing found, nothing strong
      readlog_flush(L, *owner);
    }
    if (same) {
      lanes = entries == 1 ? read_groups(L, e, lanes, a, tid0, ts0, clock0[f],
                                         shadow, shadow_n, *cta)
              : entries == 2
                  ? read_pairs(L, e, lanes, a, tid0, ts0, clock0[f], *cta)
                  : read_shifted_pairs(L, e, a, tid0, ts0, clock0[f], *cta);
      if (!lanes) { // every lane in a read entry (nothing strong)
        if (!found.empty()) [[unlikely]]
          report_found(L);
        return;
      }
    }
  }
  if (!write && !strong && !is_async && three_or_more(lanes) &&
      e.addr[std::countr_zero(lanes)] ==
          e.addr[std::countr_zero(lanes & (lanes - 1))]) {
    uint32_t prev = 32, prev2 = 32;
    auto same = [&](uint32_t a, uint32_t b) {
      return e.addr[a] == e.addr[b] && clock0[a] == clock0[b] &&
             ts0[a].vc == ts0[b].vc && ts0[a].own_floor == ts0[b].own_floor;
    };
    for (uint32_t m = lanes; m; m &= m - 1) {
      const uint32_t l = uint32_t(std::countr_zero(m));
      if (prev2 < 32 && same(prev2, prev) && same(prev, l))
        lanes &= ~(1u << prev); // a middle lane of a run
      prev2 = prev;
      prev = l;
    }
  }
  // Lanes of one instruction that store to the same address: one of the
  // writes is performed last, which one is unspecified (CUDA Programming
  // Guide, "Shared Memory"/"Global Memory" accesses by a warp). When they
  // store the same value the outcome is defined and nothing is reported;
  // different values make the result depend on which lane writes last (an
  // error). The first such lane stands for the others in shadow memory
  // (docs/checker.md "Decisions").
  if (write && !atomic && !is_async && (lanes & (lanes - 1))) {
    bool increasing = true;
    uint64_t prev = 0;
    for (uint32_t m = lanes, first = 1; m; m &= m - 1, first = 0) {
      const uint64_t a = e.addr[std::countr_zero(m)];
      if (!first && a < prev + e.size) {
        increasing = false;
        break;
      }
      prev = a;
    }
    if (!increasing)
      for (uint32_t m = lanes & (lanes - 1); m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        for (uint32_t k = lanes & ((1u << l) - 1); k; k &= k - 1) {
          const uint32_t f = uint32_t(std::countr_zero(k));
          if (e.addr[f] != e.addr[l])
            continue;
          if (values && std::memcmp(values + size_t(f) * e.size,
                                    values + size_t(l) * e.size, e.size)) {
            RaceSide first, second;
            first.tid = tid0 + f;
            second.tid = tid0 + l;
            first.pc = second.pc = e.pc;
            first.write = second.write = true;
            first.strong = second.strong = strong;
            first.scope = second.scope = scope;
            first.size = second.size = e.size;
            L.findings->lanes_race(L, e.space, e.owner, e.addr[l], first,
                                   second);
          }
          lanes &= ~(1u << l);
          break;
        }
      }
  }
  // Atomics by a run of lanes on one address that know the same, at one
  // clock (a warp's fetch_add on a counter): the first two and the last
  // lane of the run stand for it. Their checks against earlier accesses
  // are those of every lane (two lanes: each covers the other's own
  // cells), the lanes' atomics do not race with each other, and the last
  // one subsumes the others in shadow memory (atomics on a location are
  // totally ordered). Every lane still acquires and releases (below).
  uint32_t quiet = 0;
  if (atomic && !is_async && single && std::popcount(lanes) > 3) {
    uint32_t prev = 32, run = 0;
    for (uint32_t m = lanes; m; m &= m - 1) {
      const uint32_t l = uint32_t(std::countr_zero(m));
      const bool same =
          prev < 32 && e.addr[prev] == e.addr[l] && clock0[prev] == clock0[l] &&
          ts0[prev].vc == ts0[l].vc && ts0[prev].own_floor == ts0[l].own_floor;
      run = same ? run + 1 : 1;
      if (run >= 4)
        quiet |= 1u << prev; // neither the first two nor the last
      prev = l;
    }
  }
  // Word stores in pairs to granules holding dead records only (a tile
  // rewritten after a barrier) or their lanes' own loads (a reduction's
  // `s[t] += s[t + stride]`): per granule at once.
  if (write && !strong && !is_async && dd.floor && values && e.size == 4 &&
      three_or_more(lanes) && word_pairs(e, lanes)) {
    lanes = store_pairs(L, e, lanes, a, tid0, clock0, values, shadow, shadow_n);
    if (!lanes)
      return; // nothing found, nothing strong
  }
  // Word loads in pairs from granules of dead records (the reduction's
  // `s[t]` and `s[t + stride]`): per granule at once.
  if (dd.floor && !write && !strong && !is_async && e.size == 4 &&
      three_or_more(lanes) && word_pairs(e, lanes)) {
    lanes = load_pairs(L, e, lanes, a, tid0, clock0, shadow, shadow_n);
    if (!lanes)
      return; // nothing found, nothing strong
  }
  uint32_t strong_lanes = 0; // their release/acquire patterns, together
  Granule *gran[32];         // of strong lanes: the granule of the address
  // Accesses to fresh granules first (the lanes before the first that is
  // not: the order of the lanes is kept).
  if (!is_async && single && lanes) [[unlikely]] {
    lanes = strong
                ? fresh_lanes<true>(L, e, lanes, a, tid0, clock0, strong_lanes,
                                    gran, values, shadow, shadow_n)
                : fresh_lanes<false>(L, e, lanes, a, tid0, clock0, strong_lanes,
                                     gran, values, shadow, shadow_n);
    if (!lanes && !strong_lanes)
      return; // nothing found, nothing strong
  }
  Accessor who;
  if (!is_async)
    who.set_cta(*cta, warp_key(tid0) - e.warp);
  for (uint32_t m = lanes; m; m &= m - 1) {
    const uint32_t lane = uint32_t(std::countr_zero(m));
    if (is_async) {
      Tid agent =
          (e.origin == engine::AccessOrigin::BulkCopy ? kAgentBulk : kAgentCp) |
          (tid0 + lane);
      auto it =
          L.async_snap.find(uint64_t(agent) << 32 ^ (e.async_id & 0xffffffffu));
      who.tid = agent;
      who.clock = uint32_t(e.async_id);
      who.vc = it != L.async_snap.end() ? it->second.vc.get() : nullptr;
    } else {
      who.tid = tid0 + lane;
      who.ts = ts0 + lane;
      who.clock = clock0[lane];
    }
    a.tid = who.tid;
    a.clock = who.clock;
    const uint64_t addr = e.addr[lane];
    const uint8_t *const mine =
        values ? values + size_t(lane) * e.size : nullptr;
    // The lane's bytes in granule gb, placed at their granule offsets.
    auto set_value = [&](uint64_t gb, uint64_t lo, uint64_t hi) {
      if (!mine) {
        a.size &= kSizeMax;
        return;
      }
      // Loads of the access's own size (not a memcpy of a variable length,
      // whose byte stores a 64-bit load of `v` would then wait for).
      const uint8_t *src = mine + (lo - addr);
      uint64_t v;
      switch (hi - lo) {
      case 1:
        v = *src;
        break;
      case 2: {
        uint16_t x;
        std::memcpy(&x, src, 2);
        v = x;
        break;
      }
      case 4: {
        uint32_t x;
        std::memcpy(&x, src, 4);
        v = x;
        break;
      }
      case 8:
        std::memcpy(&v, src, 8);
        break;
      default:
        v = 0;
        for (uint64_t i = 0; i < hi - lo; ++i)
          v |= uint64_t(src[i]) << (8 * i);
      }
      a.value = v << (8 * (lo - gb));
      a.size |= kValued;
    };
    const uint64_t end = addr + e.size;
    uint64_t gb = addr & ~7ull;
    if (single && end <= gb + 8) {
      // Within one granule (nearly every access).
      Granule *g = granule_at(L, shadow, shadow_n, gb);
      if (!g)
        continue;
      if (quiet >> lane & 1) {
        strong_lanes |= 1u << lane;
        gran[lane] = g;
        continue;
      }
      set_value(gb, addr, end);
      clear_dead(L, *g, dd);
      access_granule(L, *g, uint8_t(((1u << e.size) - 1) << (addr - gb)), a,
                     who, e.space, e.owner, gb);
      if (write && !strong && (g->cell[0].flags & kSyncBit))
        if (SyncLoc *l = L.sync_loc(*g, addr))
          l->clear();
      if (strong && !is_async) {
        strong_lanes |= 1u << lane;
        gran[lane] = g;
      }
      continue;
    }
    gran[lane] = nullptr;
    for (; gb < end; gb += 8) {
      uint64_t lo = std::max(gb, addr), hi = std::min(gb + 8, end);
      uint8_t mask = uint8_t(((1u << (hi - lo)) - 1) << (lo - gb));
      Granule *g = granule_at(L, shadow, shadow_n, gb);
      if (!g)
        break;
      set_value(gb, lo, hi);
      clear_dead(L, *g, dd);
      access_granule(L, *g, mask, a, who, e.space, e.owner, gb);
      // A plain store ends the release sequences of the location.
      if (write && !strong && (g->cell[0].flags & kSyncBit))
        if (SyncLoc *l = L.sync_loc(*g, lo))
          l->clear();
      if (strong && !is_async && lo == addr)
        gran[lane] = g;
    }
    if (strong && !is_async)
      strong_lanes |= 1u << lane;
  }
  if (!found.empty()) [[unlikely]]
    report_found(L);
  if (strong_lanes)
    strong_access(L, e, strong_lanes, gran);
}

void race_barrier_arrive(CtaSt &c, const engine::BarrierArriveEvent &e) {
  BarrierSt &b = c.bars[unsigned(e.barrier) & 15];
  if (e.op != engine::BarrierOp::Arrive && e.warp < 32 &&
      e.lanes == c.valid[e.warp] && !c.exited[e.warp] &&
      !(b.whole_warps >> e.warp & 1))
    b.whole_warps |= 1u << e.warp;
  else
    b.whole = false;
}

void race_barrier_complete(LaunchSt &L, CtaSt &c,
                           const engine::BarrierCompleteEvent &e) {
  BarrierSt &b = c.bars[unsigned(e.barrier) & 15];
  // Every warp arrived whole and waits: each thread's accesses before its
  // arrival (clock below the warp's clock now, release_warp) happen before
  // every thread's accesses after the barrier.
  if (b.whole && L.wpc <= 32 &&
      b.whole_warps == (L.wpc == 32 ? ~0u : (1u << L.wpc) - 1)) {
    readlog_barrier(L, c); // (before the floors rise)
    ++L.dead_gen;
    for (uint32_t w = 0; w < L.wpc; ++w)
      c.dead_floor[w] =
          c.clock[size_t(w) * 32 + uint32_t(std::countr_zero(c.valid[w]))];
  }
  b.whole_warps = 0;
  b.whole = true;
}

// A page's line records become the cells the accesses they stand for
// would have written (fresh_lanes: in lane order, the first free cell).
void GlobalShadow::expand(Page &p) {
  for (uint32_t line = 0; line < kPageLines; ++line) {
    const LineRecord &r = p.rec[line];
    const uint32_t size = r.size & kSizeMax;
    NewAccess a{};
    a.clock = r.clock;
    a.pc = r.pc;
    a.flags = r.flags;
    a.size = r.size;
    for (uint32_t m = r.lanes; m; m &= m - 1) {
      const uint32_t l = uint32_t(std::countr_zero(m));
      const uint32_t off =
          uint32_t(int32_t(line * kLineBytes) + r.first + int32_t(l * size));
      Granule &g = p.g[off >> 3];
      a.tid = r.tid0 + l;
      a.value = (r.size & kValued)
                    ? load_bytes(p.bytes + off, size) << (8 * (off & 7))
                    : 0;
      put_cell(g, g.cell[0].tid == kNoTid ? 0 : 1, a,
               uint8_t(((1u << size) - 1) << (off & 7)));
    }
  }
}

} // namespace bcusim::check::detail
