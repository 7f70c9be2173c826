// The engine's compact executable form of a PTX module, and the per-warp
// state its instruction handlers work on. Internal to src/engine.
//
// A function is compiled once into an array of fixed-size `Inst`s whose
// operands are pre-resolved register slots: every value operand (register,
// immediate, symbol address) is a slot of the warp's structure-of-arrays
// register file (slot s, lane l at regs[s * 32 + l]); immediates live in
// constant slots filled when a warp is created. Predicates are one 32-bit
// lane mask per predicate register. A handler executes one instruction for
// the lanes of a mask, in one loop (for_lanes), with no allocation.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "barrier.h"
#include "bcusim/engine/engine.h"
#include "bcusim/engine/observer.h"
#include "bcusim/ptx/ast.h"
#include "bcusim/support/diagnostics.h"
#include "mbarrier_state.h"

namespace bcusim::engine::detail {

constexpr uint32_t kWarpSize = 32;
// Bytes of the reserved shared-memory region (%reserved_smem_offset_*), as
// on sm_90 (1 KiB per CTA).
constexpr uint32_t kReservedSmemBytes = 1024;
constexpr uint32_t kFullMask = 0xffffffffu;
constexpr uint32_t kNone = 0xffffffffu;
// The modelled H100 SXM for simulated time (docs/engine.md "Simulated
// time"): 132 SMs at 1.98 GHz.
constexpr uint64_t kModelSms = 132;
constexpr uint64_t kModelClockKHz = 1'980'000;
inline uint64_t cycles_to_ns(uint64_t cycles) {
  return cycles / kModelClockKHz * 1'000'000 +
         cycles % kModelClockKHz * 1'000'000 / kModelClockKHz;
}

// The generic address space (docs/engine.md "Memory"): global addresses are
// generic addresses; the other state spaces appear in 4 GiB windows. Their
// own (non-generic) addresses are offsets from 0 inside each space.
constexpr uint64_t kSharedWindow = 0x0000'0100'0000'0000ull;
constexpr uint64_t kLocalWindow = 0x0000'0200'0000'0000ull;
constexpr uint64_t kParamWindow = 0x0000'0300'0000'0000ull;
constexpr uint64_t kConstWindow = 0x0000'0400'0000'0000ull;
// Functions have addresses (`mov.u64 %rd1, f`, vtables, indirect calls):
// kFuncWindow + 16 x the function's index. Memory there cannot be accessed.
constexpr uint64_t kFuncWindow = 0x0000'0500'0000'0000ull;
constexpr uint64_t kWindowSize = 1ull << 32;
// Shared memory of the executing CTA is [0, kSharedCtaWindow) of the shared
// window; the rest is reserved for `.shared::cluster` (peer CTAs).
constexpr uint64_t kSharedCtaWindow = 1ull << 24;
// Module variables live in [kModuleGlobalBase, kUserGlobalBase), one
// 4 GiB segment per loaded module (reused after 2048 modules). The range is
// clear of the host's heaps, AddressSanitizer's included (which starts at
// 0x6000'0000'0000), so the runtime can tell device pointers from host ones.
constexpr uint64_t kModuleGlobalBase = 0x0000'6800'0000'0000ull;
constexpr uint64_t kModuleSegmentBytes = 1ull << 32;
constexpr uint64_t kUserGlobalBase = 0x0000'7000'0000'0000ull;

// Memory spaces as the handlers see them.
enum class MemSpace : uint8_t { Global, Shared, Local, KParam, Const, Generic };
std::string_view name_of(MemSpace s);

struct Exec;
struct Inst;
using ExecFn = void (*)(Exec &, const Inst &, uint32_t mask);

// How the scheduler treats an instruction; everything that is not Plain
// interacts with control flow or with other warps.
enum class Kind : uint8_t {
  Plain,      // fn over the executing lanes, then pc+1
  Branch,     // target = pc to jump to (guarded lanes), others fall through
  Exit,       // exit, or ret from the kernel
  Ret,        // return from a .func
  Call,       // aux = call-site index
  Printf,     // vprintf call: aux = call-site index
  DeviceCall, // device-runtime call (device-side launch): aux = call site
  WarpSync,   // warp-synchronous (shfl/vote/match/redux/bar.warp.sync):
              // waits until every listed non-exited lane is converged; the
              // member mask is slot `member`; then fn
  CtaBarrier, // bar / barrier (CTA): aux = Program::barriers index
  Trap,       // trap
  Yield,      // nanosleep: ends the warp's quantum
  // Cluster and grid synchronization (docs/clusters.md):
  WarpSyncMember, // bar.warp.sync / elect.sync: WarpSync, and every
                  // executing lane must be in its own membermask
  ClusterArrive,  // barrier.cluster.arrive (flags bit0 = .aligned)
  ClusterWait,    // barrier.cluster.wait (flags bit0 = .aligned)
  GridDepWait,    // griddepcontrol.wait
  MbarWait,       // mbarrier.test_wait / try_wait (exec_mbarrier.cpp): may
                  // suspend the path (PathState::BlockedMbar)
};

struct Inst {
  ExecFn fn = nullptr;
  Kind kind = Kind::Plain;
  uint8_t guard_neg = 0;
  uint8_t n = 0;     // vector width / element count
  uint8_t flags = 0; // handler-specific
  uint32_t guard = kNone;
  uint32_t a[6] = {kNone, kNone, kNone, kNone, kNone, kNone};
  uint32_t member = kNone; // WarpSync: membermask slot
  uint32_t target = 0;     // branch target pc / callee function
  uint32_t aux = 0;        // handler-specific (call site, sreg id, ...)
  // Memory and synchronization instructions: the PTX ordering and scope
  // qualifiers as written or defaulted (observer.h MemOrder / MemScope).
  uint8_t order = 0, scope = 0;
  // Touches memory another thread may see or synchronizes
  // (ptx::affects_other_threads), or is not plain arithmetic or a branch: a
  // random schedule may end a warp's turn before it (docs/engine.md
  // "Schedule").
  uint8_t visible = 0;
  int64_t imm = 0; // address offset / immediate
};

// Copies between a caller's and a callee's parameter areas (both in the
// per-thread frame memory, docs/engine.md "Calls").
// The device runtime's functions the engine provides (docs/engine.md
// "Device-side launches"), as nvcc 13 calls them for <<<>>> in device code.
enum class DeviceFn : uint8_t {
  None,
  GetParameterBuffer, // __cudaCDP2GetParameterBufferV2(func, grid, block,
                      // shmem)
  LaunchDevice,       // __cudaCDP2LaunchDeviceV2(buffer, stream)
  // The other device runtime calls (__cudaCDP2<Name>, the cudaName of
  // device code).
  GetLastError,
  PeekAtLastError,
  GetDevice,             // (int *device)
  DeviceGetAttribute,    // (int *value, attr, device)
  StreamCreateWithFlags, // (cudaStream_t *, flags)
  StreamDestroy,         // (stream)
  StreamWaitEvent,       // (stream, event, flags)
  EventCreateWithFlags,  // (cudaEvent_t *, flags)
  EventRecord,           // (event, stream)
  EventRecordWithFlags,  // (event, stream, flags)
  EventDestroy,          // (event)
  MemcpyAsync,           // (dst, src, count, kind, stream)
  GetErrorString,        // (error): const char *
  Malloc,                // (void **, size)
  Free,                  // (void *)
  GraphSetConditional,   // cudaGraphSetConditional(handle, value)
  // The device heap (docs/engine.md "Device heap"): malloc and the C++
  // operators new/new[] (one size argument, a pointer result), free and
  // the operators delete/delete[] (one pointer argument).
  HeapAlloc,
  HeapFree,
};
// The function the engine provides for an `.extern .func` of this name
// (None: not one of them).
DeviceFn device_fn_named(const std::string &name);

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

struct CallSite {
  uint32_t callee = 0;
  struct Copy {
    uint32_t from, to, size;
  };
  std::vector<Copy> args; // caller param var -> callee param
  std::vector<Copy> rets; // callee return -> caller retval var
  // vprintf: frame offsets of the caller's two .param arguments.
  uint32_t printf_fmt = 0, printf_args = 0, printf_ret = kNone;
  // A device-runtime function (DeviceCall): which, and the caller's
  // argument variables (offset, size) and result variable.
  DeviceFn device_fn = DeviceFn::None;
  std::vector<std::pair<uint32_t, uint32_t>> device_args;
  uint32_t device_ret = kNone, device_ret_size = 0;
  // Indirect call (through a register, with a .callprototype): the slot of
  // the function address, and the caller's argument and result variables
  // (offset, size); the copies are made for the callee found at run time.
  bool indirect = false;
  uint32_t target_slot = kNone;
  std::vector<std::pair<uint32_t, uint32_t>> arg_vars, ret_vars;
};

struct FuncInfo {
  std::string name;
  const ptx::Function *ast = nullptr;
  bool is_entry = false;
  bool is_vprintf = false;
  // An extern the engine provides: the device runtime's calls, and the
  // device heap's functions (malloc, free and the C++ operators new/delete
  // that nvcc declares .extern); calls run in the engine.
  DeviceFn device_fn = DeviceFn::None;
  bool compiled = false;
  // Why this function cannot run (unsupported instructions, calls to
  // undefined functions, recursion), each at its location; kernels that call
  // it, directly or not, cannot run either (docs/engine.md "Loading").
  std::vector<Diagnostic> errors;
  // The errors of this function and of every function it calls.
  std::vector<Diagnostic> blocked_by;
  uint32_t entry_pc = 0;
  uint32_t end_pc = 0;
  std::vector<uint32_t> reg_slot; // ast reg index -> slot or pred index
  std::vector<uint8_t> reg_is_pred;
  // .func parameters and returns: offsets in the thread frame.
  std::vector<uint32_t> param_off, param_size, ret_off, ret_size;
  // .entry parameters: offsets in the kernel parameter buffer.
  uint32_t kparam_bytes = 0;
};

struct GlobalVar {
  std::string name;
  uint64_t addr = 0; // device address
  uint64_t size = 0;
  uint64_t image_off = 0;
};

struct Program {
  std::shared_ptr<const SourceFile> source;
  std::vector<Inst> code;
  std::vector<SourceLoc> locs;        // per pc
  std::vector<uint32_t> code_func;    // per pc: function index
  std::vector<std::string> code_text; // per pc: opcode with modifiers
  // Per pc: the register slots its PTX instruction names (operands, vector
  // elements, address bases; not predicates), reg_use[reg_use_at[pc] ..
  // reg_use_at[pc + 1]) (the wgmma operand rule, warp_step.cpp).
  std::vector<uint32_t> reg_use_at, reg_use;
  // Per pc of a branch: the first pc of the immediate post-dominator of its
  // basic block, where the lanes it splits reconverge in structured code
  // (cfg.h, docs/engine.md "Reconvergence"); kNone for other instructions
  // and when the branch's paths meet only at the function's exit.
  std::vector<uint32_t> reconv;
  // per pc: 1 for an aligned barrier (every bar.*; barrier.*.aligned), from
  // the instruction's opcode and modifier set.
  std::vector<uint8_t> code_aligned;
  // per pc: the CUDA source position from `.loc` (file 0 = none), and the
  // module's `.file` table.
  struct CudaPos {
    uint32_t file = 0, line = 0, col = 0;
    uint32_t call_file = 0, call_line = 0; // inlined: the outermost call
  };
  std::vector<CudaPos> cuda_pos;
  std::vector<std::pair<uint32_t, std::string>> cuda_files;
  std::vector<FuncInfo> funcs;
  std::vector<CallSite> calls;
  uint32_t nslots = 0, npreds = 0;
  std::vector<std::pair<uint32_t, uint64_t>> const_slots;
  std::vector<std::pair<uint32_t, uint32_t>> const_preds;
  uint32_t frame_bytes = 0;    // per-thread local memory (all frames)
  uint32_t static_shared = 0;  // bytes of declared .shared
  uint32_t dyn_shared_off = 0; // where extern .shared starts
  // Some instruction reads %reserved_smem_offset_*: launches give each CTA
  // the reserved shared-memory region (docs/engine.md "Special registers").
  bool uses_reserved_smem = false;
  // Some function calls malloc/free (the device heap, docs/engine.md
  // "Device heap"): launches map the heap first.
  bool uses_heap = false;
  // Module .global variables (mutable by kernels) and .const variables.
  std::vector<uint8_t> global_image;
  std::vector<GlobalVar> global_vars;
  uint64_t global_base = 0;
  std::vector<uint8_t> const_image;
  std::vector<GlobalVar> const_vars; // addr = offset in const_image

