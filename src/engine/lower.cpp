// Lowering of PTX CTA barriers onto BCU instructions (docs/barriers.md,
// "Lowering"). The BCU text is built here; the words come from the ISA
// library's assembler (the built-in description), and the canonical text
// from its printer, so nothing about the encoding is known here.
#include "bcusim/engine/lower.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bcusim/ptx/ast.h"

namespace bcusim::engine {

namespace {

using K = ptx::Operand::Kind;

bool is_value_reg(const ptx::Function &fn, const ptx::Operand &o) {
  return o.kind == K::Reg && o.reg < fn.regs.size() &&
         fn.regs[o.reg].ty != ptx::Type::pred;
}
bool is_pred_reg(const ptx::Function &fn, const ptx::Operand &o) {
  return o.kind == K::Reg && o.reg < fn.regs.size() &&
         fn.regs[o.reg].ty == ptx::Type::pred;
}

std::string reg_name(const ptx::Function &fn, uint32_t reg) {
  return reg < fn.regs.size() ? fn.regs[reg].name : fmt::format("%{}", reg);
}

std::string hex(uint32_t v) { return fmt::format("{:#x}", v); }

} // namespace

const char *name_of(BarrierOp op) {
  switch (op) {
  case BarrierOp::Sync:
    return "sync";
  case BarrierOp::Arrive:
    return "arrive";
  case BarrierOp::RedPopc:
    return "red.popc";
  case BarrierOp::RedAnd:
    return "red.and";
  case BarrierOp::RedOr:
    return "red.or";
  }
  return "?";
}

bool is_cta_barrier(const ptx::Instruction &in) {
  if (in.op != ptx::Op::bar && in.op != ptx::Op::barrier)
    return false;
  // bar.warp.sync, barrier.cluster.*
  return !in.has_any({ptx::Mod::warp, ptx::Mod::cluster});
}

std::optional<LoweredBarrier> lower_barrier(const ptx::Instruction &in,
                                            const ptx::Function &fn,
                                            DiagnosticSink &sink) {
  LoweredBarrier lb;
  const SourceLoc at = in.stmt_loc.valid() ? in.stmt_loc : in.loc;
  auto fail = [&](SourceLoc loc, std::string msg) {
    sink.error(loc.valid() ? loc : at, std::move(msg));
    return std::nullopt;
  };

  // Modifiers (seeds 000/004 syntax tables): {.cta} then .sync | .arrive |
  // .red.{popc,and,or}, {.aligned} (barrier only; bar.* is always aligned;
  // ptxas also takes it before the operation, barrier.aligned.sync), and the
  // type .u32 (popc) / .pred (and, or).
  using M = ptx::Mod;
  bool is_bar = in.op == ptx::Op::bar;
  bool sync = false, arrive = false, red = false, aligned = false;
  M redop = M::unknown, type = M::unknown;
  for (size_t k = 0; k < in.mods.size(); ++k) {
    const M m = in.mods[k];
    const bool first = !sync && !arrive && !red;
    if (m == M::cta && first)
      continue;
    if (m == M::sync && first)
      sync = true;
    else if (m == M::arrive && first)
      arrive = true;
    else if (m == M::red && first)
      red = true;
    else if (red && redop == M::unknown &&
             (m == M::popc || m == M::and_ || m == M::or_))
      redop = m;
    else if (m == M::aligned && !aligned) // in any position, as ptxas takes it
      aligned = true;
    else if (red && type == M::unknown && (m == M::u32 || m == M::pred))
      type = m;
    else
      return fail(in.loc, fmt::format("unsupported modifier '.{}' in '{}' (a "
                                      "CTA barrier is {}{{.cta}}.sync, "
                                      ".arrive or .red)",
                                      in.modifiers[k], in.opcode, in.opcode));
  }
  if (!sync && !arrive && !red)
    return fail(in.loc,
                fmt::format("'{}' needs .sync, .arrive or .red", in.opcode));
  if (red && redop == M::unknown)
    return fail(in.loc, "barrier reduction needs .popc, .and or .or");
  if (red) {
    const M want = redop == M::popc ? M::u32 : M::pred;
    if (type != want)
      return fail(in.loc, fmt::format(".red.{} needs the type .{}",
                                      ptx::name_of(redop), ptx::name_of(want)));
  }
  lb.op = sync               ? BarrierOp::Sync
          : arrive           ? BarrierOp::Arrive
          : redop == M::popc ? BarrierOp::RedPopc
          : redop == M::and_ ? BarrierOp::RedAnd
                             : BarrierOp::RedOr;
  lb.aligned = is_bar || aligned;

  // Operands: sync a{, b}; arrive a, b; red d, a{, b}, {!}c.
  const auto &o = in.operands;
  size_t first = red ? 1 : 0;
  size_t min_n = red ? 3 : arrive ? 2 : 1;
  size_t max_n = red ? 4 : 2;
  if (o.size() < min_n || o.size() > max_n)
    return fail(at, fmt::format("'{}.{}' takes {} operands, not {}", in.opcode,
                                name_of(lb.op),
                                red      ? "3 or 4 (d, a{, b}, {!}c)"
                                : arrive ? "2 (a, b)"
                                         : "1 or 2 (a{, b})",
                                o.size()));
  auto value_operand = [&](const ptx::Operand &x, const char *what,
                           BarrierOperand &out) {
    out.loc = x.loc;
    if (x.kind == K::Imm) {
      if (x.ival < 0 || x.ival > 0xffffffffll) {
        sink.error(x.loc, fmt::format("{} {} is out of range", what, x.ival));
        return false;
      }
      out.kind = BarrierOperand::Kind::Imm;
      out.value = uint32_t(x.ival);
      out.text = std::to_string(x.ival);
      return true;
    }
    if (is_value_reg(fn, x)) {
      out.kind = BarrierOperand::Kind::Reg;
      out.value = x.reg;
      out.text = reg_name(fn, x.reg);
      return true;
    }
    sink.error(x.loc, fmt::format("{} must be a .u32 register or an "
                                  "immediate",
                                  what));
    return false;
  };
  if (!value_operand(o[first], "barrier id", lb.id))
    return std::nullopt;
  if (lb.id.kind == BarrierOperand::Kind::Imm && lb.id.value > 15)
    return fail(lb.id.loc,
                fmt::format("barrier id {} is outside 0..15", lb.id.value));
  bool has_count = o.size() == min_n + (arrive ? 0 : 1);
  if (has_count) {
    if (!value_operand(o[first + 1], "thread count", lb.count))
      return std::nullopt;
    if (lb.count.kind == BarrierOperand::Kind::Imm) {
      uint32_t n = lb.count.value;
      if (n % 32 != 0)
        return fail(lb.count.loc,
                    fmt::format("thread count {} is not a multiple of the "
                                "warp size (32)",
                                n));
      if (n > 1024)
        return fail(lb.count.loc,
                    fmt::format("thread count {} exceeds the largest CTA "
                                "(1024 threads)",
                                n));
      if (n == 0 && arrive)
        return fail(lb.count.loc, "bar.arrive needs a non-zero thread count");
    }
  }
  if (red) {
    const ptx::Operand &d = o[0];
    bool ok =
        lb.op == BarrierOp::RedPopc ? is_value_reg(fn, d) : is_pred_reg(fn, d);
    if (!ok)
      return fail(d.loc, lb.op == BarrierOp::RedPopc
                             ? "the destination of .red.popc must be a .u32 "
                               "register"
                             : "the destination of .red.and/.or must be a "
                               "predicate register");
    lb.dst.kind = BarrierOperand::Kind::Reg;
    lb.dst.value = d.reg;
    lb.dst.text = reg_name(fn, d.reg);
    lb.dst.loc = d.loc;
    const ptx::Operand &c = o.back();
    if (!is_pred_reg(fn, c))
      return fail(c.loc, "the reduction input must be a predicate register");
    lb.pred.kind = BarrierOperand::Kind::Reg;
    lb.pred.value = c.reg;
    lb.pred.text = reg_name(fn, c.reg);
    lb.pred.loc = c.loc;
    lb.pred_negated = c.negated;
  }

  // The BCU operands (docs/barriers.md "Register mapping").
  bool id_reg = lb.id.kind == BarrierOperand::Kind::Reg;
  bool cnt_reg = lb.count.kind == BarrierOperand::Kind::Reg;
  uint32_t cnt_imm =
      lb.count.kind == BarrierOperand::Kind::Imm ? lb.count.value : 0;
  std::string id_text =
      id_reg ? fmt::format("R{}", kBarIdReg) : hex(lb.id.value);
  std::string cnt_text =
      cnt_reg ? fmt::format("R{}", kBarCountReg) : hex(cnt_imm);
  if (id_reg)
    lb.mapping.push_back(
        fmt::format("R{} = {} (barrier id)", kBarIdReg, lb.id.text));
  if (cnt_reg)
    lb.mapping.push_back(
        fmt::format("R{} = {} (thread count)", kBarCountReg, lb.count.text));
  std::string text;
  if (!red) {
    text =
        fmt::format("BAR.{} {}, {}", sync ? "SYNC" : "ARV", id_text, cnt_text);
  } else {
    std::string pp =
        fmt::format("{}P{}", lb.pred_negated ? "!" : "", kBarInputPred);
    lb.mapping.push_back(
        fmt::format("P{} = {} (reduction input)", kBarInputPred, lb.pred.text));
    std::string op = redop == M::popc   ? "POPC"
                     : redop == M::and_ ? "AND"
                                        : "OR";
    if (id_reg && cnt_reg) {
      // BAR.RED has no (Reg, Reg) form (SPEC-NOTES 5): the packed form,
      // id in bits 3..0 and count in bits 15..4 (SPEC-NOTES 4).
      lb.packed = true;
      lb.mapping.push_back(fmt::format(
          "R{} = ({} & 0xf) | ({} & 0xfff) << 4 (packed id and count)",
          kBarPackedReg, lb.id.text, lb.count.text));
      text = fmt::format("BAR.RED.{} R{}, {}", op, kBarPackedReg, pp);
    } else {
      text = fmt::format("BAR.RED.{} {}, {}, {}", op, id_text, cnt_text, pp);
    }
  }
  std::string result = lb.op == BarrierOp::RedPopc
                           ? fmt::format("BAR.RESULT R{}, PT", kBarResultReg)
                           : fmt::format("BAR.RESULT RZ, P{}", kBarResultPred);
  if (red)
    lb.mapping.push_back(
        lb.op == BarrierOp::RedPopc
            ? fmt::format("R{} = {} (destination)", kBarResultReg, lb.dst.text)
            : fmt::format("P{} = {} (destination)", kBarResultPred,
                          lb.dst.text));

  const auto &model = *isa::builtin();
  std::vector<std::string> texts{text};
  if (red)
    texts.push_back(result);
  for (const auto &t : texts) {
    DiagnosticSink asm_sink;
    auto decoded = isa::assemble_one(model, t, SourceLoc{}, asm_sink);
    if (!decoded) {
      std::string why = asm_sink.all().empty() ? std::string("no encoding")
                                               : asm_sink.all()[0].message;
      return fail(at, fmt::format("cannot lower to '{}': {}", t, why));
    }
    lb.instrs.push_back({isa::print(model, *decoded), decoded->word});
  }
  return lb;
}

bool lower_listing(const ptx::Module &module, const std::string &kernel,
                   bool json, std::string &out, DiagnosticSink &sink) {
  const ptx::Function *only = nullptr;
  if (!kernel.empty()) {
    only = module.find_function(kernel);
    if (!only || !only->is_entry) {
      std::string names;
      for (const auto *k : module.kernels())
        names += (names.empty() ? "" : ", ") + k->name;
      Diagnostic &d = sink.error(
          SourceLoc{}, fmt::format("no kernel named '{}' in {}", kernel,
                                   module.source ? module.source->name()
                                                 : std::string("the module")));
      DiagnosticSink::note(d, SourceLoc{},
                           names.empty() ? std::string("the module has no "
                                                       "kernels")
                                         : "kernels: " + names);
      return false;
    }
  }
  nlohmann::json jfuncs = nlohmann::json::array();
  std::string text;
  bool ok = true;
  for (const auto &fn : module.functions) {
    // Declarations without a body (`.extern .func vprintf`) hold no code.
    if ((only && &fn != only) || fn.is_extern)
      continue;
    nlohmann::json jbars = nlohmann::json::array();
    std::string ftext;
    for (const auto &in : fn.body) {
      if (!is_cta_barrier(in))
        continue;
      auto lb = lower_barrier(in, fn, sink);
      if (!lb) {
        ok = false;
        continue;
      }
      const SourceLoc &loc = in.loc;
      std::string file = loc.file ? loc.file->name() : std::string("-");
      std::string src(loc.file ? loc.file->line(loc.line) : "");
      size_t b = src.find_first_not_of(" \t");
      src = b == std::string::npos ? std::string() : src.substr(b);
      ftext += fmt::format("{}:{}: {}\n", file, loc.line, src);
      for (const auto &m : lb->mapping)
        ftext += fmt::format("  ; {}\n", m);
      for (const auto &li : lb->instrs)
        ftext += fmt::format("  {}  {}\n", li.word.to_hex(), li.text);
      nlohmann::json jb;
      jb["file"] = file;
      jb["line"] = loc.line;
      jb["ptx"] = src;
      jb["op"] = name_of(lb->op);
      jb["aligned"] = lb->aligned;
      jb["mapping"] = lb->mapping;
      nlohmann::json ji = nlohmann::json::array();
      for (const auto &li : lb->instrs)
        ji.push_back({{"text", li.text}, {"hex", li.word.to_hex()}});
      jb["bcu"] = ji;
      jbars.push_back(std::move(jb));
    }
    text += fmt::format("{} {}: {} barrier instruction{}\n",
                        fn.is_entry ? "kernel" : "function", fn.name,
                        jbars.size(), jbars.size() == 1 ? "" : "s");
    text += ftext;
    jfuncs.push_back({{"name", fn.name},
                      {"kind", fn.is_entry ? "kernel" : "function"},
                      {"barriers", std::move(jbars)}});
  }
  if (!ok)
    return false;
  out = json ? nlohmann::json{{"functions", std::move(jfuncs)}}.dump(2) + "\n"
             : text;
  return true;
}

} // namespace bcusim::engine
