// Warp-synchronous instructions and barrier.cluster in the scheduler
// (docs/clusters.md, docs/engine.md "Warp-synchronous instructions").
//
// Each lane names its own membermask. Lanes naming the same mask form a
// group; a group executes once every member it waits for is at the
// instruction (shfl/vote/match/redux: the non-exited members; bar.warp.sync
// and elect.sync: every existing member, so that an exited member is a
// reported deadlock). On sm_70 and later the members may also wait at other
// instructions of the same operation and qualifiers; the group then
// executes across those instructions (exec_collective). Groups of one path
// run independently. A lane outside its own mask, members naming different
// masks, and members waiting at instructions that cannot execute together
// (sm_6x: another instruction) are errors (PTX: the executing thread must be
// in membermask, and all threads named in membermask must execute the
// instruction with the same qualifiers and mask).
#include <algorithm>
#include <fmt/format.h>

#include "worker.h"

namespace bcusim::engine::detail {

SyncGroups group_by_mask(const Lane<uint32_t> *mem, uint32_t m) {
  SyncGroups g;
  for_lanes(m, [&](uint32_t l) {
    uint32_t v = uint32_t(mem[l]);
    for (uint32_t i = 0; i < g.n; ++i)
      if (g.mask[i] == v) {
        g.lanes[i] |= 1u << l;
        return;
      }
    g.mask[g.n] = v;
    g.lanes[g.n] = 1u << l;
    ++g.n;
  });
  return g;
}

// Misuse the engine survives: under --warn-only a warning (once per
// instruction and message) and the caller goes on; otherwise the error.
bool Worker::survive(Cta &c, Warp &w, uint32_t lane, uint32_t pc,
                     std::string msg) {
  if (!S.cfg.warn_only) {
    report_error(RunStatus::Fault, RunProblem::SyncMisuse, c, w, lane,
                 std::move(msg), pc);
    return false;
  }
  x.warn(lane, std::move(msg));
  uint32_t saved = x.pc;
  x.pc = pc;
  flush_warnings(c, w);
  x.pc = saved;
  return true;
}

bool Worker::warp_sync_step(Cta &c, Warp &w, Path *&p, const Inst &in,
                            uint32_t m, bool &blocked) {
  blocked = false;
  const uint32_t pc = p->pc;
  if (in.member == kNone) {
    if (m)
      in.fn(x, in, m);
    ++p->pc;
    return true;
  }
  const auto *mv = x.lanes<uint32_t>(in.member);
  // Every executing lane must be in its own membermask.
  uint32_t outside = 0;
  for_lanes(m, [&](uint32_t l) {
    if (!((mv[l] >> l) & 1))
      outside |= 1u << l;
  });
  if (outside) {
    uint32_t l = uint32_t(std::countr_zero(outside));
    report_error(RunStatus::Fault, RunProblem::SyncMisuse, c, w, l,
                 fmt::format("'{}' executed by lane {}, which is not in its "
                             "membermask {:#010x} (the executing thread must "
                             "be a member)",
                             P.code_text[pc], l, uint32_t(mv[l])),
                 pc);
    return false;
  }
  // The lanes present at the instruction are the path's lanes (guard-false
  // lanes are here but do not execute), and on sm_70+ the member lanes that
  // wait at other instructions of the same operation and qualifiers.
  SyncGroups g = group_by_mask(mv, p->mask);
  uint32_t ready = 0, waiting = 0;
  struct Join {
    uint32_t group, path, lanes;
  };
  std::vector<Join> joins;
  std::vector<std::pair<uint32_t, uint32_t>> at;
  for (uint32_t i = 0; i < g.n; ++i) {
    const uint32_t mem = g.mask[i];
    uint32_t executing = g.lanes[i] & m;
    if (executing == 0) {
      ready |= g.lanes[i]; // only guard-false lanes: they step over it
      continue;
    }
    // Members here that name another mask.
    uint32_t others = mem & p->mask & m & ~g.lanes[i];
    if (others) {
      uint32_t k = uint32_t(std::countr_zero(others));
      uint32_t l = uint32_t(std::countr_zero(executing));
      report_error(
          RunStatus::Fault, RunProblem::SyncMisuse, c, w, l,
          fmt::format("'{}': lanes {:#010x} name membermask {:#010x}, but "
                      "member lane {} names {:#010x} (every thread named in "
                      "membermask must execute the instruction with the "
                      "same membermask)",
                      P.code_text[pc], executing, mem, k, uint32_t(mv[k])),
          pc);
      return false;
    }
    if (in.kind == Kind::WarpSyncMember) {
      uint32_t gone = mem & w.valid & w.exited;
      if (gone) {
        report_error(
            RunStatus::Deadlock, RunProblem::Deadlock, c, w,
            uint32_t(std::countr_zero(executing)),
            fmt::format("deadlock in kernel '{}': warp {} lanes {:#010x} "
                        "wait in '{}' for member lanes {:#010x} of "
                        "membermask {:#010x}, which have exited",
                        demangle(S.L.kernel_name), w.index, g.lanes[i],
                        P.code_text[pc], gone, mem),
            pc);
        return false;
      }
    }
    uint32_t missing = warp_sync_required(in, mem, w) & ~p->mask;
    if (missing) {
      at.clear();
      WaitingElsewhere e =
          waiting_elsewhere(P, w, w.cur, pc, mem, missing, &at);
      if (e.apart) {
        apart_error(c, w, pc, g.lanes[i], mem, e);
        return false;
      }
      if ((missing & ~e.with) == 0) {
        missing = 0;
        for (auto [q, lanes] : at)
          joins.push_back({i, q, lanes});
      }
    }
    if (missing)
      waiting |= g.lanes[i];
    else
      ready |= g.lanes[i];
  }
  if (ready == 0) {
    // Wait for the other members to converge here.
    p->state = PathState::WaitWarp;
    blocked = true;
    if (w.paths.size() == 1) {
      // Nobody else in this warp can arrive: the lanes exited or never
      // existed; report instead of waiting forever.
      uint32_t missing = 0;
      for (uint32_t i = 0; i < g.n; ++i)
        missing |= warp_sync_required(in, g.mask[i], w) & ~p->mask;
      x.set_error(FaultKind::WarpSync, uint32_t(std::countr_zero(p->mask)),
                  fmt::format("warp-synchronous '{}' waits for lanes {:#010x} "
                              "that have exited or do not exist",
                              P.code_text[pc], missing));
      report_fault(c, w, pc, p->mask);
      return false;
    }
    return true;
  }
  std::vector<CollectivePart> parts;
  for (uint32_t i = 0; i < g.n; ++i) {
    uint32_t lanes = g.lanes[i] & m;
    if (!lanes || !(g.lanes[i] & ready))
      continue;
    uint32_t all = lanes;
    if (joins.empty()) { // all members here: the usual case
      in.fn(x, in, lanes);
    } else {
      parts.assign(1, CollectivePart{&in, lanes});
      for (const Join &j : joins) {
        if (j.group != i)
          continue;
        // The joined lanes that execute their instruction (guard true).
        const Inst &qi = P.code[w.paths[j.path].pc];
        uint32_t qm = j.lanes;
        if (qi.guard != kNone)
          qm &= qi.guard_neg ? ~x.p[qi.guard] : x.p[qi.guard];
        if (&qi == &in) // the same instruction (another call stack)
          parts[0].lanes |= qm;
        else if (qm)
          parts.push_back({&qi, qm});
        all |= qm;
      }
      exec_collective(x, parts);
      // The joined lanes' step was not counted when they began to wait.
      pending_tsteps += uint32_t(std::popcount(all & ~lanes));
    }
    if (x.faulted) { // reported at the instruction (matrix instructions)
      report_fault(c, w, pc, lanes);
      return false;
    }
    if (x.has_remarks()) { // at this instruction (a shfl's undefined source)
      const uint32_t saved = x.pc;
      x.pc = pc;
      flush_warnings(c, w);
      x.pc = saved;
    }
    if (S.obs) {
      uint32_t part = g.mask[i] & all;
      auto e = event<WarpSyncEvent>(c, w, part, pc);
      e.leader = uint32_t(std::countr_zero(part));
      if (is_elect(in))
        S.obs->on_elect(e);
      else
        S.obs->on_warp_sync(e);
    }
  }
  // The joined lanes of other paths go on past their instructions (a path
  // may have joined several groups).
  std::vector<std::pair<uint32_t, uint32_t>> moved; // (path, lanes)
  for (const Join &j : joins) {
    auto it = std::find_if(moved.begin(), moved.end(),
                           [&](const auto &e) { return e.first == j.path; });
    if (it == moved.end())
      moved.emplace_back(j.path, j.lanes);
    else
      it->second |= j.lanes;
  }
  for (auto [q, lanes] : moved) {
    Path &qp = w.paths[q];
    if (lanes == qp.mask) {
      ++qp.pc;
      qp.state = PathState::Ready;
      continue;
    }
    Path np;
    np.pc = qp.pc + 1;
    np.mask = lanes;
    np.calls = qp.calls;
    qp.mask &= ~lanes;
    w.paths.push_back(std::move(np));
  }
  p = &w.paths[w.cur];
  if (waiting) {
    // The groups still waiting stay here as a path of their own.
    Path np;
    np.pc = pc;
    np.mask = waiting;
    np.calls = p->calls;
    np.state = PathState::WaitWarp;
    p->mask &= ~waiting;
    ++p->pc;
    w.paths.push_back(std::move(np));
    p = &w.paths[w.cur];
    return true;
  }
  ++p->pc;
  return true;
}

// Members of one mask waiting at instructions that never execute together
// (docs/clusters.md "Different instructions"): each waits for the others,
// so this is reported at once instead of as a deadlock later.
void Worker::apart_error(Cta &c, Warp &w, uint32_t pc, uint32_t lanes,
                         uint32_t mem, const WaitingElsewhere &e) {
  const std::string &here = P.code_text[pc], &there = P.code_text[e.apart_pc];
  const bool aligned = !meets_elsewhere(P.code[pc]);
  std::string msg =
      aligned ? fmt::format("'{}': lanes {:#010x} wait here, but lanes "
                            "{:#010x} of the warp wait at another '{}' "
                            "instruction",
                            here, lanes, e.apart, there)
      : P.warp_sync_same_inst
          ? fmt::format("'{}': lanes {:#010x} wait here with membermask "
                        "{:#010x}, but member lanes {:#010x} wait at another "
                        "'{}' instruction",
                        here, lanes, mem, e.apart, there)
          : fmt::format("'{}': lanes {:#010x} wait here with membermask "
                        "{:#010x}, but member lanes {:#010x} wait at '{}', "
                        "which does not execute together with it (the "
                        "members of a mask execute the same operation with "
                        "the same qualifiers)",
                        here, lanes, mem, e.apart, there);
  Diagnostic d =
      where(c, w, uint32_t(std::countr_zero(lanes)), std::move(msg), pc);
  Diagnostic n;
  n.severity = Severity::Note;
  n.loc = P.locs[e.apart_pc];
  n.message = fmt::format("warp {} lanes {:#010x} wait here", w.index, e.apart);
  d.notes.push_back(std::move(n));
  if (aligned) {
    Diagnostic r;
    r.severity = Severity::Note;
    r.message = ".aligned: every thread of the warp must execute the same "
                "instruction";
    d.notes.push_back(std::move(r));
  } else if (P.warp_sync_same_inst) {
    Diagnostic r;
    r.severity = Severity::Note;
    r.message = fmt::format(
        "for .target sm_6x or below, all threads in membermask must "
        "execute the same '{}' instruction in convergence (sm_70 and later "
        "let them meet at different instructions)",
        here);
    d.notes.push_back(std::move(r));
  }
  // Lanes of one warp at different instructions of an .aligned one: the
  // warp reached it divergent; with member masks, the masks disagree.
  S.fail(RunStatus::Fault,
         aligned ? RunProblem::BarrierDivergence : RunProblem::SyncMisuse,
         {std::move(d)});
}

// barrier.cluster.arrive / .wait (seed 002, docs/clusters.md): each thread
// arrives once per phase; a wait blocks until the phase of the thread's
// outstanding arrival completes, i.e. until every non-exited thread of
// every CTA of the cluster arrived. A thread that waits without an
// outstanding arrival waits for a phase that needs its own arrival: a
// deadlock, reported at once.
bool Worker::cluster_step(Cta &c, Warp &w, Path *&p, const Inst &in,
                          uint32_t m) {
  if (m == 0) {
    ++p->pc;
    return true;
  }
  ClusterState &cl = *c.cluster;
  const bool arrive = in.kind == Kind::ClusterArrive;
  if (P.payload<ClusterBarrierOps>(in).aligned) {
    uint32_t live = w.valid & ~w.exited;
    // --warn-only: the lanes go on (docs/clusters.md "barrier.cluster").
    if (m != live &&
        !survive(c, w, uint32_t(std::countr_zero(m)), p->pc,
                 fmt::format("'{}' executed by lanes {:#010x} of warp {}, but "
                             "its non-exited lanes are {:#010x}: .aligned "
                             "requires every thread of the warp to execute it "
                             "together",
                             P.code_text[p->pc], m, w.index, live)))
      return false;
  }
  auto &arr = cl.has_arrived[c.cluster_rank];
  auto lanes_with = [&](uint8_t bit) {
    uint32_t r = 0;
    for_lanes(m, [&](uint32_t l) {
      if (arr[w.index * kWarpSize + l] & bit)
        r |= 1u << l;
    });
    return r;
  };
  if (arrive) {
    uint32_t twice = lanes_with(ClusterState::kArrived);
    if (twice) {
      uint32_t l = uint32_t(std::countr_zero(twice));
      if (!survive(c, w, l, p->pc,
                   fmt::format("'{}': thread arrives twice in phase {} of the "
                               "cluster barrier (each thread arrives once per "
                               "phase, then waits with barrier.cluster.wait)",
                               P.code_text[p->pc], cl.phase)))
        return false;
      // --warn-only: the second arrival of those lanes is ignored.
      m &= ~twice;
      if (!m) {
        ++p->pc;
        return true;
      }
    }
    ++x.progress;
    if (S.obs) {
      auto e = event<ClusterEvent>(c, w, m, p->pc);
      e.order = MemOrder(in.order);
      e.phase = cl.phase;
      e.cluster = cl.ctas[0] ? cl.ctas[0]->linear : c.linear;
      S.obs->on_cluster_arrive(e);
    }
    for_lanes(m, [&](uint32_t l) {
      arr[w.index * kWarpSize + l] |= ClusterState::kArrived;
    });
    uint32_t n = uint32_t(std::popcount(m));
    cl.arrived += n;
    cl.pending -= n;
    ++p->pc;
    if (cl.pending == 0)
      cluster_complete_phase(cl, S.obs);
    return true;
  }
  // wait: lanes with an arrival in the current phase block; lanes whose
  // arrival's phase already completed pass.
  const uint32_t current = lanes_with(ClusterState::kArrived);
  const uint32_t done = lanes_with(ClusterState::kWaitDue) & ~current;
  const uint32_t none = m & ~current & ~done;
  if (none) {
    uint32_t l = uint32_t(std::countr_zero(none));
    Diagnostic d = where(
        c, w, l,
        fmt::format("deadlock in kernel '{}': warp {} lanes {:#010x} wait at "
                    "'{}' without having arrived (barrier.cluster.arrive) in "
                    "phase {}: the phase completes only when every "
                    "non-exited thread of the cluster has arrived, so it can "
                    "never complete",
                    demangle(S.L.kernel_name), w.index, none,
                    P.code_text[p->pc], cl.phase),
        p->pc);
    Diagnostic n;
    n.severity = Severity::Note;
    n.message = fmt::format("{} of {} live threads of the cluster arrived "
                            "in phase {}",
                            cl.arrived, cl.live, cl.phase);
    d.notes.push_back(std::move(n));
    S.fail(RunStatus::Deadlock, RunProblem::Deadlock, {std::move(d)});
    return false;
  }
  if (done) {
    for_lanes(done, [&](uint32_t l) {
      arr[w.index * kWarpSize + l] &= uint8_t(~ClusterState::kWaitDue);
    });
    if (S.obs) {
      auto e = event<ClusterEvent>(c, w, done, p->pc);
      e.order = MemOrder(in.order);
      e.phase = cl.phase - 1;
      e.cluster = cl.ctas[0] ? cl.ctas[0]->linear : c.linear;
      S.obs->on_cluster_resume(e);
    }
  }
  if (current == 0) {
    ++p->pc;
    return true;
  }
  if (current != p->mask)
    p = split_guarded(w, current); // the lanes that passed go on
  p->state = PathState::BlockedCluster;
  return true;
}

} // namespace bcusim::engine::detail
