// The pieces of `bcusim asm / disasm / isa explain` that are not the CLI:
// word file formats, the annotated listing and the field explanation.
// Formats are documented in docs/isa.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bcusim/isa/model.h"

namespace bcusim::isa {

// An assembled statement and where it was written.
struct AssembledAt {
  Decoded inst;
  SourceLoc at;     // the statement (line, column, length)
  std::string text; // the statement as written, comment and `;` removed
};
// Like assemble(), keeping each statement's location (for listings).
std::optional<std::vector<AssembledAt>> assemble_located(const IsaModel &model,
                                                         const SourceFile &file,
                                                         DiagnosticSink &sink);

// A word read from a hex or binary file, with where it came from.
struct WordAt {
  Word128 word;
  size_t index = 0;       // 0-based position in the file
  SourceLoc at;           // hex files: the word's text; binary files: invalid
  size_t byte_offset = 0; // binary files
};

// Hex file: one word per line, exactly 32 hex digits (bit 127 first, an
// optional 0x prefix), blank lines and `//` comments allowed. Malformed
// lines are reported into `sink` (and count as a word index); the words of
// the well-formed lines are returned.
std::vector<WordAt> read_hex_words(const SourceFile &file,
                                   DiagnosticSink &sink);
// Binary file: 16 bytes per word, little-endian (byte 0 = bits 7..0).
std::optional<std::vector<WordAt>> read_bin_words(std::string_view bytes,
                                                  std::string_view name,
                                                  DiagnosticSink &sink);
// The 16 bytes of a word, little-endian.
std::string to_bytes(const Word128 &word);

// The operand rules of 001's prose (count a multiple of 32, BAR.ARV count >
// 0) for an already decoded word; a message when violated. The assembler
// applies the same rules.
std::optional<std::string> check_operand_rules(const IsaModel &model,
                                               const Decoded &inst);

// Decodes and checks one word: on failure `why` says what is wrong.
std::optional<Decoded> disassemble_word(const IsaModel &model,
                                        const Word128 &word, std::string &why);

// How a field of an instruction got its value, for explain and listings:
// "fixed", "default" (equal to its `=` default), "modifier" (set by the
// mnemonic), "operand".
std::string field_role(const IsaModel &model, const Decoded &inst,
                       size_t field_index);

// One line per field: name, bits [msb:lsb], value, enumerator, role, and
// (with_source) the description line that defines it.
std::string field_table(const IsaModel &model, const Decoded &inst,
                        std::string_view indent, bool with_source);

// `bcusim isa explain`: opcode, word, canonical text and the field table.
std::string explain(const IsaModel &model, const Decoded &inst);

} // namespace bcusim::isa
