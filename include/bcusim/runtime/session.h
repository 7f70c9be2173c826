// The session layer under both front doors (docs/api.md "Sessions"):
// `bcusim run` (tools/bcusim/cmd_run.cpp) and the CUDA runtime stand-in
// (runtime::Runtime, under `bcusim exec`) are adapters over it. Loading
// (parse, validation as ptxas does, compilation), launching with the run
// options, the checks (the checker, and races between the work items of
// different streams), the findings of a run and their summary live here
// once; the adapters decide only what to print and when.
//
//   runtime::Session s(checks, schedule, options);
//   DiagnosticSink sink;
//   auto m = runtime::load_module(SourceFile::from_string("k.ptx", text),
//                                 sink);
//   engine::Device dev;
//   auto r = s.launch(dev, *m, "kern", cfg, args);   // cfg: grid, block...
//   s.add_run_findings(r.report, "kern", *m);        // the engine's own
//   for (size_t i = r.first_finding; i < s.findings().size(); ++i) ...
//   std::cerr << s.summary_line() << "\n";
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bcusim/check/checker.h"
#include "bcusim/engine/engine.h"
#include "bcusim/runtime/options.h"
#include "bcusim/runtime/streams.h"
#include "bcusim/support/diagnostics.h"

namespace bcusim::runtime {

namespace detail {
class StreamRaces;
}

// Parses, validates (docs/ptx-validation.md) and compiles a PTX module;
// nullptr with the reasons in `sink` when any step fails. The diagnostics
// point into `src`: keep it while they are used.
std::unique_ptr<engine::Module>
load_module(std::shared_ptr<const SourceFile> src, DiagnosticSink &sink);

// What a finding of an engine diagnostic is, by what the engine raised.
check::FindingKind finding_kind(engine::RunProblem p);

// One of the engine's own diagnostics of a launch (fault, deadlock, limit,
// misuse, warning) as a finding of its kind, with its sites and CUDA
// lines, source first (check::source_first; `hinted`: the run's -lineinfo
// note was given).
check::Finding finding_of_run(const engine::RunDiagnostic &d,
                              const std::string &kernel, uint64_t launch,
                              const engine::Module &module,
                              bool *hinted = nullptr);

// "bcusim: check (race): 1 data-race in 2 launches: 1 error, 0 warnings";
// without `launches`, the part after "in" is left out
// ("bcusim: check (race): 1 data-race: 1 error, 0 warnings").
std::string check_summary(const check::Checks &checks,
                          const std::vector<check::Finding> &findings,
                          std::optional<uint64_t> launches);

// The --report document of a run (docs/checker.md "Reports"): `checks`
// (left out when empty), `launches`, `errors`, `warnings`, `summary` and
// every finding; a front door adds its own fields. write_report writes it
// (false when the file cannot be written).
nlohmann::json report_json(const std::string &checks, uint64_t launches,
                           size_t errors, size_t warnings,
                           const std::string &summary,
                           const std::vector<check::Finding> &findings);
bool write_report(const std::string &path, const nlohmann::json &report);

// Schedule exploration (docs/checker.md "Schedule exploration"): the same
// work run again under other schedules, each run compared with the first.
// What one run of the work produced, as exploration compares it.
struct Outcome {
  int exit = 0;
  bool load_failed = false; // the run could not start (modules, arguments)
  std::string failure;      // the first failed launch's diagnostic text
  std::vector<check::Finding> findings;
  std::vector<std::vector<uint8_t>> dumps; // the compared buffers, in order
};

// A compared buffer: which argument it is (for messages) and its elements.
struct DumpInfo {
  size_t index = 0;
  engine::ScalarType type{};
  uint64_t count = 0;
};

struct Exploration {
  unsigned schedules = 0; // --explore N (<= 1: only the first run)
  engine::Schedule first; // the first run's schedule
  uint32_t warps = 1;     // warps per CTA of the first launch
  std::vector<DumpInfo> dumps;
};

// Runs `run` under every schedule of Schedule::exploration after the first
// and returns `first_findings` followed by what the other schedules found:
// each finding not seen before (a note names the --schedule that replays
// it) and each schedule whose outcome or dumped buffers differ from the
// first run's (a schedule-dependent finding). `report` is called with each
// new finding as it is found.
std::vector<check::Finding>
explore(const Exploration &x, const Outcome &first,
        std::vector<check::Finding> first_findings,
        const std::function<Outcome(const engine::Schedule &)> &run,
        const std::function<void(const check::Finding &)> &report);

class Session {
public:
  Session(check::Checks checks, engine::Schedule schedule,
          const RunOptions &options);
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  const check::Checks &checks() const { return checks_; }
  // The checker; nullptr with --check none.
  check::Checker *checker() { return checker_.get(); }
  // The order of work items across streams (docs/checker.md "Streams").
  StreamOrder &streams() { return streams_; }

