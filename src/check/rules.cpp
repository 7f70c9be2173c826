// Synchronization rules (docs/checker.md "Synchronization checks"), from
// the engine's events:
// - barrier divergence: a CTA barrier of the all-threads form completes
//   while threads of the CTA exited without reaching it, or a warp arrives
//   with only some of its non-exited lanes (the others do not execute the
//   instruction). CUDA leaves both undefined; sm_70+ hardware tolerates
//   the first (a barrier waits for the non-exited threads), and the report
//   says so. An error when the checks were asked for (--check), a warning
//   by default.
// - grid.sync() reached by only some CTAs while others exited: the grid
//   barrier counts every CTA of the launch, so the others wait for ever.
// - mbarrier: an arrive-on in phase k+1 before any test_wait / try_wait
//   observed phase k complete.
// The engine itself reports the misuse that stops a run (deadlocks, counts,
// double arrivals, stale tokens).
#include <fmt/format.h>

#include "report.h"

namespace bcusim::check::detail {

namespace {

std::string lanes_text(const std::vector<uint32_t> &per_warp) {
  std::string s;
  for (size_t w = 0; w < per_warp.size(); ++w) {
    if (!per_warp[w])
      continue;
    if (!s.empty())
      s += ", ";
    s += per_warp[w] == 0xffffffffu
             ? fmt::format("warp {}", w)
             : fmt::format("warp {} lanes {:#010x}", w, per_warp[w]);
  }
  return s;
}

Diagnostic note(SourceLoc loc, std::string msg) {
  Diagnostic n;
  n.severity = Severity::Note;
  n.loc = loc;
  n.message = std::move(msg);
  return n;
}

void barrier_complete(LaunchSt &L, CtaSt &c,
                      const engine::BarrierCompleteEvent &e, BarrierSt &b) {
  const bool all_threads = e.count == 0;
  if (!all_threads || !L.checks.sync)
    return;
  Severity sev = L.checks.explicit_list ? Severity::Error : Severity::Warning;
  // PTX: the .aligned forms (bar.sync = barrier.sync.aligned, which
  // __syncthreads() compiles to) must be executed by every thread at the
  // same instruction; the non-aligned barrier.sync (thread_block::sync())
  // may be reached at different instructions.
  if (b.other_pc != ~0u && (b.other_aligned || b.first_aligned)) {
    // One phase, two instructions, one of them .aligned: `if (c)
    // __syncthreads(); else __syncthreads();`.
    std::string t1 = L.view ? std::string(L.view->text(b.first_pc)) : "";
    std::string t2 = L.view ? std::string(L.view->text(b.other_pc)) : "";
    std::vector<Diagnostic> notes;
    if (L.view)
      notes.push_back(note(L.view->ptx_loc(b.first_pc),
                           fmt::format("warp {} arrives here", b.first_warp)));
    L.findings->at(
        L, FindingKind::BarrierDivergence, sev, b.other_pc,
        L.tid_of(c.linear, b.other_warp, 0),
        fmt::format("barrier divergence: barrier {} (all threads of the CTA) "
                    "completes with threads waiting at different "
                    "instructions: warp {} at this '{}', warp {} at another "
                    "'{}' (below); CUDA requires every thread of the block "
                    "to reach the same __syncthreads(); sm_70+ hardware "
                    "counts arrivals per barrier, not per instruction, so "
                    "the phase completes there",
                    e.barrier, b.other_warp, t2, b.first_warp, t1),
        std::move(notes), "divergence");
  }
  uint32_t any = 0;
  for (uint32_t w : c.exited)
    any |= w;
  if (!any && !b.partial_lanes)
    return;
  const uint32_t pc = b.first_pc;
  std::string text = L.view ? std::string(L.view->text(pc)) : "";
  std::vector<Diagnostic> notes;
  std::string msg;
  Tid who = L.tid_of(c.linear, std::countr_zero(e.warps ? e.warps : 1u), 0);
  if (any) {
    uint32_t n = 0;
    for (uint32_t w : c.exited)
      n += uint32_t(std::popcount(w));
    msg = fmt::format(
        "barrier divergence: '{}' (barrier {}, all threads of the CTA) "
        "completed while {} thread{} of the CTA had exited without reaching "
        "it ({}); sm_70+ hardware tolerates this only because they exited "
        "(a barrier waits for the non-exited threads), but a __syncthreads() "
        "that not every thread of the block reaches is undefined in CUDA",
        text, e.barrier, n, n == 1 ? "" : "s", lanes_text(c.exited));
    // Where they left.
    std::vector<uint32_t> shown;
    for (uint32_t i = 0; i < c.exit_pc.size() && notes.size() < 3; ++i) {
      uint32_t p = c.exit_pc[i];
      if (p == ~0u || std::find(shown.begin(), shown.end(), p) != shown.end())
        continue;
      shown.push_back(p);
      notes.push_back(note(
          L.view ? L.view->ptx_loc(p) : SourceLoc{},
          fmt::format(
              "{} exits here, before the "
              "barrier",
              thread_text(thread_ref(L, L.tid_of(c.linear, i / 32, i % 32))))));
    }
  } else {
    msg = fmt::format(
        "barrier divergence: '{}' (barrier {}, all threads of the CTA) is "
        "executed by lanes {:#010x} of warp {} while its other non-exited "
        "lanes do not execute it",
        L.view ? std::string(L.view->text(b.partial_pc)) : "", e.barrier,
        b.partial_lanes, b.partial_warp);
    who = L.tid_of(c.linear, b.partial_warp,
                   std::countr_zero(b.partial_lanes | 0u));
  }
  L.findings->at(L, FindingKind::BarrierDivergence, sev,
                 any ? pc : b.partial_pc, who, std::move(msg), std::move(notes),
                 "divergence");
}

} // namespace

void rules_cta_end(LaunchSt &L, const CtaSt *c, uint64_t cta) {
  if (!L.checks.sync)
    return;
  LaunchSt::GridSt g;
  if (auto it = L.grid_syncs.find(cta); it != L.grid_syncs.end())
    g = it->second;
  g.ended = true;
  if (c)
    for (uint32_t p : c->exit_pc)
      if (p != ~0u) {
        g.exit_pc = p;
        break;
      }
  L.ended_ctas[cta] = g;
}

// grid.sync() that some CTAs reached more often than CTAs that ended:
// those exited without reaching it.
void rules_launch_end(LaunchSt &L) {
  if (!L.checks.sync || L.grid_syncs.empty())
    return;
  uint32_t most = 0;
  const LaunchSt::GridSt *waiting = nullptr;
  uint64_t waiting_cta = 0;
  for (auto &[cta, g] : L.grid_syncs)
    if (g.arrivals > most) {
      most = g.arrivals;
      waiting = &g;
      waiting_cta = cta;
    }
  std::vector<uint64_t> left;
  for (auto &[cta, g] : L.ended_ctas)
    if (g.arrivals < most)
      left.push_back(cta);
  if (!waiting || left.empty())
    return;
  std::vector<uint64_t> reached;
  for (auto &[cta, g] : L.grid_syncs)
    if (g.arrivals == most)
      reached.push_back(cta);
  auto ctas_text = [&](const std::vector<uint64_t> &v) {
    std::string s;
    for (size_t i = 0; i < v.size() && i < 8; ++i) {
      Dim3 d = L.view ? L.view->cta_id(v[i]) : Dim3{uint32_t(v[i]), 0, 0};
      s += fmt::format("{}({},{},{})", i ? ", " : "", d.x, d.y, d.z);
    }
    if (v.size() > 8)
      s += fmt::format(" and {} more", v.size() - 8);
    return s;
  };
  std::vector<Diagnostic> notes;
  const auto &first = L.ended_ctas[left.front()];
  if (first.exit_pc != ~0u && L.view)
    notes.push_back(note(L.view->ptx_loc(first.exit_pc),
                         fmt::format("CTA {} exits here, before the grid "
                                     "barrier",
                                     ctas_text({left.front()}))));
  Severity sev = L.checks.explicit_list ? Severity::Error : Severity::Warning;
  std::string msg = fmt::format(
      "barrier divergence: grid.sync() (a grid-wide barrier) is reached by "
      "CTA{} {} while CTA{} {} exited without reaching it; CUDA requires "
      "every thread of the grid to reach it, and the grid barrier counts "
      "every CTA of the launch, so the waiting CTAs are never released (on "
      "hardware too)",
      reached.size() == 1 ? "" : "s", ctas_text(reached),
      left.size() == 1 ? "" : "s", ctas_text(left));
  L.findings->at(L, FindingKind::BarrierDivergence, sev, waiting->pc,
                 L.tid_of(waiting_cta, waiting->warp, waiting->lane),
                 std::move(msg), std::move(notes), "divergence");
}

void rules_grid_sync(LaunchSt &L, const engine::ThreadEvent &e) {
  auto &g = L.grid_syncs[e.cta];
  ++g.arrivals;
  g.pc = e.pc;
  g.warp = e.warp;
  g.lane = uint32_t(std::countr_zero(e.lanes | 0u));
}

void rules_barrier_arrive(CtaSt &c, const engine::BarrierArriveEvent &e) {
  BarrierSt &b = c.bars[unsigned(e.barrier) & 15];
  if (!b.acc_warps) {
    b.first_pc = e.pc;
    b.first_warp = e.warp;
    b.first_aligned = e.aligned;
    b.partial_lanes = 0;
    b.other_pc = ~0u;
  } else if (e.pc != b.first_pc && b.other_pc == ~0u) {
    b.other_pc = e.pc;
    b.other_warp = e.warp;
    b.other_aligned = e.aligned;
  }
  b.acc_warps |= 1u << e.warp;
  uint32_t live = c.valid[e.warp] & ~c.exited[e.warp];
  if (e.lanes != live && !b.partial_lanes) {
    b.partial_lanes = e.lanes;
    b.partial_warp = e.warp;
    b.partial_pc = e.pc;
  }
}

void rules_barrier_complete(LaunchSt &L, CtaSt &c,
                            const engine::BarrierCompleteEvent &e) {
  BarrierSt &b = c.bars[unsigned(e.barrier) & 15];
  b.last_warps = e.warps ? e.warps : b.acc_warps;
  b.acc_warps = 0;
  ++b.completions;
  barrier_complete(L, c, e, b);
  b.partial_lanes = 0;
}

void rules_mbar_init(LaunchSt &L, const engine::MbarEvent &e) {
  if (CtaSt *o = L.cta(e.object_owner))
    o->mbars[e.object_offset].observed = -1;
}

void rules_mbar_wait_done(LaunchSt &L, const engine::MbarEvent &e) {
  if (CtaSt *o = L.cta(e.object_owner)) {
    MbarSt &m = o->mbars[e.object_offset];
    m.observed = std::max<int64_t>(m.observed, int64_t(e.phase));
  }
}

void rules_mbar_arrive(LaunchSt &L, const engine::MbarEvent &e) {
  if (!L.checks.sync || e.phase == 0)
    return;
  CtaSt *o = L.cta(e.object_owner);
  if (!o)
    return;
  MbarSt &m = o->mbars[e.object_offset];
  if (m.observed + 1 >= int64_t(e.phase))
    return;
  Tid who = L.tid_of(e.cta, e.warp, std::countr_zero(e.lanes | 0u));
  std::string obj =
      L.view ? L.view->describe(StateSpace::Shared, e.object_offset) : "";
  // A PTX "must" whose breach makes results unpredictable (a parity wait
  // can no longer tell the phases apart): an error under every check list
  // that includes sync, the default one too (docs/checker.md "Rules").
  L.findings->at(
      L, FindingKind::SyncMisuse, Severity::Error, e.pc, who,
      fmt::format(
          "mbarrier misuse: '{}' arrives on the mbarrier at shared address "
          "{:#x}{} in phase {} before any test_wait/try_wait observed "
          "phase {} complete (PTX: the completion of the current phase "
          "must be observed before arriving on the next one; a wait for "
          "phase {} by parity can no longer tell the two phases apart)",
          L.view ? std::string(L.view->text(e.pc)) : "", e.object_offset,
          obj.empty() ? "" : " (" + obj + ")", e.phase, e.phase - 1,
          e.phase - 1),
      {}, "mbarrier-phase", true);
  // Once per object: later arrivals of the same pattern add nothing.
  m.observed = int64_t(e.phase) - 1;
}

} // namespace bcusim::check::detail
