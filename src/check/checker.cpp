// The checker's front: options, findings, summary and JSON report
// (docs/checker.md). The analyses live beside it, one file each.
#include "bcusim/check/checker.h"

#include <fmt/format.h>

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
    if (on)
      s += (s.empty() ? "" : ",") + std::string(n);
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
  }
  return "?";
}

nlohmann::json Finding::to_json() const {
  nlohmann::json j;
  j["kind"] = std::string(name_of(kind));
  j["severity"] = severity == Severity::Error     ? "error"
                  : severity == Severity::Warning ? "warning"
                                                  : "note";
  j["kernel"] = kernel;
  j["launch"] = launch;
  j["message"] = diag.message;
  j["instances"] = instances;
  if (!space.empty())
    j["space"] = space;
  return j;
}

struct Checker::Impl {
  std::vector<Finding> findings;
  uint64_t launches = 0;
};

Checker::Checker(Checks checks)
    : checks_(checks), impl_(std::make_unique<Impl>()) {}
Checker::~Checker() = default;

void Checker::on_launch_begin(const engine::LaunchView &) {}
void Checker::on_access(const engine::AccessEvent &) {}
void Checker::on_sync(const engine::SyncEvent &) {}
void Checker::on_launch_end(const engine::LaunchView &) { ++impl_->launches; }

const std::vector<Finding> &Checker::findings() const {
  return impl_->findings;
}

size_t Checker::error_count() const {
  size_t n = 0;
  for (auto &f : impl_->findings)
    n += f.severity == Severity::Error;
  return n;
}

size_t Checker::warning_count() const {
  size_t n = 0;
  for (auto &f : impl_->findings)
    n += f.severity == Severity::Warning;
  return n;
}

std::string Checker::summary() const {
  return fmt::format("bcusim: check ({}): {} error{}, {} warning{} in {} "
                     "launch{}",
                     checks_.str(), error_count(),
                     error_count() == 1 ? "" : "s", warning_count(),
                     warning_count() == 1 ? "" : "s", impl_->launches,
                     impl_->launches == 1 ? "" : "es");
}

nlohmann::json Checker::report_json() const {
  nlohmann::json j;
  j["checks"] = checks_.str();
  j["launches"] = impl_->launches;
  j["findings"] = nlohmann::json::array();
  for (auto &f : impl_->findings)
    j["findings"].push_back(f.to_json());
  return j;
}

} // namespace bcusim::check
