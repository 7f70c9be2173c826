#include "rules.h"

#include <fmt/format.h>

namespace bcusim::isa::rules {

namespace {

std::optional<uint64_t> value_of(const FieldValues &values,
                                 std::string_view name) {
  for (const auto &[n, v] : values)
    if (n == name)
      return v;
  return std::nullopt;
}

// Is field `name` of `op` set to the enumerator `enumerator`?
bool field_is(const IsaModel &model, const OpcodeModel &op,
              const FieldValues &values, std::string_view name,
              std::string_view enumerator) {
  const FieldInfo *f = op.field(name);
  if (!f)
    return false;
  const BitFieldType *t = model.type(f->type);
  if (!t)
    return false;
  const auto *e = t->find(enumerator);
  auto v = value_of(values, name);
  return e && v && *v == e->value;
}

// 001 calls the count SrcCnt and encodes an immediate count in `cnt`, the
// barrier id UImm4BarId / SrcBarId in `barid`, and the mode in `mode`.
constexpr std::string_view kCount = "cnt";
constexpr std::string_view kBarrierId = "barid";
constexpr std::string_view kMode = "mode";

} // namespace

std::string_view canonical_mnemonic(std::string_view written) {
  if (written == "B2R.RESULT")
    return "BAR.RESULT";
  return written;
}

std::optional<uint64_t> omitted_modifier(const IsaModel &model,
                                         const OpcodeModel &op,
                                         const FieldInfo &field) {
  if (field.deflt)
    return field.deflt;
  // SPEC-NOTES 7: B2RMode (B2R, R2B) defaults to BAR although BAR is its
  // second enumerator; 001's examples: `B2R R0, 0x0; // 默认为BAR模式`.
  (void)op;
  const BitFieldType *t = model.type(field.type);
  if (t && field.name == kMode && t->name == "B2RMode")
    if (const auto *e = t->find("BAR"))
      return e->value;
  return std::nullopt;
}

std::optional<uint64_t> omitted_operand(const IsaModel &model,
                                        const OpcodeModel &op,
                                        const FieldInfo &field,
                                        const FieldValues &values) {
  const BitFieldType *t = model.type(field.type);
  if (!t)
    return std::nullopt;
  if (field.name == kCount && !t->enumerated())
    return 0;
  if (field.name == kBarrierId && !t->enumerated() &&
      field_is(model, op, values, kMode, "WARP"))
    return 0;
  if (op.is_output(field.name) && t->name == "Pred")
    if (const auto *pt = t->find("PT"))
      return pt->value;
  return std::nullopt;
}

std::optional<Violation> check(const IsaModel &model, const OpcodeModel &op,
                               const FieldValues &values,
                               bool cnt_was_omitted) {
  const FieldInfo *cnt = op.field(kCount);
  if (!cnt)
    return std::nullopt;
  auto v = value_of(values, kCount);
  if (!v)
    return std::nullopt;
  // 001 BAR __OperandInfo: "BAR.ARV 指令中，要求SrcCnt > 0".
  if (*v == 0 && field_is(model, op, values, kMode, "ARV"))
    return Violation{std::string(kCount),
                     cnt_was_omitted
                         ? "BAR.ARV requires a count (SrcCnt > 0)"
                         : "BAR.ARV requires a non-zero count (SrcCnt > 0)"};
  // 001 __OperandInfo of BAR and BAR_RED: SrcCnt "必须是32的倍数".
  if (*v % 32 != 0)
    return Violation{
        std::string(kCount),
        fmt::format("count {:#x} ({}) is not a multiple of 32", *v, *v)};
  return std::nullopt;
}

} // namespace bcusim::isa::rules
