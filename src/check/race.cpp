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
void access_granule(LaunchSt &L, Granule &g, uint8_t mask, const NewAccess &a,
                    const Accessor &who, StateSpace space, uint64_t owner,
                    uint64_t base) {
  const bool write = a.flags & kWrite, atomic = a.flags & kAtomic;
  for (int i = 0; i < 2; ++i) {
    const Cell &c = g.cell[i];
    if (c.empty() || !(c.mask & mask) || c.tid == a.tid)
      continue;
    if (!(c.flags & kWrite) && !write)
      continue;
    if (morally_strong(L, c, a) || who.knows(c.tid, c.clock))
      continue;
    RaceSide later;
    later.tid = a.tid;
    later.pc = a.pc;
    later.write = write;
    later.atomic = atomic;
    later.strong = a.flags & kStrong;
    later.scope = scope_of(a.flags);
    later.size = a.size;
    later.async_id = is_agent(a.tid) ? a.clock : 0;
    L.findings->race(L, space, owner,
                     base + uint64_t(std::countr_zero(unsigned(c.mask & mask))),
                     side(c), later);
  }
  // Record it.
  Cell n;
  n.tid = a.tid;
  n.clock = a.clock;
  n.pc = a.pc;
  n.mask = mask;
  n.flags = a.flags;
  n.size = a.size;
  int slot = -1;
  // The same thread in the same epoch with the same kind of access (bytes
  // of one memcpy, fields of a struct): one cell for all its bytes.
  for (int i = 0; i < 2; ++i) {
    Cell &c = g.cell[i];
    if (c.tid == a.tid && c.clock == a.clock &&
        (c.flags & 0x7f) == (a.flags & 0x7f) && c.size == a.size) {
      c.mask |= mask;
      c.pc = a.pc;
      return;
    }
  }
  for (int i = 0; i < 2 && slot < 0; ++i) {
    const Cell &c = g.cell[i];
    if (c.tid == a.tid && !(c.mask & ~mask) && (write || !(c.flags & kWrite)))
      slot = i;
  }
  for (int i = 0; i < 2 && slot < 0; ++i)
    if (g.cell[i].empty())
      slot = i;
  for (int i = 0; i < 2 && slot < 0; ++i) {
    const Cell &c = g.cell[i];
    if (!(c.mask & ~mask) && (write || !(c.flags & kWrite)) &&
        (who.knows(c.tid, c.clock) ||
         (atomic && (c.flags & kAtomic) && (c.flags & kWrite))))
      slot = i;
  }
  if (slot < 0)
    slot = (g.cell[1].flags & kRecentBit) ? 0 : 1; // the older one
  // Atomics on a location are totally ordered (coherence): a new atomic
  // subsumes the older atomics on its bytes.
  if (atomic) {
    Cell &o = g.cell[1 - slot];
    if (!o.empty() && (o.flags & kAtomic) && !(o.mask & ~mask)) {
      o = Cell{};
      if (slot == 0)
        g.cell[1].flags &= uint8_t(~kRecentBit);
    }
  }
  const uint8_t sync = g.cell[0].flags & kSyncBit;
  g.cell[slot] = n;
  g.cell[0].flags = uint8_t((g.cell[0].flags & ~kSyncBit) | sync);
  // Which cell is the newer one (kRecentBit of cell 1).
  if (slot == 1)
    g.cell[1].flags |= kRecentBit;
  else
    g.cell[1].flags &= uint8_t(~kRecentBit);
}

// Same thread, same clock, bytes already covered by an access at least as
// strong: nothing can change.
bool same_epoch(const Granule &g, uint8_t mask, const NewAccess &a) {
  bool covered = false;
  for (const Cell &c : g.cell) {
    if (c.empty())
      continue;
    if (c.tid != a.tid)
      return false;
    if (c.clock == a.clock && !(mask & ~c.mask) &&
        (c.flags & kWrite) >= (a.flags & kWrite) &&
        (c.flags & (kAtomic | kStrong)) == (a.flags & (kAtomic | kStrong)))
      covered = true;
  }
  return covered;
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
  for (uint32_t m = e.lanes; m; m &= m - 1) {
    const uint32_t lane = uint32_t(std::countr_zero(m));
    Accessor who;
    Tid tid = L.tid_of(e.cta, e.warp, lane);
    if (is_async) {
      Tid agent =
          (e.origin == engine::AccessOrigin::BulkCopy ? kAgentBulk : kAgentCp) |
          tid;
      auto it =
          L.async_snap.find(uint64_t(agent) << 32 ^ (e.async_id & 0xffffffffu));
      who.tid = agent;
      who.clock = uint32_t(e.async_id);
      if (it != L.async_snap.end())
        who.vc = it->second.vc;
    } else {
      ThreadSt &ts = cta->threads[e.warp * 32 + lane];
      who.tid = tid;
      who.clock = ts.clock;
      who.ts = &ts;
    }
    a.tid = who.tid;
    a.clock = who.clock;
    const uint64_t addr = e.addr[lane];
    const uint64_t end = addr + e.size;
    for (uint64_t gb = addr & ~7ull; gb < end; gb += 8) {
      uint64_t lo = std::max(gb, addr), hi = std::min(gb + 8, end);
      uint8_t mask = uint8_t(((1u << (hi - lo)) - 1) << (lo - gb));
      Granule *g;
      if (owner) {
        uint64_t i = gb >> 3;
        if (i >= owner->shadow.size())
          break;
        g = &owner->shadow[i];
      } else {
        g = L.global.granule(gb);
      }
      if (same_epoch(*g, mask, a))
        continue;
      access_granule(L, *g, mask, a, who, e.space, e.owner, gb);
      // A plain store ends the release sequences of the location.
      if (write && !strong && (g->cell[0].flags & kSyncBit)) {
        auto it =
            L.sync_locs.find(SyncKey{uint64_t(e.space) << 56 | e.owner, lo});
        if (it != L.sync_locs.end())
          L.sync_locs.erase(it);
      }
      if (strong && !is_async)
        g->cell[0].flags |= kSyncBit;
    }
    if (strong && !is_async)
      strong_access(L, e, lane, addr);
  }
}

} // namespace bcusim::check::detail