  uint32_t cc_pred = kNone; // carry flag (add.cc/addc) lives here
  // Declared (non-extern) .shared variables, for naming addresses in
  // diagnostics: name, offset, size.
  struct SharedVar {
    std::string name;
    uint64_t off = 0, size = 0;
  };
  std::vector<SharedVar> shared_vars;
  std::vector<BarrierCode> barriers; // CTA barriers (Kind::CtaBarrier aux)
  // .target sm_6x or below: the members of a warp-synchronous instruction's
  // mask must execute the same instruction; sm_70 and later let them meet
  // at different ones (docs/clusters.md "Different instructions").
  bool warp_sync_same_inst = false;
  // Operand lists longer than Inst::a (matrix instructions, exec_mma.cpp):
  // an instruction's Inst::aux indexes its descriptor here.
  std::vector<uint32_t> operand_lists;
};

// ---- lane values -----------------------------------------------------------
template <class T> inline T as(uint64_t v) {
  if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<float>(static_cast<uint32_t>(v));
  else if constexpr (std::is_same_v<T, double>)
    return std::bit_cast<double>(v);
  else
    return static_cast<T>(v);
}
template <class T> inline uint64_t bits(T v) {
  if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<uint32_t>(v);
  else if constexpr (std::is_same_v<T, double>)
    return std::bit_cast<uint64_t>(v);
  else if constexpr (std::is_same_v<T, bool>)
    return v ? 1 : 0;
  else
    return static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(v));
}

