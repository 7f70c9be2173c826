// Happens-before from synchronization (docs/checker.md "Ordering rules"):
// each synchronization event of the engine becomes releases (what a thread
// publishes, after which its clock advances) and acquires (what it learns).
//   CTA barrier        arrive releases into the phase (and is an acquire
//                      fence of the arriving thread); completion makes the
//                      phase's knowledge available; a waiting thread that
//                      resumes acquires it. Only the warps that took part.
//   warp-level sync    bar.warp.sync and *.sync collectives: all-to-all
//                      among the member lanes that took part.
//   barrier.cluster    as CTA barriers, over the cluster (.release/.relaxed
//                      arrive, .acquire wait).
//   mbarrier           arrive (.release) -> phase completion -> successful
//                      test_wait/try_wait (.acquire); a completed transaction
//                      of a bulk copy releases the copy's writes.
//   async copies       a copy knows what its thread knew when it issued it;
//                      cp.async.wait_group / wait_all acquire the copies of
//                      the groups it waits for.
//   fences             a release fence's knowledge is what later relaxed
//                      strong writes publish; an acquire fence takes what
//                      earlier relaxed strong reads observed.
//   memory             st.release / atom.release / red.release publish to the
//                      location, ld.acquire / atom.acquire take it, within
//                      the scopes of both (strong_access).
#include <algorithm>

#include "report.h"

