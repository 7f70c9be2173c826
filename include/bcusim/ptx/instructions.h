// The facts of PTX instructions, modifiers, special registers, kernel
// directives and targets: which target architecture and PTX ISA version
// each needs, its family, and (for the synchronization instructions) the
// modifiers it takes. One table (src/ptx/instructions.cpp) holds them; the
// validator (`validate`, what `bcusim ptx check`, `run` and `lower` apply)
// reads it, and docs/ptx-validation.md lists it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bcusim/ptx/ast.h"
#include "bcusim/support/diagnostics.h"

namespace bcusim::ptx {

// Family is declared in opcodes.h (with the opcode rows).

// What a feature needs. `sm` is the target number (90 for sm_90), `ptx` the
// version times ten (78 for 7.8); 0 means no requirement.
struct Requirement {
  uint16_t sm = 0;
  uint16_t ptx = 0;
  bool arch_specific = false; // only on an `a` target (sm_90a)
};

struct Feature {
  enum class Kind : uint8_t {
    Instruction,     // `name` = opcode and the modifiers naming the form
    Modifier,        // `name` = a modifier of instructions under `scope`
    SpecialRegister, // `name` = a register, or a prefix ending in '*'
    Directive,       // `name` = a kernel directive without its '.'
    Target,          // `name` = a target; `req.ptx` = the version it needs
  };
  Kind kind;
  std::string_view name;
  // Modifier: the instruction (dotted prefix, e.g. "mbarrier") it belongs
  // to, "*" for any instruction.
  std::string_view scope;
  Family family;
  Requirement req;
  // Instruction: the modifiers the form takes after its name, separated by
  // spaces; "" = not checked. Types are checked by the rules, not here.
  std::string_view modifiers;
};

// The table, in the order of docs/ptx-validation.md.
std::span<const Feature> features();

// Operand signatures (docs/ptx-validation.md "Operand signatures"): the
// instruction types an opcode takes, the union over its forms and targets as
// ptxas 13 accepts them ("" = not checked), and the role of each operand:
//   T  a register of the instruction type     T2 of its second type
//   W  twice the type's width (mul/mad.wide)  U  a 32-bit integer (.u32)
//   L  relaxed to the type (ld, st, cvt)      L2 relaxed to the second type
//   P  a predicate                            A  an address [..]
//   I  an immediate value                     *  anything
//   H  the cache policy, there exactly when the instruction has
//      .L2::cache_hint
// A leading '?' makes an operand optional. The first row whose opcode
// matches and whose `modifier` (if any) the instruction has is used.
struct Signature {
  std::string_view opcode;
  std::string_view modifier;
  std::string_view types;
  std::string_view operands;
};

// The table, in the order rows are tried.
std::span<const Signature> signatures();

// The space-separated words of a row's list ("arrive wait" -> arrive,
// wait).
std::vector<std::string_view> row_words(std::string_view list);

// The rows of features() and signatures() resolved once to the
// enumerators of opcodes.def, modifiers.def and types.def, in the same
// order; the validator matches instructions against these, not the text.
// A dotted name of the tables ("cp.async.bulk"): opcode and modifiers.
struct DottedName {
  Op op = Op::unknown;
  std::vector<Mod> mods;
};
struct FeatureRow {
  const Feature *row = nullptr;
  DottedName name;            // Instruction: the form
  Mod mod = Mod::unknown;     // Modifier: the modifier
  bool any_scope = false;     // Modifier: scope "*"
  DottedName scope;           // Modifier: the instructions it belongs to
  std::vector<Mod> modifiers; // Instruction: the modifiers it takes
};
std::span<const FeatureRow> feature_rows();
struct SignatureRow {
  const Signature *row = nullptr;
  Op op = Op::unknown;
  std::vector<Mod> mods;   // `modifier`, every word
  std::vector<Type> types; // `types`
};
std::span<const SignatureRow> signature_rows();
// The names in those rows that the enumerator tables do not know ("kind:
// name" each); empty when every row resolves (a unit test keeps it so).
std::vector<std::string> unresolved_row_names();

// `.target sm_90a` -> {90, arch_specific}; nullopt when not an sm_ target.
struct TargetInfo {
  uint16_t sm = 0;
  bool arch_specific = false;
};
std::optional<TargetInfo> parse_target(std::string_view target);
// `.version 7.8` -> 78; nullopt when malformed.
std::optional<uint16_t> parse_version(std::string_view version);

// Whether the instruction touches memory other threads can see (ld, st,
// atom, red, cp.*, matrix loads and stores; not .param/.const/.local) or
// synchronizes with them (the barrier, warp, cluster, mbarrier, async-copy
// and fence families): where a random schedule may preempt a warp
// (docs/engine.md "Schedule").
// The opcode row's Effect (opcodes.def), without .param/.const/.local.
bool affects_other_threads(const Instruction &in);

// The matrix shape of an instruction (mma .m16n8k16, wgmma .m64n128k16,
// ldmatrix .m8n8): the last modifier spelled `m` and a digit, by its index
// in Instruction::modifiers, with its numbers when it reads mMnNkK
// (`complete`); nullopt when the instruction has none. The numbers are read
// from the text, so shapes the modifier table does not list have them too.
struct MatrixShape {
  size_t index = 0;
  uint32_t m = 0, n = 0, k = 0;
  bool complete = false;
};
std::optional<MatrixShape> matrix_shape(const Instruction &in);

// The instruction reference (docs/ptx-instructions.md) as Markdown,
// generated from the rows of opcodes.def, features() and signatures()
// (`bcusim ptx table --markdown`).
std::string instruction_reference_markdown();

// Checks a parsed module as ptxas does: the target and PTX version each
// instruction, modifier, special register and kernel directive needs (the
// table), and the rules of docs/ptx-validation.md (required and unknown
// modifiers, state spaces, operand types, immediate-only operands, value
// ranges). Reports `file:line:col: error:` diagnostics naming the
// instruction and what it requires; returns false when there was any.
bool validate(const Module &module, DiagnosticSink &sink);

} // namespace bcusim::ptx
