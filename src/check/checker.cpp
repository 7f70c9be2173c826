// The checker's front: options, findings, summary and JSON report
// (docs/checker.md). The analyses live beside it, one file each.
#include "bcusim/check/checker.h"

#include <fmt/format.h>
#include <mutex>

#include "report.h"

namespace bcusim::check {

std::optional<Checks> Checks::parse(std::string_view list, std::string &error) {
  Checks c;
  c.sync = false;
  c.explicit_list = true;
  if (list == "all") {
    c.race = c.sync = c.init = true;
    return c;
  }
  if (list == "none")
    return c;
  if (list.empty()) {
    error = "empty check list (use all, none, or a comma list of race, "
            "sync, init)";
    return std::nullopt;
  }
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    std::string_view item = list.substr(pos, comma == std::string_view::npos
                                                 ? std::string_view::npos
                                                 : comma - pos);
    if (item == "race")
      c.race = true;
    else if (item == "sync")
      c.sync = true;
    else if (item == "init")
      c.init = true;
    else {
      error = fmt::format("unknown check '{}' (use all, none, or a comma "
                          "list of race, sync, init)",
                          item);
      return std::nullopt;
    }
    if (comma == std::string_view::npos)
      break;
    pos = comma + 1;
  }
  return c;
}

std::string Checks::str() const {
  std::string s;
  auto add = [&](bool on, const char *n) {
    if (!on)
      return;
    if (!s.empty())
      s.push_back(',');
    s.append(n);
  };
  add(race, "race");
  add(sync, "sync");
  add(init, "init");
  return s.empty() ? "none" : s;
}

std::string_view name_of(FindingKind k) {
  switch (k) {
  case FindingKind::DataRace:
    return "data-race";
  case FindingKind::IntraWarpRace:
    return "intra-warp-race";
  case FindingKind::BarrierDivergence:
    return "barrier-divergence";
  case FindingKind::Deadlock:
    return "deadlock";
  case FindingKind::SyncMisuse:
    return "sync-misuse";
  case FindingKind::UninitializedRead:
    return "uninitialized-read";
  case FindingKind::ScheduleDependent:
    return "schedule-dependent";
  case FindingKind::Fault:
    return "fault";
  case FindingKind::Limit:
    return "limit";
  case FindingKind::HeapLeak:
    return "heap-leak";
  }
  return "?";
}

namespace {

nlohmann::json site_json(const Site &s) {
  nlohmann::json j;
  j["pc"] = s.pc;
  j["instruction"] = s.text;
  if (!s.ptx_file.empty()) {
    j["ptx_file"] = s.ptx_file;
    j["ptx_line"] = s.ptx.line;
    j["ptx_col"] = s.ptx.col;
  }
  if (s.cuda_line) {
    j["cuda_file"] = s.cuda_file;
    j["cuda_line"] = s.cuda_line;
    if (s.cuda_col)
      j["cuda_col"] = s.cuda_col;
    if (s.cuda_inlined_line) {
      j["cuda_inlined_file"] = s.cuda_inlined_file;
      j["cuda_inlined_line"] = s.cuda_inlined_line;
    }
  }
  const ThreadRef &t = s.thread;
  j["thread"] = {{"cta", {t.cta.x, t.cta.y, t.cta.z}},
                 {"cta_linear", t.cta_linear},
                 {"warp", t.warp},
                 {"lane", t.lane},
                 {"tid", {t.tid.x, t.tid.y, t.tid.z}}};
  if (t.async_id)
    j["thread"]["async_copy"] = t.async_id;
  if (!s.access.empty())
    j["access"] = s.access;
  return j;
}

} // namespace

nlohmann::json Finding::to_json() const {
  nlohmann::json j;
  j["kind"] = std::string(name_of(kind));
  j["severity"] = severity == Severity::Error     ? "error"
                  : severity == Severity::Warning ? "warning"
                                                  : "note";
  j["kernel"] = kernel;
  j["kernel_demangled"] = demangle(kernel);
  j["launch"] = launch;
  j["message"] = diag.message;
  j["instances"] = instances;
  if (!space.empty()) {
    j["space"] = space;
    j["address"] = address;
    if (!where.empty())
      j["where"] = where;
  }
  if (!missing.empty())
    j["missing"] = missing;
  if (allocation) {
    const AllocationOrigin &a = *allocation;
    j["allocation"] = {{"base", a.base},     {"size", a.size},
                       {"offset", a.offset}, {"origin", a.origin},
                       {"name", a.name},     {"host_stack", a.host_stack}};
    if (!a.mangled.empty())
      j["allocation"]["mangled"] = a.mangled;
  }
  if (!launch_stack.empty())
    j["launch_stack"] = launch_stack;
  if (!instance_list.empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto &in : instance_list) {
      nlohmann::json threads = nlohmann::json::array();
      for (const auto &t : in.threads) {
        nlohmann::json tj = {{"cta", {t.cta.x, t.cta.y, t.cta.z}},
                             {"warp", t.warp},
                             {"lane", t.lane},
                             {"tid", {t.tid.x, t.tid.y, t.tid.z}}};
        if (t.async_id)
          tj["async_copy"] = t.async_id;
        threads.push_back(std::move(tj));
      }
      list.push_back(
          {{"pcs", in.pcs}, {"threads", threads}, {"address", in.address}});
    }
    j["instance_list"] = std::move(list);
  }
  j["sites"] = nlohmann::json::array();
  for (const auto &s : sites)
    j["sites"].push_back(site_json(s));
  j["text"] = text.empty() ? render(diag) : text;
  return j;
}

