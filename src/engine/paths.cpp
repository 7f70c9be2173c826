// The divergent paths of one warp (docs/engine.md "Execution model"):
// each path is a set of lanes at one pc. The runnable path with the lowest
// pc goes first, paths merge when their pcs (and call stacks) meet, and
// after kPathQuantum steps on one path the next path by pc gets a turn, so
// that a spin-wait inside a warp cannot starve the lanes it waits for. A
// random schedule picks among the runnable paths at random.
#include <cstring>

#include "mbarrier.h"
#include "worker.h"

namespace bcusim::engine::detail {

namespace {

// A path waiting at a warp-synchronous instruction can run when the
// members of at least one of its groups (lanes naming one membermask) are
// all here.
bool warp_sync_ready(const Program &P, const Warp &w, const Path &p) {
  const Inst &in = P.code[p.pc];
  if (in.member == kNone)
    return true;
  const uint64_t *mem = w.regs.data() + size_t(in.member) * kWarpSize;
  SyncGroups g = group_by_mask(mem, p.mask);
  for (uint32_t i = 0; i < g.n; ++i)
    if ((warp_sync_required(in, g.mask[i], w) & ~p.mask) == 0)
      return true;
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
