// The session layer under `bcusim run` and `bcusim exec`
// (include/bcusim/runtime/session.h, docs/api.md "Sessions").
#include "bcusim/runtime/session.h"

#include <cstring>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "bcusim/check/output.h"
#include "bcusim/engine/args.h"
#include "bcusim/ptx/instructions.h"
#include "stream_races.h"

namespace bcusim::runtime {

std::unique_ptr<engine::Module>
load_module(std::shared_ptr<const SourceFile> src, DiagnosticSink &sink) {
  if (!src)
    return nullptr;
  std::optional<ptx::Module> ast = ptx::parse(src, sink);
  if (!ast || !ptx::validate(*ast, sink))
    return nullptr;
  return engine::Module::compile(std::move(*ast), sink);
}

namespace {

// A finding's identity across schedules: its kind and its instructions.
std::string finding_key(const check::Finding &f) {
  std::string k = std::string(check::name_of(f.kind)) + "|" + f.space;
  for (const auto &s : f.sites)
    k += fmt::format("|{}", s.pc);
  if (f.sites.empty())
    k += "|" + f.diag.message;
  return k;
}

// One element as a dump prints it, without its line end.
std::string element_text(engine::ScalarType t, const uint8_t *p) {
  std::string v = engine::format_elements(t, p, 1);
  while (!v.empty() && v.back() == '\n')
    v.pop_back();
  return v;
}

// A schedule whose outcome differs from the first one's: a finding.
std::optional<check::Finding>
compare_outcomes(const Outcome &a, const Outcome &b,
                 const std::vector<DumpInfo> &dumps, const std::string &name) {
  check::Finding f;
  f.kind = check::FindingKind::ScheduleDependent;
  f.severity = Severity::Error;
  if (a.exit != b.exit) {
    f.diag.message = fmt::format(
        "schedule-dependent outcome: under --schedule {} the run {}", name,
        b.exit ? "fails: " + b.failure
               : "succeeds, while the first schedule's fails: " + a.failure);
  } else {
    for (size_t k = 0;
         k < dumps.size() && k < a.dumps.size() && k < b.dumps.size(); ++k) {
      if (a.dumps[k] == b.dumps[k])
        continue;
      const DumpInfo &d = dumps[k];
      uint32_t esz = engine::size_of(d.type);
      size_t e = 0;
      while (e + 1 < d.count &&
             std::memcmp(a.dumps[k].data() + e * esz,
                         b.dumps[k].data() + e * esz, esz) == 0)
        ++e;
      f.diag.message = fmt::format(
          "schedule-dependent result: under --schedule {} the dumped buffer "
          "argument {} differs from the first schedule's (first at element "
          "{}: {} instead of {})",
          name, d.index, e, element_text(d.type, b.dumps[k].data() + e * esz),
          element_text(d.type, a.dumps[k].data() + e * esz));
      break;
    }
  }
  if (f.diag.message.empty())
    return std::nullopt;
  return f;
}

} // namespace

std::vector<check::Finding>
explore(const Exploration &x, const Outcome &first,
        std::vector<check::Finding> findings,
        const std::function<Outcome(const engine::Schedule &)> &run,
        const std::function<void(const check::Finding &)> &report) {
  if (x.schedules <= 1)
    return findings;
  auto list = engine::Schedule::exploration(x.schedules, x.first, x.warps);
  std::set<std::string> seen;
  for (const auto &f : findings)
    seen.insert(finding_key(f));
  for (size_t i = 1; i < list.size(); ++i) {
    const std::string name = list[i].str();
    Outcome r = run(list[i]);
    for (auto &f : r.findings) {
      if (!seen.insert(finding_key(f)).second)
        continue;
      Diagnostic n;
      n.severity = Severity::Note;
      n.message = fmt::format("found under --schedule {}", name);
      f.diag.notes.push_back(n);
      report(f);
      findings.push_back(std::move(f));
    }
    if (auto diff = compare_outcomes(first, r, x.dumps, name)) {
      report(*diff);
      findings.push_back(std::move(*diff));
    }
  }
  return findings;
}

check::FindingKind finding_kind(engine::RunProblem p) {
  switch (p) {
  case engine::RunProblem::Deadlock:
    return check::FindingKind::Deadlock;
  case engine::RunProblem::BarrierDivergence:
    return check::FindingKind::BarrierDivergence;
  case engine::RunProblem::SyncMisuse:
    return check::FindingKind::SyncMisuse;
  case engine::RunProblem::Limit:
    return check::FindingKind::Limit;
  case engine::RunProblem::Fault:
  case engine::RunProblem::Trap:
  case engine::RunProblem::BadLaunch:
    break;
  }
  return check::FindingKind::Fault;
}

check::Finding finding_of_run(const engine::RunDiagnostic &d,
                              const std::string &kernel, uint64_t launch,
                              const engine::Module &module, bool *hinted) {
  check::Finding f;
  f.kind = finding_kind(d.kind);
  f.kernel = kernel;
  f.launch = launch;
  f.severity = d.severity;
  // Sites: the diagnostic's location and every located note (a deadlock's
  // waiting warps), with their CUDA lines.
  auto add = [&](const SourceLoc &loc) {
    if (!loc.valid())
      return;
    for (const auto &s : f.sites)
      if (s.ptx.line == loc.line && s.ptx.file == loc.file)
        return;
    f.sites.push_back(check::site_at(loc, module));
  };
  add(d.loc);
  for (const auto &n : d.notes)
    add(n.loc);
  // Source first, as the checker's own findings (a launch that does not
  // fit its kernel is not about a line of it: no -lineinfo note).
  f.diag = check::source_first(
      d, module, d.kind == engine::RunProblem::BadLaunch ? nullptr : hinted);
  // A fault inside a called function: its call stack, after the PTX
  // instruction's note as in the checker's findings.
  if (!d.call_stack.empty() && !f.sites.empty() && d.loc.valid()) {
    check::Site &s = f.sites.front();
    for (const SourceLoc &loc : d.call_stack)
      s.call_stack.push_back(check::site_at(loc, module));
    auto notes = check::call_stack_notes(s);
    auto at = f.diag.notes.begin() + (s.cuda_line ? 1 : 0);
    f.diag.notes.insert(at, notes.begin(), notes.end());
  }
  f.text = render(f.diag);
  return f;
}

std::string check_summary(const check::Checks &checks,
                          const std::vector<check::Finding> &findings,
                          std::optional<uint64_t> launches) {
  check::Checker c(checks);
  for (const auto &f : findings)
    c.add(f);
  std::string s = c.summary();
  // The checker counts the launches it observed (none here): the count is
  // the caller's.
  const std::string none = " in 0 launches";
  auto pos = s.find(none);
  if (pos != std::string::npos)
    s.replace(pos, none.size(),
              launches ? fmt::format(" in {} launch{}", *launches,
                                     *launches == 1 ? "" : "es")
                       : "");
  return s;
}

nlohmann::json report_json(const std::string &checks, uint64_t launches,
                           size_t errors, size_t warnings,
                           const std::string &summary,
                           const std::vector<check::Finding> &findings) {
  nlohmann::json j;
  if (!checks.empty())
    j["checks"] = checks;
  j["launches"] = launches;
  j["errors"] = errors;
  j["warnings"] = warnings;
  j["summary"] = summary;
  j["findings"] = nlohmann::json::array();
  for (const auto &f : findings)
    j["findings"].push_back(f.to_json());
  return j;
}

bool write_report(const std::string &path, const nlohmann::json &report) {
  std::ofstream out(path);
  out << report.dump(2) << "\n";
  return bool(out);
}

Session::Session(check::Checks checks, engine::Schedule schedule,
                 const RunOptions &options)
    : checks_(checks), schedule_(schedule), opts_(options) {
  if (checks_.any())
    checker_ = std::make_unique<check::Checker>(checks_);
  if (checks_.race)
    races_ = std::make_unique<detail::StreamRaces>(*checker_);
}

Session::~Session() = default;

void Session::take_checker_findings() {
  if (!checker_)
    return;
  const auto &all = checker_->findings();
  for (; taken_ < all.size(); ++taken_)
    findings_.push_back(all[taken_]);
}

Session::Active::~Active() = default;

StreamOrder::Work Session::next_work(StreamOrder::Stream stream) {
  if (preordered_) {
    StreamOrder::Work w = std::move(*preordered_);
    preordered_.reset();
    return w;
  }
  return streams_.submit(stream);
}

std::unique_ptr<Session::Active>
Session::begin_launch(engine::LaunchConfig &cfg, StreamOrder::Stream stream,
                      const std::vector<engine::Observer *> &also) {
  cfg.max_steps = opts_.max_steps;
  cfg.time_limit_s = opts_.time_limit;
  cfg.schedule = schedule_;
  cfg.host_threads = opts_.threads;
  cfg.warn_only = opts_.warn_only;
  cfg.observer = checker_.get();
  auto a = std::make_unique<Active>();
  a->launch = launches_;
  // Work items of several streams are checked against each other.
  StreamOrder::Work work = next_work(stream);
  a->work = work;
  a->across = races_ && streams_.several();
  if (a->across) {
    races_->begin_kernel(std::move(work), streams_.name(stream), launches_);
    cfg.observer = races_.get();
  }
  for (engine::Observer *o : also)
    if (o)
      cfg.observers.push_back(o);
  ++launches_;
  return a;
}

void Session::detach(Active &a) {
  if (a.checker || !checker_)
    return;
  a.taken = taken_;
  a.checker = std::move(checker_);
  checker_ = std::make_unique<check::Checker>(checks_);
  taken_ = 0;
  if (races_) {
    auto fresh = std::make_unique<detail::StreamRaces>(*checker_);
    fresh->copy_history(*races_);
    a.races = std::move(races_);
    races_ = std::move(fresh);
  }
}

Session::Launched Session::end_launch(std::unique_ptr<Active> a,
                                      engine::RunReport report) {
  Launched out;
  out.report = std::move(report);
  out.first_finding = findings_.size();
  out.launch = a->launch;
  if (!a->checker) {
    if (a->across)
      races_->end(streams_);
    take_checker_findings();
    return out;
  }
  // A launch that yielded: its footprint is checked against what ran while
  // it waited, then kept for the work items after it.
  if (a->across) {
    std::unique_ptr<detail::StreamRaces::Item> item =
        a->races->finish(streams_);
    if (item && races_)
      races_->adopt(std::move(item), streams_);
  }
  const auto &all = a->checker->findings();
  for (size_t i = a->taken; i < all.size(); ++i)
    findings_.push_back(all[i]);
  take_checker_findings();
  a->races.reset();
  retired_.push_back(std::move(a->checker));
  return out;
}

Session::Launched Session::launch(engine::Device &dev,
                                  const engine::Module &module,
                                  const std::string &kernel,
                                  engine::LaunchConfig cfg,
                                  const std::vector<engine::KernelArg> &args,
                                  StreamOrder::Stream stream,
                                  const std::vector<engine::Observer *> &also) {
  std::unique_ptr<Active> a = begin_launch(cfg, stream, also);
  engine::RunReport r = dev.launch(module, kernel, cfg, args);
  return end_launch(std::move(a), std::move(r));
}

std::string Session::add_run_findings(const engine::RunReport &r,
                                      const std::string &kernel,
                                      const engine::Module &module, bool keep,
                                      std::optional<uint64_t> launch) {
  std::string text;
  // One -lineinfo note per run, shared with the checker's reports.
  bool *hinted = checker_ ? &checker_->lineinfo_hinted() : &hinted_;
  for (const auto &d : r.diagnostics) {
    check::Finding f = finding_of_run(d, kernel,
                                      launch      ? *launch
                                      : launches_ ? launches_ - 1
                                                  : 0,
                                      module, hinted);
    // Host stacks (bcusim exec): of the allocation a fault touches, and of
    // the launch.
    if (checker_) {
      const check::HostContext &host = checker_->host_context();
      auto frames = [&](const std::vector<std::string> &stack) {
        for (size_t i = 0; i < stack.size(); ++i)
          f.diag.notes.push_back(
              {Severity::Note, {}, fmt::format("    #{} {}", i, stack[i]), {}});
      };
      if (d.allocation && host.allocation_stack) {
        std::vector<std::string> stack = host.allocation_stack(d.allocation);
        if (!stack.empty()) {
          f.diag.notes.push_back(
              {Severity::Note,
               {},
               fmt::format("the allocation at {:#x} was allocated at:",
                           d.allocation),
               {}});
          frames(stack);
        }
      }
      if (host.launch_stack) {
        f.launch_stack = host.launch_stack();
        if (!f.launch_stack.empty()) {
          f.diag.notes.push_back(
              {Severity::Note, {}, "the kernel was launched at:", {}});
          frames(f.launch_stack);
        }
      }
      f.text = render(f.diag);
    }
    text += f.text;
    if (keep)
      findings_.push_back(std::move(f));
  }
  return text;
}

void Session::begin_work(StreamOrder::Stream stream, const std::string &api,
                         const engine::Device *dev) {
  StreamOrder::Work work = next_work(stream);
  in_work_ = races_ && streams_.several();
  if (in_work_)
    races_->begin_host(std::move(work), streams_.name(stream), api, launches_,
                       dev);
}

void Session::work_access(uint64_t addr, uint64_t bytes, bool write) {
  if (in_work_)
    races_->host_access(addr, bytes, write);
}

size_t Session::end_work() {
  const size_t first = findings_.size();
  if (in_work_) {
    races_->end(streams_);
    take_checker_findings();
  }
  in_work_ = false;
  return first;
}

void Session::end_all_work() {
  streams_.host_sync_all();
  if (races_)
    races_ = std::make_unique<detail::StreamRaces>(*checker_);
}

void Session::add(check::Finding f) { findings_.push_back(std::move(f)); }

size_t Session::errors() const {
  size_t n = 0;
  for (const auto &f : findings_)
    n += f.severity == Severity::Error;
  return n;
}

size_t Session::warnings() const {
  size_t n = 0;
  for (const auto &f : findings_)
    n += f.severity == Severity::Warning;
  return n;
}

std::string Session::summary_line(bool with_launches) const {
  return check_summary(checks_, findings_,
                       with_launches ? std::optional<uint64_t>(launches_)
                                     : std::nullopt);
}

} // namespace bcusim::runtime
