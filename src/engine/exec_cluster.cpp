// Cluster instructions (docs/clusters.md): barrier.cluster.arrive / .wait
// (their run-time behaviour is in sync_warp.cpp, Kind::Cluster*),
// mapa and getctarank (distributed shared memory, address map in
// cluster_addr.h), and griddepcontrol (Kind::GridDepWait; launches of one
// `bcusim run` execute in order, see docs/clusters.md "griddepcontrol").
#include <fmt/format.h>

#include "cluster_addr.h"
#include "compile.h"
#include "observe.h"

namespace bcusim::engine::detail {

void ClusterState::reset(const Program &program, uint32_t nctas,
                         uint32_t threads_per_cta) {
  prog = &program;
  ctas.assign(nctas, nullptr);
  phase = 0;
  arrived = 0;
  live = nctas * threads_per_cta;
  pending = live;
  has_arrived.resize(nctas);
  for (auto &v : has_arrived)
    v.assign(threads_per_cta, 0);
}

bool resolve_shared_cluster(const Cta &self, uint64_t addr, SharedTarget &out) {
  const uint64_t rank = addr / kSharedCtaWindow;
  out.off = addr % kSharedCtaWindow;
  if (rank == self.cluster_rank) {
    out.cta = const_cast<Cta *>(&self);
    out.rank = self.cluster_rank;
    return true;
  }
  const ClusterState *cl = self.cluster;
  out.rank = rank > 0xffffffffu ? 0xffffffffu : uint32_t(rank);
  if (!cl || rank >= cl->ctas.size() || !cl->ctas[rank]) {
    out.cta = nullptr;
    return false;
  }
  out.cta = cl->ctas[rank];
  return true;
}

void cluster_complete_phase(ClusterState &cl, Observer *obs) {
  const uint64_t completed = cl.phase++;
  cl.arrived = 0;
  cl.pending = cl.live;
  // Arrivals of the completed phase are now due for their wait.
  for (auto &v : cl.has_arrived)
    for (auto &t : v)
      if (t & ClusterState::kArrived)
        t = ClusterState::kWaitDue;
  const uint64_t first = cl.ctas[0] ? cl.ctas[0]->linear : 0;
  if (obs) {
    ClusterEvent e;
    e.cluster = first;
    e.cta = first;
    e.phase = completed;
    obs->on_cluster_complete(e);
  }
  for (Cta *c : cl.ctas) {
    if (!c)
      continue;
    auto &arr = cl.has_arrived[c->cluster_rank];
    for (auto &w : c->warps)
      for (auto &p : w.paths)
        if (p.state == PathState::BlockedCluster) {
          // The waiters pass: their arrival's phase completed.
          for_lanes(p.mask, [&](uint32_t l) {
            arr[w.index * kWarpSize + l] &= uint8_t(~ClusterState::kWaitDue);
          });
          if (obs) {
            ClusterEvent e;
            e.cta = c->linear;
            e.warp = w.index;
            e.lanes = p.mask;
            e.pc = p.pc;
            e.cluster = first;
            e.phase = completed;
            e.order = MemOrder(cl.prog->code[p.pc].order);
            obs->on_cluster_resume(e);
          }
          p.state = PathState::Ready;
          ++p.pc;
        }
  }
}

void cluster_threads_exited(Cta &c, const Warp &w, uint32_t lanes,
                            Observer *obs) {
  ClusterState *cl = c.cluster;
  if (!cl)
    return;
  auto &arr = cl->has_arrived[c.cluster_rank];
  for_lanes(lanes, [&](uint32_t l) {
    uint32_t t = w.index * kWarpSize + l;
    --cl->live;
    if (!(arr[t] & ClusterState::kArrived))
      --cl->pending;
  });
  // Exited threads are not waited for (PTX: barrier.cluster.wait waits for
  // the non-exited threads); if they were the last ones missing, the phase
  // completes for those that arrived.
  if (cl->pending == 0 && cl->arrived > 0)
    cluster_complete_phase(*cl, obs);
}

namespace {

// The address operand of mapa / getctarank as a .shared::cluster address:
// 32-bit forms use the low 32 bits; generic forms must point into the
// shared window. False (with the error set) otherwise.
bool shared_operand(Exec &x, uint64_t addr, uint8_t width, bool generic,
                    uint32_t lane, const char *what, uint64_t &out) {
  if (width == 4)
    addr &= 0xffffffffu;
  if (generic) {
    if (addr < kSharedWindow || addr - kSharedWindow >= kWindowSize) {
      x.set_error(FaultKind::Cluster, lane,
                  fmt::format("{}: {:#x} is not a generic address of shared "
                              "memory",
                              what, addr));
      return false;
    }
    addr -= kSharedWindow;
  }
  out = addr;
  return true;
}

// mapa: a[0] = d, a[1] = a, a[2] = rank b; flags bit0 = generic (.u64
// without .shared::cluster).
void exec_mapa(Exec &x, const Inst &in, uint32_t m) {
  const auto a = x.reg(in, 1), b = x.reg(in, 2), d = x.reg(in, 0);
  const bool generic = in.flags & 1;
  const uint32_t n = uint32_t(x.launch->cluster.count());
  for_lanes(m, [&](uint32_t l) {
    if (x.faulted)
      return;
    uint64_t addr;
    if (!shared_operand(x, a[l], in.n, generic, l, "mapa", addr))
      return;
    uint32_t rank = uint32_t(b[l]);
    if (rank >= n) {
      x.set_error(FaultKind::Cluster, l,
                  fmt::format("mapa: CTA rank {} is not in the cluster (it has "
                              "{} CTA{})",
                              rank, n, n == 1 ? "" : "s"));
      return;
    }
    uint64_t r = shared_cluster_base(rank) + addr % kSharedCtaWindow;
    d.set(l, generic ? r + kSharedWindow : (in.n == 4 ? r & 0xffffffffu : r));
  });
}

// getctarank: a[0] = d, a[1] = a; flags bit0 = generic.
void exec_getctarank(Exec &x, const Inst &in, uint32_t m) {
  const auto a = x.reg(in, 1), d = x.reg(in, 0);
  const bool generic = in.flags & 1;
  for_lanes(m, [&](uint32_t l) {
    if (x.faulted)
      return;
    uint64_t addr;
    if (!shared_operand(x, a[l], in.n, generic, l, "getctarank", addr))
      return;
    SharedTarget t;
    if (!resolve_shared_cluster(*x.cta, addr, t)) {
      x.set_error(FaultKind::Cluster, l,
                  fmt::format("getctarank: address {:#x} names CTA rank {}, "
                              "which is not in the cluster",
                              addr, t.rank));
      return;
    }
    d.set(l, t.rank);
  });
}

void exec_nop(Exec &, const Inst &, uint32_t) {}

} // namespace

namespace {
void exec_launch_dependents(Exec &x, const Inst &, uint32_t m) {
  if (!x.sync_obs)
    return;
  x.sync_obs->on_griddep_launch(thread_event(x, m));
}
} // namespace

bool compile_cluster(Compiler &c, const ptx::Instruction &in) {
  const ptx::Op op = in.op;
  const auto &o = in.operands;
  if (op == ptx::Op::barrier && !in.mods.empty() &&
      in.mods[0] == ptx::Mod::cluster) {
    // barrier.cluster.arrive{.release|.relaxed}{.aligned},
    // barrier.cluster.wait{.acquire}{.aligned} (seed 002).
    Mods mods(in);
    mods.take(ptx::Mod::cluster);
    bool arrive = mods.take(ptx::Mod::arrive);
    bool wait = !arrive && mods.take(ptx::Mod::wait);
    // Ordering (seed 002): arrive is .release unless .relaxed; wait is
    // .acquire.
    MemOrder order = arrive ? MemOrder::Release : MemOrder::Acquire;
    if (arrive && mods.take_any({ptx::Mod::release, ptx::Mod::relaxed}) ==
                      ptx::Mod::relaxed)
      order = MemOrder::Relaxed;
    else if (wait)
      mods.take(ptx::Mod::acquire);
    bool aligned = mods.take(ptx::Mod::aligned);
    if (!arrive && !wait) {
      c.unsupported("form of barrier.cluster (arrive or wait)");
      return true;
    }
    if (!c.finish(mods) || !c.expect_operands(0))
      return true;
    Inst &i = c.emit_with(&exec_nop, ClusterBarrierOps{aligned},
                          arrive ? Kind::ClusterArrive : Kind::ClusterWait);
    i.order = uint8_t(order);
    i.scope = uint8_t(MemScope::Cluster);
    return true;
  }
  if (op == ptx::Op::mapa || op == ptx::Op::getctarank) {
    // mapa{.shared::cluster}.type d, a, b; getctarank{.shared::cluster}.type
    // d, a; .type = .u32 / .u64.
    Mods mods(in);
    bool cluster_space = mods.take(ptx::Mod::shared_cluster);
    auto t = mods.take_type();
    if (!t || (t->code != Ty::U32 && t->code != Ty::U64 && t->code != Ty::B32 &&
               t->code != Ty::B64)) {
      c.error(in.loc, fmt::format("'{}' needs type .u32 or .u64", in.opcode));
      return true;
    }
    if (!c.finish(mods) || !c.expect_operands(op == ptx::Op::mapa ? 3 : 2))
      return true;
    if (!cluster_space && t->bits() != 64) {
      c.error(in.loc, fmt::format("generic '{}' needs type .u64", in.opcode));
      return true;
    }
    uint32_t a = c.src(o[1], *t);
    uint32_t b = op == ptx::Op::mapa ? c.src(o[2], Ty{Ty::U32}) : kNone;
    uint32_t d = c.dst(o[0]);
    Inst &i = c.emit(op == ptx::Op::mapa ? &exec_mapa : &exec_getctarank);
    i.a[0] = d;
    i.a[1] = a;
    i.a[2] = b;
    i.n = uint8_t(t->bytes());
    i.flags = cluster_space ? 0 : 1;
    return true;
  }
  if (op == ptx::Op::griddepcontrol) {
    Mods mods(in);
    const ptx::Mod action =
        mods.take_any({ptx::Mod::launch_dependents, ptx::Mod::wait});
    if (action == ptx::Mod::unknown) {
      c.unsupported("griddepcontrol action (launch_dependents or wait)");
      return true;
    }
    if (!c.finish(mods) || !c.expect_operands(0))
      return true;
    // launch_dependents: the dependent grid of this engine starts after the
    // primary completed anyway (docs/clusters.md), so it has no effect
    // beyond telling the observer.
    const bool wait = action == ptx::Mod::wait;
    c.emit(wait ? &exec_nop : &exec_launch_dependents,
           wait ? Kind::GridDepWait : Kind::Plain);
    return true;
  }
  return false;
}

} // namespace bcusim::engine::detail
