#include "bcusim/isa/tools.h"

#include <algorithm>

#include <fmt/format.h>

#include "internal.h"
#include "rules.h"

namespace bcusim::isa {

static bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

std::vector<WordAt> read_hex_words(const SourceFile &file,
                                   DiagnosticSink &sink) {
  std::vector<WordAt> out;
  size_t index = 0;
  for (uint32_t ln = 1; ln <= file.line_count(); ++ln) {
    std::string_view line = file.line(ln);
    size_t cut = line.find("//");
    std::string_view code =
        cut == std::string_view::npos ? line : line.substr(0, cut);
    size_t b = 0;
    while (b < code.size() && is_blank(code[b]))
      ++b;
    size_t e = code.size();
    while (e > b && is_blank(code[e - 1]))
      --e;
    if (b == e)
      continue;
    std::string_view text = code.substr(b, e - b);
    SourceLoc at{&file, ln, static_cast<uint32_t>(b + 1),
                 static_cast<uint32_t>(text.size())};
    auto w = Word128::from_hex(text);
    if (!w) {
      sink.error(at, fmt::format("expected one instruction word of exactly "
                                 "32 hex digits (bit 127 first), found '{}'",
                                 text));
      ++index;
      continue;
    }
    out.push_back({*w, index++, at, 0});
  }
  return out;
}

std::optional<std::vector<WordAt>> read_bin_words(std::string_view bytes,
                                                  std::string_view name,
                                                  DiagnosticSink &sink) {
  if (bytes.size() % 16 != 0) {
    sink.error({}, fmt::format("{}: {} bytes is not a whole number of 16-byte "
                               "instruction words ({} bytes left over at byte "
                               "offset {})",
                               name, bytes.size(), bytes.size() % 16,
                               bytes.size() - bytes.size() % 16));
    return std::nullopt;
  }
  std::vector<WordAt> out;
  for (size_t off = 0; off < bytes.size(); off += 16) {
    Word128 w;
    for (int i = 7; i >= 0; --i) {
      w.lo = (w.lo << 8) | static_cast<unsigned char>(bytes[off + i]);
      w.hi = (w.hi << 8) | static_cast<unsigned char>(bytes[off + 8 + i]);
    }
    out.push_back({w, off / 16, {}, off});
  }
  return out;
}

std::string to_bytes(const Word128 &word) {
  std::string out(16, '\0');
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<char>((word.lo >> (8 * i)) & 0xFF);
    out[8 + i] = static_cast<char>((word.hi >> (8 * i)) & 0xFF);
  }
  return out;
}

std::optional<std::string> check_operand_rules(const IsaModel &model,
                                               const Decoded &inst) {
  const OpcodeModel *op = model.opcode(inst.opcode);
  if (!op)
    return std::nullopt;
  rules::FieldValues values;
  for (const auto &[f, v] : inst.fields)
    values.push_back({f.name, v});
  if (auto bad = rules::check(model, *op, values, false))
    return bad->message;
  return std::nullopt;
}

std::optional<Decoded> disassemble_word(const IsaModel &model,
                                        const Word128 &word, std::string &why) {
  auto d = decode(model, word, &why);
  if (!d)
    return std::nullopt;
  if (auto bad = check_operand_rules(model, *d)) {
    why = fmt::format("decodes as {} but breaks a rule of the spec: {}",
                      print(model, *d), *bad);
    return std::nullopt;
  }
  return d;
}

std::string field_role(const IsaModel &model, const Decoded &inst, size_t i) {
  const FieldInfo &f = inst.fields[i].first;
  uint64_t v = inst.fields[i].second;
  if (f.fixed)
    return "fixed";
  const OpcodeModel *op = model.opcode(inst.opcode);
  if (op) {
    for (const auto &form : model.forms)
      if (form.optype == op->optype)
        for (const auto &p : form.parts)
          if (p.kind != MnemonicPart::Kind::Literal && p.field == f.name)
            return "modifier";
  }
  if (f.deflt && *f.deflt == v)
    return "default";
  return "operand";
}

std::string field_table(const IsaModel &model, const Decoded &inst,
                        std::string_view indent, bool with_source) {
  size_t name_w = 4, bits_w = 4, value_w = 5, enum_w = 4;
  std::vector<std::string> bits, values, enums;
  for (size_t i = 0; i < inst.fields.size(); ++i) {
    const auto &[f, v] = inst.fields[i];
    bits.push_back(f.width == 1
                       ? fmt::format("[{}]", f.lsb)
                       : fmt::format("[{}:{}]", f.lsb + f.width - 1, f.lsb));
    values.push_back(fmt::format("{:#x}", v));
    enums.push_back(i < inst.enumerator_names.size() ? inst.enumerator_names[i]
                                                     : std::string());
    name_w = std::max(name_w, f.name.size());
    bits_w = std::max(bits_w, bits.back().size());
    value_w = std::max(value_w, values.back().size());
    enum_w = std::max(enum_w, enums.back().size());
  }
  std::string out =
      fmt::format("{}{:<{}}  {:<{}}  {:<{}}  {:<{}}  {}", indent, "field",
                  name_w, "bits", bits_w, "value", value_w, "name", enum_w,
                  with_source ? "role      defined at" : "role");
  out += "\n";
  for (size_t i = 0; i < inst.fields.size(); ++i) {
    const FieldInfo &f = inst.fields[i].first;
    std::string line = fmt::format(
        "{}{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<8}", indent, f.name, name_w,
        bits[i], bits_w, values[i], value_w, enums[i].empty() ? "-" : enums[i],
        enum_w, field_role(model, inst, i));
    if (with_source && f.defined_at.valid()) {
      std::string_view src = f.defined_at.file->line(f.defined_at.line);
      while (!src.empty() && is_blank(src.front()))
        src.remove_prefix(1);
      line += fmt::format("  {}:{}: {}", f.defined_at.file->name(),
                          f.defined_at.line, src);
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string explain(const IsaModel &model, const Decoded &inst) {
  std::string out;
  const OpcodeModel *op = model.opcode(inst.opcode);
  out += fmt::format("opcode  {} (optype {}", inst.opcode, inst.optype);
  if (op && !op->group.empty())
    out += fmt::format(", group {}", op->group);
  out += ")";
  if (op && op->defined_at.valid())
    out += fmt::format("  defined at {}:{}", op->defined_at.file->name(),
                       op->defined_at.line);
  out += "\n";
  out += fmt::format("text    {}\n", print(model, inst));
  out += fmt::format("word    {}\n", inst.word.to_hex());
  out += field_table(model, inst, "", true);
  return out;
}

} // namespace bcusim::isa
