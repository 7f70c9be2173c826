// The semantic form of one BCU instruction, as the barrier unit executes it.
//
// The encoding (seed 001 `__Encoding`) is the ISA library's business; the
// unit only needs what each operand *means*: which operation, where the
// barrier id and the count come from (immediate, register, the packed
// two-operand BAR.RED register, or nothing), the reduction predicate, the
// destination register/predicate and the guard. `from_decoded` is the one
// place that maps opcode fields onto these meanings (docs/bcu.md,
// "Instruction operands").
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bcusim::isa {
struct Decoded;
}

namespace bcusim::bcu {

// Register and predicate numbering (project-assigned, docs/isa.md): RZ reads
// 0 and discards writes, PT reads true and discards writes.
constexpr unsigned kRZ = 255;
constexpr unsigned kPT = 7;
constexpr unsigned kNumBarriers = 16;
constexpr unsigned kWarpSize = 32;
constexpr unsigned kMaxThreads = 1024;
constexpr unsigned kMaxWarps = kMaxThreads / kWarpSize;

// Calls f(i) for every set bit i of `mask`, lowest first: the one helper
// that iterates lanes of an execution mask (and warps of a warp set).
template <class F> void for_each_bit(uint32_t mask, F &&f) {
  for (; mask != 0; mask &= mask - 1)
    f(static_cast<unsigned>(std::countr_zero(mask)));
}

enum class Op : uint8_t {
  Sync,    // BAR.SYNC
  Arrive,  // BAR.ARV
  Red,     // BAR.RED.{AND,OR,POPC}
  Result,  // BAR.RESULT (B2R.RESULT) Rd, pu
  B2RBar,  // B2R.BAR Rd, barid
  B2RWarp, // B2R.WARP Rd
  R2BBar,  // R2B.BAR barid, Ra
  R2BWarp, // R2B.WARP Ra
};

enum class RedOp : uint8_t { And = 0, Or = 1, Popc = 2 }; // BARREDOp order

// Where an operand value comes from.
struct Source {
  enum class Kind : uint8_t { None, Imm, Reg };
  Kind kind = Kind::None;
  uint32_t value = 0; // the immediate, or the register number

  static Source none() { return {}; }
  static Source imm(uint32_t v) { return {Kind::Imm, v}; }
  static Source reg(uint32_t r) { return {Kind::Reg, r}; }
  friend bool operator==(const Source &, const Source &) = default;
};

struct Instr {
  Op op = Op::Sync;
  RedOp redop = RedOp::And; // Op::Red only
  // Barrier id: BAR/BAR.RED (imm or reg), B2R.BAR and R2B.BAR (imm). Unused
  // by the .WARP forms and BAR.RESULT (seed 001: "只在.mode =
  // .BAR的模式下有效").
  Source barid;
  // Expected count: BAR/BAR.RED (imm or reg); None for the packed form.
  Source count;
  // BAR_RED_R: `barid` names one register holding the barrier id in bits
  // 3:0 and the count in bits 15:4 (SPEC-NOTES point 4).
  bool packed = false;
  unsigned pp = kPT; // BAR.RED reduction input predicate
  bool pp_not = false;
  unsigned rd = kRZ; // B2R, BAR.RESULT destination register
  unsigned pu = kPT; // BAR.RESULT destination predicate
  unsigned ra = kRZ; // R2B source register
  unsigned pg = kPT; // guard predicate
  bool pg_not = false;

  friend bool operator==(const Instr &, const Instr &) = default;
};

std::string_view name(Op op);       // "BAR.SYNC", "BAR.ARV", "BAR.RED", ...
std::string_view name(RedOp redop); // "AND", "OR", "POPC"

// A readable rendering for events and replay output, e.g.
// "@!P1 BAR.RED.POPC R4, !P0" (not necessarily the ISA's canonical text).
std::string to_string(const Instr &instr);

// Maps a decoded BCU instruction onto its semantic form. Register meaning
// per opcode (seed 001 `__OperandInfo`): BAR_RR ra = barrier id, rb = count;
// BAR_RRI rb = barrier id, cnt imm; BAR_RIR barid imm, rc = count;
// BAR_RED_R rb packed; BAR_RED_RRI rb = barrier id; BAR_RED_RIR rc = count;
// R2B ra; B2R/BAR.RESULT rd (and pu). Returns nullopt (and sets `why`) for
// an instruction that is not a BCU instruction the unit knows.
std::optional<Instr> from_decoded(const isa::Decoded &decoded,
                                  std::string *why = nullptr);

} // namespace bcusim::bcu
