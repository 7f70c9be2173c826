// The scheduler (docs/engine.md "Execution model" and "Schedule").
//
// - A launch's CTAs are grouped into units (a cluster, or one CTA). Host
//   workers take units in order; a worker keeps a set of resident CTAs and
//   admits another unit when one retires, or when its resident CTAs have
//   run kAdmitSteps warp-instructions without any retiring (so a CTA that
//   spins waiting for a later CTA lets that CTA start).
// - Within a worker, warps of the resident CTAs run round-robin, each for a
//   quantum of kWarpQuantum warp-instructions or until it blocks.
// - Within a warp, each divergent path (lanes at one pc) runs separately;
//   the runnable path with the lowest pc goes first, paths merge when their
//   pcs meet, and after kPathQuantum steps on one path the next path (by
//   pc) gets a turn, so that a spin-wait inside a warp cannot starve the
//   lanes it waits for.
// - `random:SEED` picks the warp, the quantum (1..kWarpQuantum) and the path
//   at random from a splitmix64 stream, on one host thread, and admits
//   units at random moments.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <span>
#include <thread>

#include "cluster_addr.h"
#include "mbarrier.h"
#include "run.h"

#include <optional>

namespace bcusim::engine::detail {

namespace {

constexpr uint32_t kWarpQuantum = 64;
constexpr uint32_t kPathQuantum = 256;
constexpr uint32_t kRandomQuantum = 8;
constexpr uint64_t kAdmitSteps = 1u << 16;
constexpr size_t kMaxCallDepth = 64;

std::string dim_str(const Dim3 &d) {
  return fmt::format("({},{},{})", d.x, d.y, d.z);
}

Dim3 unflatten(uint64_t i, const Dim3 &d) {
  return Dim3{uint32_t(i % d.x), uint32_t(i / d.x % d.y),
              uint32_t(i / (uint64_t(d.x) * d.y))};
}

struct Failure {
  RunStatus status = RunStatus::Ok;
  std::vector<Diagnostic> diags;
};

struct LaunchState {
  const Launch &L;
  const LaunchConfig &cfg;
  const Program &P;
  GlobalMemory &mem;
  uint64_t nunits = 0;
  uint32_t unit_ctas = 1;
  std::atomic<uint64_t> next_unit{0};
  std::atomic<uint64_t> steps{0};
  std::atomic<uint64_t> thread_steps{0};
  std::atomic<bool> stop{false};
  std::mutex mu;
  Failure failure;
  std::map<uint64_t, std::string> printf_by_cta;
  std::vector<Diagnostic> warnings; // --warn-only barrier diagnostics
  std::chrono::steady_clock::time_point start;
  bool cooperative = false;         // admit every unit up front (grid.sync)
  uint32_t griddep_wait_pc = kNone; // first griddepcontrol.wait, no prereq

  void note_griddep_wait(uint32_t pc) {
    std::lock_guard<std::mutex> g(mu);
    if (griddep_wait_pc == kNone)
      griddep_wait_pc = pc;
  }

  LaunchState(const Launch &l, const LaunchConfig &c, GlobalMemory &m)
      : L(l), cfg(c), P(*l.prog), mem(m) {}

  void fail(RunStatus st, std::vector<Diagnostic> d) {
    std::lock_guard<std::mutex> g(mu);
    if (failure.status == RunStatus::Ok) {
      failure.status = st;
      failure.diags = std::move(d);
    }
    stop = true;
  }
};

// The lanes a warp-synchronous instruction waits for. shfl/vote/match/
// redux: the non-exited member lanes (PTX). bar.warp.sync / elect.sync
// (Kind::WarpSyncMember): every existing member lane, so that a member that
// exited is a reported deadlock (issue 6, docs/clusters.md).
uint32_t warp_sync_required(const Inst &in, uint32_t mem, const Warp &w) {
  if (in.kind == Kind::WarpSyncMember)
    return mem & w.valid;
  return mem & w.valid & ~w.exited;
}

class Worker {
public:
  Worker(LaunchState &s, unsigned index)
      : S(s), P(s.P), rng(s.cfg.schedule.seed) {
    x.launch = &S.L;
    x.prog = &P;
    x.gmem = &S.mem;
    random = S.cfg.schedule.kind == Schedule::Kind::Random;
    (void)index;
  }

  void run();

private:
  LaunchState &S;
  const Program &P;
  Exec x;
  SplitMix64 rng;
  bool random = false;
  std::vector<std::unique_ptr<Cta>> pool;
  std::vector<std::unique_ptr<Cta>> resident;
  size_t rr_cta = 0;
  uint64_t since_admit = 0;
  uint64_t local_quanta = 0;
  uint64_t pending_steps = 0, pending_tsteps = 0;
  bool exhausted = false; // no units left to admit
  // Issue 6: one ClusterState per resident unit (reused).
  std::vector<std::unique_ptr<ClusterState>> clusters, cluster_pool;
  void retire_unit(Cta *c);
  void threads_exited(Cta &c, Warp &w, uint32_t lanes);
  bool cluster_step(Cta &c, Warp &w, Path *&p, const Inst &in, uint32_t m);
  // Lanes of the current path whose guard is false (not in `m`) step over
  // the instruction as a path of their own; returns the current path, which
  // keeps the lanes in `m`.
  Path *split_guarded(Warp &w, uint32_t m);
  void report_error(RunStatus st, Cta &c, Warp &w, uint32_t lane,
                    std::string msg, uint32_t pc);
  uint64_t now = 0; // warp-instructions run by this worker (mbarrier
                    // wait bounds are measured in them)

