// The engine's one observation point (docs/observer.md): every memory access
// and every synchronization event of a launch flows through an Observer.
// Checkers (src/check), traces and statistics consume it; the engine's
// instruction handlers never special-case any of them.
//
//   struct Counter : engine::Observer {
//     uint64_t loads = 0;
//     void on_access(const engine::AccessEvent &e) override {
//       if (e.type == engine::AccessType::Read) loads +=
//       std::popcount(e.lanes);
//     }
//   } counter;
//   engine::LaunchConfig cfg;  cfg.observer = &counter;
//   dev.launch(module, "kern", cfg, args);
//
// Events are delivered synchronously on the host thread that runs the CTA,
// in the order the engine performs them. A launch with an observer runs on
// one host thread (LaunchConfig::host_threads is ignored) unless the
// observer says it is concurrent(), so an observer needs no locking.
// Pointers inside an event are valid only during the call.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "bcusim/engine/dim3.h"
#include "bcusim/engine/lower.h"
#include "bcusim/support/diagnostics.h"

namespace bcusim::engine {

// The state space an access reached (a generic address is resolved first;
// AccessEvent::generic says it was one).
enum class StateSpace : uint8_t { Global, Shared, Local, Param, Const };
std::string_view name_of(StateSpace s);

enum class AccessType : uint8_t {
  Read,   // ld, ldu, the source of a copy, a fetch
  Write,  // st, the destination of a copy
  Atomic, // atom / red / mbarrier operations on their object: read-modify-
          // write of `size` bytes, atomic with respect to each other
};

// PTX memory-consistency qualifiers, as written on the instruction (or the
// default the PTX ISA gives the form). Weak: no qualifier on ld/st.
enum class MemOrder : uint8_t {
  Weak,
  Volatile, // .volatile (sm_70+: relaxed with .sys scope)
  Relaxed,
  Acquire,
  Release,
  AcqRel,
  Sc,
};
std::string_view name_of(MemOrder o);

// .cta / .cluster / .gpu / .sys; None when the instruction has no scope
// (weak accesses). Ordered: a larger scope contains the smaller ones.
enum class MemScope : uint8_t { None, Cta, Cluster, Gpu, Sys };
std::string_view name_of(MemScope s);

// The operation of an atomic access.
enum class AtomicOp : uint8_t {
  None,
  Add,
  Min,
  Max,
  Inc,
  Dec,
  And,
  Or,
  Xor,
  Exch,
  Cas,
  Mbarrier, // an mbarrier operation on the object's 8 bytes
};
std::string_view name_of(AtomicOp o);

// Who performed an access.
enum class AccessOrigin : uint8_t {
  Instruction, // the executing lanes, now
  AsyncCopy,   // a cp.async copy, performed later by the async proxy on
               // behalf of the issuing lane (AccessEvent::async_id)
  BulkCopy,    // a cp.async.bulk copy (likewise)
  CallCopy,    // call / ret copying .param arguments or return values
               // between the caller's and the callee's frames (.local): a
               // Read of the source, then a Write of the destination
};

// One memory access by the lanes of one warp (or one async copy).
struct AccessEvent {
  uint32_t pc = 0;    // the instruction (for async copies: the issuing one)
  uint64_t cta = 0;   // linear index of the executing (issuing) CTA
  uint32_t warp = 0;  // warp index in that CTA
  uint32_t lanes = 0; // lanes that performed the access (bit l = lane l)
  StateSpace space = StateSpace::Global;
  AccessType type = AccessType::Read;
  MemOrder order = MemOrder::Weak;
  MemScope scope = MemScope::None;
  AtomicOp atom = AtomicOp::None;
  AccessOrigin origin = AccessOrigin::Instruction;
  bool generic = false; // the address was a generic address
  // An instruction's read performed through the async proxy: the shared
  // memory a wgmma.mma_async reads through its matrix descriptors (at
  // issue; origin Instruction, type Read).
  bool async_proxy = false;
  uint32_t size = 0; // bytes accessed by each lane (a whole vector)
  // Shared: linear index of the CTA whose shared memory it is (another CTA
  // of the cluster for DSMEM). Local: the executing CTA. Otherwise unused.
  uint64_t owner = 0;
  // Per lane (index = lane; only the bits of `lanes` are meaningful):
  // Global: the device address. Shared: the offset in the owner CTA's
  // shared memory. Local: the offset in the lane's frame. Param / Const:
  // the offset in the kernel parameters / the module's constant bank.
  const uint64_t *addr = nullptr;
  // Async copies: a number unique per issuing thread, in issue order.
  uint64_t async_id = 0;
  // Writes (type Write, origin Instruction): the bytes each lane stored,
  // `size` bytes per lane at values + lane * size, in memory order; lanes
  // of one instruction that store to one address each have their own.
  // nullptr where the engine does not give them (copies, atomics).
  const uint8_t *values = nullptr;
};

// Synchronization and lifecycle events: one type per kind of event, each
// delivered to its own Observer function (below). Every event made by
// threads starts with the same four fields.
struct ThreadEvent {
  uint32_t pc = 0;    // the instruction
  uint64_t cta = 0;   // linear index of the CTA
  uint32_t warp = 0;  // warp index in that CTA
  uint32_t lanes = 0; // the lanes concerned (bit l = lane l)
};

// fence / membar.
struct FenceEvent : ThreadEvent {
  MemOrder order = MemOrder::Sc; // AcqRel for fence.acq_rel, Sc for .sc
  MemScope scope = MemScope::None;
  bool proxy = false;         // fence.proxy.*: orders proxies, not threads
  bool mbarrier_init = false; // fence.mbarrier_init (a release of inits)
  bool sync_restrict = false; // fence.*.sync_restrict
};

// CTA barriers (bar / barrier), as the barrier unit performs them. The
// operation is lower.h's BarrierOp (sync, arrive, red.popc/and/or).

// Lanes of a warp arrive at `barrier`.
struct BarrierArriveEvent : ThreadEvent {
  int barrier = 0;
  BarrierOp op = BarrierOp::Sync;
  uint32_t count = 0; // threads expected (0 = all threads of the CTA)
  uint64_t phase = 0;
  bool aligned = true; // the instruction is .aligned (bar.* always is)
};
// `barrier` of `cta` completes `phase` (pc, warp and lanes unused).
struct BarrierCompleteEvent : ThreadEvent {
  int barrier = 0;
  uint32_t count = 0; // threads expected (0 = all threads of the CTA)
  uint64_t phase = 0;
  uint32_t warps = 0; // the warps that arrived
};
// Lanes continue past `barrier` after `phase` completed (the waiting side:
// bar.sync / bar.red).
struct BarrierResumeEvent : ThreadEvent {
  int barrier = 0;
  uint64_t phase = 0;
};

// Warp level: bar.warp.sync and every *.sync collective (shfl, vote, match,
// redux, and .sync.aligned matrix instructions): `lanes` are the member
// lanes that took part together, at one or (sm_70+) several instructions;
// pc is where the group completed. elect.sync: the same, with its leader.
struct WarpSyncEvent : ThreadEvent {
  uint32_t leader = 0; // elect.sync: the elected lane
};

// wgmma (docs/hopper.md "wgmma"), per warp of the warpgroup (`lanes`: the
// 32 lanes). Issue: the warp's operation `id` (1, 2, ... in issue order)
// reads register A (`a_registers` registers per thread; 0: A from a
// descriptor) and reads and writes the `accumulators` registers of D until
// a wait_group retires it. Commit: the operations issued since the last
// commit form the warp's group `group` (0, 1, ...). Wait: every operation
// with id <= `retired` is retired; `allowed` is the N of wait_group N.
struct WgmmaEvent : ThreadEvent {
  uint64_t id = 0;
  uint64_t group = 0;
  uint64_t retired = 0;
  uint32_t allowed = 0;
  uint32_t accumulators = 0, a_registers = 0;
};

// barrier.cluster. `cluster` is the linear index of the cluster's first
// CTA. Arrive: order Release or Relaxed; resume (the wait): Acquire or
// Relaxed; complete: cta = cluster, no lanes.
struct ClusterEvent : ThreadEvent {
  uint64_t cluster = 0;
  MemOrder order = MemOrder::Weak;
  uint64_t phase = 0;
};

// mbarrier objects: (object_owner CTA, object_offset in its shared memory).
// `lanes` is one lane (none for a phase completion). Which fields a kind
// sets is said at its Observer function.
struct MbarEvent : ThreadEvent {
  uint64_t object_owner = 0, object_offset = 0;
  uint32_t count = 0; // init: expected count; arrive: the arrival count
  int64_t tx = 0;     // transaction bytes
  MemOrder order = MemOrder::Weak;
  MemScope scope = MemScope::None;
  uint64_t phase = 0; // the full phase number (the state word keeps it mod 8)
  // Nonzero: made by the async proxy for that operation of the issuing
  // thread (pc, warp, lanes: the issuer).
  uint64_t async_id = 0;
};

// Asynchronous copies (cp.async, cp.async.bulk) and their groups, per
// issuing thread (`lanes` is one lane).
enum class AsyncKind : uint8_t {
  Copy,           // cp.async copy (a cp.async group)
  BulkGroupCopy,  // cp.async.bulk copy completing through a bulk group
  ArriveOn,       // the arrive-on of cp.async.mbarrier.arrive
  BulkMbarrierTx, // cp.async.bulk copy completing an mbarrier transaction
};
std::string_view name_of(AsyncKind k);
inline bool is_bulk(AsyncKind k) {
  return k == AsyncKind::BulkGroupCopy || k == AsyncKind::BulkMbarrierTx;
}
inline bool is_grouped(AsyncKind k) {
  return k == AsyncKind::Copy || k == AsyncKind::BulkGroupCopy;
}
struct AsyncIssueEvent : ThreadEvent {
  uint64_t async_id = 0; // unique per issuing thread, in issue order
  AsyncKind what = AsyncKind::Copy;
  uint64_t group = 0; // Copy / BulkGroupCopy: the group it belongs to
};
// cp.async.commit_group / cp.async.bulk.commit_group.
struct AsyncCommitEvent : ThreadEvent {
  bool bulk = false;
  uint64_t group = 0; // the committed group's number
};
// cp.async.wait_group N / wait_all / cp.async.bulk.wait_group: every
// operation of the thread's groups < `below` is complete.
struct AsyncWaitEvent : ThreadEvent {
  bool bulk = false;
  uint64_t below = 0;
  uint32_t allowed = 0; // N: the groups that may still be pending
};
// Operation `async_id` of (warp, lane) was performed: all its accesses
// have been reported.
struct AsyncCompleteEvent : ThreadEvent {
  uint64_t async_id = 0;
  AsyncKind what = AsyncKind::Copy;
  uint64_t group = 0;
};

// A device-side launch (docs/engine.md "Device-side launches"): the lane
// in `lanes` launched the grid's child `child` (0, 1, ... in launch order
// within the grid) into cudaStreamTailLaunch (`tail`) or another stream.
// `stream` is the handle it was launched into: 0 the block's NULL stream,
// 2 cudaStreamPerThread, 3 cudaStreamTailLaunch, 4
// cudaStreamFireAndForget, else a stream the grid created.
struct DeviceLaunchEvent : ThreadEvent {
  uint64_t child = 0;
  bool tail = false;
  uint64_t stream = 0;
};

// A successful device-side cudaEventRecord(event, stream) (`wait` false)
// or cudaStreamWaitEvent(stream, event) (`wait` true) by the lane in
// `lanes`, in the order of the grid's launches (docs/engine.md "Device
// runtime calls").
struct DeviceStreamEvent : ThreadEvent {
  bool wait = false;
  uint64_t stream = 0, event = 0;
};

// A child grid starts (before its launch begins) or ends (after its own
// children ended): the child `child` of the grid that launched it, at
// launch depth `depth` (1: launched by a grid the host launched).
struct ChildGridEvent {
  uint64_t child = 0;
  uint32_t depth = 0;
  bool tail = false;
};

// A CTA became resident (begin) or finished, every thread exited (end).
struct CtaEvent {
  uint64_t cta = 0;
  uint64_t cluster = 0; // begin: linear index of its cluster's first CTA
};

// Where an instruction comes from: the CUDA source line recorded by
// `.loc` (nvcc -lineinfo), when the PTX has one. For code inlined from
// another function (a header), `file:line` is the outermost call in the
// kernel's own source and `inner_file:inner_line` the inlined line.
struct CudaLoc {
  std::string_view file;
  uint32_t line = 0, col = 0;
  std::string_view inner_file;
  uint32_t inner_line = 0;
  bool valid() const { return line != 0; }
};

// The allocation (or module .global variable) holding a global address.
struct AllocationRef {
  uint64_t base = 0, size = 0;
  std::string name;        // as allocated ("argument 1 (f32[256])"); the
                           // variable's (mangled) name for module variables
  bool module_var = false; // a module .global variable (__device__)
  bool host = false;       // host memory mapped at its own address
  // A block of the device heap (malloc or new in a kernel): `name` says
  // who allocated it and where; the malloc's CUDA line ("f.cu:12:5"; empty
  // without line information) and PTX instruction ("f.ptx:40:2").
  bool heap = false;
  std::string cuda_at, ptx_at;
};

// What the engine knows about the launch an observer is attached to.
class LaunchView {
public:
  virtual ~LaunchView() = default;
  virtual std::string_view kernel() const = 0;
  virtual Dim3 grid() const = 0;
  virtual Dim3 block() const = 0;
  virtual Dim3 cluster() const = 0;          // {1,1,1} without clusters
  virtual uint32_t shared_bytes() const = 0; // per CTA
  virtual uint32_t local_bytes() const = 0;  // per thread frame
  // Instructions by pc.
  virtual SourceLoc ptx_loc(uint32_t pc) const = 0;
  virtual std::string_view text(uint32_t pc) const = 0; // "ld.shared.u32"
  // Whether the instruction at pc is an aligned barrier (bar.*, which is
  // barrier.*.aligned, or an .aligned form), from its modifier set.
  virtual bool aligned(uint32_t pc) const {
    (void)pc;
    return false;
  }
  virtual CudaLoc cuda_loc(uint32_t pc) const = 0;
  // Whether the program holds an instruction that can access shared memory
  // through the async proxy (cp.async.bulk and tensor copies, wgmma): with
  // none, no access of the launch is made by the async proxy there.
  virtual bool async_proxy() const { return true; }
  // A name for an address: the .shared variable (and offset) at a shared
  // offset, the allocation or module variable at a global address; empty
  // when none.
  virtual std::string describe(StateSpace space, uint64_t addr) const = 0;
  // The allocation holding global address `addr` (nullopt: none).
  virtual std::optional<AllocationRef> allocation(uint64_t addr) const {
    (void)addr;
    return std::nullopt;
  }
  // Thread-instructions executed so far in this launch (published by the
  // host threads every few hundred scheduling turns; exact at the end).
  // Safe to read from any thread.
  virtual uint64_t thread_steps() const { return 0; }
  // The CTA's 3-D index from its linear index.
  virtual Dim3 cta_id(uint64_t linear) const = 0;
  // Whether the kernel can make device-side launches, and the global
  // memory of its launches' parameter buffers ([base, base + size); docs/
  // engine.md "Device-side launches").
  virtual bool device_launches() const { return false; }
  virtual std::pair<uint64_t, uint64_t> launch_parameters() const {
    return {0, 0};
  }
  // The cooperative-groups grid workspace (0: none).
  virtual uint64_t grid_workspace() const = 0;
  // The reserved shared-memory region (%reserved_smem_offset_*) of each
  // CTA as {offset, bytes}; the launch initializes it (zeros), like the
  // driver. {0, 0} when the kernel has none.
  virtual std::pair<uint32_t, uint32_t> reserved_shared() const {
    return {0, 0};
  }
  // The call stack of thread `lane` of warp `warp` of CTA `cta` (linear)
  // while one of that CTA's warps runs, that is during an event of the CTA
  // on the host thread that runs it: the pcs of the `call` instructions the
  // thread is inside, innermost first. Empty in the kernel's own body, and
  // when the CTA is not running on the calling host thread (events of
  // asynchronous copies, launch and CTA ends). Asked when a report is made,
  // never per access.
  virtual std::vector<uint32_t> call_stack(uint64_t cta, uint32_t warp,
                                           uint32_t lane) const {
    (void)cta, (void)warp, (void)lane;
    return {};
  }
};

// Every function is a no-op by default: an observer overrides only what
// it needs.
class Observer {
public:
  virtual ~Observer() = default;
  // Whether it wants memory accesses (on_access); without them the engine
  // skips building access events entirely.
  virtual bool wants_accesses() const { return true; }
  // Whether it accepts events from several host threads at once (it locks
  // itself); otherwise the launch runs on one host thread.
  virtual bool concurrent() const { return false; }