// A C++ symbol as the user wrote it: `_ZZ6matmulE2As` is `matmul::As` (a
// function-local __shared__ array); other names stay as they are.
std::string demangle(const std::string &name);

// The one helper that iterates the lanes of an execution mask.
template <class F> inline void for_lanes(uint32_t mask, F &&f) {
  if (mask == kFullMask) {
    for (uint32_t l = 0; l < kWarpSize; ++l)
      f(l);
  } else {
    for (uint32_t m = mask; m != 0; m &= m - 1)
      f(static_cast<uint32_t>(std::countr_zero(m)));
  }
}

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
  std::vector<uint64_t> regs;
  std::vector<uint32_t> preds;
  uint64_t steps = 0;
  bool bar_blocked = false; // blocked in the barrier unit: no path runs
  // Spin detection (docs/engine.md "Deadlocks"): while nothing in the
  // launch changes, the warp's whole state is fingerprinted at backward
  // branches (Brent's cycle detection); a repeated fingerprint at the
  // same progress epoch means the warp loops for ever unless another
  // thread changes something.
  bool spinning = false; // a cycle was seen at epoch spin_epoch
  uint64_t spin_epoch = ~0ull;
  uint64_t spin_saved = 0; // the fingerprint compared against
  uint64_t spin_quick = 0; // and its quick key (scheduler.cpp)
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
  // (by pc % 4): the step from one to the next predicts the next block,
  // which exec_memory.cpp asks the host to prefetch (a hint only).
  uint32_t stream_pc[4] = {kNone, kNone, kNone, kNone};
  uint64_t stream_addr[4] = {};
};

