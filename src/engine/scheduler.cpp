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
// - `reverse` admits units and runs CTAs and warps in decreasing order;
//   `delay:W` runs warp W of a CTA only when no other warp of the worker
//   can run, or once the others block or spin.
// - `random:SEED` picks the warp and the path at random from a splitmix64
//   stream, on one host thread, admits units at random moments, and ends a
//   warp's turn before a memory or synchronization instruction with
//   probability 1/16 (warp_step.cpp), so that a random schedule costs about
//   what round-robin does.
// - Spinning: once the worker's progress counter (stores, atomics, sync,
//   exits) stands still for kQuietSteps, each warp's state is fingerprinted
//   at backward branches; when every warp is blocked or repeats a state at
//   the same progress epoch, the launch is deadlocked (docs/engine.md
//   "Deadlocks").
#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "cluster_addr.h"
#include "mbarrier.h"
#include "observe.h"
#include "run.h"
#include "worker.h"

namespace bcusim::engine::detail {

std::string dim_str(const Dim3 &d) {
  return fmt::format("({},{},{})", d.x, d.y, d.z);
}

Dim3 unflatten(uint64_t i, const Dim3 &d) {
  return Dim3{uint32_t(i % d.x), uint32_t(i / d.x % d.y),
              uint32_t(i / (uint64_t(d.x) * d.y))};
}

std::string warp_list(uint32_t warps) {
  std::string s;
  bcu::for_each_bit(warps, [&](unsigned w) {
    if (!s.empty())
      s.push_back(',');
    s.append(std::to_string(w));
  });
  return s;
}

void LaunchState::note_griddep_wait(uint32_t pc) {
  std::lock_guard<std::mutex> g(mu);
  if (griddep_wait_pc == kNone)
    griddep_wait_pc = pc;
}

void LaunchState::fail(RunStatus st, RunProblem kind, std::vector<Diagnostic> d,
                       uint64_t allocation, std::vector<SourceLoc> call_stack) {
  std::lock_guard<std::mutex> g(mu);
  if (failure.status == RunStatus::Ok) {
    failure.status = st;
    failure.kind = kind;
    failure.allocation = allocation;
    failure.diags = std::move(d);
    failure.call_stack = std::move(call_stack);
  }
  stop = true;
}

void LaunchState::warn(Diagnostic d, RunProblem kind) {
  std::lock_guard<std::mutex> g(mu);
  d.severity = Severity::Warning;
  warnings.push_back({std::move(d), kind});
}

void LaunchState::survived_error(Diagnostic d, RunProblem kind) {
  std::lock_guard<std::mutex> g(mu);
  d.severity = Severity::Error;
  warnings.push_back({std::move(d), kind});
}

namespace {
// The worker this host thread runs now: its Exec names the CTA and warp it
// runs (LaunchView::call_stack). Set once per Worker::run, restored after
// (a device-side launch runs inside its parent's turn); the CTAs it names
// live as long as the worker (retired ones wait in its pool).
thread_local const Exec *running = nullptr;
struct RunningScope {
  const Exec *outer;
  explicit RunningScope(const Exec *x) : outer(running) { running = x; }
  ~RunningScope() { running = outer; }
  RunningScope(const RunningScope &) = delete;
  RunningScope &operator=(const RunningScope &) = delete;
};
} // namespace

Worker::Worker(LaunchState &s, unsigned index)
    : S(s), P(s.P), rng(s.cfg.schedule.seed), me(index) {
  x.launch = &S.L;
  x.prog = &P;
  x.gmem = &S.mem;
  x.sync_obs = S.obs;
  x.obs = S.obs && S.obs->wants_accesses() ? S.obs : nullptr;
  random = S.cfg.schedule.kind == Schedule::Kind::Random;
  reverse = S.cfg.schedule.kind == Schedule::Kind::Reverse;
  if (S.cfg.schedule.kind == Schedule::Kind::Delay)
    delayed = S.cfg.schedule.warp;
  policy.random = random;
  policy.rng = &rng;
}

void Worker::init_cta(Cta &c, const Dim3 &id, const Dim3 &cluster_id,
                      const Dim3 &cluster_ctaid, uint32_t rank) {
  const Launch &L = S.L;
  c.id = id;
  c.linear =
      id.x + uint64_t(id.y) * L.grid.x + uint64_t(id.z) * L.grid.x * L.grid.y;
  c.cluster_id = cluster_id;
  c.cluster_ctaid = cluster_ctaid;
  c.cluster_rank = rank;
  c.shared_base = shared_cluster_base(rank);
  c.nthreads = uint32_t(L.block.count());
  uint32_t nwarps = (c.nthreads + kWarpSize - 1) / kWarpSize;
  c.warps.resize(nwarps);
  for (uint32_t i = 0; i < nwarps; ++i) {
    Warp &w = c.warps[i];
    w.index = i;
    uint32_t rem = c.nthreads - i * kWarpSize;
    w.valid = rem >= kWarpSize ? kFullMask : ((1u << rem) - 1);
    w.exited = 0;
    if (w.regs.size() * sizeof(uint64_t) != P.reg_bytes) {
      w.regs.assign(P.reg_bytes / sizeof(uint64_t), 0);
      for (auto [slot, v] : P.const_slots)
        for (uint32_t l = 0; l < kWarpSize; ++l)
          write_lane(w.reg_file(), slot, l, v);
      w.preds.assign(P.npreds, 0);
      for (auto [p, v] : P.const_preds)
        w.preds[p] = v;
    }
    // The CTA's own shared addresses carry its cluster rank.
    for (auto [slot, v] : P.cta_shared_slots)
      for (uint32_t l = 0; l < kWarpSize; ++l)
        write_lane(w.reg_file(), slot, l, v + c.shared_base);
    w.paths.clear();
    w.stacks.clear();
    Path p;
    p.pc = L.kernel->entry_pc;
    p.mask = w.valid;
    w.paths.push_back(std::move(p));
    w.cur = 0;
    w.path_steps = 0;
    w.steps = 0;
  }
  c.shared.assign(L.shared_bytes, 0);
  c.local.assign(size_t(L.local_bytes) * c.nthreads, 0);
  c.live_threads = c.nthreads;
  c.live_warps = nwarps;
  // A fresh barrier unit per CTA; only its exceptions are observed (the
  // hot path builds no event log).
  c.bars.unit = std::make_unique<bcu::BarrierUnit>(c.nthreads);
  c.bars.unit->set_recording(false);
  c.bars.unit->set_observer(
      [bars = &c.bars, observed = S.obs != nullptr](const bcu::Event &e) {
        if (e.kind == bcu::EventKind::Exception)
          bars->raised.push_back(e);
        else if (observed && (e.kind == bcu::EventKind::Arrive ||
                              e.kind == bcu::EventKind::Complete))
          bars->seen.push_back(e);
      });
  c.bars.seen.clear();
  c.bars.raised.clear();
  c.bars.warned.clear();
  for (auto &w : c.warps)
    w.bar_blocked = false;
  c.next_warp = 0;
  c.steps = 0;
  c.delay_released = false;
  for (auto &w : c.warps) {
    w.spinning = false;
    w.spin_epoch = ~0ull;
    w.spin_tick = 0;
  }
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
  if (reverse)
    u = S.nunits - 1 - u;
  flat_dirty = true;
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
  cs->reset(P, S.unit_ctas, uint32_t(L.block.count()));
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
  if (S.obs)
    for (Cta *c : cs->ctas) {
      CtaEvent e;
      e.cta = c->linear;
      e.cluster = cs->ctas[0]->linear;
      S.obs->on_cta_begin(e);
    }
  clusters.push_back(std::move(cs));
  since_admit = 0;
  return true;
}

void Worker::retire(size_t i) {
  Cta &c = *resident[i];
  if (S.obs) {
    CtaEvent e;
    e.cta = c.linear;
    S.obs->on_cta_end(e);
  }
  if (!c.printf_out.empty()) {
    std::lock_guard<std::mutex> g(S.mu);
    S.printf_by_cta[c.linear] = std::move(c.printf_out);
    c.printf_out.clear();
  }
  pool.push_back(std::move(resident[i]));
  resident.erase(resident.begin() + long(i));
  flat_dirty = true;
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

bool Worker::pick(Cta *&cta, Warp *&warp) {
  if (random)
    return pick_random(cta, warp);
  if (pick_in_order(cta, warp, delayed == kNone))
    return true;
  // Only delayed warps are left to run.
  return delayed != kNone && pick_in_order(cta, warp, true);
}

// A uniformly drawn resident warp, or the next runnable one after it.
bool Worker::pick_random(Cta *&cta, Warp *&warp) {
  if (flat_dirty) {
    flat.clear();
    for (auto &c : resident)
      for (auto &w : c->warps)
        flat.push_back({c.get(), &w});
    flat_dirty = false;
  }
  if (flat.empty())
    return false;
  size_t n = flat.size(), start = rng.next() % n;
  for (size_t k = 0; k < n; ++k) {
    auto &r = flat[(start + k) % n];
    if (!r.second->paths.empty() && select(*r.second)) {
      cta = r.first;
      warp = r.second;
      return true;
    }
  }
  return false;
}

// Round-robin over the resident CTAs and their warps, in increasing or
// (reverse) decreasing order; the delayed warp only `with_delayed` or once
// released.
bool Worker::pick_in_order(Cta *&cta, Warp *&warp, bool with_delayed) {
  size_t nc = resident.size();
  for (size_t k = 0; k <= nc; ++k) {
    Cta &c = *resident[reverse ? nc - 1 - rr_cta : rr_cta];
    size_t nw = c.warps.size();
    // `wrapped`: the round over this CTA's warps ended while skipping
    // blocked warps; move on to the next CTA after this pick, or a CTA whose
    // last warps are blocked while one warp spins would never yield to the
    // other CTAs (grid.sync spins exactly like that).
    bool wrapped = false;
    for (size_t j = 0; j < nw; ++j) {
      Warp &w = c.warps[reverse ? nw - 1 - c.next_warp : c.next_warp];
      c.next_warp = uint32_t((c.next_warp + 1) % nw);
      bool held = w.index == delayed && !with_delayed && !c.delay_released;
      if (!held && select(w)) {
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

// ---- Spinning
// ---------------------------------------------------------------- The progress
// epoch: this worker's progress counter plus what the other workers published.
uint64_t Worker::epoch() const {
  uint64_t e = x.progress;
  for (unsigned i = 0; i < S.nworkers; ++i)
    if (i != me)
      e += S.published[i].progress.load(std::memory_order_acquire);
  return e;
}

namespace {
// The state a warp's future depends on, given unchanged memory: its paths
// (pc, lanes, state, call depth), exited lanes, registers and predicates.
uint64_t fingerprint(const Warp &w) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  auto mix = [&](uint64_t v) {
    h ^= v;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 29;
  };
  mix(w.exited);
  mix(w.cur);
  for (const auto &p : w.paths) {
    mix(uint64_t(p.pc) << 32 | p.mask);
    mix(uint64_t(p.state) << 32 | p.calls.size());
  }
  for (uint64_t v : w.regs)
    mix(v);
  for (uint32_t v : w.preds)
    mix(v);
  return h;
}
// A cheaper summary of the same state: the paths, and each register and
// predicate of one lane (the first lane that has not exited). Equal states
// have equal quick keys.
uint64_t quick_key(const Warp &w, const Program &P) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  auto mix = [&](uint64_t v) {
    h ^= v;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 29;
  };
  mix(w.exited);
  mix(w.cur);
  for (const auto &p : w.paths) {
    mix(uint64_t(p.pc) << 32 | p.mask);
    mix(uint64_t(p.state) << 32 | p.calls.size());
  }
  const uint32_t live = w.valid & ~w.exited;
  const size_t lane = live ? size_t(std::countr_zero(live)) : 0;
  const auto &units = P.slot_units;
  for (uint32_t u = 0; u < units.size(); ++u)
    if (units[u] == 4)
      mix(w.lanes<uint32_t>(u)[lane]);
    else if (units[u] == 8)
      mix(w.lanes<uint64_t>(u / 2)[lane]);
  for (uint32_t v : w.preds)
    mix(v);
  return h;
}
} // namespace

// Brent's cycle detection over the warp's states at every
// kSpinSampleEvery-th backward branch: the sampled sequence repeats iff the
// warp's state does, as long as the epoch stands still. The saved state is
// kept as its quick key; the whole fingerprint is taken only when a state's
// quick key equals the saved one (a state whose quick key differs cannot be
// the saved one), and then stands for the saved state: a loop whose state
// never repeats (a computation without stores) takes none, a cycle is found
// at its second repetition at the latest.
void Worker::spin_sample(Warp &w, uint32_t pc, uint32_t lanes) {
  if (++w.spin_tick % kSpinSampleEvery)
    return;
  uint64_t e = epoch();
  if (w.spinning && w.spin_epoch == e)
    return;
  const uint64_t q = quick_key(w, P);
  if (w.spin_epoch != e) {
    w.spin_epoch = e;
    w.spinning = false;
    w.spin_quick = q;
    w.spin_have_saved = false;
    w.spin_power = 1;
    w.spin_lam = 0;
    return;
  }
  bool took = false;
  if (q == w.spin_quick) {
    const uint64_t h = fingerprint(w);
    if (w.spin_have_saved && h == w.spin_saved) {
      w.spinning = true;
      w.spin_pc = pc;
      w.spin_lanes = lanes;
      return;
    }
    w.spin_saved = h;
    w.spin_have_saved = took = true;
  }
  if (++w.spin_lam == w.spin_power) {
    // This state becomes the saved one (its fingerprint, if just taken).
    w.spin_quick = q;
    w.spin_have_saved = took;
    w.spin_power *= 2;
    w.spin_lam = 0;
  }
}

// Whether every live warp of the worker is blocked or spins at epoch `e`.
// A delayed warp that is held back is released instead (false).
bool Worker::all_stuck(uint64_t e) {
  bool held = false;
  for (auto &rc : resident)
    for (auto &w : rc->warps) {
      if (w.paths.empty() || (w.spinning && w.spin_epoch == e))
        continue;
      // A wait with a time bound wakes by itself: the warp is not blocked.
      bool timed = false;
      for (auto &p : w.paths)
        timed |= p.state == PathState::BlockedMbar;
      if (!timed && !select(w))
        continue;
      if (w.index == delayed && !rc->delay_released) {
        held = true;
        continue;
      }
      return false;
    }
  if (held)
    for (auto &rc : resident)
      rc->delay_released = true;
  return !held;
}

// Several workers: this one is stuck at `e`; the launch is deadlocked when
// every worker is stuck at the same epoch (or finished) and the epoch is
// still the current one.
bool Worker::stuck_everywhere(uint64_t e) {
  if (S.nworkers <= 1)
    return true;
  S.published[me].stuck.store(e, std::memory_order_release);
  if (S.next_unit.load() < S.nunits)
    return false;
  for (unsigned i = 0; i < S.nworkers; ++i) {
    uint64_t st = S.published[i].stuck.load(std::memory_order_acquire);
    if (st != e && st != LaunchState::kDone)
      return false;
  }
  return epoch() == e;
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

void Worker::run() {
  const RunningScope scope(&x);
  using clock = std::chrono::steady_clock;
  const uint64_t max_steps = S.cfg.max_steps;
  const bool timed = S.cfg.time_limit_s > 0;
  uint64_t publish_quanta = 0;
  uint64_t resumes = 0; // LaunchConfig::on_stuck said to go on
  while (!S.stop.load(std::memory_order_relaxed)) {
    // A random schedule also admits units at random moments, so that CTAs
    // interleave in different orders, up to kRandomResident CTAs at once
    // (an SM's worth; more only cost time).
    // A cooperative launch (it reads the grid workspace for grid.sync)
    // needs all CTAs resident at once: admit every unit up front.
    if (S.cooperative)
      while (admit()) {
      }
    if (resident.empty() || since_admit >= kAdmitSteps ||
        (random && resident.size() < kRandomResident && rng.next() % 16 == 0)) {
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
    uint64_t quantum = kWarpQuantum;
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
    x.turn_steps = 0;
    max_cta_steps = std::max(max_cta_steps, c->steps);
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
    // Spinning (see the top of this file).
    if (x.progress != last_progress) {
      // Published only when it moved: the other workers read it at every
      // spin sample, and an unchanged line stays in their caches.
      if (S.nworkers > 1)
        S.published[me].progress.store(x.progress, std::memory_order_release);
      last_progress = x.progress;
      quiet_from = now;
      watch = false;
    } else if (!watch && now - quiet_from >= kQuietSteps) {
      watch = true;
    }
    if (watch && w->spinning && !S.stop.load(std::memory_order_relaxed)) {
      uint64_t e = epoch();
      if (w->spin_epoch == e && all_stuck(e)) {
        // A CTA not yet resident may be the one they wait for.
        if ((exhausted || !admit()) && stuck_everywhere(e)) {
          // Something outside the launch may still change the memory it
          // spins on (LaunchConfig::on_stuck): resume from a new epoch.
          bool resumed = false;
          if (S.cfg.on_stuck && S.nworkers == 1) {
            const auto t0 = clock::now();
            resumed = S.cfg.on_stuck(x.progress - resumes);
            S.start += clock::now() - t0;
          }
          if (!resumed) {
            report_spin_deadlock();
            break;
          }
          // A new epoch (not progress of the launch's own).
          ++x.progress;
          ++resumes;
          watch = false;
        }
      } else if (S.nworkers > 1) {
        S.published[me].stuck.store(LaunchState::kNotStuck,
                                    std::memory_order_relaxed);
      }
    }
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
    // Progress (LaunchView::thread_steps) sees the count every 256 turns.
    if ((++publish_quanta & 255) == 0) {
      S.thread_steps.fetch_add(pending_tsteps, std::memory_order_relaxed);
      pending_tsteps = 0;
    }
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
  for (uint64_t m = S.max_cta_steps.load();
       m < max_cta_steps &&
       !S.max_cta_steps.compare_exchange_weak(m, max_cta_steps);) {
  }
  if (S.nworkers > 1) {
    S.published[me].progress.store(x.progress, std::memory_order_release);
    S.published[me].stuck.store(LaunchState::kDone, std::memory_order_release);
  }
  flush_resident();
}

namespace {

// What an observer may ask about the launch (observer.h).
class View final : public LaunchView {
public:
  View(const Launch &l, const GlobalMemory &m,
       const std::atomic<uint64_t> &steps)
      : L(l), P(*l.prog), mem(m), tsteps(steps) {}
  uint64_t thread_steps() const override {
    return tsteps.load(std::memory_order_relaxed);
  }
  std::string_view kernel() const override { return L.kernel_name; }
  Dim3 grid() const override { return L.grid; }
  Dim3 block() const override { return L.block; }
  Dim3 cluster() const override { return L.cluster; }
  uint32_t shared_bytes() const override { return L.shared_bytes; }
  uint32_t local_bytes() const override { return L.local_bytes; }
  SourceLoc ptx_loc(uint32_t pc) const override {
    return pc < P.locs.size() ? P.locs[pc] : SourceLoc{};
  }
  std::string_view text(uint32_t pc) const override {
    return pc < P.code_text.size() ? std::string_view(P.code_text[pc]) : "";
  }
  bool aligned(uint32_t pc) const override {
    return pc < P.code_aligned.size() && P.code_aligned[pc] != 0;
  }
  bool async_proxy() const override { return P.async_proxy; }
  CudaLoc cuda_loc(uint32_t pc) const override {
    CudaLoc r;
    if (pc >= P.cuda_pos.size() || P.cuda_pos[pc].line == 0)
      return r;
    const auto &cp = P.cuda_pos[pc];
    auto name_of_file = [&](uint32_t f) {
      for (const auto &[n, name] : P.cuda_files)
        if (n == f)
          return std::string_view(name);
      return std::string_view();
    };
    if (cp.call_line) {
      r.file = name_of_file(cp.call_file);
      r.line = cp.call_line;
      r.inner_file = name_of_file(cp.file);
      r.inner_line = cp.line;
    } else {
      r.file = name_of_file(cp.file);
      r.line = cp.line;
      r.col = cp.col;
    }
    return r;
  }
  std::string describe(StateSpace space, uint64_t addr) const override {
    if (space == StateSpace::Shared) {
      if (const auto *v = P.shared_var_at(L.kernel, addr)) {
        std::string n = demangle(v->name);
        return addr == v->off ? fmt::format("'{}'", n)
                              : fmt::format("'{}'+{}", n, addr - v->off);
      }
      return "";
    }
    if (space != StateSpace::Global)
      return "";
    const Allocation *a = mem.find(addr);
    if (!a)
      return "";
    if (a->heap)
      if (auto b = mem.heap().block(addr))
        return addr == b->first ? fmt::format("heap block {:#x}", b->first)
                                : fmt::format("heap block {:#x}+{}", b->first,
                                              addr - b->first);
    std::string what = a->module_var ? fmt::format("'{}'", demangle(a->name))
                       : a->name.empty()
                           ? fmt::format("allocation {:#x}", a->base)
                           : a->name;
    return addr == a->base ? what : fmt::format("{}+{}", what, addr - a->base);
  }
  std::optional<AllocationRef> allocation(uint64_t addr) const override {
    const Allocation *a = mem.find(addr);
    if (!a)
      return std::nullopt;
    AllocationRef r;
    r.base = a->base;
    r.size = a->size;
    r.name = a->name;
    r.module_var = a->module_var;
    r.host = a->host;
    if (a->heap)
      if (auto b = mem.heap().block(addr)) {
        r.base = b->first;
        r.size = b->second.size;
        r.name = b->second.by;
        r.heap = true;
        r.cuda_at = b->second.cuda_at;
        r.ptx_at = b->second.ptx_at;
      }
    return r;
  }
  Dim3 cta_id(uint64_t linear) const override {
    return unflatten(linear, L.grid);
  }
  uint64_t grid_workspace() const override { return L.grid_workspace; }
  bool device_launches() const override { return L.device_launches != nullptr; }
  std::pair<uint64_t, uint64_t> launch_parameters() const override {
    if (!L.device_launches)
      return {0, 0};
    return {L.device_launches->pool, L.device_launches->pool_size};
  }
  std::pair<uint32_t, uint32_t> reserved_shared() const override {
    return {L.reserved_smem_off, L.reserved_smem};
  }
  std::vector<uint32_t> call_stack(uint64_t cta, uint32_t warp,
                                   uint32_t lane) const override {
    const Exec *x = running;
    const Cta *c = x && x->launch == &L ? x->cta : nullptr;
    if (!c || c->linear != cta || warp >= c->warps.size())
      return {};
    for (const Path &p : c->warps[warp].paths)
      if ((p.mask >> lane) & 1)
        return {p.calls.rbegin(), p.calls.rend()};
    return {};
  }

private:
  const Launch &L;
  const Program &P;
  const GlobalMemory &mem;
  const std::atomic<uint64_t> &tsteps;
};

} // namespace

RunReport run_launch(GlobalMemory &mem, const Launch &launch,
                     const LaunchConfig &cfg) {
  LaunchState S(launch, cfg, mem);
  std::vector<Observer *> observers;
  if (cfg.observer)
    observers.push_back(cfg.observer);
  for (Observer *o : cfg.observers)
    if (o && o != cfg.observer)
      observers.push_back(o);
  std::unique_ptr<Observer> fan;
  if (observers.size() > 1) {
    fan = fan_out(std::move(observers));
    S.obs = fan.get();
  } else {
    S.obs = observers.empty() ? nullptr : observers[0];
  }
  View view(launch, mem, S.thread_steps);
  if (S.obs)
    S.obs->on_launch_begin(view);
  S.unit_ctas = uint32_t(launch.cluster.count());
  S.nunits = launch.grid.count() / S.unit_ctas;
  S.start = std::chrono::steady_clock::now();
  S.cooperative = launch.grid_workspace != 0;
  unsigned threads = cfg.host_threads
                         ? cfg.host_threads
                         : std::max(1u, std::thread::hardware_concurrency());
  // A random schedule draws from one stream; an observer sees one ordered
  // event stream (observer.h): both run on one host thread.
  if (cfg.schedule.kind == Schedule::Kind::Random ||
      (S.obs && !S.obs->concurrent()))
    threads = 1;
  threads = unsigned(std::min<uint64_t>(threads, S.nunits));
  S.nworkers = std::max(1u, threads);
  if (S.nworkers > 1)
    S.published = std::make_unique<LaunchState::Published[]>(S.nworkers);
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
  for (auto &d : S.failure.diags) {
    r.diagnostics.push_back(
        {std::move(d), S.failure.kind, S.failure.allocation});
    if (&d == &S.failure.diags.front())
      r.diagnostics.back().call_stack = std::move(S.failure.call_stack);
  }
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
  if (S.obs)
    S.obs->on_launch_end(view);
  r.warp_steps = S.steps.load();
  r.thread_steps = S.thread_steps.load();
  // Simulated time (docs/engine.md "Simulated time"): one cycle per
  // warp-instruction a CTA issues, CTAs in parallel on the modelled SMs.
  r.cycles = std::max<uint64_t>(S.max_cta_steps.load(),
                                (r.warp_steps + kModelSms - 1) / kModelSms);
  r.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - S.start)
          .count();
  return r;
}

} // namespace bcusim::engine::detail
