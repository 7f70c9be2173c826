// Public API of the ISA tools (src/isa): the description-language loader,
// the flattened per-opcode model, encoder/decoder, assembler and printer.
//
// One source of truth: everything here is driven by the loaded description
// (the seed 001 file plus isa/bcu-codes.isa, the table of codes the spec does
// not give). Nothing about BCU opcodes is hard-coded in the encoder, decoder,
// parser or printer.
//
// This header is the contract other parts (bcu/, engine/, tools/) program
// against. Extend it; do not change what is declared here.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bcusim/support/diagnostics.h"

namespace bcusim::isa {

// A 128-bit instruction word; bit 0 is bit 0 of `lo`.
struct Word128 {
  uint64_t lo = 0;
  uint64_t hi = 0;

  uint64_t bits(unsigned lsb, unsigned width) const; // width <= 64
  void set_bits(unsigned lsb, unsigned width, uint64_t value);
  // 32 hex digits, most significant first (bit 127 ... bit 0), lower case.
  std::string to_hex() const;
  // Parses exactly 32 hex digits (an optional 0x prefix is accepted).
  static std::optional<Word128> from_hex(std::string_view text);
  friend bool operator==(const Word128 &, const Word128 &) = default;
};

class IsaModel; // opaque: the loaded, checked, flattened description

// One operand field of a flattened opcode.
struct FieldInfo {
  std::string name; // "barid", "cnt", "rb", "pg", "pg.not", "mode", ...
  std::string type; // bit-field type: "UImm4", "Reg", "Pred", "BARMode"...
  unsigned lsb = 0;
  unsigned width = 0;
  std::optional<uint64_t> fixed; // `==` value (part of the match)
  std::optional<uint64_t> deflt; // `=` default
  SourceLoc defined_at;          // the description line that defines it
};

// A decoded (or assembled) instruction: the opcode it matched and the value
// of every field of that opcode.
struct Decoded {
  std::string opcode; // flattened opcode name, e.g. "BAR_RED_RIR"
  std::string optype; // e.g. "BAR_RED"
  Word128 word;
  // All fields of the opcode, fixed ones included, in description order.
  std::vector<std::pair<FieldInfo, uint64_t>> fields;
  // Parallel to `fields`: the enumerator name of each field's value, "" for
  // immediates (filled by decode/assemble so that enumerator() needs no model).
  std::vector<std::string> enumerator_names;

  // Value of a field by name; nullopt when the opcode has no such field.
  std::optional<uint64_t> field(std::string_view name) const;
  // For enumerated fields (BARMode, BARREDOp, B2RMode, ...): the enumerator
  // name of the field's value, e.g. "SYNC"; nullopt if not enumerated.
  std::optional<std::string> enumerator(std::string_view name) const;
};

// Loads description files (the spec's language). Returns nullptr and reports
// `file:line:col: error:` diagnostics into `sink` on any syntax or check
// error. `paths` are loaded in order into one model.
std::shared_ptr<const IsaModel> load(const std::vector<std::string> &paths,
                                     DiagnosticSink &sink);
// Same, from already-read sources (used by tests and the fuzzer).
std::shared_ptr<const IsaModel>
load_sources(const std::vector<std::shared_ptr<const SourceFile>> &sources,
             DiagnosticSink &sink);
// The built-in model: the project's description (isa/bcu.isa) plus the
// assigned-codes table (isa/bcu-codes.isa), embedded into the library at
// build time. Never fails.
std::shared_ptr<const IsaModel> builtin();

// Decodes a word. Returns nullopt and sets `why` when it matches no opcode
// or sets bits outside every field of the matched opcode.
std::optional<Decoded> decode(const IsaModel &model, const Word128 &word,
                              std::string *why = nullptr);
// Canonical assembly text of a decoded instruction, e.g.
// "@!P0 BAR.RED.AND 0x1, R5, !P1 ;" (the exact canonical form is documented
// in docs/isa.md).
std::string print(const IsaModel &model, const Decoded &inst);

// Assembles one instruction (a statement without the trailing newline;
// comments and the `;` terminator allowed). On error reports into `sink` at
// `loc` (line/col of the statement start in its file) and returns nullopt.
std::optional<Decoded> assemble_one(const IsaModel &model,
                                    std::string_view text, SourceLoc loc,
                                    DiagnosticSink &sink);
// Assembles a whole file: one instruction per statement.
std::optional<std::vector<Decoded>>
assemble(const IsaModel &model, const SourceFile &file, DiagnosticSink &sink);

// Register numbering (assigned by the project, see docs/isa.md).
constexpr unsigned kRegZero = 255; // RZ
constexpr unsigned kPredTrue = 7;  // PT

} // namespace bcusim::isa