  bool admit();
  void init_cta(Cta &c, const Dim3 &id, const Dim3 &cluster_id,
                const Dim3 &cluster_ctaid, uint32_t rank);
  void retire(size_t i);
  bool pick(Cta *&c, Warp *&w);
  uint64_t run_warp(Cta &c, Warp &w, uint64_t quantum);
  bool runnable(Warp &w, Path &p);
  bool select_path(Warp &w);
  // CTA barriers through the barrier unit (docs/barriers.md).
  bool barrier_step(Cta &c, Warp &w, uint32_t path);
  bool try_group(Cta &c, Warp &w);
  bool bar_arrive(Cta &c, Warp &w, std::span<const uint32_t> paths);
  void bar_finish(Cta &c, Warp &w, Path &p);
  void bar_released(Cta &c);
  bool bar_exited(Cta &c, Warp &w);
  bool bar_report(Cta &c, Warp &w, uint32_t pc, int kind, Diagnostic d);
  std::optional<uint32_t> path_barrier(Warp &w, const Path &p) const;
  void report_fault(Cta &c, Warp &w, uint32_t pc, uint32_t lanes);
  void report_deadlock(Cta &c);
  void report_limit(RunStatus st, Cta &c, Warp &w);
  bool wake_mbar_waits();
  void flush_resident();
  Diagnostic where(Cta &c, Warp &w, uint32_t lane, std::string msg,
                   uint32_t pc);
  uint32_t frame_u32(Cta &c, Warp &w, uint32_t lane, uint32_t off) {
    uint32_t v;
    std::memcpy(&v,
                c.local.data() +
                    uint64_t(w.index * kWarpSize + lane) * P.frame_bytes + off,
                4);
    return v;
  }
  uint8_t *frame(Cta &c, Warp &w, uint32_t lane) {
    return c.local.data() +
           uint64_t(w.index * kWarpSize + lane) * P.frame_bytes;
  }
};

void Worker::init_cta(Cta &c, const Dim3 &id, const Dim3 &cluster_id,
                      const Dim3 &cluster_ctaid, uint32_t rank) {
  const Launch &L = S.L;
  c.id = id;
  c.linear =
      id.x + uint64_t(id.y) * L.grid.x + uint64_t(id.z) * L.grid.x * L.grid.y;
  c.cluster_id = cluster_id;
  c.cluster_ctaid = cluster_ctaid;
  c.cluster_rank = rank;
  c.nthreads = uint32_t(L.block.count());
  uint32_t nwarps = (c.nthreads + kWarpSize - 1) / kWarpSize;
  c.warps.resize(nwarps);
  for (uint32_t i = 0; i < nwarps; ++i) {
    Warp &w = c.warps[i];
    w.index = i;
    uint32_t rem = c.nthreads - i * kWarpSize;
    w.valid = rem >= kWarpSize ? kFullMask : ((1u << rem) - 1);
    w.exited = 0;
    if (w.regs.size() != size_t(P.nslots) * kWarpSize) {
      w.regs.assign(size_t(P.nslots) * kWarpSize, 0);
      for (auto [slot, v] : P.const_slots)
        std::fill_n(w.regs.begin() + size_t(slot) * kWarpSize, kWarpSize, v);
      w.preds.assign(P.npreds, 0);
      for (auto [p, v] : P.const_preds)
        w.preds[p] = v;
    }
    w.paths.clear();
    Path p;
    p.pc = L.kernel->entry_pc;
    p.mask = w.valid;
    w.paths.push_back(std::move(p));
    w.cur = 0;
    w.path_steps = 0;
    w.steps = 0;
  }
  c.shared.assign(L.shared_bytes, 0);
  c.local.assign(size_t(P.frame_bytes) * c.nthreads, 0);
  c.live_threads = c.nthreads;
  c.live_warps = nwarps;
  // A fresh barrier unit per CTA; only its exceptions are observed (the
  // hot path builds no event log).
  c.bars.unit = std::make_unique<bcu::BarrierUnit>(c.nthreads);
  c.bars.unit->set_recording(false);
  c.bars.unit->set_observer([raised = &c.bars.raised](const bcu::Event &e) {
    if (e.kind == bcu::EventKind::Exception)
      raised->push_back(e);
  });
  c.bars.raised.clear();
  c.bars.warned.clear();
  for (auto &w : c.warps)
    w.bar_blocked = false;
  c.next_warp = 0;
  c.steps = 0;
  c.printf_out.clear();
  c.mbar.reset();
}

bool Worker::admit() {
  if (exhausted)
    return false;
  uint64_t u = S.next_unit.fetch_add(1);
  if (u >= S.nunits) {
    exhausted = true;
    return false;
  }
  const Launch &L = S.L;
  Dim3 ncl{L.grid.x / L.cluster.x, L.grid.y / L.cluster.y,
           L.grid.z / L.cluster.z};
  Dim3 cid = unflatten(u, ncl);
  std::unique_ptr<ClusterState> cs;
  if (!cluster_pool.empty()) {
    cs = std::move(cluster_pool.back());
    cluster_pool.pop_back();
  } else {
    cs = std::make_unique<ClusterState>();
  }
  cs->reset(S.unit_ctas, uint32_t(L.block.count()));
  for (uint32_t r = 0; r < S.unit_ctas; ++r) {
    Dim3 in = unflatten(r, L.cluster);
    Dim3 id{cid.x * L.cluster.x + in.x, cid.y * L.cluster.y + in.y,
            cid.z * L.cluster.z + in.z};
    std::unique_ptr<Cta> c;
    if (!pool.empty()) {
      c = std::move(pool.back());
      pool.pop_back();
    } else {
      c = std::make_unique<Cta>();
    }
    init_cta(*c, id, cid, in, r);
    c->cluster = cs.get();
    cs->ctas[r] = c.get();
    resident.push_back(std::move(c));
  }
  clusters.push_back(std::move(cs));
  since_admit = 0;
  return true;
}

void Worker::retire(size_t i) {
  Cta &c = *resident[i];
  if (!c.printf_out.empty()) {
    std::lock_guard<std::mutex> g(S.mu);
    S.printf_by_cta[c.linear] = std::move(c.printf_out);
    c.printf_out.clear();
  }
  pool.push_back(std::move(resident[i]));
  resident.erase(resident.begin() + long(i));
  if (rr_cta >= resident.size())
    rr_cta = 0;
  since_admit = 0;
}

void Worker::flush_resident() {
  std::lock_guard<std::mutex> g(S.mu);
  for (auto &c : resident)
    if (!c->printf_out.empty())
      S.printf_by_cta[c->linear] = std::move(c->printf_out);
}

bool Worker::runnable(Warp &w, Path &p) {
  if (p.state == PathState::Ready)
    return true;
  if (p.state == PathState::BlockedMbar) {
    // Wakes when the phase it saw moves on, or when its bound passes.
    uint64_t word;
    std::memcpy(&word, p.wait_word, 8);
    if (mbar::phase(word) == p.wait_phase && now < p.wait_until)
      return false;
    p.wait_timed_out = mbar::phase(word) == p.wait_phase;
    p.state = PathState::Ready;
    return true;
  }
  if (p.state != PathState::WaitWarp)
    return false;
  const Inst &in = P.code[p.pc];
  uint32_t mem = in.member == kNone
                     ? p.mask
                     : uint32_t(w.regs[size_t(in.member) * kWarpSize +
                                       std::countr_zero(p.mask)]);
  uint32_t required = warp_sync_required(in, mem, w);
  if ((required & ~p.mask) == 0) {
    p.state = PathState::Ready;
    return true;
  }
  return false;
}

// Merges paths that meet and picks the path to run (see the file comment).
bool Worker::select_path(Warp &w) {
  auto &ps = w.paths;
  if (ps.empty() || w.bar_blocked)
    return false;
  if (ps.size() == 1) {
    w.cur = 0;
    return runnable(w, ps[0]);
  }
  auto live = [](PathState s) {
    return s == PathState::Ready || s == PathState::WaitWarp;
  };
  for (size_t i = 0; i < ps.size(); ++i)
    for (size_t j = i + 1; j < ps.size();) {
      if (ps[i].pc == ps[j].pc && ps[i].calls == ps[j].calls &&
          ((ps[i].state == ps[j].state &&
            ps[i].state != PathState::BlockedMbar) ||
           (live(ps[i].state) && live(ps[j].state)))) {
        ps[i].mask |= ps[j].mask;
        if (live(ps[i].state))
          ps[i].state = PathState::Ready;
        ps.erase(ps.begin() + long(j));
        if (w.cur == j)
          w.cur = uint32_t(i);
        else if (w.cur > j)
          --w.cur;
      } else {
        ++j;
      }
    }
  uint32_t prev = w.cur < ps.size() ? ps[w.cur].pc : 0;
  int best = -1;
  if (random) {
    uint32_t n = 0;
    for (size_t i = 0; i < ps.size(); ++i)
      if (runnable(w, ps[i]))
        ++n;
    if (n == 0)
      return false;
    uint32_t k = uint32_t(rng.next() % n);
    for (size_t i = 0; i < ps.size(); ++i)
      if (runnable(w, ps[i]) && k-- == 0)
        best = int(i);
  } else if (w.path_steps >= kPathQuantum) {
    // Anti-starvation turn: the next runnable path after the current pc.
    int wrap = -1;
    for (size_t i = 0; i < ps.size(); ++i) {
      if (!runnable(w, ps[i]))
        continue;
      if (ps[i].pc > prev && (best < 0 || ps[i].pc < ps[size_t(best)].pc))
        best = int(i);
      if (wrap < 0 || ps[i].pc < ps[size_t(wrap)].pc)
        wrap = int(i);
    }
    if (best < 0)
      best = wrap;
    w.path_steps = 0;
  } else {
    for (size_t i = 0; i < ps.size(); ++i)
      if (runnable(w, ps[i]) && (best < 0 || ps[i].pc < ps[size_t(best)].pc))
        best = int(i);
  }
  if (best < 0)
    return false;
  if (uint32_t(best) != w.cur)
    w.path_steps = 0;
  w.cur = uint32_t(best);
  return true;
}

bool Worker::pick(Cta *&cta, Warp *&warp) {
  if (random) {
    std::vector<std::pair<Cta *, Warp *>> ready;
    for (auto &c : resident)
      for (auto &w : c->warps)
        if (select_path(w))
          ready.push_back({c.get(), &w});
    if (ready.empty())
      return false;
    auto &r = ready[rng.next() % ready.size()];
    cta = r.first;
    warp = r.second;
    return true;
  }
  size_t nc = resident.size();
  for (size_t k = 0; k <= nc; ++k) {
    Cta &c = *resident[rr_cta];
    size_t nw = c.warps.size();
    // `wrapped`: the round over this CTA's warps ended while skipping
    // blocked warps; move on to the next CTA after this pick, or a CTA whose
    // last warps are blocked while one warp spins would never yield to the
    // other CTAs (grid.sync spins exactly like that).
    bool wrapped = false;
    for (size_t j = 0; j < nw; ++j) {
      Warp &w = c.warps[c.next_warp];
      c.next_warp = uint32_t((c.next_warp + 1) % nw);
      if (select_path(w)) {
        cta = &c;
        warp = &w;
        if (c.next_warp == 0 || wrapped)
          rr_cta = (rr_cta + 1) % nc;
        return true;
      }
      if (c.next_warp == 0)
        wrapped = true;
    }
    rr_cta = (rr_cta + 1) % nc;
  }
  return false;
}

uint64_t Worker::run_warp(Cta &c, Warp &w, uint64_t quantum) {
  x.warp = &w;
  x.cta = &c;
  x.r = w.regs.data();
  x.p = w.preds.data();
  const Inst *code = P.code.data();
  uint64_t steps = 0, tsteps = 0;
  bool reselect = false;
  while (steps < quantum) {
    if (reselect || w.paths.size() > 1) {
      reselect = false;
      if (!select_path(w))
        break;
    }
    Path *p = &w.paths[w.cur];
    const Inst &in = code[p->pc];
    uint32_t m = p->mask;
    if (in.guard != kNone) {
      uint32_t g = x.p[in.guard];
      m &= in.guard_neg ? ~g : g;
    }
    ++steps;
    ++w.path_steps;
    tsteps += m == kFullMask ? kWarpSize : uint32_t(std::popcount(m));
    switch (in.kind) {
    case Kind::Plain:
      if (m)
        in.fn(x, in, m);
      if (x.faulted) {
        report_fault(c, w, p->pc, m);
        w.steps += steps;
        return steps;
      }
      ++p->pc;
      break;
    case Kind::Branch:
      if (m == p->mask) {
        p->pc = in.target;
      } else if (m == 0) {
        ++p->pc;
      } else {
        Path np;
        np.pc = in.target;
        np.mask = m;
        np.calls = p->calls;
        p->mask &= ~m;
        ++p->pc;
        w.paths.push_back(std::move(np));
        reselect = true;
      }
      break;
    case Kind::Exit:
      if (m == 0) {
        ++p->pc;
        break;
      }
      w.exited |= m;
      c.live_threads -= uint32_t(std::popcount(m));
      threads_exited(c, w, m);
      if (m == p->mask) {
        w.paths.erase(w.paths.begin() + w.cur);
        w.cur = 0;
        if (w.paths.empty())
          --c.live_warps;
      } else {
        p->mask &= ~m;
        ++p->pc;
      }
      reselect = true;
      if (!bar_exited(c, w)) {
        w.steps += steps;
        return steps;
      }
      if (w.paths.empty()) {
        w.steps += steps;
        pending_tsteps += tsteps;
        return steps;
      }
      break;
    case Kind::CtaBarrier: {
      if (m == 0) {
        ++p->pc;
        break;
      }
      if (m != p->mask)
        p = split_guarded(w, m);
      reselect = true;
      if (!barrier_step(c, w, w.cur)) {
        w.steps += steps;
        return steps;
      }
      break;
    }
    case Kind::Call:
    case Kind::Ret: {
      if (m == 0) {
        ++p->pc;
        break;
      }
      if (m != p->mask)
        p = split_guarded(w, m);
      if (in.kind == Kind::Call) {
        const CallSite &cs = P.calls[in.aux];
        if (p->calls.size() >= kMaxCallDepth) {
          x.set_error(FaultKind::Unsupported, uint32_t(std::countr_zero(m)),
                      "call depth limit exceeded");
          report_fault(c, w, p->pc, m);
          w.steps += steps;
          return steps;
        }
        for_lanes(m, [&](uint32_t l) {
          uint8_t *f = frame(c, w, l);
          for (auto &cp : cs.args)
            std::memmove(f + cp.to, f + cp.from, cp.size);
        });
        p->calls.push_back(p->pc);
        p->pc = in.target;
      } else {
        if (p->calls.empty()) { // ret outside any call: exit
          w.exited |= m;
          c.live_threads -= uint32_t(std::popcount(m));
          threads_exited(c, w, m);
          w.paths.erase(w.paths.begin() + w.cur);
          w.cur = 0;
          if (w.paths.empty())
            --c.live_warps;
          reselect = true;
          if (!bar_exited(c, w)) {
            w.steps += steps;
            return steps;
          }
          if (w.paths.empty()) {
            w.steps += steps;
            pending_tsteps += tsteps;
            return steps;
          }
          break;
        }
        uint32_t call_pc = p->calls.back();
        p->calls.pop_back();
        const CallSite &cs = P.calls[code[call_pc].aux];
        for_lanes(m, [&](uint32_t l) {
          uint8_t *f = frame(c, w, l);
          for (auto &cp : cs.rets)
            std::memmove(f + cp.to, f + cp.from, cp.size);
        });
        p->pc = call_pc + 1;
      }
      reselect = true;
      break;
    }
    case Kind::Printf: {
      const CallSite &cs = P.calls[in.aux];
      bool bad = false;
      for_lanes(m, [&](uint32_t l) {
        if (bad)
          return;
        uint8_t *f = frame(c, w, l);
        uint64_t fmt_addr, args_addr;
        std::memcpy(&fmt_addr, f + cs.printf_fmt, 8);
        std::memcpy(&args_addr, f + cs.printf_args, 8);
        int n = format_printf(x, fmt_addr, args_addr, l, c.printf_out);
        if (n < 0) {
          bad = true;
          return;
        }
        if (cs.printf_ret != kNone) {
          int32_t r = n;
          std::memcpy(f + cs.printf_ret, &r, 4);
        }
      });
      if (x.faulted) {
        report_fault(c, w, p->pc, m);
        w.steps += steps;
        return steps;
      }
      ++p->pc;
      break;
    }
    case Kind::WarpSync:
    case Kind::WarpSyncMember: {
      uint32_t mem = in.member == kNone
                         ? p->mask
                         : uint32_t(x.s(in.member)[std::countr_zero(p->mask)]);
      if (in.kind == Kind::WarpSyncMember) {
        // The executing thread must be in membermask (seed 002,
        // bar.warp.sync and elect.sync): each lane's own operand.
        const uint64_t *mv = x.s(in.member);
        uint32_t bad = 0;
        for_lanes(m, [&](uint32_t l) {
          if (!((mv[l] >> l) & 1))
            bad |= 1u << l;
        });
        if (bad) {
          uint32_t l = uint32_t(std::countr_zero(bad));
          report_error(
              RunStatus::Fault, c, w, l,
              fmt::format("'{}' executed by lane {}, which is not in its "
                          "membermask {:#010x} (the executing thread must be "
                          "a member)",
                          P.code_text[p->pc], l, uint32_t(mv[l])),
              p->pc);
          w.steps += steps;
          return steps;
        }
        uint32_t gone = mem & w.valid & w.exited;
        if (gone) {
          report_error(
              RunStatus::Deadlock, c, w, uint32_t(std::countr_zero(p->mask)),
              fmt::format("deadlock in kernel '{}': warp {} lanes {:#010x} "
                          "wait in '{}' for member lanes {:#010x} of "
                          "membermask {:#010x}, which have exited",
                          S.L.kernel_name, w.index, p->mask, P.code_text[p->pc],
                          gone, mem),
              p->pc);
          w.steps += steps;
          return steps;
        }
      }
      uint32_t required = warp_sync_required(in, mem, w);
      if (required & ~p->mask) {
        // Wait for the other listed lanes to converge here.
        p->state = PathState::WaitWarp;
        --steps;
        tsteps -= uint32_t(std::popcount(m));
        reselect = true;
        if (w.paths.size() == 1) {
          // Nobody else in this warp can arrive: the lanes exited or never
          // existed; report instead of waiting forever.
          x.set_error(
              FaultKind::WarpSync, uint32_t(std::countr_zero(p->mask)),
              fmt::format("warp-synchronous '{}' waits for lanes {:#010x} "
                          "that have exited or do not exist",
                          P.code_text[p->pc], required & ~p->mask));
          report_fault(c, w, p->pc, p->mask);
          w.steps += steps;
          return steps;
        }
        break;
      }
      if (m)
        in.fn(x, in, m);
      ++p->pc;
      break;
    }
    case Kind::Trap:
      if (m == 0) {
        ++p->pc;
        break;
      }
      x.set_error(FaultKind::Trap, uint32_t(std::countr_zero(m)), "trap");
      report_fault(c, w, p->pc, m);
      w.steps += steps;
      return steps;
    case Kind::Yield:
      ++p->pc;
      w.steps += steps;
      pending_tsteps += tsteps;
      return steps;
    case Kind::ClusterArrive:
    case Kind::ClusterWait:
      if (!cluster_step(c, w, p, in, m)) {
        w.steps += steps;
        return steps;
      }
      reselect = true;
      break;
    case Kind::GridDepWait:
      // Launches run in order (docs/clusters.md "griddepcontrol"): the
      // prerequisite grid has completed and its writes are visible.
      if (m && !S.L.has_prerequisite)
        S.note_griddep_wait(p->pc);
      ++p->pc;
      break;
    case Kind::MbarWait: {
      uint64_t bound = 0;
      bool suspend = m != 0 && mbar_wait(x, in, m, *p, bound);
      if (x.faulted) {
        report_fault(c, w, p->pc, m);
        w.steps += steps;
        return steps;
      }
      if (!p->wait_retry || !suspend)
        ++p->pc; // test_wait returned false, or the wait is over
      if (suspend) {
        p->state = PathState::BlockedMbar;
        p->wait_until = now + steps + bound;
        reselect = true;
        if (w.paths.size() == 1) {
          w.steps += steps;
          pending_tsteps += tsteps;
          return steps;
        }
      }
      break;
    }
    }
  }
  w.steps += steps;
  pending_tsteps += tsteps;
  return steps;
}

// ---- CTA barriers (docs/barriers.md) ---------------------------------------

// The values of one arrival's mapped BCU operands (lower.h): R0 = barrier
// id, R1 = count, R2 = packed id | count << 4, P0 = reduction input.
class BarLaneValues final : public bcu::LaneValues {
public:
  std::array<uint32_t, kWarpSize> id{}, count{}, packed{};
  uint32_t input = 0;
  uint32_t reg(unsigned lane, unsigned r) const override {
    lane &= kWarpSize - 1;
    return r == kBarIdReg       ? id[lane]
           : r == kBarCountReg  ? count[lane]
           : r == kBarPackedReg ? packed[lane]
                                : 0;
  }
  uint32_t pred(unsigned p) const override {
    return p == kBarInputPred ? input : 0;
  }
};

bool is_red(BarrierOp op) {
  return op == BarrierOp::RedPopc || op == BarrierOp::RedAnd ||
         op == BarrierOp::RedOr;
}

std::string warp_list(uint32_t warps) {
  std::string s;
  bcu::for_each_bit(warps, [&](unsigned w) {
    s += (s.empty() ? "" : ",") + std::to_string(w);
  });
  return s;
}

// Kinds of barrier diagnostics (warn-only deduplication key).
constexpr int kAlignedDivergent = 100;

std::optional<uint32_t> Worker::path_barrier(Warp &w, const Path &p) const {
  const BarrierCode &bc = P.barriers[P.code[p.pc].aux];
  if (bc.id_slot == kNone)
    return bc.imm_id;
  if (p.mask == 0)
    return std::nullopt;
  return uint32_t(w.regs[size_t(bc.id_slot) * kWarpSize +
                         uint32_t(std::countr_zero(p.mask))]) &
         0xfu;
}

bool Worker::bar_report(Cta &c, Warp &w, uint32_t pc, int kind, Diagnostic d) {
  (void)w;
  if (!S.cfg.warn_only) {
    S.fail(RunStatus::Fault, {std::move(d)});
    return false;
  }
  // --warn-only: the run goes on as the barrier unit does (docs/barriers.md
  // "--warn-only"); each (instruction, kind) is reported once per CTA.
  if (!c.bars.warned.insert({pc, kind}).second)
    return true;
  d.severity = Severity::Warning;
  std::lock_guard<std::mutex> g(S.mu);
  S.warnings.push_back(std::move(d));
  return true;
}

bool Worker::barrier_step(Cta &c, Warp &w, uint32_t pi) {
  // PTX: a barrier instruction makes the thread wait for all non-exited
  // threads of its warp, and the warp arrives once (sm_70+). For .aligned
  // forms the lanes must all be at this same instruction: the engine's
  // divergent paths are merged here first (as the hardware reconverges
  // before an aligned barrier), and lanes found at another instruction are
  // the .aligned divergence error.
  w.paths[pi].state = PathState::WaitBarrier;
  return try_group(c, w);
}

bool Worker::try_group(Cta &c, Warp &w) {
  uint32_t live = w.valid & ~w.exited, waiting = 0;
  // Every barrier instruction of every warp comes here: no allocation. A
  // warp has at most 32 paths (their lane masks are disjoint, non-empty).
  std::array<uint32_t, kWarpSize> slots;
  size_t n = 0;
  for (uint32_t i = 0; i < w.paths.size() && n < slots.size(); ++i)
    if (w.paths[i].state == PathState::WaitBarrier) {
      waiting |= w.paths[i].mask;
      slots[n++] = i;
    }
  const std::span<const uint32_t> group(slots.data(), n);
  if (group.empty() || (live & ~waiting) != 0)
    return true; // other lanes of the warp have still to come
  auto b0 = path_barrier(w, w.paths[group[0]]);
  for (uint32_t i : group)
    if (path_barrier(w, w.paths[i]) != b0)
      return true; // lanes at different barriers: reported as a deadlock
  bool one_pc = true;
  for (uint32_t i : group)
    one_pc = one_pc && w.paths[i].pc == w.paths[group[0]].pc;
  for (uint32_t i : group) {
    const Path &p = w.paths[i];
    if (one_pc || !P.barriers[P.code[p.pc].aux].aligned)
      continue;
    uint32_t pc = p.pc, here = 0;
    for (uint32_t j : group)
      if (w.paths[j].pc == pc)
        here |= w.paths[j].mask;
    Diagnostic d =
        where(c, w, uint32_t(std::countr_zero(here)),
              fmt::format("'{}' is .aligned, but warp {} reaches it divergent: "
                          "lanes {:#010x} execute it, lanes {:#010x} do not",
                          P.code_text[pc], w.index, here, live & ~here),
              pc);
    for (uint32_t j : group)
      if (w.paths[j].pc != pc) {
        Diagnostic n;
        n.severity = Severity::Note;
        n.loc = P.locs[w.paths[j].pc];
        n.message = fmt::format("lanes {:#010x} of warp {} are at this "
                                "barrier instruction instead",
                                w.paths[j].mask, w.index);
        d.notes.push_back(std::move(n));
      }
    Diagnostic n;
    n.severity = Severity::Note;
    n.message = "bar.* is barrier.*.aligned: every thread of the warp must "
                "execute the same barrier instruction; in divergent code use "
                "the non-aligned barrier.sync / barrier.arrive / barrier.red";
    d.notes.push_back(std::move(n));
    if (!bar_report(c, w, pc, kAlignedDivergent, std::move(d)))
      return false;
    break;
  }
  return bar_arrive(c, w, group);
}

bool Worker::bar_arrive(Cta &c, Warp &w, std::span<const uint32_t> group) {
  uint32_t active = 0, lead = group[0];
  for (uint32_t i : group) {
    active |= w.paths[i].mask;
    if (std::countr_zero(w.paths[i].mask) <
        std::countr_zero(w.paths[lead].mask))
      lead = i;
  }
  const uint32_t pc = w.paths[lead].pc;
  const BarrierCode &lc = P.barriers[P.code[pc].aux];
  BarLaneValues v;
  for (uint32_t i : group) {
    const Path &q = w.paths[i];
    const BarrierCode &bc = P.barriers[P.code[q.pc].aux];
    if (bc.id_slot != kNone || bc.count_slot != kNone)
      for_lanes(q.mask, [&](uint32_t l) {
        uint32_t id = bc.id_slot != kNone
                          ? uint32_t(w.regs[size_t(bc.id_slot) * kWarpSize + l])
                          : bc.imm_id;
        uint32_t n =
            bc.count_slot != kNone
                ? uint32_t(w.regs[size_t(bc.count_slot) * kWarpSize + l])
                : 0;
        v.id[l] = id;
        v.count[l] = n;
        v.packed[l] = (id & 0xfu) | (n & 0xfffu) << 4;
      });
    if (bc.pred != kNone) {
      // Lanes of another instruction (non-aligned, different pcs) are given
      // so that the lead instruction's negation yields their own input.
      uint32_t raw = w.preds[bc.pred];
      if (bc.pred_negated != lc.pred_negated)
        raw = ~raw;
      v.input |= raw & q.mask;
    }
  }
  auto &unit = *c.bars.unit;
  c.bars.raised.clear();
  bcu::Outcome out = unit.execute(w.index, active, lc.arrive, v);
  if (!c.bars.raised.empty()) {
    std::vector<bcu::Event> raised = std::move(c.bars.raised);
    c.bars.raised.clear();
    for (const auto &e : raised) {
      unsigned b = e.barrier >= 0 ? unsigned(e.barrier) : 0;
      std::string msg;
      switch (e.exception) {
      case bcu::ExceptionKind::CountMismatch:
        msg = fmt::format("different thread counts on barrier {}: warp {} "
                          "arrives with another count than the warps already "
                          "there (PTX: cooperating warps must use the same "
                          "thread count)",
                          b, w.index);
        break;
      case bcu::ExceptionKind::RedMixed:
        msg = fmt::format("barrier {} mixes .red (a reduction) with "
                          ".sync/.arrive in one phase (PTX: barrier.red "
                          "should not be intermixed with barrier.sync or "
                          "barrier.arrive using the same active barrier)",
                          b);
        break;
      case bcu::ExceptionKind::DoubleArrival:
        msg = fmt::format("warp {} arrives again at barrier {} before it "
                          "reset (PTX: a warp must not execute another "
                          "barrier instruction on a barrier it arrived at "
                          "before the barrier completes)",
                          w.index, b);
        break;
      case bcu::ExceptionKind::BadCount:
        msg = fmt::format("bad thread count on barrier {} (PTX: the count "
                          "must be a multiple of the warp size, and at most "
                          "the CTA's threads)",
                          b);
        break;
      default:
        msg = fmt::format("barrier unit exception on barrier {}", b);
        break;
      }
      Diagnostic d = where(c, w, uint32_t(std::countr_zero(active)), msg, pc);
      Diagnostic n;
      n.severity = Severity::Note;
      n.message = fmt::format("barrier unit: {} exception: {}",
                              bcu::name(e.exception), e.message);
      d.notes.push_back(n);
      if (e.barrier >= 0)
        bcu::for_each_bit(e.warps, [&](unsigned x) {
          if (x >= c.warps.size() ||
              (x == w.index &&
               e.exception != bcu::ExceptionKind::DoubleArrival))
            return;
          Diagnostic m;
          m.severity = Severity::Note;
          m.loc = P.locs[c.bars.pc[b][x]];
          m.message =
              x == w.index
                  ? fmt::format("warp {} arrived at barrier {} here before", x,
                                b)
                  : fmt::format("warp {} arrived at barrier {} here", x, b);
          d.notes.push_back(std::move(m));
        });
      if (!bar_report(c, w, pc, int(e.exception), std::move(d)))
        return false;
    }
  }
  if (out.barrier >= 0)
    c.bars.pc[unsigned(out.barrier)][w.index] = pc;
  if (out.status == bcu::Status::Blocked) {
    for (uint32_t i : group)
      w.paths[i].state = PathState::BlockedCta;
    w.bar_blocked = true;
  } else {
    for (uint32_t i : group)
      bar_finish(c, w, w.paths[i]);
  }
  bar_released(c);
  return true;
}

// The path's barrier completed: BAR.RESULT for .red, then the next pc.
void Worker::bar_finish(Cta &c, Warp &w, Path &p) {
  const BarrierCode &bc = P.barriers[P.code[p.pc].aux];
  if (is_red(bc.op)) {
    BarLaneValues none;
    bcu::Outcome out = c.bars.unit->execute(w.index, p.mask, bc.result, none);
    c.bars.raised.clear();
    if (out.rd)
      for_lanes(out.rd->lanes & p.mask, [&](uint32_t l) {
        w.regs[size_t(bc.dst) * kWarpSize + l] = out.rd->values[l];
      });
    if (out.pu) {
      uint32_t lanes = out.pu->lanes & p.mask;
      w.preds[bc.dst] = (w.preds[bc.dst] & ~lanes) | (out.pu->values & lanes);
    }
  }
  p.state = PathState::Ready;
  ++p.pc;
}

void Worker::bar_released(Cta &c) {
  uint32_t released = c.bars.unit->take_released();
  bcu::for_each_bit(released, [&](unsigned wi) {
    Warp &x = c.warps[wi];
    x.bar_blocked = false;
    for (auto &p : x.paths)
      if (p.state == PathState::BlockedCta)
        bar_finish(c, x, p);
  });
}

// Lanes of `w` exited: a fully exited warp is no longer waited for by
// count-0 barriers; partly exited, its lanes waiting at a non-aligned
// barrier may now be complete.
bool Worker::bar_exited(Cta &c, Warp &w) {
  if (w.paths.empty()) {
    c.bars.raised.clear();
    c.bars.unit->warp_exited(w.index);
    c.bars.raised.clear();
    bar_released(c);
    return true;
  }
  return try_group(c, w);
}

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
  n.message =
      fmt::format("in kernel '{}', CTA {}, warp {}, lane {}, thread {}",
                  S.L.kernel_name, dim_str(c.id), w.index, lane, dim_str(tid));
  d.notes.push_back(std::move(n));
  return d;
}

void Worker::report_fault(Cta &c, Warp &w, uint32_t pc, uint32_t lanes) {
  (void)lanes;
  const Fault &f = x.fault;
  std::string msg;
  RunStatus st = RunStatus::Fault;
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
    msg = "trap executed";
    st = RunStatus::Trap;
    break;
  default:
    msg = f.detail;
    break;
  }
  if (f.kind == FaultKind::Trap || f.kind == FaultKind::Unsupported ||
      f.kind == FaultKind::WarpSync || f.kind == FaultKind::Cluster ||
      f.kind == FaultKind::Mbarrier)
    ;
  else if (!f.detail.empty())
    msg += ": " + f.detail;
  Diagnostic d = where(c, w, f.lane, msg, pc);
  if (f.space == MemSpace::Global &&
      (f.kind == FaultKind::OutOfBounds || f.kind == FaultKind::Null)) {
    Diagnostic n;
    n.severity = Severity::Note;
    if (const Allocation *a = S.mem.nearest(f.addr)) {
      std::string what = a->module_var     ? "variable '" + a->name + "'"
                         : a->name.empty() ? "allocation"
                                           : "allocation (" + a->name + ")";
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
    uint64_t size = f.space == MemSpace::Shared  ? c.shared.size()
                    : f.space == MemSpace::Local ? P.frame_bytes
                    : f.space == MemSpace::Const ? P.const_image.size()
                                                 : S.L.kparams.size();
    n.message =
        fmt::format("the .{} space of this {} holds {} bytes", name_of(f.space),
                    f.space == MemSpace::Local    ? "thread"
                    : f.space == MemSpace::Shared ? "CTA"
                                                  : "kernel",
                    size);
    d.notes.push_back(std::move(n));
  }
  S.fail(st, {std::move(d)});
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
        S.L.kernel_name, dim_str(c0.id), head->barrier,
        std::popcount(head->waiting) == 1 ? "" : "s", warp_list(head->waiting),
        std::popcount(head->waiting) == 1 ? "s" : "", head->arrived_threads,
        expected(*head));
  else
    d.message = fmt::format(
        "deadlock in kernel '{}': every remaining warp of CTA {} is blocked",
        S.L.kernel_name, dim_str(c0.id));
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
          uint32_t mem = uint32_t(
              w.regs[size_t(in.member) * kWarpSize + std::countr_zero(p.mask)]);
          uint32_t missing = warp_sync_required(in, mem, w) & ~p.mask;
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
          why = describe_mbar_wait(P, c, p);
          n.loc = P.locs[p.wait_pc];
        } else if (p.state == PathState::BlockedCluster && c.cluster)
          why = fmt::format("waits at the cluster barrier (phase {}: {} of {} "
                            "live threads of the cluster arrived)",
                            c.cluster->phase, c.cluster->arrived,
                            c.cluster->live);
        else
          why = "is blocked";
        n.message = fmt::format("{}warp {} lanes {:#010x} {}",
                                &c == &c0 ? "" : "CTA " + dim_str(c.id) + " ",
                                w.index, p.mask, why);
        if (first && (!head || (&c == &c0 && p.state == PathState::BlockedCta &&
                                unit.waiting_on(w.index) == head->barrier))) {
          d.loc = n.loc;
          first = false;
        }
        d.notes.push_back(std::move(n));
      }
  S.fail(RunStatus::Deadlock, {std::move(d)});
}

