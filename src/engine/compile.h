// Compilation of PTX AST instructions into `Inst`s (internal). compile.cpp
// lays out registers, memory and frames and dispatches each instruction to
// its family (one file per family: exec_integer.cpp, exec_float.cpp, ...),
// which selects the handler for the (operation, type, modifiers)
// combination or reports it as unsupported, with its location.
#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "code.h"
#include "contract.h"

namespace bcusim::engine::detail {

// A PTX scalar type.
struct Ty {
  enum Code : uint8_t {
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16X2,
    BF16,
    BF16X2,
    F32,
    F64,
    TF32,
    PRED,
  } code = B32;
  uint32_t bits() const;
  uint32_t bytes() const { return bits() / 8; }
  bool is_float() const {
    return code == F16 || code == F16X2 || code == BF16 || code == BF16X2 ||
           code == F32 || code == F64 || code == TF32;
  }
  bool is_signed() const {
    return code == S8 || code == S16 || code == S32 || code == S64;
  }
  bool is_int() const { return !is_float() && code != PRED; }
  bool operator==(const Ty &) const = default;
};
// The engine's type of a PTX type (nullopt: one the engine does not
// compute with); parse_type looks the name up in the type table first.
std::optional<Ty> engine_type(ptx::Type type);
// The lane width of a register holding values of type t: 8 bytes for
// 64-bit and wider types, 4 for the others (docs/engine.md "The register
// file").
inline uint8_t width_of(Ty t) { return t.bytes() > 4 ? 8 : 4; }
// Handlers that move register values without computing with them come in
// one variant per lane width of their operands, chosen when the
// instruction is compiled: F<T>::fn (T uint32_t for 4-byte lanes, uint64_t
// for 8-byte lanes) and F<D, S>::fn for a destination and a source.
// A handler chosen by the lane width of one operand (the address base of
// an atomic).
using WidthPick = ExecFn (*)(uint8_t width);
template <template <class> class F> ExecFn by_width(uint8_t w) {
  return w == 8 ? &F<uint64_t>::fn : &F<uint32_t>::fn;
}
template <template <class, class> class F>
ExecFn by_widths(uint8_t wd, uint8_t ws) {
  if (wd == 8)
    return ws == 8 ? &F<uint64_t, uint64_t>::fn : &F<uint64_t, uint32_t>::fn;
  return ws == 8 ? &F<uint32_t, uint64_t>::fn : &F<uint32_t, uint32_t>::fn;
}
std::optional<Ty> parse_type(std::string_view name);

// The modifiers of one instruction; each family takes those it understands,
// and whatever is left is reported as unsupported.
class Mods {
public:
  explicit Mods(const ptx::Instruction &in)
      : mods_(in.modifiers), ids_(in.mods) {
    used_.assign(mods_.size(), false);
  }
  // Takes modifier `m` (its first untaken occurrence); false when absent.
  bool take(ptx::Mod m);
  // Takes the first of `options` present (in written order); Mod::unknown
  // when none.
  ptx::Mod take_any(std::initializer_list<ptx::Mod> options);
  // Takes modifier i (its index in Instruction::modifiers); false when it
  // is taken already.
  bool take_at(size_t i);
  // Takes the next type modifier (in written order).
  std::optional<Ty> take_type();
  std::vector<std::string> rest() const;

private:
  const std::vector<std::string> &mods_;
  const std::vector<ptx::Mod> &ids_;
  std::vector<bool> used_;
};

struct Addr {
  MemSpace space = MemSpace::Generic;
  uint32_t base = kNone; // slot; kNone = absolute address (imm)
  int64_t off = 0;
};

struct Sym {
  enum class Where : uint8_t { Global, Shared, Local, KParam, Const, Func };
  Where where = Where::Global;
  uint64_t addr = 0; // address in its own space
  uint64_t size = 0;
  uint32_t func = 0;
  // A recursive function's frame variable (.local, .param): addr is
  // relative to the frame base in this register slot (kNone: static).
  uint32_t frame = kNone;
};

class Compiler {
public:
  Compiler(Program &prog, const ptx::Module &mod) : prog(prog), mod(mod) {}