namespace bcusim::check::detail {

namespace {

uint64_t snap_key(Tid agent, uint64_t id) {
  return uint64_t(agent) << 32 ^ (id & 0xffffffffu);
}

ThreadSt &thread_at(CtaSt &c, uint32_t warp, uint32_t lane) {
  return c.threads[warp * 32 + lane];
}

uint32_t live_lanes(const CtaSt &c, uint32_t warp) {
  return c.valid[warp] & ~c.exited[warp];
}

template <class F> void each_lane(uint32_t m, F &&f) {
  for (; m; m &= m - 1)
    f(uint32_t(std::countr_zero(m)));
}

// Whether `lanes` of the warp whose threads start at `ts` all hold the
// knowledge object `first` (a full warp: one pass without branches).
bool lanes_hold(const ThreadSt *ts, uint32_t lanes, const VcData *first) {
  uintptr_t d = 0;
  if (lanes == ~0u) {
#pragma GCC unroll 8
    for (uint32_t l = 0; l < 32; ++l)
      d |= uintptr_t(ts[l].vc.get()) ^ uintptr_t(first);
  } else {
    each_lane(lanes, [&](uint32_t l) {
      d |= uintptr_t(ts[l].vc.get()) ^ uintptr_t(first);
    });
  }
  return !d;
}

// Lanes acquiring one knowledge object share the result of the join when
// they shared their knowledge before (the common case), also when they
// acquire it in different events (CtaSt::acquire_memo).
void acquire_lanes(CtaSt &c, uint32_t warp, uint32_t lanes, const Vc &v) {
  if (!v || !lanes)
    return;
  auto &m = c.acquire_memo;
  // Lanes that hold one object (a warp resuming from a barrier, the common
  // case): one join (or the memo's result), and the lanes' handles moved
  // to it with one update of each count.
  ThreadSt *const ts = c.threads.data() + size_t(warp) * 32;
  const uint32_t f = uint32_t(std::countr_zero(lanes));
  const VcData *const first = ts[f].vc.get();
  if (lanes_hold(ts, lanes, first)) {
    if (!(m.src == v && m.in.get() == first)) {
      m.in = ts[f].vc;
      m.src = v;
      Vc out = ts[f].vc;
      join_into(out, v);
      m.out = std::move(out);
    }
    Vc::reseat(lanes, first, m.out,
               [&](uint32_t l) -> Vc & { return ts[l].vc; });
    return;
  }
  VcFill fill;
  each_lane(lanes, [&](uint32_t l) {
    ThreadSt &t = thread_at(c, warp, l);
    if (m.src == v && t.vc == m.in) {
      fill.set(t.vc, m.out);
      return;
    }
    fill.flush();
    m.in = t.vc;
    m.src = v;
    join_into(t.vc, v);
    m.out = t.vc;
  });
}

// An acquire fence of `lanes`: what their relaxed strong reads observed
// becomes knowledge (lanes that knew and observed the same share the
// result).
void take_pending(CtaSt &c, uint32_t warp, uint32_t lanes) {
  lanes &= c.pending_lanes[warp];
  if (!lanes)
    return;
  c.pending_lanes[warp] &= ~lanes;
  const VcData *in_vc = nullptr, *in_p = nullptr;
  Vc out;
  VcFill fill;
  each_lane(lanes, [&](uint32_t l) {
    ThreadSt &t = thread_at(c, warp, l);
    if (!t.pending)
      return;
    if (out && t.vc.get() == in_vc && t.pending.get() == in_p) {
      fill.set(t.vc, out);
    } else {
      fill.flush();
      in_vc = t.vc.get();
      in_p = t.pending.get();
      join_into(t.vc, t.pending);
      out = t.vc;
    }
    t.pending = nullptr;
  });
}

void pending_lanes(CtaSt &c, uint32_t warp, uint32_t lanes, const Vc &v) {
  if (!v)
    return;
  c.pending_lanes[warp] |= lanes;
  each_lane(lanes,
            [&](uint32_t l) { join_into(thread_at(c, warp, l).pending, v); });
}

// Releases of `lanes` of `warp` for an operation with ordering `order`:
// a release publishes the lanes' knowledge, a relaxed one what their
// latest release fences published.
Vc release_by_order(LaunchSt &L, CtaSt &c, uint32_t warp, uint32_t lanes,
                    MemOrder order) {
  if (order == MemOrder::Release || order == MemOrder::AcqRel ||
      order == MemOrder::Sc)
    return materialize(release_warp(L, c, warp, lanes));
  Vc r;
  const Released *last = nullptr;
  each_lane(lanes, [&](uint32_t l) {
    MemScope fs;
    const Released &f = c.fence_of(warp, l, fs);
    if (last && f == *last)
      return;
    last = &f;
    join_into(r, f);
  });
  return r;
}

bool is_acquire(MemOrder o) {
  return o == MemOrder::Acquire || o == MemOrder::AcqRel || o == MemOrder::Sc;
}
bool is_release(MemOrder o) {
  return o == MemOrder::Release || o == MemOrder::AcqRel || o == MemOrder::Sc;
}

MbarSt *mbar_of(LaunchSt &L, const engine::MbarEvent &e) {
  CtaSt *owner = L.cta(e.object_owner);
  if (!owner)
    return nullptr;
  return &owner->mbars[e.object_offset];
}

// The knowledge of the async operation `id` of `agent`, which also knows
// its own operations up to `id`.
Vc agent_knowledge(LaunchSt &L, Tid agent, uint64_t id, bool erase) {
  auto it = L.async_snap.find(snap_key(agent, id));
  VcBuilder b;
  if (it != L.async_snap.end()) {
    b.add(it->second.vc);
    if (erase)
      L.async_snap.erase(it);
  }
  b.thread(agent, uint32_t(id));
  return b.build();
}

} // namespace

uint64_t LaunchSt::cluster_of(uint64_t linear) const {
  if (cluster_dims.count() <= 1)
    return linear;
  Dim3 id{uint32_t(linear % grid.x), uint32_t(linear / grid.x % grid.y),
          uint32_t(linear / (uint64_t(grid.x) * grid.y))};
  Dim3 first{id.x / cluster_dims.x * cluster_dims.x,
             id.y / cluster_dims.y * cluster_dims.y,
             id.z / cluster_dims.z * cluster_dims.z};
  return first.x + uint64_t(first.y) * grid.x +
         uint64_t(first.z) * grid.x * grid.y;
}

void cta_begin(LaunchSt &L, uint64_t linear, uint64_t cluster) {
  // A retired CTA's state is reused: its memory is still allocated and
  // mostly in the cache.
  std::unique_ptr<CtaSt> c;
  if (!L.pool.empty()) {
    c = std::move(L.pool.back());
    L.pool.pop_back();
    // The lanes of a warp mostly hold one knowledge object: dropped with
    // one update of its count.
    for (size_t w = 0; w + 32 <= c->threads.size(); w += 32) {
      ThreadSt *const ts = c->threads.data() + w;
      const VcData *const f = ts[0].vc.get();
      if (f && lanes_hold(ts, ~0u, f))
        Vc::reseat(~0u, f, Vc(), [&](uint32_t l) -> Vc & { return ts[l].vc; });
    }
    c->threads.assign(c->threads.size(), ThreadSt{});
    std::fill(c->bars.begin(), c->bars.end(), BarrierSt{});
    c->mbars.clear();
    c->divergence_reported = false;
  } else {
    c = std::make_unique<CtaSt>();
  }
  c->linear = linear;
  c->cluster = cluster;
  c->threads.resize(size_t(L.wpc) * 32);
  c->clock.assign(size_t(L.wpc) * 32, 1);
  c->valid.resize(L.wpc);
  c->exited.assign(L.wpc, 0);
  c->fences.assign(L.wpc, WarpFence{});
  if (c->lane_fences_used || c->lane_fences.size() != size_t(L.wpc) * 32)
    c->lane_fences.assign(size_t(L.wpc) * 32, LaneFence{});
  c->lane_fences_used = false;
  c->pending_lanes.assign(L.wpc, 0);
  c->same_gen.assign(L.wpc, 0);
  c->same_lanes.assign(L.wpc, 0);
  c->dead_floor.assign(L.wpc, 0);
  c->rlog.reset();
  c->exit_pc.assign(size_t(L.wpc) * 32, ~0u);
  for (uint32_t w = 0; w < L.wpc; ++w) {
    uint32_t rem = L.tpc - w * 32;
    c->valid[w] = rem >= 32 ? 0xffffffffu : ((1u << rem) - 1);
  }
  if (L.checks.race && L.race_on) {
    L.release_shadow(c->shadow);
    c->shadow.assign((L.shared_bytes + 7) / 8, Granule{});
  }
  if (L.checks.init) {
    c->shared_init.assign((L.shared_bytes + 7) / 8, 0);
    // The reserved region starts out zeroed by the launch (as the driver
    // does): initialized.
    c->shared_unset = L.shared_bytes;
    uint64_t b = L.reserved.first;
    const uint64_t end = std::min<uint64_t>(
        uint64_t(L.reserved.first) + L.reserved.second, L.shared_bytes);
    for (; b < end && b % 8; ++b, --c->shared_unset)
      c->shared_init[b / 8] |= uint8_t(1u << (b % 8));
    for (; b + 8 <= end; b += 8, c->shared_unset -= 8)
      c->shared_init[b / 8] = 0xff;
    for (; b < end; ++b, --c->shared_unset)
      c->shared_init[b / 8] |= uint8_t(1u << (b % 8));
    c->local_init.assign((uint64_t(L.local_bytes) * L.wpc * 32 + 7) / 8, 0);
  }
  L.ctas[linear] = std::move(c);
  L.ctas_changed();
}

void LaunchSt::release_shadow(std::vector<Granule> &shadow) {
  for (Granule &g : shadow) {
    if (g.spill) {
      spill[g.spill - 1].reads.clear();
      spill[g.spill - 1].writes.clear();
      spill[g.spill - 1].groups.clear();
      spill[g.spill - 1].strong_reads.clear();
      spill_free.push_back(g.spill);
    }
    for (uint32_t i = g.sync; i;) {
      SyncLoc &l = sync_at(i);
      const uint32_t next = l.next;
      l.clear();
      l.next = 0;
      sync_free.push_back(i);
      i = next;
    }
  }
}

Vc release_of(LaunchSt &L, CtaSt &c, uint32_t i) {
  ThreadSt &t = c.threads[i];
  Tid tid = L.tid_of(c.linear, i / 32, i % 32);
  Vc r = t.vc;
  if (t.own_floor)
    floor_into(r, warp_key(tid), t.own_floor);
  thread_into(r, tid, c.clock[i]);
  ++c.clock[i];
  return r;
}

Released release_warp(LaunchSt &L, CtaSt &c, uint32_t warp, uint32_t lanes) {
  const uint32_t live = live_lanes(c, warp);
  const VcData *last = nullptr;
  if (lanes == live && live) {
    // The whole warp: one floor for every lane, whose clocks are aligned
    // past it (exited lanes' last clocks included).
    uint32_t m = 0;
    uint32_t *const clk = c.clock.data() + size_t(warp) * 32;
    const ThreadSt *const ts = c.threads.data() + size_t(warp) * 32;
    // Whether every lane holds the same knowledge object.
    const bool shared =
        lanes_hold(ts, lanes, ts[std::countr_zero(lanes)].vc.get());
    if (c.valid[warp] == ~0u && lanes == ~0u) {
      // A full warp (the common case): loops the compiler vectorizes.
      for (uint32_t l = 0; l < 32; ++l)
        m = std::max(m, clk[l]);
      for (uint32_t l = 0; l < 32; ++l)
        clk[l] = m + 1;
    } else {
      each_lane(c.valid[warp], [&](uint32_t l) { m = std::max(m, clk[l]); });
      each_lane(lanes, [&](uint32_t l) { clk[l] = m + 1; });
    }
    const uint32_t wk = warp_key(L.tid_of(c.linear, warp, 0));
    // The common case (a warp that went through its synchronization
    // together): that object and the warp's raised floor, no copy (the
    // cost of a fence.sc per access stays constant).
    if (shared)
      return Released{thread_at(c, warp, std::countr_zero(lanes)).vc, wk,
                      m + 1};
    // Lanes that know different things (a CTA's thread 0 that acquired a
    // grid sync's knowledge alone): their knowledge joined, without a sort
    // of all of it.
    Vc acc;
    each_lane(lanes, [&](uint32_t l) {
      ThreadSt &t = thread_at(c, warp, l);
      if (t.vc.get() != last) {
        join_into(acc, t.vc);
        last = t.vc.get();
      }
    });
    return Released{std::move(acc), wk, m + 1};
  }
  // Single lanes or part of a warp: their knowledge joined, plus an entry
  // per lane, built in place on one copy (no sort of the whole knowledge:
  // a CTA's thread 0 that releases grid-wide knowledge at a grid sync).
  Vc acc;
  each_lane(lanes, [&](uint32_t l) {
    ThreadSt &t = thread_at(c, warp, l);
    Tid tid = L.tid_of(c.linear, warp, l);
    if (t.vc.get() != last) {
      join_into(acc, t.vc);
      last = t.vc.get();
    }
    if (t.own_floor)
      floor_into(acc, warp_key(tid), t.own_floor);
    thread_into(acc, tid, c.clock[warp * 32 + l]);
    ++c.clock[warp * 32 + l];
  });
  return Released{std::move(acc)};
}

// Joins what `lanes` of `warp` release into `acc`: release_warp's result,
// without a new object per event where the lanes release apart (an
// mbarrier's arrivals, one lane at a time): their entries go into `acc`
// in place (thread_into, which turns a warp whose lanes all arrived into
// its floor).
void release_into(LaunchSt &L, CtaSt &c, uint32_t warp, uint32_t lanes,
                  Vc &acc) {
  const uint32_t live = live_lanes(c, warp);
  if (lanes == live && live) {
    join_into(acc, release_warp(L, c, warp, lanes));
    return;
  }
  const VcData *last = nullptr;
  each_lane(lanes, [&](uint32_t l) {
    ThreadSt &t = thread_at(c, warp, l);
    Tid tid = L.tid_of(c.linear, warp, l);
    if (t.vc.get() != last) {
      join_into(acc, t.vc);
      last = t.vc.get();
    }
    if (t.own_floor)
      floor_into(acc, warp_key(tid), t.own_floor);
    thread_into(acc, tid, c.clock[warp * 32 + l]);
    ++c.clock[warp * 32 + l];
  });
}

void acquire(ThreadSt &t, const Vc &v) { t.vc = join(t.vc, v); }

void hb_thread_exit(CtaSt &c, const engine::ThreadEvent &e) {
  c.exited[e.warp] |= e.lanes;
  uint32_t *const pcs = c.exit_pc.data() + size_t(e.warp) * 32;
  if (e.lanes == ~0u) {
    std::fill_n(pcs, 32, e.pc); // a whole warp (a loop without branches)
    return;
  }
  each_lane(e.lanes, [&](uint32_t l) { pcs[l] = e.pc; });
}

void hb_barrier_arrive(LaunchSt &L, CtaSt &c,
                       const engine::BarrierArriveEvent &e) {
  // A CTA barrier is also an acquire fence of each arriving thread: what
  // its earlier strong reads observed (a relaxed atomic on a flag that
  // another CTA released with a fence) becomes its knowledge and travels
  // through the barrier (docs/checker.md "Ordering rules": the
  // __threadfence() "last block" reduction).
  take_pending(c, e.warp, e.lanes);
  BarrierSt &b = c.bars[unsigned(e.barrier) & 15];
  release_into(L, c, e.warp, e.lanes, b.acc);
}

void hb_barrier_complete(CtaSt &c, const engine::BarrierCompleteEvent &e) {
  BarrierSt &b = c.bars[unsigned(e.barrier) & 15];
  b.completed = b.acc;
  b.acc = nullptr;
}

void hb_barrier_resume(CtaSt &c, const engine::BarrierResumeEvent &e) {
  acquire_lanes(c, e.warp, e.lanes, c.bars[unsigned(e.barrier) & 15].completed);
}

void hb_warp_sync(LaunchSt &L, CtaSt &c, const engine::WarpSyncEvent &e) {
  const uint32_t live = live_lanes(c, e.warp);
  if (e.lanes == ~0u && c.valid[e.warp] == ~0u && !c.exited[e.warp]) {
    // A full warp holding one knowledge object (a shuffle after a
    // barrier): only its floor and clocks move, in loops the compiler
    // vectorizes.
    ThreadSt *const ts = c.threads.data() + size_t(e.warp) * 32;
    uint32_t *const clk = c.clock.data() + size_t(e.warp) * 32;
    if (lanes_hold(ts, ~0u, ts[0].vc.get())) {
      uint32_t m = 0;
      for (uint32_t l = 0; l < 32; ++l)
        m = std::max(m, clk[l]);
      for (uint32_t l = 0; l < 32; ++l) {
        ts[l].own_floor = m + 1;
        clk[l] = m + 1;
      }
      return;
    }
  }
  if (e.lanes == live) {
    uint32_t m = 0;
    each_lane(c.valid[e.warp],
              [&](uint32_t l) { m = std::max(m, c.clock[e.warp * 32 + l]); });
    // Lanes that shared one knowledge object keep it; only their floor
    // and clocks move.
    Vc joined = thread_at(c, e.warp, std::countr_zero(e.lanes)).vc;
    const VcData *last = joined.get();
    each_lane(e.lanes, [&](uint32_t l) {
      const Vc &v = thread_at(c, e.warp, l).vc;
      if (v.get() != last) {
        joined = join(joined, v);
        last = v.get();
      }
    });
    each_lane(e.lanes, [&](uint32_t l) {
      ThreadSt &t = thread_at(c, e.warp, l);
      t.vc = joined;
      t.own_floor = m + 1;
      c.clock[e.warp * 32 + l] = m + 1;
    });
  } else {
    Vc s = materialize(release_warp(L, c, e.warp, e.lanes));
    acquire_lanes(c, e.warp, e.lanes, s);
  }
}

void hb_cluster_arrive(LaunchSt &L, CtaSt &c, const engine::ClusterEvent &e) {
  ClusterSt &cl = L.clusters[e.cluster];
  join_into(cl.acc, release_by_order(L, c, e.warp, e.lanes, e.order));
}

void hb_cluster_complete(LaunchSt &L, const engine::ClusterEvent &e) {
  ClusterSt &cl = L.clusters[e.cluster];
  cl.completed = cl.acc;
  cl.acc = nullptr;
}

void hb_cluster_resume(LaunchSt &L, CtaSt &c, const engine::ClusterEvent &e) {
  const Vc &v = L.clusters[e.cluster].completed;
  if (is_acquire(e.order))
    acquire_lanes(c, e.warp, e.lanes, v);
  else
    pending_lanes(c, e.warp, e.lanes, v);
}

void hb_mbar_init(LaunchSt &L, const engine::MbarEvent &e) {
  if (MbarSt *m = mbar_of(L, e)) {
    m->acc.clear();
    m->completed.clear();
  }
}

void hb_mbar_arrive(LaunchSt &L, CtaSt &c, const engine::MbarEvent &e) {
  MbarSt *m = mbar_of(L, e);
  if (!m)
    return;
  Vc s;
  if (e.async_id) {
    Tid agent = kAgentCp | L.tid_of(e.cta, e.warp, std::countr_zero(e.lanes));
    s = agent_knowledge(L, agent, e.async_id, true);
  } else if (is_release(e.order) &&
             !(e.scope == MemScope::Cta && e.cta != e.object_owner)) {
    release_into(L, c, e.warp, e.lanes, m->acc[e.phase]);
    return;
  } else {
    s = release_by_order(L, c, e.warp, e.lanes, e.order);
  }
  // A .cta-scoped arrive on another CTA's object orders nothing there.
  if (e.scope == MemScope::Cta && e.cta != e.object_owner)
    s = nullptr;
  m->acc[e.phase] = join(m->acc[e.phase], s);
}

void hb_mbar_complete_tx(LaunchSt &L, const engine::MbarEvent &e) {
  MbarSt *m = mbar_of(L, e);
  if (!m || !e.async_id)
    return;
  Tid agent = kAgentBulk | L.tid_of(e.cta, e.warp, std::countr_zero(e.lanes));
  m->acc[e.phase] =
      join(m->acc[e.phase], agent_knowledge(L, agent, e.async_id, true));
}

void hb_mbar_phase_complete(LaunchSt &L, const engine::MbarEvent &e) {
  MbarSt *m = mbar_of(L, e);
  if (!m)
    return;
  auto it = m->acc.find(e.phase);
  m->completed[e.phase] = it == m->acc.end() ? nullptr : it->second;
  if (it != m->acc.end())
    m->acc.erase(it);
  while (!m->completed.empty() && m->completed.begin()->first + 2 < e.phase)
    m->completed.erase(m->completed.begin());
}

void hb_mbar_wait_done(LaunchSt &L, CtaSt &c, const engine::MbarEvent &e) {
  MbarSt *m = mbar_of(L, e);
  if (!m)
    return;
  auto it = m->completed.find(e.phase);
  if (it == m->completed.end())
    return;
  if (is_acquire(e.order))
    acquire_lanes(c, e.warp, e.lanes, it->second);
  else
    pending_lanes(c, e.warp, e.lanes, it->second);
}

void hb_async_issue(LaunchSt &L, CtaSt &c, const engine::AsyncIssueEvent &e) {
  uint32_t lane = std::countr_zero(e.lanes);
  Tid tid = L.tid_of(e.cta, e.warp, lane);
  Tid agent = (engine::is_bulk(e.what) ? kAgentBulk : kAgentCp) | tid;
  const bool grouped = engine::is_grouped(e.what);
  L.async_snap[snap_key(agent, e.async_id)] =
      LaunchSt::AsyncSnap{release_of(L, c, e.warp * 32 + lane), grouped};
  if (grouped) {
    auto &g = L.groups[agent];
    if (!g.empty() && g.back().first == uint32_t(e.group))
      g.back().second = uint32_t(e.async_id);
    else
      g.push_back({uint32_t(e.group), uint32_t(e.async_id)});
  }
}

void hb_async_complete(LaunchSt &L, const engine::AsyncCompleteEvent &e) {
  // Copies waited for by groups no longer need what they knew; those that
  // complete an mbarrier transaction or arrive on one keep it until then.
  uint32_t lane = std::countr_zero(e.lanes);
  Tid agent = (engine::is_bulk(e.what) ? kAgentBulk : kAgentCp) |
              L.tid_of(e.cta, e.warp, lane);
  auto it = L.async_snap.find(snap_key(agent, e.async_id));
  if (it != L.async_snap.end() && it->second.grouped)
    L.async_snap.erase(it);
}

void hb_async_wait(LaunchSt &L, CtaSt &c, const engine::AsyncWaitEvent &e) {
  uint32_t lane = std::countr_zero(e.lanes);
  Tid tid = L.tid_of(e.cta, e.warp, lane);
  Tid agent = (e.bulk ? kAgentBulk : kAgentCp) | tid;
  auto git = L.groups.find(agent);
  if (git == L.groups.end())
    return;
  uint32_t maxid = 0;
  auto &g = git->second;
  size_t keep = 0;
  for (size_t k = 0; k < g.size(); ++k) {
    if (g[k].first < uint32_t(e.below))
      maxid = std::max(maxid, g[k].second);
    else
      g[keep++] = g[k];
  }
  g.resize(keep);
  if (maxid) {
    VcBuilder b;
    b.thread(agent, maxid);
    acquire(thread_at(c, e.warp, lane), b.build());
  }
}

void hb_fence(LaunchSt &L, CtaSt &c, const engine::FenceEvent &e) {
  if (e.proxy) // proxy fences order proxies, not threads
    return;
  if (is_acquire(e.order))
    take_pending(c, e.warp, e.lanes);
  if (is_release(e.order) || e.mbarrier_init) {
    // The fence's lanes share it in their warp's WarpFence; lanes whose
    // latest fence was the warp's previous one keep that as their own.
    WarpFence &f = c.fences[e.warp];
    each_lane(f.lanes & ~e.lanes, [&](uint32_t l) {
      c.lane_fences[e.warp * 32 + l] = {f.rel, f.scope};
      c.lane_fences_used = true;
    });
    f.rel = release_warp(L, c, e.warp, e.lanes);
    f.scope = e.scope;
    f.lanes = e.lanes;
  }
}

namespace {
// What a reader of CTA `cta` (in `cluster`) acquiring at `scope` may take
// from location `loc`: its CTA's releases, its cluster's at cluster scope
// or wider, everyone's at gpu scope or wider.
void released_to(const SyncLoc &loc, uint64_t cta, uint64_t cluster,
                 MemScope scope, const Vc *&v_cta, const Vc *&v_cl,
                 const Vc *&v_gpu) {
  if (loc.one) {
    if (loc.one_cta == cta ||
        (scope >= MemScope::Cluster && loc.one_scope >= MemScope::Cluster &&
         loc.one_cluster == cluster) ||
        (scope >= MemScope::Gpu && loc.one_scope >= MemScope::Gpu))
      v_cta = &loc.one;
  } else if (const SyncLoc::Multi *m = loc.multi.get()) {
    v_cta = m->by_cta.find(cta);
    if (scope >= MemScope::Cluster)
      v_cl = m->by_cluster.find(cluster);
    if (scope >= MemScope::Gpu && m->gpu)
      v_gpu = &m->gpu;
  }
}
} // namespace

bool acquires(LaunchSt &L, const Granule &g, uint64_t addr, uint64_t cta,
              MemScope scope, Tid u, uint32_t clock) {
  if (!g.sync)
    return false;
  const SyncLoc *loc = L.sync_loc(g, addr);
  if (!loc)
    return false;
  const Vc *v_cta = nullptr, *v_cl = nullptr, *v_gpu = nullptr;
  released_to(*loc, cta, L.cluster_of(cta), scope, v_cta, v_cl, v_gpu);
  for (const Vc *v : {v_cta, v_cl, v_gpu})
    if (v && *v && knows(*v, u, clock))
      return true;
  return false;
}

void strong_access(LaunchSt &L, const AccessEvent &e, uint32_t lanes,
                   Granule *const *gran) {
  CtaSt *c = L.cta(e.cta);
  if (!c || !lanes)
    return;
  ++L.sync_gen; // its acquires and releases change knowledge and clocks
  const uint64_t cta = e.cta, cluster = c->cluster;
  const bool reads = e.type != engine::AccessType::Write;
  const bool writes = e.type != engine::AccessType::Read;
  MemScope scope = e.scope == MemScope::None ? MemScope::Gpu : e.scope;
  // Lanes at increasing addresses (the common case) are one location each.
  bool distinct = true;
  {
    uint64_t prev = 0;
    bool first = true;
    for (uint32_t m = lanes; m && distinct; m &= m - 1, first = false) {
      const uint64_t a = e.addr[std::countr_zero(m)];
      distinct = first || a > prev;
      prev = a;
    }
  }
  // The lanes of one instruction, one address at a time: they read the
  // location as it was before the instruction, then publish to it (lanes of
  // one instruction do not synchronize with each other through it). One
  // acquire and one release per group, not per lane: the cost of a strong
  // access by a warp does not grow with its lanes.
  Vc mat; // the latest publication (mat_key), materialized once
  Released mat_key;
  bool have_mat = false;
  while (lanes) {
    const uint32_t l0 = uint32_t(std::countr_zero(lanes));
    const uint64_t addr = e.addr[l0];
    uint32_t group = 1u << l0;
    if (!distinct)
      each_lane(lanes & ~group, [&](uint32_t l) {
        if (e.addr[l] == addr)
          group |= 1u << l;
      });
    lanes &= ~group;
    if (!gran[l0])
      continue;
    Granule &g = *gran[l0];
    if (reads && g.sync) {
      if (SyncLoc *found = L.sync_loc(g, addr)) {
        const SyncLoc &loc = *found;
        const Vc *v_cta = nullptr, *v_cl = nullptr, *v_gpu = nullptr;
        released_to(loc, cta, cluster, scope, v_cta, v_cl, v_gpu);
        const bool any = (v_cta && *v_cta) || (v_cl && *v_cl) || v_gpu;
        const bool missed = loc.last_pc != ~0u && loc.last_cta != cta &&
                            !L.scope_covers(loc.last_scope, loc.last_cta, cta);
        const bool acq = is_acquire(e.order);
        const VcData *last_in = nullptr;
        Vc last_out;
        VcFill fill;
        each_lane(group, [&](uint32_t l) {
          ThreadSt &t = thread_at(*c, e.warp, l);
          if (missed) {
            t.miss_pc = e.pc;
            t.miss_release_pc = loc.last_pc;
            t.miss_scope = loc.last_scope;
          }
          if (!any)
            return;
          if (!acq)
            c->pending_lanes[e.warp] |= 1u << l;
          Vc &dst = acq ? t.vc : t.pending;
          // Lanes that knew the same learn the same.
          if (dst.get() == last_in && last_out) {
            fill.set(dst, last_out);
            return;
          }
          fill.flush();
          last_in = dst.get();
          if (v_cta)
            join_into(dst, *v_cta);
          if (v_cl)
            join_into(dst, *v_cl);
          if (v_gpu)
            join_into(dst, *v_gpu);
          last_out = dst;
        });
      }
    }
    if (writes) {
      SyncLoc &loc = L.sync_loc_new(g, addr);
      if (e.type == engine::AccessType::Write)
        loc.restart(); // a store starts a new release sequence
      // Joined in place where the location alone holds its knowledge; a
      // location that had none shares the published object. Without
      // clusters of several CTAs a cluster's releases are its one CTA's
      // (those at cluster scope or wider), which that CTA alone reads with
      // all of its CTA's: no table by cluster (a third object for a
      // spinning thread to acquire at every load).
      auto publish = [&](const Released &s, MemScope rs)
          __attribute__((always_inline)) {
        if (s.empty())
          return;
        auto into = [&](Vc &dst) {
          if (dst) {
            join_into(dst, s);
            return;
          }
          if (!have_mat || !(mat_key == s)) {
            mat = materialize(s);
            mat_key = s;
            have_mat = true;
          }
          dst = mat;
        };
        if (!loc.multi &&
            (!loc.one || (loc.one_cta == cta && loc.one_scope == rs))) {
          into(loc.one);
          loc.one_cta = uint32_t(cta);
          loc.one_cluster = uint32_t(cluster);
          loc.one_scope = rs;
        } else {
          if (!loc.multi) {
            // A second CTA or scope: the tables by scope.
            loc.multi = std::make_unique<SyncLoc::Multi>();
            SyncLoc::Multi &m = *loc.multi;
            m.by_cta[loc.one_cta] = loc.one;
            if (L.cluster_dims.count() > 1 &&
                loc.one_scope >= MemScope::Cluster)
              m.by_cluster[loc.one_cluster] = loc.one;
            if (loc.one_scope >= MemScope::Gpu)
              m.gpu = loc.one;
            loc.one = nullptr;
          }
          SyncLoc::Multi &m = *loc.multi;
          into(m.by_cta[cta]);
          if (rs >= MemScope::Cluster && L.cluster_dims.count() > 1)
            into(m.by_cluster[cluster]);
          if (rs >= MemScope::Gpu)
            into(m.gpu);
        }
        loc.last_pc = e.pc;
        loc.last_scope = rs;
        loc.last_cta = uint32_t(cta);
      };
      if (is_release(e.order)) {
        publish(release_warp(L, *c, e.warp, group), scope);
      } else {
        // Relaxed: what each lane's latest release fence published (the
        // lanes of a warp that fenced together share one object).
        const Released *last = nullptr;
        MemScope last_scope = MemScope::None;
        each_lane(group, [&](uint32_t l) {
          MemScope fs;
          const Released &fr = c->fence_of(e.warp, l, fs);
          if (fr.empty())
            return;
          MemScope rs = std::min(scope, fs == MemScope::None ? scope : fs);
          if (last && *last == fr && rs == last_scope)
            return;
          last = &fr;
          last_scope = rs;
          publish(fr, rs);
        });
      }
    }
  }
}

} // namespace bcusim::check::detail
