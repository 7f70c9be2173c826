// Lowering of PTX CTA barriers (`bar{.cta}.*`, `barrier{.cta}.*`) onto BCU
// instructions (docs/barriers.md, "Lowering").
//
// One PTX barrier instruction becomes one BCU arrival (BAR.SYNC, BAR.ARV or
// BAR.RED.{POPC,AND,OR}) and, for `.red`, a BAR.RESULT that reads the
// warp's copy of the reduction. The words are produced by the ISA library's
// assembler from the built-in description, so a change of the description
// changes what the engine runs.
//
// Operands are mapped onto BCU registers/predicates for that one instruction
// (the fixed mapping below; docs/barriers.md "Register mapping"):
//   R0 = barrier id register, R1 = thread count register,
//   R2 = packed id | count << 4 (the `.red` form with both in registers:
//        BAR.RED has no (Reg, Reg) form, SPEC-NOTES 5),
//   R3 = `.red.popc` destination, P0 = the reduction input `c`,
//   P1 = the `.red.and/.or` destination predicate.
// The PTX guard is not lowered: it selects the lanes that execute (the
// active mask given to the barrier unit).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bcusim/isa/isa.h"
#include "bcusim/support/diagnostics.h"

namespace bcusim::ptx {
struct Instruction;
struct Function;
struct Module;
} // namespace bcusim::ptx

namespace bcusim::engine {

// The BCU registers and predicates of the operand mapping.
constexpr unsigned kBarIdReg = 0;
constexpr unsigned kBarCountReg = 1;
constexpr unsigned kBarPackedReg = 2;
constexpr unsigned kBarResultReg = 3;
constexpr unsigned kBarInputPred = 0;
constexpr unsigned kBarResultPred = 1;

enum class BarrierOp : uint8_t { Sync, Arrive, RedPopc, RedAnd, RedOr };
const char *name_of(BarrierOp op); // "sync", "arrive", "red.popc", ...

// A PTX operand of a barrier instruction: an immediate or a register.
struct BarrierOperand {
  enum class Kind : uint8_t { None, Imm, Reg } kind = Kind::None;
  uint32_t value = 0; // immediate value, or ptx::Function register index
  std::string text;   // as written ("%r5", "64")
  SourceLoc loc;
};

struct LoweredInstr {
  std::string text; // canonical disassembler text, e.g. "BAR.SYNC 0x1, 0x40;"
  isa::Word128 word;
};

struct LoweredBarrier {
  BarrierOp op = BarrierOp::Sync;
  bool aligned = true; // bar.* and barrier.*.aligned
  BarrierOperand id, count, dst, pred;
  bool pred_negated = false;
  bool packed = false; // R2 = (id & 0xF) | (count & 0xFFF) << 4
  // The arrival, then BAR.RESULT for `.red`.
  std::vector<LoweredInstr> instrs;
  // "R0 = %r5 (barrier id)", ... one per mapped operand.
  std::vector<std::string> mapping;
};

// Whether `in` is a CTA barrier (bar/barrier, not bar.warp.sync).
bool is_cta_barrier(const ptx::Instruction &in);

// Lowers one CTA barrier instruction. Malformed forms (unknown modifiers,
// wrong operands, a barrier id outside 0..15, an immediate count that is
// not a multiple of 32 or above 1024, bar.arrive without a non-zero count)
// are reported into `sink` at the instruction and give nullopt.
std::optional<LoweredBarrier> lower_barrier(const ptx::Instruction &in,
                                            const ptx::Function &fn,
                                            DiagnosticSink &sink);

// `bcusim lower`: the listing of every CTA barrier of `kernel` (all
// kernels and functions when empty). Text or JSON (docs/barriers.md,
// "bcusim lower"). Returns false (and reports into `sink`) on errors.
bool lower_listing(const ptx::Module &module, const std::string &kernel,
                   bool json, std::string &out, DiagnosticSink &sink);

} // namespace bcusim::engine
