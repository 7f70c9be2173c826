// The engine's compact executable form of a PTX module (internal to
// src/engine).
//
// A function is compiled once into an array of fixed-size `Inst`s whose
// operands are pre-resolved register slots: every value operand (register,
// immediate, symbol address) is a slot of the warp's structure-of-arrays
// register file (state.h); immediates live in constant slots filled when a
// warp is created. Per pc the program also keeps the source location, the
// function, the text, the registers named and, for a branch, where its
// lanes reconverge; per function its entry, registers and frame; per call
// site the copies of its parameters.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "barrier.h"
#include "bcusim/ptx/ast.h"
#include "bcusim/support/diagnostics.h"
#include "exec.h"

namespace bcusim::engine::detail {

struct Inst {
  ExecFn fn = nullptr;
  Kind kind = Kind::Plain;
  uint8_t guard_neg = 0;
  uint8_t n = 0;     // vector width / element count
  uint8_t flags = 0; // handler-specific
  uint32_t guard = kNone;
  // operand slots (Exec::lanes), destination first
  uint32_t a[6] = {kNone, kNone, kNone, kNone, kNone, kNone};
  uint32_t member = kNone; // WarpSync: membermask slot
  uint32_t target = 0;     // branch target pc / callee function
  // A family with a payload (below): its index in the family's table of
  // Program::payloads; otherwise a call site or barrier index, or a
  // handler's constant (special register id, operation code, ...).
  uint32_t aux = 0;
  // Memory and synchronization instructions: the PTX ordering and scope
  // qualifiers as written or defaulted (observer.h MemOrder / MemScope).
  uint8_t order = 0, scope = 0;
  // Touches memory another thread may see or synchronizes
  // (ptx::affects_other_threads), or is not plain arithmetic or a branch: a
  // random schedule may end a warp's turn before it (docs/engine.md
  // "Schedule").
  uint8_t visible = 0;
  // Bit k: operand slot a[k] has 8-byte lanes (Exec::reg reads it; the
  // handlers of the other families are chosen by it when compiled).
  uint8_t wide = 0;
  int64_t imm = 0; // address offset / immediate
};
// The inner loop reads one Inst per instruction: one cache line.
static_assert(sizeof(Inst) == 64, "Inst grew beyond a cache line");

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

// ---- per-family operand payloads -------------------------------------------
// The fields of Inst that every family reads alike are the guard, the
// operand slots a[] (destination first), imm, n, flags, order and scope.
// A family whose instructions need more operands, or operands of other
// meanings (an offset slot, a second address, a completion mechanism), keeps
// them in a payload of its own: a small struct with named fields in a side
// table of the Program, which Inst::aux indexes (`Compiler::emit_with`
// stores it, `Program::payload<P>(in)` reads it). The hot handlers
// (arithmetic, ld/st) need none, so Inst stays one cache line.

// cp.async.ca/.cg (exec_async.cpp).
struct CpAsyncOps {
  uint32_t dst = kNone;        // shared destination: base slot (kNone: none)
  int64_t dst_off = 0;         // and offset
  uint32_t src = kNone;        // global source: base slot (kNone: none)
  uint32_t src_off = kNone;    // and offset slot
  uint32_t size = 0;           // cp-size in bytes (4, 8, 16)
  uint32_t src_size = kNone;   // src-size slot (kNone: cp-size)
  uint32_t ignore_src = kNone; // ignore-src predicate (kNone: none)
};

// cp.async.commit_group / wait_group / wait_all and their .bulk forms.
struct CpGroupOps {
  bool bulk = false;     // the bulk async-groups, not the cp.async ones
  bool wait_all = false; // wait_all: commits first, then waits for all
  uint32_t keep = kNone; // wait_group N: the slot of N (kNone: 0)
};

// cp.async.mbarrier.arrive{.noinc}.
struct CpMbarArriveOps {
  uint32_t addr = kNone; // the mbarrier: base slot (kNone: none)
  int64_t addr_off = 0;  // and offset
  uint8_t space = 0;     // how the address is read (mbarrier.h kAddr*)
  bool noinc = false;
};

// cp.async.bulk (not .tensor): a copy completing on an mbarrier (tx-count)
// or in a bulk async-group.
struct CpBulkOps {
  uint32_t dst = kNone;                  // destination: base slot (kNone: none)
  int64_t dst_off = 0;                   // and offset
  uint32_t src = kNone, src_off = kNone; // source: base slot, offset slot
  uint32_t size = kNone;                 // size slot
  // The mbarrier (.mbarrier::complete_tx::bytes): base slot and offset
  // slot; mbar_off kNone: the .bulk_group form.
  uint32_t mbar = kNone, mbar_off = kNone;
  uint32_t cta_mask = kNone; // .multicast::cluster: the ctaMask slot
  bool dst_cluster = false;  // destination .shared::cluster
  bool dst_global = false;   // destination .global
  bool src_shared = false;   // source .shared::cta
};

// fence / membar (the order and scope are Inst::order / Inst::scope).
struct FenceOps {
  bool proxy = false;         // fence.proxy.*
  bool mbarrier_init = false; // fence.mbarrier_init
  bool sync_restrict = false; // .sync_restrict::*
};

// cp.async.bulk.prefetch.L2 (exec_tma.cpp).
struct BulkPrefetchOps {
  uint32_t addr = kNone, addr_off = kNone; // base slot, offset slot
  uint32_t size = kNone;                   // size slot
};

// cp.reduce.async.bulk (not .tensor).
struct BulkReduceOps {
  uint32_t dst = kNone, dst_off = kNone; // base slot, offset slot
  uint32_t src = kNone, src_off = kNone; // shared source
  uint32_t size = kNone;                 // size slot
  uint32_t mbar = kNone;                 // mbarrier slot (kNone: bulk_group)
  uint8_t op = 0;                        // the reduction (exec_tma.cpp RedOp)
  uint8_t type = 0;                      // the element type (TmapType)
  bool dst_cluster = false;              // destination .shared::cluster
};

// tensormap.replace.tile.FIELD.
struct TensormapReplaceOps {
  uint32_t addr = kNone, addr_off = kNone; // the tensor map: base, offset
  uint32_t ordinal = kNone;                // the dimension slot (kNone: none)
  uint32_t value = kNone;                  // the new value's slot
  uint8_t field = 0;                       // exec_tma.cpp MapField
  bool shared = false;                     // .shared::cta, else .global
};

// cp.async.bulk.tensor, cp.reduce.async.bulk.tensor and
// cp.async.bulk.prefetch.tensor.
struct TmaOps {
  uint8_t kind = 0;   // exec_tma.cpp TmaKind
  uint8_t rank = 0;   // dimensions, 1 to 5
  uint8_t red_op = 0; // Reduce: exec_tma.cpp RedOp
  bool im2col = false;
  bool multicast = false;                // .multicast::cluster
  uint32_t sh = kNone, sh_off = kNone;   // the shared operand: load
                                         // destination, store source
  uint32_t map = kNone, map_off = kNone; // the tensor map
  uint32_t mbar = kNone, mbar_off = kNone;
  uint32_t cta_mask = kNone; // .multicast::cluster: the ctaMask slot
  uint32_t coord[5] = {kNone, kNone, kNone, kNone, kNone};
  uint32_t im2col_off[3] = {kNone, kNone, kNone};
};

// mma.sync, wmma.mma / load / store and wgmma.mma_async (exec_mma.cpp,
// whose Desc is the handlers' view of it).
struct MatrixOps {
  uint32_t kind = 0;                   // exec_mma.cpp MmaKind
  uint32_t m = 0, n = 0, k = 0;        // the shape
  uint32_t a = 0, b = 0, c = 0, d = 0; // element types (exec_mma.cpp El)
  uint32_t flags = 0;  // .satfinite, the b1 operation; wmma.load/store: the
                       // matrix (Which << 1)
  uint32_t layout = 0; // wmma: .col; mma: the rounding; wgmma: transposes,
                       // negations, descriptor A, sparsity and sp-sel
  uint32_t na = 0, nb = 0, nc = 0, nd = 0; // registers of a, b, c, d
  std::vector<uint32_t> slots; // the register slots of d, a, b, c in order
};

// mbarrier.* (exec_mbarrier.cpp): the object's address is a[0] + imm; the
// destination a[1], the count, tx-count or phase a[2], the try_wait time
// hint a[3].
struct MbarOps {
  uint8_t op = 0;    // mbarrier.h MbarOp
  uint8_t flags = 0; // mbarrier.h kMbar* bits
  uint8_t space = 0; // how the address is read (mbarrier.h kAddr*)
};

// barrier.cluster.arrive / .wait (Kind::ClusterArrive / ClusterWait,
// sync_warp.cpp).
struct ClusterBarrierOps {
  bool aligned = false; // .aligned: the whole warp executes it together
};

// shfl.sync / vote.sync / match.sync / redux.sync (exec_warp.cpp).
struct WarpOps {
  uint8_t mode = 0;  // shfl: 0 up, 1 down, 2 bfly, 3 idx; vote: 0 all, 1 any,
                     // 2 uni, 3 ballot; match: 0 any, 1 all; redux: 0 add,
                     // 1 min, 2 max, 3 and, 4 or, 5 xor
  bool wide = false; // match: 64-bit values
  bool is_signed = false; // redux: signed min/max
  bool operator==(const WarpOps &) const = default;
};

// tex.{1d,2d}.v4 and tld4.{r,g,b,a}.2d.v4 (exec_texture.cpp).
struct TexOps {
  uint32_t dst[4] = {kNone, kNone, kNone, kNone}; // the .v4 destination
  uint32_t handle = kNone;                        // the texture object
  uint32_t x = kNone, y = kNone;                  // coordinates (y kNone: 1-D)
  uint8_t dims = 1;
  bool int_coords = false; // .s32 coordinates (tex1Dfetch)
  uint8_t out_type = 0;    // the destination type: 0 f32, 1 s32, 2 u32
  uint8_t gather = 0;      // 0: tex; tld4: 1 + the component (r g b a)
};

// The side tables, one per payload type.
using Payloads =
    std::tuple<std::vector<CpAsyncOps>, std::vector<CpGroupOps>,
               std::vector<CpMbarArriveOps>, std::vector<CpBulkOps>,
               std::vector<FenceOps>, std::vector<BulkPrefetchOps>,
               std::vector<BulkReduceOps>, std::vector<TensormapReplaceOps>,
               std::vector<TmaOps>, std::vector<MatrixOps>, std::vector<TexOps>,
               std::vector<MbarOps>, std::vector<ClusterBarrierOps>,
               std::vector<WarpOps>>;

// Copies between a caller's and a callee's parameter areas (both in the
// per-thread frame memory, docs/engine.md "Calls").
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
  // The caller is recursive: the slot of its frame base (its .param
  // variables' offsets are relative to it); kNone: a static frame.
  uint32_t caller_frame = kNone;
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
  // .entry: the bytes of the static .shared variables the kernel reaches
  // (their end less the reserved 1 KiB), and where its extern (dynamic)
  // .shared memory starts, an offset in the CTA's shared memory
  // (docs/engine.md "Shared memory").
  uint32_t static_shared = 0;
  uint32_t dyn_shared_off = 0;
  // .entry: what a launch of this kernel needs, from the code it reaches
  // (itself and the functions it calls): a grid workspace (it reads
  // %envreg1/%envreg2 for grid.sync, which makes its launches admit every
  // CTA at once), a pool for device-side launches, a stack for recursive
  // activations. Other kernels of the module do not pay for them.
  bool reads_grid_workspace = false;
  bool device_launches = false;
  bool reaches_recursion = false;
  // Part of a call cycle (direct, or through function pointers): each
  // activation has its own frame on the thread's stack and its own
  // registers (docs/engine.md "Recursion"). Its frame's offsets (params,
  // returns, .param and .local variables) are relative to the frame base,
  // which register slot frame_slot holds per lane; frame_size bytes (a
  // multiple of 16, at least 16). save_slots / save_preds: the registers
  // saved at a call and restored at its return (frame_slot included).
  bool recursive = false;
  uint32_t frame_slot = kNone, frame_size = 0;
  std::vector<uint32_t> save_slots, save_preds;
};

