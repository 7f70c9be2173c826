// The few rules of 001 that its prose states but its description language
// cannot express, and the resolutions of SPEC-NOTES that touch the syntax.
// Everything else (fields, variants, operand kinds, mnemonics) comes from the
// loaded description. Each rule names the field or enumerator it concerns,
// so a description that renames them turns the rule off rather than
// misapplying it. docs/isa.md lists them ("Rules from the prose").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bcusim/isa/model.h"

namespace bcusim::isa::rules {

using FieldValues = std::vector<std::pair<std::string, uint64_t>>;

// SPEC-NOTES 3: `B2R.RESULT` (group examples) is another spelling of
// `BAR.RESULT` (the syntax line); returns the canonical mnemonic.
std::string_view canonical_mnemonic(std::string_view written);

// SPEC-NOTES 7: `B2R`/`R2B` without a mode mean `.BAR`. Returns the value of
// a modifier field left out of the mnemonic, or nullopt when it is required.
std::optional<uint64_t> omitted_modifier(const IsaModel &model,
                                         const OpcodeModel &op,
                                         const FieldInfo &field);

// Operands the spec's examples leave out (SPEC-NOTES 6, 7):
//  - cnt (SrcCnt): 0, "all live warps" (`BAR.SYNC 0x0`, `BAR.SYNC R4`,
//    `BAR.RED.OR 0x0, P0`);
//  - barid in .WARP mode: 0, the barrier id is ignored (`B2R.WARP R4`,
//    `R2B.WARP R4`);
//  - an output predicate: PT, the discard target (`B2R.RESULT R4`, and
//    `BAR.RESULT R0, PT` "舍弃谓词输出").
// Returns the value the omitted operand takes, or nullopt if it is required.
std::optional<uint64_t> omitted_operand(const IsaModel &model,
                                        const OpcodeModel &op,
                                        const FieldInfo &field,
                                        const FieldValues &values);

// A violation of an operand rule from the prose of 001, for an instruction
// whose fields are `values`: cnt must be a multiple of 32; BAR.ARV requires
// cnt > 0. `field` names the offending field.
struct Violation {
  std::string field;
  std::string message;
};
std::optional<Violation> check(const IsaModel &model, const OpcodeModel &op,
                               const FieldValues &values, bool cnt_was_omitted);

} // namespace bcusim::isa::rules