  Program &prog;
  const ptx::Module &mod;
  // The diagnostics of what is being compiled: build_program moves them to
  // the function they belong to (which then cannot run) or, for module-scope
  // declarations, to the caller's sink.
  DiagnosticSink sink;
  uint32_t fidx = 0;
  const ptx::Instruction *cur = nullptr;
  // The multiply-adds the assembler would fuse in the current function
  // (contract.h), indexed by body index; `cur_index` is cur's.
  const std::vector<Contraction> *contractions = nullptr;
  uint32_t cur_index = 0;
  bool failed = false;

  FuncInfo &fn() { return prog.funcs[fidx]; }
  const ptx::Function &ast() { return *prog.funcs[fidx].ast; }

  // Appends an instruction for `cur` (its guard and location).
  Inst &emit(ExecFn f, Kind k = Kind::Plain);
  // The same, with the operands in payload `p` of its family (code.h
  // "per-family operand payloads"): Inst::aux indexes it.
  template <class P> Inst &emit_with(ExecFn f, P p, Kind k = Kind::Plain) {
    auto &table = std::get<std::vector<P>>(prog.payloads);
    Inst &i = emit(f, k);
    i.aux = uint32_t(table.size());
    table.push_back(std::move(p));
    return i;
  }
  void error(SourceLoc loc, std::string message);
  // `unsupported <what>` at the current instruction.
  void unsupported(const std::string &what);
  // Reports modifiers nobody took; false when there were any.
  bool finish(const Mods &m);
  bool expect_operands(size_t n);

  uint32_t src(const ptx::Operand &o, Ty t);
  uint32_t dst(const ptx::Operand &o);
  uint32_t psrc(const ptx::Operand &o);
  uint32_t pdst(const ptx::Operand &o);
  bool is_pred_operand(const ptx::Operand &o) const;
  // A new register slot of the warp's file: its index (state.h).
  // Its lane width is `width` (4 bytes, else 8); the id it returns is
  // tagged (state.h kWideSlot).
  uint32_t new_slot(uint8_t width = 8);
  // A slot holding `value` in every lane, of lane width `width` (4, else
  // 8 bytes).
  uint32_t const_slot(uint64_t value, uint8_t width = 8);
  // A slot holding, in every lane, the executing CTA's .shared::cta
  // address `addr` (its rank-0 address; Program::cta_shared_slots), of
  // lane width `width`.
  uint32_t cta_shared_slot(uint64_t addr, uint8_t width = 8);
  // The unit of the file paired with a slot of 4-byte lanes, still free.
  uint32_t half_unit = kNone;
  // The lane width of slot id `slot` (4 or 8 bytes).
  uint8_t slot_width(uint32_t slot) const;
  // The lane width of operand slot `slot` of an operation of type t (the
  // slot's own: a register may be wider than its instruction's type).
  uint8_t width(uint32_t slot, Ty) const { return slot_width(slot); }
  uint32_t const_pred(bool value);
  // A slot for a value of the current instruction, of lane width `width`
  // (4, else 8 bytes).
  uint32_t scratch_slot(uint8_t width = 8);
  uint32_t scratch_pred();
  bool address(const ptx::Operand &o, MemSpace space, Addr &out);
  const Sym *lookup(const std::string &name) const;
  // Address of a symbol in its own state space, or as a generic address.
  uint64_t symbol_value(const Sym &s, bool generic) const;
  // A scratch slot holding, per lane, the address of recursive-function
  // frame variable `s` plus `off` (local, or generic when `generic`).
  uint32_t frame_address(const Sym &s, int64_t off, bool generic);
  std::string text_of(const ptx::Instruction &in) const;

