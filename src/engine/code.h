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

#include <cstdint>
#include <memory>
#include <string>
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

// A C++ symbol as the user wrote it: `_ZZ6matmulE2As` is `matmul::As` (a
// function-local __shared__ array); other names stay as they are.
std::string demangle(const std::string &name);

} // namespace bcusim::engine::detail
