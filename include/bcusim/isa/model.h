// The loaded, checked and flattened ISA description (src/isa/loader.cpp).
//
// isa.h keeps IsaModel opaque for ordinary users (assemble, decode, print);
// this header exposes it for tools that walk the description itself: the
// exhaustive round-trip tests, `bcusim isa explain`, the encoding listing and
// the documentation generator. Everything here is derived from the
// description files; nothing about BCU opcodes is written in C++.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bcusim/isa/isa.h"

namespace bcusim::isa {

// `__DefBitFieldType Name<width>` and its enumerators (declaration order gives
// 0, 1, 2, ...; the project's extension `NAME = value;` gives an explicit
// value, see docs/isa.md). A type without enumerators is a plain unsigned
// immediate (UImm4, UImm12).
struct BitFieldType {
  struct Enumerator {
    std::string name;
    uint64_t value = 0;
    SourceLoc defined_at;
  };
  std::string name;
  unsigned width = 0;
  SourceLoc defined_at;
  std::vector<Enumerator> enumerators;

  bool enumerated() const { return !enumerators.empty(); }
  const Enumerator *find(std::string_view enumerator) const;
  const Enumerator *find(uint64_t value) const;
  uint64_t max_value() const {
    return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  }

  // Dense value -> enumerator index (-1 = none) for fast decoding; built by
  // the loader for widths up to 16 bits.
  std::vector<int> index_by_value;
};

// One part of a mnemonic template from a `__Syntax` line, e.g. for
// `BAR.RED.redop`: Literal "BAR", Literal "RED", FieldChoice "redop";
// for `BAR.SYNC`: Literal "BAR", FieldValue mode=SYNC.
struct MnemonicPart {
  enum class Kind { Literal, FieldChoice, FieldValue };
  Kind kind = Kind::Literal;
  std::string text;   // the literal or the enumerator as written
  std::string field;  // FieldChoice / FieldValue: the field it sets
  uint64_t value = 0; // FieldValue: the enumerator's value
};

// One syntax line of an optype: `BAR.SYNC SrcBarId, SrcCnt $sched $req ;`.
struct SyntaxForm {
  std::string optype;
  std::string text; // the line as written (comment stripped, trimmed)
  SourceLoc defined_at;
  std::vector<MnemonicPart> parts;
  std::vector<std::string> operand_names;  // as written, `{!}` stripped
  std::vector<std::string> control_tokens; // `$sched`, `$req`, `$wsb`
};

// One flattened opcode: group -> optype -> opcode fields in description order.
struct OpcodeModel {
  std::string name;   // BAR_RED_RIR
  std::string optype; // BAR_RED
  std::string group;  // BCU
  SourceLoc defined_at;
  std::vector<FieldInfo> fields;
  Word128 match;                     // fixed bits' values
  Word128 mask;                      // fixed bits
  Word128 field_mask;                // every bit that belongs to some field
  std::vector<std::string> order;    // Order<...>
  std::vector<std::string> in_list;  // InList<...>
  std::vector<std::string> out_list; // OutList<...>
  std::vector<std::pair<std::string, unsigned>> bitwidth; // Bitwidth<x> = n
  SourceLoc order_at;

  const FieldInfo *field(std::string_view name) const;
  int field_index(std::string_view name) const; // -1 when absent
  bool is_output(std::string_view name) const;
};

// A line of an `__Examples` block, kept so that tests can assemble every
// example the description itself gives.
struct ExampleLine {
  std::string owner; // the __Def* it belongs to
  std::string text;
  SourceLoc at;
};

class IsaModel {
public:
  std::vector<std::shared_ptr<const SourceFile>> sources;
  std::vector<BitFieldType> types;
  std::vector<std::string> optypes; // in description order
  std::vector<OpcodeModel> opcodes; // in description order
  std::vector<SyntaxForm> forms;    // every syntax line, description order
  std::vector<ExampleLine> examples;

  const BitFieldType *type(std::string_view name) const;
  const OpcodeModel *opcode(std::string_view name) const;
  // The opcodes of one optype, description order.
  std::vector<const OpcodeModel *> opcodes_of(std::string_view optype) const;
};

// Encodes field values into a word for `op` (fields absent from `values`
// keep their fixed value, then their default, then 0). Values must fit.
Word128 encode(const OpcodeModel &op,
               const std::vector<std::pair<std::string, uint64_t>> &values);

// The guard predicate operand of every opcode: written `@P0` / `@!P0`.
inline constexpr std::string_view kGuardField = "pg";
// Suffix of a predicate's negation companion field: `pp` and `pp.not`.
inline constexpr std::string_view kNotSuffix = ".not";

} // namespace bcusim::isa