enum class FaultKind : uint8_t {
  None,
  OutOfBounds,
  Misaligned,
  Null,
  Unsupported,
  Trap,
  WarpSync,
  Cluster,  // barrier.cluster / DSMEM misuse (detail holds the message)
  Mbarrier, // mbarrier / async-copy misuse (detail = the message)
  Texture,  // tex / tld4 with an invalid texture object (detail)
  Heap,     // device heap: use after free, block overrun, bad free (detail)
  IllegalInstruction, // an operand the hardware refuses (detail)
};

struct Fault {
  FaultKind kind = FaultKind::None;
  MemSpace space = MemSpace::Global;
  bool write = false;
  uint32_t lane = 0;
  uint32_t size = 0;
  uint64_t addr = 0;
  std::string detail;
};

class GlobalMemory;

// One kernel launch as the handlers see it.
struct Launch {
  const Program *prog = nullptr;
  const FuncInfo *kernel = nullptr;
  Dim3 grid, block, cluster{1, 1, 1};
  bool has_cluster = false;
  std::vector<uint8_t> kparams;
  uint32_t shared_bytes = 0; // per CTA, static + dynamic (+ reserved)
  uint32_t dyn_shared = 0;
  // The reserved shared-memory region [reserved_smem_off, +kReservedSmem)
  // when the program reads %reserved_smem_offset_*; 0 bytes otherwise.
  uint32_t reserved_smem_off = 0, reserved_smem = 0;
  uint32_t total_smem = 0; // static + dynamic (%total_smem_size)
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
};

