// Reports of a launch that cannot go on (docs/engine.md "Faults and
// limits"): faults, deadlocks, limits, each with the kernel, instruction,
// CTA, warp and lane, and the notes that explain it.
#include <fmt/format.h>

#include "mbarrier.h"
#include "worker.h"

namespace bcusim::engine::detail {

Diagnostic Worker::where(Cta &c, Warp &w, uint32_t lane, std::string msg,
                         uint32_t pc) {
  Diagnostic d;
  d.severity = Severity::Error;
  d.loc = P.locs[pc];
  d.message = std::move(msg);
  const Dim3 &b = S.L.block;
  uint32_t t = w.index * kWarpSize + lane;
  Dim3 tid{t % b.x, t / b.x % b.y, t / (b.x * b.y)};
  Diagnostic n;
  n.severity = Severity::Note;
  n.message = fmt::format("in kernel '{}', CTA {}, warp {}, lane {}, thread {}",
                          demangle(S.L.kernel_name), dim_str(c.id), w.index,
                          lane, dim_str(tid));
  d.notes.push_back(std::move(n));
  return d;
}

std::string fault_message(const Fault &f) {
  std::string msg;
  auto access = [&]() {
    return fmt::format("{} of {} byte{}", f.write ? "store" : "load", f.size,
                       f.size == 1 ? "" : "s");
  };
  switch (f.kind) {
  case FaultKind::OutOfBounds:
    msg = fmt::format("out-of-bounds .{} {} at address {:#x}", name_of(f.space),
                      access(), f.addr);
    break;
  case FaultKind::Null:
    msg = fmt::format("null-pointer .{} {} at address {:#x}", name_of(f.space),
                      access(), f.addr);
    break;
  case FaultKind::Misaligned:
    msg = fmt::format(
        "misaligned .{} {} at address {:#x} (must be a multiple of {})",
        name_of(f.space), access(), f.addr, f.size);
    break;
  case FaultKind::Trap:
    msg = f.detail == "assert"
              ? "device-side assertion failed (assert() called __assertfail)"
              : "trap executed";
    break;
  default:
    msg = f.detail;
    break;
  }
  bool detail_is_message =
      f.kind == FaultKind::Trap || f.kind == FaultKind::Unsupported ||
      f.kind == FaultKind::WarpSync || f.kind == FaultKind::Cluster ||
      f.kind == FaultKind::Mbarrier || f.kind == FaultKind::Texture ||
      f.kind == FaultKind::Heap || f.kind == FaultKind::IllegalInstruction ||
      f.kind == FaultKind::StackOverflow || f.kind == FaultKind::Unmapped;
  if (!detail_is_message && !f.detail.empty())
    msg += ": " + f.detail;
  return msg;
}

void Worker::report_fault(Cta &c, Warp &w, uint32_t pc, uint32_t lanes) {
  (void)lanes;
  const Fault &f = x.fault;
  std::string msg = fault_message(f);
  RunStatus st = f.kind == FaultKind::Trap ? RunStatus::Trap : RunStatus::Fault;
  // Misuse of a synchronization primitive stops the run as a fault does.
  RunProblem kind =
      f.kind == FaultKind::Trap ? RunProblem::Trap
      : f.kind == FaultKind::WarpSync || f.kind == FaultKind::Mbarrier
          ? RunProblem::SyncMisuse
          : RunProblem::Fault;
  Diagnostic d = where(c, w, f.lane, msg, pc);
  uint64_t allocation = 0;
  if (f.space == MemSpace::Global &&
      (f.kind == FaultKind::OutOfBounds || f.kind == FaultKind::Null)) {
    Diagnostic n;
    n.severity = Severity::Note;
    if (const Allocation *a = S.mem.nearest(f.addr)) {
      allocation = a->base;
      std::string what = a->module_var ? "variable '" + demangle(a->name) + "'"
                         : a->name.empty() ? "allocation"
                                           : a->name;
      if (f.addr >= a->base + a->size)
        n.message =
            fmt::format("{} bytes past the end of the {}-byte {} at {:#x}",
                        f.addr - (a->base + a->size), a->size, what, a->base);
      else if (f.addr < a->base)
        n.message = fmt::format("{} bytes before the {}-byte {} at {:#x}",
                                a->base - f.addr, a->size, what, a->base);
      else
        n.message = fmt::format(
            "the access runs past the end of the {}-byte {} at {:#x}", a->size,
            what, a->base);
    } else {
      n.message = "the address is not inside any allocation";
    }
    d.notes.push_back(std::move(n));
  } else if (f.kind == FaultKind::OutOfBounds && f.space != MemSpace::Global) {
    Diagnostic n;
    n.severity = Severity::Note;
    if (f.space == MemSpace::Shared &&
        f.addr - c.shared_base < kSharedCtaWindow) {
      // The CTA's addresses: its slot of the address map (cluster_addr.h).
      n.message = fmt::format(
          "the .shared space of this CTA is [{:#x}, {:#x}): {} reserved "
          "bytes, then {} bytes of the kernel's",
          c.shared_base, c.shared_base + c.shared.size(), S.L.reserved_smem,
          c.shared.size() - S.L.reserved_smem);
      d.notes.push_back(std::move(n));
    } else if (f.space != MemSpace::Shared) {
      uint64_t size = f.space == MemSpace::Local   ? S.L.local_bytes
                      : f.space == MemSpace::Const ? P.const_image.size()
                                                   : S.L.kparams.size();
      n.message = fmt::format(
          "the .{} space of this {} holds {} bytes", name_of(f.space),
          f.space == MemSpace::Local ? "thread" : "kernel", size);
      d.notes.push_back(std::move(n));
    }
  }
  // The faulting lane's calls (a fault inside a __noinline__ function).
  std::vector<SourceLoc> calls;
  for (const Path &p : w.paths)
    if ((p.mask >> f.lane) & 1) {
      for (auto it = p.calls.rbegin(); it != p.calls.rend(); ++it)
        calls.push_back(P.locs[*it]);
      break;
    }
  S.fail(st, kind, {std::move(d)}, allocation, std::move(calls));
}

// A note on one blocked path of warp `w` of CTA `c` (CTAs other than `c0`
// are named).
Diagnostic Worker::path_note(const Cta &c0, Cta &c, Warp &w, const Path &p) {
  Diagnostic n;
  n.severity = Severity::Note;
  n.loc = P.locs[p.pc];
  std::string why;
  if (p.state == PathState::BlockedCta)
    why = fmt::format("waits here at barrier {} ('{}')",
                      c.bars.unit->waiting_on(w.index).value_or(0),
                      P.code_text[p.pc]);
  else if (p.state == PathState::WaitBarrier)
    why = fmt::format(
        "waits here at barrier {} ('{}') for lanes {:#010x} of its warp "
        "(a warp arrives once all its non-exited threads are at a "
        "barrier instruction for that barrier)",
        path_barrier(w, p).value_or(0), P.code_text[p.pc],
        (w.valid & ~w.exited) & ~p.mask);
  else if (p.state == PathState::WaitWarp &&
           P.code[p.pc].kind == Kind::WarpSyncMember) {
    const Inst &in = P.code[p.pc];
    uint32_t mem =
        uint32_t(w.lanes<uint32_t>(in.member)[std::countr_zero(p.mask)]);
    uint32_t missing = warp_sync_required(in, mem, w) & ~p.mask;
    // Members waiting at other instructions that execute with this one
    // (sm_70+) are not missing.
    if (missing)
      missing &= ~waiting_elsewhere(P, w, size_t(&p - w.paths.data()), p.pc,
                                    mem, missing)
                      .with;
    uint32_t gone = missing & w.exited;
    why = fmt::format("waits in '{}' for member lanes {:#010x} of "
                      "membermask {:#010x}",
                      P.code_text[p.pc], missing, mem);
    if (gone)
      why += fmt::format("; lanes {:#010x} have exited", gone);
    if (missing & ~gone)
      why += fmt::format("; lanes {:#010x} are elsewhere (below)",
                         missing & ~gone);
  } else if (p.state == PathState::WaitWarp)
    why = "waits for the other lanes of its member mask to converge";
  else if (p.state == PathState::BlockedMbar) {
    why = describe_mbar_wait(P, S.L.kernel, c, p);
    n.loc = P.locs[p.wait_pc];
  } else if (p.state == PathState::BlockedCluster && c.cluster)
    why = fmt::format("waits at the cluster barrier (phase {}: {} of {} "
                      "live threads of the cluster arrived)",
                      c.cluster->phase, c.cluster->arrived, c.cluster->live);
  else
    why = "is blocked";
  n.message = fmt::format("{}warp {} lanes {:#010x} {}",
                          &c == &c0 ? "" : "CTA " + dim_str(c.id) + " ",
                          w.index, p.mask, why);
  return n;
}

void Worker::report_deadlock(Cta &c0) {
  Diagnostic d;
  d.severity = Severity::Error;
  auto &unit = *c0.bars.unit;
  auto states = unit.liveness();
  const bcu::BarrierStatus *head = nullptr;
  for (const auto &st : states)
    if (st.waiting && !head)
      head = &st;
  auto expected = [](const bcu::BarrierStatus &st) {
    return st.all_live_warps
               ? fmt::format("{} (all non-exited warps)", st.expected_threads)
               : std::to_string(st.expected_threads);
  };
  if (head)
    d.message = fmt::format(
        "deadlock in kernel '{}': CTA {} can never complete barrier {}: "
        "warp{} {} wait{} with {} of {} threads arrived",
        demangle(S.L.kernel_name), dim_str(c0.id), head->barrier,
        std::popcount(head->waiting) == 1 ? "" : "s", warp_list(head->waiting),
        std::popcount(head->waiting) == 1 ? "s" : "", head->arrived_threads,
        expected(*head));
  else
    d.message = fmt::format(
        "deadlock in kernel '{}': every remaining warp of CTA {} is blocked",
        demangle(S.L.kernel_name), dim_str(c0.id));
  // Why each barrier in flight cannot complete.
  uint32_t exited = unit.exited_warps();
  for (const auto &st : states) {
    if (!st.waiting)
      continue;
    std::string why;
    if (exited && !st.all_live_warps)
      why =
          fmt::format("warp{} {} exited; a barrier with a thread count "
                      "still waits for their threads",
                      std::popcount(exited) == 1 ? "" : "s", warp_list(exited));
    else if (exited)
      why =
          fmt::format("warp{} {} exited", std::popcount(exited) == 1 ? "" : "s",
                      warp_list(exited));
    uint32_t others = 0;
    for (const auto &w : c0.warps)
      if (!w.paths.empty() && !(st.waiting & (1u << w.index)) &&
          !(st.arrived & (1u << w.index)))
        others |= 1u << w.index;
    if (others)
      why += fmt::format(
          "{}warp{} {} wait{} elsewhere (below)", why.empty() ? "" : "; ",
          std::popcount(others) == 1 ? "" : "s", warp_list(others),
          std::popcount(others) == 1 ? "s" : "");
    else
      why += fmt::format("{}no other warp can arrive", why.empty() ? "" : "; ");
    Diagnostic n;
    n.severity = Severity::Note;
    n.message = fmt::format(
        "barrier {}: warp{} {} wait{}, {} of {} threads arrived: {}",
        st.barrier, std::popcount(st.waiting) == 1 ? "" : "s",
        warp_list(st.waiting), std::popcount(st.waiting) == 1 ? "s" : "",
        st.arrived_threads, expected(st), why);
    d.notes.push_back(std::move(n));
  }
  bool first = true;
  // The CTAs of c0's cluster wait for each other (barrier.cluster): list
  // the blocked paths of the others too, prefixed with their CTA.
  std::vector<Cta *> ctas{&c0};
  if (c0.cluster)
    for (Cta *k : c0.cluster->ctas)
      if (k && k != &c0)
        ctas.push_back(k);
  for (Cta *cp : ctas)
    for (auto &w : cp->warps)
      for (auto &p : w.paths) {
        Cta &c = *cp;
        Diagnostic n = path_note(c0, c, w, p);
        if (first && (!head || (&c == &c0 && p.state == PathState::BlockedCta &&
                                unit.waiting_on(w.index) == head->barrier))) {
          d.loc = n.loc;
          first = false;
        }
        d.notes.push_back(std::move(n));
      }
  S.fail(RunStatus::Deadlock, RunProblem::Deadlock, {std::move(d)});
}

// Every warp of the worker is blocked or spins in a loop that nothing can
// end (docs/engine.md "Deadlocks"): the spinning warps first, then the
// blocked paths.
void Worker::report_spin_deadlock() {
  Diagnostic d;
  d.severity = Severity::Error;
  std::vector<Diagnostic> spin, blocked;
  const Cta *c0 = nullptr;
  for (auto &rc : resident) {
    Cta &c = *rc;
    for (auto &w : c.warps) {
      if (w.paths.empty())
        continue;
      if (!c0)
        c0 = &c;
      if (w.spinning) {
        Diagnostic n;
        n.severity = Severity::Note;
        n.loc = P.locs[w.spin_pc];
        n.message = fmt::format(
            "CTA {} warp {} lanes {:#010x} spin in the loop closed here: "
            "nothing they read can change any more",
            dim_str(c.id), w.index, w.spin_lanes);
        spin.push_back(std::move(n));
      }
      for (auto &p : w.paths) {
        if (w.spinning && (p.mask & w.spin_lanes))
          continue;
        Diagnostic n = path_note(*c0, c, w, p);
        if (&c == c0)
          n.message = "CTA " + dim_str(c.id) + " " + n.message;
        blocked.push_back(std::move(n));
      }
    }
  }
  size_t nspin = spin.size();
  d.message = fmt::format(
      "deadlock in kernel '{}': no thread can make progress: {} warp{} "
      "spin{} waiting for a change that no thread will make{}",
      demangle(S.L.kernel_name), nspin, nspin == 1 ? "" : "s",
      nspin == 1 ? "s" : "",
      blocked.empty() ? "" : ", and every other warp is blocked");
  d.loc = !blocked.empty() ? blocked.front().loc
          : !spin.empty()  ? spin.front().loc
                           : SourceLoc{};
  for (auto &n : spin)
    d.notes.push_back(std::move(n));
  for (auto &n : blocked)
    d.notes.push_back(std::move(n));
  S.fail(RunStatus::Deadlock, RunProblem::Deadlock, {std::move(d)});
}

void Worker::report_limit(RunStatus st, Cta &c, Warp &w) {
  select(w);
  uint32_t pc = w.paths.empty() ? 0 : w.paths[w.cur].pc;
  uint32_t mask = w.paths.empty() ? 0 : w.paths[w.cur].mask;
  std::string what =
      st == RunStatus::StepLimit
          ? fmt::format("kernel '{}' did not finish within --max-steps {} "
                        "warp-instructions",
                        demangle(S.L.kernel_name), S.cfg.max_steps)
          : fmt::format(
                "kernel '{}' did not finish within the time limit of {} s",
                demangle(S.L.kernel_name), S.cfg.time_limit_s);
  Diagnostic d =
      where(c, w, mask ? uint32_t(std::countr_zero(mask)) : 0, what, pc);
  Diagnostic n;
  n.severity = Severity::Note;
  n.message = fmt::format("still running here: warp {} lanes {:#010x} ('{}')",
                          w.index, mask, P.code_text[pc]);
  d.notes.push_back(std::move(n));
  S.fail(st, RunProblem::Limit, {std::move(d)});
}

void Worker::report_error(RunStatus st, RunProblem kind, Cta &c, Warp &w,
                          uint32_t lane, std::string msg, uint32_t pc) {
  S.fail(st, kind, {where(c, w, lane, std::move(msg), pc)});
}

} // namespace bcusim::engine::detail
