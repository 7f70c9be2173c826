// Findings: deduplication, explanations and rendering (report.h).
#include "report.h"

#include <cxxabi.h>
#include <filesystem>
#include <map>
#include <mutex>

#include <fmt/format.h>

namespace bcusim::check {

std::string demangle(std::string_view name) {
  if (name.rfind("_Z", 0) != 0)
    return std::string(name);
  int status = 0;
  std::string n(name);
  char *d = abi::__cxa_demangle(n.c_str(), nullptr, nullptr, &status);
  std::string r = status == 0 && d ? std::string(d) : n;
  std::free(d);
  return r;
}

namespace {

// CUDA source files by the name .file gives them (and the PTX file's
// folder), loaded once and kept: diagnostics point into them.
const SourceFile *cuda_source(const std::string &name, const SourceFile *ptx) {
  // Never destroyed: findings are rendered at exit too (bcusim exec).
  static auto &mu = *new std::mutex;
  static auto &files =
      *new std::map<std::string, std::shared_ptr<const SourceFile>>;
  namespace fs = std::filesystem;
  std::string beside;
  if (ptx && fs::path(name).is_relative())
    beside = (fs::path(ptx->name()).parent_path() / name).string();
  std::lock_guard<std::mutex> g(mu);
  auto key = name + '\n' + beside;
  auto it = files.find(key);
  if (it != files.end())
    return it->second.get();
  std::string err;
  std::shared_ptr<const SourceFile> f;
  if (auto t = SourceFile::read(name, err))
    f = std::move(t);
  else if (!beside.empty() && beside != name &&
           (t = SourceFile::read(beside, err)))
    f = std::move(t); // named by the path that opens it
  else
    f = SourceFile::name_only(name);
  return files.emplace(key, std::move(f)).first->second.get();
}

} // namespace

SourceLoc source_first(const Site &s) {
  if (!s.cuda_line)
    return s.ptx;
  SourceLoc l;
  l.file = cuda_source(s.cuda_file, s.ptx.file);
  l.line = s.cuda_line;
  l.col = s.cuda_col;
  if (!l.col) { // inlined code: the call's column is not recorded
    std::string_view text = l.file->line(l.line);
    size_t first = text.find_first_not_of(" \t");
    l.col = first == std::string_view::npos ? 1 : uint32_t(first + 1);
  }
  return l;
}

} // namespace bcusim::check

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

