// Asynchronous copies and fences (docs/mbarrier.md "Asynchronous copies",
// docs/memory-model.md):
// - cp.async.{ca,cg}.shared{::cta}.global (4/8/16 bytes, src-size
//   zero-fill, ignore-src), cp.async.commit_group / wait_group / wait_all,
//   cp.async.mbarrier.arrive{.noinc};
// - cp.async.bulk.{shared::cluster,shared::cta}.{global,shared::cta}
//   .mbarrier::complete_tx::bytes, cp.async.bulk.global.shared::cta
//   .bulk_group, cp.async.bulk.commit_group / wait_group{.read};
// - every fence / membar form of seed 003.
// A copy's addresses are checked when it is issued; the copy itself (and
// the arrive-on / complete_tx it triggers) is queued in the CTA and
// performed when the issuing thread waits for it, or at the latest when the
// issuing warp's turn on the host ends (scheduler.cpp calls flush_async).
#include <algorithm>
#include <fmt/format.h>

#include "compile.h"
#include "mbarrier.h"
#include "observe.h"

namespace bcusim::engine::detail {

namespace {

uint32_t &per_thread(std::vector<uint32_t> &v, const Cta &c, uint32_t t) {
  if (v.size() < c.nthreads)
    v.resize(c.nthreads, 0);
  return v[t];
}

uint64_t slot_or(Exec &x, uint32_t slot, uint32_t lane, uint64_t dflt) {
  return slot == kNone ? dflt : x.reg(slot)[lane];
}

// A shared-memory range of `size` bytes at `addr` (.shared::cta offset, or
// a .shared::cluster address when `cluster`), checked like any access.
uint8_t *shared_range(Exec &x, uint64_t addr, bool cluster, uint32_t size,
                      uint32_t lane, bool write) {
  SharedTarget t{x.cta, addr - x.cta->shared_base};
  if (cluster && !resolve_shared_cluster(x, addr, t)) {
    x.set_fault(FaultKind::OutOfBounds, MemSpace::Shared, addr, size, lane,
                write);
    return nullptr;
  }
  if (t.off >= t.cta->shared.size() || size > t.cta->shared.size() - t.off) {
    x.set_fault(FaultKind::OutOfBounds, MemSpace::Shared, addr, size, lane,
                write);
    return nullptr;
  }
  return t.cta->shared.data() + t.off;
}

bool aligned(Exec &x, MemSpace sp, uint64_t addr, uint32_t align, uint32_t lane,
             bool write) {
  if (addr % align == 0)
    return true;
  x.set_fault(FaultKind::Misaligned, sp, addr, align, lane, write);
  return false;
}

// The next number of an asynchronous operation of thread `t` (AsyncOp::
// async_id, from 1).
uint64_t next_async_id(Cta &c, uint32_t t) {
  auto &v = c.mbar.async_seq;
  if (v.size() < c.nthreads)
    v.resize(c.nthreads, 0);
  return ++v[t];
}

} // namespace

uint64_t async_next_id(Cta &c, uint32_t t) { return next_async_id(c, t); }
uint32_t async_bulk_group(Cta &c, uint32_t t) {
  return per_thread(c.mbar.bulk_groups, c, t);
}

namespace {

// Fills the observer's view of `op`'s source and destination: `global`
// addresses are device addresses, shared ones a CTA and an offset.
void set_global(uint8_t &space, uint64_t &owner, uint64_t &addr, uint64_t a) {
  space = 0;
  owner = 0;
  addr = a;
}
void set_shared(Exec &x, uint8_t &space, uint64_t &owner, uint64_t &addr,
                uint64_t a) {
  SharedTarget t;
  resolve_shared_cluster(*x.cta, a, t);
  space = 1;
  owner = t.cta ? t.cta->linear : x.cta->linear;
  addr = t.off;
}

} // namespace

// Tells the observer that lane `l` issued `op`.
void async_issued(Exec &x, const AsyncOp &op, AsyncKind kind) {
  if (!x.sync_obs)
    return;
  AsyncIssueEvent e;
  e.pc = op.pc;
  e.cta = x.cta->linear;
  e.warp = op.warp;
  e.lanes = 1u << op.lane;
  e.async_id = op.async_id;
  e.what = kind;
  e.group = op.group;
  x.sync_obs->on_async_issue(e);
}

namespace {

void issued(Exec &x, const AsyncOp &op, AsyncKind kind) {
  async_issued(x, op, kind);
}

// Performs a queued copy (and zero-fill); the observer sees its read of the
// source and its write of the destination, made by the async proxy on
// behalf of the issuing thread.
void perform(Exec &x, const Cta &c, const AsyncOp &op) {
  if (op.tma) {
    tma_perform(x, c, op);
    return;
  }
  if (op.copy_bytes)
    std::memmove(op.dst, op.src, op.copy_bytes);
  if (op.size > op.copy_bytes)
    std::memset(op.dst + op.copy_bytes, 0, op.size - op.copy_bytes);
  ++x.progress;
  if (!x.obs || op.what == AsyncOp::What::ArriveOn)
    return;
  AccessOrigin origin = op.what == AsyncOp::What::Copy ? AccessOrigin::AsyncCopy
                                                       : AccessOrigin::BulkCopy;
  auto space = [](uint8_t s) {
    return s ? StateSpace::Shared : StateSpace::Global;
  };
  if (op.copy_bytes)
    observe_one(
        x, op.pc, c.linear, op.warp, op.lane, AccessType::Read, op.copy_bytes,
        Resolved{space(op.src_space), op.src_owner, op.src_addr, false},
        AtomicOp::None, MemOrder::Weak, MemScope::None, origin, op.async_id);
  if (op.size)
    observe_one(
        x, op.pc, c.linear, op.warp, op.lane, AccessType::Write, op.size,
        Resolved{space(op.dst_space), op.dst_owner, op.dst_addr, false},
        AtomicOp::None, MemOrder::Weak, MemScope::None, origin, op.async_id);
}

void completed(Exec &x, const Cta &c, const AsyncOp &op) {
  if (!x.sync_obs)
    return;
  AsyncCompleteEvent e;
  e.pc = op.pc;
  e.cta = c.linear;
  e.warp = op.warp;
  e.lanes = 1u << op.lane;
  e.async_id = op.async_id;
  e.what = op.what == AsyncOp::What::BulkTx      ? AsyncKind::BulkMbarrierTx
           : op.what == AsyncOp::What::BulkGroup ? AsyncKind::BulkGroupCopy
           : op.what == AsyncOp::What::ArriveOn  ? AsyncKind::ArriveOn
                                                 : AsyncKind::Copy;
  e.group = op.group;
  x.sync_obs->on_async_complete(e);
}

std::string text_at(const Exec &x, const Inst &in) {
  return x.prog->code_text[size_t(&in - x.prog->code.data())];
}
uint32_t pc_of(const Exec &x, const Inst &in) {
  return uint32_t(&in - x.prog->code.data());
}

// cp.async (CpAsyncOps).
void exec_cp_async(Exec &x, const Inst &in, uint32_t m) {
  Cta &c = *x.cta;
  const CpAsyncOps &p = x.prog->payload<CpAsyncOps>(in);
  for_lanes(m, [&](uint32_t l) {
    if (x.faulted)
      return;
    uint64_t dst = slot_or(x, p.dst, l, 0) + uint64_t(p.dst_off);
    uint64_t src = slot_or(x, p.src, l, 0) + x.reg(p.src_off)[l];
    uint32_t size = p.size;
    uint64_t src_size = slot_or(x, p.src_size, l, size);
    if (p.ignore_src != kNone && ((x.p[p.ignore_src] >> l) & 1))
      src_size = 0;
    if (src_size > size) {
      x.set_error(FaultKind::Mbarrier, l,
                  fmt::format("cp.async src-size {} exceeds the cp-size {}",
                              src_size, size));
      return;
    }
    if (!aligned(x, MemSpace::Shared, dst, size, l, true) ||
        !aligned(x, MemSpace::Global, src, size, l, false))
      return;
    uint8_t *d = shared_range(x, dst, false, size, l, true);
    if (!d)
      return;
    const uint8_t *s = nullptr;
    if (src_size) {
      s = x.global(src, uint32_t(src_size), false, l);
      if (!s)
        return;
    }
    AsyncOp op;
    op.what = AsyncOp::What::Copy;
    op.dst = d;
    op.src = s;
    op.size = size;
    op.copy_bytes = uint32_t(src_size);
    op.thread = x.thread_of(l);
    op.group = per_thread(c.mbar.cp_groups, c, op.thread);
    op.pc = pc_of(x, in);
    op.warp = x.warp->index;
    op.lane = l;
    op.async_id = next_async_id(c, op.thread);
    set_shared(x, op.dst_space, op.dst_owner, op.dst_addr, dst);
    set_global(op.src_space, op.src_owner, op.src_addr, src);
    issued(x, op, AsyncKind::Copy);
    c.mbar.pending.push_back(op);
  });
}

// Performs the queued operations of `what` of thread t whose group is
// older than `limit` (group < limit).
void wait_groups(Exec &x, Cta &c, AsyncOp::What what, uint32_t t,
                 uint32_t limit) {
  auto &q = c.mbar.pending;
  auto done = [&](const AsyncOp &op) {
    if (op.what != what || op.thread != t || op.group >= limit)
      return false;
    perform(x, c, op);
    completed(x, c, op);
    return true;
  };
  q.erase(std::remove_if(q.begin(), q.end(), done), q.end());
}

// cp.async.commit_group / cp.async.bulk.commit_group (CpGroupOps).
void exec_cp_commit(Exec &x, const Inst &in, uint32_t m) {
  Cta &c = *x.cta;
  const bool bulk = x.prog->payload<CpGroupOps>(in).bulk;
  auto &v = bulk ? c.mbar.bulk_groups : c.mbar.cp_groups;
  for_lanes(m, [&](uint32_t l) {
    uint32_t g = per_thread(v, c, x.thread_of(l))++;
    if (x.sync_obs) {
      auto e = thread_event<AsyncCommitEvent>(x, 1u << l);
      e.bulk = bulk;
      e.group = g;
      x.sync_obs->on_async_commit(e);
    }
  });
}

// cp.async.wait_group N / wait_all / cp.async.bulk.wait_group N
// (CpGroupOps).
void exec_cp_wait(Exec &x, const Inst &in, uint32_t m) {
  Cta &c = *x.cta;
  const CpGroupOps &p = x.prog->payload<CpGroupOps>(in);
  const bool bulk = p.bulk;
  auto &v = bulk ? c.mbar.bulk_groups : c.mbar.cp_groups;
  for_lanes(m, [&](uint32_t l) {
    uint32_t t = x.thread_of(l);
    uint32_t &committed = per_thread(v, c, t);
    if (p.wait_all)
      ++committed;
    uint64_t n = p.keep == kNone ? 0 : x.reg(p.keep)[l];
    uint32_t limit = n >= committed ? 0 : committed - uint32_t(n);
    if (limit)
      wait_groups(x, c, bulk ? AsyncOp::What::BulkGroup : AsyncOp::What::Copy,
                  t, limit);
    if (x.sync_obs) {
      auto e = thread_event<AsyncWaitEvent>(x, 1u << l);
      e.bulk = bulk;
      e.allowed = uint32_t(std::min<uint64_t>(n, 0xffffffffu));
      e.below = limit;
      x.sync_obs->on_async_wait(e);
    }
  });
}

// cp.async.mbarrier.arrive{.noinc} (CpMbarArriveOps).
void exec_cp_mbar_arrive(Exec &x, const Inst &in, uint32_t m) {
  Cta &c = *x.cta;
  const CpMbarArriveOps &p = x.prog->payload<CpMbarArriveOps>(in);
  std::string what = text_at(x, in);
  for_lanes(m, [&](uint32_t l) {
    if (x.faulted)
      return;
    SharedTarget t;
    uint64_t addr = slot_or(x, p.addr, l, 0) + uint64_t(p.addr_off);
    if (!mbar_locate(x, addr, p.space, l, t))
      return;
    // Without .noinc the pending count rises by one now, so that the
    // asynchronous arrive-on leaves the expected arrivals unchanged.
    if (!p.noinc && !mbar_add_pending(x, t, l, what))
      return;
    AsyncOp op;
    op.what = AsyncOp::What::ArriveOn;
    op.thread = x.thread_of(l);
    op.mbar_cta = t.cta;
    op.mbar_off = uint32_t(t.off);
    op.pc = pc_of(x, in);
    op.warp = x.warp->index;
    op.lane = l;
    op.async_id = next_async_id(c, op.thread);
    issued(x, op, AsyncKind::ArriveOn);
    c.mbar.pending.push_back(op);
  });
}

// cp.async.bulk (CpBulkOps).
void exec_cp_bulk(Exec &x, const Inst &in, uint32_t m) {
  Cta &c = *x.cta;
  const CpBulkOps &p = x.prog->payload<CpBulkOps>(in);
  std::string what = text_at(x, in);
  for_lanes(m, [&](uint32_t l) {
    if (x.faulted)
      return;
    uint64_t dst = slot_or(x, p.dst, l, 0) + uint64_t(p.dst_off);
    uint64_t src = slot_or(x, p.src, l, 0) + x.reg(p.src_off)[l];
    uint64_t size = x.reg(p.size)[l];
    const bool dst_global = p.dst_global, src_shared = p.src_shared;
    if (size % 16 != 0 || size >= (1ull << 32)) {
      x.set_error(
          FaultKind::Mbarrier, l,
          fmt::format("'{}': the size {} is not a multiple of 16", what, size));
      return;
    }
    MemSpace dsp = dst_global ? MemSpace::Global : MemSpace::Shared;
    MemSpace ssp = src_shared ? MemSpace::Shared : MemSpace::Global;
    if (!aligned(x, dsp, dst, 16, l, true) ||
        !aligned(x, ssp, src, 16, l, false))
      return;
    uint32_t n = uint32_t(size);
    uint8_t *d = dst_global ? x.global(dst, n, true, l)
                            : shared_range(x, dst, p.dst_cluster, n, l, true);
    if (!d && n)
      return;
    const uint8_t *s = src_shared ? shared_range(x, src, false, n, l, false)
                                  : x.global(src, n, false, l);
    if (!s && n)
      return;
    AsyncOp op;
    op.dst = d;
    op.src = s;
    op.size = op.copy_bytes = n;
    op.thread = x.thread_of(l);
    op.pc = pc_of(x, in);
    op.warp = x.warp->index;
    op.lane = l;
    if (dst_global)
      set_global(op.dst_space, op.dst_owner, op.dst_addr, dst);
    else
      set_shared(x, op.dst_space, op.dst_owner, op.dst_addr, dst);
    if (src_shared)
      set_shared(x, op.src_space, op.src_owner, op.src_addr, src);
    else
      set_global(op.src_space, op.src_owner, op.src_addr, src);
    if (p.mbar_off != kNone) {
      SharedTarget t;
      uint64_t ma = slot_or(x, p.mbar, l, 0) + x.reg(p.mbar_off)[l];
      if (!mbar_locate(
              x, ma, p.dst_cluster ? kAddrSharedCluster : kAddrSharedCta, l, t))
        return;
      op.what = AsyncOp::What::BulkTx;
      op.mbar_cta = t.cta;
      op.mbar_off = uint32_t(t.off);
    } else {
      op.what = AsyncOp::What::BulkGroup;
      op.group = per_thread(c.mbar.bulk_groups, c, op.thread);
    }
    if (p.cta_mask == kNone) {
      op.async_id = next_async_id(c, op.thread);
      issued(x, op,
             op.what == AsyncOp::What::BulkTx ? AsyncKind::BulkMbarrierTx
                                              : AsyncKind::BulkGroupCopy);
      c.mbar.pending.push_back(op);
      return;
    }
    // .multicast::cluster (the ctaMask slot): the same bytes to the
    // same CTA-relative offset of each CTA in the mask, each completing on
    // its own mbarrier at the mbarrier's offset.
    SharedTarget dt;
    resolve_shared_cluster(*x.cta, dst, dt);
    uint32_t mask = uint32_t(x.reg(p.cta_mask)[l]) & 0xffff;
    auto &ctas = c.cluster->ctas;
    std::vector<Cta *> to;
    for (uint32_t r = 0; r < 16; ++r) {
      if (!((mask >> r) & 1))
        continue;
      if (r >= ctas.size() || !ctas[r] || ctas[r]->live_warps == 0) {
        x.set_error(
            FaultKind::Mbarrier, l,
            fmt::format("'{}': ctaMask 0x{:x} names CTA rank {}, "
                        "which is {} the cluster",
                        what, mask, r,
                        r >= ctas.size() ? "not in" : "no longer running in"));
        return;
      }
      if (dt.off + n > ctas[r]->shared.size()) {
        x.set_fault(FaultKind::OutOfBounds, MemSpace::Shared,
                    shared_cluster_base(r) + dt.off, n, l, true);
        return;
      }
      to.push_back(ctas[r]);
    }
    for (Cta *t : to) {
      AsyncOp o = op;
      o.dst = t->shared.data() + dt.off;
      o.dst_space = 1;
      o.dst_owner = t->linear;
      o.dst_addr = dt.off;
      o.mbar_cta = t;
      o.async_id = next_async_id(c, o.thread);
      issued(x, o, AsyncKind::BulkMbarrierTx);
      c.mbar.pending.push_back(o);
    }
  });
}

// An address operand as (base slot, offset slot) for a second address.
bool second_address(Compiler &c, const ptx::Operand &o, MemSpace sp,
                    uint32_t &base, uint32_t &off) {
  Addr a;
  if (!c.address(o, sp, a))
    return false;
  base = a.base;
  off = c.const_slot(uint64_t(a.off));
  return true;
}

bool compile_cp(Compiler &c, const ptx::Instruction &in) {
  const auto &o = in.operands;
  if (in.has_any({ptx::Mod::reduce, ptx::Mod::tensor, ptx::Mod::prefetch}))
    return compile_tma(c, in);
  Mods mods(in);
  if (!mods.take(ptx::Mod::async)) {
    c.unsupported("cp form");
    return true;
  }
  if (in.mods.size() >= 2 && in.mods[1] == ptx::Mod::bulk) {
    mods.take(ptx::Mod::bulk);
    if (mods.take(ptx::Mod::commit_group)) {
      if (!c.finish(mods) || !c.expect_operands(0))
        return true;
      c.emit_with(&exec_cp_commit, CpGroupOps{.bulk = true});
      return true;
    }
    if (mods.take(ptx::Mod::wait_group)) {
      mods.take(ptx::Mod::read); // reads done = copies done here
      if (!c.finish(mods) || !c.expect_operands(1))
        return true;
      uint32_t n = c.src(o[0], Ty{Ty::U32});
      c.emit_with(&exec_cp_wait, CpGroupOps{.bulk = true, .keep = n});
      return true;
    }
    const ptx::Mod dsp = mods.take_any(
        {ptx::Mod::shared_cluster, ptx::Mod::shared_cta, ptx::Mod::global});
    const ptx::Mod ssp =
        mods.take_any({ptx::Mod::global, ptx::Mod::shared_cta});
    bool tx = mods.take(ptx::Mod::mbarrier_complete_tx_bytes);
    bool group = !tx && mods.take(ptx::Mod::bulk_group);
    bool multicast = mods.take(ptx::Mod::multicast_cluster);
    bool hint = mods.take(ptx::Mod::L2_cache_hint); // a hint: no effect
    if (mods.take(ptx::Mod::cp_mask)) {
      c.unsupported("cp.async.bulk qualifier (.cp_mask)");
      return true;
    }
    if (!c.finish(mods))
      return true;
    bool ok =
        (tx && dsp != ptx::Mod::global && dsp != ptx::Mod::unknown &&
         (ssp == ptx::Mod::global ||
          (ssp == ptx::Mod::shared_cta && dsp == ptx::Mod::shared_cluster))) ||
        (group && dsp == ptx::Mod::global && ssp == ptx::Mod::shared_cta);
    if (!ok) {
      c.unsupported("cp.async.bulk combination of state spaces and "
                    "completion mechanism");
      return true;
    }
    if (multicast &&
        !(tx && dsp == ptx::Mod::shared_cluster && ssp == ptx::Mod::global)) {
      c.unsupported("cp.async.bulk.multicast::cluster other than "
                    ".shared::cluster.global.mbarrier::complete_tx::bytes");
      return true;
    }
    if (!c.expect_operands((tx ? 4 : 3) + (multicast ? 1 : 0) + (hint ? 1 : 0)))
      return true;
    Addr d;
    if (!c.address(
            o[0], dsp == ptx::Mod::global ? MemSpace::Global : MemSpace::Shared,
            d))
      return true;
    uint32_t sbase, soff;
    if (!second_address(c, o[1],
                        ssp == ptx::Mod::global ? MemSpace::Global
                                                : MemSpace::Shared,
                        sbase, soff))
      return true;
    uint32_t size = c.src(o[2], Ty{Ty::U32});
    uint32_t mbase = kNone, moff = kNone;
    if (tx && !second_address(c, o[3], MemSpace::Shared, mbase, moff))
      return true;
    CpBulkOps p;
    p.dst = d.base;
    p.dst_off = d.off;
    p.src = sbase;
    p.src_off = soff;
    p.size = size;
    p.mbar = mbase;
    p.mbar_off = moff;
    p.dst_cluster = dsp == ptx::Mod::shared_cluster;
    p.dst_global = dsp == ptx::Mod::global;
    p.src_shared = ssp == ptx::Mod::shared_cta;
    p.cta_mask = multicast ? c.src(o[4], Ty{Ty::U16}) : kNone;
    c.emit_with(&exec_cp_bulk, p);
    return true;
  }
  if (mods.take(ptx::Mod::commit_group)) {
    if (!c.finish(mods) || !c.expect_operands(0))
      return true;
    c.emit_with(&exec_cp_commit, CpGroupOps{});
    return true;
  }
  if (mods.take(ptx::Mod::wait_group) || mods.take(ptx::Mod::wait_all)) {
    bool all = in.mods.size() >= 2 && in.mods[1] == ptx::Mod::wait_all;
    if (!c.finish(mods) || !c.expect_operands(all ? 0 : 1))
      return true;
    uint32_t n = all ? kNone : c.src(o[0], Ty{Ty::U32});
    c.emit_with(&exec_cp_wait, CpGroupOps{.wait_all = all, .keep = n});
    return true;
  }
  if (mods.take(ptx::Mod::mbarrier)) {
    if (!mods.take(ptx::Mod::arrive)) {
      c.unsupported("cp.async.mbarrier form");
      return true;
    }
    bool noinc = mods.take(ptx::Mod::noinc);
    const ptx::Mod sp = mods.take_any({ptx::Mod::shared, ptx::Mod::shared_cta});
    if (!mods.take(ptx::Mod::b64)) {
      c.error(in.loc, fmt::format("'{}' needs the .b64 type", c.text_of(in)));
      return true;
    }
    if (!c.finish(mods) || !c.expect_operands(1))
      return true;
    Addr a;
    if (!c.address(
            o[0],
            sp == ptx::Mod::unknown ? MemSpace::Generic : MemSpace::Shared, a))
      return true;
    CpMbarArriveOps p;
    p.addr = a.base;
    p.addr_off = a.off;
    p.space = sp == ptx::Mod::unknown ? kAddrGeneric : kAddrSharedCta;
    p.noinc = noinc;
    c.emit_with(&exec_cp_mbar_arrive, p);
    return true;
  }
  const ptx::Mod cache = mods.take_any({ptx::Mod::ca, ptx::Mod::cg});
  if (cache == ptx::Mod::unknown) {
    c.unsupported("cp.async form");
    return true;
  }
  mods.take_any({ptx::Mod::shared, ptx::Mod::shared_cta});
  if (!mods.take(ptx::Mod::global)) {
    c.unsupported("cp.async form (source must be .global)");
    return true;
  }
  mods.take_any({ptx::Mod::L2_64B, ptx::Mod::L2_128B, ptx::Mod::L2_256B});
  if (mods.take(ptx::Mod::L2_cache_hint)) {
    c.unsupported(".L2::cache_hint");
    return true;
  }
  if (!c.finish(mods))
    return true;
  if (o.size() < 3 || o.size() > 4) {
    c.error(in.loc, fmt::format("'{}' expects 3 or 4 operands, got {}",
                                c.text_of(in), o.size()));
    return true;
  }
  if (o[2].kind != ptx::Operand::Kind::Imm ||
      !(o[2].ival == 4 || o[2].ival == 8 || o[2].ival == 16) ||
      (cache == ptx::Mod::cg && o[2].ival != 16)) {
    c.error(o[2].loc, cache == ptx::Mod::cg
                          ? "cp.async.cg copies 16 bytes (cp-size must be 16)"
                          : "cp-size must be the constant 4, 8 or 16");
    return true;
  }
  Addr d;
  if (!c.address(o[0], MemSpace::Shared, d))
    return true;
  uint32_t sbase, soff;
  if (!second_address(c, o[1], MemSpace::Global, sbase, soff))
    return true;
  uint32_t src_size = kNone, ignore = kNone;
  if (o.size() == 4) {
    if (c.is_pred_operand(o[3]))
      ignore = c.psrc(o[3]);
    else
      src_size = c.src(o[3], Ty{Ty::U32});
  }
  CpAsyncOps p;
  p.dst = d.base;
  p.dst_off = d.off;
  p.src = sbase;
  p.src_off = soff;
  p.size = uint32_t(o[2].ival);
  p.src_size = src_size;
  p.ignore_src = ignore;
  c.emit_with(&exec_cp_async, p);
  return true;
}

// fence / membar (seed 003): the engine performs every memory access of a
// CTA in one total order and async copies complete before their completion
// is observable (docs/memory-model.md), so a fence has nothing to do; its
// semantics and scope go to the observer (the race checker builds the PTX
// release/acquire patterns from them), with FenceOps.
void exec_fence(Exec &x, const Inst &in, uint32_t m) {
  if (!x.sync_obs)
    return;
  const FenceOps &p = x.prog->payload<FenceOps>(in);
  auto e = thread_event<FenceEvent>(x, m);
  e.order = order_of(in);
  e.scope = scope_of(in);
  e.proxy = p.proxy;
  e.mbarrier_init = p.mbarrier_init;
  e.sync_restrict = p.sync_restrict;
  x.sync_obs->on_fence(e);
}

MemScope scope_named(ptx::Mod s) {
  switch (s) {
  case ptx::Mod::cta:
    return MemScope::Cta;
  case ptx::Mod::cluster:
    return MemScope::Cluster;
  case ptx::Mod::gpu:
    return MemScope::Gpu;
  case ptx::Mod::sys:
    return MemScope::Sys;
  default:
    return MemScope::None;
  }
}

ptx::Mod take_scope(Mods &mods) {
  return mods.take_any(
      {ptx::Mod::cta, ptx::Mod::cluster, ptx::Mod::gpu, ptx::Mod::sys});
}

MemOrder order_named(ptx::Mod s, MemOrder dflt) {
  switch (s) {
  case ptx::Mod::sc:
    return MemOrder::Sc;
  case ptx::Mod::acq_rel:
    return MemOrder::AcqRel;
  case ptx::Mod::acquire:
    return MemOrder::Acquire;
  case ptx::Mod::release:
    return MemOrder::Release;
  default:
    return dflt;
  }
}

bool compile_fence(Compiler &c, const ptx::Instruction &in) {
  Mods mods(in);
  bool membar = in.op == ptx::Op::membar;
  bool proxy = mods.take(ptx::Mod::proxy);
  bool tensormap = false;
  FenceOps p;
  p.proxy = proxy;
  // fence without .sem is .acq_rel; membar is fence.sc (seed 003: "On
  // sm_70 and higher membar is a synonym for fence.sc", levels cta, gl,
  // sys = scopes cta, gpu, sys).
  MemOrder order = membar ? MemOrder::Sc : MemOrder::AcqRel;
  MemScope scope = MemScope::None;
  if (proxy) {
    const ptx::Mod kind =
        mods.take_any({ptx::Mod::alias, ptx::Mod::async,
                       ptx::Mod::async_generic, ptx::Mod::tensormap_generic});
    if (kind == ptx::Mod::unknown) {
      c.error(in.loc, fmt::format("'{}' needs a proxy kind (.alias, .async, "
                                  "...)",
                                  c.text_of(in)));
      return true;
    }
    tensormap = kind == ptx::Mod::tensormap_generic;
    if (kind == ptx::Mod::async)
      mods.take_any(
          {ptx::Mod::global, ptx::Mod::shared_cta, ptx::Mod::shared_cluster});
    if (kind == ptx::Mod::async_generic || tensormap) {
      order = order_named(mods.take_any({ptx::Mod::acquire, ptx::Mod::release}),
                          order);
      if (mods.take_any({ptx::Mod::sync_restrict_shared_cluster,
                         ptx::Mod::sync_restrict_shared_cta}) !=
          ptx::Mod::unknown)
        p.sync_restrict = true;
      scope = scope_named(take_scope(mods));
    }
  } else if (membar) {
    const ptx::Mod level =
        mods.take_any({ptx::Mod::cta, ptx::Mod::gl, ptx::Mod::sys});
    if (level == ptx::Mod::unknown) {
      c.error(in.loc, fmt::format("'{}' needs a level (.cta, .gl or .sys)",
                                  c.text_of(in)));
      return true;
    }
    scope = level == ptx::Mod::cta  ? MemScope::Cta
            : level == ptx::Mod::gl ? MemScope::Gpu
                                    : MemScope::Sys;
  } else {
    if (mods.take(ptx::Mod::mbarrier_init))
      p.mbarrier_init = true;
    order = order_named(mods.take_any({ptx::Mod::sc, ptx::Mod::acq_rel,
                                       ptx::Mod::acquire, ptx::Mod::release}),
                        order);
    if (mods.take_any({ptx::Mod::sync_restrict_shared_cluster,
                       ptx::Mod::sync_restrict_shared_cta}) !=
        ptx::Mod::unknown)
      p.sync_restrict = true;
    scope = scope_named(take_scope(mods));
  }
  if (!c.finish(mods))
    return true;
  if (!(tensormap && in.operands.size() == 2) && !c.expect_operands(0))
    return true;
  Inst &i = c.emit_with(&exec_fence, p);
  i.order = uint8_t(order);
  i.scope = uint8_t(scope);
  return true;
}

} // namespace

bool compile_async(Compiler &c, const ptx::Instruction &in) {
  if (in.op == ptx::Op::cp)
    return compile_cp(c, in);
  if (in.op == ptx::Op::fence || in.op == ptx::Op::membar)
    return compile_fence(c, in);
  if (in.op == ptx::Op::tensormap)
    return compile_tensormap(c, in);
  return false;
}

bool flush_async(Exec &x, Cta &c, uint32_t &warp, uint32_t &pc) {
  auto &q = c.mbar.pending;
  Cta *saved = x.cta;
  x.cta = &c;
  bool ok = true;
  // Operations may queue nothing new while being performed, so one pass in
  // issue order suffices.
  for (size_t k = 0; k < q.size() && ok; ++k) {
    const AsyncOp &op = q[k];
    perform(x, c, op);
    completed(x, c, op);
    if (op.what != AsyncOp::What::ArriveOn && op.what != AsyncOp::What::BulkTx)
      continue;
    SharedTarget t{op.mbar_cta, op.mbar_off};
    const std::string &what = x.prog->code_text[op.pc];
    if (op.what == AsyncOp::What::ArriveOn) {
      MbarArrival a; // .release.cta (the copies' writes become visible)
      a.async = &op;
      ok = mbar_arrive(x, t, a, op.lane, what, nullptr);
    } else {
      ok = mbar_complete_tx(x, t, op.size, op.lane, what, &op);
    }
    if (!ok) {
      warp = op.warp;
      pc = op.pc;
    }
  }
  q.clear();
  x.cta = saved;
  return ok;
}

} // namespace bcusim::engine::detail
