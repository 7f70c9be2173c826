// The run-time core of a launch (internal to src/engine), in parts that can
// be tested one by one:
//   scheduler.cpp  LaunchState, units and residency, warp picking, the main
//                  loop, run_launch()
//   paths.cpp      the divergent paths of one warp: merging and choosing
//                  the path to run (independent thread scheduling)
//   warp_step.cpp  runs one warp for a quantum: the instruction kinds
//   sync_cta.cpp   CTA barriers through the barrier unit
//   sync_warp.cpp  warp-synchronous instructions, barrier.cluster
//   reports.cpp    faults, deadlocks, limits as diagnostics
// docs/engine.md ("Execution model", "Schedule") describes the behaviour.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "bcusim/engine/observer.h"
#include "cluster_addr.h"
#include "code.h"

namespace bcusim::engine::detail {
class AccessBatch; // observe.h

constexpr uint32_t kWarpQuantum = 64;
constexpr uint32_t kPathQuantum = 256;
constexpr uint64_t kAdmitSteps = 1u << 16;
// Calls nested in one thread: a backstop only (a recursive activation
// takes at least 16 bytes of the stack, kMaxStackSize at most, and a
// function outside call cycles is on a thread's call stack at most once).
constexpr size_t kMaxCallDepth = size_t(1) << 20;
// Warp-instructions without any progress (stores, atomics, sync, exits)
// after which backward branches are fingerprinted, and the sampling
// interval in backward branches (docs/engine.md "Deadlocks").
constexpr uint64_t kQuietSteps = 1u << 14;
constexpr uint32_t kSpinSampleEvery = 8;
// CTAs a random schedule keeps resident at most by random admissions.
constexpr size_t kRandomResident = 8;

std::string dim_str(const Dim3 &d);
Dim3 unflatten(uint64_t i, const Dim3 &d);
// "0,2,3"
std::string warp_list(uint32_t warps);

struct Failure {
  RunStatus status = RunStatus::Ok;
  RunProblem kind = RunProblem::Fault;
  uint64_t allocation = 0; // RunDiagnostic::allocation
  std::vector<Diagnostic> diags;
  std::vector<SourceLoc> call_stack; // RunDiagnostic::call_stack
};

// What the workers of one launch share.
struct LaunchState {
  const Launch &L;
  const LaunchConfig &cfg;
  const Program &P;
  GlobalMemory &mem;
  Observer *obs = nullptr;
  uint64_t nunits = 0;
  uint32_t unit_ctas = 1;
  std::atomic<uint64_t> next_unit{0};
  std::atomic<uint64_t> steps{0};
  std::atomic<uint64_t> max_cta_steps{0};
  std::atomic<uint64_t> thread_steps{0};
  std::atomic<bool> stop{false};
  std::mutex mu;
  Failure failure;
  std::map<uint64_t, std::string> printf_by_cta;
  std::vector<RunDiagnostic> warnings; // --warn-only and warning diagnostics
  std::set<std::pair<uint32_t, std::string>> warned; // (pc, kind) reported
  std::chrono::steady_clock::time_point start;
  bool cooperative = false; // admit every unit up front (grid.sync)
  // Spin detection across host threads (scheduler.cpp "Spinning"): each
  // worker publishes its progress counter after every turn, and the
  // progress epoch at which all of its warps are blocked or spinning
  // (kNotStuck: some can progress; kDone: finished).
  static constexpr uint64_t kNotStuck = ~0ull, kDone = ~0ull - 1;
  struct alignas(64) Published {
    std::atomic<uint64_t> progress{0};
    std::atomic<uint64_t> stuck{kNotStuck};
  };
  std::unique_ptr<Published[]> published;
  unsigned nworkers = 1;
  uint32_t griddep_wait_pc = kNone; // first griddepcontrol.wait, no prereq

  LaunchState(const Launch &l, const LaunchConfig &c, GlobalMemory &m)
      : L(l), cfg(c), P(*l.prog), mem(m) {}

