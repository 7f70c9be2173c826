// Findings as a SARIF 2.1.0 log (include/bcusim/check/output.h,
// docs/checker.md "SARIF").
#include "bcusim/check/output.h"

#include <cctype>
#include <fstream>
#include <map>

#include <fmt/format.h>

namespace bcusim::check {

namespace {

const char *rule_text(FindingKind k) {
  switch (k) {
  case FindingKind::DataRace:
    return "Two threads (or a thread and an asynchronous copy) access the "
           "same bytes, at least one writes, and no synchronization orders "
           "them.";
  case FindingKind::IntraWarpRace:
    return "Two lanes of one warp access the same bytes without warp-level "
           "synchronization (needs __syncwarp).";
  case FindingKind::BenignRace:
    return "Two threads write the same value to the same bytes and no "
           "synchronization orders them: the result does not depend on "
           "their order.";
  case FindingKind::BarrierDivergence:
    return "A barrier is not reached by every thread it counts.";
  case FindingKind::Deadlock:
    return "Threads wait for something no thread will do.";
  case FindingKind::SyncMisuse:
    return "A rule of a synchronization primitive is broken.";
  case FindingKind::UninitializedRead:
    return "A read of memory nothing in the launch has written.";
  case FindingKind::ScheduleDependent:
    return "The result depends on the schedule of the warps.";
  case FindingKind::Fault:
    return "The kernel stopped at an invalid access, a trap or an "
           "unsupported operation.";
  case FindingKind::Limit:
    return "The run hit its step or time limit.";
  case FindingKind::HeapLeak:
    return "A block of the device heap (malloc or new in a kernel) was never "
           "freed.";
  }
  return "";
}

// A file name as a URI reference: absolute paths as file:// URIs, relative
// ones as relative references; characters outside the unreserved set and
// '/' are percent-encoded.
std::string uri_of(const std::string &path) {
  std::string out = path.rfind('/', 0) == 0 ? "file://" : "";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' ||
        c == '~')
      out += char(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

nlohmann::json physical(const std::string &file, uint32_t line, uint32_t col) {
  nlohmann::json region = {{"startLine", line}};
  region["startColumn"] = col ? col : 1;
  return {
      {"physicalLocation",
       {{"artifactLocation", {{"uri", uri_of(file)}}}, {"region", region}}}};
}

// The location of a site: the CUDA line when there is one, else the PTX
// instruction; null when the site has neither.
nlohmann::json location_of(const Site &s, bool ptx_only = false) {
  if (s.cuda_line && !ptx_only) // the path that opens, when one does
    return physical(source_first(s).file->name(), s.cuda_line, s.cuda_col);
  if (s.ptx.valid())
    return physical(s.ptx_file.empty() ? s.ptx.file->name() : s.ptx_file,
                    s.ptx.line, s.ptx.col);
  return nullptr;
}

// The site a finding is located at: a race's later access (the last
// site), otherwise its first site (the instruction of an engine
// diagnostic; the others are its notes' locations).
size_t primary_site(const Finding &f) {
  const bool race = f.kind == FindingKind::DataRace ||
                    f.kind == FindingKind::IntraWarpRace ||
                    f.kind == FindingKind::BenignRace;
  return race ? f.sites.size() - 1 : 0;
}

const char *level_of(Severity s) {
  return s == Severity::Error     ? "error"
         : s == Severity::Warning ? "warning"
                                  : "note";
}

} // namespace

nlohmann::json sarif_log(const std::vector<Finding> &findings,
                         const std::string &version) {
  nlohmann::json rules = nlohmann::json::array();
  std::map<FindingKind, size_t> rule_index;
  nlohmann::json results = nlohmann::json::array();
  for (const auto &f : findings) {
    auto [it, added] = rule_index.emplace(f.kind, rules.size());
    if (added)
      rules.push_back({{"id", std::string(name_of(f.kind))},
                       {"shortDescription", {{"text", rule_text(f.kind)}}}});
    nlohmann::json r;
    r["ruleId"] = std::string(name_of(f.kind));
    r["ruleIndex"] = it->second;
    r["level"] = level_of(f.severity);
    r["message"] = {{"text", f.diag.message}};
    nlohmann::json locs = nlohmann::json::array();
    nlohmann::json related = nlohmann::json::array();
    if (!f.sites.empty()) {
      const size_t main = primary_site(f);
      const Site &last = f.sites[main];
      if (auto l = location_of(last); !l.is_null())
        locs.push_back(l);
      int id = 0;
      auto relate = [&](nlohmann::json l, std::string text) {
        if (l.is_null())
          return;
        l["id"] = id++;
        l["message"] = {{"text", std::move(text)}};
        related.push_back(std::move(l));
      };
      if (last.cuda_line)
        relate(location_of(last, true),
               fmt::format("the PTX instruction '{}'", last.text));
      for (size_t i = 0; i < f.sites.size(); ++i) {
        if (i == main)
          continue;
        const Site &s = f.sites[i];
        std::string what = f.sites.size() == 2 && i == 0 && main == 1
                               ? "the first access"
                               : "also here";
        if (!s.access.empty())
          what += ": " + s.access;
        relate(location_of(s), what);
        if (s.cuda_line)
          relate(location_of(s, true),
                 fmt::format("its PTX instruction '{}'", s.text));
      }
    } else if (f.diag.loc.valid()) {
      locs.push_back(
          physical(f.diag.loc.file->name(), f.diag.loc.line, f.diag.loc.col));
    }
    if (!locs.empty())
      r["locations"] = locs;
    if (!related.empty())
      r["relatedLocations"] = related;
    nlohmann::json props = {{"kernel", demangle(f.kernel)},
                            {"kernelMangled", f.kernel},
                            {"launch", f.launch},
                            {"instances", f.instances}};
    if (!f.missing.empty())
      props["missingOrdering"] = f.missing;
    if (!f.where.empty())
      props["where"] = f.where;
    r["properties"] = props;
    results.push_back(std::move(r));
  }
  nlohmann::json driver = {{"name", "bcusim"}, {"rules", rules}};
  if (!version.empty())
    driver["version"] = version;
  return {{"version", "2.1.0"},
          {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"runs", nlohmann::json::array({{{"tool", {{"driver", driver}}},
                                           {"columnKind", "unicodeCodePoints"},
                                           {"results", results}}})}};
}

bool write_sarif(const std::string &path, const std::vector<Finding> &findings,
                 std::string &error) {
  std::ofstream out(path);
  out << sarif_log(findings).dump(2) << "\n";
  if (!out) {
    error = fmt::format("cannot write '{}'", path);
    return false;
  }
  return true;
}

} // namespace bcusim::check
