// PTX opcodes and modifiers as enumerators, from the instruction table
// (opcodes.def, modifiers.def). The parser resolves an instruction's names
// to them once (Instruction::op, Instruction::mods); validation, the
// engine's compiler and lowering, and the checker test these, never the
// text (docs/engine.md "The instruction table").
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace bcusim::ptx {

enum class Op : uint8_t {
  unknown,
#define PTX_OPCODE(id, name, family, effect, hooks, summary) id,
#include "bcusim/ptx/opcodes.def"
#undef PTX_OPCODE
};

enum class Mod : uint16_t {
  unknown,
#define PTX_MODIFIER(id, text) id,
#include "bcusim/ptx/modifiers.def"
#undef PTX_MODIFIER
};

inline constexpr size_t kModCount = 0
#define PTX_MODIFIER(id, text) +1
#include "bcusim/ptx/modifiers.def"
#undef PTX_MODIFIER
                                    + 1;

// PTX fundamental types (types.def), as the parser resolves them for
// instruction type modifiers, registers, variables and parameters.
enum class Type : uint8_t {
  unknown,
#define PTX_TYPE(id, text, cls, bits, bytes, flags) id,
#include "bcusim/ptx/types.def"
#undef PTX_TYPE
};

// One row of types.def.
struct TypeInfo {
  Type type;
  std::string_view name;
  char cls;         // 'b' 'u' 's' 'f' 'x' 'p', '?' (types.def)
  uint16_t bits;    // the width the operand type rules compare
  uint16_t bytes;   // the size of a variable; 0 when none
  bool instruction; // a type modifier of instructions (flag kInstr)
  bool is_float;    // flag kFloat
};

// The modifiers an instruction has, by enumerator.
using ModSet = std::bitset<kModCount>;

enum class Family : uint8_t {
  Other,
  Warp,       // vote, shfl, match, redux, activemask, bar.warp.sync, elect
  CtaBarrier, // bar, barrier
  Cluster,    // barrier.cluster, mapa, getctarank, griddepcontrol
  Mbarrier,   // mbarrier.*
  AsyncCopy,  // cp.async*, cp.reduce.async.bulk
  Fence,      // fence, membar
  Memory,     // ld, st, atom, red (their modifiers)
  Control,    // nanosleep, setmaxnreg
};

// What an instruction does beyond its registers (opcodes.def).
enum class Effect : uint8_t { None, Memory, Sync };

// The engine's compile hooks, in the order they are tried (bits of
// OpInfo::hooks).
namespace hook {
enum : uint16_t {
  Integer = 1u << 0,  // exec_integer.cpp
  Float = 1u << 1,    // exec_float.cpp, exec_half.cpp
  Compare = 1u << 2,  // exec_compare.cpp
  Convert = 1u << 3,  // exec_convert.cpp
  Memory = 1u << 4,   // exec_memory.cpp
  Control = 1u << 5,  // exec_control.cpp
  Warp = 1u << 6,     // exec_warp.cpp
  Cluster = 1u << 7,  // exec_cluster.cpp
  Mbarrier = 1u << 8, // exec_mbarrier.cpp
  Async = 1u << 9,    // exec_async.cpp
  Sync = 1u << 10,    // exec_control.cpp, exec_barrier.cpp
  Texture = 1u << 11, // exec_texture.cpp
  Mma = 1u << 12,     // exec_mma.cpp
};
inline constexpr unsigned kCount = 13;
} // namespace hook

// One row of opcodes.def.
struct OpInfo {
  Op op;
  std::string_view name;
  Family family;
  Effect effect;
  uint16_t hooks; // hook:: bits
  std::string_view summary;
};

// Every row, in the order of opcodes.def.
std::span<const OpInfo> opcode_rows();
// The row of `op` (a row with the name "" for Op::unknown).
const OpInfo &info(Op op);
// Name -> enumerator; Op::unknown / Mod::unknown when not in the table.
Op opcode_of(std::string_view name);
Mod modifier_of(std::string_view text);
// Enumerator -> text ("" for unknown).
std::string_view name_of(Op op);
std::string_view name_of(Mod mod);

// Every row of types.def, in order; the row of a type (name "" and class
// '?' for Type::unknown); name -> enumerator (Type::unknown when not in the
// table); enumerator -> text.
std::span<const TypeInfo> type_rows();
const TypeInfo &info(Type type);
Type type_named(std::string_view text);
std::string_view name_of(Type type);
// The type a modifier names (.f32 -> Type::f32); Type::unknown when it
// names none.
Type type_of(Mod mod);

} // namespace bcusim::ptx
