// Names and readable text of semantic BCU instructions.
#include "bcusim/bcu/instr.h"

#include <fmt/format.h>

namespace bcusim::bcu {
namespace {

std::string reg_text(unsigned r) {
  return r == kRZ ? std::string("RZ") : fmt::format("R{}", r);
}
std::string pred_text(unsigned p, bool negated) {
  return fmt::format("{}{}", negated ? "!" : "",
                     p == kPT ? std::string("PT") : fmt::format("P{}", p));
}
std::string source_text(const Source &s) {
  switch (s.kind) {
  case Source::Kind::None:
    return "";
  case Source::Kind::Imm:
    return fmt::format("{:#x}", s.value);
  case Source::Kind::Reg:
    return reg_text(s.value);
  }
  return "";
}

} // namespace

std::string_view name(Op op) {
  switch (op) {
  case Op::Sync:
    return "BAR.SYNC";
  case Op::Arrive:
    return "BAR.ARV";
  case Op::Red:
    return "BAR.RED";
  case Op::Result:
    return "BAR.RESULT";
  case Op::B2RBar:
    return "B2R.BAR";
  case Op::B2RWarp:
    return "B2R.WARP";
  case Op::R2BBar:
    return "R2B.BAR";
  case Op::R2BWarp:
    return "R2B.WARP";
  }
  return "?";
}

std::string_view name(RedOp redop) {
  switch (redop) {
  case RedOp::And:
    return "AND";
  case RedOp::Or:
    return "OR";
  case RedOp::Popc:
    return "POPC";
  }
  return "?";
}

std::string to_string(const Instr &in) {
  std::string out;
  if (!(in.pg == kPT && !in.pg_not))
    out += "@" + pred_text(in.pg, in.pg_not) + " ";
  switch (in.op) {
  case Op::Sync:
  case Op::Arrive:
    out += fmt::format("{} {}", name(in.op), source_text(in.barid));
    if (in.count.kind != Source::Kind::None)
      out += ", " + source_text(in.count);
    break;
  case Op::Red:
    out += fmt::format("BAR.RED.{} {}", name(in.redop), source_text(in.barid));
    if (!in.packed && in.count.kind != Source::Kind::None)
      out += ", " + source_text(in.count);
    out += ", " + pred_text(in.pp, in.pp_not);
    break;
  case Op::Result:
    out += fmt::format("BAR.RESULT {}, {}", reg_text(in.rd),
                       pred_text(in.pu, false));
    break;
  case Op::B2RBar:
    out +=
        fmt::format("B2R.BAR {}, {}", reg_text(in.rd), source_text(in.barid));
    break;
  case Op::B2RWarp:
    out += fmt::format("B2R.WARP {}", reg_text(in.rd));
    break;
  case Op::R2BBar:
    out +=
        fmt::format("R2B.BAR {}, {}", source_text(in.barid), reg_text(in.ra));
    break;
  case Op::R2BWarp:
    out += fmt::format("R2B.WARP {}", reg_text(in.ra));
    break;
  }
  return out;
}

} // namespace bcusim::bcu
