// The PTX module as parsed (src/ptx): a syntactic IR with every name already
// resolved where the parser can resolve it (registers to per-function
// indices, labels to instruction indices, scopes flattened), and a source
// location on everything. The engine (src/engine) compiles this once into its
// own compact executable form; nothing here is executed directly.
//
// This header is the contract between the parser and the engine. Extend it;
// do not change what is declared here.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bcusim/ptx/opcodes.h"
#include "bcusim/support/diagnostics.h"

namespace bcusim::ptx {

// State spaces. SharedCluster is `.shared::cluster`; Shared covers `.shared`
// and `.shared::cta`.
enum class Space : uint8_t {
  None,
  Reg,
  Sreg,
  Const,
  Global,
  Local,
  Param,
  Shared,
  SharedCluster,
  Tex,
};

// The state space a modifier names (.global -> Global, .shared::cta ->
// Shared, .param::entry -> Param, .tex -> Tex); None when it names none.
Space space_of(Mod mod);

// A PTX scalar type as written: "u32", "f32", "pred", "b64", ... (no dot).
// The parser resolves it to a ptx::Type (types.def) next to the text.
using TypeName = std::string;

struct Operand {
  enum class Kind : uint8_t {
    Reg,     // a declared register: `reg` is its index in Function::regs
    Special, // special register: `name` e.g. "%tid.x", "%laneid", "%envreg3"
    Imm,     // integer literal (decimal, hex 0x, octal 0, binary 0b; may be
             // negative; U suffix accepted): `ival`
    FImm,    // floating literal: 0fXXXXXXXX (f32 bits in `ival`, is_f32=true)
             // or 0dXXXXXXXXXXXXXXXX / decimal (f64 bits in `ival`)
    Symbol,  // a variable or function name (global/shared/const/param/local
             // or .func): `name`; `sym+8` outside brackets puts 8 in `ival`
             // (extension); sym_kind/sym_index say what it resolved to
    Label,   // a branch target: `label` is an index into Function::body
    Address, // [base+offset]: `elems[0]` is the base (Reg, Symbol, Imm or
             // Special) unless absent (pure immediate address: elems empty),
             // `ival` the byte offset. Tensor form `[tmap, {c0, c1}]`:
             // elems[1] is the Vector of coordinates (ival 0).
    Vector,  // {a, b, c, d}: `elems`
    Pair,    // d|p destination: elems[0], elems[1]
    Sink,    // `_`
    List,    // parenthesised list in call: (a, b): `elems`
  };
  // What a Symbol operand (also the base of an Address, or an element of a
  // call List) was resolved to by the parser; `sym_index` indexes the
  // container named here. (Extension; see docs/ptx-frontend.md.)
  enum class SymbolKind : uint8_t {
    None,      // not a symbol
    Global,    // Module::globals[sym_index]
    Function,  // Module::functions[sym_index] (call target, or its address)
    Param,     // Function::params[sym_index] of the enclosing function
    Return,    // Function::returns[sym_index] of the enclosing function
    Local,     // Function::locals[sym_index] (innermost visible declaration)
    Prototype, // Function::prototypes[sym_index] (indirect call signature)
  };
  Kind kind = Kind::Imm;
  bool negated = false; // `!p` source predicate
  bool is_f32 = false;  // FImm written as 0f...
  uint32_t reg = 0;
  uint32_t label = 0;
  int64_t ival = 0;
  std::string name;
  std::vector<Operand> elems;
  SourceLoc loc;
  // Extension: resolution of Kind::Symbol (see SymbolKind).
  SymbolKind sym_kind = SymbolKind::None;
  uint32_t sym_index = 0;
};

struct Guard {
  uint32_t reg = 0; // predicate register index
  bool negated = false;
  SourceLoc loc;
};

struct Instruction {
  std::string opcode;                 // "add", "ld", "bar", "mbarrier", ...
  std::vector<std::string> modifiers; // as written, without the leading dot,
                                      // in order: {"shared::cta", "b64"}
  std::optional<Guard> guard;
  std::vector<Operand> operands;
  SourceLoc loc; // the opcode's location; the whole line for carets
                 // (length covers the opcode and all its modifiers)
  // Extension: location of the whole statement (guard through the last
  // operand, before `;`), for carets that span the instruction.
  SourceLoc stmt_loc;
  // Extension: the CUDA source position of the latest `.loc file line col`
  // before the instruction in its function (nvcc -lineinfo / -G); file 0 =
  // none. Module::files names the file.
  uint32_t src_file = 0, src_line = 0, src_col = 0;
  // Inlined code: the outermost call site of the `.loc ... inlined_at`
  // chain, i.e. the call in the function's own source (file 0 = none).
  uint32_t call_file = 0, call_line = 0, call_col = 0;
  // Extension: the opcode and modifiers resolved against the instruction
  // table (opcodes.h) by the parser, once: `op` (Op::unknown when the table
  // does not know the name), `mods` parallel to `modifiers` (Mod::unknown
  // for a modifier it does not know) and the set of them. The text stays
  // for printing and diagnostics; consumers test these.
  Op op = Op::unknown;
  std::vector<Mod> mods;
  ModSet mod_set;
  // The instruction types among the modifiers, in order (cvt.rn.f32.s32:
  // f32, s32): the modifiers whose types.def row has flag kInstr.
  std::vector<Type> types;
  bool has(Mod m) const { return mod_set.test(static_cast<size_t>(m)); }
  // Whether the instruction has any of `ms`.
  bool has_any(std::initializer_list<Mod> ms) const {
    for (Mod m : ms)
      if (has(m))
        return true;
    return false;
  }
};

// Fills Instruction::op, mods and mod_set from its opcode and modifier text
// (the parser does this for every instruction it reads).
void resolve(Instruction &in);

struct RegInfo {
  std::string name; // as declared, e.g. "%r12" (scopes make names repeat)
  TypeName type;    // "u32", "pred", "b64", "f32", ...
  Type ty = Type::unknown; // extension: `type` resolved (types.def)
  SourceLoc loc;
  uint8_t vec = 0;    // extension: 2 or 4 for `.reg .v2/.v4 .T` (0 = scalar)
  uint32_t scope = 0; // extension: Function::scope_parents index (0 = body)
};

// A variable in any state space (module-level or function-level).
struct VarDecl {
  Space space = Space::None;
  TypeName type;
  Type ty = Type::unknown; // extension: `type` resolved (types.def)
  std::string name;
  uint32_t align = 0;         // 0 = natural alignment of the type
  std::vector<uint64_t> dims; // array dimensions; 0 for `[]` (extern)
  bool is_extern = false;
  bool is_visible = false;
  bool is_weak = false;
  // Initializer flattened to scalar elements (integers as bits, floats as
  // their bit pattern, symbol references by name with generic(..) noted).
  struct Init {
    enum class Kind : uint8_t { Int, Float, Symbol } kind = Kind::Int;
    uint64_t bits = 0;
    std::string symbol;
    bool generic = false;
    // Float: written as an integer constant and converted to the type
    // (validation reports it, as ptxas does).
    bool from_integer = false;
  };
  std::vector<Init> init;
  SourceLoc loc;
  // Extensions.
  uint8_t vec = 0;        // 2 or 4 for `.v2/.v4 .T` variables (0 = scalar)
  uint32_t scope = 0;     // for Function::locals: the declaring scope
  bool is_common = false; // `.common`
  // Extension: `.attribute(.managed)` / `.attribute(.unified(a, b))` as
  // written inside the parentheses, e.g. "managed", "unified(1, 2)".
  std::vector<std::string> attributes;
  // `.attribute(.managed)`: a __managed__ variable (one address on host and
  // device under bcusim exec, docs/exec.md).
  bool is_managed = false;