  // Launch lifecycle. on_launch_end: the launch ended (it may have stopped
  // early); `launch` is still valid during the call.
  virtual void on_launch_begin(const LaunchView &launch) { (void)launch; }
  virtual void on_launch_end(const LaunchView &launch) { (void)launch; }
  virtual void on_cta_begin(const CtaEvent &e) { (void)e; }
  virtual void on_cta_end(const CtaEvent &e) { (void)e; }
  virtual void on_thread_exit(const ThreadEvent &e) { (void)e; }

  // Memory.
  virtual void on_access(const AccessEvent &e) { (void)e; }
  // The frame of a recursive function's activation ends at its return
  // (docs/engine.md "Recursion"): for each lane of e.lanes, bytes
  // [e.addr[l], e.addr[l] + e.size) of its .local memory hold nothing any
  // more (a later activation's frame there starts uninitialized). Given to
  // the observers that want accesses.
  virtual void on_frame_end(const AccessEvent &e) { (void)e; }
  virtual void on_fence(const FenceEvent &e) { (void)e; }

  // CTA barriers.
  virtual void on_barrier_arrive(const BarrierArriveEvent &e) { (void)e; }
  virtual void on_barrier_complete(const BarrierCompleteEvent &e) { (void)e; }
  virtual void on_barrier_resume(const BarrierResumeEvent &e) { (void)e; }

