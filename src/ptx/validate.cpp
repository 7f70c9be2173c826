// The validator: applies the facts table and the operand signatures of
// instructions.cpp (docs/ptx-validation.md) to a module, as ptxas 13 checks
// it. The probes in tests/ptx-probes check every rule against ptxas.
#include <algorithm>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "bcusim/ptx/instructions.h"

namespace bcusim::ptx {

namespace {

using K = Feature::Kind;

std::string version_text(uint16_t v) {
  return fmt::format("{}.{}", v / 10, v % 10);
}

// The dotted name of an instruction with its first `n` modifiers.
std::string name_with(const Instruction &in, size_t n) {
  std::string s = in.opcode;
  for (size_t i = 0; i < n && i < in.modifiers.size(); ++i)
    s += "." + in.modifiers[i];
  return s;
}

std::string full_name(const Instruction &in) {
  return name_with(in, in.modifiers.size());
}

// A modifier of the table with its text, for diagnostics.
struct Named {
  Mod mod;
  const char *text;
};

// The table's enumerator of modifier i (Mod::unknown when there is none).
Mod mod_at(const Instruction &in, size_t i) {
  return i < in.mods.size() ? in.mods[i] : Mod::unknown;
}

// The state space modifier i names (Space::None: none; .tex is not one of
// the spaces the rules count, see spaces_of).
Space space_at(const Instruction &in, size_t i) {
  return space_of(mod_at(in, i));
}

// A type's class and size from its types.def row: 'b', 'u', 's', 'f', 'x'
// (a packed pair, such as .f16x2), 'p' (.pred); '?' for any other (not
// checked).
struct TypeClass {
  char k = '?';
  int bits = 0;
};

TypeClass classify(Type t) {
  const TypeInfo &r = info(t);
  return r.cls == '?' ? TypeClass{} : TypeClass{r.cls, r.bits};
}

// An operand type of the rules: a type of the table, or one made by
// doubling a width (mul.wide) that the table may not have (.u128 is
// there, .f128 is not).
struct OpType {
  Type id = Type::unknown;
  TypeClass c;
  std::string spelled; // when not a row of the table: class and bits
  std::string text() const {
    return id != Type::unknown ? std::string(name_of(id)) : spelled;
  }
};

OpType op_type(Type t) { return {t, classify(t), {}}; }

// Twice the width of `t`: the first row of its class with twice its bits
// (.s32 -> .s64, .bf16 -> .f32); a width the table lacks keeps its class
// when that is 'b', 'u', 's' or 'f' (.b256) and is not checked otherwise
// (a packed pair, a predicate).
OpType twice(Type t) {
  const TypeInfo &row = info(t);
  OpType w;
  w.spelled = fmt::format("{}{}", row.cls, 2 * row.bits);
  if (std::string_view("bsuf").find(row.cls) == std::string_view::npos)
    return w;
  w.c = {row.cls, 2 * row.bits};
  for (const TypeInfo &r : type_rows())
    if (r.cls == w.c.k && r.bits == w.c.bits) {
      w.id = r.type;
      break;
    }
  return w;
}

// Whether the instruction's opcode and its first modifiers are `d`.
bool starts_with(const Instruction &in, const DottedName &d) {
  return in.op != Op::unknown && in.op == d.op &&
         d.mods.size() <= in.mods.size() &&
         std::equal(d.mods.begin(), d.mods.end(), in.mods.begin());
}

// "arrive wait" -> ".arrive, .wait"
std::string dotted(std::string_view list) {
  std::string s;
  for (auto w : row_words(list))
    s += (s.empty() ? "." : ", .") + std::string(w);
  return s;
}

// Whether the instruction has every modifier of a list of the tables.
bool has_all(const Instruction &in, const std::vector<Mod> &list) {
  for (Mod m : list)
    if (!in.has(m))
      return false;
  return true;
}

// The state spaces among the modifiers, in order, with their text (for
// messages: .shared::cta as written); .tex only when `tex`.
struct NamedSpace {
  Space space;
  std::string text;
};
std::vector<NamedSpace> spaces_of(const Instruction &in, bool tex) {
  std::vector<NamedSpace> out;
  for (size_t i = 0; i < in.modifiers.size(); ++i) {
    const Space sp = space_at(in, i);
    if (sp != Space::None && (tex || sp != Space::Tex))
      out.push_back({sp, in.modifiers[i]});
  }
  return out;
}

// Whether modifier i is a state space or an instruction type: the rules'
// business, not the form's modifier list.
bool is_space_or_type(const Instruction &in, size_t i) {
  const Space sp = space_at(in, i);
  return (sp != Space::None && sp != Space::Tex) ||
         info(type_of(mod_at(in, i))).instruction;
}

class Validator {
public:
  Validator(const Module &m, DiagnosticSink &sink) : m_(m), sink_(sink) {}

  bool run();

private:
  const Module &m_;
  DiagnosticSink &sink_;
  TargetInfo target_{};
  uint16_t version_ = 0;
  bool known_target_ = false, known_version_ = false;
  bool failed_ = false;

