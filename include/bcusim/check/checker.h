// The checker (docs/checker.md): finds data races, barrier divergence,
// synchronization misuse and uninitialized reads in the launches it
// observes. It is an engine::Observer; attach it to every launch of a run:
//
//   auto checks = check::Checks::parse("race,sync", err);   // or "all"
//   check::Checker checker(*checks);
//   engine::LaunchConfig cfg;  cfg.observer = &checker;
//   auto report = dev.launch(module, "kern", cfg, args);
//   ...                                   // more launches, same checker
//   for (const auto &f : checker.findings()) std::cerr << render(f.diag);
//   std::cerr << checker.summary() << "\n";
//   nlohmann::json j = checker.report_json();          // --report FILE
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bcusim/engine/observer.h"
#include "bcusim/support/diagnostics.h"

namespace bcusim::engine {
class Module;
}

namespace bcusim::check {

enum class FindingKind : uint8_t;

// Which checks run: `bcusim run --check LIST`,
// LIST := ITEM[,ITEM...]; ITEM := all | none | race | sync | init | -KIND,
// where -KIND (a finding kind's name, `-benign-race`) suppresses the
// findings of that kind.
struct Checks {
  bool race = false;
  bool sync = true; // the default: today's synchronization checks
  bool init = false;
  uint32_t suppressed_kinds = 0; // bit k: FindingKind k is not reported
  bool suppressed(FindingKind k) const {
    return (suppressed_kinds >> unsigned(k)) & 1;
  }
  // True when the user asked for checks explicitly (--check given): then
  // tolerated barrier divergence is an error, not a warning
  // (docs/checker.md "Severities").
  bool explicit_list = false;

  // nullopt (and `error` set) for an invalid list.
  static std::optional<Checks> parse(std::string_view list, std::string &error);
  bool any() const { return race || sync || init; }
  std::string str() const; // "race,sync"
};

// What a finding is about; the stable names are used in JSON reports.
enum class FindingKind : uint8_t {
  DataRace,          // "data-race": two threads of different warps (or
                     // CTAs), or an async copy and a thread
  IntraWarpRace,     // "intra-warp-race": two lanes of one warp without
                     // warp-level synchronization (needs __syncwarp), or
                     // two lanes of one store storing different values
  BenignRace,        // "benign-race" (a warning): two unordered writes of
                     // the same value to the same bytes
  BarrierDivergence, // "barrier-divergence"
  Deadlock,          // "deadlock"
  SyncMisuse,        // "sync-misuse": a synchronization rule is broken
  UninitializedRead, // "uninitialized-read"
  ScheduleDependent, // "schedule-dependent": --explore found output that
                     // depends on the schedule
  Fault,             // "fault": the run stopped at an invalid access, a
                     // trap or an unsupported operation (engine)
  Limit,             // "limit": the run hit --max-steps or the time limit
  HeapLeak,          // "heap-leak": a device-heap block (malloc/new in a
                     // kernel) never freed by the end of the program
  ProxyFence,        // "proxy-fence": a generic-proxy write to shared
                     // memory read by the async proxy without a
                     // fence.proxy.async by the writing thread
};
std::string_view name_of(FindingKind k);

// A C++ name as the source spells it ("scale(float*, int, float)" for
// "_Z5scalePfif"); other names as they are.
std::string demangle(std::string_view name);

// One thread, fully identified.
struct ThreadRef {
  uint64_t cta_linear = 0;
  engine::Dim3 cta;
  uint32_t warp = 0, lane = 0;
  engine::Dim3 tid; // threadIdx
  // An async copy issued by this thread (0: the thread itself).
  uint64_t async_id = 0;
};

// One side of a finding: an instruction executed by a thread.
struct Site {
  uint32_t pc = 0;
  std::string text; // "st.shared.u32"
  SourceLoc ptx;    // valid while its module is
  std::string ptx_file;
  std::string cuda_file; // from .loc; empty when the PTX has none
  uint32_t cuda_line = 0;
  uint32_t cuda_col = 0; // 0: unknown (inlined code)
  // Inlined code: cuda_file:cuda_line is the call in the kernel's own
  // source, cuda_inlined_file:cuda_inlined_line the inlined line (0: not
  // inlined).
  std::string cuda_inlined_file;
  uint32_t cuda_inlined_line = 0;
  ThreadRef thread;
  bool no_thread = false; // an engine diagnostic's site: the text names it
  std::string access;     // "write of 4 bytes", "read", "atomic add", ...
  // Inside a function that stays a call (__noinline__, recursion, function
  // pointers): the `call` instructions the thread was inside when the
  // finding was made, innermost first, each a site without thread or
  // access. Empty in the kernel's own body and where the stack is not known
  // (a race's earlier access; docs/checker.md "Reports").
  std::vector<Site> call_stack;
};

// The notes that show a site's call stack, innermost first: "called from
// k.cu:42 (the PTX 'call.uni' at k.ptx:120)", or without line information
// "called from the PTX 'call.uni' at k.ptx:120". A stack deeper than 13
// calls (recursion) shows its 8 innermost and 4 outermost calls and a note
// "... N more calls ..." between them.
std::vector<Diagnostic> call_stack_notes(const Site &s);

// The location a report shows for a site: its CUDA source line when the
// PTX has line information (the file's text when it can be read, else its
// name only; relative names are also looked for beside the PTX file),
// otherwise its PTX instruction. Source files stay loaded for the life of
// the process.
SourceLoc source_first(const Site &s);

// Whether PTX was written by a compiler from CUDA source (nvcc, clang):
// only then does a report without line information say to build with
// -lineinfo.
bool from_cuda_compiler(const SourceFile *ptx);

// A site at a PTX location of `module` (an engine diagnostic's): the
// instruction there and its CUDA line when the PTX has line information.
Site site_at(const SourceLoc &ptx, const engine::Module &module);

// An engine diagnostic of a run (a fault, deadlock, misuse, limit) source
// first, as findings are (docs/checker.md "Engine diagnostics"): when the
// PTX has line information its location becomes the CUDA line and a note
// at the PTX instruction follows; likewise for each located note.
// Without line information and unless `*hinted`, a note says to build with
// -lineinfo (and `*hinted` becomes true).
Diagnostic source_first(const Diagnostic &d, const engine::Module &module,
                        bool *hinted = nullptr);

// The allocation a memory finding's address lies in, with its origin.
struct AllocationOrigin {
  uint64_t base = 0, size = 0;
  uint64_t offset = 0; // of the finding's address
  // How it was made: "cudaMalloc", "cudaMallocManaged", "cudaMallocHost",
  // "cudaHostAlloc", "__device__ variable", "-a argument", "device heap"
  // (malloc or new in a kernel), "allocation" (anything else).
  std::string origin;
  std::string name;                    // demangled for variables
  std::string mangled;                 // variables: the name in the PTX
  std::vector<std::string> host_stack; // where the host allocated it
  // Device heap: the malloc's CUDA line ("f.cu:12:5"; empty without line
  // information) and PTX instruction ("f.ptx:40:2").
  std::string cuda_site, ptx_site;
};

// Host context a runtime gives the checker (bcusim exec): the host stack
// of the launch being observed, and of each allocation by its base
// address. Frames read "function at file:line" (innermost first).
struct HostContext {
  std::function<std::vector<std::string>()> launch_stack;
  std::function<std::vector<std::string>(uint64_t base)> allocation_stack;
};

struct Finding {
  FindingKind kind = FindingKind::DataRace;
  Severity severity = Severity::Error;
  std::string kernel;
  uint64_t launch = 0;     // 0-based among the launches observed
  std::vector<Site> sites; // races: [earlier access, later access]
  std::string space;       // "shared", "global", ... (accesses)
  uint64_t address = 0;    // the first conflicting byte
  std::string where;       // "'tile'+12", "argument 0 (f32[256])+64"
  std::string missing;     // what ordering is missing
  uint64_t instances = 1;  // this site pair, counted (first reported)
  Diagnostic diag;         // the report (its locations point into the
                           // module's source: valid while it is loaded)
  std::string text;        // the report rendered when it was made
  // Every instance counted in `instances` (up to kMaxInstances): the
  // instructions (a race's two; one otherwise), the threads and the
  // address. --report lists them.
  struct Instance {
    std::vector<uint32_t> pcs;
    std::vector<ThreadRef> threads;
    uint64_t address = 0;
  };
  static constexpr size_t kMaxInstances = 10000;
  std::vector<Instance> instance_list;
  std::optional<AllocationOrigin> allocation; // global-memory findings
  std::vector<std::string> launch_stack;      // the launch's host stack
  nlohmann::json to_json() const;
};

class Checker final : public engine::Observer {
public:
  explicit Checker(Checks checks);
  ~Checker() override;

