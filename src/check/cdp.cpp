// Dynamic parallelism in the race checker (docs/checker.md "Parent and
// child grids"): a child grid runs after its parent in the engine, so a
// conflict between them is found when the child accesses memory that the
// parent accessed without being ordered before the launch.
#include <algorithm>
#include <bit>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "report.h"

namespace bcusim::check::detail {

void cdp_launch_begin(CdpSt &s, const LaunchSt &L) {
  s.logging = L.view && L.view->device_launches();
  s.log.clear();
  s.launches.clear();
}

namespace {

std::string access_text(bool write, bool strong, uint32_t size) {
  return fmt::format("{}{} of {} bytes", strong ? "strong " : "",
                     write ? "write" : "read", size);
}

void check_child(const CdpSt &s, LaunchSt &L, const AccessEvent &e,
                 uint32_t lane, bool write, bool strong) {
  const uint64_t addr = e.addr[lane], end = addr + e.size;
  for (const CdpSt::Child *c : s.active)
    for (uint64_t g = addr >> 3; g <= (end - 1) >> 3; ++g) {
      if (!c)
        break;
      auto it = c->by_granule.find(g);
      if (it == c->by_granule.end())
        continue;
      for (uint32_t i : it->second) {
        const CdpSt::Side &p = c->sides[i];
        if (p.addr >= end || addr >= p.addr + p.size)
          continue;
        if (!p.write && !write)
          continue;
        if (p.strong && strong)
          continue;
        const uint64_t at = std::max(addr, p.addr);
        const char *kind = p.write && write ? "write-after-write (WAW)"
                           : p.write        ? "read-after-write (RAW)"
                                            : "write-after-read (WAR)";
        const std::string where = L.view->describe(StateSpace::Global, at);
        const Tid who = L.tid_of(e.cta, e.warp, lane);
        std::string msg = fmt::format(
            "data race between parent and child grid: {} on .global {}"
            "(address {:#x}): {}, then {} by {} of kernel '{}' (launch {}) "
            "at '{}'",
            kind, where.empty() ? "" : where + " ", at, p.who,
            access_text(write, strong, e.size), thread_text(thread_ref(L, who)),
            demangle(L.kernel), L.launch_index, L.view->text(e.pc));
        std::vector<Diagnostic> notes;
        notes.push_back(
            {Severity::Note, p.loc, "the parent grid's access", {}});
        notes.push_back(
            {Severity::Note,
             {},
             "missing ordering: " + c->launch_at +
                 "; a parent grid does not wait for its children (CDP2 has "
                 "no device-side synchronization): only what the launching "
                 "thread did before the launch, and what was ordered before "
                 "that, happens before the child grid; read a child's "
                 "results in a tail launch (cudaStreamTailLaunch)",
             {}});
        L.findings->at(L, FindingKind::DataRace, Severity::Error, e.pc, who,
                       std::move(msg), std::move(notes),
                       fmt::format("cdp {}", p.pc));
        return; // one report per lane and access
      }
    }
}

} // namespace

void cdp_access(CdpSt &s, LaunchSt &L, const AccessEvent &e) {
  if (e.space != StateSpace::Global || e.atom == engine::AtomicOp::Mbarrier)
    return;
  if (!s.logging && s.active.empty())
    return;
  CtaSt *cta = L.cta(e.cta);
  if (!cta)
    return;
  const bool write = e.type != engine::AccessType::Read;
  const bool strong =
      e.type == engine::AccessType::Atomic || e.order != engine::MemOrder::Weak;
  for (uint32_t m = e.lanes; m; m &= m - 1) {
    const uint32_t l = uint32_t(std::countr_zero(m));
    if (s.logging)
      s.log.push_back({e.addr[l], e.size, e.pc, L.tid_of(e.cta, e.warp, l),
                       cta->clock[size_t(e.warp) * 32 + l], write, strong});
    if (!s.active.empty())
      check_child(s, L, e, l, write, strong);
  }
}

void cdp_device_launch(CdpSt &s, LaunchSt &L,
                       const engine::DeviceLaunchEvent &e) {
  CtaSt *cta = L.cta(e.cta);
  if (!cta || !e.lanes)
    return;
  const uint32_t lane = uint32_t(std::countr_zero(e.lanes));
  if (s.launches.size() <= e.child)
    s.launches.resize(e.child + 1);
  CdpSt::Launch &l = s.launches[e.child];
  l.tid = L.tid_of(e.cta, e.warp, lane);
  l.pc = e.pc;
  l.at = s.log.size();
  l.known = cta->threads[size_t(e.warp) * 32 + lane];
  l.tail = e.tail;
}

void cdp_launch_end(CdpSt &s, LaunchSt &L) {
  const uint32_t depth = s.depth.empty() ? 0 : s.depth.back();
  if (s.frames.size() <= depth)
    s.frames.resize(depth + 1);
  std::vector<CdpSt::Child> &children = s.frames[depth];
  children.clear();
  children.resize(s.launches.size());
  for (size_t i = 0; i < s.launches.size(); ++i) {
    const CdpSt::Launch &l = s.launches[i];
    CdpSt::Child &c = children[i];
    if (l.tid == kNoTid)
      continue;
    c.launch_at = fmt::format(
        "{} of kernel '{}' (launch {}) launched the child grid at '{}'",
        thread_text(thread_ref(L, l.tid)), demangle(L.kernel), L.launch_index,
        L.view->text(l.pc));
    // A tail launch starts after the whole parent grid completed.
    if (l.tail)
      continue;
    std::set<std::tuple<uint64_t, uint32_t, uint32_t, bool, bool>> seen;
    Accessor known;
    known.tid = l.tid;
    known.ts = &l.known;
    for (size_t k = 0; k < s.log.size(); ++k) {
      const CdpSt::Access &a = s.log[k];
      const bool before =
          a.tid == l.tid ? k < l.at : known.knows(a.tid, a.clock);
      if (before ||
          !seen.insert({a.addr, a.size, a.pc, a.write, a.strong}).second)
        continue;
      CdpSt::Side side;
      side.addr = a.addr;
      side.size = a.size;
      side.pc = a.pc;
      side.write = a.write;
      side.strong = a.strong;
      side.loc = L.view->ptx_loc(a.pc);
      side.who = fmt::format(
          "{} by {} of kernel '{}' (launch {}) at '{}', not ordered before "
          "its launch of the child grid",
          access_text(a.write, a.strong, a.size),
          thread_text(thread_ref(L, a.tid)), demangle(L.kernel), L.launch_index,
          L.view->text(a.pc));
      const uint32_t idx = uint32_t(c.sides.size());
      c.sides.push_back(std::move(side));
      for (uint64_t g = a.addr >> 3; g <= (a.addr + a.size - 1) >> 3; ++g)
        c.by_granule[g].push_back(idx);
    }
  }
  s.log.clear();
  s.log.shrink_to_fit();
  s.launches.clear();
  s.logging = false;
}

void cdp_child_begin(CdpSt &s, const engine::ChildGridEvent &e) {
  s.depth.push_back(e.depth);
  const uint32_t parent = e.depth ? e.depth - 1 : 0;
  const CdpSt::Child *c = nullptr;
  if (parent < s.frames.size() && e.child < s.frames[parent].size())
    c = &s.frames[parent][e.child];
  s.active.push_back(c && !c->sides.empty() ? c : nullptr);
}

void cdp_child_end(CdpSt &s, const engine::ChildGridEvent &e) {
  if (!s.depth.empty())
    s.depth.pop_back();
  if (!s.active.empty())
    s.active.pop_back();
  // The child's own children are done.
  if (s.frames.size() > e.depth)
    s.frames.resize(e.depth);
}

} // namespace bcusim::check::detail
