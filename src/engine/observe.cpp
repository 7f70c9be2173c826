// Reporting memory accesses to the observer (observe.h).
#include "observe.h"

#include <cstdlib>
#include <cxxabi.h>

#include "cluster_addr.h"

namespace bcusim::engine::detail {

std::string demangle(const std::string &name) {
  if (name.rfind("_Z", 0) != 0)
    return name;
  int status = 0;
  char *d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string r = status == 0 && d ? std::string(d) : name;
  std::free(d);
  return r;
}

Resolved resolve_access(const Exec &x, MemSpace sp, uint64_t addr) {
  Resolved r;
  if (sp == MemSpace::Generic) {
    r.generic = true;
    if (addr >= kSharedWindow && addr < kConstWindow + kWindowSize) {
      uint64_t w = (addr - kSharedWindow) >> 40;
      uint64_t off = (addr - kSharedWindow) & ((1ull << 40) - 1);
      static const MemSpace spaces[] = {MemSpace::Shared, MemSpace::Local,
                                        MemSpace::KParam, MemSpace::Const};
      Resolved in = resolve_access(x, spaces[w], off);
      in.generic = true;
      return in;
    }
    sp = MemSpace::Global;
  }
  switch (sp) {
  case MemSpace::Shared: {
    r.space = StateSpace::Shared;
    SharedTarget t;
    if (resolve_shared_cluster(*x.cta, addr, t) && t.cta) {
      r.owner = t.cta->linear;
      r.addr = t.off;
    } else {
      r.owner = x.cta->linear;
      r.addr = addr;
    }
    break;
  }
  case MemSpace::Local:
    r.space = StateSpace::Local;
    r.owner = x.cta->linear;
    r.addr = addr;
    break;
  case MemSpace::KParam:
    r.space = StateSpace::Param;
    r.addr = addr;
    break;
  case MemSpace::Const:
    r.space = StateSpace::Const;
    r.addr = addr;
    break;
  default:
    r.space = StateSpace::Global;
    r.addr = addr;
    break;
  }
  return r;
}

void AccessBatch::emit() {
  if (!on_ || lanes_ == 0)
    return;
  AccessEvent e =
      access_event(x_.pc, x_.cta->linear, x_.warp->index, type_, size_, atom_,
                   order_of(in_), scope_of(in_), AccessOrigin::Instruction, 0);
  e.async_proxy = async_proxy_;
  if (uniform_)
    send(e, first_, lanes_, addr_.data());
  else
    emit_groups(e);
  lanes_ = 0;
  valued_ = 0;
  uniform_ = true;
}

void AccessBatch::send(AccessEvent &e, uint64_t key, uint32_t lanes,
                       const uint64_t *addr) {
  e.lanes = lanes;
  e.space = StateSpace((key >> 1) & 7);
  e.owner = key >> 4;
  e.generic = key & 1;
  e.addr = addr;
  e.values = (lanes & ~valued_) == 0 ? values_.data() : nullptr;
  x_.obs->on_access(e);
}

void AccessBatch::emit_groups(AccessEvent &e) {
  std::array<uint64_t, kWarpSize> addr{};
  uint32_t left = lanes_;
  while (left) {
    const uint64_t key = keys_[std::countr_zero(left)];
    uint32_t group = 0;
    for_lanes(left, [&](uint32_t l) {
      if (keys_[l] == key) {
        group |= 1u << l;
        addr[l] = addr_[l];
      }
    });
    send(e, key, group, addr.data());
    left &= ~group;
  }
}

void observe_one(Exec &x, uint32_t pc, uint64_t cta, uint32_t warp,
                 uint32_t lane, AccessType type, uint32_t size,
                 const Resolved &r, AtomicOp atom, MemOrder order,
                 MemScope scope, AccessOrigin origin, uint64_t async_id) {
  if (!x.obs)
    return;
  std::array<uint64_t, kWarpSize> addr{};
  addr[lane] = r.addr;
  AccessEvent e = access_event(pc, cta, warp, type, size, atom, order, scope,
                               origin, async_id);
  e.lanes = 1u << lane;
  e.space = r.space;
  e.generic = r.generic;
  e.owner = r.owner;
  e.addr = addr.data();
  x.obs->on_access(e);
}

} // namespace bcusim::engine::detail
