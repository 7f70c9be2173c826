// The run-time state of a launch: the warps (their register and predicate
// files, divergent paths, wgmma and spin bookkeeping), the CTAs (shared and
// local memory, mbarriers, the barrier unit), the launch as the handlers
// see it and the device-side launches of a grid. Internal to src/engine.
//
// A warp's registers are a structure-of-arrays file laid out in bytes
// (Program::reg_bytes): a register's slot is the array of its 32 lanes, and
// instructions name an operand's slot by its index in units of its own
// size (the slot of index i whose lanes are Lane<T> starts at byte
// i * 32 * sizeof(Lane<T>)), so a handler reaches it as its operation's
// type T (Exec::lanes<T>) with one multiply-add. A slot is 32 lanes of 4
// bytes for registers of 32 bits and less, of 8 bytes for 64-bit ones
// (docs/engine.md "The register file"). Constant slots (immediates, symbol
// addresses) are filled when the warp is created. Predicates are one 32-bit
// lane mask per predicate register.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "barrier.h"
#include "bcusim/engine/engine.h"
#include "mbarrier_state.h"

namespace bcusim::engine::detail {

constexpr uint32_t kWarpSize = 32;
constexpr uint32_t kFullMask = 0xffffffffu;
constexpr uint32_t kNone = 0xffffffffu;

// ---- the register file ------------------------------------------------------
// The element type of a lane array that holds values of type T (as<T> and
// bits convert between the two): 4 bytes for types of 32 bits and less, 8
// for 64-bit types.
template <class T>
using Lane = std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>;
// The lane width of a register reached as type T.
template <class T> constexpr uint8_t kLaneWidth = uint8_t(sizeof(Lane<T>));
// A slot's id where the compiler and the side tables (payloads, call
// sites, barriers, frames) keep it: its index, with kWideSlot set for a
// slot of 8-byte lanes. An instruction's operand slots a[k] hold the index
// alone, their widths are Inst::wide.
constexpr uint32_t kWideSlot = 1u << 31;
inline uint32_t slot_index(uint32_t id) { return id & ~kWideSlot; }
inline bool is_wide_slot(uint32_t id) { return (id & kWideSlot) != 0; }
// Bytes of a slot of 4-byte lanes (a unit of the file); one of 8-byte
// lanes takes two.
constexpr uint32_t kSlotUnit = kWarpSize * 4;
// Where slot `id` starts in the register file.
inline size_t slot_offset(uint32_t id) {
  return is_wide_slot(id) ? size_t(slot_index(id)) * 2 * kSlotUnit
                          : size_t(id) * kSlotUnit;
}
// The lanes of the slot of index `slot` of a register file, whose lanes
// are Lane<T>. (Slots as multiples of their own size, not byte offsets:
// the compiler then knows that two slots of a handler are the same or do
// not overlap, and its vector lane loops need no overlap test.)
template <class T = uint64_t>
inline Lane<T> *lanes_at(uint8_t *file, uint32_t slot) {
  return reinterpret_cast<Lane<T> *>(file) + size_t(slot) * kWarpSize;
}
template <class T = uint64_t>
inline const Lane<T> *lanes_at(const uint8_t *file, uint32_t slot) {
  return reinterpret_cast<const Lane<T> *>(file) + size_t(slot) * kWarpSize;
}
// Lane `lane` of slot `id` (zero-extended), and its write (truncated to
// the slot's width): for code that moves register values without computing
// with them (the activation stacks of recursive calls, constants).
inline uint64_t read_lane(const uint8_t *file, uint32_t id, uint32_t lane) {
  return is_wide_slot(id) ? lanes_at<uint64_t>(file, slot_index(id))[lane]
                          : lanes_at<uint32_t>(file, id)[lane];
}
inline void write_lane(uint8_t *file, uint32_t id, uint32_t lane, uint64_t v) {
  if (is_wide_slot(id))
    lanes_at<uint64_t>(file, slot_index(id))[lane] = v;
  else
    lanes_at<uint32_t>(file, id)[lane] = uint32_t(v);
}
// The modelled H100 SXM for simulated time (docs/engine.md "Simulated
// time"): 132 SMs at 1.98 GHz.
constexpr uint64_t kModelSms = 132;
constexpr uint64_t kModelClockKHz = 1'980'000;
inline uint64_t cycles_to_ns(uint64_t cycles) {
  return cycles / kModelClockKHz * 1'000'000 +
         cycles % kModelClockKHz * 1'000'000 / kModelClockKHz;
}

struct Program;
struct FuncInfo;

// The device-side launches of one grid: its parameter buffers (bump
// allocated from a pool in global memory) and the launches it made, which
// run when the grid completes.
struct DeviceLaunches {
  std::mutex mu;
  uint64_t pool = 0, pool_size = 0, used = 0;
  uint32_t depth = 0; // of the launching grid (0: launched by the host)
  // Nesting: 40 levels ran on an H100 (driver 580.159.04) where CUDA
  // documents 24; 128 bounds the engine's recursion (docs/engine.md).
  uint32_t max_depth = 128, pending_limit = 2048;
  struct Buffer {
    uint64_t addr = 0;
    uint32_t func = 0;
    Dim3 grid, block;
    uint32_t shared = 0;
    bool launched = false;
  };
  std::vector<Buffer> buffers;
  struct Pending {
    size_t buffer = 0;
    bool tail = false; // cudaStreamTailLaunch
  };
  std::vector<Pending> pending;
  // The device runtime's other state: each thread's last error (by
  // CTA << 16 | thread), the streams and events the grid created, and the
  // streams it destroyed (destroying one again succeeds).
  std::map<uint64_t, uint32_t> last_error;
  std::set<uint64_t> streams, events, destroyed_streams;
  uint64_t next_handle = 0x100;
  // cudaDeviceGetAttribute (LaunchConfig::device_attribute).
  std::function<int(int, int, int &)> device_attribute;
  // cudaGetErrorString (LaunchConfig::error_string): each error's text is
  // copied into the pool once, at its first call.
  std::function<std::string(int)> error_string;
  std::map<uint32_t, uint64_t> error_strings;
};

// ---- run-time state -------------------------------------------------------
// BlockedCta: blocked in the CTA's barrier unit; WaitBarrier: at a
// non-aligned barrier, waiting for the warp's other non-exited lanes.
enum class PathState : uint8_t {
  Ready,
  WaitWarp,
  BlockedCta,
  Blocked,
  BlockedCluster, // at barrier.cluster.wait until the phase completes
  BlockedMbar,    // waits for an mbarrier phase or a step bound (mbarrier.md)
  WaitBarrier,    // at a non-aligned barrier, waits for the warp's other lanes
};

// A set of lanes of one warp at one pc (independent thread scheduling:
// divergent paths interleave and merge again when their pcs meet).
struct Path {
  uint32_t pc = 0;
  uint32_t mask = 0;
  PathState state = PathState::Ready;
  std::vector<uint32_t> calls; // call-site pcs (return to pc+1)
  // BlockedMbar: the state word waited on, the phase seen, the wait's pc,
  // the scheduler step at which the bound passes; wait_retry = the path is
  // still at a try_wait (re-executed on waking); wait_timed_out = woken by
  // the bound, so the re-executed try_wait returns false.
  const uint8_t *wait_word = nullptr;
  uint32_t wait_phase = 0, wait_pc = 0;
  uint64_t wait_until = 0;
  bool wait_retry = false, wait_timed_out = false;
};

struct Cta;
struct ClusterState; // cluster_addr.h

struct Warp {
  uint32_t index = 0;      // warp id in the CTA
  uint32_t valid = 0;      // lanes that exist (partial last warp)
  uint32_t exited = 0;     // lanes that have exited
  std::vector<Path> paths; // empty = warp finished
  uint32_t cur = 0;        // path being run
  uint32_t path_steps = 0; // steps since the last path switch
  // The register file (Program::reg_bytes bytes, 8-byte aligned); its
  // slots through lanes().
  std::vector<uint64_t> regs;
  std::vector<uint32_t> preds;
  uint8_t *reg_file() { return reinterpret_cast<uint8_t *>(regs.data()); }
  const uint8_t *reg_file() const {
    return reinterpret_cast<const uint8_t *>(regs.data());
  }
  // The lanes of the slot with id `id` (an index or a tagged id).
  template <class T = uint64_t> Lane<T> *lanes(uint32_t id) {
    return lanes_at<T>(reg_file(), slot_index(id));
  }
  template <class T = uint64_t> const Lane<T> *lanes(uint32_t id) const {
    return lanes_at<T>(reg_file(), slot_index(id));
  }
  uint64_t steps = 0;
  bool bar_blocked = false; // blocked in the barrier unit: no path runs
  // Spin detection (docs/engine.md "Deadlocks"): while nothing in the
  // launch changes, the warp's whole state is fingerprinted at backward
  // branches (Brent's cycle detection); a repeated fingerprint at the
  // same progress epoch means the warp loops for ever unless another
  // thread changes something.
  bool spinning = false; // a cycle was seen at epoch spin_epoch
  uint64_t spin_epoch = ~0ull;
  uint64_t spin_saved = 0; // the fingerprint compared against (if taken)
  uint64_t spin_quick = 0; // and its quick key (scheduler.cpp)
  bool spin_have_saved = false;
  uint32_t spin_power = 1, spin_lam = 0, spin_tick = 0;
  uint32_t spin_pc = 0;    // the backward branch where the cycle closed
  uint32_t spin_lanes = 0; // the lanes that took it
  // wgmma (exec_mma.cpp): operations issued (their ids count from 1), the
  // groups committed, the last id of each committed group wait_group has
  // not retired (oldest first), and the last id retired.
  uint64_t wgmma_issued = 0, wgmma_committed = 0, wgmma_retired = 0;
  std::vector<uint64_t> wgmma_groups;
  // The registers (accumulator and register A) of each issued wgmma that no
  // wait_group has retired yet: empty when none is in flight (one test on
  // the warp's step path, warp_step.cpp).
  // Under an observer, also the shared-memory addresses its descriptors
  // read (A, B), reported again when a wait_group retires it.
  struct WgmmaRead {
    uint32_t size = 1;
    std::vector<uint64_t> addrs;
  };
  struct WgmmaLive {
    uint64_t id = 0;
    uint32_t pc = 0;
    std::vector<uint32_t> slots;
    WgmmaRead reads[2];
  };
  std::vector<WgmmaLive> wgmma_live;
  // setmaxnreg (exec_control.cpp): the warp's per-thread register count (0:
  // not known yet) and the pcs of the setmaxnreg it executed, in order.
  uint32_t maxnreg = 0;
  std::vector<uint32_t> setmaxnreg_pcs;
  // The last address of the coalesced global accesses at up to four pcs
  // (by pc % 4): the step from one to the next predicts the next blocks,
  // which exec_memory.cpp asks the host to prefetch (a hint only). The top
  // bit of a stream_pc entry marks a pc where a step was already seen.
  uint32_t stream_pc[4] = {kNone, kNone, kNone, kNone};
  uint64_t stream_addr[4] = {};
  // The stacks of recursive activations, one per lane (empty until a lane
  // calls a recursive function; docs/engine.md "Recursion"): the bytes of
  // stack in use and the registers each activation saved, innermost last.
  struct LaneStack {
    uint32_t used = 0;
    uint32_t depth = 0;
    std::vector<uint64_t> saved;
  };
  std::vector<LaneStack> stacks;
};

// One kernel launch as the handlers see it.
struct Launch {
  const Program *prog = nullptr;
  const FuncInfo *kernel = nullptr;
  Dim3 grid, block, cluster{1, 1, 1};
  bool has_cluster = false;
  std::vector<uint8_t> kparams;
  // Per CTA: the reserved region, static and dynamic shared memory.
  uint32_t shared_bytes = 0;
  uint32_t dyn_shared = 0;
  // The reserved shared-memory region [reserved_smem_off, +reserved_smem)
  // (%reserved_smem_offset_*): the first 1 KiB of every CTA's memory.
  uint32_t reserved_smem_off = 0, reserved_smem = 0;
  // %total_smem_size: static + dynamic bytes in 128-byte units.
  uint32_t total_smem = 0;
  std::string kernel_name;
  // The cooperative-groups grid workspace (docs/clusters.md) read
  // through %envreg1 (high half) / %envreg2 (low half); 0 = none.
  uint64_t grid_workspace = 0;
  // The launch has a prerequisite grid (programmatic dependent launch).
  bool has_prerequisite = false;
  // --warn-only: misuse the engine survives is a warning (Exec::warn).
  bool warn_only = false;
  // Simulated nanoseconds of the device before this launch (%globaltimer
  // starts there; docs/engine.md "Simulated time").
  uint64_t timer_base_ns = 0;
  // Device-side launches, when the program makes any; else nullptr.
  DeviceLaunches *device_launches = nullptr;
  // Each thread's local memory: the static frames (Program::frame_bytes)
  // and, when the program recurses, a stack of stack_bytes for the frames
  // of recursive activations (docs/engine.md "Recursion").
  uint32_t stack_bytes = 0;
  uint32_t local_bytes = 0;
};

struct Cta {
  Dim3 id;
  // Schedule "delay:W": warp W runs once the others block or spin.
  bool delay_released = false;
  uint64_t linear = 0;
  uint32_t nthreads = 0;
  std::vector<Warp> warps;
  // The CTA's shared memory: its reserved 1 KiB, then the static and
  // dynamic memory. Byte `off` has the .shared::cta address shared_base +
  // off (shared_base = %cluster_ctarank x 16 MiB, cluster_addr.h).
  std::vector<uint8_t> shared;
  uint64_t shared_base = 0;
  std::vector<uint8_t> local; // Launch::local_bytes per thread
  uint32_t live_threads = 0;
  uint32_t live_warps = 0;
  uint32_t next_warp = 0;
  uint64_t steps = 0;
  std::string printf_out;
  // cluster placement
  Dim3 cluster_id, cluster_ctaid;
  uint32_t cluster_rank = 0;
  // The cluster this CTA belongs to (every CTA is in one; without
  // a cluster launch it is a cluster of 1 CTA). Owned by the worker.
  ClusterState *cluster = nullptr;
  MbarCtaState mbar; // mbarrier objects and async copies (mbarrier.md)
  CtaBarriers bars;  // the BCU barrier unit (docs/barriers.md)
};

} // namespace bcusim::engine::detail
