// The checker's front: options, findings, summary and JSON report
// (docs/checker.md). The analyses live beside it, one file each.
#include "bcusim/check/checker.h"

#include <fmt/format.h>
#include <mutex>

#include "report.h"

namespace bcusim::check {

namespace {
constexpr FindingKind kAllKinds[] = {FindingKind::DataRace,
                                     FindingKind::IntraWarpRace,
                                     FindingKind::BenignRace,
                                     FindingKind::BarrierDivergence,
                                     FindingKind::Deadlock,
                                     FindingKind::SyncMisuse,
                                     FindingKind::UninitializedRead,
                                     FindingKind::ScheduleDependent,
                                     FindingKind::Fault,
                                     FindingKind::Limit,
                                     FindingKind::ProxyFence};
} // namespace

std::optional<Checks> Checks::parse(std::string_view list, std::string &error) {
  Checks c;
  c.sync = false;
  c.explicit_list = true;
  if (list.empty()) {
    error = "empty check list (use all, none, or a comma list of race, "
            "sync, init, -KIND)";
    return std::nullopt;
  }
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    std::string_view item = list.substr(pos, comma == std::string_view::npos
                                                 ? std::string_view::npos
                                                 : comma - pos);
    if (item == "all")
      c.race = c.sync = c.init = true;
    else if (item == "none")
      ;
    else if (item.starts_with("-")) {
      bool known = false;
      for (FindingKind k : kAllKinds)
        if (item.substr(1) == name_of(k)) {
          c.suppressed_kinds |= 1u << unsigned(k);
          known = true;
        }
      if (!known) {
        error = fmt::format("unknown finding kind '{}' in '{}' (suppressible: "
                            "data-race, intra-warp-race, benign-race, "
                            "barrier-divergence, deadlock, sync-misuse, "
                            "uninitialized-read, schedule-dependent)",
                            item.substr(1), item);
        return std::nullopt;
      }
    } else if (item == "race")
      c.race = true;
    else if (item == "sync")
      c.sync = true;
    else if (item == "init")
      c.init = true;
    else {
      error = fmt::format("unknown check '{}' (use all, none, or a comma "
                          "list of race, sync, init, -KIND)",
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
  if (s.empty())
    s = "none";
  for (FindingKind k : kAllKinds)
    if (suppressed(k))
      s += fmt::format(",-{}", name_of(k));
  return s;
}

std::string_view name_of(FindingKind k) {
  switch (k) {
  case FindingKind::DataRace:
    return "data-race";
  case FindingKind::IntraWarpRace:
    return "intra-warp-race";
  case FindingKind::BenignRace:
    return "benign-race";
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
  case FindingKind::ProxyFence:
    return "proxy-fence";
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
  if (!s.no_thread)
    j["thread"] = {{"cta", {t.cta.x, t.cta.y, t.cta.z}},
                   {"cta_linear", t.cta_linear},
                   {"warp", t.warp},
                   {"lane", t.lane},
                   {"tid", {t.tid.x, t.tid.y, t.tid.z}}};
  if (t.async_id)
    j["thread"]["async_copy"] = t.async_id;
  if (!s.access.empty())
    j["access"] = s.access;
  if (!s.call_stack.empty()) {
    j["call_stack"] = nlohmann::json::array();
    for (const Site &c : s.call_stack)
      j["call_stack"].push_back(site_json(c));
  }
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
    if (!a.cuda_site.empty())
      j["allocation"]["cuda_site"] = a.cuda_site;
    if (!a.ptx_site.empty())
      j["allocation"]["ptx_site"] = a.ptx_site;
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
  explicit Impl(const Checks &c) : findings(all), serial(c.race || c.init) {
    L.checks = c;
  }
  std::vector<Finding> all;
  detail::Findings findings;
  detail::LaunchSt L;
  detail::CdpSt cdp;
  uint64_t launches = 0;
  uint64_t peak_shadow = 0, peak_covered = 0;
  std::mutex mu;     // concurrent() observers: sync checks only
  const bool serial; // not a concurrent() observer (wants accesses)
  // Held for a launch's events where the checker is a concurrent()
  // observer; otherwise the engine delivers every event of the launch from
  // one host thread (on_access takes no lock either), and an uncontended
  // lock would still cost two atomic operations per event.
  std::unique_lock<std::mutex> event_lock() {
    if (serial)
      return std::unique_lock<std::mutex>(mu, std::defer_lock);
    return std::unique_lock<std::mutex>(mu);
  }
  template <class E, class Hb, class Rules>
  void sync(const E &e, Hb &&hb, Rules &&rules);
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
  L.dead_ok = L.cluster_dims.count() <= 1;
  L.proxy_on = v.async_proxy();
  L.findings = &impl_->findings;
  if (checks_.race)
    detail::cdp_launch_begin(impl_->cdp, L);
}

void Checker::on_access(const engine::AccessEvent &e) {
  detail::LaunchSt &L = impl_->L;
  if (checks_.race && L.race_on) {
    detail::check_access(L, e);
    if (L.proxy_on)
      detail::proxy_access(L, e);
    detail::cdp_access(impl_->cdp, L, e);
  }
  if (checks_.init)
    detail::init_access(L, e);
}

// A recursive activation's frame ends: its bytes are uninitialized again.
void Checker::on_frame_end(const engine::AccessEvent &e) {
  if (checks_.init)
    detail::init_frame_end(impl_->L, e);
}

// Synchronization events: under the lock (concurrent() observers), for a
// CTA the checker knows; `hb` (happens-before) only when races are checked.
template <class E, class Hb, class Rules>
void Checker::Impl::sync(const E &e, Hb &&hb, Rules &&rules) {
  auto g = event_lock();
  detail::CtaSt *c = L.cta(e.cta);
  if (!c)
    return;
  ++L.sync_gen; // threads' knowledge and clocks may change
  if (L.checks.race && L.race_on)
    hb(*c);
  rules(*c);
}

namespace {
constexpr auto kNone = [](detail::CtaSt &) {};
} // namespace

void Checker::on_cta_begin(const engine::CtaEvent &e) {
  auto g = impl_->event_lock();
  detail::cta_begin(impl_->L, e.cta, e.cluster);
}

void Checker::on_cta_end(const engine::CtaEvent &e) {
  auto g = impl_->event_lock();
  detail::LaunchSt &L = impl_->L;
  uint64_t shadow = 0;
  for (auto &[k, c] : L.ctas)
    shadow += c->shadow.size() * sizeof(detail::Granule);
  impl_->peak_shadow = std::max(impl_->peak_shadow, shadow + L.global.bytes());
  auto it = L.ctas.find(e.cta);
  detail::rules_cta_end(L, it != L.ctas.end() ? it->second.get() : nullptr,
                        e.cta);
  detail::proxy_cta_end(L, e.cta);
  detail::proxy_words_end(L, e.cta);
  if (it != L.ctas.end()) {
    L.pool.push_back(std::move(it->second));
    L.ctas.erase(it);
    L.ctas_changed();
  }
}

void Checker::on_thread_exit(const engine::ThreadEvent &e) {
  impl_->sync(e, kNone,
              [&](detail::CtaSt &c) { detail::hb_thread_exit(c, e); });
}

void Checker::on_fence(const engine::FenceEvent &e) {
  auto &L = impl_->L;
  impl_->sync(
      e,
      [&](detail::CtaSt &c) {
        detail::hb_fence(L, c, e);
        detail::proxy_fence(L, e);
      },
      kNone);
}

void Checker::on_barrier_arrive(const engine::BarrierArriveEvent &e) {
  auto &L = impl_->L;
  impl_->sync(
      e,
      [&](detail::CtaSt &c) {
        detail::race_barrier_arrive(c, e);
        detail::hb_barrier_arrive(L, c, e);
      },
      [&](detail::CtaSt &c) { detail::rules_barrier_arrive(c, e); });
}

void Checker::on_barrier_complete(const engine::BarrierCompleteEvent &e) {
  auto &L = impl_->L;
  impl_->sync(
      e,
      [&](detail::CtaSt &c) {
        detail::race_barrier_complete(L, c, e);
        detail::hb_barrier_complete(c, e);
      },
      [&](detail::CtaSt &c) { detail::rules_barrier_complete(L, c, e); });
}

void Checker::on_barrier_resume(const engine::BarrierResumeEvent &e) {
  impl_->sync(
      e, [&](detail::CtaSt &c) { detail::hb_barrier_resume(c, e); }, kNone);
}

void Checker::on_warp_sync(const engine::WarpSyncEvent &e) {
  auto &L = impl_->L;
  impl_->sync(
      e, [&](detail::CtaSt &c) { detail::hb_warp_sync(L, c, e); }, kNone);
}

void Checker::on_elect(const engine::WarpSyncEvent &e) { on_warp_sync(e); }

void Checker::on_cluster_arrive(const engine::ClusterEvent &e) {
  auto &L = impl_->L;
  impl_->sync(
      e, [&](detail::CtaSt &c) { detail::hb_cluster_arrive(L, c, e); }, kNone);
}

void Checker::on_cluster_complete(const engine::ClusterEvent &e) {
  auto &L = impl_->L;
  impl_->sync(
      e, [&](detail::CtaSt &) { detail::hb_cluster_complete(L, e); }, kNone);
}

void Checker::on_cluster_resume(const engine::ClusterEvent &e) {
  auto &L = impl_->L;
  impl_->sync(
      e, [&](detail::CtaSt &c) { detail::hb_cluster_resume(L, c, e); }, kNone);
}

void Checker::on_mbar_init(const engine::MbarEvent &e) {
  auto &L = impl_->L;
  impl_->sync(
      e, [&](detail::CtaSt &) { detail::hb_mbar_init(L, e); },
      [&](detail::CtaSt &) {
        detail::rules_mbar_init(L, e);
        if (L.checks.sync)
          detail::proxy_mbar_init(L, e);
      });
}

void Checker::on_mbar_arrive(const engine::MbarEvent &e) {
  auto &L = impl_->L;
  impl_->sync(
      e, [&](detail::CtaSt &c) { detail::hb_mbar_arrive(L, c, e); },
      [&](detail::CtaSt &) {
        detail::rules_mbar_arrive(L, e);
        detail::proxy_expect_tx(L, e, true);
      });
}

void Checker::on_mbar_expect_tx(const engine::MbarEvent &e) {
  auto &L = impl_->L;
  impl_->sync(e, kNone,
              [&](detail::CtaSt &) { detail::proxy_expect_tx(L, e, false); });
}

void Checker::on_mbar_complete_tx(const engine::MbarEvent &e) {
  auto &L = impl_->L;
  impl_->sync(
      e, [&](detail::CtaSt &) { detail::hb_mbar_complete_tx(L, e); },
      [&](detail::CtaSt &) { detail::proxy_complete_tx(L, e); });
}

void Checker::on_mbar_phase_complete(const engine::MbarEvent &e) {
  auto &L = impl_->L;
  impl_->sync(
      e, [&](detail::CtaSt &) { detail::hb_mbar_phase_complete(L, e); },
      [&](detail::CtaSt &) { detail::proxy_phase_complete(L, e); });
}

void Checker::on_mbar_wait_done(const engine::MbarEvent &e) {
  auto &L = impl_->L;
  impl_->sync(
      e, [&](detail::CtaSt &c) { detail::hb_mbar_wait_done(L, c, e); },
      [&](detail::CtaSt &) { detail::rules_mbar_wait_done(L, e); });
}

void Checker::on_async_issue(const engine::AsyncIssueEvent &e) {
  auto &L = impl_->L;
  impl_->sync(
      e,
      [&](detail::CtaSt &c) {
        L.dead_ok = false; // its knowledge may predate a later barrier
        detail::hb_async_issue(L, c, e);
      },
      [&](detail::CtaSt &) { detail::proxy_async_issue(L, e); });
}

void Checker::on_async_wait(const engine::AsyncWaitEvent &e) {
  auto &L = impl_->L;
  impl_->sync(
      e, [&](detail::CtaSt &c) { detail::hb_async_wait(L, c, e); }, kNone);
}

void Checker::on_async_complete(const engine::AsyncCompleteEvent &e) {
  auto &L = impl_->L;
  impl_->sync(
      e, [&](detail::CtaSt &) { detail::hb_async_complete(L, e); }, kNone);
}

void Checker::on_grid_sync(const engine::ThreadEvent &e) {
  std::lock_guard<std::mutex> g(impl_->mu);
  detail::rules_grid_sync(impl_->L, e);
}

void Checker::on_launch_end(const engine::LaunchView &) {
  std::lock_guard<std::mutex> g(impl_->mu);
  detail::LaunchSt &L = impl_->L;
  uint64_t shadow = L.global.bytes();
  for (auto &[k, c] : L.ctas)
    shadow += c->shadow.size() * sizeof(detail::Granule);
  impl_->peak_shadow = std::max(impl_->peak_shadow, shadow);
  detail::rules_launch_end(L);
  detail::proxy_cta_end(L, 0, true);
  if (checks_.race)
    detail::cdp_launch_end(impl_->cdp, L);
  impl_->findings.finish(L);
  L = detail::LaunchSt{};
  ++impl_->launches;
}

void Checker::on_device_launch(const engine::DeviceLaunchEvent &e) {
  std::lock_guard<std::mutex> g(impl_->mu);
  if (checks_.race && impl_->L.race_on)
    detail::cdp_device_launch(impl_->cdp, impl_->L, e);
}

void Checker::on_device_stream_event(const engine::DeviceStreamEvent &e) {
  std::lock_guard<std::mutex> g(impl_->mu);
  if (checks_.race && impl_->L.race_on)
    detail::cdp_stream_event(impl_->cdp, impl_->L, e);
}

void Checker::on_child_grid_begin(const engine::ChildGridEvent &e) {
  std::lock_guard<std::mutex> g(impl_->mu);
  detail::cdp_child_begin(impl_->cdp, e);
}

void Checker::on_child_grid_end(const engine::ChildGridEvent &e) {
  std::lock_guard<std::mutex> g(impl_->mu);
  detail::cdp_child_end(impl_->cdp, e);
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
                                      FindingKind::BenignRace,
                                      FindingKind::BarrierDivergence,
                                      FindingKind::Deadlock,
                                      FindingKind::SyncMisuse,
                                      FindingKind::UninitializedRead,
                                      FindingKind::ScheduleDependent,
                                      FindingKind::Fault,
                                      FindingKind::Limit,
                                      FindingKind::HeapLeak,
                                      FindingKind::ProxyFence};
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

void Checker::add(Finding f) {
  if (checks_.suppressed(f.kind))
    return;
  impl_->all.push_back(std::move(f));
}

uint64_t Checker::findings_so_far() const { return impl_->findings.created(); }

bool &Checker::lineinfo_hinted() { return impl_->findings.hinted(); }

void Checker::set_host_context(HostContext context) {
  std::lock_guard<std::mutex> g(impl_->mu);
  impl_->findings.set_host(std::move(context));
}

const HostContext &Checker::host_context() const {
  return impl_->findings.host();
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