struct Checker::Impl {
  explicit Impl(const Checks &c) : findings(all) { L.checks = c; }
  std::vector<Finding> all;
  detail::Findings findings;
  detail::LaunchSt L;
  uint64_t launches = 0;
  uint64_t peak_shadow = 0, peak_covered = 0;
  std::mutex mu; // concurrent() observers: sync checks only
};

Checker::Checker(Checks checks)
    : checks_(checks), impl_(std::make_unique<Impl>(checks)) {}
Checker::~Checker() = default;

bool Checker::wants_accesses() const { return checks_.race || checks_.init; }
bool Checker::concurrent() const { return !wants_accesses(); }

void Checker::on_launch_begin(const engine::LaunchView &v) {
  std::lock_guard<std::mutex> g(impl_->mu);
  detail::LaunchSt &L = impl_->L;
  L = detail::LaunchSt{};
  L.checks = checks_;
  L.view = &v;
  L.launch_index = impl_->launches;
  L.kernel = std::string(v.kernel());
  L.grid = v.grid();
  L.block = v.block();
  L.cluster_dims = v.cluster();
  L.tpc = uint32_t(L.block.count());
  L.wpc = (L.tpc + 31) / 32;
  L.shared_bytes = v.shared_bytes();
  L.reserved = v.reserved_shared();
  L.local_bytes = v.local_bytes();
  // Thread ids have 30 bits (vc.h).
  L.race_on = L.grid.count() * L.wpc * 32 < (1ull << 30);
  L.findings = &impl_->findings;
}

void Checker::on_access(const engine::AccessEvent &e) {
  detail::LaunchSt &L = impl_->L;
  if (checks_.race && L.race_on)
    detail::check_access(L, e);
  if (checks_.init)
    detail::init_access(L, e);
}

void Checker::on_sync(const engine::SyncEvent &e) {
  std::lock_guard<std::mutex> g(impl_->mu);
  detail::LaunchSt &L = impl_->L;
  if (e.kind == engine::SyncKind::CtaEnd) {
    uint64_t shadow = 0;
    for (auto &[k, c] : L.ctas)
      shadow += c->shadow.size() * sizeof(detail::Granule);
    impl_->peak_shadow =
        std::max(impl_->peak_shadow, shadow + L.global.bytes());
    auto it = L.ctas.find(e.cta);
    detail::rules_cta_end(L, it != L.ctas.end() ? it->second.get() : nullptr,
                          e.cta);
    if (it != L.ctas.end()) {
      L.pool.push_back(std::move(it->second));
      L.ctas.erase(it);
    }
    return;
  }
  detail::on_sync(L, e);
  detail::rules_sync(L, e);
}

void Checker::on_launch_end(const engine::LaunchView &) {
  std::lock_guard<std::mutex> g(impl_->mu);
  detail::LaunchSt &L = impl_->L;
  uint64_t shadow = L.global.bytes();
  for (auto &[k, c] : L.ctas)
    shadow += c->shadow.size() * sizeof(detail::Granule);
  impl_->peak_shadow = std::max(impl_->peak_shadow, shadow);
  detail::rules_launch_end(L);
  impl_->findings.finish(L);
  L = detail::LaunchSt{};
  ++impl_->launches;
}

const std::vector<Finding> &Checker::findings() const { return impl_->all; }

uint64_t Checker::shadow_bytes() const { return impl_->peak_shadow; }

size_t Checker::error_count() const {
  size_t n = 0;
  for (auto &f : impl_->all)
    n += f.severity == Severity::Error;
  return n;
}

size_t Checker::warning_count() const {
  size_t n = 0;
  for (auto &f : impl_->all)
    n += f.severity == Severity::Warning;
  return n;
}

std::string Checker::summary() const {
  // Findings by kind, in a fixed order.
  static const FindingKind order[] = {FindingKind::DataRace,
                                      FindingKind::IntraWarpRace,
                                      FindingKind::BarrierDivergence,
                                      FindingKind::Deadlock,
                                      FindingKind::SyncMisuse,
                                      FindingKind::UninitializedRead,
                                      FindingKind::ScheduleDependent,
                                      FindingKind::Fault,
                                      FindingKind::Limit,
                                      FindingKind::HeapLeak};
  std::string kinds;
  for (FindingKind k : order) {
    size_t n = 0;
    for (auto &f : impl_->all)
      n += f.kind == k;
    if (n)
      kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", n, name_of(k));
  }
  return fmt::format("bcusim: check ({}): {} in {} launch{}: {} error{}, {} "
                     "warning{}",
                     checks_.str(), kinds.empty() ? "no findings" : kinds,
                     impl_->launches, impl_->launches == 1 ? "" : "es",
                     error_count(), error_count() == 1 ? "" : "s",
                     warning_count(), warning_count() == 1 ? "" : "s");
}

void Checker::add(Finding f) { impl_->all.push_back(std::move(f)); }

uint64_t Checker::findings_so_far() const { return impl_->findings.created(); }

void Checker::set_host_context(HostContext context) {
  std::lock_guard<std::mutex> g(impl_->mu);
  impl_->findings.set_host(std::move(context));
}

nlohmann::json Checker::report_json() const {
  nlohmann::json j;
  j["checks"] = checks_.str();
  j["launches"] = impl_->launches;
  j["errors"] = error_count();
  j["warnings"] = warning_count();
  j["findings"] = nlohmann::json::array();
  for (auto &f : impl_->all)
    j["findings"].push_back(f.to_json());
  return j;
}

} // namespace bcusim::check