// Nothing can run: the suspended mbarrier waits of a CTA are woken as if
// their bounds had passed (a try_wait then returns false), at most
// kIdleWakeRounds times in a row without any change to the CTA's mbarriers;
// after that the waits can no longer complete and the caller reports a
// deadlock (docs/mbarrier.md "Deadlocks").
bool Worker::wake_mbar_waits() {
  constexpr uint32_t kIdleWakeRounds = 8;
  bool woke = false;
  for (auto &rc : resident) {
    Cta &c = *rc;
    if (c.mbar.events != c.mbar.idle_events) {
      c.mbar.idle_events = c.mbar.events;
      c.mbar.idle_rounds = 0;
    }
    if (c.mbar.idle_rounds >= kIdleWakeRounds)
      continue;
    bool any = false;
    for (auto &w : c.warps)
      for (auto &p : w.paths)
        if (p.state == PathState::BlockedMbar) {
          p.state = PathState::Ready;
          p.wait_timed_out = true;
          any = true;
        }
    if (any) {
      ++c.mbar.idle_rounds;
      woke = true;
    }
  }
  return woke;
}

void Worker::report_limit(RunStatus st, Cta &c, Warp &w) {
  select_path(w);
  uint32_t pc = w.paths.empty() ? 0 : w.paths[w.cur].pc;
  uint32_t mask = w.paths.empty() ? 0 : w.paths[w.cur].mask;
  std::string what =
      st == RunStatus::StepLimit
          ? fmt::format("kernel '{}' did not finish within --max-steps {} "
                        "warp-instructions",
                        S.L.kernel_name, S.cfg.max_steps)
          : fmt::format(
                "kernel '{}' did not finish within the time limit of {} s",
                S.L.kernel_name, S.cfg.time_limit_s);
  Diagnostic d =
      where(c, w, mask ? uint32_t(std::countr_zero(mask)) : 0, what, pc);
  Diagnostic n;
  n.severity = Severity::Note;
  n.message = fmt::format("still running here: warp {} lanes {:#010x} ('{}')",
                          w.index, mask, P.code_text[pc]);
  d.notes.push_back(std::move(n));
  S.fail(st, {std::move(d)});
}