  // Warp level.
  virtual void on_warp_sync(const WarpSyncEvent &e) { (void)e; }
  virtual void on_elect(const WarpSyncEvent &e) { (void)e; }
  // wgmma.fence, wgmma.mma_async (issue), wgmma.commit_group,
  // wgmma.wait_group.
  virtual void on_wgmma_fence(const ThreadEvent &e) { (void)e; }
  virtual void on_wgmma_issue(const WgmmaEvent &e) { (void)e; }
  virtual void on_wgmma_commit(const WgmmaEvent &e) { (void)e; }
  virtual void on_wgmma_wait(const WgmmaEvent &e) { (void)e; }

  // barrier.cluster.
  virtual void on_cluster_arrive(const ClusterEvent &e) { (void)e; }
  virtual void on_cluster_complete(const ClusterEvent &e) { (void)e; }
  virtual void on_cluster_resume(const ClusterEvent &e) { (void)e; }

  // mbarrier objects.
  virtual void on_mbar_init(const MbarEvent &e) { (void)e; } // count
  virtual void on_mbar_inval(const MbarEvent &e) { (void)e; }
  // count, tx (the expect_tx part), order, scope, phase (the phase the
  // arrival belongs to), async_id (cp.async.mbarrier.arrive's arrive-on)
  virtual void on_mbar_arrive(const MbarEvent &e) { (void)e; }
  virtual void on_mbar_expect_tx(const MbarEvent &e) { (void)e; } // tx, phase
  // tx, phase; async_id: completed by that bulk copy
  virtual void on_mbar_complete_tx(const MbarEvent &e) { (void)e; }
  // phase: the phase that completed
  virtual void on_mbar_phase_complete(const MbarEvent &e) { (void)e; }
  // lanes observed `phase` complete (test_wait / try_wait returned true);
  // order (Acquire / Relaxed), scope
  virtual void on_mbar_wait_done(const MbarEvent &e) { (void)e; }

