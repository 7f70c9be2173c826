// The timeline observer (include/bcusim/check/output.h, docs/checker.md
// "Timeline").
#include "bcusim/check/output.h"

#include <fstream>

#include <fmt/format.h>

namespace bcusim::check {

namespace {

// More events than a trace viewer opens comfortably: the rest is dropped
// (the trace says so).
constexpr size_t kMaxEvents = 2'000'000;

std::string dim(const engine::Dim3 &d) {
  return fmt::format("({},{},{})", d.x, d.y, d.z);
}

} // namespace

// Each launch's CTAs get their own process ids: launch L, CTA c -> L *
// 2^20 + c + 1 (a launch of more CTAs shares ids modulo 2^20).
int Timeline::pid(uint64_t cta) const {
  return int((launch_ << 20) + (cta & 0xfffff) + 1);
}

void Timeline::instant(int p, int tid, std::string name, nlohmann::json args) {
  nlohmann::json e = {{"ph", "i"},  {"ts", now_}, {"pid", p},
                      {"tid", tid}, {"s", "t"},   {"name", std::move(name)}};
  if (!args.is_null())
    e["args"] = std::move(args);
  events_.push_back(std::move(e));
}

void Timeline::name_tracks(const engine::LaunchView &v, uint64_t cta) {
  if (named_[cta])
    return;
  named_[cta] = true;
  const int p = pid(cta);
  meta(p, 0, "process_name",
       {{"name", fmt::format("launch {} {} CTA {}", launch_, demangle(kernel_),
                             dim(v.cta_id(cta)))}});
  meta(p, 0, "process_sort_index", {{"sort_index", p}});
  meta(p, 0, "thread_name", {{"name", "CTA"}});
  const uint32_t warps = uint32_t((v.block().count() + 31) / 32);
  for (uint32_t w = 0; w < warps; ++w)
    meta(p, int(w + 1), "thread_name", {{"name", fmt::format("warp {}", w)}});
}

// A metadata event of the trace format (track names and order).
void Timeline::meta(int p, int tid, const char *name, nlohmann::json args) {
  events_.push_back({{"ph", "M"},
                     {"ts", uint64_t{0}},
                     {"pid", p},
                     {"tid", tid},
                     {"name", name},
                     {"args", std::move(args)}});
}

// The warp's track, seen at this tick, and the first tick of pc.
Timeline::Warp &Timeline::touch(uint64_t cta, uint32_t warp, uint32_t pc) {
  Warp &w = warps_[{cta, warp}];
  if (!w.seen) {
    w.seen = true;
    w.first = now_;
  }
  w.last = now_;
  first_at_.try_emplace({cta, warp, pc}, now_);
  return w;
}

void Timeline::on_launch_begin(const engine::LaunchView &v) {
  kernel_ = std::string(v.kernel());
  launch_start_ = now_;
  warps_.clear();
  copies_in_flight_.clear();
  tx_.clear();
  first_at_.clear();
  named_.clear();
  waits_seen_.clear();
  resident_.clear();
  findings_before_ = checker_ ? checker_->findings().size() : 0;
}

void Timeline::on_access(const engine::AccessEvent &e) {
  ++now_;
  touch(e.cta, e.warp, e.pc);
}

// The typed events, each one tick of the timeline.
Timeline::Ev Timeline::mbar(Kind k, const engine::MbarEvent &m) {
  Ev e = ev(k, m);
  e.object_owner = m.object_owner;
  e.object_offset = m.object_offset;
  e.phase = m.phase;
  e.count = m.count;
  e.tx = m.tx;
  e.async_id = m.async_id;
  return e;
}
void Timeline::on_cta_begin(const engine::CtaEvent &c) {
  sync(cta_ev(Kind::CtaBegin, c));
}
void Timeline::on_cta_end(const engine::CtaEvent &c) {
  sync(cta_ev(Kind::CtaEnd, c));
}
void Timeline::on_thread_exit(const engine::ThreadEvent &t) {
  sync(ev(Kind::Other, t));
}
void Timeline::on_fence(const engine::FenceEvent &t) {
  sync(ev(Kind::Other, t));
}
void Timeline::on_barrier_arrive(const engine::BarrierArriveEvent &b) {
  Ev e = ev(Kind::BarrierArrive, b);
  e.barrier = b.barrier;
  e.phase = b.phase;
  e.arrive_only = b.op == engine::BarrierOp::Arrive;
  sync(e);
}
void Timeline::on_barrier_complete(const engine::BarrierCompleteEvent &b) {
  Ev e = ev(Kind::BarrierComplete, b);
  e.barrier = b.barrier;
  e.phase = b.phase;
  e.warps = b.warps;
  sync(e);
}
void Timeline::on_barrier_resume(const engine::BarrierResumeEvent &b) {
  Ev e = ev(Kind::BarrierResume, b);
  e.barrier = b.barrier;
  e.phase = b.phase;
  sync(e);
}
void Timeline::on_warp_sync(const engine::WarpSyncEvent &t) {
  sync(ev(Kind::Other, t));
}
void Timeline::on_elect(const engine::WarpSyncEvent &t) {
  sync(ev(Kind::Other, t));
}
void Timeline::on_cluster_arrive(const engine::ClusterEvent &c) {
  Ev e = ev(Kind::ClusterArrive, c);
  e.phase = c.phase;
  sync(e);
}
void Timeline::on_cluster_complete(const engine::ClusterEvent &c) {
  Ev e = ev(Kind::Other, c);
  e.phase = c.phase;
  sync(e);
}
void Timeline::on_cluster_resume(const engine::ClusterEvent &c) {
  Ev e = ev(Kind::ClusterResume, c);
  e.phase = c.phase;
  sync(e);
}
void Timeline::on_mbar_init(const engine::MbarEvent &m) {
  sync(mbar(Kind::MbarInit, m));
}
void Timeline::on_mbar_inval(const engine::MbarEvent &m) {
  sync(mbar(Kind::MbarInval, m));
}
void Timeline::on_mbar_arrive(const engine::MbarEvent &m) {
  sync(mbar(Kind::MbarArrive, m));
}
void Timeline::on_mbar_expect_tx(const engine::MbarEvent &m) {
  sync(mbar(Kind::MbarExpectTx, m));
}
void Timeline::on_mbar_complete_tx(const engine::MbarEvent &m) {
  sync(mbar(Kind::MbarCompleteTx, m));
}
void Timeline::on_mbar_phase_complete(const engine::MbarEvent &m) {
  sync(mbar(Kind::MbarPhaseComplete, m));
}
void Timeline::on_mbar_wait_done(const engine::MbarEvent &m) {
  sync(mbar(Kind::MbarWaitDone, m));
}
void Timeline::on_async_issue(const engine::AsyncIssueEvent &a) {
  Ev e = ev(Kind::AsyncIssue, a);
  e.async_id = a.async_id;
  e.arrive_on = a.what == engine::AsyncKind::ArriveOn;
  sync(e);
}
void Timeline::on_async_commit(const engine::AsyncCommitEvent &a) {
  sync(ev(Kind::Other, a));
}
void Timeline::on_async_wait(const engine::AsyncWaitEvent &a) {
  Ev e = ev(Kind::AsyncWait, a);
  e.bulk = a.bulk;
  e.phase = a.below;
  sync(e);
}
void Timeline::on_async_complete(const engine::AsyncCompleteEvent &a) {
  Ev e = ev(Kind::AsyncComplete, a);
  e.async_id = a.async_id;
  sync(e);
}
void Timeline::on_grid_sync(const engine::ThreadEvent &t) {
  sync(ev(Kind::GridSync, t));
}
void Timeline::on_griddep_launch(const engine::ThreadEvent &t) {
  sync(ev(Kind::Other, t));
}
void Timeline::on_griddep_wait(const engine::ThreadEvent &t) {
  sync(ev(Kind::Other, t));
}

void Timeline::sync(const Ev &e) {
  ++now_;
  // Past the limit only the ends of resident spans already begun are kept
  // (every B has its E).
  if (events_.size() >= kMaxEvents &&
      !(e.kind == Kind::CtaEnd && resident_.count(e.cta))) {
    truncated_ = true;
    return;
  }
  const int p = pid(e.cta);
  const int tid = int(e.warp) + 1;
  auto touch = [&] { return &this->touch(e.cta, e.warp, e.pc); };
  // The CTA's residency span: begin (B) or end (E).
  auto resident = [&](const char *ph) {
    events_.push_back({{"ph", ph},
                       {"ts", now_},
                       {"pid", p},
                       {"tid", 0},
                       {"name", "resident"},
                       {"cat", "cta"}});
  };
  auto end_wait = [&](Warp &w, const std::string &name) {
    if (w.waiting < 0)
      return;
    events_.push_back({{"ph", "X"},
                       {"ts", w.wait_since},
                       {"dur", now_ - w.wait_since},
                       {"pid", p},
                       {"tid", tid},
                       {"name", name},
                       {"cat", "barrier"},
                       {"args", {{"phase", e.phase}}}});
    w.waiting = -1;
  };
  switch (e.kind) {
  case Kind::CtaBegin:
    resident_.insert(e.cta);
    resident("B");
    break;
  case Kind::CtaEnd:
    if (!resident_.erase(e.cta))
      break;
    resident("E");
    break;
  case Kind::BarrierArrive: {
    Warp *w = touch();
    if (e.arrive_only) {
      instant(p, tid, fmt::format("bar.arrive {}", e.barrier),
              {{"phase", e.phase}, {"lanes", e.lanes}});
    } else {
      w->waiting = e.barrier;
      w->wait_since = now_;
    }
    break;
  }
  case Kind::BarrierResume: {
    Warp *w = touch();
    end_wait(*w, fmt::format("barrier {} wait", e.barrier));
    break;
  }
  case Kind::BarrierComplete:
    instant(p, 0,
            fmt::format("barrier {} phase {} complete", e.barrier, e.phase),
            {{"warps", e.warps}});
    break;
  case Kind::ClusterArrive: {
    Warp *w = touch();
    w->waiting = 16;
    w->wait_since = now_;
    break;
  }
  case Kind::ClusterResume: {
    Warp *w = touch();
    end_wait(*w, "cluster barrier wait");
    break;
  }
  case Kind::MbarInit:
  case Kind::MbarArrive:
  case Kind::MbarExpectTx:
  case Kind::MbarCompleteTx:
  case Kind::MbarPhaseComplete:
  case Kind::MbarWaitDone:
  case Kind::MbarInval: {
    if (!e.async_id && e.kind != Kind::MbarPhaseComplete &&
        e.kind != Kind::MbarCompleteTx)
      touch();
    const int op = pid(e.object_owner);
    const std::string obj = fmt::format("mbarrier +{:#x}", e.object_offset);
    int64_t &tx = tx_[{e.object_owner, e.object_offset}];
    const int64_t was = tx;
    if (e.kind == Kind::MbarInit)
      tx = 0;
    else if (e.kind == Kind::MbarExpectTx ||
             (e.kind == Kind::MbarArrive && e.tx))
      tx += e.tx;
    else if (e.kind == Kind::MbarCompleteTx)
      tx -= e.tx;
    const bool counter = tx != was || e.kind == Kind::MbarInit;
    if (e.kind == Kind::MbarPhaseComplete)
      instant(op, 0, fmt::format("{} phase {} complete", obj, e.phase));
    else if (e.kind == Kind::MbarWaitDone &&
             waits_seen_
                 .insert(
                     {e.cta, e.warp, e.object_owner, e.object_offset, e.phase})
                 .second) // once per warp and phase, not per lane
      instant(p, tid, fmt::format("{} wait done (phase {})", obj, e.phase));
    else if (e.kind == Kind::MbarArrive)
      instant(e.async_id ? op : p, e.async_id ? 0 : tid,
              fmt::format("{} arrive", obj),
              {{"phase", e.phase}, {"count", e.count}, {"tx", e.tx}});
    if (counter)
      events_.push_back({{"ph", "C"},
                         {"ts", now_},
                         {"pid", op},
                         {"tid", 0},
                         {"name", obj + " tx-count"},
                         {"args", {{"pending bytes", tx}}}});
    break;
  }
  case Kind::AsyncIssue:
  case Kind::AsyncComplete: {
    if (e.kind == Kind::AsyncIssue)
      touch();
    if (e.kind == Kind::AsyncIssue && e.arrive_on)
      break; // an arrive-on, no copy
    uint64_t &n = copies_in_flight_[e.cta];
    if (e.kind == Kind::AsyncIssue)
      ++n;
    else if (n)
      --n;
    events_.push_back({{"ph", "C"},
                       {"ts", now_},
                       {"pid", p},
                       {"tid", 0},
                       {"name", "async copies in flight"},
                       {"args", {{"copies", n}}}});
    break;
  }
  case Kind::AsyncWait:
    touch();
    instant(p, tid, e.bulk ? "cp.async.bulk.wait_group" : "cp.async.wait",
            {{"groups below", e.phase}});
    break;
  case Kind::GridSync:
    touch();
    instant(p, tid, "grid.sync");
    break;
  default:
    touch();
    break;
  }
}

void Timeline::on_launch_end(const engine::LaunchView &v) {
  // The first CTA's process always has a name: findings made after the
  // launch (add_finding) are placed there.
  name_tracks(v, 0);
  for (const auto &[key, w] : warps_) {
    name_tracks(v, key.first);
    events_.push_back({{"ph", "X"},
                       {"ts", w.first},
                       {"dur", std::max<uint64_t>(w.last - w.first, 1)},
                       {"pid", pid(key.first)},
                       {"tid", key.second + 1},
                       {"name", "running"},
                       {"cat", "warp"}});
  }
  if (checker_) {
    const auto &all = checker_->findings();
    for (size_t i = findings_before_; i < all.size(); ++i) {
      const Finding &f = all[i];
      uint64_t ts = now_;
      int p = pid(0), tid = 0;
      if (!f.sites.empty()) {
        const Site &s = f.sites.back();
        p = pid(s.thread.cta_linear);
        tid = int(s.thread.warp) + 1;
        auto it = first_at_.find({s.thread.cta_linear, s.thread.warp, s.pc});
        if (it != first_at_.end())
          ts = it->second;
      }
      std::string where;
      if (!f.sites.empty() && f.sites.back().cuda_line)
        where = fmt::format("{}:{}", f.sites.back().cuda_file,
                            f.sites.back().cuda_line);
      else if (!f.sites.empty() && f.sites.back().ptx.valid())
        where = fmt::format("{}:{}", f.sites.back().ptx_file,
                            f.sites.back().ptx.line);
      events_.push_back(
          {{"ph", "i"},
           {"ts", ts},
           {"pid", p},
           {"tid", tid},
           {"s", "p"},
           {"cat", "finding"},
           {"name", fmt::format("{} at {}", name_of(f.kind), where)},
           {"args",
            {{"message", f.diag.message}, {"instances", f.instances}}}});
    }
  }
  ++launch_;
  ++now_; // launches do not overlap
}

void Timeline::add_finding(const Finding &f) {
  if (!launch_)
    return;
  std::string where;
  if (!f.sites.empty() && f.sites.front().cuda_line)
    where = fmt::format(" at {}:{}", f.sites.front().cuda_file,
                        f.sites.front().cuda_line);
  else if (!f.sites.empty() && f.sites.front().ptx.valid())
    where = fmt::format(" at {}:{}", f.sites.front().ptx_file,
                        f.sites.front().ptx.line);
  events_.push_back({{"ph", "i"},
                     {"ts", now_ - 1},
                     {"pid", int(((launch_ - 1) << 20) + 1)},
                     {"tid", 0},
                     {"s", "g"},
                     {"cat", "finding"},
                     {"name", fmt::format("{}{}", name_of(f.kind), where)},
                     {"args", {{"message", f.diag.message}}}});
}

nlohmann::json Timeline::trace() const {
  nlohmann::json j;
  j["traceEvents"] = events_;
  j["displayTimeUnit"] = "ns";
  j["otherData"] = {{"generator", "bcusim"},
                    {"time", "simulated: one tick (1 us) per engine event"},
                    {"truncated", truncated_}};
  return j;
}

bool Timeline::write(const std::string &path, std::string &error) const {
  std::ofstream out(path);
  out << trace().dump() << "\n";
  if (!out) {
    error = fmt::format("cannot write '{}'", path);
    return false;
  }
  return true;
}

} // namespace bcusim::check