// Retires a finished CTA's unit once every CTA of its cluster finished:
// a cluster's shared memory stays alive until then, so that an access to
// an exited peer is reported rather than reaching a reused CTA.
void Worker::retire_unit(Cta *c) {
  ClusterState *cl = c->cluster;
  if (!cl) {
    for (size_t i = 0; i < resident.size(); ++i)
      if (resident[i].get() == c) {
        retire(i);
        break;
      }
    return;
  }
  for (Cta *k : cl->ctas)
    if (k && k->live_warps)
      return;
  for (Cta *k : cl->ctas) {
    k->cluster = nullptr;
    for (size_t i = 0; i < resident.size(); ++i)
      if (resident[i].get() == k) {
        retire(i);
        break;
      }
  }
  for (size_t i = 0; i < clusters.size(); ++i)
    if (clusters[i].get() == cl) {
      cluster_pool.push_back(std::move(clusters[i]));
      clusters.erase(clusters.begin() + long(i));
      break;
    }
}

void Worker::threads_exited(Cta &c, Warp &w, uint32_t lanes) {
  cluster_threads_exited(c, w, lanes);
}

void Worker::report_error(RunStatus st, Cta &c, Warp &w, uint32_t lane,
                          std::string msg, uint32_t pc) {
  S.fail(st, {where(c, w, lane, std::move(msg), pc)});
}