  // per-function tables (compile.cpp)
  std::map<std::string, Sym> fsyms;
  std::map<std::string, Sym> gsyms;
  // Slots filled once per launch (constants) or per CTA (shared addresses):
  // one per (value, width), and the list of fills.
  using SlotMemo = std::map<std::pair<uint64_t, uint8_t>, uint32_t>;
  uint32_t memo_slot(SlotMemo &memo,
                     std::vector<std::pair<uint32_t, uint64_t>> &fills,
                     uint64_t value, uint8_t width);
  SlotMemo const_slot_of;
  SlotMemo cta_shared_slot_of;
  uint32_t const_pred_of[2] = {kNone, kNone};
  // Scratch slots (index 1: of 4-byte lanes, 2: of 8-byte lanes);
  // predicates.
  std::vector<uint32_t> scratch_slots[3], scratch_preds;
  uint32_t scratch_used[3] = {}, scratch_pred_used = 0;
  std::vector<std::pair<uint32_t, uint32_t>> branch_fixups; // pc, body index
  std::vector<uint32_t> call_fixups;                        // pcs of calls
  // Plain scalar loads of global, shared or generic memory, as candidates
  // for the seed of a compare-and-swap loop (exec_memory.cpp).
  struct SeedLoad {
    uint32_t pc, fidx, base, dst;
    int64_t off;
    uint8_t space, bytes;
  };
  std::vector<SeedLoad> seed_loads;
};

// Family entry points: return false when the opcode is not theirs.
// Whether the host has AVX2 (the lane loops of hot handlers have a copy
// compiled for it, chosen when a kernel is compiled).
inline bool host_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
// Handler F compiled for AVX2: every call inside is inlined into this
// copy, so its lane loops use 256-bit vectors.
template <ExecFn F>
[[gnu::flatten]] __attribute__((target("avx2"))) void
avx2_copy(Exec &x, const Inst &in, uint32_t m) {
  F(x, in, m);
}
// F, or its AVX2 copy where the host has AVX2.
template <ExecFn F> ExecFn with_avx2() {
  return host_has_avx2() ? &avx2_copy<F> : F;
}

bool compile_integer(Compiler &c, const ptx::Instruction &in);
bool compile_float(Compiler &c, const ptx::Instruction &in);
bool compile_compare(Compiler &c, const ptx::Instruction &in);
// f16/f16x2/bf16/bf16x2 arithmetic (exec_half.cpp), called by compile_float.
bool compile_half(Compiler &c, const ptx::Instruction &in);
bool is_half_type(Ty t);
// atom/red .add(.noftz) on f16/f16x2/bf16/bf16x2 (exec_half.cpp); the
// compiled instruction's n is 1 for bf16.
WidthPick atom_half_add(Ty t);
bool compile_convert(Compiler &c, const ptx::Instruction &in);
bool compile_memory(Compiler &c, const ptx::Instruction &in);
bool compile_control(Compiler &c, const ptx::Instruction &in);
bool compile_warp(Compiler &c, const ptx::Instruction &in);
bool compile_sync(Compiler &c, const ptx::Instruction &in);
// barrier.cluster, mapa, getctarank, griddepcontrol
// (exec_cluster.cpp); runs before compile_sync.
bool compile_cluster(Compiler &c, const ptx::Instruction &in);
bool compile_mbarrier(Compiler &c, const ptx::Instruction &in); // mbarrier.*
// cp.async*, fence, membar (exec_async.cpp)
bool compile_async(Compiler &c, const ptx::Instruction &in);
// cp.async.bulk.tensor, cp.reduce.async.bulk.tensor,
// cp.async.bulk.prefetch{.tensor}, tensormap.replace (exec_tma.cpp), called
// by compile_async.
bool compile_tma(Compiler &c, const ptx::Instruction &in);
bool compile_tensormap(Compiler &c, const ptx::Instruction &in);
// tex, tld4 (exec_texture.cpp)
bool compile_texture(Compiler &c, const ptx::Instruction &in);
// wmma, mma, ldmatrix, stmatrix, movmatrix (exec_mma.cpp)
bool compile_mma(Compiler &c, const ptx::Instruction &in);
// Every warp of the executing warp's warpgroup (four consecutive warps)
// exists with 32 lanes; otherwise a located error (exec_mma.cpp).
bool whole_warpgroup(Exec &x);
// wgmma.mma_async, fence, commit_group or wait_group (exec_mma.cpp).
bool is_wgmma(const Inst &in);
// CTA barriers (exec_barrier.cpp), called by compile_sync.
bool compile_cta_barrier(Compiler &c, const ptx::Instruction &in);

// Special registers (exec_special.cpp): the handler that writes one into a
// slot of lane width `width`; nullptr when the name is unknown.
ExecFn special_reader(const std::string &name, uint32_t &aux, uint8_t width);
// True when `in` reads %envreg1 or %envreg2, the cooperative-groups grid
// workspace (docs/clusters.md "grid.sync").
bool reads_grid_workspace(const Inst &in);

// Shared helpers for handlers: a register move between lane widths wd and
// ws (zero-extending or truncating).
ExecFn mov_fn(uint8_t wd, uint8_t ws);
// malloc / free and the C++ operators new / delete (exec_memory.cpp).
void exec_heap(Exec &x, const Inst &in, uint32_t m);

} // namespace bcusim::engine::detail