  // Number of scalar elements: the product of the dimensions times the
  // vector width (1 for a scalar; 0 when a dimension is `[]`).
  uint64_t element_count() const;
  // element_count() * type_bytes(type); 0 for `[]`.
  uint64_t size_bytes() const;
};

// Size in bytes of a PTX scalar type name ("u32" -> 4, "b8" -> 1,
// "pred" -> 1 by convention, "f16x2" -> 4); 0 when unknown. The bytes
// column of types.def.
uint32_t type_bytes(std::string_view type);
uint32_t type_bytes(Type type);

struct Param {
  Space space = Space::Param; // .param, or .reg for .func parameters
  TypeName type;
  Type ty = Type::unknown; // extension: `type` resolved (types.def)
  std::string name;
  uint32_t align = 0;
  uint64_t array_size = 0; // for `.b8 x[N]`: N (0 when scalar)
  bool is_ptr = false;     // .ptr attribute
  SourceLoc loc;
  // Extension: `.ptr .global/.shared/.const/.local` (None when not given).
  Space ptr_space = Space::None;
};

// Extension: an indirect-call signature declared in a body as
// `name: .callprototype (.param .b32 _) _ (.param .b64 _);`.
struct CallPrototype {
  std::string name;
  std::vector<Param> returns;
  std::vector<Param> params;
  bool noreturn = false;
  uint32_t scope = 0;
  SourceLoc loc;
};

struct Function {
  bool is_entry = false;  // .entry (kernel) vs .func
  bool is_extern = false; // declaration only (e.g. `.extern .func vprintf`)
  std::string name;
  std::vector<Param> params;
  std::vector<Param> returns;  // .func return parameters
  std::vector<RegInfo> regs;   // all registers, every scope, indexed by
                               // Operand::reg
  std::vector<VarDecl> locals; // .local/.shared/.param declared in the body
  std::vector<Instruction> body;
  std::vector<std::pair<std::string, uint32_t>> labels; // name -> body index

