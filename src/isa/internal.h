// Helpers shared by the ISA sources (not part of the public API).
#pragma once

#include <string>
#include <vector>

#include "bcusim/isa/model.h"

namespace bcusim::isa {

// Fills a Decoded for `op` from `word` (no checks).
Decoded make_decoded(const IsaModel &model, const OpcodeModel &op,
                     const Word128 &word);
// The opcode whose fixed bits match, or nullptr.
const OpcodeModel *match_opcode(const IsaModel &model, const Word128 &word);
// The syntax form whose mnemonic fits the instruction's field values.
const SyntaxForm *form_for(const IsaModel &model, const OpcodeModel &op,
                           const Decoded &inst);
// Order<...> without the guard predicate: the written operands.
std::vector<std::string> operand_fields(const OpcodeModel &op);
// `pp` -> `pp.not`.
std::string not_field(std::string_view field);

} // namespace bcusim::isa
