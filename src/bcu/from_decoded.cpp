// isa::Decoded -> bcu::Instr: the one place where opcode fields get their
// meaning (seed 001 `__OperandInfo`, SPEC-NOTES points 4 and 6).
#include <fmt/format.h>

#include "bcusim/bcu/instr.h"
#include "bcusim/isa/isa.h"

namespace bcusim::bcu {
namespace {

struct Fields {
  const isa::Decoded &d;
  unsigned get(std::string_view name, unsigned fallback) const {
    auto v = d.field(name);
    return v ? static_cast<unsigned>(*v) : fallback;
  }
  bool flag(std::string_view name) const { return get(name, 0) != 0; }
  std::string enumerator(std::string_view name) const {
    return d.enumerator(name).value_or("");
  }
};

bool fail(std::string *why, std::string message) {
  if (why)
    *why = std::move(message);
  return false;
}

} // namespace

std::optional<Instr> from_decoded(const isa::Decoded &d, std::string *why) {
  Fields f{d};
  Instr in;
  in.pg = f.get("pg", kPT);
  in.pg_not = f.flag("pg.not");
  const std::string &opc = d.opcode;

  if (d.optype == "BAR") {
    std::string mode = f.enumerator("mode");
    if (mode == "SYNC")
      in.op = Op::Sync;
    else if (mode == "ARV")
      in.op = Op::Arrive;
    else
      return fail(why, fmt::format("{}: unknown BAR mode '{}'", opc, mode)),
             std::nullopt;
    if (opc == "BAR_I") {
      in.barid = Source::imm(f.get("barid", 0));
      in.count = Source::imm(f.get("cnt", 0));
    } else if (opc == "BAR_RR") { // ra = barrier id, rb = count
      in.barid = Source::reg(f.get("ra", kRZ));
      in.count = Source::reg(f.get("rb", kRZ));
    } else if (opc == "BAR_RRI") { // rb = barrier id, cnt immediate
      in.barid = Source::reg(f.get("rb", kRZ));
      in.count = Source::imm(f.get("cnt", 0));
    } else if (opc == "BAR_RIR") { // barid immediate, rc = count
      in.barid = Source::imm(f.get("barid", 0));
      in.count = Source::reg(f.get("rc", kRZ));
    } else {
      return fail(why, fmt::format("unknown BAR opcode {}", opc)), std::nullopt;
    }
    return in;
  }

  if (d.optype == "BAR_RED") {
    in.op = Op::Red;
    std::string redop = f.enumerator("redop");
    if (redop == "AND")
      in.redop = RedOp::And;
    else if (redop == "OR")
      in.redop = RedOp::Or;
    else if (redop == "POPC")
      in.redop = RedOp::Popc;
    else
      return fail(why, fmt::format("{}: unknown reduction '{}'", opc, redop)),
             std::nullopt;
    in.pp = f.get("pp", kPT);
    in.pp_not = f.flag("pp.not");
    if (opc == "BAR_RED_I") {
      in.barid = Source::imm(f.get("barid", 0));
      in.count = Source::imm(f.get("cnt", 0));
    } else if (opc == "BAR_RED_R") { // rb: id = bits 3:0, count = bits 15:4
      in.barid = Source::reg(f.get("rb", kRZ));
      in.packed = true;
    } else if (opc == "BAR_RED_RRI") {
      in.barid = Source::reg(f.get("rb", kRZ));
      in.count = Source::imm(f.get("cnt", 0));
    } else if (opc == "BAR_RED_RIR") {
      in.barid = Source::imm(f.get("barid", 0));
      in.count = Source::reg(f.get("rc", kRZ));
    } else {
      return fail(why, fmt::format("unknown BAR_RED opcode {}", opc)),
             std::nullopt;
    }
    return in;
  }

  if (d.optype == "B2R_RESULT") {
    in.op = Op::Result;
    in.rd = f.get("rd", kRZ);
    in.pu = f.get("pu", kPT);
    return in;
  }

  if (d.optype == "B2R" || d.optype == "R2B") {
    bool b2r = d.optype == "B2R";
    std::string mode = f.enumerator("mode");
    bool bar_mode = mode == "BAR";
    if (!bar_mode && mode != "WARP")
      return fail(why, fmt::format("{}: unknown mode '{}'", opc, mode)),
             std::nullopt;
    if (b2r) {
      in.op = bar_mode ? Op::B2RBar : Op::B2RWarp;
      in.rd = f.get("rd", kRZ);
    } else {
      in.op = bar_mode ? Op::R2BBar : Op::R2BWarp;
      in.ra = f.get("ra", kRZ);
    }
    if (bar_mode)
      in.barid = Source::imm(f.get("barid", 0));
    return in;
  }

  return fail(why, fmt::format("{} ({}) is not a barrier unit instruction", opc,
                               d.optype)),
         std::nullopt;
}

} // namespace bcusim::bcu