  struct Launched {
    engine::RunReport report;
    size_t first_finding = 0; // the checks' findings of this launch start
    uint64_t launch = 0;      // 0-based index among the session's launches
  };
  // Runs one launch as a work item of `stream`: the options' limits,
  // schedule, host threads and warn-only go into `cfg`, the checks observe
  // it. Its checker findings are in findings() from first_finding on.
  // `also`: other observers that watch the launch beside the checks (a
  // timeline, a progress line; null entries are skipped).
  Launched launch(engine::Device &dev, const engine::Module &module,
                  const std::string &kernel, engine::LaunchConfig cfg,
                  const std::vector<engine::KernelArg> &args,
                  StreamOrder::Stream stream = StreamOrder::kLegacy,
                  const std::vector<engine::Observer *> &also = {});
  // The same in steps, for a launch that may yield to other work while it
  // runs (bcusim exec's concurrent streams, docs/exec.md "Concurrent
  // streams"): begin_launch prepares `cfg` (as launch() does) and submits
  // the work item; the caller runs the engine, then end_launch. A launch
  // that yields is detach()ed first: it keeps its checks (the checker and
  // the stream-race observer it reports to) and launches that begin
  // meanwhile get their own; end_launch then adds its findings and checks
  // its footprint against the work that ran while it waited.
  struct Active {
    ~Active();
    bool across = false;
    uint64_t launch = 0;
    StreamOrder::Work work;
    // After detach(): the checks this launch reports to, and how many of
    // the checker's findings the session had taken.
    std::unique_ptr<check::Checker> checker;
    std::unique_ptr<detail::StreamRaces> races;
    size_t taken = 0;
  };
  std::unique_ptr<Active>
  begin_launch(engine::LaunchConfig &cfg,
               StreamOrder::Stream stream = StreamOrder::kLegacy,
               const std::vector<engine::Observer *> &also = {});
  void detach(Active &a);
  Launched end_launch(std::unique_ptr<Active> a, engine::RunReport report);
  // The next launch or copy is this work item, submitted to streams()
  // already (work queued behind a launch that yielded runs later than the
  // host submitted it); nullopt: they are submitted when they begin.
  void preorder(std::optional<StreamOrder::Work> w) { preordered_ = w; }
  // The engine's diagnostics of the latest launch as findings, source
  // first; kept among findings() when `keep`. Returns their text (what a
  // front door prints for them).
  // `launch`: the launch's index when it is not the latest.
  std::string add_run_findings(const engine::RunReport &r,
                               const std::string &kernel,
                               const engine::Module &module, bool keep = true,
                               std::optional<uint64_t> launch = {});
  // A copy or memset as a work item of `stream`: begin, each range it
  // reads or writes (device memory, or host memory kernels reach), end;
  // `dev` names the addresses in reports.
  // end_work returns the index of its first finding.
  void begin_work(StreamOrder::Stream stream, const std::string &api,
                  const engine::Device *dev = nullptr);
  void work_access(uint64_t addr, uint64_t bytes, bool write);
  size_t end_work();
  // cudaDeviceReset: the device is idle and its memory gone; no earlier
  // work races with later work.
  void end_all_work();
  // Adds a finding from elsewhere (schedule exploration).
  void add(check::Finding f);

  // Every finding so far, in report order.
  const std::vector<check::Finding> &findings() const { return findings_; }
  uint64_t launches() const { return launches_; }
  size_t errors() const;
  size_t warnings() const;
  // check_summary over this session's findings and launches (or without
  // the launch count).
  std::string summary_line(bool with_launches = true) const;

private:
  void take_checker_findings();
  StreamOrder::Work next_work(StreamOrder::Stream stream);
  std::optional<StreamOrder::Work> preordered_;
  check::Checks checks_;
  engine::Schedule schedule_;
  RunOptions opts_;
  std::unique_ptr<check::Checker> checker_;
  std::unique_ptr<detail::StreamRaces> races_;
  // The checkers of launches that yielded, kept alive for the observers
  // that were made with them (a timeline, a progress line).
  std::vector<std::unique_ptr<check::Checker>> retired_;
  StreamOrder streams_;
  std::vector<check::Finding> findings_;
  size_t taken_ = 0; // the checker's findings copied so far
  uint64_t launches_ = 0;
  bool in_work_ = false;
  bool hinted_ = false; // the -lineinfo note (without a checker)
};

} // namespace bcusim::runtime