// barrier.cluster.arrive / .wait (seed 002, docs/clusters.md): each thread
// arrives once per phase; wait blocks the path until the phase its lanes
// arrived in completes, i.e. until every non-exited thread of every CTA of
// the cluster arrived. False after reporting an error.
Path *Worker::split_guarded(Warp &w, uint32_t m) {
  Path &cur = w.paths[w.cur];
  Path np;
  np.pc = cur.pc + 1;
  np.mask = cur.mask & ~m;
  np.calls = cur.calls;
  cur.mask = m;
  w.paths.push_back(std::move(np));
  return &w.paths[w.cur];
}

bool Worker::cluster_step(Cta &c, Warp &w, Path *&p, const Inst &in,
                          uint32_t m) {
  if (m == 0) {
    ++p->pc;
    return true;
  }
  ClusterState &cl = *c.cluster;
  const bool arrive = in.kind == Kind::ClusterArrive;
  if (in.flags & 1) {
    uint32_t live = w.valid & ~w.exited;
    if (m != live) {
      report_error(
          RunStatus::Fault, c, w, uint32_t(std::countr_zero(m)),
          fmt::format("'{}' executed by lanes {:#010x} of warp {}, but its "
                      "non-exited lanes are {:#010x}: .aligned requires every "
                      "thread of the warp to execute it together",
                      P.code_text[p->pc], m, w.index, live),
          p->pc);
      return false;
    }
  }
  auto &arr = cl.has_arrived[c.cluster_rank];
  if (arrive) {
    uint32_t twice = 0;
    for_lanes(m, [&](uint32_t l) {
      if (arr[w.index * kWarpSize + l])
        twice |= 1u << l;
    });
    if (twice) {
      uint32_t l = uint32_t(std::countr_zero(twice));
      report_error(
          RunStatus::Fault, c, w, l,
          fmt::format("'{}': thread arrives twice in phase {} of the cluster "
                      "barrier (each thread arrives once per phase, then "
                      "waits with barrier.cluster.wait)",
                      P.code_text[p->pc], cl.phase),
          p->pc);
      return false;
    }
    for_lanes(m, [&](uint32_t l) { arr[w.index * kWarpSize + l] = 1; });
    uint32_t n = uint32_t(std::popcount(m));
    cl.arrived += n;
    cl.pending -= n;
    ++p->pc;
    if (cl.pending == 0)
      cluster_complete_phase(cl);
    return true;
  }
  // wait: lanes with an arrival in the current phase block; lanes without
  // one (their phase already completed) pass.
  bool pending = false;
  for_lanes(m, [&](uint32_t l) { pending |= arr[w.index * kWarpSize + l]; });
  if (!pending) {
    ++p->pc;
    return true;
  }
  if (m != p->mask)
    p = split_guarded(w, m);
  p->state = PathState::BlockedCluster;
  return true;
}

