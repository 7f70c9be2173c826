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
// A store passes the host bytes it has just written, before the next lane
// writes (batch.add(l, sp, addr, p)): the event then carries each lane's
// value (AccessEvent::values).
//
// The address is the one the instruction used (generic addresses and
// .shared::cluster windows are resolved here, for the observer only).
#pragma once

#include <array>
#include <cstring>
#include <memory>
#include <vector>

#include "code.h"

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
      : x_(x), in_(in), on_(x.obs != nullptr), type_(type), atom_(atom),
        size_(size) {}
  bool on() const { return on_; }
  // The reads are the async proxy's (AccessEvent::async_proxy).
  void set_async_proxy() { async_proxy_ = true; }
  // Lane `lane` accessed `addr` of space `sp` (as the instruction gave it).
  [[gnu::always_inline]] void add(uint32_t lane, MemSpace sp, uint64_t addr,
                                  const uint8_t *written = nullptr) {
    if (!on_)
      return;
    if (written)
      value(lane, written);
    // The common cases need no resolution: a global address, the CTA's
    // own shared memory, the thread's local memory.
    if (sp == MemSpace::Global)
      put(lane, kGlobalKey, addr);
    else if (sp == MemSpace::Shared &&
             addr - x_.cta->shared_base < kSharedCtaWindow)
      put(lane, key_of(StateSpace::Shared, x_.cta->linear, false),
          addr - x_.cta->shared_base);
    else if (sp == MemSpace::Local)
      put(lane, key_of(StateSpace::Local, x_.cta->linear, false), addr);
    else if (sp == MemSpace::KParam)
      put(lane, key_of(StateSpace::Param, 0, false), addr);
    else if (sp == MemSpace::Const)
      put(lane, key_of(StateSpace::Const, 0, false), addr);
    else
      add_resolved(lane, resolve_access(x_, sp, addr));
  }
  // The bytes lane `lane` stored (size bytes at `written`).
  void value(uint32_t lane, const uint8_t *written) {
    if (type_ != AccessType::Write || size_ > kMaxValue)
      return;
    std::memcpy(values_.data() + lane * size_, written, size_);
    valued_ |= 1u << lane;
  }
  void add_resolved(uint32_t lane, const Resolved &r) {
    put(lane, key_of(r.space, r.owner, r.generic), r.addr);
  }
  // Every lane of `m` accessed base[l] + off of space `sp` as add() names
  // it: Global, the CTA's own Shared, Local, KParam or Const (fast paths:
  // the addresses are inside it).
  // (Inlined into the callers' AVX2 code, where the lane loop vectorizes.)
  template <MemSpace S, class L>
  [[gnu::always_inline]] void add_space(uint32_t m, const L *base,
                                        int64_t off) {
    // Shared memory is named by its offset in the CTA's memory.
    if constexpr (S == MemSpace::Shared)
      off -= int64_t(x_.cta->shared_base);
    add_lanes(m, direct_key(S), base, off);
  }
  // The fast path of a store of B bytes per lane (size == B): lane l stored
  // the low B bytes of v[l].
  template <uint32_t B, class L> void add_values(uint32_t m, const L *v) {
    if (!on_ || type_ != AccessType::Write || size_ != B)
      return;
    uint8_t *d = values_.data();
    if (m == kFullMask && sizeof(L) == B) {
      // Lane l's bytes are at l * B in both: one block.
      std::memcpy(d, v, kWarpSize * B);
    } else {
      for_lanes(m, [&](uint32_t l) { std::memcpy(d + l * B, &v[l], B); });
    }
    valued_ |= m;
  }
  // The fast path of a vector store: lane l stored the low B bytes of
  // v[k][l] at offset k * B, for k < n (size == B * n).
  template <uint32_t B, class L>
  void add_vector_values(uint32_t m, const L *const *v, uint32_t n) {
    if (!on_ || type_ != AccessType::Write || size_ > kMaxValue)
      return;
    uint8_t *d = values_.data();
    const uint32_t size = size_;
    for (uint32_t k = 0; k < n; ++k)
      for_lanes(m, [&](uint32_t l) {
        std::memcpy(d + l * size + k * B, &v[k][l], B);
      });
    valued_ |= m;
  }
  // Reports the lanes added so far, one event per (space, owner,
  // generic) group, and starts over.
  void emit();

