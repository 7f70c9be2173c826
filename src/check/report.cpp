// Findings: deduplication, explanations and rendering (report.h).
#include "report.h"

#include <fmt/format.h>

namespace bcusim::check::detail {

namespace {

std::string dim(const Dim3 &d) {
  return fmt::format("({},{},{})", d.x, d.y, d.z);
}

std::string access_text(const RaceSide &s) {
  std::string what = s.atomic ? "atomic" : s.write ? "write" : "read";
  if (s.async_id)
    what = s.write ? "asynchronous copy's write" : "asynchronous copy's read";
  return fmt::format("{} of {} byte{}", what, s.size, s.size == 1 ? "" : "s");
}

std::string cuda_text(const Site &s) {
  if (!s.cuda_line)
    return "";
  if (s.cuda_inlined_line)
    return fmt::format("{}:{}, inlined from {}:{}", s.cuda_file, s.cuda_line,
                       s.cuda_inlined_file, s.cuda_inlined_line);
  return fmt::format("{}:{}", s.cuda_file, s.cuda_line);
}

// What ordering is missing between the two sides (docs/checker.md
// "Reports").
std::string missing_order(LaunchSt &L, const RaceSide &a, const RaceSide &b) {
  if (a.async_id || b.async_id) {
    const RaceSide &copy = a.async_id ? a : b;
    const RaceSide &other = a.async_id ? b : a;
    bool issuer = thread_of(copy.tid) == thread_of(other.tid);
    if (copy.write)
      return issuer ? "the thread accesses the destination of its own "
                      "asynchronous copy before a wait covers the copy "
                      "(cp.async.wait_group / wait_all, or the mbarrier wait "
                      "of its transaction)"
                    : "no wait that covers the asynchronous copy (its "
                      "cp.async.wait_group or mbarrier phase) orders it "
                      "before the other access";
    return issuer ? "the thread overwrites the source of its own asynchronous "
                    "copy before the copy has read it (wait for the copy "
                    "before reusing its source)"
                  : "the source of the asynchronous copy is written while the "
                    "copy may still read it";
  }
  if ((a.atomic && !b.atomic) || (!a.atomic && b.atomic))
    return "a plain access and an atomic to the same bytes are not ordered "
           "(atomics are free of races only with other atomics)";
  if (a.strong && b.strong) {
    if (a.size != b.size)
      return "both accesses are strong, but they differ in size, so they are "
             "not morally strong";
    return "both accesses are strong, but the scope of one does not include "
           "the other thread, so they are not morally strong";
  }
  const uint64_t ca = L.cta_of(a.tid), cb = L.cta_of(b.tid);
  if (warp_key(a.tid) == warp_key(b.tid))
    return fmt::format(
        "lanes {} and {} of warp {} are independent threads (sm_70+): no "
        "warp-level synchronization orders the two accesses; it needs "
        "__syncwarp (bar.warp.sync) or a *.sync collective with both lanes",
        thread_of(a.tid) & 31, thread_of(b.tid) & 31, L.warp_of(a.tid));
  if (ca == cb) {
    const uint32_t wa = L.warp_of(a.tid), wb = L.warp_of(b.tid);
    if (CtaSt *c = L.cta(ca)) {
      for (unsigned k = 0; k < 16; ++k) {
        const BarrierSt &bs = c->bars[k];
        if (!bs.completions)
          continue;
        bool ia = (bs.last_warps >> wa) & 1, ib = (bs.last_warps >> wb) & 1;
        if (ia != ib) {
          std::string list;
          for (uint32_t w = 0; w < 32; ++w)
            if ((bs.last_warps >> w) & 1)
              list += (list.empty() ? "" : ",") + std::to_string(w);
          return fmt::format(
              "barrier {} orders warps {} only (its last phase); "
              "warp {} did not take part",
              k, list, ia ? wb : wa);
        }
      }
    }
    return "no barrier between them (and no release/acquire pattern)";
  }
  if (ThreadSt *t = L.thread(b.tid); t && t->miss_pc != ~0u)
    return fmt::format("the release is .{}-scoped: it does not include the "
                       "thread of the other CTA, so its acquire does not "
                       "synchronize with it",
                       engine::name_of(t->miss_scope));
  if (a.strong || b.strong)
    return "no release/acquire pattern orders them across CTAs (relaxed "
           "accesses order nothing: use .release/.acquire, or a fence with "
           "the relaxed flag)";
  return "no release/acquire pattern, cluster barrier or grid-wide "
         "synchronization orders them across CTAs";
}

Diagnostic note(SourceLoc loc, std::string msg) {
  Diagnostic n;
  n.severity = Severity::Note;
  n.loc = loc;
  n.message = std::move(msg);
  return n;
}

} // namespace

ThreadRef thread_ref(const LaunchSt &L, Tid t, uint64_t async_id) {
  ThreadRef r;
  r.cta_linear = L.cta_of(t);
  r.cta = L.view ? L.view->cta_id(r.cta_linear) : Dim3{};
  r.warp = L.warp_of(t);
  r.lane = thread_of(t) & 31;
  uint32_t i = r.warp * 32 + r.lane;
  const Dim3 &b = L.block;
  r.tid = Dim3{i % b.x, i / b.x % b.y, i / (b.x * b.y)};
  r.async_id = async_id;
  return r;
}

std::string thread_text(const ThreadRef &t) {
  return fmt::format("thread {} (CTA {}, warp {}, lane {})", dim(t.tid),
                     dim(t.cta), t.warp, t.lane);
}

Site site_of(const LaunchSt &L, uint32_t pc, Tid t, std::string access,
             uint64_t async_id) {
  Site s;
  s.pc = pc;
  if (L.view) {
    s.text = std::string(L.view->text(pc));
    s.ptx = L.view->ptx_loc(pc);
    if (s.ptx.valid())
      s.ptx_file = s.ptx.file->name();
    auto c = L.view->cuda_loc(pc);
    if (c.valid()) {
      s.cuda_file = std::string(c.file);
      s.cuda_line = c.line;
      if (c.inner_line) {
        s.cuda_inlined_file = std::string(c.inner_file);
        s.cuda_inlined_line = c.inner_line;
      }
    }
  }
  if (t != kNoTid)
    s.thread = thread_ref(L, t, async_id);
  s.access = std::move(access);
  return s;
}

void Findings::race(LaunchSt &L, StateSpace space, uint64_t owner,
                    uint64_t addr, const RaceSide &earlier,
                    const RaceSide &later, WriteValues values) {
  const bool intra = !earlier.async_id && !later.async_id &&
                     warp_key(earlier.tid) == warp_key(later.tid);
  const bool benign = values == WriteValues::Same;
  FindingKind kind = benign  ? FindingKind::BenignRace
                     : intra ? FindingKind::IntraWarpRace
                             : FindingKind::DataRace;
  if (L.checks.suppressed(kind))
    return;
  const Severity sev = benign ? Severity::Warning : Severity::Error;
  auto key = std::make_tuple(int(kind), std::min(earlier.pc, later.pc),
                             std::max(earlier.pc, later.pc),
                             std::string(engine::name_of(space)));
  auto it = index_.find(key);
  if (it != index_.end()) {
    ++pending_[it->second].f.instances;
    return;
  }
  index_[key] = pending_.size();
  Pending p;
  Finding &f = p.f;
  f.kind = kind;
  f.severity = sev;
  f.kernel = L.kernel;
  f.launch = L.launch_index;
  f.space = std::string(engine::name_of(space));
  f.address = addr;
  f.where = L.view ? L.view->describe(space, addr) : "";
  f.sites.push_back(site_of(L, earlier.pc, earlier.tid, access_text(earlier),
                            earlier.async_id));
  f.sites.push_back(
      site_of(L, later.pc, later.tid, access_text(later), later.async_id));
  f.missing = missing_order(L, earlier, later);
  const char *type = earlier.write && later.write ? "write-after-write (WAW)"
                     : earlier.write              ? "read-after-write (RAW)"
                                                  : "write-after-read (WAR)";
  std::string place =
      space == StateSpace::Shared
          ? fmt::format(
                ".shared {}(address {:#x}{})",
                f.where.empty() ? "" : f.where + " ", addr,
                L.cta_of(later.tid) == owner
                    ? ""
                    : fmt::format(" of CTA {}",
                                  dim(L.view ? L.view->cta_id(owner) : Dim3{})))
          : fmt::format(".{} {}(address {:#x})", engine::name_of(space),
                        f.where.empty() ? "" : f.where + " ", addr);
  const Site &s0 = f.sites[0], &s1 = f.sites[1];
  auto who = [](const Site &s) {
    std::string t = thread_text(s.thread);
    if (s.thread.async_id)
      t = "the asynchronous copy issued by " + t;
    return t;
  };
  f.diag.severity = sev;
  f.diag.loc = s1.ptx;
  f.diag.message = fmt::format(
      "{}: {} on {}: {} by {} at '{}'{}, then {} by {} at '{}'{}{}",
      benign  ? "benign race"
      : intra ? "data race between lanes of one warp (intra-warp hazard)"
              : "data race",
      type, place, s0.access, who(s0), s0.text,
      s0.cuda_line ? " (" + cuda_text(s0) + ")" : "", s1.access, who(s1),
      s1.text, s1.cuda_line ? " (" + cuda_text(s1) + ")" : "",
      benign ? "; both store the same value, so the result does not depend "
               "on their order"
      : values == WriteValues::Different
          ? "; they store different values: the result depends on which "
            "thread writes last"
          : "");
  p.notes.push_back(
      note(s0.ptx, fmt::format("the first access{}: {} by {}",
                               s0.cuda_line ? " (" + cuda_text(s0) + ")" : "",
                               s0.access, who(s0))));
  p.notes.push_back(note({}, "missing ordering: " + f.missing));
  pending_.push_back(std::move(p));
}

void Findings::lanes_race(LaunchSt &L, StateSpace space, uint64_t owner,
                          uint64_t addr, const RaceSide &first,
                          const RaceSide &second) {
  const FindingKind kind = FindingKind::IntraWarpRace;
  if (L.checks.suppressed(kind))
    return;
  auto key = std::make_tuple(int(kind), first.pc, first.pc,
                             std::string(engine::name_of(space)) + "/lanes");
  auto it = index_.find(key);
  if (it != index_.end()) {
    ++pending_[it->second].f.instances;
    return;
  }
  (void)owner;
  index_[key] = pending_.size();
  Pending p;
  Finding &f = p.f;
  f.kind = kind;
  f.severity = Severity::Error;
  f.kernel = L.kernel;
  f.launch = L.launch_index;
  f.space = std::string(engine::name_of(space));
  f.address = addr;
  f.where = L.view ? L.view->describe(space, addr) : "";
  f.sites.push_back(site_of(L, first.pc, first.tid, access_text(first)));
  f.sites.push_back(site_of(L, second.pc, second.tid, access_text(second)));
  f.missing = "nothing orders the lanes of one instruction: store from one "
              "lane, or give each lane its own address";
  const Site &s0 = f.sites[0], &s1 = f.sites[1];
  f.diag.severity = Severity::Error;
  f.diag.loc = s1.ptx;
  f.diag.message = fmt::format(
      "data race between lanes of one instruction: '{}'{} stores different "
      "values to .{} {}(address {:#x}) from lanes {} and {} of warp {}: the "
      "result depends on which lane writes last",
      s1.text, s1.cuda_line ? " (" + cuda_text(s1) + ")" : "", f.space,
      f.where.empty() ? "" : f.where + " ", addr, s0.thread.lane,
      s1.thread.lane, s1.thread.warp);
  p.notes.push_back(note({}, "missing ordering: " + f.missing));
  pending_.push_back(std::move(p));
}

void Findings::uninit(LaunchSt &L, StateSpace space, uint64_t owner,
                      uint64_t addr, uint32_t size, Tid reader, uint32_t pc) {
  if (L.checks.suppressed(FindingKind::UninitializedRead))
    return;
  auto key = std::make_tuple(int(FindingKind::UninitializedRead), pc, pc,
                             std::string(engine::name_of(space)));
  auto it = index_.find(key);
  if (it != index_.end()) {
    ++pending_[it->second].f.instances;
    return;
  }
  (void)owner;
  index_[key] = pending_.size();
  Pending p;
  Finding &f = p.f;
  f.kind = FindingKind::UninitializedRead;
  f.severity = Severity::Error;
  f.kernel = L.kernel;
  f.launch = L.launch_index;
  f.space = std::string(engine::name_of(space));
  f.address = addr;
  f.where = L.view ? L.view->describe(space, addr) : "";
  f.sites.push_back(
      site_of(L, pc, reader,
              fmt::format("read of {} byte{}", size, size == 1 ? "" : "s")));
  const Site &s = f.sites[0];
  f.diag.severity = Severity::Error;
  f.diag.loc = s.ptx;
  f.diag.message = fmt::format(
      "uninitialized read: '{}'{} by {} reads .{} {}(address {:#x}{}), which "
      "nothing in this launch has written",
      s.text, s.cuda_line ? " (" + cuda_text(s) + ")" : "",
      thread_text(s.thread), f.space, f.where.empty() ? "" : f.where + " ",
      addr, space == StateSpace::Local ? " of the thread's local memory" : "");
  pending_.push_back(std::move(p));
}

void Findings::at(LaunchSt &L, FindingKind kind, Severity sev, uint32_t pc,
                  Tid who, std::string message, std::vector<Diagnostic> notes,
                  std::string key) {
  if (L.checks.suppressed(kind))
    return;
  auto k = std::make_tuple(int(kind), pc, pc, key);
  auto it = index_.find(k);
  if (it != index_.end()) {
    ++pending_[it->second].f.instances;
    return;
  }
  index_[k] = pending_.size();
  Pending p;
  Finding &f = p.f;
  f.kind = kind;
  f.severity = sev;
  f.kernel = L.kernel;
  f.launch = L.launch_index;
  f.sites.push_back(site_of(L, pc, who, ""));
  f.diag.severity = sev;
  f.diag.loc = f.sites[0].ptx;
  f.diag.message = std::move(message);
  p.notes = std::move(notes);
  pending_.push_back(std::move(p));
}

void Findings::finish(LaunchSt &L) {
  for (auto &p : pending_) {
    Finding &f = p.f;
    Diagnostic &d = f.diag;
    const Site &last = f.sites.back();
    std::string where = fmt::format("in kernel '{}'", L.kernel);
    if (last.thread.async_id == 0 && !f.sites.empty())
      where += ", " + thread_text(last.thread);
    d.notes.push_back(note({}, where));
    for (auto &n : p.notes)
      d.notes.push_back(std::move(n));
    if (f.instances > 1)
      d.notes.push_back(note(
          {}, fmt::format("{} more instance{} of this {} (other threads or "
                          "addresses)",
                          f.instances - 1, f.instances == 2 ? "" : "s",
                          f.sites.size() == 2 ? "pair of instructions"
                                              : "instruction")));
    f.text = render(d);
    out_.push_back(std::move(f));
  }
  pending_.clear();
  index_.clear();
}

} // namespace bcusim::check::detail
