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
// per location) another atomic; else the older of the two cells. Keeping
// two cells bounds the shadow at 4x the memory it covers and can miss a
// race whose first access was evicted, never report a false one.
#include "report.h"

namespace bcusim::check::detail {

namespace {

struct NewAccess {
  Tid tid;
  uint32_t clock, pc;
  uint8_t flags; // kWrite | kAtomic | kStrong | scope | kAsync
  uint16_t size;
  uint64_t cta;
};

constexpr uint8_t kSyncBit = 0x80;   // cell[0].flags: a sync location here
constexpr uint8_t kRecentBit = 0x80; // cell[1].flags: cell 1 is the newer

RaceSide side(const Cell &c) {
  RaceSide s;
  s.tid = c.tid;
  s.pc = c.pc;
  s.write = c.flags & kWrite;
  s.atomic = c.flags & kAtomic;
  s.strong = c.flags & kStrong;
  s.scope = scope_of(c.flags);
  s.size = c.size;
  s.async_id = is_agent(c.tid) ? c.clock : 0;
  return s;
}

bool morally_strong(const LaunchSt &L, const Cell &c, const NewAccess &a) {
  if (!(c.flags & kStrong) || !(a.flags & kStrong) || c.size != a.size)
    return false;
  const uint64_t cc = L.cta_of(c.tid);
  return L.scope_covers(scope_of(c.flags), cc, a.cta) &&
         L.scope_covers(scope_of(a.flags), a.cta, cc);
}

// Checks and records `a` on bytes `mask` of granule `g` (byte 0 of the
// granule at `base`).
[[gnu::always_inline]] inline void
access_granule(LaunchSt &L, Granule &g, const uint8_t mask, const NewAccess &ar,
               const Accessor &who, StateSpace space, uint64_t owner,
               uint64_t base) {
  // Local copies: the stores into the cells below cannot alias them.
  const NewAccess a{ar.tid, ar.clock, ar.pc, ar.flags, ar.size, ar.cta};
  const bool write = a.flags & kWrite;
  // Conflicts: another thread's access to one of these bytes, one of the
  // two a write, not morally strong, not known to happen before.
  for (int i = 0; i < 2; ++i) {
    const Cell c = g.cell[i];
    if (!(c.mask & mask) || c.tid == a.tid || c.tid == kNoTid ||
        !((c.flags | a.flags) & kWrite))
      continue;
    if (((c.flags & a.flags) & kStrong) && morally_strong(L, c, a))
      continue;
    if (who.knows(c.tid, c.clock))
      continue;
    RaceSide later;
    later.tid = a.tid;
    later.pc = a.pc;
    later.write = write;
    later.atomic = a.flags & kAtomic;
    later.strong = a.flags & kStrong;
    later.scope = scope_of(a.flags);
    later.size = a.size;
    later.async_id = is_agent(a.tid) ? a.clock : 0;
    L.findings->race(L, space, owner,
                     base + uint64_t(std::countr_zero(unsigned(c.mask & mask))),
                     side(c), later);
  }
  // Record it. The same thread in the same epoch with the same kind of
  // access (bytes of one memcpy, fields of a struct, a loop re-reading a
  // value): one cell for all its bytes.
  Cell &c0 = g.cell[0], &c1 = g.cell[1];
  int slot = -1;
  if (c0.tid == a.tid) {
    if (c0.clock == a.clock && ((c0.flags ^ a.flags) & 0x7f) == 0 &&
        c0.size == a.size) {
      c0.mask |= mask;
      c0.pc = a.pc;
      return;
    }
    // Its own older access to no more bytes, no stronger.
    if (!(c0.mask & ~mask) && (write || !(c0.flags & kWrite)))
      slot = 0;
  }
  if (c1.tid == a.tid) {
    if (c1.clock == a.clock && ((c1.flags ^ a.flags) & 0x7f) == 0 &&
        c1.size == a.size) {
      c1.mask |= mask;
      c1.pc = a.pc;
      return;
    }
    if (slot < 0 && !(c1.mask & ~mask) && (write || !(c1.flags & kWrite)))
      slot = 1;
  }
  if (slot < 0) {
    if (c0.tid == kNoTid)
      slot = 0;
    else if (c1.tid == kNoTid)
      slot = 1;
    else if (write) {
      // A write replaces an access known to happen before it, or (atomics
      // are totally ordered per location) an older atomic.
      for (int i = 0; i < 2 && slot < 0; ++i) {
        const Cell &c = g.cell[i];
        if (!(c.mask & ~mask) &&
            (((a.flags & kAtomic) && (c.flags & kAtomic)) ||
             who.knows(c.tid, c.clock)))
          slot = i;
      }
    } else {
      // A read replaces the older read, keeping a write (it still matters
      // for readers that are not ordered after it).
      const bool r0 = !(c0.flags & kWrite), r1 = !(c1.flags & kWrite);
      if (r0 && r1)
        slot = (c1.flags & kRecentBit) ? 0 : 1;
      else if (r0 || r1)
        slot = r0 ? 0 : 1;
    }
    if (slot < 0)
      slot = (c1.flags & kRecentBit) ? 0 : 1; // the older one
  }
  // Atomics on a location are totally ordered (coherence): a new atomic
  // subsumes the older atomics on its bytes.
  if (a.flags & kAtomic) {
    Cell &o = g.cell[1 - slot];
    if (o.tid != kNoTid && (o.flags & kAtomic) && !(o.mask & ~mask))
      o.tid = kNoTid;
  }
  Cell &n = g.cell[slot];
  const uint8_t keep = slot == 0 ? (n.flags & kSyncBit) : kRecentBit;
  n.tid = a.tid;
  n.clock = a.clock;
  n.pc = a.pc;
  n.mask = mask;
  n.flags = uint8_t(a.flags | keep);
  n.size = a.size;
  // Which cell is the newer one (kRecentBit of cell 1).
  if (slot == 0)
    c1.flags &= uint8_t(~kRecentBit);
}

} // namespace

void check_access(LaunchSt &L, const AccessEvent &e) {
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
  a.size = uint16_t(std::min<uint32_t>(e.size, 0xffff));
  a.flags = uint8_t((write ? kWrite : 0) | (atomic ? kAtomic : 0) |
                    (strong ? kStrong : 0) | (uint8_t(scope) << kScopeShift) |
                    (is_async ? kAsync : 0));
  a.cta = e.cta;
  const Tid tid0 = L.tid_of(e.cta, e.warp, 0);
  ThreadSt *const ts0 = cta->threads.data() + size_t(e.warp) * 32;
  const uint32_t *const clock0 = cta->clock.data() + size_t(e.warp) * 32;
  Granule *const shadow = owner ? owner->shadow.data() : nullptr;
  const uint64_t shadow_n = owner ? owner->shadow.size() : 0;
  const bool single = e.size <= 8;
  // Plain reads of one address by a run of lanes that know the same (tile
  // elements broadcast to a row of threads): the first and the last lane
  // of the run stand for it. Another thread's write conflicts with all of
  // them alike, and a lane of the run that writes later still finds the
  // read of one end of the run.
  uint32_t lanes = e.lanes;
  if (!write && !strong && !is_async && std::popcount(e.lanes) > 2 &&
      e.addr[std::countr_zero(e.lanes)] ==
          e.addr[std::countr_zero(e.lanes & (e.lanes - 1))]) {
    uint32_t prev = 32, prev2 = 32;
    auto same = [&](uint32_t a, uint32_t b) {
      return e.addr[a] == e.addr[b] && clock0[a] == clock0[b] &&
             ts0[a].vc == ts0[b].vc && ts0[a].own_floor == ts0[b].own_floor;
    };
    for (uint32_t m = e.lanes; m; m &= m - 1) {
      const uint32_t l = uint32_t(std::countr_zero(m));
      if (prev2 < 32 && same(prev2, prev) && same(prev, l))
        lanes &= ~(1u << prev); // a middle lane of a run
      prev2 = prev;
      prev = l;
    }
  }
  // Lanes of one instruction that store to the same address: the outcome
  // is defined (one of the writes is performed last, which one is
  // unspecified: CUDA Programming Guide, "Shared Memory"/"Global Memory"
  // accesses by a warp), so they do not race with each other; the first
  // such lane stands for the others (docs/checker.md "Decisions").
  if (write && !atomic && !is_async && std::popcount(lanes) > 1) {
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
        for (uint32_t k = lanes & ((1u << l) - 1); k; k &= k - 1)
          if (e.addr[std::countr_zero(k)] == e.addr[l]) {
            lanes &= ~(1u << l);
            break;
          }
      }
  }
  for (uint32_t m = lanes; m; m &= m - 1) {
    const uint32_t lane = uint32_t(std::countr_zero(m));
    Accessor who;
    if (is_async) {
      Tid agent =
          (e.origin == engine::AccessOrigin::BulkCopy ? kAgentBulk : kAgentCp) |
          (tid0 + lane);
      auto it =
          L.async_snap.find(uint64_t(agent) << 32 ^ (e.async_id & 0xffffffffu));
      who.tid = agent;
      who.clock = uint32_t(e.async_id);
      if (it != L.async_snap.end())
        who.vc = it->second.vc.get();
    } else {
      who.tid = tid0 + lane;
      who.ts = ts0 + lane;
      who.clock = clock0[lane];
    }
    a.tid = who.tid;
    a.clock = who.clock;
    const uint64_t addr = e.addr[lane];
    const uint64_t end = addr + e.size;
    uint64_t gb = addr & ~7ull;
    if (single && end <= gb + 8) {
      // Within one granule (nearly every access).
      Granule *g;
      if (shadow) {
        if ((gb >> 3) >= shadow_n)
          continue;
        g = shadow + (gb >> 3);
      } else {
        g = L.global.granule(gb);
      }
      access_granule(L, *g, uint8_t(((1u << e.size) - 1) << (addr - gb)), a,
                     who, e.space, e.owner, gb);
      if (write && !strong && (g->cell[0].flags & kSyncBit))
        L.sync_locs.erase(SyncKey{sync_space_key(e), addr});
      if (strong && !is_async) {
        g->cell[0].flags |= kSyncBit;
        strong_access(L, e, lane, addr);
      }
      continue;
    }
    for (; gb < end; gb += 8) {
      uint64_t lo = std::max(gb, addr), hi = std::min(gb + 8, end);
      uint8_t mask = uint8_t(((1u << (hi - lo)) - 1) << (lo - gb));
      Granule *g;
      if (shadow) {
        if ((gb >> 3) >= shadow_n)
          break;
        g = shadow + (gb >> 3);
      } else {
        g = L.global.granule(gb);
      }
      access_granule(L, *g, mask, a, who, e.space, e.owner, gb);
      // A plain store ends the release sequences of the location.
      if (write && !strong && (g->cell[0].flags & kSyncBit))
        L.sync_locs.erase(SyncKey{sync_space_key(e), lo});
      if (strong && !is_async)
        g->cell[0].flags |= kSyncBit;
    }
    if (strong && !is_async)
      strong_access(L, e, lane, addr);
  }
}

} // namespace bcusim::check::detail
