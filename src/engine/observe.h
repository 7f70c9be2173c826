// Reporting memory accesses to the launch's observer (observer.h,
// docs/observer.md). A handler that accesses memory collects the lanes'
// addresses in an AccessBatch and emits it once; with no observer attached
// (Exec::obs == nullptr) nothing is collected and a handler pays one branch
// per instruction. New instructions that touch memory do the same:
//
//   AccessBatch batch(x, in, AccessType::Read, size);   // observing or not
//   for_lanes(m, [&](uint32_t l) {
//     ... translate and access lane l's address `addr` in space `sp` ...
//     batch.add(l, sp, addr);               // after the access succeeded
//   });
//   batch.emit();
//
// The address is the one the instruction used (generic addresses and
// .shared::cluster windows are resolved here, for the observer only).
#pragma once

#include <array>

#include "program.h"

namespace bcusim::engine::detail {

// Where an access lands, as the observer names it.
struct Resolved {
  StateSpace space = StateSpace::Global;
  uint64_t owner = 0; // shared/local: the CTA's linear index
  uint64_t addr = 0;  // in that space (observer.h AccessEvent::addr)
  bool generic = false;
};
Resolved resolve_access(const Exec &x, MemSpace sp, uint64_t addr);

// The ordering and scope written on an instruction.
inline MemOrder order_of(const Inst &in) { return MemOrder(in.order); }
inline MemScope scope_of(const Inst &in) { return MemScope(in.scope); }

class AccessBatch {
public:
  AccessBatch(Exec &x, const Inst &in, AccessType type, uint32_t size,
              AtomicOp atom = AtomicOp::None)
      : x_(x), on_(x.obs != nullptr) {
    if (!on_)
      return;
    e_.pc = x.pc;
    e_.cta = x.cta->linear;
    e_.warp = x.warp->index;
    e_.type = type;
    e_.order = order_of(in);
    e_.scope = scope_of(in);
    e_.atom = atom;
    e_.size = size;
  }
  bool on() const { return on_; }
  // Lane `lane` accessed `addr` of space `sp` (as the instruction gave it).
  void add(uint32_t lane, MemSpace sp, uint64_t addr) {
    if (on_)
      add_resolved(lane, resolve_access(x_, sp, addr));
  }
  void add_resolved(uint32_t lane, const Resolved &r) {
    lanes_ |= 1u << lane;
    r_[lane] = r;
  }
  // Every lane of `m` accessed base[l] + off of the global space (fast
  // paths).
  void add_global(uint32_t m, const uint64_t *base, int64_t off) {
    if (!on_)
      return;
    for_lanes(m, [&](uint32_t l) {
      lanes_ |= 1u << l;
      r_[l] = Resolved{StateSpace::Global, 0, base[l] + uint64_t(off), false};
    });
  }
  // Reports the lanes added so far, one event per (space, owner,
  // generic) group, and starts over.
  void emit();

private:
  Exec &x_;
  bool on_;
  AccessEvent e_;
  uint32_t lanes_ = 0;
  std::array<Resolved, kWarpSize> r_{};
};

// One access by one lane outside an instruction's lane loop (async copies,
// mbarrier objects): `size` bytes at `r`.
void observe_one(Exec &x, uint32_t pc, uint64_t cta, uint32_t warp,
                 uint32_t lane, AccessType type, uint32_t size,
                 const Resolved &r, AtomicOp atom = AtomicOp::None,
                 MemOrder order = MemOrder::Weak,
                 MemScope scope = MemScope::None,
                 AccessOrigin origin = AccessOrigin::Instruction,
                 uint64_t async_id = 0);

inline void observe_sync(Exec &x, const SyncEvent &e) {
  if (x.sync_obs)
    x.sync_obs->on_sync(e);
}

} // namespace bcusim::engine::detail