  const Checks &checks() const { return checks_; }

  // engine::Observer
  bool wants_accesses() const override;
  bool concurrent() const override;
  void on_launch_begin(const engine::LaunchView &launch) override;
  void on_launch_end(const engine::LaunchView &launch) override;
  void on_device_launch(const engine::DeviceLaunchEvent &e) override;
  void on_device_stream_event(const engine::DeviceStreamEvent &e) override;
  void on_child_grid_begin(const engine::ChildGridEvent &e) override;
  void on_child_grid_end(const engine::ChildGridEvent &e) override;
  void on_cta_begin(const engine::CtaEvent &e) override;
  void on_cta_end(const engine::CtaEvent &e) override;
  void on_thread_exit(const engine::ThreadEvent &e) override;
  void on_access(const engine::AccessEvent &e) override;
  void on_frame_end(const engine::AccessEvent &e) override;
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
  void on_mbar_arrive(const engine::MbarEvent &e) override;
  void on_mbar_expect_tx(const engine::MbarEvent &e) override;
  void on_mbar_complete_tx(const engine::MbarEvent &e) override;
  void on_mbar_phase_complete(const engine::MbarEvent &e) override;
  void on_mbar_wait_done(const engine::MbarEvent &e) override;
  void on_async_issue(const engine::AsyncIssueEvent &e) override;
  void on_async_wait(const engine::AsyncWaitEvent &e) override;
  void on_async_complete(const engine::AsyncCompleteEvent &e) override;
  void on_grid_sync(const engine::ThreadEvent &e) override;

  // Every finding of every launch observed so far, in report order.
  const std::vector<Finding> &findings() const;
  size_t error_count() const;
  size_t warning_count() const;
  // One line: "bcusim: check: 2 data races, 1 barrier divergence (3
  // errors, 0 warnings) in 2 launches".
  std::string summary() const;
  // Every finding as JSON (the --report format, docs/checker.md).
  nlohmann::json report_json() const;
  // Adds a finding from elsewhere (the engine's own diagnostics of a run,
  // schedule exploration) so that summary and report include it.
  void add(Finding f);
  // Findings made so far, also those of the launch still running (safe to
  // read from any thread; for progress lines).
  uint64_t findings_so_far() const;
  // Host stacks for the findings of the next launches (bcusim exec).
  void set_host_context(HostContext context);
  const HostContext &host_context() const;
  // The largest shadow memory any launch used (bytes).
  uint64_t shadow_bytes() const;
  // Whether a report of this checker has said to build with -lineinfo
  // (once per run; the engine's diagnostics share it).
  bool &lineinfo_hinted();

private:
  struct Impl;
  Checks checks_;
  std::unique_ptr<Impl> impl_;
};

} // namespace bcusim::check