  // Asynchronous copies.
  virtual void on_async_issue(const AsyncIssueEvent &e) { (void)e; }
  virtual void on_async_commit(const AsyncCommitEvent &e) { (void)e; }
  virtual void on_async_wait(const AsyncWaitEvent &e) { (void)e; }
  virtual void on_async_complete(const AsyncCompleteEvent &e) { (void)e; }

  // Grid level: the cooperative-groups grid.sync() arrival (an atomic on
  // the grid workspace), griddepcontrol.launch_dependents / .wait.
  virtual void on_grid_sync(const ThreadEvent &e) { (void)e; }
  virtual void on_griddep_launch(const ThreadEvent &e) { (void)e; }
  virtual void on_griddep_wait(const ThreadEvent &e) { (void)e; }

  // Dynamic parallelism: a successful device-side launch, and a child
  // grid's start and end (around its on_launch_begin .. on_launch_end and
  // those of its own children).
  virtual void on_device_launch(const DeviceLaunchEvent &e) { (void)e; }
  virtual void on_device_stream_event(const DeviceStreamEvent &e) { (void)e; }
  virtual void on_child_grid_begin(const ChildGridEvent &e) { (void)e; }
  virtual void on_child_grid_end(const ChildGridEvent &e) { (void)e; }
};

} // namespace bcusim::engine