  void note_griddep_wait(uint32_t pc);
  // The first failure of the launch stops it (`allocation`:
  // RunDiagnostic::allocation).
  void fail(RunStatus st, RunProblem kind, std::vector<Diagnostic> d,
            uint64_t allocation = 0, std::vector<SourceLoc> call_stack = {});
  void warn(Diagnostic d, RunProblem kind);
  // An error the launch survives (Exec::survive): reported, not stopping.
  void survived_error(Diagnostic d, RunProblem kind);
};

// The lanes a warp-synchronous instruction with member mask `mem` waits
// for. shfl/vote/match/redux: the non-exited member lanes (PTX).
// bar.warp.sync / elect.sync (Kind::WarpSyncMember): every existing member
// lane, so that a member that exited is a reported deadlock
// (docs/clusters.md).
inline uint32_t warp_sync_required(const Inst &in, uint32_t mem,
                                   const Warp &w) {
  if (in.kind == Kind::WarpSyncMember)
    return mem & w.valid;
  return mem & w.valid & ~w.exited;
}

// Per-lane member masks of a warp-synchronous instruction (sync_warp.cpp):
// lanes naming the same mask form one group.
struct SyncGroups {
  uint32_t n = 0;
  std::array<uint32_t, kWarpSize> mask{};  // the member mask of group i
  std::array<uint32_t, kWarpSize> lanes{}; // its lanes present in the path
};
// Groups the lanes `m` by their membermask values `mem` (slot values).
SyncGroups group_by_mask(const Lane<uint32_t> *mem, uint32_t m);

// Lanes among `want` that wait (PathState::WaitWarp) in paths of `w` other
// than path `self` at a warp-synchronous instruction with membermask `mem`
// (paths.cpp). `with`: at an instruction that executes together with the one
// at `pc` (sm_70+: the same operation and qualifiers, same_collective;
// sm_6x: only the same instruction); `apart`: at one that does not, the
// first of them at `apart_pc` (docs/clusters.md "Different instructions").
struct WaitingElsewhere {
  uint32_t with = 0, apart = 0;
  uint32_t apart_pc = kNone;
};
// `joins`, when given, receives (path index, lanes) of each path's `with`
// lanes.
WaitingElsewhere
waiting_elsewhere(const Program &P, const Warp &w, size_t self, uint32_t pc,
                  uint32_t mem, uint32_t want,
                  std::vector<std::pair<uint32_t, uint32_t>> *joins = nullptr);

// ---- paths of one warp (paths.cpp) ------------------------------------------
// How the next path of a warp is chosen.
struct PathPolicy {
  bool random = false;
  SplitMix64 *rng = nullptr; // random: the stream to draw from
};
// Whether path `p` can run now (wakes mbarrier waits whose phase moved on
// or whose bound `now` passed; checks warp-synchronous waits).
bool path_runnable(const Program &P, Warp &w, Path &p, uint64_t now);
// Merges the paths of `w` that meet and selects the path to run in
// `w.cur`; false when no path can run.
bool select_path(const Program &P, Warp &w, const PathPolicy &policy,
                 uint64_t now);
// How far path `p` of `w`, chosen by the default policy, may run plain
// instructions without going back to select_path: the lowest pc of the
// warp's other paths above p's pc (where it may meet one of them), or p's
// pc (not at all) when a path at or below p's pc may be runnable or a path
// waits on an mbarrier (whose phase p's instructions may move).
uint32_t run_ahead_limit(const Warp &w, const Path &p);
// Lanes of the current path not in `m` (guard false) step over the current
// instruction as a path of their own; returns the current path, which keeps
// the lanes in `m`.
Path *split_guarded(Warp &w, uint32_t m);

class Worker {
public:
  Worker(LaunchState &s, unsigned index);
  void run();

private:
  friend class WorkerTest;
  LaunchState &S;
  const Program &P;
  Exec x;
  SplitMix64 rng;
  unsigned me = 0; // this worker's index
  bool random = false;
  bool reverse = false;     // Schedule::Kind::Reverse
  uint32_t delayed = kNone; // Schedule::Kind::Delay: the delayed warp
  PathPolicy policy;
  // Random schedule: the resident warps, rebuilt after admit / retire.
  std::vector<std::pair<Cta *, Warp *>> flat;
  bool flat_dirty = true;
  // Spin detection: `watch` once the worker's progress counter has not
  // moved for kQuietSteps warp-instructions.
  bool watch = false;
  uint64_t last_progress = ~0ull, quiet_from = 0;
  std::vector<std::unique_ptr<Cta>> pool;
  std::vector<std::unique_ptr<Cta>> resident;
  size_t rr_cta = 0;
  uint64_t since_admit = 0;
  uint64_t local_quanta = 0;
  uint64_t pending_steps = 0, pending_tsteps = 0;
  uint64_t max_cta_steps = 0; // the longest CTA so far (simulated time)
  bool exhausted = false;     // no units left to admit
  uint64_t now = 0;           // warp-instructions run by this worker (mbarrier
                              // wait bounds are measured in them)
  // One ClusterState per resident unit (reused).
  std::vector<std::unique_ptr<ClusterState>> clusters, cluster_pool;

  // scheduler.cpp
  bool admit();
  void init_cta(Cta &c, const Dim3 &id, const Dim3 &cluster_id,
                const Dim3 &cluster_ctaid, uint32_t rank);
  void retire(size_t i);
  void retire_unit(Cta *c);
  void flush_resident();
  bool pick(Cta *&c, Warp *&w);
  bool pick_random(Cta *&c, Warp *&w);
  bool pick_in_order(Cta *&c, Warp *&w, bool with_delayed);
  // Spinning (scheduler.cpp): the progress epoch, a fingerprint sample at a
  // backward branch, and whether every warp is blocked or spinning.
  uint64_t epoch() const;
  void spin_sample(Warp &w, uint32_t pc, uint32_t lanes);
  bool all_stuck(uint64_t e);
  bool stuck_everywhere(uint64_t e);
  bool wake_mbar_waits();
  bool select(Warp &w) { return select_path(P, w, policy, now); }