// What one kernel reaches: the functions it calls (transitively; every
// function when one of them calls through a pointer) and the module-scope
// variables their instructions name (indexes of ptx::Module::globals).
struct KernelReach {
  std::vector<bool> funcs, globals;
};
KernelReach kernel_reach(const ptx::Module &m, size_t kernel);

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
  // Whether some instruction can access shared memory through the async
  // proxy (any `cp` or `wgmma`: LaunchView::async_proxy).
  bool async_proxy = false;
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
  // The warp's register file: its size in bytes (state.h) and its
  // predicate registers.
  uint32_t reg_bytes = 0, npreds = 0;
  std::vector<std::pair<uint32_t, uint64_t>> const_slots; // slot id, value
  // Slots holding a .shared::cta address of the executing CTA (a shared
  // variable's address, the base of its direct accesses): slot id and the
  // address in rank 0; each CTA's warps hold it plus Cta::shared_base.
  std::vector<std::pair<uint32_t, uint64_t>> cta_shared_slots;
  // Per unit of the register file (state.h kSlotUnit): 4 where a slot of
  // 4-byte lanes is, 8 where one of 8-byte lanes starts, 0 elsewhere.
  std::vector<uint8_t> slot_units;
  std::vector<std::pair<uint32_t, uint32_t>> const_preds;
  uint32_t frame_bytes = 0; // per-thread local memory (static frames)
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
  // diagnostics: name, offset, size and the kernels (indexes of funcs) that
  // reach it; variables no kernel reaches together may share offsets.
  struct SharedVar {
    std::string name;
    uint64_t off = 0, size = 0;
    std::vector<uint32_t> kernels;
  };
  std::vector<SharedVar> shared_vars;
  // The variable of `kernel` (nullptr: of any kernel) at shared offset off.
  const SharedVar *shared_var_at(const FuncInfo *kernel, uint64_t off) const {
    const uint32_t k = kernel ? uint32_t(kernel - funcs.data()) : ~uint32_t(0);
    for (const auto &v : shared_vars)
      if (off >= v.off && off - v.off < std::max<uint64_t>(v.size, 1) &&
          (!kernel ||
           std::find(v.kernels.begin(), v.kernels.end(), k) != v.kernels.end()))
        return &v;
    return nullptr;
  }
  std::vector<BarrierCode> barriers; // CTA barriers (Kind::CtaBarrier aux)
  // .target sm_6x or below: the members of a warp-synchronous instruction's
  // mask must execute the same instruction; sm_70 and later let them meet
  // at different ones (docs/clusters.md "Different instructions").
  bool warp_sync_same_inst = false;
  // The per-family operand payloads (Inst::aux indexes its family's table).
  Payloads payloads;
  template <class P> const P &payload(const Inst &in) const {
    return std::get<std::vector<P>>(payloads)[in.aux];
  }
};

// A C++ symbol as the user wrote it: `_ZZ6matmulE2As` is `matmul::As` (a
// function-local __shared__ array); other names stay as they are.
std::string demangle(const std::string &name);

} // namespace bcusim::engine::detail
