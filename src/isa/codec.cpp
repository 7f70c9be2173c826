// Decoder and canonical printer, both driven by the flattened description.
#include <fmt/format.h>

#include "bcusim/isa/model.h"
#include "internal.h"

namespace bcusim::isa {

std::optional<uint64_t> Decoded::field(std::string_view name) const {
  for (const auto &[info, value] : fields)
    if (info.name == name)
      return value;
  return std::nullopt;
}

std::optional<std::string> Decoded::enumerator(std::string_view name) const {
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].first.name == name) {
      if (i < enumerator_names.size() && !enumerator_names[i].empty())
        return enumerator_names[i];
      return std::nullopt;
    }
  return std::nullopt;
}

Decoded make_decoded(const IsaModel &model, const OpcodeModel &op,
                     const Word128 &word) {
  Decoded d;
  d.opcode = op.name;
  d.optype = op.optype;
  d.word = word;
  d.fields.reserve(op.fields.size());
  d.enumerator_names.reserve(op.fields.size());
  for (const auto &f : op.fields) {
    uint64_t v = word.bits(f.lsb, f.width);
    d.fields.emplace_back(f, v);
    const BitFieldType *t = model.type(f.type);
    const BitFieldType::Enumerator *e = t ? t->find(v) : nullptr;
    d.enumerator_names.push_back(e ? e->name : std::string());
  }
  return d;
}

const OpcodeModel *match_opcode(const IsaModel &model, const Word128 &word) {
  for (const auto &op : model.opcodes)
    if ((word.lo & op.mask.lo) == op.match.lo &&
        (word.hi & op.mask.hi) == op.match.hi)
      return &op;
  return nullptr;
}

static std::string bit_list(const Word128 &bits) {
  std::vector<std::string> ranges;
  int start = -1;
  for (int b = 0; b <= 128; ++b) {
    bool set = b < 128 && bits.bits(static_cast<unsigned>(b), 1);
    if (set && start < 0)
      start = b;
    if (!set && start >= 0) {
      ranges.push_back(start == b - 1 ? fmt::format("{}", start)
                                      : fmt::format("{}..{}", b - 1, start));
      start = -1;
    }
  }
  std::string out;
  for (size_t i = ranges.size(); i-- > 0;) {
    out += ranges[i];
    if (i)
      out += ", ";
  }
  return out;
}

std::optional<Decoded> decode(const IsaModel &model, const Word128 &word,
                              std::string *why) {
  const OpcodeModel *op = match_opcode(model, word);
  if (!op) {
    if (why)
      *why = "matches no opcode (no opcode's fixed bits agree with it)";
    return std::nullopt;
  }
  Word128 stray{word.lo & ~op->field_mask.lo, word.hi & ~op->field_mask.hi};
  if (stray.lo || stray.hi) {
    if (why)
      *why = fmt::format("matches {} but sets bit(s) {} outside every field "
                         "of {}",
                         op->name, bit_list(stray), op->name);
    return std::nullopt;
  }
  for (const auto &f : op->fields) {
    const BitFieldType *t = model.type(f.type);
    if (!t || !t->enumerated())
      continue;
    uint64_t v = word.bits(f.lsb, f.width);
    if (!t->find(v)) {
      if (why)
        *why = fmt::format("matches {} but its field {} {} = {:#x} is not an "
                           "enumerator of {}",
                           op->name, f.name,
                           fmt::format("[{}:{}]", f.lsb + f.width - 1, f.lsb),
                           v, t->name);
      return std::nullopt;
    }
  }
  return make_decoded(model, *op, word);
}

const SyntaxForm *form_for(const IsaModel &model, const OpcodeModel &op,
                           const Decoded &inst) {
  for (const auto &form : model.forms) {
    if (form.optype != op.optype)
      continue;
    bool ok = true;
    for (const auto &p : form.parts) {
      if (p.kind == MnemonicPart::Kind::FieldValue) {
        auto v = inst.field(p.field);
        ok = ok && v && *v == p.value;
      } else if (p.kind == MnemonicPart::Kind::FieldChoice) {
        ok = ok && inst.field(p.field).has_value();
      }
    }
    if (ok)
      return &form;
  }
  return nullptr;
}

std::vector<std::string> operand_fields(const OpcodeModel &op) {
  std::vector<std::string> out;
  for (const auto &n : op.order)
    if (n != kGuardField)
      out.push_back(n);
  return out;
}

std::string not_field(std::string_view field) {
  return std::string(field) + std::string(kNotSuffix);
}

static std::string name_of(const IsaModel &model, const FieldInfo &f,
                           uint64_t value) {
  const BitFieldType *t = model.type(f.type);
  if (t && t->enumerated()) {
    if (const auto *e = t->find(value))
      return e->name;
  }
  return fmt::format("{:#x}", value);
}

std::string print(const IsaModel &model, const Decoded &inst) {
  const OpcodeModel *op = model.opcode(inst.opcode);
  if (!op)
    return fmt::format("// unknown opcode {}", inst.opcode);
  std::string out;
  // Guard: printed unless it is the default (@PT, not negated).
  if (const FieldInfo *pg = op->field(kGuardField)) {
    uint64_t g = inst.field(kGuardField).value_or(0);
    uint64_t neg = inst.field(not_field(kGuardField)).value_or(0);
    const FieldInfo *pgn = op->field(not_field(kGuardField));
    bool is_default =
        pg->deflt && g == *pg->deflt && (!pgn || neg == pgn->deflt.value_or(0));
    if (!is_default)
      out += fmt::format("@{}{} ", neg ? "!" : "", name_of(model, *pg, g));
  }
  if (const SyntaxForm *form = form_for(model, *op, inst)) {
    bool first = true;
    for (const auto &p : form->parts) {
      if (!first)
        out += '.';
      first = false;
      if (p.kind == MnemonicPart::Kind::FieldChoice) {
        const FieldInfo *f = op->field(p.field);
        out += f ? name_of(model, *f, inst.field(p.field).value_or(0)) : p.text;
      } else {
        out += p.text;
      }
    }
  } else {
    out += op->optype;
  }
  bool first = true;
  for (const auto &name : operand_fields(*op)) {
    const FieldInfo *f = op->field(name);
    if (!f)
      continue;
    out += first ? " " : ", ";
    first = false;
    if (inst.field(not_field(name)).value_or(0))
      out += '!';
    out += name_of(model, *f, inst.field(name).value_or(0));
  }
  out += ';';
  return out;
}

} // namespace bcusim::isa
