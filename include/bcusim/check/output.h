// Report outputs beside the text and JSON of the checker (docs/checker.md
// "SARIF", "Timeline"): a SARIF 2.1.0 log of the findings, and a timeline
// of a run as Chrome / Perfetto trace events, built by an observer.
//
//   check::Checker checker(checks);
//   check::Timeline timeline(&checker);        // findings as instants
//   cfg.observers = {&checker, &timeline};  dev.launch(...);
//   timeline.write("run.trace.json", err);
//   std::ofstream("run.sarif") << check::sarif_log(checker.findings());
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "bcusim/check/checker.h"
#include "bcusim/engine/observer.h"

namespace bcusim::check {

// The findings as a SARIF 2.1.0 log: one run of the tool "bcusim", a rule
// per finding kind, a result per finding located at its CUDA line (or PTX
// instruction), the other sites as related locations.
nlohmann::json sarif_log(const std::vector<Finding> &findings,
                         const std::string &version = "");
// Writes sarif_log(findings) to `path`; false and `error` when it cannot.
bool write_sarif(const std::string &path, const std::vector<Finding> &findings,
                 std::string &error);

// A timeline of the launches it observes, as Chrome trace events
// (docs/checker.md "Timeline"; open in ui.perfetto.dev or
// chrome://tracing). Simulated time: every event the engine reports (a
// warp's memory access or a synchronization event) advances the clock by
// one tick, shown as 1 µs; launches follow each other. Each CTA is a
// process, each warp a thread: the warp's span, its barrier and cluster
// waits; per CTA the mbarrier phases and transaction counts, the async
// copies in flight; each finding of `checker` (optional) is an instant
// event on the warp of its later access.
class Timeline final : public engine::Observer {
public:
  explicit Timeline(const Checker *checker = nullptr) : checker_(checker) {}
  void on_launch_begin(const engine::LaunchView &v) override;
  void on_access(const engine::AccessEvent &e) override;
  void on_cta_begin(const engine::CtaEvent &e) override;
  void on_cta_end(const engine::CtaEvent &e) override;
  void on_thread_exit(const engine::ThreadEvent &e) override;
  void on_fence(const engine::FenceEvent &e) override;
  void on_barrier_arrive(const engine::BarrierArriveEvent &e) override;
  void on_barrier_complete(const engine::BarrierCompleteEvent &e) override;
  void on_barrier_resume(const engine::BarrierResumeEvent &e) override;
  void on_warp_sync(const engine::WarpSyncEvent &e) override;
  void on_elect(const engine::WarpSyncEvent &e) override;
  void on_cluster_arrive(const engine::ClusterEvent &e) override;
  void on_cluster_complete(const engine::ClusterEvent &e) override;
  void on_cluster_resume(const engine::ClusterEvent &e) override;
  void on_mbar_init(const engine::MbarEvent &e) override;
  void on_mbar_inval(const engine::MbarEvent &e) override;
  void on_mbar_arrive(const engine::MbarEvent &e) override;
  void on_mbar_expect_tx(const engine::MbarEvent &e) override;
  void on_mbar_complete_tx(const engine::MbarEvent &e) override;
  void on_mbar_phase_complete(const engine::MbarEvent &e) override;
  void on_mbar_wait_done(const engine::MbarEvent &e) override;
  void on_async_issue(const engine::AsyncIssueEvent &e) override;
  void on_async_commit(const engine::AsyncCommitEvent &e) override;
  void on_async_wait(const engine::AsyncWaitEvent &e) override;
  void on_async_complete(const engine::AsyncCompleteEvent &e) override;
  void on_grid_sync(const engine::ThreadEvent &e) override;
  void on_griddep_launch(const engine::ThreadEvent &e) override;
  void on_griddep_wait(const engine::ThreadEvent &e) override;
  void on_launch_end(const engine::LaunchView &v) override;
  // A finding made after its launch ended (the engine's own diagnostics: a
  // fault, a deadlock): an instant event at the launch's last tick, on its
  // first CTA, visible across the tracks.
  void add_finding(const Finding &f);