namespace {

// What groups a site's reports: its CUDA line, else its instruction.
std::string source_key(const LaunchSt &L, uint32_t pc) {
  if (L.view) {
    auto c = L.view->cuda_loc(pc);
    if (c.valid())
      return fmt::format("{}:{}:{}:{}", c.file, c.line, c.inner_file,
                         c.inner_line);
  }
  return fmt::format("#{}", pc);
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

std::optional<AllocationOrigin> allocation_of(const LaunchSt &L,
                                              uint64_t addr) {
  if (!L.view)
    return std::nullopt;
  auto a = L.view->allocation(addr);
  if (!a)
    return std::nullopt;
  AllocationOrigin o;
  o.base = a->base;
  o.size = a->size;
  o.offset = addr - a->base;
  o.name = a->name;
  auto starts = [&](const char *p) { return a->name.rfind(p, 0) == 0; };
  if (a->module_var) {
    o.origin = "__device__ variable";
    o.name = demangle(a->name);
    if (o.name != a->name)
      o.mangled = a->name;
  } else if (starts("argument ")) {
    o.origin = "-a argument";
  } else if (starts("managed memory") || starts("cudaMallocManaged")) {
    o.origin = "cudaMallocManaged";
  } else if (starts("cudaMallocHost")) {
    o.origin = "cudaMallocHost";
  } else if (starts("cudaHostAlloc")) {
    o.origin = "cudaHostAlloc";
  } else if (starts("cudaMalloc")) {
    o.origin = "cudaMalloc";
  } else {
    o.origin = "allocation";
  }
  return o;
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
      s.cuda_col = c.col;
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
  // One report per pair of source locations (CUDA lines, else PTX
  // instructions) per state space.
  std::string ka = source_key(L, earlier.pc), kb = source_key(L, later.pc);
  if (kb < ka)
    std::swap(ka, kb);
  auto key =
      std::make_tuple(int(kind), 0u, 0u,
                      fmt::format("{}|{}|{}", engine::name_of(space), ka, kb));
  auto it = index_.find(key);
  auto instance = [&](Finding &f) {
    if (f.instance_list.size() < Finding::kMaxInstances)
      f.instance_list.push_back({{earlier.pc, later.pc},
                                 {thread_ref(L, earlier.tid, earlier.async_id),
                                  thread_ref(L, later.tid, later.async_id)},
                                 addr});
  };
  if (it != index_.end()) {
    Finding &f = pending_[it->second].f;
    ++f.instances;
    instance(f);
    return;
  }
  index_[key] = pending_.size();
  created_.fetch_add(1, std::memory_order_relaxed);
  Pending p;
  Finding &f = p.f;
  instance(f);
  f.kind = kind;
  f.severity = sev;
  f.kernel = L.kernel;
  f.launch = L.launch_index;
  f.space = std::string(engine::name_of(space));
  f.address = addr;
  f.where = L.view ? L.view->describe(space, addr) : "";
  if (space == StateSpace::Global)
    f.allocation = allocation_of(L, addr);
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
      note(source_first(s0),
           fmt::format("the first access{}: {} by {}",
                       s0.cuda_inlined_line ? " (" + cuda_text(s0) + ")" : "",
                       s0.access, who(s0))));
  if (s0.cuda_line)
    p.notes.push_back(
        note(s0.ptx,
             fmt::format("the first access's PTX instruction '{}'", s0.text)));
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
  auto instance = [&](Finding &f) {
    if (f.instance_list.size() < Finding::kMaxInstances)
      f.instance_list.push_back(
          {{first.pc, second.pc},
           {thread_ref(L, first.tid), thread_ref(L, second.tid)},
           addr});
  };
  if (it != index_.end()) {
    Finding &f = pending_[it->second].f;
    ++f.instances;
    instance(f);
    return;
  }
  (void)owner;
  index_[key] = pending_.size();
  created_.fetch_add(1, std::memory_order_relaxed);
  Pending p;
  Finding &f = p.f;
  instance(f);
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
  auto instance = [&](Finding &f) {
    if (f.instance_list.size() < Finding::kMaxInstances)
      f.instance_list.push_back({{pc}, {thread_ref(L, reader)}, addr});
  };
  if (it != index_.end()) {
    Finding &f = pending_[it->second].f;
    ++f.instances;
    instance(f);
    return;
  }
  (void)owner;
  index_[key] = pending_.size();
  created_.fetch_add(1, std::memory_order_relaxed);
  Pending p;
  Finding &f = p.f;
  instance(f);
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
  auto instance = [&](Finding &f) {
    if (f.instance_list.size() < Finding::kMaxInstances)
      f.instance_list.push_back(
          {{pc}, {who != kNoTid ? thread_ref(L, who) : ThreadRef{}}, 0});
  };
  if (it != index_.end()) {
    Finding &f = pending_[it->second].f;
    ++f.instances;
    instance(f);
    return;
  }
  index_[k] = pending_.size();
  created_.fetch_add(1, std::memory_order_relaxed);
  Pending p;
  Finding &f = p.f;
  instance(f);
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
    // Source first: the CUDA line, then the PTX instruction as a note.
    if (last.cuda_line && d.loc.file == last.ptx.file &&
        d.loc.line == last.ptx.line) {
      d.loc = source_first(last);
      d.notes.push_back(
          note(last.ptx, fmt::format("the PTX instruction '{}'", last.text)));
    }
    std::string where = fmt::format("in kernel '{}'", demangle(L.kernel));
    if (last.thread.async_id == 0 && !f.sites.empty())
      where += ", " + thread_text(last.thread);
    d.notes.push_back(note({}, where));
    for (auto &n : p.notes)
      d.notes.push_back(std::move(n));
    if (f.allocation) {
      AllocationOrigin &a = *f.allocation;
      if (host_.allocation_stack && !a.host_stack.size())
        a.host_stack = host_.allocation_stack(a.base);
      std::string what =
          a.origin == "__device__ variable"
              ? fmt::format("the __device__ variable '{}'", a.name)
          : a.origin == "-a argument" ? a.name
          : a.origin == "allocation"  ? "an allocation"
                                      : "memory from " + a.origin;
      d.notes.push_back(
          note({}, fmt::format("address {:#x} is byte {} of {} ({} byte{} at "
                               "{:#x}){}",
                               f.address, a.offset, what, a.size,
                               a.size == 1 ? "" : "s", a.base,
                               a.host_stack.empty() ? "" : ", allocated at:")));
      for (size_t i = 0; i < a.host_stack.size(); ++i)
        d.notes.push_back(
            note({}, fmt::format("    #{} {}", i, a.host_stack[i])));
    }
    if (host_.launch_stack && f.launch_stack.empty())
      f.launch_stack = host_.launch_stack();
    if (!f.launch_stack.empty()) {
      d.notes.push_back(note({}, "the kernel was launched at:"));
      for (size_t i = 0; i < f.launch_stack.size(); ++i)
        d.notes.push_back(
            note({}, fmt::format("    #{} {}", i, f.launch_stack[i])));
    }
    if (!hinted_ && last.ptx.valid() && !last.cuda_line) {
      hinted_ = true;
      d.notes.push_back(
          note({}, "the PTX has no line information: build with -lineinfo (or "
                   "-G) to see CUDA source lines in reports"));
    }
    if (f.instances > 1)
      d.notes.push_back(note(
          {}, fmt::format("{} more instance{} of this {} (other threads or "
                          "addresses)",
                          f.instances - 1, f.instances == 2 ? "" : "s",
                          f.sites.size() != 2 ? "instruction"
                          : f.sites[0].cuda_line && f.sites[1].cuda_line
                              ? "pair of source lines"
                              : "pair of instructions")));
    f.text = render(d);
    out_.push_back(std::move(f));
  }
  pending_.clear();
  index_.clear();
}

} // namespace bcusim::check::detail