  // Kernel directives (0 = not given).
  std::array<uint32_t, 3> maxntid{};
  std::array<uint32_t, 3> reqntid{};
  uint32_t minnctapersm = 0;
  uint32_t maxnreg = 0;
  bool explicitcluster = false;
  std::array<uint32_t, 3> reqnctapercluster{};
  SourceLoc loc;

  // Extensions.
  bool is_visible = false;
  bool is_weak = false;
  bool noreturn = false;       // .noreturn
  uint32_t maxclusterrank = 0; // .maxclusterrank
  // Extension: each performance-tuning / kernel directive as written
  // ("reqnctapercluster", ...) with its location.
  std::vector<std::pair<std::string, SourceLoc>> directive_locs;
  std::vector<std::string> pragmas; // .pragma strings before the body
  // `.pragma "nounroll";` inside the body: (index of the next instruction,
  // string). Optimization hints only; kept so print() loses nothing.
  std::vector<std::pair<uint32_t, std::string>> body_pragmas;
  std::vector<CallPrototype> prototypes; // .callprototype declarations
  // Scope tree of the body: scope 0 is the body's outermost `{ }`; every
  // nested `{ }` gets the next index and scope_parents[i] is its parent
  // (scope_parents[0] = 0).
  std::vector<uint32_t> scope_parents{0};
};

struct Module {
  std::shared_ptr<const SourceFile> source;
  std::string version;               // "9.0"
  std::string target;                // "sm_90a" (the first target name)
  SourceLoc version_loc, target_loc; // extension: where they are written
  uint32_t address_size = 64;
  std::vector<std::string> targets; // extension: every .target entry
  std::vector<std::string> pragmas; // extension: module-scope .pragma
  // Extension: `.file N "name"` directives (debug line information).
  std::vector<std::pair<uint32_t, std::string>> files;
  // The name of file N, or "" when there is no `.file N`.
  std::string_view file_name(uint32_t n) const;
  std::vector<VarDecl> globals; // module-scope .global/.shared/.const
  std::vector<Function> functions;

  const Function *find_function(const std::string &name) const;
  std::vector<const Function *> kernels() const;
};

// Parses PTX text. Returns nullopt and reports `file:line:col: error:`
// diagnostics (with carets) on any error, including constructs the parser
// does not support.
std::optional<Module> parse(std::shared_ptr<const SourceFile> source,
                            DiagnosticSink &sink);

// Extension: prints a module back as normalized PTX text (one declaration
// or instruction per line; registers and labels whose names repeat across
// scopes are printed as `name$N` with N their index). The output parses.
std::string print(const Module &module);

} // namespace bcusim::ptx