  nlohmann::json trace() const;
  bool write(const std::string &path, std::string &error) const;
  uint64_t now() const { return now_; }

private:
  struct Warp {
    uint64_t first = 0, last = 0;
    bool seen = false;
    uint64_t wait_since = 0;
    int waiting = -1; // barrier (16: cluster) the warp waits at
  };
  // Every synchronization event, one tick each, in one handler.
  enum class Kind : uint8_t {
    CtaBegin,
    CtaEnd,
    BarrierArrive,
    BarrierResume,
    BarrierComplete,
    ClusterArrive,
    ClusterResume,
    MbarInit,
    MbarArrive,
    MbarExpectTx,
    MbarCompleteTx,
    MbarPhaseComplete,
    MbarWaitDone,
    MbarInval,
    AsyncIssue,
    AsyncComplete,
    AsyncWait,
    GridSync,
    Other,
  };
  struct Ev : engine::ThreadEvent {
    Kind kind = Kind::Other;
    int barrier = 0;
    bool arrive_only = false; // bar.arrive
    uint64_t phase = 0;
    uint32_t warps = 0, count = 0;
    uint64_t object_owner = 0, object_offset = 0;
    int64_t tx = 0;
    uint64_t async_id = 0;
    bool bulk = false, arrive_on = false;
  };
  void sync(const Ev &e);
  static Ev ev(Kind k, const engine::ThreadEvent &t) {
    Ev e;
    static_cast<engine::ThreadEvent &>(e) = t;
    e.kind = k;
    return e;
  }
  static Ev mbar(Kind k, const engine::MbarEvent &m);
  static Ev cta_ev(Kind k, const engine::CtaEvent &c) {
    Ev e;
    e.kind = k;
    e.cta = c.cta;
    return e;
  }
  Warp &touch(uint64_t cta, uint32_t warp, uint32_t pc);
  void meta(int pid, int tid, const char *name, nlohmann::json args);
  int pid(uint64_t cta) const;
  void name_tracks(const engine::LaunchView &v, uint64_t cta);
  void instant(int pid, int tid, std::string name, nlohmann::json args = {});

  const Checker *checker_;
  std::vector<nlohmann::json> events_;
  uint64_t now_ = 0, launch_ = 0, launch_start_ = 0;
  size_t findings_before_ = 0;
  std::string kernel_;
  std::map<std::pair<uint64_t, uint32_t>, Warp> warps_;
  std::map<uint64_t, uint64_t> copies_in_flight_;       // by CTA
  std::map<std::pair<uint64_t, uint64_t>, int64_t> tx_; // mbarrier tx
  // (cta, warp, pc) -> the first tick an event of that warp reported pc.
  std::map<std::tuple<uint64_t, uint32_t, uint32_t>, uint64_t> first_at_;
  std::map<uint64_t, bool> named_;
  std::set<std::tuple<uint64_t, uint32_t, uint64_t, uint64_t, uint64_t>>
      waits_seen_;              // (cta, warp, mbarrier owner, offset, phase)
  std::set<uint64_t> resident_; // CTAs whose span began
  bool truncated_ = false;
};

// A progress line on stderr for launches that run longer than `after_s`
// seconds (docs/checker.md "Progress"): CTAs done of the grid,
// thread-instructions per second, findings so far; redrawn in place twice a
// second by its own thread and erased when the launch ends. Only when
// stderr is a terminal (Progress::wanted()); it takes no accesses and is
// concurrent, so it changes nothing about how the launch runs.
class Progress final : public engine::Observer {
public:
  explicit Progress(const Checker *checker = nullptr, double after_s = 2.0);
  ~Progress() override;
  static bool wanted(); // stderr is a terminal
  bool wants_accesses() const override { return false; }
  bool concurrent() const override { return true; }
  void on_launch_begin(const engine::LaunchView &v) override;
  void on_cta_end(const engine::CtaEvent &e) override;
  void on_launch_end(const engine::LaunchView &v) override;
  // The line as it would be drawn now (tests).
  std::string line(double elapsed_s) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace bcusim::check