private:
  // One event per group of lanes (the lanes' keys differ).
  [[gnu::noinline]] void emit_groups(AccessEvent &e);
  // The event of `lanes`, of key `key`, at `addr`.
  [[gnu::always_inline]] inline void send(AccessEvent &e, uint64_t key,
                                          uint32_t lanes, const uint64_t *addr);
  // (space, owner, generic) in one word.
  static constexpr uint64_t key_of(StateSpace s, uint64_t owner, bool g) {
    return owner << 4 | uint64_t(s) << 1 | (g ? 1 : 0);
  }
  static constexpr uint64_t kGlobalKey = uint64_t(StateSpace::Global) << 1;
  // The key of an address of `sp` that needs no resolution (add()).
  uint64_t direct_key(MemSpace sp) const {
    switch (sp) {
    case MemSpace::Shared:
      return key_of(StateSpace::Shared, x_.cta->linear, false);
    case MemSpace::Local:
      return key_of(StateSpace::Local, x_.cta->linear, false);
    case MemSpace::KParam:
      return key_of(StateSpace::Param, 0, false);
    case MemSpace::Const:
      return key_of(StateSpace::Const, 0, false);
    default:
      return kGlobalKey;
    }
  }
  // The warp paths (add_lanes) write keys_ only once the lanes' keys
  // differ: until then every lane added has the key first_.
  void note_key(uint64_t key) {
    if (!lanes_) {
      first_ = key;
    } else if (key != first_ && uniform_) {
      for_lanes(lanes_, [&](uint32_t l) { keys_[l] = first_; });
      uniform_ = false;
    }
  }
  template <class L>
  [[gnu::always_inline]] void add_lanes(uint32_t m, uint64_t key, const L *base,
                                        int64_t off) {
    if (!on_)
      return;
    for_lanes(
        m, [&](uint32_t l) { addr_[l] = uint64_t(base[l]) + uint64_t(off); });
    note_key(key);
    if (!uniform_)
      for_lanes(m, [&](uint32_t l) { keys_[l] = key; });
    lanes_ |= m;
  }
  [[gnu::always_inline]] void put(uint32_t lane, uint64_t key, uint64_t addr) {
    note_key(key);
    keys_[lane] = key; // one store, cheaper than a test
    addr_[lane] = addr;
    lanes_ |= 1u << lane;
  }
  Exec &x_;
  const Inst &in_;
  bool on_;
  bool uniform_ = true;
  bool async_proxy_ = false;
  AccessType type_;
  AtomicOp atom_;
  uint32_t size_;
  uint32_t lanes_ = 0;
  uint32_t valued_ = 0; // lanes whose written bytes are in values_
  uint64_t first_ = 0;
  static constexpr uint32_t kMaxValue = 32; // bytes per lane (v4.b64)
  std::array<uint8_t, kWarpSize * kMaxValue> values_;
  // Meaningful for lanes_ only; for the lanes of add_lanes only once
  // !uniform_.
  std::array<uint64_t, kWarpSize> keys_;
  std::array<uint64_t, kWarpSize> addr_;
};

// The same interface doing nothing: the lane loops of unobserved runs.
struct NoBatch {
  void add(uint32_t, MemSpace, uint64_t, const uint8_t * = nullptr) {}
  void emit() {}
};

// The one place an access event's fields are filled (AccessBatch and
// observe_one); lanes, space, owner and addresses follow.
inline AccessEvent access_event(uint32_t pc, uint64_t cta, uint32_t warp,
                                AccessType type, uint32_t size, AtomicOp atom,
                                MemOrder order, MemScope scope,
                                AccessOrigin origin, uint64_t async_id) {
  AccessEvent e;
  e.pc = pc;
  e.cta = cta;
  e.warp = warp;
  e.type = type;
  e.size = size;
  e.atom = atom;
  e.order = order;
  e.scope = scope;
  e.origin = origin;
  e.async_id = async_id;
  return e;
}

// One access by one lane outside an instruction's lane loop (async copies,
// mbarrier objects): `size` bytes at `r`.
void observe_one(Exec &x, uint32_t pc, uint64_t cta, uint32_t warp,
                 uint32_t lane, AccessType type, uint32_t size,
                 const Resolved &r, AtomicOp atom = AtomicOp::None,
                 MemOrder order = MemOrder::Weak,
                 MemScope scope = MemScope::None,
                 AccessOrigin origin = AccessOrigin::Instruction,
                 uint64_t async_id = 0);

// The thread part of an event by `lanes` of the executing warp at the
// executing instruction.
template <class E = ThreadEvent> E thread_event(const Exec &x, uint32_t lanes) {
  E e;
  e.pc = x.pc;
  e.cta = x.cta->linear;
  e.warp = x.warp ? x.warp->index : 0;
  e.lanes = lanes;
  return e;
}

// Several observers of one launch as one (LaunchConfig::observers): every
// event goes to each in order; accesses only to those that want them.
std::unique_ptr<Observer> fan_out(std::vector<Observer *> list);

} // namespace bcusim::engine::detail
