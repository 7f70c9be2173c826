// The divergent paths of one warp (docs/engine.md "Execution model"):
// each path is a set of lanes at one pc. The runnable path with the lowest
// pc goes first, paths merge when their pcs (and call stacks) meet, and
// after kPathQuantum steps on one path the next path by pc gets a turn, so
// that a spin-wait inside a warp cannot starve the lanes it waits for. A
// random schedule picks among the runnable paths at random.
#include <algorithm>
#include <cstring>

#include "mbarrier.h"
#include "worker.h"

namespace bcusim::engine::detail {

WaitingElsewhere
waiting_elsewhere(const Program &P, const Warp &w, size_t self, uint32_t pc,
                  uint32_t mem, uint32_t want,
                  std::vector<std::pair<uint32_t, uint32_t>> *joins) {
  WaitingElsewhere e;
  const Inst &in = P.code[pc];
  for (size_t i = 0; i < w.paths.size() && want; ++i) {
    const Path &q = w.paths[i];
    if (i == self || q.state != PathState::WaitWarp || !(q.mask & want))
      continue;
    const Inst &qi = P.code[q.pc];
    if (qi.member == kNone)
      continue;
    const auto *qm = w.lanes<uint32_t>(qi.member);
    uint32_t lanes = 0;
    for_lanes(q.mask & want, [&](uint32_t l) {
      if (uint32_t(qm[l]) == mem)
        lanes |= 1u << l;
    });
    if (!lanes)
      continue;
    want &= ~lanes;
    const bool together =
        P.warp_sync_same_inst ? q.pc == pc : same_collective(P, in, qi);
    if (together) {
      e.with |= lanes;
      if (joins)
        joins->emplace_back(uint32_t(i), lanes);
    } else {
      if (!e.apart)
        e.apart_pc = q.pc;
      e.apart |= lanes;
    }
  }
  return e;
}

namespace {

// A path waiting at a warp-synchronous instruction can run when the
// members of at least one of its groups (lanes naming one membermask) are
// all here or wait at instructions that execute together with this one.
bool warp_sync_ready(const Program &P, const Warp &w, const Path &p) {
  const Inst &in = P.code[p.pc];
  if (in.member == kNone)
    return true;
  const auto *mem = w.lanes<uint32_t>(in.member);
  SyncGroups g = group_by_mask(mem, p.mask);
  const size_t self = size_t(&p - w.paths.data());
  for (uint32_t i = 0; i < g.n; ++i) {
    uint32_t missing = warp_sync_required(in, g.mask[i], w) & ~p.mask;
    if (missing)
      missing &= ~waiting_elsewhere(P, w, self, p.pc, g.mask[i], missing).with;
    if (missing == 0)
      return true;
  }
  return false;
}

} // namespace

bool path_runnable(const Program &P, Warp &w, Path &p, uint64_t now) {
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
  if (warp_sync_ready(P, w, p)) {
    p.state = PathState::Ready;
    return true;
  }
  return false;
}

bool select_path(const Program &P, Warp &w, const PathPolicy &policy,
                 uint64_t now) {
  auto &ps = w.paths;
  if (ps.empty() || w.bar_blocked)
    return false;
  if (ps.size() == 1) {
    w.cur = 0;
    return path_runnable(P, w, ps[0], now);
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
  if (policy.random) {
    uint32_t n = 0;
    for (size_t i = 0; i < ps.size(); ++i)
      if (path_runnable(P, w, ps[i], now))
        ++n;
    if (n == 0)
      return false;
    uint32_t k = uint32_t(policy.rng->next() % n);
    for (size_t i = 0; i < ps.size(); ++i)
      if (path_runnable(P, w, ps[i], now) && k-- == 0)
        best = int(i);
  } else if (w.path_steps >= kPathQuantum) {
    // Anti-starvation turn: the next runnable path after the current pc.
    int wrap = -1;
    for (size_t i = 0; i < ps.size(); ++i) {
      if (!path_runnable(P, w, ps[i], now))
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
      if (path_runnable(P, w, ps[i], now) &&
          (best < 0 || ps[i].pc < ps[size_t(best)].pc))
        best = int(i);
  }
  if (best < 0)
    return false;
  if (uint32_t(best) != w.cur)
    w.path_steps = 0;
  w.cur = uint32_t(best);
  return true;
}

uint32_t run_ahead_limit(const Warp &w, const Path &p) {
  uint32_t limit = kNone;
  for (const Path &q : w.paths) {
    if (&q == &p)
      continue;
    if (q.state == PathState::BlockedMbar)
      return p.pc;
    if (q.pc > p.pc) {
      limit = std::min(limit, q.pc);
      continue;
    }
    // Paths that only other warps' steps or barrier steps release; plain
    // instructions of p change nothing they wait for.
    switch (q.state) {
    case PathState::BlockedCta:
    case PathState::Blocked:
    case PathState::BlockedCluster:
    case PathState::WaitBarrier:
      continue;
    default:
      return p.pc;
    }
  }
  return limit;
}

Path *split_guarded(Warp &w, uint32_t m) {
  Path &cur = w.paths[w.cur];
  Path np;
  np.pc = cur.pc + 1;
  np.mask = cur.mask & ~m;
  np.calls = cur.calls;
  cur.mask = m;
  w.paths.push_back(std::move(np));
  return &w.paths[w.cur];
}

} // namespace bcusim::engine::detail
