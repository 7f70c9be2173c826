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
  uint32_t size = 0;    // bytes accessed by each lane (a whole vector)
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
};

// Synchronization events. Fields that do not apply to a kind keep their
// defaults; the comment on each kind names the fields it sets.
enum class SyncKind : uint8_t {
  // CTA barriers (bar / barrier), as the barrier unit performs them.
  BarrierArrive,   // warp, lanes arrive at `barrier` (op: 0 sync, 1 arrive,
                   // 2 red), `count` threads expected (0 = all), phase
  BarrierComplete, // `barrier` of `cta` completes `phase`; `warps` arrived
  BarrierResume,   // warp, lanes continue past `barrier` after `phase`
                   // completed (the waiting side: bar.sync / bar.red)
  // Warp level: bar.warp.sync and every *.sync collective (shfl, vote,
  // match, redux, elect, and .sync.aligned matrix instructions).
  WarpSync, // warp, lanes = the member lanes that took part together (at
            // one or, sm_70+, several instructions; pc: where it completed)
  Elect,    // warp, lanes = members, leader
  // barrier.cluster
  ClusterArrive,   // warp, lanes, order (Release or Relaxed), phase
  ClusterComplete, // `cluster` (linear index of its first CTA) completes
                   // `phase`
  ClusterResume,   // warp, lanes pass barrier.cluster.wait after `phase`
                   // completed; order (Acquire or Relaxed)
  // mbarrier objects: (object_owner CTA, object_offset in its shared
  // memory). `lanes` is one lane unless said otherwise.
  MbarInit,          // count
  MbarInval,         //
  MbarArrive,        // count, tx (expect_tx part), order, scope, phase (the
                     // phase the arrival belongs to); `async_id` != 0: the
                     // arrive-on of a cp.async.mbarrier.arrive, performed
                     // by the async proxy after the thread's prior copies
  MbarExpectTx,      // tx
  MbarCompleteTx,    // tx; async_id != 0: completed by that bulk copy
  MbarPhaseComplete, // phase that completed
  MbarWaitDone,      // lanes observed `phase` complete (test_wait /
                     // try_wait returned true); order (Acquire / Relaxed)
  // Asynchronous copies (cp.async, cp.async.bulk) and cp.async groups, per
  // issuing thread (`lanes` is one lane).
  AsyncIssue,    // operation `async_id` issued: op 0 cp.async copy, 1 bulk
                 // copy of a bulk group, 2 the arrive-on of
                 // cp.async.mbarrier.arrive, 3 bulk copy completing an
                 // mbarrier transaction; bulk; phase = the group of op 0/1
  AsyncCommit,   // bulk: committed group number `phase`
  AsyncWait,     // bulk; every operation of the thread's groups < `phase`
                 // is complete (`count` = the N of wait_group N)
  AsyncComplete, // operation `async_id` of warp/lane was performed (all
                 // its accesses have been reported)
  // Fences: fence / membar (order, scope; `count` bit 0 = proxy fence,
  // bit 1 = .mbarrier_init, bit 2 = sync_restrict).
  Fence,
  GridSync,      // cooperative-groups grid.sync arrival (an atomic on the
                 // grid workspace) by warp, lanes
  GridDepLaunch, // griddepcontrol.launch_dependents
  GridDepWait,   // griddepcontrol.wait
  ThreadExit,    // warp, lanes exited
  CtaBegin,      // `cta` (cluster = its cluster) became resident
  CtaEnd,        // `cta` finished (every thread exited)
};
std::string_view name_of(SyncKind k);

struct SyncEvent {
  SyncKind kind = SyncKind::ThreadExit;
  uint32_t pc = 0;
  uint64_t cta = 0;
  uint32_t warp = 0;
  uint32_t lanes = 0;
  int barrier = -1;
  uint32_t op = 0;
  uint32_t count = 0;
  uint32_t warps = 0;
  uint32_t leader = 0;
  uint64_t phase = 0;
  uint64_t cluster = 0;
  MemOrder order = MemOrder::Weak;
  MemScope scope = MemScope::None;
  uint64_t object_owner = 0, object_offset = 0;
  int64_t tx = 0;
  uint64_t async_id = 0;
  bool bulk = false;
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
  // The cooperative-groups grid workspace (0: none).
  virtual uint64_t grid_workspace() const = 0;
  // The reserved shared-memory region (%reserved_smem_offset_*) of each
  // CTA as {offset, bytes}; the launch initializes it (zeros), like the
  // driver. {0, 0} when the kernel has none.
  virtual std::pair<uint32_t, uint32_t> reserved_shared() const {
    return {0, 0};
  }
};

class Observer {
public:
  virtual ~Observer() = default;
  // Whether it wants memory accesses (on_access); without them the engine
  // skips building access events entirely.
  virtual bool wants_accesses() const { return true; }
  // Whether it accepts events from several host threads at once (it locks
  // itself); otherwise the launch runs on one host thread.
  virtual bool concurrent() const { return false; }
  virtual void on_launch_begin(const LaunchView &launch) { (void)launch; }
  virtual void on_access(const AccessEvent &e) { (void)e; }
  virtual void on_sync(const SyncEvent &e) { (void)e; }
  // The launch ended (status as RunReport::status; the run may have
  // stopped early). `launch` is still valid during the call.
  virtual void on_launch_end(const LaunchView &launch) { (void)launch; }
};

} // namespace bcusim::engine