  // warp_step.cpp
  uint64_t run_warp(Cta &c, Warp &w, uint64_t quantum);
  void threads_exited(Cta &c, Warp &w, uint32_t lanes, uint32_t pc);
  bool call_step(Cta &c, Warp &w, Path *&p, const Inst &in, uint32_t m);
  bool active_on(const Path &p, const FuncInfo &f) const;
  bool push_activation(Warp &w, const FuncInfo &f, uint32_t m,
                       std::array<uint64_t, kWarpSize> &base);
  void pop_activation(Warp &w, const FuncInfo &f, uint32_t m,
                      std::array<uint64_t, kWarpSize> &base);
  bool printf_step(Cta &c, Warp &w, Path *p, const Inst &in, uint32_t m);
  void device_call_step(Cta &c, Warp &w, Path *p, const Inst &in, uint32_t m);
  uint64_t
  device_runtime_call(Cta &c, Warp &w, uint32_t lane, const CallSite &cs,
                      const std::function<void(size_t, void *, size_t)> &arg,
                      AccessBatch &out);
  uint64_t
  device_memcpy(Cta &c, Warp &w, uint32_t lane, const Inst &in,
                const std::function<void(size_t, void *, size_t)> &arg);
  void flush_warnings(Cta &c, Warp &w);
  // The wgmma operand rule: called only while w.wgmma_live is not empty;
  // false when the error stops the launch.
  bool wgmma_operands(Cta &c, Warp &w, uint32_t pc, uint32_t m);

  // sync_cta.cpp: CTA barriers through the barrier unit (docs/barriers.md).
  bool barrier_step(Cta &c, Warp &w, uint32_t path);
  bool try_group(Cta &c, Warp &w);
  bool bar_arrive(Cta &c, Warp &w, std::span<const uint32_t> paths);
  void bar_finish(Cta &c, Warp &w, Path &p);
  void bar_released(Cta &c);
  bool bar_exited(Cta &c, Warp &w);
  bool bar_report(Cta &c, Warp &w, uint32_t pc, int kind, Diagnostic d);
  std::optional<uint32_t> path_barrier(Warp &w, const Path &p) const;
  void forward_bar_events(Cta &c, uint32_t warp, uint32_t lanes, uint32_t pc);

  // sync_warp.cpp
  // Warp-synchronous instructions (Kind::WarpSync / WarpSyncMember): runs
  // the groups whose members are all here; false after reporting an error.
  bool warp_sync_step(Cta &c, Warp &w, Path *&p, const Inst &in, uint32_t m,
                      bool &blocked);
  bool survive(Cta &c, Warp &w, uint32_t lane, uint32_t pc, std::string msg);
  // Members of one mask wait at instructions that cannot execute together.
  void apart_error(Cta &c, Warp &w, uint32_t pc, uint32_t lanes, uint32_t mem,
                   const WaitingElsewhere &e);
  // barrier.cluster.arrive / .wait; false after reporting an error.
  bool cluster_step(Cta &c, Warp &w, Path *&p, const Inst &in, uint32_t m);

  // reports.cpp
  Diagnostic where(Cta &c, Warp &w, uint32_t lane, std::string msg,
                   uint32_t pc);
  void report_error(RunStatus st, RunProblem kind, Cta &c, Warp &w,
                    uint32_t lane, std::string msg, uint32_t pc);
  void report_fault(Cta &c, Warp &w, uint32_t pc, uint32_t lanes);
  void report_deadlock(Cta &c);
  void report_spin_deadlock();
  Diagnostic path_note(const Cta &c0, Cta &c, Warp &w, const Path &p);
  void report_limit(RunStatus st, Cta &c, Warp &w);

  // observer glue
  template <class E = ThreadEvent>
  E event(const Cta &c, const Warp &w, uint32_t lanes, uint32_t pc) const {
    E e;
    e.cta = c.linear;
    e.warp = w.index;
    e.lanes = lanes;
    e.pc = pc;
    return e;
  }

  uint8_t *frame(Cta &c, Warp &w, uint32_t lane) {
    return c.local.data() +
           uint64_t(w.index * kWarpSize + lane) * S.L.local_bytes;
  }
  // The frame of a call site's caller: the thread's local memory, from the
  // caller's frame base when it is recursive (base_slot; kNone: static).
  uint8_t *caller_frame(Cta &c, Warp &w, uint32_t lane, uint32_t base_slot) {
    return frame(c, w, lane) +
           (base_slot != kNone ? w.lanes(base_slot)[lane] : 0);
  }
};

// The diagnostic of a fault (the message and its notes, without the thread
// note), for report_fault and tests.
std::string fault_message(const Fault &f);

} // namespace bcusim::engine::detail
