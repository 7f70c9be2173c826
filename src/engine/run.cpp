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
#include <atomic>
#include <chrono>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <thread>

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
  bool bar_arrive(Cta &c, Warp &w, const std::vector<uint32_t> &paths);
  void bar_finish(Cta &c, Warp &w, Path &p);
  void bar_released(Cta &c);
  bool bar_exited(Cta &c, Warp &w);
  bool bar_report(Cta &c, Warp &w, uint32_t pc, int kind, Diagnostic d);
  std::optional<uint32_t> path_barrier(Warp &w, const Path &p) const;
  void report_fault(Cta &c, Warp &w, uint32_t pc, uint32_t lanes);
  void report_deadlock(Cta &c);
  void report_limit(RunStatus st, Cta &c, Warp &w);
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
    resident.push_back(std::move(c));
  }
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
  if (p.state != PathState::WaitWarp)
    return false;
  const Inst &in = P.code[p.pc];
  uint32_t mem = in.member == kNone
                     ? p.mask
                     : uint32_t(w.regs[size_t(in.member) * kWarpSize +
                                       std::countr_zero(p.mask)]);
  uint32_t required = mem & w.valid & ~w.exited;
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
          (ps[i].state == ps[j].state ||
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
    for (size_t j = 0; j < nw; ++j) {
      Warp &w = c.warps[c.next_warp];
      c.next_warp = uint32_t((c.next_warp + 1) % nw);
      if (select_path(w)) {
        cta = &c;
        warp = &w;
        if (c.next_warp == 0)
          rr_cta = (rr_cta + 1) % nc;
        return true;
      }
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
      if (m != p->mask) {
        // Lanes whose guard is false step over the instruction.
        Path np;
        np.pc = p->pc + 1;
        np.mask = p->mask & ~m;
        np.calls = p->calls;
        p->mask = m;
        w.paths.push_back(std::move(np));
      }
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
      if (m != p->mask) {
        // Lanes whose guard is false step over the instruction.
        Path np;
        np.pc = p->pc + 1;
        np.mask = p->mask & ~m;
        np.calls = p->calls;
        p->mask = m;
        w.paths.push_back(std::move(np));
        p = &w.paths[w.cur];
      }
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
    case Kind::WarpSync: {
      uint32_t mem = in.member == kNone
                         ? p->mask
                         : uint32_t(x.s(in.member)[std::countr_zero(p->mask)]);
      uint32_t required = mem & w.valid & ~w.exited;
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
  std::vector<uint32_t> group;
  for (uint32_t i = 0; i < w.paths.size(); ++i)
    if (w.paths[i].state == PathState::WaitBarrier) {
      waiting |= w.paths[i].mask;
      group.push_back(i);
    }
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

bool Worker::bar_arrive(Cta &c, Warp &w, const std::vector<uint32_t> &group) {
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
      f.kind == FaultKind::WarpSync)
    ;
  else if (!f.detail.empty())
    msg += ": " + f.detail;
  Diagnostic d = where(c, w, f.lane, msg, pc);
  if (f.space == MemSpace::Global &&
      (f.kind == FaultKind::OutOfBounds || f.kind == FaultKind::Null)) {
    Diagnostic n;
    n.severity = Severity::Note;
    if (const Allocation *a = S.mem.nearest(f.addr)) {
      std::string what =
          a->name.empty() ? "allocation" : "variable '" + a->name + "'";
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

void Worker::report_deadlock(Cta &c) {
  Diagnostic d;
  d.severity = Severity::Error;
  auto &unit = *c.bars.unit;
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
        S.L.kernel_name, dim_str(c.id), head->barrier,
        std::popcount(head->waiting) == 1 ? "" : "s", warp_list(head->waiting),
        std::popcount(head->waiting) == 1 ? "s" : "", head->arrived_threads,
        expected(*head));
  else
    d.message = fmt::format(
        "deadlock in kernel '{}': every remaining warp of CTA {} is blocked",
        S.L.kernel_name, dim_str(c.id));
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
    for (const auto &w : c.warps)
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
  for (auto &w : c.warps)
    for (auto &p : w.paths) {
      Diagnostic n;
      n.severity = Severity::Note;
      n.loc = P.locs[p.pc];
      std::string why;
      if (p.state == PathState::BlockedCta)
        why = fmt::format("waits here at barrier {} ('{}')",
                          unit.waiting_on(w.index).value_or(0),
                          P.code_text[p.pc]);
      else if (p.state == PathState::WaitBarrier)
        why = fmt::format(
            "waits here at barrier {} ('{}') for lanes {:#010x} of its warp "
            "(a warp arrives once all its non-exited threads are at a "
            "barrier instruction for that barrier)",
            path_barrier(w, p).value_or(0), P.code_text[p.pc],
            (w.valid & ~w.exited) & ~p.mask);
      else if (p.state == PathState::WaitWarp)
        why = "waits for the other lanes of its member mask to converge";
      else
        why = "is blocked";
      n.message =
          fmt::format("warp {} lanes {:#010x} {}", w.index, p.mask, why);
      if (first && (!head || (p.state == PathState::BlockedCta &&
                              unit.waiting_on(w.index) == head->barrier))) {
        d.loc = n.loc;
        first = false;
      }
      d.notes.push_back(std::move(n));
    }
  S.fail(RunStatus::Deadlock, {std::move(d)});
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

void Worker::run() {
  using clock = std::chrono::steady_clock;
  const uint64_t max_steps = S.cfg.max_steps;
  const bool timed = S.cfg.time_limit_s > 0;
  while (!S.stop.load(std::memory_order_relaxed)) {
    // A random schedule also admits units at random moments, so that CTAs
    // interleave in different orders.
    if (resident.empty() || since_admit >= kAdmitSteps ||
        (random && rng.next() % 16 == 0)) {
      if (!admit() && resident.empty())
        break;
    }
    Cta *c = nullptr;
    Warp *w = nullptr;
    if (!pick(c, w)) {
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
    if (c->live_warps == 0) {
      for (size_t i = 0; i < resident.size(); ++i)
        if (resident[i].get() == c) {
          retire(i);
          break;
        }
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
  flush_resident();
}

} // namespace

RunReport run_launch(GlobalMemory &mem, const Launch &launch,
                     const LaunchConfig &cfg) {
  LaunchState S(launch, cfg, mem);
  S.unit_ctas = uint32_t(launch.cluster.count());
  S.nunits = launch.grid.count() / S.unit_ctas;
  S.start = std::chrono::steady_clock::now();
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
  r.warp_steps = S.steps.load();
  r.thread_steps = S.thread_steps.load();
  r.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - S.start)
          .count();
  return r;
}

} // namespace bcusim::engine::detail
