// ptx::print: the module back as normalized PTX text (for `bcusim ptx dump`
// and round-trip tests). Scopes are flattened, so names that repeat across
// scopes (inline-asm registers, call-sequence `.param`s, labels) are printed
// as `name$N`, N being the register / local / label index.
#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "bcusim/ptx/ast.h"

namespace bcusim::ptx {

namespace {

const char *space_name(Space s) {
  switch (s) {
  case Space::Const:
    return "const";
  case Space::Global:
    return "global";
  case Space::Local:
    return "local";
  case Space::Param:
    return "param";
  case Space::Shared:
    return "shared";
  case Space::SharedCluster:
    return "shared::cluster";
  case Space::Reg:
    return "reg";
  case Space::Sreg:
    return "sreg";
  case Space::Tex:
    return "tex";
  case Space::None:
    break;
  }
  return "none";
}

// Names made unique: a name that occurs more than once gets `$index`.
std::vector<std::string> unique_names(const std::vector<std::string> &names) {
  std::unordered_map<std::string, int> count;
  for (const auto &n : names)
    ++count[n];
  std::vector<std::string> out;
  out.reserve(names.size());
  for (size_t i = 0; i < names.size(); ++i)
    out.push_back(count[names[i]] > 1 ? fmt::format("{}${}", names[i], i)
                                      : names[i]);
  return out;
}

struct FunctionNames {
  std::vector<std::string> regs, locals, labels;
  std::unordered_map<uint32_t, std::string> label_at; // body index -> name
};

std::string format_float_bits(uint64_t bits, bool f32) {
  return f32 ? fmt::format("0f{:08X}", static_cast<uint32_t>(bits))
             : fmt::format("0d{:016X}", bits);
}

void print_operand(std::string &out, const Operand &o, const Function &f,
                   const FunctionNames &n) {
  switch (o.kind) {
  case Operand::Kind::Reg:
    if (o.negated)
      out += '!';
    out += o.reg < n.regs.size() ? n.regs[o.reg] : "%<bad>";
    return;
  case Operand::Kind::Special:
    out += o.name;
    return;
  case Operand::Kind::Imm:
    out += fmt::format("{}", o.ival);
    return;
  case Operand::Kind::FImm:
    out += format_float_bits(static_cast<uint64_t>(o.ival), o.is_f32);
    return;
  case Operand::Kind::Symbol:
    if (o.negated)
      out += '!';
    if (o.sym_kind == Operand::SymbolKind::Local &&
        o.sym_index < n.locals.size())
      out += n.locals[o.sym_index];
    else if (o.sym_kind == Operand::SymbolKind::Prototype &&
             o.sym_index < f.prototypes.size())
      out += f.prototypes[o.sym_index].name;
    else
      out += o.name;
    if (o.ival != 0)
      out += fmt::format("+{}", o.ival);
    return;
  case Operand::Kind::Label: {
    auto it = n.label_at.find(o.label);
    out +=
        it != n.label_at.end() ? it->second : fmt::format("$L__bad{}", o.label);
    return;
  }
  case Operand::Kind::Address:
    out += '[';
    if (!o.elems.empty()) {
      print_operand(out, o.elems[0], f, n);
      if (o.ival != 0)
        out += fmt::format("+{}", o.ival);
      if (o.elems.size() > 1) {
        out += ", ";
        print_operand(out, o.elems[1], f, n);
      }
    } else {
      out += fmt::format("{}", o.ival);
    }
    out += ']';
    return;
  case Operand::Kind::Vector:
  case Operand::Kind::List:
    out += o.kind == Operand::Kind::Vector ? '{' : '(';
    for (size_t i = 0; i < o.elems.size(); ++i) {
      if (i)
        out += ", ";
      print_operand(out, o.elems[i], f, n);
    }
    out += o.kind == Operand::Kind::Vector ? '}' : ')';
    return;
  case Operand::Kind::Pair:
    if (o.elems.size() == 2) {
      print_operand(out, o.elems[0], f, n);
      out += '|';
      print_operand(out, o.elems[1], f, n);
    }
    return;
  case Operand::Kind::Sink:
    out += '_';
    return;
  }
}

void print_param(std::string &out, const Param &p) {
  out += p.space == Space::Reg ? ".reg" : ".param";
  if (p.align)
    out += fmt::format(" .align {}", p.align);
  out += fmt::format(" .{}", p.type);
  if (p.is_ptr) {
    out += " .ptr";
    if (p.ptr_space != Space::None)
      out += fmt::format(" .{}", space_name(p.ptr_space));
  }
  out += ' ';
  out += p.name.empty() ? "_" : p.name;
  if (p.array_size)
    out += fmt::format("[{}]", p.array_size);
}

void print_params(std::string &out, const std::vector<Param> &ps,
                  bool multiline) {
  out += '(';
  for (size_t i = 0; i < ps.size(); ++i) {
    if (i)
      out += ',';
    if (multiline)
      out += "\n\t";
    else if (i)
      out += ' ';
    print_param(out, ps[i]);
  }
  if (multiline && !ps.empty())
    out += '\n';
  out += ')';
}

void print_var(std::string &out, const VarDecl &v, const std::string &name) {
  if (v.is_extern)
    out += ".extern ";
  if (v.is_visible)
    out += ".visible ";
  if (v.is_weak)
    out += ".weak ";
  if (v.is_common)
    out += ".common ";
  out += fmt::format(".{}", space_name(v.space));
  for (const auto &a : v.attributes)
    out += fmt::format(" .attribute(.{})", a);
  if (v.align)
    out += fmt::format(" .align {}", v.align);
  if (v.vec)
    out += fmt::format(" .v{}", v.vec);
  out += fmt::format(" .{} {}", v.type, name);
  for (uint64_t d : v.dims)
    out += d ? fmt::format("[{}]", d) : std::string("[]");
  if (!v.init.empty()) {
    bool braces = v.init.size() > 1 || !v.dims.empty() || v.vec;
    out += braces ? " = {" : " = ";
    for (size_t i = 0; i < v.init.size(); ++i) {
      const VarDecl::Init &in = v.init[i];
      if (i)
        out += ", ";
      switch (in.kind) {
      case VarDecl::Init::Kind::Int:
        out += fmt::format("{}", in.bits);
        break;
      case VarDecl::Init::Kind::Float:
        out += format_float_bits(in.bits, type_bytes(v.type) == 4);
        break;
      case VarDecl::Init::Kind::Symbol:
        out += in.generic ? fmt::format("generic({})", in.symbol) : in.symbol;
        if (in.bits)
          out += fmt::format("+{}", in.bits);
        break;
      }
    }
    if (braces)
      out += '}';
  }
  out += ";\n";
}

void print_function(std::string &out, const Function &f) {
  if (f.is_visible)
    out += ".visible ";
  if (f.is_weak)
    out += ".weak ";
  if (f.is_extern)
    out += ".extern ";
  out += f.is_entry ? ".entry " : ".func ";
  if (!f.is_entry && !f.returns.empty()) {
    print_params(out, f.returns, false);
    out += ' ';
  }
  out += f.name;
  print_params(out, f.params, true);
  out += '\n';
  auto dims = [&](const char *name, const std::array<uint32_t, 3> &d) {
    if (d[0])
      out += fmt::format("\t.{} {}, {}, {}\n", name, d[0], d[1], d[2]);
  };
  dims("maxntid", f.maxntid);
  dims("reqntid", f.reqntid);
  if (f.minnctapersm)
    out += fmt::format("\t.minnctapersm {}\n", f.minnctapersm);
  if (f.maxnreg)
    out += fmt::format("\t.maxnreg {}\n", f.maxnreg);
  if (f.explicitcluster)
    out += "\t.explicitcluster\n";
  dims("reqnctapercluster", f.reqnctapercluster);
  if (f.maxclusterrank)
    out += fmt::format("\t.maxclusterrank {}\n", f.maxclusterrank);
  if (f.noreturn)
    out += "\t.noreturn\n";
  for (const auto &p : f.pragmas)
    out += fmt::format("\t.pragma \"{}\";\n", p);
  if (f.is_extern) {
    out += ";\n";
    return;
  }

  FunctionNames n;
  {
    std::vector<std::string> names;
    names.reserve(f.regs.size());
    for (const auto &r : f.regs)
      names.push_back(r.name);
    n.regs = unique_names(names);
    names.clear();
    for (const auto &v : f.locals)
      names.push_back(v.name);
    n.locals = unique_names(names);
    names.clear();
    for (const auto &l : f.labels)
      names.push_back(l.first);
    n.labels = unique_names(names);
    for (size_t i = 0; i < f.labels.size(); ++i)
      n.label_at.emplace(f.labels[i].second, n.labels[i]);
  }
  out += "{\n";
  for (size_t i = 0; i < f.regs.size(); ++i) {
    const RegInfo &r = f.regs[i];
    out += "\t.reg";
    if (r.vec)
      out += fmt::format(" .v{}", r.vec);
    out += fmt::format(" .{} {};\n", r.type, n.regs[i]);
  }
  for (size_t i = 0; i < f.locals.size(); ++i) {
    out += '\t';
    print_var(out, f.locals[i], n.locals[i]);
  }
  for (const CallPrototype &p : f.prototypes) {
    out += fmt::format("{}: .callprototype ", p.name);
    if (!p.returns.empty()) {
      print_params(out, p.returns, false);
      out += ' ';
    }
    out += "_ ";
    print_params(out, p.params, false);
    if (p.noreturn)
      out += " .noreturn";
    out += ";\n";
  }
  size_t next_label = 0, next_pragma = 0;
  // Labels in f.labels are in definition order, hence by body index.
  std::vector<std::pair<uint32_t, size_t>> order;
  for (size_t i = 0; i < f.labels.size(); ++i)
    order.emplace_back(f.labels[i].second, i);
  std::stable_sort(order.begin(), order.end());
  for (size_t i = 0; i <= f.body.size(); ++i) {
    while (next_label < order.size() && order[next_label].first == i) {
      out += fmt::format("{}:\n", n.labels[order[next_label].second]);
      ++next_label;
    }
    while (next_pragma < f.body_pragmas.size() &&
           f.body_pragmas[next_pragma].first == i) {
      out += fmt::format("\t.pragma \"{}\";\n",
                         f.body_pragmas[next_pragma].second);
      ++next_pragma;
    }
    if (i == f.body.size())
      break;
    const Instruction &in = f.body[i];
    out += '\t';
    if (in.guard)
      out += fmt::format("@{}{} ", in.guard->negated ? "!" : "",
                         in.guard->reg < n.regs.size() ? n.regs[in.guard->reg]
                                                       : "%<bad>");
    out += in.opcode;
    for (const auto &m : in.modifiers) {
      out += '.';
      out += m;
    }
    for (size_t k = 0; k < in.operands.size(); ++k) {
      out += k ? ", " : " ";
      print_operand(out, in.operands[k], f, n);
    }
    out += ";\n";
  }
  out += "}\n";
}

} // namespace

std::string print(const Module &m) {
  std::string out;
  out += fmt::format(".version {}\n", m.version.empty() ? "9.0" : m.version);
  out += ".target ";
  if (m.targets.empty())
    out += m.target.empty() ? "sm_90" : m.target;
  for (size_t i = 0; i < m.targets.size(); ++i)
    out += (i ? ", " : "") + m.targets[i];
  out += fmt::format("\n.address_size {}\n", m.address_size);
  for (const auto &p : m.pragmas)
    out += fmt::format(".pragma \"{}\";\n", p);
  // Declarations first so that every name is declared before its use.
  for (const Function &f : m.functions) {
    if (f.is_extern) {
      out += '\n';
      print_function(out, f);
    } else if (!f.is_entry) {
      // Forward declaration of each defined .func (bodies may call later
      // ones).
      out += '\n';
      Function decl;
      decl.is_entry = false;
      decl.is_extern = true;
      decl.name = f.name;
      decl.params = f.params;
      decl.returns = f.returns;
      decl.noreturn = f.noreturn;
      std::string text;
      print_function(text, decl);
      // `.extern` is not wanted for a forward declaration, but its linkage
      // must be the definition's (ptxas: "inconsistent redefinition").
      if (f.is_visible)
        out += ".visible ";
      if (f.is_weak)
        out += ".weak ";
      out += text.substr(text.find(".func"));
    }
  }
  if (!m.globals.empty())
    out += '\n';
  for (const VarDecl &v : m.globals)
    print_var(out, v, v.name);
  for (const Function &f : m.functions) {
    if (f.is_extern)
      continue;
    out += '\n';
    print_function(out, f);
  }
  return out;
}

} // namespace bcusim::ptx
