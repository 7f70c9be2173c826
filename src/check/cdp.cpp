// Dynamic parallelism in the race checker (docs/checker.md "Parent and
// child grids"): a child grid runs after its parent in the engine, so a
// conflict between them is found when the child accesses memory that the
// parent accessed without being ordered before the launch. Sibling child
// grids run one after the other too: each one's footprint (with its
// descendants') is kept while a later sibling that may overlap with it on
// a GPU has yet to run, and that sibling's accesses are checked against it.
#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "bcusim/check/footprint.h"
#include "report.h"

namespace bcusim::check::detail {

void cdp_launch_begin(CdpSt &s, const LaunchSt &L) {
  s.logging = L.view && L.view->device_launches();
  s.params = s.logging ? L.view->launch_parameters()
                       : std::pair<uint64_t, uint64_t>{0, 0};
  s.log.clear();
  s.launches.clear();
  s.stream_ids.clear();
  s.stream_clock.clear();
  s.events.clear();
  s.waited = false;
  if (s.depth.empty()) { // a grid the host launched: a new tree
    s.sites.clear();
    s.site_of.clear();
    s.frames.clear();
  }
}

namespace {

// Launches of one grid: `i` comes before `j` when j's clock covers i's
// place in i's stream.
bool covers(const CdpSt::Clock &c, uint32_t stream, uint32_t pos) {
  auto it = std::lower_bound(
      c.begin(), c.end(), std::make_pair(stream, uint32_t(0)),
      [](const auto &x, const auto &y) { return x.first < y.first; });
  return it != c.end() && it->first == stream && it->second >= pos;
}

void join(CdpSt::Clock &into, const CdpSt::Clock &from) {
  CdpSt::Clock out;
  out.reserve(into.size() + from.size());
  size_t i = 0, j = 0;
  while (i < into.size() || j < from.size()) {
    if (j == from.size() || (i < into.size() && into[i].first < from[j].first))
      out.push_back(into[i++]);
    else if (i == into.size() || from[j].first < into[i].first)
      out.push_back(from[j++]);
    else {
      out.emplace_back(into[i].first, std::max(into[i].second, from[j].second));
      ++i;
      ++j;
    }
  }
  into = std::move(out);
}

bool before(const CdpSt::Child &i, const CdpSt::Child &j) {
  return j.tail || covers(j.clock, i.stream, i.pos);
}

// The stream a lane's handle names (docs/checker.md "Parent and child
// grids"): the NULL stream is its block's, cudaStreamPerThread its
// thread's, a created stream the grid's; -1 for cudaStreamFireAndForget
// and cudaStreamTailLaunch (no stream another launch can follow).
int64_t stream_of(CdpSt &s, const LaunchSt &L, const engine::ThreadEvent &e,
                  uint32_t lane, uint64_t handle, std::string *text) {
  std::pair<int, uint64_t> key;
  if (handle == 3 || handle == 4)
    return -1;
  if (handle == 0) {
    key = {0, e.cta};
    if (text) {
      const Dim3 c = L.view->cta_id(e.cta);
      *text = fmt::format("the NULL stream of CTA ({},{},{})", c.x, c.y, c.z);
    }
  } else if (handle == 2) {
    key = {2, L.tid_of(e.cta, e.warp, lane)};
    if (text)
      *text = fmt::format(
          "cudaStreamPerThread of {}",
          thread_text(thread_ref(L, L.tid_of(e.cta, e.warp, lane))));
  } else {
    key = {1, handle};
    if (text)
      *text = fmt::format("stream {:#x}", handle);
  }
  auto [it, added] = s.stream_ids.try_emplace(key, 0);
  if (added) {
    it->second = uint32_t(s.stream_clock.size());
    s.stream_clock.emplace_back();
  }
  return it->second;
}

std::string access_text(bool write, bool strong, uint32_t size) {
  return fmt::format("{}{} of {} bytes", strong ? "strong " : "",
                     write ? "write" : "read", size);
}

// A thread of a parent grid, named as thread_text() names it.
std::string frame_thread(const CdpSt::Frame &f, Tid t) {
  ThreadRef r;
  const uint64_t w = thread_of(t) >> 5;
  r.cta_linear = w / f.wpc;
  const uint64_t gx = f.grid.x, gy = f.grid.y;
  r.cta = Dim3{uint32_t(r.cta_linear % gx), uint32_t(r.cta_linear / gx % gy),
               uint32_t(r.cta_linear / (gx * gy))};
  r.warp = uint32_t(w % f.wpc);
  r.lane = thread_of(t) & 31;
  const uint32_t i = r.warp * 32 + r.lane;
  const Dim3 &b = f.block;
  r.tid = Dim3{i % b.x, i / b.x % b.y, i / (b.x * b.y)};
  return thread_text(r);
}

void check_child(const CdpSt &s, LaunchSt &L, const AccessEvent &e,
                 uint32_t lane, bool write, bool strong) {
  const uint64_t addr = e.addr[lane], end = addr + e.size;
  for (const CdpSt::Child *c : s.active) {
    if (!c)
      continue;
    const uint64_t from = addr > c->max_size ? addr - c->max_size : 0;
    auto it = std::lower_bound(
        c->sides.begin(), c->sides.end(), from,
        [](const CdpSt::Side &x, uint64_t a) { return x.addr < a; });
    for (; it != c->sides.end() && it->addr < end; ++it) {
      const CdpSt::Side &p = *it;
      if (addr >= p.addr + p.size)
        continue;
      if (!p.write && !write)
        continue;
      if (p.strong && strong)
        continue;
      const uint64_t at = std::max(addr, p.addr);
      const char *kind = race_type(p.write, write);
      const std::string where = L.view->describe(StateSpace::Global, at);
      const Tid who = L.tid_of(e.cta, e.warp, lane);
      const CdpSt::Frame &f = *c->frame;
      const auto &pc = f.pcs.at(p.pc);
      std::string msg = fmt::format(
          "data race between parent and child grid: {} on .global {}"
          "(address {:#x}): {} by {} of kernel '{}' (launch {}) at '{}', "
          "not ordered before its launch of the child grid, then {} by {} "
          "of kernel '{}' (launch {}) at '{}'",
          kind, where.empty() ? "" : where + " ", at,
          access_text(p.write, p.strong, p.size), frame_thread(f, p.tid),
          f.kernel, f.launch_index, pc.first,
          access_text(write, strong, e.size), thread_text(thread_ref(L, who)),
          demangle(L.kernel), L.launch_index, L.view->text(e.pc));
      std::vector<Diagnostic> notes;
      notes.push_back(
          {Severity::Note, pc.second, "the parent grid's access", {}});
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

uint32_t site_of(CdpSt &s, LaunchSt &L, const AccessEvent &e, GridAccess k,
                 uint32_t lane) {
  auto [it, added] =
      s.site_of.try_emplace({L.launch_index, e.pc, int(k)}, uint32_t(0));
  if (!added)
    return it->second;
  it->second = uint32_t(s.sites.size());
  CdpSt::Site site;
  site.who =
      fmt::format("{} by {} of kernel '{}' (launch {}) at '{}'",
                  access_text(writes(k), strong(k), e.size),
                  thread_text(thread_ref(L, L.tid_of(e.cta, e.warp, lane))),
                  demangle(L.kernel), L.launch_index, L.view->text(e.pc));
  site.loc = L.view->ptx_loc(e.pc);
  s.sites.push_back(std::move(site));
  return it->second;
}

// [a, b) of kind k, accessed by `lane`, against the siblings a running
// grid may overlap with: one report at most.
void check_sibling(CdpSt &s, LaunchSt &L, const AccessEvent &e,
                   const CdpSt::Level &lv, uint64_t a, uint64_t b, GridAccess k,
                   uint32_t lane) {
  for (int i = 0; i < 4; ++i) {
    const auto ek = GridAccess(i);
    if (!conflict(ek, k))
      continue;
    const auto *hit = lv.concurrent->overlap(ek, a, b);
    if (!hit)
      continue;
    const uint64_t at = std::max(a, hit->first);
    const CdpSt::Site &first = s.sites[hit->second.site];
    const CdpSt::Child &earlier = lv.frame->children[hit->second.owner];
    const CdpSt::Child &later = lv.frame->children[lv.child];
    const char *type = race_type(writes(ek), writes(k));
    const std::string where = L.view->describe(StateSpace::Global, at);
    const Tid who = L.tid_of(e.cta, e.warp, lane);
    std::string msg = fmt::format(
        "data race between sibling grids: {} on .global {}(address {:#x}): "
        "{}, then {} by {} of kernel '{}' (launch {}) at '{}'",
        type, where.empty() ? "" : where + " ", at, first.who,
        access_text(writes(k), strong(k), e.size),
        thread_text(thread_ref(L, who)), demangle(L.kernel), L.launch_index,
        L.view->text(e.pc));
    std::vector<Diagnostic> notes;
    notes.push_back({Severity::Note, first.loc, "the first access", {}});
    notes.push_back(
        {Severity::Note,
         {},
         fmt::format(
             "missing ordering: the first access's grid is (or descends "
             "from) the child grid launched by {} into {}, the second's the "
             "one launched by {} into {}; child grids of one grid may run "
             "concurrently unless they are launched into one stream (the "
             "NULL stream is shared by the threads of one block, each "
             "fire-and-forget launch stands alone), an event orders them "
             "(cudaEventRecord + cudaStreamWaitEvent), or the later one is a "
             "tail launch (cudaStreamTailLaunch)",
             earlier.launcher, earlier.stream_text, later.launcher,
             later.stream_text),
         {}});
    L.findings->at(L, FindingKind::DataRace, Severity::Error, e.pc, who,
                   std::move(msg), std::move(notes),
                   fmt::format("sibling {}", hit->second.site));
    return;
  }
}

// A child grid's access: checked against the siblings it and the grids it
// descends from may overlap with, and added to its footprint.
void sibling_access(CdpSt &s, LaunchSt &L, const AccessEvent &e) {
  CdpSt::Level &top = s.levels.back();
  bool check = false;
  for (const CdpSt::Level &lv : s.levels)
    check |= lv.concurrent != nullptr;
  if ((!check && !top.record) || !e.size)
    return;
  const GridAccess k = grid_access(e);
  uint32_t site = UINT32_MAX;
  for_each_range(
      e,
      [&](uint64_t addr) { // not the runtime's parameter buffers
        return addr - s.params.first >= s.params.second;
      },
      [&](uint64_t a, uint64_t b, uint32_t lane) {
        if (site == UINT32_MAX)
          site = site_of(s, L, e, k, lane);
        if (check)
          for (const CdpSt::Level &lv : s.levels)
            if (lv.concurrent)
              check_sibling(s, L, e, lv, a, b, k, lane);
        if (top.record)
          top.cur.add(a, b, k, {0, site, 0});
      });
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
    // The launches' parameter buffers are the device runtime's: no child
    // grid reads them (its arguments are copied at the launch).
    if (s.logging && e.addr[l] - s.params.first >= s.params.second)
      s.log.push_back({e.addr[l], e.size, e.pc, L.tid_of(e.cta, e.warp, l),
                       cta->clock[size_t(e.warp) * 32 + l], write, strong});
    if (!s.active.empty())
      check_child(s, L, e, l, write, strong);
  }
  if (!s.levels.empty())
    sibling_access(s, L, e);
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
  // Its place in its stream (the engine reports launches in the order
  // they were made, which is the order of each stream).
  const int64_t st = stream_of(s, L, e, lane, e.stream, &l.stream_text);
  if (st < 0) {
    // Fire-and-forget: a stream of its own, after nothing.
    l.stream = uint32_t(s.stream_clock.size());
    s.stream_clock.emplace_back();
    l.pos = 1;
    l.clock = {{l.stream, 1}};
    if (!e.tail)
      l.stream_text = "cudaStreamFireAndForget";
    else
      l.stream_text = "cudaStreamTailLaunch";
    return;
  }
  CdpSt::Clock &c = s.stream_clock[size_t(st)];
  l.stream = uint32_t(st);
  auto it = std::lower_bound(
      c.begin(), c.end(), std::make_pair(l.stream, uint32_t(0)),
      [](const auto &x, const auto &y) { return x.first < y.first; });
  if (it == c.end() || it->first != l.stream)
    it = c.insert(it, {l.stream, 0});
  l.pos = ++it->second;
  l.clock = c;
}

void cdp_stream_event(CdpSt &s, LaunchSt &L,
                      const engine::DeviceStreamEvent &e) {
  if (!e.lanes)
    return;
  const uint32_t lane = uint32_t(std::countr_zero(e.lanes));
  const int64_t st = stream_of(s, L, e, lane, e.stream, nullptr);
  if (st < 0)
    return; // the special streams take no events
  if (!e.wait) {
    s.events[e.event] = s.stream_clock[size_t(st)];
    return;
  }
  auto it = s.events.find(e.event);
  if (it == s.events.end())
    return; // never recorded: waits for nothing
  join(s.stream_clock[size_t(st)], it->second);
  s.waited = true;
}

void cdp_launch_end(CdpSt &s, LaunchSt &L) {
  const uint32_t depth = s.depth.empty() ? 0 : s.depth.back();
  if (s.frames.size() <= depth)
    s.frames.resize(depth + 1);
  CdpSt::Frame &frame = s.frames[depth];
  frame = CdpSt::Frame{};
  std::vector<CdpSt::Child> &children = frame.children;
  children.resize(s.launches.size());
  frame.done.resize(s.launches.size());
  frame.finished.assign(s.launches.size(), 0);
  frame.in_merged.assign(s.launches.size(), 0);
  for (size_t i = 0; i < s.launches.size(); ++i) {
    CdpSt::Launch &l = s.launches[i];
    CdpSt::Child &c = children[i];
    if (l.tid == kNoTid)
      continue;
    c.launcher = fmt::format("{} of kernel '{}' (launch {})",
                             thread_text(thread_ref(L, l.tid)),
                             demangle(L.kernel), L.launch_index);
    c.launch_at = fmt::format("{} launched the child grid at '{}'", c.launcher,
                              L.view->text(l.pc));
    c.launcher += fmt::format(" at '{}'", L.view->text(l.pc));
    c.tail = l.tail;
    c.stream = l.stream;
    c.pos = l.pos;
    c.clock = std::move(l.clock);
    c.stream_text = std::move(l.stream_text);
    c.frame = &frame;
  }
  // The parent's log and launches stay with its children: each child gets
  // the accesses it is not ordered with when it starts.
  frame.grid = L.grid;
  frame.block = L.block;
  frame.wpc = L.wpc;
  frame.kernel = demangle(L.kernel);
  frame.launch_index = L.launch_index;
  for (const CdpSt::Access &a : s.log)
    if (!frame.pcs.count(a.pc))
      frame.pcs[a.pc] = {std::string(L.view->text(a.pc)),
                         L.view->ptx_loc(a.pc)};
  // Which children a later sibling may overlap with (their footprints are
  // kept). Without events, a later launch follows an earlier one exactly
  // when it is in the same stream (or a tail launch).
  if (!s.waited) {
    std::map<uint32_t, uint32_t> later; // streams of later non-tail launches
    for (size_t i = children.size(); i-- > 0;) {
      CdpSt::Child &c = children[i];
      if (s.launches[i].tid == kNoTid || c.tail)
        continue;
      c.later_concurrent =
          later.size() > 1 || (later.size() == 1 && !later.count(c.stream));
      ++later[c.stream];
    }
  } else {
    for (size_t i = 0; i < children.size(); ++i)
      for (size_t j = i + 1; j < children.size() && !children[i].tail; ++j)
        if (s.launches[j].tid != kNoTid && !children[j].tail &&
            !before(children[i], children[j])) {
          children[i].later_concurrent = true;
          break;
        }
  }
  frame.log = std::move(s.log);
  frame.launches = std::move(s.launches);
  s.log.clear();
  s.launches.clear();
  s.logging = false;
}

namespace {

// The parent's accesses child `j` of `f` is not ordered with (once per
// address, size, instruction and kind), sorted by address.
void build_sides(CdpSt::Frame &f, size_t j) {
  CdpSt::Child &c = f.children[j];
  const CdpSt::Launch &l = f.launches[j];
  c.sides.clear();
  c.max_size = 0;
  // A tail launch starts after the whole parent grid completed.
  if (l.tid == kNoTid || l.tail)
    return;
  Accessor known;
  known.tid = l.tid;
  known.ts = &l.known;
  for (size_t k = 0; k < f.log.size(); ++k) {
    const CdpSt::Access &a = f.log[k];
    const bool before = a.tid == l.tid ? k < l.at : known.knows(a.tid, a.clock);
    if (before)
      continue;
    c.sides.push_back({a.addr, a.size, a.pc, a.tid, a.write, a.strong});
    c.max_size = std::max(c.max_size, a.size);
  }
  // Sorted by address; the first of each (address, size, instruction,
  // kind) kept.
  auto key = [](const CdpSt::Side &x) {
    return std::make_tuple(x.addr, x.size, x.pc, x.write, x.strong);
  };
  std::stable_sort(c.sides.begin(), c.sides.end(),
                   [&](const CdpSt::Side &x, const CdpSt::Side &y) {
                     return key(x) < key(y);
                   });
  c.sides.erase(std::unique(c.sides.begin(), c.sides.end(),
                            [&](const CdpSt::Side &x, const CdpSt::Side &y) {
                              return key(x) == key(y);
                            }),
                c.sides.end());
  c.sides.shrink_to_fit();
}

} // namespace

void cdp_child_begin(CdpSt &s, const engine::ChildGridEvent &e) {
  s.depth.push_back(e.depth);
  const uint32_t parent = e.depth ? e.depth - 1 : 0;
  CdpSt::Frame *f = parent < s.frames.size() ? &s.frames[parent] : nullptr;
  CdpSt::Child *c = nullptr;
  if (f && e.child < f->children.size()) {
    c = &f->children[e.child];
    build_sides(*f, e.child);
  }
  s.active.push_back(c && !c->sides.empty() ? c : nullptr);
  CdpSt::Level lv;
  lv.frame = f;
  lv.child = e.child;
  // Its footprint is kept while a later sibling of it, or of a grid it
  // descends from, may overlap with it.
  lv.record = (c && c->later_concurrent) ||
              (!s.levels.empty() && s.levels.back().record);
  if (c && !c->tail) {
    // The finished siblings it may overlap with: their union, built on the
    // previous sibling's where that is a part of it.
    bool rebuild = false, any = false;
    std::vector<char> want(f->children.size(), 0);
    for (size_t i = 0; i < e.child; ++i)
      if (f->finished[i] && !before(f->children[i], *c)) {
        want[i] = 1;
        any = true;
      } else if (f->in_merged[i]) {
        rebuild = true;
      }
    if (rebuild) {
      f->merged = CdpSt::Footprint{};
      std::fill(f->in_merged.begin(), f->in_merged.end(), 0);
    }
    for (size_t i = 0; i < e.child; ++i)
      if (want[i] && !f->in_merged[i]) {
        f->merged.merge(f->done[i], uint32_t(i));
        f->in_merged[i] = 1;
      }
    if (any && !f->merged.empty())
      lv.concurrent = &f->merged;
  }
  s.levels.push_back(std::move(lv));
}

void cdp_child_end(CdpSt &s, const engine::ChildGridEvent &e) {
  if (!s.depth.empty())
    s.depth.pop_back();
  if (!s.active.empty())
    s.active.pop_back();
  // The child's own children are done.
  if (s.frames.size() > e.depth)
    s.frames.resize(e.depth);
  if (s.levels.empty())
    return;
  CdpSt::Level lv = std::move(s.levels.back());
  s.levels.pop_back();
  const uint32_t parent = e.depth ? e.depth - 1 : 0;
  if (parent < s.frames.size() && e.child < s.frames[parent].children.size()) {
    CdpSt::Frame &f = s.frames[parent];
    f.finished[e.child] = 1;
    std::vector<CdpSt::Side>().swap(f.children[e.child].sides); // freed
    if (f.children[e.child].later_concurrent && !lv.cur.empty()) {
      if (!s.levels.empty() && s.levels.back().record)
        s.levels.back().cur.merge(lv.cur);
      f.done[e.child] = std::move(lv.cur);
      return;
    }
  }
  if (!s.levels.empty() && s.levels.back().record)
    s.levels.back().cur.merge(lv.cur);
}

} // namespace bcusim::check::detail