struct Cta {
  Dim3 id;
  // Schedule "delay:W": warp W runs once the others block or spin.
  bool delay_released = false;
  uint64_t linear = 0;
  uint32_t nthreads = 0;
  std::vector<Warp> warps;
  std::vector<uint8_t> shared;
  std::vector<uint8_t> local; // frame_bytes per thread
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

// The context a handler runs in: the warp's registers and the memory the
// instruction may touch.
struct Exec {
  uint64_t *r = nullptr;
  uint32_t *p = nullptr;
  Warp *warp = nullptr;
  Cta *cta = nullptr;
  const Launch *launch = nullptr;
  const Program *prog = nullptr;
  GlobalMemory *gmem = nullptr;
  uint32_t pc = 0;
  // Warp-instructions of the current warp's turn so far, the current one
  // included (%clock: the CTA's count plus these).
  uint64_t turn_steps = 0;
  // the last two global allocations hit (kernels often stream two arrays)
  uint64_t g_base = 1, g_size = 0;
  uint8_t *g_data = nullptr;
  uint64_t g_base2 = 1, g_size2 = 0;
  uint8_t *g_data2 = nullptr;
  bool faulted = false;
  Fault fault;
  // The launch's observer (nullptr: none; docs/observer.md) and the
  // worker's progress counter: stores, atomics and synchronization steps
  // bump it, so the scheduler can tell spinning from progress.
  Observer *obs = nullptr;      // memory accesses (when it wants them)
  Observer *sync_obs = nullptr; // synchronization events
  uint64_t progress = 0;
  // Warnings of the current instruction (lane, message): the scheduler
  // reports each one with its location (once per instruction and message).
  std::vector<std::pair<uint32_t, std::string>> warnings;
  void warn(uint32_t lane, std::string message) {
    warnings.emplace_back(lane, std::move(message));
  }
  // Errors the launch survives, reported like the warnings: accesses a GPU
  // completes although they are wrong (a freed or overrun device-heap
  // block, mapped host memory past its range within its pages; docs/exec.md
  // "Errors as on a GPU").
  std::vector<std::pair<uint32_t, std::string>> survived;
  void survive(uint32_t lane, std::string message) {
    survived.emplace_back(lane, std::move(message));
  }
  bool has_remarks() const { return !warnings.empty() || !survived.empty(); }