void Worker::run() {
  using clock = std::chrono::steady_clock;
  const uint64_t max_steps = S.cfg.max_steps;
  const bool timed = S.cfg.time_limit_s > 0;
  while (!S.stop.load(std::memory_order_relaxed)) {
    // A random schedule also admits units at random moments, so that CTAs
    // interleave in different orders.
    // A cooperative launch (it reads the grid workspace for grid.sync)
    // needs all CTAs resident at once: admit every unit up front.
    if (S.cooperative)
      while (admit()) {
      }
    if (resident.empty() || since_admit >= kAdmitSteps ||
        (random && rng.next() % 16 == 0)) {
      if (!admit() && resident.empty())
        break;
    }
    Cta *c = nullptr;
    Warp *w = nullptr;
    if (!pick(c, w)) {
      if (wake_mbar_waits())
        continue;
      for (auto &r : resident)
        if (r->live_warps) {
          report_deadlock(*r);
          break;
        }
      break;
    }
    uint64_t quantum = random ? 1 + rng.next() % kRandomQuantum : kWarpQuantum;
    if (max_steps) {
      uint64_t done = S.steps.load(std::memory_order_relaxed);
      if (done >= max_steps) {
        report_limit(RunStatus::StepLimit, *c, *w);
        break;
      }
      quantum = std::min(quantum, max_steps - done);
    }
    uint64_t n = run_warp(*c, *w, quantum);
    c->steps += n;
    now += n;
    // Asynchronous copies complete at the latest when the issuing warp's
    // turn ends (docs/mbarrier.md "Asynchronous copies").
    if (!c->mbar.pending.empty() && !S.stop.load(std::memory_order_relaxed)) {
      uint32_t fw = 0, fpc = 0;
      if (!flush_async(x, *c, fw, fpc)) {
        report_fault(*c, c->warps[fw], fpc, 0);
        break;
      }
    }
    since_admit += n;
    // The shared counter is exact when a step limit needs it, batched
    // otherwise (less cache-line traffic between host threads).
    pending_steps += n;
    if (max_steps || pending_steps >= 4096) {
      S.steps.fetch_add(pending_steps, std::memory_order_relaxed);
      pending_steps = 0;
    }
    if (S.stop.load(std::memory_order_relaxed))
      break;
    if (c->live_warps == 0)
      retire_unit(c);
    if (timed && (++local_quanta & 255) == 0) {
      double el = std::chrono::duration<double>(clock::now() - S.start).count();
      if (el > S.cfg.time_limit_s && !resident.empty()) {
        Cta &rc = *resident[0];
        for (auto &rw : rc.warps)
          if (!rw.paths.empty()) {
            report_limit(RunStatus::TimeLimit, rc, rw);
            break;
          }
        break;
      }
    }
  }
  S.steps.fetch_add(pending_steps, std::memory_order_relaxed);
  S.thread_steps.fetch_add(pending_tsteps, std::memory_order_relaxed);
  pending_steps = pending_tsteps = 0;
  flush_resident();
}

} // namespace