  void error(SourceLoc loc, std::string msg) {
    failed_ = true;
    sink_.error(loc, std::move(msg));
  }
  // Reports what `what` needs and the module lacks.
  void require(const Requirement &r, const std::string &what, SourceLoc loc);
  void instruction(const Function &f, const Instruction &in);
  void rules(const Function &f, const Instruction &in);
  void signature(const Function &f, const Instruction &in);
  void arithmetic(const Instruction &in);
  void memory(const Instruction &in);
  void conversion(const Instruction &in);
  void wgmma(const Instruction &in);
  void operand_features(const Operand &o);
};

void Validator::require(const Requirement &r, const std::string &what,
                        SourceLoc loc) {
  if (known_target_ && r.arch_specific && !target_.arch_specific) {
    error(loc, fmt::format("{} requires the architecture-specific target "
                           "sm_{}a (the module's .target is {})",
                           what, r.sm, m_.target));
    return;
  }
  if (known_target_ && r.sm && target_.sm < r.sm)
    error(loc, fmt::format("{} requires .target sm_{} or higher (the "
                           "module's .target is {})",
                           what, r.sm, m_.target));
  if (known_version_ && r.ptx && version_ < r.ptx)
    error(loc, fmt::format("{} requires PTX ISA .version {} or later (the "
                           "module's .version is {})",
                           what, version_text(r.ptx), m_.version));
}

bool Validator::run() {
  if (auto t = parse_target(m_.target)) {
    target_ = *t;
    known_target_ = true;
  }
  if (auto v = parse_version(m_.version)) {
    version_ = *v;
    known_version_ = true;
  }
  // The PTX ISA versions ptxas 13 knows.
  static constexpr uint16_t kVersions[] = {
      10, 11, 12, 13, 14, 15, 20, 21, 22, 23, 30, 31, 32, 40, 41,
      42, 43, 50, 51, 60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74,
      75, 76, 77, 78, 80, 81, 82, 83, 84, 85, 86, 87, 88, 90};
  if (known_version_ && std::find(std::begin(kVersions), std::end(kVersions),
                                  version_) == std::end(kVersions))
    error(m_.version_loc,
          fmt::format("unsupported PTX ISA .version {} (the versions are "
                      "1.0-1.5, 2.0-2.3, 3.0-3.2, 4.0-4.3, 5.0, 5.1, 6.0-6.5, "
                      "7.0-7.8, 8.0-8.8 and 9.0)",
                      m_.version));
  for (const auto &f : features())
    if (f.kind == K::Target && f.name == m_.target && known_version_ &&
        version_ < f.req.ptx)
      error(m_.target_loc.valid() ? m_.target_loc : m_.version_loc,
            fmt::format("PTX .version {} does not support .target {} (it "
                        "needs .version {} or later)",
                        m_.version, m_.target, version_text(f.req.ptx)));
  // Initializers: an integer constant only for integer and bit-size
  // variables, a floating-point one only for float and bit-size ones.
  auto initializers = [&](const VarDecl &v) {
    const char k = classify(v.ty).k;
    for (size_t i = 0; i < v.init.size(); ++i) {
      const auto &x = v.init[i];
      const bool flt = x.kind == VarDecl::Init::Kind::Float && !x.from_integer;
      const bool integer = x.kind == VarDecl::Init::Kind::Int || x.from_integer;
      if ((flt && k != 'f' && k != 'b') || (integer && k == 'f')) {
        error(v.loc,
              fmt::format("initializer {} of '{}' is {} constant, "
                          "which a .{} variable cannot hold",
                          i, v.name, flt ? "a floating-point" : "an integer",
                          v.type));
        return;
      }
    }
  };
  for (const auto &v : m_.globals)
    initializers(v);
  for (const auto &fn : m_.functions) {
    for (const auto &v : fn.locals)
      initializers(v);
    bool cluster_dims = false;
    for (const auto &[name, loc] : fn.directive_locs) {
      for (const auto &f : features())
        if (f.kind == K::Directive && f.name == name)
          require(f.req, fmt::format("'.{}'", name), loc);
      if (name == "reqnctapercluster")
        cluster_dims = true;
      if (name == "maxclusterrank" && cluster_dims)
        error(loc, "'.reqnctapercluster' and '.maxclusterrank' cannot both "
                   "be given");
    }
    for (const auto &in : fn.body)
      instruction(fn, in);
  }
  return !failed_;
}

void Validator::operand_features(const Operand &o) {
  if (o.kind == Operand::Kind::Special) {
    for (const auto &f : features()) {
      if (f.kind != K::SpecialRegister)
        continue;
      bool match =
          f.name.back() == '*'
              ? o.name.rfind(f.name.substr(0, f.name.size() - 1), 0) == 0
              : o.name == f.name;
      if (match) {
        std::string n = o.name.substr(0, o.name.find('.'));
        require(f.req, fmt::format("special register '{}'", n), o.loc);
        return;
      }
    }
  }
  for (const auto &e : o.elems)
    operand_features(e);
}

void Validator::instruction(const Function &fn, const Instruction &in) {
  // The forms the instruction's name matches, most specific last.
  // One report per instruction for its forms is enough.
  const FeatureRow *form = nullptr; // the most specific with a modifier set
  size_t form_len = 0;
  bool reported = false;
  for (size_t n = 0; n <= in.modifiers.size(); ++n) {
    for (const auto &f : feature_rows()) {
      if (f.row->kind != K::Instruction || f.name.mods.size() != n ||
          !starts_with(in, f.name))
        continue;
      if (!f.row->modifiers.empty()) {
        form = &f;
        form_len = n;
      }
      if (reported)
        continue;
      size_t before = sink_.error_count();
      require(f.row->req, fmt::format("'{}'", name_with(in, n)), in.loc);
      reported = sink_.error_count() != before;
    }
  }
  for (size_t i = 0; i < in.modifiers.size(); ++i)
    for (const auto &f : feature_rows()) {
      if (f.row->kind != K::Modifier || f.mod != mod_at(in, i))
        continue;
      if (f.any_scope || starts_with(in, f.scope))
        require(
            f.row->req,
            fmt::format("modifier '.{}' of '{}'", in.modifiers[i], in.opcode),
            in.loc);
    }
  // Unknown modifiers of the forms whose modifier set the table gives ("-":
  // none); types and state spaces are the rules' business.
  if (form) {
    for (size_t i = form_len; i < in.modifiers.size(); ++i) {
      if (is_space_or_type(in, i))
        continue;
      const Mod m = mod_at(in, i);
      if (m == Mod::unknown ||
          std::find(form->modifiers.begin(), form->modifiers.end(), m) ==
              form->modifiers.end())
        error(in.loc,
              fmt::format("unknown modifier '.{}' for '{}' ({})",
                          in.modifiers[i], name_with(in, form_len),
                          form->row->modifiers == "-"
                              ? std::string("it takes none")
                              : "it takes " + dotted(form->row->modifiers)));
    }
  }
  for (const auto &o : in.operands)
    operand_features(o);
  rules(fn, in);
  signature(fn, in);
}

// wgmma (PTX ISA "wgmma.mma_async", docs/hopper.md): the forms of
// sm_90a, their operand counts, vector sizes and immediates.
void Validator::wgmma(const Instruction &in) {
  using OK = Operand::Kind;
  const auto &o = in.operands;
  const std::string name = full_name(in);
  if (in.has_any({Mod::fence, Mod::commit_group, Mod::wait_group})) {
    const size_t want = in.has(Mod::wait_group) ? 1 : 0;
    if (o.size() != want || (want && o[0].kind != OK::Imm))
      error(in.loc,
            fmt::format("'{}' takes {}", name,
                        want ? "one immediate group count" : "no operands"));
    return;
  }
  if (!in.has(Mod::mma_async))
    return; // the facts table reports the form
  // wgmma.mma_async.sp: A sparse, K twice the dense one, sp-meta (a 32-bit
  // register) and sp-sel (an immediate) before scale-d.
  const bool sparse = in.has(Mod::sp);
  // The shape (.m64nNkK) is read from its text; the types are the
  // instruction types and the fp8 and .b1 operand types.
  unsigned m = 0, n = 0, k = 0;
  std::vector<Mod> types;
  for (size_t i = 0; i < in.modifiers.size(); ++i) {
    const std::string &md = in.modifiers[i];
    const Mod id = mod_at(in, i);
    if (md.size() > 1 && md[0] == 'm' && std::isdigit(uint8_t(md[1])))
      std::sscanf(md.c_str(), "m%un%uk%u", &m, &n, &k);
    else if (info(type_of(id)).instruction || id == Mod::e4m3 ||
             id == Mod::e5m2 || id == Mod::b1)
      types.push_back(id);
  }
  auto is = [](Mod t, std::initializer_list<Mod> l) {
    return std::find(l.begin(), l.end(), t) != l.end();
  };
  if (types.size() != 3) {
    error(in.loc, fmt::format("'{}' needs .dtype.atype.btype", name));
    return;
  }
  const Mod td = types[0], ta = types[1], tb = types[2];
  const bool half = is(ta, {Mod::f16, Mod::bf16}), tf32 = ta == Mod::tf32,
             fp8 = is(ta, {Mod::e4m3, Mod::e5m2}),
             i8 = is(ta, {Mod::s8, Mod::u8}), b1 = ta == Mod::b1;
  const bool types_ok =
      (half && tb == ta &&
       (td == Mod::f32 || (ta == Mod::f16 && td == Mod::f16))) ||
      (tf32 && tb == ta && td == Mod::f32) ||
      (fp8 && is(tb, {Mod::e4m3, Mod::e5m2}) && is(td, {Mod::f16, Mod::f32})) ||
      (i8 && is(tb, {Mod::s8, Mod::u8}) && td == Mod::s32) ||
      (b1 && tb == Mod::b1 && td == Mod::s32);
  if (!types_ok) {
    error(in.loc,
          fmt::format("'{}': no wgmma.mma_async form has these types", name));
    return;
  }
  const unsigned want_k = (half   ? 16
                           : tf32 ? 8
                           : b1   ? (sparse ? 0 : 256)
                                  : 32) *
                          (sparse ? 2 : 1);
  const bool integer = i8 || b1;
  if (m != 64 || k != want_k || n < 8 || n > 256 || n % 8 ||
      (integer && n > 24 && n % 16)) {
    error(in.loc, fmt::format("'{}': no wgmma.mma_async form has this shape "
                              "with these types",
                              name));
    return;
  }
  if (i8 && ta != tb && known_version_ && version_ < 84)
    error(in.loc, fmt::format("'{}': mixed integer types require PTX ISA "
                              ".version 8.4 or later",
                              name));
  if ((b1 && (!in.has(Mod::and_) || !in.has(Mod::popc))) ||
      (in.has(Mod::satfinite) && !i8))
    error(in.loc, fmt::format("'{}': b1 needs '.and.popc', and only integer "
                              "types take '.satfinite'",
                              name));
  const bool desc_a = o.size() > 1 && o[1].kind != OK::Vector;
  const size_t imms = integer ? 0 : half ? (desc_a ? 4 : 3) : 2;
  const size_t fixed = sparse ? 6 : 4;
  if (o.size() != fixed + imms ||
      (sparse && (o[3].kind != OK::Reg || o[4].kind != OK::Imm))) {
    error(in.loc, fmt::format("'{}' takes {} operands, {} given{}", name,
                              fixed + imms, o.size(),
                              sparse ? " (sp-meta a 32-bit register, sp-sel "
                                       "an immediate)"
                                     : ""));
    return;
  }
  if (sparse) {
    const int64_t most = (fp8 || i8) ? 0 : 1;
    if (o[4].ival < 0 || o[4].ival > most)
      error(o[4].loc, fmt::format("operand 5 of '{}' (sp-sel) must be {}", name,
                                  most ? "0 or 1" : "0"));
  }
  const size_t nd = td == Mod::f16 ? n / 4 : n / 2;
  auto count = [](const Operand &x) {
    return x.kind == OK::Vector ? x.elems.size() : size_t(1);
  };
  if (o[0].kind != OK::Vector || count(o[0]) != nd)
    error(o[0].loc,
          fmt::format("'{}': D is a vector of {} registers", name, nd));
  if (!desc_a && count(o[1]) != 4)
    error(o[1].loc, fmt::format("'{}': register A is a vector of 4 "
                                "registers",
                                name));
  for (size_t q = 0; q < imms; ++q) {
    const Operand &x = o[fixed + q];
    const bool scale = q < 2;
    if (x.kind != OK::Imm || (scale && x.ival != 1 && x.ival != -1) ||
        (!scale && x.ival != 0 && x.ival != 1))
      error(x.loc,
            fmt::format("operand {} of '{}' must be {}", fixed + 1 + q, name,
                        scale ? "the immediate 1 or -1"
                              : "the immediate 0 or 1"));
  }
}

// The rules beyond target and version, one block per instruction.
void Validator::rules(const Function &fn, const Instruction &in) {
  using OK = Operand::Kind;
  const Op op = in.op;
  const auto &o = in.operands;
  const std::string name = full_name(in);
  auto operands = [&](size_t n) {
    if (o.size() == n)
      return true;
    error(in.loc, fmt::format("'{}' takes {} operand{}, {} given", name, n,
                              n == 1 ? "" : "s", o.size()));
    return false;
  };
  auto immediate = [&](size_t i, const char *what) {
    if (i < o.size() && o[i].kind != OK::Imm) {
      error(o[i].loc,
            fmt::format("{} of '{}' must be an immediate value", what, name));
      return false;
    }
    return i < o.size();
  };
  // The first modifier (in written order) that is one of `ms`, as
  // written; "" when none.
  auto first_of = [&](std::initializer_list<Mod> ms) {
    for (size_t i = 0; i < in.mods.size(); ++i)
      if (std::find(ms.begin(), ms.end(), in.mods[i]) != ms.end())
        return in.modifiers[i];
    return std::string();
  };
  // The last instruction type, as written; "" when none.
  auto last_type = [&]() {
    return in.types.empty() ? std::string()
                            : std::string(name_of(in.types.back()));
  };
  auto needs_sync = [&]() {
    if (!in.has(Mod::sync))
      error(in.loc, fmt::format("'{}' requires the .sync modifier", in.opcode));
  };

  // Warp collectives without .sync do not exist on sm_70+ from PTX 6.4.
  if ((op == Op::vote || op == Op::shfl) && !in.has(Mod::sync) &&
      known_target_ && target_.sm >= 70 && known_version_ && version_ >= 64)
    error(in.loc, fmt::format("'{}' without '.sync' is not supported on "
                              ".target sm_70 and higher from PTX ISA version "
                              "6.4 (use '{}.sync' with a member mask)",
                              in.opcode, in.opcode));
  if (op == Op::vote && !in.types.empty()) {
    const Type t = in.types.back();
    bool ballot = in.has(Mod::ballot);
    if ((ballot && t != Type::b32) || (!ballot && t != Type::pred))
      error(in.loc, fmt::format("'vote.{}' takes type .{}, not .{}",
                                ballot ? "ballot" : "any/all/uni",
                                ballot ? "b32" : "pred", name_of(t)));
  }
  if (op == Op::shfl) {
    for (Type t : in.types)
      if (t != Type::b32)
        error(in.loc,
              fmt::format("'shfl' takes type .b32, not .{}", name_of(t)));
  }
  // Warp collectives: their 32-bit operands must be 32-bit registers.
  auto width = [&](const Operand &x) -> int {
    if (x.kind != OK::Reg)
      return 0;
    const Type t = fn.regs[x.reg].ty;
    return t == Type::pred ? 1 : int(8 * type_bytes(t));
  };
  auto needs_32 = [&](const Operand &x, const char *what) {
    const Operand &r = x.kind == OK::Pair && !x.elems.empty() ? x.elems[0] : x;
    int w = width(r);
    if (w && w != 32)
      error(r.loc, fmt::format("{} of '{}' must be a 32-bit register, not "
                               "a {}-bit one",
                               what, name, w));
  };
  if ((op == Op::match || op == Op::activemask || op == Op::redux ||
       (op == Op::vote && in.has(Mod::ballot)) || op == Op::shfl) &&
      !o.empty())
    needs_32(o[0], "the destination");
  if (op == Op::elect)
    needs_sync();
  if (op == Op::redux) {
    needs_sync();
    std::string red = first_of(
        {Mod::add, Mod::min, Mod::max, Mod::and_, Mod::or_, Mod::xor_});
    const Type ty = in.types.empty() ? Type::unknown : in.types.back();
    const std::string t = last_type();
    bool bitwise = in.has_any({Mod::and_, Mod::or_, Mod::xor_});
    if (!t.empty() && !red.empty() && ty != Type::f32) {
      if (bitwise && ty != Type::b32)
        error(in.loc,
              fmt::format("'redux.{}' takes type .b32, not .{}", red, t));
      else if (!bitwise && ty != Type::u32 && ty != Type::s32)
        error(in.loc, fmt::format("'redux.{}' takes type .u32 or .s32, not "
                                  ".{}",
                                  red, t));
    }
  }
  if (op == Op::griddepcontrol) {
    if (first_of({Mod::launch_dependents, Mod::wait}).empty())
      error(in.loc, "'griddepcontrol' requires '.launch_dependents' or "
                    "'.wait'");
    operands(0);
  }
  if (op == Op::barrier && mod_at(in, 0) == Mod::cluster) {
    if (mod_at(in, 1) != Mod::arrive && mod_at(in, 1) != Mod::wait)
      error(in.loc, fmt::format("'{}' is not an instruction: "
                                "'barrier.cluster' requires '.arrive' or "
                                "'.wait'",
                                name));
    int orderings = 0;
    for (Mod m : {Mod::release, Mod::relaxed, Mod::acquire})
      orderings += in.has(m) ? 1 : 0;
    if (orderings > 1)
      error(in.loc, fmt::format("'{}' takes at most one of .release, "
                                ".relaxed and .acquire",
                                name));
    return;
  }
  if (op == Op::bar || op == Op::barrier) {
    if (in.has(Mod::warp))
      return; // bar.warp.sync
    // The CTA barriers: .cta only right after the opcode.
    for (size_t i = 1; i < in.modifiers.size(); ++i)
      if (mod_at(in, i) == Mod::cta)
        error(in.loc, fmt::format("'.cta' must follow '{}' directly "
                                  "('{}.cta.{}')",
                                  in.opcode, in.opcode, in.modifiers[0]));
    const bool red = in.has(Mod::red);
    const size_t id = red ? 1 : 0;
    if (id < o.size() && o[id].kind == OK::Imm &&
        (o[id].ival < 0 || o[id].ival > 15))
      error(o[id].loc, fmt::format("barrier number {} is out of range [0, 15]",
                                   static_cast<uint64_t>(o[id].ival)));
    const size_t count = id + 1;
    if (!red && count < o.size() && o[count].kind == OK::Imm &&
        o[count].ival % 32 != 0)
      error(o[count].loc,
            fmt::format("the thread count of '{}' must be a multiple of the "
                        "warp size (32), not {}",
                        name, o[count].ival));
    if (in.has(Mod::arrive) && o.size() == 2 && o[1].kind == OK::Imm &&
        o[1].ival == 0)
      error(o[1].loc,
            fmt::format("'{}' requires a non-zero thread count", name));
    if (red) {
      std::string r = first_of({Mod::popc, Mod::and_, Mod::or_});
      const Type ty = in.types.empty() ? Type::unknown : in.types.back();
      const std::string t = last_type();
      if (in.has(Mod::popc) && !t.empty() && ty != Type::u32)
        error(in.loc, "'bar.red.popc' takes type .u32");
      if (in.has_any({Mod::and_, Mod::or_}) && !t.empty() && ty != Type::pred)
        error(in.loc,
              fmt::format("'bar.red.{}' takes type .pred, not .{}", r, t));
      // The operand kinds (destination, reduced predicate): signatures.
    }
    return;
  }
  if (op == Op::membar) {
    if (first_of({Mod::cta, Mod::gl, Mod::sys, Mod::proxy}).empty())
      error(in.loc, "'membar' requires a level (.cta, .gl or .sys)");
  }
  if (op == Op::fence) {
    bool sem = in.has_any({Mod::sc, Mod::acq_rel, Mod::acquire, Mod::release});
    bool proxy = in.has(Mod::proxy);
    if (sem && !proxy &&
        !in.has_any({Mod::cta, Mod::cluster, Mod::gpu, Mod::sys}))
      error(in.loc, fmt::format("'{}' requires a scope (.cta, .cluster, .gpu "
                                "or .sys)",
                                name));
  }
  if (op == Op::multimem && !in.modifiers.empty()) {
    // The memory semantics each multimem form takes (PTX ISA
    // "multimem.ld_reduce, multimem.st, multimem.red").
    const std::string &form = in.modifiers.front();
    const Mod what = mod_at(in, 0);
    const bool writes = what == Mod::st || what == Mod::red;
    if ((writes && in.has(Mod::acquire)) ||
        (what == Mod::ld_reduce && in.has(Mod::release)))
      error(in.loc, fmt::format("'multimem.{}' takes {}, not .{}", form,
                                writes ? (what == Mod::st
                                              ? ".weak, .relaxed or .release"
                                              : ".relaxed or .release")
                                       : ".weak, .relaxed or .acquire",
                                writes ? "acquire" : "release"));
  }
  if (op == Op::setmaxnreg && immediate(0, "the register count") &&
      (o[0].ival < 24 || o[0].ival > 256 || o[0].ival % 8))
    error(o[0].loc, fmt::format("the register count of '{}' must be a "
                                "multiple of 8 in [24, 256], not {}",
                                name, o[0].ival));
  if (op == Op::wgmma)
    wgmma(in);
  if (op == Op::cp && mod_at(in, 0) == Mod::async && in.modifiers.size() >= 2) {
    const Mod what = mod_at(in, 1);
    if (what == Mod::wait_group)
      immediate(0, "the group count");
    else if (what == Mod::bulk && mod_at(in, 2) == Mod::wait_group)
      immediate(0, "the group count");
    else if (what == Mod::ca || what == Mod::cg) {
      // cp.async.ca/.cg.shared{::cta}.global [dst], [src], size
      const auto spaces = spaces_of(in, false);
      if (spaces.size() != 2 || spaces[0].space != Space::Shared ||
          spaces[1].space != Space::Global)
        error(in.loc, fmt::format("'{}' copies .shared{{::cta}}.global "
                                  "(destination .shared, source .global)",
                                  name));
      if (immediate(2, "the copy size")) {
        int64_t n = o[2].ival;
        if (what == Mod::cg && n != 16)
          error(o[2].loc, fmt::format("the copy size of 'cp.async.cg' must "
                                      "be 16, not {}",
                                      n));
        else if (what == Mod::ca && n != 4 && n != 8 && n != 16)
          error(o[2].loc, fmt::format("the copy size of 'cp.async.ca' must "
                                      "be 4, 8 or 16, not {}",
                                      n));
      }
    }
  }
  if (op == Op::mbarrier && !in.modifiers.empty()) {
    const std::string &what = in.modifiers[0];
    const Mod form = mod_at(in, 0);
    const bool arrive = form == Mod::arrive || form == Mod::arrive_drop;
    const bool tx = form == Mod::expect_tx || form == Mod::complete_tx;
    for (const auto &[sp, m] : spaces_of(in, false)) {
      // Seed 002, "mbarrier shared memory scope support": only arrive,
      // expect_tx and complete_tx reach a barrier of another CTA.
      bool remote_ok = arrive || tx;
      if (sp == Space::SharedCluster && !remote_ok)
        error(in.loc, fmt::format("'mbarrier.{}' does not take "
                                  "'.shared::cluster'",
                                  what));
      else if (sp != Space::Shared && sp != Space::SharedCluster)
        error(in.loc, fmt::format("state space .{} is not allowed for "
                                  "'mbarrier.{}' (an mbarrier is in .shared "
                                  "memory)",
                                  m, what));
    }
    for (Type t : in.types)
      if (t != Type::b64)
        error(in.loc, fmt::format("'mbarrier.{}' takes type .b64, not .{}",
                                  what, name_of(t)));
    // `{.sem.scope}`: the ordering and the scope come together.
    const char *sem = nullptr, *scope = nullptr;
    for (Named m :
         {Named{Mod::release, "release"}, Named{Mod::acquire, "acquire"},
          Named{Mod::relaxed, "relaxed"}})
      if (in.has(m.mod))
        sem = m.text;
    for (Named m : {Named{Mod::cta, "cta"}, Named{Mod::cluster, "cluster"}})
      if (in.has(m.mod))
        scope = m.text;
    if (sem && !scope)
      error(in.loc, fmt::format("'.{}' on 'mbarrier.{}' requires a scope "
                                "(.cta or .cluster) with it",
                                sem, what));
    else if (scope && !sem)
      error(in.loc, fmt::format("'.{}' on 'mbarrier.{}' requires an "
                                "ordering (.release, .acquire or .relaxed) "
                                "with it",
                                scope, what));
    if (in.has(Mod::noComplete)) {
      // .noComplete: the arrive with a count that must not complete the
      // phase; it takes no ordering but the default .release.cta.
      if (o.size() < 3)
        error(in.loc, fmt::format("'.noComplete' on 'mbarrier.{}' requires "
                                  "a count operand",
                                  what));
      for (Named m :
           {Named{Mod::relaxed, "relaxed"}, Named{Mod::cluster, "cluster"}})
        if (in.has(m.mod))
          error(in.loc, fmt::format("'.{}' cannot be combined with "
                                    "'.noComplete'",
                                    m.text));
    }
    // .parity names the form: right after test_wait / try_wait.
    for (size_t i = 0; i < in.modifiers.size(); ++i)
      if (mod_at(in, i) == Mod::parity && i != 1)
        error(in.loc, fmt::format("'.parity' must follow 'mbarrier.{}' "
                                  "directly ('mbarrier.{}.parity...')",
                                  what, what));
    // An immediate arrival count is a positive number.
    if (arrive && !in.has(Mod::expect_tx) && o.size() == 3 &&
        o[2].kind == OK::Imm && o[2].ival <= 0)
      error(o[2].loc, fmt::format("the arrival count of 'mbarrier.{}' must "
                                  "be positive, not {}",
                                  what, o[2].ival));
    // Seed 002: expect_tx / complete_tx take .relaxed as their only .sem.
    if (tx && (in.has(Mod::release) || in.has(Mod::acquire)))
      error(in.loc, fmt::format("'mbarrier.{}' takes only '.relaxed' as its "
                                "ordering",
                                what));
    // Seed 002: a count on mbarrier.arrive without .noComplete needs sm_90.
    if (arrive && !in.has(Mod::noComplete) && !in.has(Mod::expect_tx) &&
        o.size() == 3 && known_target_ && target_.sm < 90)
      error(o[2].loc,
            fmt::format("'mbarrier.{}' with a count and without "
                        "'.noComplete' requires .target sm_90 or higher",
                        what));
    if (arrive && in.has(Mod::shared_cluster) && !o.empty() &&
        o[0].kind != OK::Sink)
      error(o[0].loc, fmt::format("'mbarrier.{}' on a .shared::cluster "
                                  "barrier returns no state: its destination "
                                  "must be the sink '_'",
                                  what));
  }
  // cp{.reduce}.async.bulk{.prefetch}.tensor.Nd: the tensor coordinates
  // are a vector of N elements; the im2col forms need .3d to .5d.
  if (op == Op::cp && in.has(Mod::tensor)) {
    int dims = 0; // the largest .Nd given
    const Mod nd[] = {Mod::d1, Mod::d2, Mod::d3, Mod::d4, Mod::d5};
    for (int d = 1; d <= 5; ++d)
      if (in.has(nd[d - 1]))
        dims = d;
    if (dims && dims < 3 && in.has_any({Mod::im2col, Mod::im2col_no_offs}))
      error(in.loc,
            fmt::format("'.{}d' cannot be combined with '.{}' (it "
                        "needs .3d to .5d)",
                        dims,
                        in.has(Mod::im2col) ? "im2col" : "im2col_no_offs"));
    for (const auto &x : o)
      if (dims && x.kind == OK::Address && x.elems.size() == 2 &&
          x.elems[1].kind == OK::Vector &&
          x.elems[1].elems.size() != size_t(dims))
        error(x.loc, fmt::format("'{}' takes {} tensor coordinates, {} given",
                                 name, dims, x.elems[1].elems.size()));
  }
  arithmetic(in);
  memory(in);
  conversion(in);
}

// Whether a register of type r may stand for an operand of type t.
// Strict, PTX "Operand Type Information": the same size; a bit-size type on
// either side matches any; signed and unsigned integers match each other (an
// .f16x2 register counts as a 32-bit integer); a float only the same float;
// .pred only .pred. Relaxed (ld, st, cvt: "Operand Size Exceeding
// Instruction-Type Size"): a register may be wider than a bit-size or
// integer type (a bit-size type takes a float register too); a float type
// takes a wider bit-size register or exactly its float.
bool compatible(Type r, const OpType &t, bool relaxed) {
  TypeClass a = classify(r), b = t.c;
  if (a.k == '?' || b.k == '?')
    return true;
  if (a.k == 'p' || b.k == 'p')
    return a.k == b.k;
  if (relaxed && b.k == 'b')
    return a.bits >= b.bits;
  if (relaxed && (b.k == 'u' || b.k == 's'))
    return a.k != 'f' && a.bits >= b.bits;
  if (relaxed && b.k == 'f')
    return (a.k == 'b' && a.bits >= b.bits) || r == t.id;
  if (a.bits != b.bits)
    return false;
  if (a.k == 'b' || b.k == 'b')
    return true;
  if (b.k == 'u' || b.k == 's')
    return a.k == 'u' || a.k == 's' || a.k == 'x';
  return r == t.id;
}

bool is_float_type(Type t) { return info(t).is_float; }
bool is_float_type(const OpType &t) {
  return t.id != Type::unknown ? is_float_type(t.id) : t.c.k == 'f';
}

// Rounding, .approx, .lo/.hi/.wide against the instruction type, as ptxas
// checks them: a rounding mode only for floats, .lo/.hi/.wide only for
// integers, and the float forms that must name one.
void Validator::arithmetic(const Instruction &in) {
  const Op op = in.op;
  static constexpr Op ops[] = {
      Op::add,   Op::sub,   Op::mul,  Op::mad, Op::div,  Op::fma, Op::sqrt,
      Op::rcp,   Op::rsqrt, Op::ex2,  Op::lg2, Op::sin,  Op::cos, Op::tanh,
      Op::min,   Op::max,   Op::abs,  Op::neg, Op::setp, Op::set, Op::testp,
      Op::mad24, Op::szext, Op::bmsk, Op::dp2a};
  if (std::find(std::begin(ops), std::end(ops), op) == std::end(ops))
    return;
  const std::string name = full_name(in);
  // The mode szext/bmsk (.wrap/.clamp) and dp2a (.lo/.hi) need.
  if ((op == Op::szext || op == Op::bmsk) && !in.has(Mod::wrap) &&
      !in.has(Mod::clamp)) {
    error(in.loc, fmt::format("'{}' needs .wrap or .clamp", name));
    return;
  }
  if (op == Op::dp2a && !in.has(Mod::lo) && !in.has(Mod::hi)) {
    error(in.loc, fmt::format("'{}' needs .lo or .hi", name));
    return;
  }
  if (in.types.size() != 1)
    return;
  const Type t = in.types[0];
  const std::string_view tn = name_of(t);
  // .relu on integer min/max: .s32 and .s16x2 only; .NaN and .xorsign.abs:
  // the f32 and half types, and .xorsign only with .abs.
  if ((op == Op::min || op == Op::max) && in.has(Mod::relu) && t != Type::s32 &&
      t != Type::s16x2 && !is_float_type(t)) {
    error(in.loc, fmt::format("'.relu' does not apply to '{}'", name));
    return;
  }
  for (Named m : {Named{Mod::NaN, "NaN"}, Named{Mod::xorsign, "xorsign"}})
    if ((op == Op::min || op == Op::max) && in.has(m.mod) &&
        (t == Type::f64 || !is_float_type(t))) {
      error(in.loc, fmt::format("'.{}' does not apply to '{}'", m.text, name));
      return;
    }
  if ((op == Op::min || op == Op::max) && in.has(Mod::xorsign) &&
      !in.has(Mod::abs)) {
    error(in.loc, fmt::format("'{}': '.xorsign' needs '.abs'", name));
    return;
  }
  // .sat and .ftz against the type (ptxas: "Modifier '.sat' does not apply
  // to '.u32' type", "Illegal modifier '.ftz' for instruction 'add'").
  if (in.has(Mod::sat)) {
    const bool half = t == Type::f16 || t == Type::f16x2;
    bool ok = true;
    if (op == Op::add || op == Op::sub)
      ok = t == Type::s32 || t == Type::f32 || half;
    else if (op == Op::mul || op == Op::fma)
      ok = (t == Type::f32 || half) && !in.has(Mod::lo) && !in.has(Mod::hi) &&
           !in.has(Mod::wide);
    else if (op == Op::mad)
      ok = (t == Type::s32 && in.has(Mod::hi)) || t == Type::f32;
    else if (op == Op::mad24)
      ok = t == Type::s32 && in.has(Mod::hi);
    if (!ok) {
      error(in.loc, fmt::format("'.sat' does not apply to '{}'", name));
      return;
    }
  }
  if (in.has(Mod::ftz) &&
      (op == Op::testp ||
       (t == Type::f64 && op != Op::rcp && op != Op::rsqrt) ||
       ((t == Type::bf16 || t == Type::bf16x2) && op != Op::ex2))) {
    error(in.loc, fmt::format("'.ftz' does not apply to '{}'", name));
    return;
  }
  // min/max with three sources: .f32 only, from sm_100.
  if ((op == Op::min || op == Op::max) && in.operands.size() == 4) {
    if (t != Type::f32)
      error(in.loc, fmt::format("'{}' takes 3 operands, 4 given (three "
                                "sources only for .f32)",
                                name));
    else if (known_target_ && target_.sm < 100)
      error(in.loc, fmt::format("'{}' with three sources requires .target "
                                "sm_100 or higher (the module's .target is "
                                "{})",
                                name, m_.target));
  }
  const bool flt = is_float_type(t);
  std::string rnd;
  Mod rnd_mod = Mod::unknown;
  for (Named r : {Named{Mod::rn, "rn"}, Named{Mod::rz, "rz"},
                  Named{Mod::rm, "rm"}, Named{Mod::rp, "rp"}})
    if (in.has(r.mod)) {
      rnd = r.text;
      rnd_mod = r.mod;
    }
  if (!rnd.empty() && !flt) {
    error(in.loc, fmt::format("rounding modifier '.{}' of '{}' applies to "
                              "float types only, not .{}",
                              rnd, in.opcode, tn));
    return;
  }
  if (!rnd.empty() && rnd_mod != Mod::rn &&
      (t == Type::f16 || t == Type::bf16 || t == Type::f16x2 ||
       t == Type::bf16x2)) {
    error(in.loc, fmt::format("'{}' on .{} takes only the rounding modifier "
                              "'.rn', not '.{}'",
                              in.opcode, tn, rnd));
    return;
  }
  if (flt)
    for (Named m :
         {Named{Mod::lo, "lo"}, Named{Mod::hi, "hi"}, Named{Mod::wide, "wide"}})
      if (in.has(m.mod) && (op == Op::mul || op == Op::mad)) {
        error(in.loc, fmt::format("'{}.{}' takes an integer type, not .{}",
                                  in.opcode, m.text, tn));
        return;
      }
  if (!flt)
    return;
  const bool approx = in.has(Mod::approx);
  const bool f64 = t == Type::f64;
  if (op == Op::div) {
    if (f64 && (approx || in.has(Mod::full)))
      error(in.loc, fmt::format("'{}' does not take .f64 (use a rounding "
                                "modifier)",
                                name));
    else if (rnd.empty() && !approx && !in.has(Mod::full))
      error(in.loc, fmt::format("'{}' requires a rounding modifier (.rn, .rz, "
                                ".rm or .rp){}",
                                name, f64 ? "" : ", .approx or .full"));
  } else if (op == Op::sqrt || op == Op::rcp) {
    if (op == Op::sqrt && f64 && approx)
      error(in.loc, "'sqrt.approx' does not take .f64");
    else if (op == Op::rcp && f64 && approx && !in.has(Mod::ftz))
      error(in.loc, "'rcp.approx.f64' requires '.ftz'");
    else if (rnd.empty() && !approx)
      error(in.loc, fmt::format("'{}' requires a rounding modifier (.rn, .rz, "
                                ".rm or .rp) or .approx",
                                name));
  } else if (op == Op::mad || op == Op::fma) {
    if (rnd.empty())
      error(in.loc, fmt::format("'{}' requires a rounding modifier (.rn, .rz, "
                                ".rm or .rp)",
                                name));
  } else if (op == Op::rsqrt || op == Op::ex2 || op == Op::lg2 ||
             op == Op::sin || op == Op::cos || op == Op::tanh) {
    if (!approx)
      error(in.loc, fmt::format("'{}' requires '.approx'", name));
  }
}

// cvt between scalar types: the rounding modifier each kind of conversion
// requires or refuses, and .ftz only where an .f32 is involved (ptxas:
// "Rounding modifier required for instruction 'cvt'", "Illegal rounding
// modifier for instruction 'cvt'").
void Validator::conversion(const Instruction &in) {
  if (in.op != Op::cvt)
    return;
  const auto &types = in.types;
  if (types.size() != 2)
    return;
  const TypeClass d = classify(types[0]), a = classify(types[1]);
  auto scalar = [](const TypeClass &c) {
    return c.k == 'u' || c.k == 's' || c.k == 'f' || c.k == 'b';
  };
  if (!scalar(d) || !scalar(a) || types[0] == Type::tf32 ||
      types[1] == Type::tf32)
    return;
  std::string frnd, irnd;
  Mod frnd_mod = Mod::unknown;
  for (Named r :
       {Named{Mod::rn, "rn"}, Named{Mod::rz, "rz"}, Named{Mod::rm, "rm"},
        Named{Mod::rp, "rp"}, Named{Mod::rna, "rna"}, Named{Mod::rs, "rs"}})
    if (in.has(r.mod)) {
      frnd = r.text;
      frnd_mod = r.mod;
    }
  for (Named r : {Named{Mod::rni, "rni"}, Named{Mod::rzi, "rzi"},
                  Named{Mod::rmi, "rmi"}, Named{Mod::rpi, "rpi"}})
    if (in.has(r.mod))
      irnd = r.text;
  const bool df = d.k == 'f', af = a.k == 'f';
  const std::string name = full_name(in);
  // What the conversion takes: a float rounding (.rn ...), an integer one
  // (.rni ...), or none; and whether it must have one.
  enum { None, Float, Integer } takes = None;
  bool required = false;
  if (df && !af) {
    takes = Float;
    required = true;
  } else if (!df && af) {
    takes = Integer;
    required = true;
  } else if (df && af) {
    if (d.bits < a.bits) {
      takes = Float;
      required = true;
    } else if (d.bits == a.bits) {
      // Round to an integral value, or (.f16 <-> .bf16) to the other
      // format, where the rounding is optional.
      takes = types[0] == types[1] ? Integer : Float;
    }
  }
  const std::string given = frnd.empty() ? irnd : frnd;
  if (!given.empty() &&
      ((takes == Float && frnd.empty()) || (takes == Integer && irnd.empty()) ||
       takes == None || frnd_mod == Mod::rna || frnd_mod == Mod::rs))
    error(in.loc,
          fmt::format("'{}': the rounding modifier '.{}' does not "
                      "apply to a conversion from .{} to .{}",
                      name, given, name_of(types[1]), name_of(types[0])));
  else if (given.empty() && required)
    error(in.loc, fmt::format("'{}' requires a rounding modifier ({}) for a "
                              "conversion from .{} to .{}",
                              name,
                              takes == Float ? ".rn, .rz, .rm or .rp"
                                             : ".rni, .rzi, .rmi or .rpi",
                              name_of(types[1]), name_of(types[0])));
  if (in.has(Mod::ftz) && types[0] != Type::f32 && types[1] != Type::f32)
    error(in.loc, fmt::format("'.ftz' of '{}' needs an .f32 source or "
                              "destination",
                              name));
}

// State spaces and memory-order modifiers of ld, st, atom and red, as
// ptxas checks them.
void Validator::memory(const Instruction &in) {
  const Op op = in.op;
  if (op != Op::ld && op != Op::st && op != Op::atom && op != Op::red)
    return;
  if (in.has(Mod::async) || in.has(Mod::bulk))
    return; // st.async, red.async: forms of their own
  const auto spaces = spaces_of(in, true);
  const std::string name = full_name(in);
  if (spaces.size() > 1) {
    error(in.loc, fmt::format("'{}' names {} state spaces; it takes one "
                              "(or none for a generic address)",
                              name, spaces.size()));
    return;
  }
  const Space sp = spaces.empty() ? Space::None : spaces[0].space;
  const std::string spn = spaces.empty() ? "" : spaces[0].text;
  bool space_ok = true;
  if (sp == Space::Tex)
    space_ok = false;
  else if (op == Op::st)
    space_ok = sp != Space::Const;
  else if (op == Op::atom || op == Op::red)
    space_ok = sp == Space::None || sp == Space::Global ||
               sp == Space::Shared || sp == Space::SharedCluster;
  if (!space_ok) {
    error(in.loc, fmt::format("'{}' does not take the state space .{}",
                              in.opcode, spn));
    return;
  }
  if (in.has(Mod::nc)) {
    if (op != Op::ld)
      error(in.loc, fmt::format("'.nc' is a modifier of 'ld' only, not of "
                                "'{}'",
                                in.opcode));
    else if (sp != Space::Global)
      error(in.loc, "'.nc' requires the .global state space");
  }
  const char *order = nullptr;
  Mod order_mod = Mod::unknown;
  for (Named m :
       {Named{Mod::volatile_, "volatile"}, Named{Mod::relaxed, "relaxed"},
        Named{Mod::acquire, "acquire"}, Named{Mod::release, "release"},
        Named{Mod::weak, "weak"}, Named{Mod::mmio, "mmio"}})
    if (in.has(m.mod)) {
      order = m.text;
      order_mod = m.mod;
    }
  if (order && (sp == Space::Local || sp == Space::Const) &&
      order_mod != Mod::weak)
    error(in.loc, fmt::format("'.{}' does not apply to the .{} state space",
                              order, spn));
  else if ((op == Op::ld || op == Op::st) &&
           (in.has(Mod::relaxed) || in.has(Mod::acquire) ||
            in.has(Mod::release)) &&
           !in.has(Mod::cta) && !in.has(Mod::cluster) && !in.has(Mod::gpu) &&
           !in.has(Mod::sys))
    error(in.loc, fmt::format("'.{}' on '{}' requires a scope (.cta, "
                              ".cluster, .gpu or .sys)",
                              order, in.opcode));
}

// Operand count, instruction type and register types from kSignatures.
void Validator::signature(const Function &fn, const Instruction &in) {
  using OK = Operand::Kind;
  const SignatureRow *srow = nullptr;
  for (const auto &s : signature_rows())
    if (in.op != Op::unknown && s.op == in.op && has_all(in, s.mods)) {
      srow = &s;
      break;
    }
  if (!srow)
    return;
  const Signature *sig = srow->row;
  const auto &types = in.types;
  // cvt: only the conversions between scalar types (packed and narrow
  // float formats have forms of their own).
  if (in.op == Op::cvt &&
      (types.size() != 2 || std::any_of(types.begin(), types.end(), [](Type t) {
         char k = classify(t).k;
         return k == '?' || k == 'x';
       })))
    return;
  struct Role {
    char kind;
    size_t type;
    bool optional;
  };
  std::vector<Role> roles;
  size_t need = 0, ntypes = 0;
  for (std::string_view tok : row_words(sig->operands)) {
    Role r{0, 0, false};
    if (tok.front() == '?') {
      r.optional = true;
      tok.remove_prefix(1);
    }
    r.kind = tok.front();
    r.type = tok.size() > 1 && tok[1] == '2' ? 1 : 0;
    if (r.kind == 'H' && !in.has(Mod::L2_cache_hint))
      continue;
    if (r.kind == 'T' || r.kind == 'W' || r.kind == 'L')
      ntypes = std::max(ntypes, r.type + 1);
    need += r.optional ? 0 : 1;
    roles.push_back(r);
  }
  const std::string name = full_name(in);
  const auto &o = in.operands;
  if (o.size() >= need && o.size() < roles.size()) {
    // Optional operands may stand before required ones (bar.red's thread
    // count): keep the first optional ones the operand count allows.
    size_t spare = o.size() - need;
    std::vector<Role> kept;
    for (const Role &r : roles)
      if (!r.optional || spare > 0) {
        spare -= r.optional ? 1 : 0;
        kept.push_back(r);
      }
    roles = std::move(kept);
    need = roles.size();
  }
  if (o.size() < need || o.size() > roles.size()) {
    std::string count = need == roles.size() ? fmt::format("{}", need)
                        : need + 1 == roles.size()
                            ? fmt::format("{} or {}", need, roles.size())
                            : fmt::format("{} to {}", need, roles.size());
    error(in.loc, fmt::format("'{}' takes {} operand{}, {} given", name, count,
                              roles.size() == 1 ? "" : "s", o.size()));
    return;
  }
  // Forms with another number of types (mixed-precision add.f32.f16, ...)
  // are not described here: only the operand count is checked.
  const bool typed = types.size() == ntypes;
  if (typed && ntypes > 0 && !srow->types.empty() &&
      std::find(srow->types.begin(), srow->types.end(), types[0]) ==
          srow->types.end()) {
    error(in.loc,
          fmt::format("'{}' does not take type .{} (it takes {})", in.opcode,
                      name_of(types[0]), dotted(sig->types)));
    return;
  }
  auto check = [&](const Role &r, const Operand &x, size_t i) {
    const RegInfo &reg = fn.regs[x.reg];
    const std::string &rt = reg.type;
    switch (r.kind) {
    case 'P':
      if (reg.ty != Type::pred)
        error(x.loc, fmt::format("operand {} of '{}' must be a predicate "
                                 "register",
                                 i, name));
      return;
    case 'U': {
      TypeClass c = classify(reg.ty);
      if (c.k != '?' &&
          !(c.bits == 32 && (c.k == 'b' || c.k == 'u' || c.k == 's')))
        error(x.loc, fmt::format("register '{}' (.{}) of '{}' must be a "
                                 "32-bit integer register (.b32, .u32 or "
                                 ".s32)",
                                 reg.name, rt, name));
      return;
    }
    case 'T':
    case 'W':
    case 'L': {
      if (!typed)
        return;
      const OpType t =
          r.kind == 'W' ? twice(types[r.type]) : op_type(types[r.type]);
      bool ok = compatible(reg.ty, t, r.kind == 'L');
      if (!ok)
        error(x.loc,
              fmt::format("register '{}' (.{}) does not match the type .{} "
                          "of '{}'{}",
                          reg.name, rt, t.text(), name,
                          r.kind == 'W'   ? " (twice the width of its type)"
                          : r.kind == 'L' ? " (a wider integer or bit-size "
                                            "register is allowed)"
                                          : ""));
      return;
    }
    default:
      return;
    }
  };
  // A constant operand: an integer constant for integer, bit-size and
  // predicate operands, a floating-point one (0f..., 0d..., 1.5) for .f32,
  // .f64 and bit-size operands (ptxas: "Arguments mismatch").
  auto constant = [&](const Role &r, const Operand &x, size_t i) {
    OpType t;
    if (r.kind == 'U')
      t = op_type(Type::u32);
    else if (r.kind == 'P')
      t = op_type(Type::pred);
    else if ((r.kind == 'T' || r.kind == 'W' || r.kind == 'L') && typed)
      t = r.kind == 'W' ? twice(types[r.type]) : op_type(types[r.type]);
    else
      return;
    const TypeClass c = t.c;
    bool ok = true;
    if (x.kind == OK::Imm)
      ok = !is_float_type(t);
    else
      ok = c.k == 'b' ||
           (c.k == 'f' && (c.bits == 32 || c.bits == 64) && t.id != Type::tf32);
    if (!ok)
      error(x.loc,
            fmt::format("operand {} of '{}' is a .{} operand: {} "
                        "constant does not fit it",
                        i, name, t.text(),
                        x.kind == OK::Imm ? "an integer" : "a floating-point"));
  };
  for (size_t i = 0; i < o.size(); ++i) {
    const Role &r = roles[i];
    const Operand &x = o[i];
    if (r.kind == '*')
      continue;
    if (r.kind == 'A') {
      if (x.kind != OK::Address) {
        error(x.loc, fmt::format("operand {} of '{}' must be an address "
                                 "([...])",
                                 i, name));
      } else if (!x.elems.empty() && x.elems[0].kind == OK::Reg) {
        const RegInfo &base = fn.regs[x.elems[0].reg];
        TypeClass c = classify(base.ty);
        if (c.k == 'p' || c.k == 'f' || c.k == 'x' || c.bits > 64)
          error(x.elems[0].loc,
                fmt::format("the address register '{}' (.{}) of '{}' must be "
                            "an integer or bit-size register",
                            base.name, base.type, name));
      }
      continue;
    }
    if (x.kind == OK::Address) {
      error(x.loc,
            fmt::format("operand {} of '{}' cannot be an address", i, name));
      continue;
    }
    if (r.kind == 'Q') {
      // elect.sync's d|p: a 32-bit register (or '_') and a predicate.
      if (x.kind != OK::Pair || x.elems.size() != 2) {
        error(x.loc, fmt::format("the destination of '{}' is a pair d|p (a "
                                 "32-bit register or '_', and a predicate)",
                                 name));
        continue;
      }
      if (x.elems[0].kind == OK::Reg)
        check(Role{'U', 0, false}, x.elems[0], i);
      if (x.elems[1].kind == OK::Reg)
        check(Role{'P', 0, false}, x.elems[1], i);
      else
        error(x.elems[1].loc,
              fmt::format("the destination of '{}' is a pair d|p (a "
                          "32-bit register or '_', and a predicate)",
                          name));
      continue;
    }
    if (r.kind == 'I') {
      if (x.kind != OK::Imm)
        error(x.loc, fmt::format("operand {} of '{}' must be an immediate "
                                 "value",
                                 i, name));
      continue;
    }
    if (x.kind == OK::Vector && r.kind == 'L') {
      size_t n = 0;
      for (Mod m : in.mods)
        n = m == Mod::v2 ? 2 : m == Mod::v4 ? 4 : m == Mod::v8 ? 8 : n;
      if (n && x.elems.size() != n)
        error(x.loc, fmt::format("'{}' takes a vector of {} registers, {} "
                                 "given",
                                 name, n, x.elems.size()));
      for (const auto &e : x.elems)
        if (e.kind == OK::Reg && !fn.regs[e.reg].vec)
          check(r, e, i);
      continue;
    }
    if (x.kind == OK::Pair && r.kind == 'P') {
      for (const auto &e : x.elems)
        if (e.kind == OK::Reg)
          check(r, e, i);
      continue;
    }
    if (x.kind == OK::Imm || x.kind == OK::FImm)
      constant(r, x, i);
    else if (x.kind == OK::Reg && !fn.regs[x.reg].vec)
      check(r, x, i);
  }
}

} // namespace

bool validate(const Module &module, DiagnosticSink &sink) {
  return Validator(module, sink).run();
}

} // namespace bcusim::ptx