  uint64_t *s(uint32_t slot) const { return r + size_t(slot) * kWarpSize; }
  uint32_t thread_of(uint32_t lane) const {
    return warp->index * kWarpSize + lane;
  }
  void set_fault(FaultKind k, MemSpace sp, uint64_t addr, uint32_t size,
                 uint32_t lane, bool write) {
    if (faulted)
      return;
    // A global/generic access near address 0 is a null pointer, whatever
    // else is wrong with it.
    if ((sp == MemSpace::Global || sp == MemSpace::Generic) && addr < 65536)
      k = FaultKind::Null;
    faulted = true;
    fault.kind = k;
    fault.space = sp;
    fault.addr = addr;
    fault.size = size;
    fault.lane = lane;
    fault.write = write;
  }
  void set_error(FaultKind k, uint32_t lane, std::string detail) {
    if (faulted)
      return;
    faulted = true;
    fault.kind = k;
    fault.lane = lane;
    fault.detail = std::move(detail);
  }
  // Memory translation (exec_memory.cpp); nullptr + fault when invalid.
  uint8_t *translate(MemSpace sp, uint64_t addr, uint32_t size, bool write,
                     uint32_t lane);
  uint8_t *global_slow(uint64_t addr, uint32_t size, bool write, uint32_t lane);
  uint8_t *host_page_access(uint64_t addr, uint32_t size, bool write,
                            uint32_t lane);
  // .shared::cluster addresses of peer CTAs (exec_memory.cpp).
  uint8_t *shared_cluster(uint64_t addr, uint32_t size, bool write,
                          uint32_t lane);
  inline uint8_t *global(uint64_t addr, uint32_t size, bool write,
                         uint32_t lane) {
    uint64_t off = addr - g_base;
    if (off < g_size && size <= g_size - off)
      return g_data + off;
    uint64_t off2 = addr - g_base2;
    if (off2 < g_size2 && size <= g_size2 - off2) {
      std::swap(g_base, g_base2);
      std::swap(g_size, g_size2);
      std::swap(g_data, g_data2);
      return g_data + off2;
    }
    return global_slow(addr, size, write, lane);
  }
};

// ---- warp collectives (exec_warp.cpp)
// ---------------------------------------- The lanes of one membermask group at
// one warp-synchronous instruction.
struct CollectivePart {
  const Inst *in = nullptr;
  uint32_t lanes = 0; // the executing lanes (guard true) at `in`
};
// Runs one warp-synchronous operation for the lanes of one membermask
// group, which may have reached different instructions (sm_70+): each lane
// reads its operands from, and writes its results to, the instruction it
// executes; the exchange is among all the parts' lanes.
void exec_collective(Exec &x, std::span<const CollectivePart> parts);
// Whether the members of a warp-synchronous instruction's mask may meet it
// at other instructions on sm_70+: bar.warp.sync, elect.sync and the
// shfl/vote/match/redux.sync collectives; not the .sync.aligned matrix
// instructions (.aligned: every thread executes the same instruction).
bool meets_elsewhere(const Inst &in);
// Whether lanes at `a` and at `b` execute together: the same operation with
// the same qualifiers (PTX: "executed <op>.sync with the same qualifiers and
// same membermask value"), one that meets_elsewhere.
bool same_collective(const Inst &a, const Inst &b);

// ---- global memory ---------------------------------------------------------
struct Allocation {
  uint64_t base = 0, size = 0;
  uint8_t *data = nullptr;
  std::unique_ptr<uint8_t[]> owned;
  std::string name;        // module variables, named allocations
  bool module_var = false; // a module .global variable
  bool host = false;       // host memory mapped at its own address
  bool heap = false;       // the device heap (blocks checked by HeapBlocks)
};

// The blocks of the device heap (docs/engine.md "Device heap"): malloc and
// free may run on several host threads at once, so every operation takes
// the lock; accesses to the heap region look their block up here.
struct HeapBlock {
  uint64_t size = 0;
  bool live = true;
  std::string by; // "allocated in kernel 'K' at f.cu:12:5" (who, where)
  // The malloc: its CUDA line when the PTX has line information
  // ("f.cu:12:5"), and its PTX instruction ("f.ptx:40:2").
  std::string cuda_at, ptx_at;
};
class HeapBlocks {
public:
  // 16-byte aligned block of `bytes` inside [base, base + limit); 0 when
  // the heap is exhausted.
  uint64_t alloc(uint64_t base, uint64_t limit, uint64_t bytes, HeapBlock blk);
  // The block (live or freed) holding addr: its base and record.
  std::optional<std::pair<uint64_t, HeapBlock>> block(uint64_t addr) const;
  // 0: freed; 1: not a block's base; 2: already freed.
  int free(uint64_t addr, uint64_t &size);
  // The live block holding [addr, addr + size), or why not (detail).
  bool check(uint64_t addr, uint64_t size, std::string &detail) const;
  std::vector<std::pair<uint64_t, HeapBlock>> live() const;
  // Whether a block was ever allocated (since the last clear()).
  bool used() const {
    std::lock_guard<std::mutex> g(mu_);
    return next_ != 0;
  }
  void clear();

private:
  mutable std::mutex mu_;
  std::map<uint64_t, HeapBlock> blocks_; // by base; freed ones kept for
                                         // use-after-free reports
  uint64_t next_ = 0;                    // bump offset
};

class GlobalMemory {
public:
  uint64_t alloc(uint64_t bytes, std::string name = {});
  bool free(uint64_t base);
  // Host memory at its own address (Device::map_host); false on overlap.
  bool map_host(uint8_t *host, uint64_t bytes, std::string name);
  bool unmap_host(uint64_t base);
  // Texture objects (Device::create_texture): handle = index + 1.
  uint64_t add_texture(const Texture &t);
  bool remove_texture(uint64_t handle);
  const Texture *texture(uint64_t handle) const {
    return handle && handle <= textures_.size() && textures_[handle - 1].first
               ? &textures_[handle - 1].second
               : nullptr;
  }
  const Allocation *find(uint64_t addr) const;
  // Registers a module's .global variables (once per program).
  void map_program(Program &prog);
  // The allocation nearest to addr (for fault notes); nullptr when none.
  const Allocation *nearest(uint64_t addr) const;
  // The device heap: its size (cudaLimitMallocHeapSize, default 8 MiB) can
  // change while it holds no live block; map_heap() makes the region
  // addressable (before a launch that uses it).
  uint64_t heap_size() const { return heap_size_; }
  bool heap_used() const { return heap_.used(); }
  bool set_heap_size(uint64_t bytes);
  void map_heap();
  uint64_t heap_base() const { return heap_base_; }
  HeapBlocks &heap() { return heap_; }
  // Simulated nanoseconds of every launch so far (%globaltimer).
  uint64_t sim_ns = 0;
  const HeapBlocks &heap() const { return heap_; }

private:
  std::vector<std::unique_ptr<Allocation>> allocs_; // sorted by base
  std::vector<const Program *> mapped_;
  std::vector<std::pair<bool, Texture>> textures_; // (live, texture)
  uint64_t next_ = kUserGlobalBase;
  uint64_t heap_size_ = 8ull << 20;
  uint64_t heap_base_ = 0; // 0: not mapped
  HeapBlocks heap_;
};

} // namespace bcusim::engine::detail