RunReport run_launch(GlobalMemory &mem, const Launch &launch,
                     const LaunchConfig &cfg) {
  LaunchState S(launch, cfg, mem);
  S.unit_ctas = uint32_t(launch.cluster.count());
  S.nunits = launch.grid.count() / S.unit_ctas;
  S.start = std::chrono::steady_clock::now();
  S.cooperative = launch.grid_workspace != 0;
  unsigned threads = cfg.host_threads
                         ? cfg.host_threads
                         : std::max(1u, std::thread::hardware_concurrency());
  if (cfg.schedule.kind == Schedule::Kind::Random)
    threads = 1;
  threads = unsigned(std::min<uint64_t>(threads, S.nunits));
  if (threads <= 1) {
    Worker w(S, 0);
    w.run();
  } else {
    std::vector<std::thread> ts;
    std::vector<std::unique_ptr<Worker>> ws;
    for (unsigned i = 0; i < threads; ++i)
      ws.push_back(std::make_unique<Worker>(S, i));
    for (unsigned i = 0; i < threads; ++i)
      ts.emplace_back([&, i] { ws[i]->run(); });
    for (auto &t : ts)
      t.join();
  }
  RunReport r;
  r.status = S.failure.status;
  r.diagnostics = std::move(S.warnings);
  for (auto &d : S.failure.diags)
    r.diagnostics.push_back(std::move(d));
  for (auto &[k, s] : S.printf_by_cta)
    r.printf_output += s;
  if (S.griddep_wait_pc != kNone) {
    Diagnostic n;
    n.severity = Severity::Note;
    n.loc = launch.prog->locs[S.griddep_wait_pc];
    n.message = fmt::format(
        "griddepcontrol.wait in kernel '{}', a launch without a prerequisite "
        "grid: it returns at once (harmless)",
        launch.kernel_name);
    r.notes.push_back(std::move(n));
  }
  r.warp_steps = S.steps.load();
  r.thread_steps = S.thread_steps.load();
  r.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - S.start)
          .count();
  return r;
}

} // namespace bcusim::engine::detail
