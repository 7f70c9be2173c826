// PTX parser: tokens (lexer.h) -> Module (ast.h), with every register,
// label and symbol resolved. One pass over the text for declarations and
// instructions; label and symbol operands are resolved when their function
// (labels, locals, parameters) or the module (globals, functions) ends, so
// forward references work. Registers are resolved at their use (PTX requires
// a register to be declared before it is used).
//
// Decisions are documented in docs/ptx-frontend.md.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "bcusim/ptx/ast.h"
#include "lexer.h"

namespace bcusim::ptx {

namespace {

using detail::Lexer;
using detail::Tok;
using detail::Token;

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const {
    return std::hash<std::string_view>{}(s);
  }
};
template <class V>
using NameMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

constexpr uint16_t kNoElem = 0xFFFF;
constexpr size_t kMaxErrors = 50;
// Nesting of parentheses, unary operators and `?:` in one constant
// expression (the parser recurses on each).
constexpr int kMaxExprDepth = 256;
constexpr uint32_t kMaxRegsPerFunction = 1u << 20;
// Largest variable accepted (bytes): far above any device memory, far below
// where size arithmetic could overflow.
constexpr uint64_t kMaxVariableBytes = 1ull << 40;

// Where a not-yet-resolved symbol operand sits in a function body.
struct OperandPath {
  uint32_t instr = 0;
  uint16_t op = 0;
  uint16_t elem = kNoElem;
  uint16_t sub = kNoElem;
  uint32_t scope = 0;
};

struct Binding {
  uint32_t value;
  uint32_t scope;
  uint32_t seq;
};

// Labels, locals and prototypes: one entry per (name, scope), so that a
// lookup costs one hash probe however often inline asm repeats a name.
class ScopedNames {
public:
  const Binding *find(std::string_view name, uint32_t scope) const {
    make_key(name, scope);
    auto it = map_.find(key_);
    return it == map_.end() ? nullptr : &it->second;
  }
  void insert(std::string_view name, uint32_t scope, Binding b) {
    make_key(name, scope);
    map_.emplace(key_, b);
  }
  void clear() { map_.clear(); }

private:
  void make_key(std::string_view name, uint32_t scope) const {
    key_.assign(name);
    key_ += '\x01';
    key_ += std::to_string(scope);
  }
  std::unordered_map<std::string, Binding> map_;
  mutable std::string key_;
};

struct RangeBinding {
  uint32_t base;
  uint32_t count;
  uint32_t scope;
  uint32_t seq;
};

// A type a register, variable or parameter may be declared with: the rows
// of types.def with a size.
bool is_scalar_type(std::string_view t) {
  return info(type_named(t)).bytes != 0;
}

bool is_special_register(std::string_view n) {
  static const std::unordered_set<std::string_view> names = {
      "%tid",
      "%tid.x",
      "%tid.y",
      "%tid.z",
      "%ntid",
      "%ntid.x",
      "%ntid.y",
      "%ntid.z",
      "%ctaid",
      "%ctaid.x",
      "%ctaid.y",
      "%ctaid.z",
      "%nctaid",
      "%nctaid.x",
      "%nctaid.y",
      "%nctaid.z",
      "%laneid",
      "%warpid",
      "%nwarpid",
      "%smid",
      "%nsmid",
      "%gridid",
      "%lanemask_eq",
      "%lanemask_le",
      "%lanemask_lt",
      "%lanemask_ge",
      "%lanemask_gt",
      "%clock",
      "%clock_hi",
      "%clock64",
      "%globaltimer",
      "%globaltimer_lo",
      "%globaltimer_hi",
      "%cluster_ctaid",
      "%cluster_ctaid.x",
      "%cluster_ctaid.y",
      "%cluster_ctaid.z",
      "%cluster_nctaid",
      "%cluster_nctaid.x",
      "%cluster_nctaid.y",
      "%cluster_nctaid.z",
      "%clusterid",
      "%clusterid.x",
      "%clusterid.y",
      "%clusterid.z",
      "%nclusterid",
      "%nclusterid.x",
      "%nclusterid.y",
      "%nclusterid.z",
      "%cluster_ctarank",
      "%cluster_nctarank",
      "%is_explicit_cluster",
      "%dynamic_smem_size",
      "%total_smem_size",
      "%aggr_smem_size",
      "%reserved_smem_offset_begin",
      "%reserved_smem_offset_end",
      "%reserved_smem_offset_cap",
      "%reserved_smem_offset_0",
      "%reserved_smem_offset_1",
      "%current_graph_exec",
  };
  if (names.count(n))
    return true;
  auto numbered = [&](std::string_view prefix, unsigned limit) {
    if (n.substr(0, prefix.size()) != prefix || n.size() == prefix.size())
      return false;
    std::string_view digits = n.substr(prefix.size());
    if (digits.size() > 2 || (digits.size() == 2 && digits[0] == '0'))
      return false;
    unsigned v = 0;
    for (char c : digits) {
      if (c < '0' || c > '9')
        return false;
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    return v < limit;
  };
  if (numbered("%envreg", 32) || numbered("%pm", 8))
    return true;
  if (n.size() > 6 && n.substr(n.size() - 3) == "_64" &&
      n.substr(0, 3) == "%pm") {
    std::string_view core = n.substr(0, n.size() - 3);
    return core.size() == 4 && core[3] >= '0' && core[3] <= '7';
  }
  return false;
}

Space space_from_name(std::string_view n) {
  if (n == "global")
    return Space::Global;
  if (n == "shared" || n == "shared::cta")
    return Space::Shared;
  if (n == "shared::cluster")
    return Space::SharedCluster;
  if (n == "const")
    return Space::Const;
  if (n == "local")
    return Space::Local;
  if (n == "param")
    return Space::Param;
  if (n == "reg")
    return Space::Reg;
  if (n == "tex")
    return Space::Tex;
  return Space::None;
}

class Parser {
public:
  Parser(std::shared_ptr<const SourceFile> source, DiagnosticSink &sink)
      : source_(std::move(source)), file_(*source_), lex_(file_), sink_(sink) {
    tok_ = lex_.next();
    peek_ = lex_.next();
  }

  std::optional<Module> run();

private:
  // ---- tokens -------------------------------------------------------------
  void advance() {
    tok_ = peek_;
    peek_ = lex_.next();
  }
  bool is_punct(char c) const {
    return tok_.kind == Tok::Punct && tok_.punct == c;
  }
  bool is_dot(std::string_view name) const {
    return tok_.kind == Tok::DotName && tok_.text == name;
  }
  SourceLoc loc(const Token &t) const {
    return SourceLoc{&file_, t.line, t.col, std::max<uint32_t>(t.length, 1)};
  }
  // A location from the start of `first` to the end of `last`.
  SourceLoc span(const Token &first, const Token &last) const {
    SourceLoc l = loc(first);
    if (last.line == first.line && last.offset + last.length > first.offset)
      l.length = last.offset + last.length - first.offset;
    return l;
  }
  std::string describe(const Token &t) const {
    switch (t.kind) {
    case Tok::End:
      return "end of file";
    case Tok::DotName:
      return fmt::format("'.{}'", t.text);
    case Tok::String:
      return fmt::format("'\"{}\"'", t.text);
    default:
      return fmt::format("'{}'", t.text);
    }
  }
  Diagnostic &error(const SourceLoc &l, std::string msg) {
    ++errors_;
    Diagnostic &d = sink_.error(l, std::move(msg));
    if (errors_ == kMaxErrors)
      DiagnosticSink::note(
          d, SourceLoc{},
          fmt::format("too many errors ({}); stopping", kMaxErrors));
    return d;
  }
  // Reports "expected X" at the current token (or the lexer's own error).
  bool expected(std::string_view what) {
    if (tok_.kind == Tok::Error)
      error(loc(tok_), tok_.error);
    else
      error(loc(tok_),
            fmt::format("expected {}, found {}", what, describe(tok_)));
    return false;
  }
  bool expect_punct(char c) {
    if (!is_punct(c))
      return expected(fmt::format("'{}'", c));
    advance();
    return true;
  }
  // An integer literal (ptxas takes no constant expression in directives,
  // alignments and register counts); `closer` may follow it.
  bool expect_u32(uint32_t &out, std::string_view what, char closer = '\0') {
    if (is_punct('(') && !no_expr_here(what, closer))
      return false;
    if (tok_.kind != Tok::Int)
      return expected(what);
    if (tok_.ival > UINT32_MAX) {
      error(loc(tok_), fmt::format("{} out of range", what));
      return false;
    }
    out = static_cast<uint32_t>(tok_.ival);
    advance();
    return no_expr_here(what, closer);
  }
  // The latest .loc in the function being parsed (file, line, col), the
  // outermost call site it was inlined at (0: not inlined), and the
  // inlining chain seen so far in the function.
  uint32_t cur_src_[3] = {0, 0, 0};
  std::array<uint32_t, 3> cur_call_{0, 0, 0};
  std::map<std::array<uint32_t, 3>, std::array<uint32_t, 3>> inlined_at_;
  // Skips the rest of a source line (for .loc / .file).
  void skip_line(uint32_t line) {
    while (tok_.kind != Tok::End && tok_.line == line)
      advance();
  }
  // Error recovery inside a body: skip to after the next ';' (or to a '}'
  // closing the scope we are in).
  void recover() {
    int depth = 0;
    while (tok_.kind != Tok::End) {
      if (is_punct(';') && depth == 0) {
        advance();
        return;
      }
      if (is_punct('{'))
        ++depth;
      if (is_punct('}')) {
        if (depth == 0)
          return;
        --depth;
      }
      advance();
    }
  }

  // ---- constant expressions (folded at parse time) ------------------------
  // A value of a constant expression: a 64-bit integer, signed or unsigned,
  // or an f64. A `0f` literal keeps its f32 bits until an operator applies
  // to it (see f32_operand).
  struct Const {
    enum class Kind : uint8_t { S64, U64, F64 } kind = Kind::S64;
    uint64_t bits = 0;
    bool f32_literal = false; // bits are a 0f literal's 32 bits
    bool bare = false;        // ... written without parentheses
    Token first, last;
    bool is_int() const { return kind != Kind::F64; }
  };
  bool starts_expr() const;
  bool parse_expr(Const &out);
  bool parse_binary(Const &out, int min_prec);
  bool parse_unary(Const &out);
  bool parse_primary(Const &out);
  int binary_op(std::string_view &op, int &ntok) const;
  bool fold_binary(std::string_view op, const Token &op_tok, Const &a, Const b);
  static void f32_operand(Const &c);
  bool no_expr_here(std::string_view what, char closer);
  int expr_depth_ = 0;
  struct ExprDepth {
    int &d;
    explicit ExprDepth(int &x) : d(x) { ++d; }
    ~ExprDepth() { --d; }
    ExprDepth(const ExprDepth &) = delete;
    ExprDepth &operator=(const ExprDepth &) = delete;
  };
  bool enter_expr() {
    if (expr_depth_ < kMaxExprDepth)
      return true;
    error(loc(tok_), "constant expression nested too deeply");
    return false;
  }

  // ---- module level -------------------------------------------------------
  bool parse_top_level();
  bool parse_version();
  bool parse_target();
  bool skip_section();
  bool parse_function(bool is_entry, bool is_extern, bool is_visible,
                      bool is_weak, const Token &start);
  bool parse_param_list(std::vector<Param> &out, bool allow_unnamed);
  bool parse_param(Param &p, bool allow_unnamed);
  bool parse_kernel_directive(Function &f, bool &handled);
  bool parse_var_decl(Space space, bool is_extern, bool is_visible,
                      bool is_weak, bool is_common, std::vector<VarDecl> &out,
                      uint32_t scope, const Token &start);
  bool parse_initializer(VarDecl &v);
  bool parse_init_item(VarDecl &v, int depth);
  bool add_global(VarDecl v);

  // ---- function bodies ----------------------------------------------------
  bool parse_body(Function &f, uint32_t fn_index);
  bool parse_body_statement(Function &f);
  bool parse_reg_decl(Function &f);
  bool parse_label_or_prototype(Function &f);
  bool parse_instruction(Function &f);
  bool parse_operand(Function &f, Operand &out, uint16_t op, uint16_t elem,
                     uint16_t sub, bool allow_compound);
  bool parse_address(Function &f, Operand &out, uint16_t op);
  bool parse_ident_operand(Function &f, Operand &out, uint16_t op,
                           uint16_t elem, uint16_t sub);
  void push_scope(Function &f);
  void pop_scope();
  bool declare_reg(Function &f, std::string_view name, const Token &at,
                   std::string_view type, uint8_t vec);
  bool declare_reg_range(Function &f, std::string_view prefix, uint32_t count,
                         const Token &at, std::string_view type, uint8_t vec);
  std::optional<uint32_t> lookup_reg(std::string_view name) const;
  void resolve_function_refs(Function &f, uint32_t fn_index);
  Operand &operand_at(Function &f, const OperandPath &p);
  void resolve_module_refs();

  std::shared_ptr<const SourceFile> source_;
  const SourceFile &file_;
  Lexer lex_;
  DiagnosticSink &sink_;
  Token tok_, peek_;
  size_t errors_ = 0;
  Module mod_;
  NameMap<uint32_t> global_index_;
  NameMap<uint32_t> function_index_;
  std::vector<std::pair<uint32_t, OperandPath>> module_refs_;

  // Per-function state (reset by parse_body).
  uint32_t scope_ = 0;
  uint32_t seq_ = 0;
  NameMap<std::vector<Binding>> reg_exact_;
  NameMap<std::vector<RangeBinding>> reg_ranges_;
  // Undo log: which binding stacks got an entry in each open scope.
  struct Undo {
    std::vector<Binding> *exact = nullptr;
    std::vector<RangeBinding> *range = nullptr;
  };
  std::vector<Undo> undo_;
  std::vector<size_t> undo_marks_;
  std::vector<uint32_t> open_scopes_;
  ScopedNames labels_; // value: body index; seq: index in label_tokens_
  ScopedNames locals_; // value: Function::locals index
  ScopedNames protos_; // value: Function::prototypes index
  std::vector<OperandPath> refs_;
  std::vector<Token> label_tokens_; // parallel to Function::labels
};

// ===========================================================================
// Constant expressions (docs/ptx-frontend.md, "Constant expressions")
// ===========================================================================

// Whether the current token can begin a constant expression. `!` followed
// by a name is a negated predicate, not logical not.
bool Parser::starts_expr() const {
  if (tok_.kind == Tok::Int || tok_.kind == Tok::Float)
    return true;
  if (tok_.kind != Tok::Punct)
    return false;
  switch (tok_.punct) {
  case '-':
  case '+':
  case '~':
  case '(':
    return true;
  case '!':
    return peek_.kind != Tok::Ident;
  default:
    return false;
  }
}

// The binary operator at the current token: its precedence (0 = none), its
// spelling and how many tokens it takes (`<<` is two adjacent '<').
int Parser::binary_op(std::string_view &op, int &ntok) const {
  if (tok_.kind != Tok::Punct)
    return 0;
  char c = tok_.punct;
  char n = peek_.kind == Tok::Punct && peek_.offset == tok_.offset + 1
               ? peek_.punct
               : '\0';
  ntok = 1;
  auto two = [&](std::string_view s) {
    op = s;
    ntok = 2;
  };
  switch (c) {
  case '*':
  case '/':
  case '%':
    op = tok_.text;
    return 10;
  case '+':
  case '-':
    op = tok_.text;
    return 9;
  case '<':
  case '>':
    if (n == c) {
      two(c == '<' ? "<<" : ">>");
      return 8;
    }
    if (n == '=') {
      two(c == '<' ? "<=" : ">=");
      return 7;
    }
    op = tok_.text;
    return 7;
  case '=':
  case '!':
    if (n != '=')
      return 0;
    two(c == '=' ? "==" : "!=");
    return 6;
  case '&':
    if (n == '&') {
      two("&&");
      return 2;
    }
    op = tok_.text;
    return 5;
  case '^':
    op = tok_.text;
    return 4;
  case '|':
    if (n == '|') {
      two("||");
      return 1;
    }
    op = tok_.text;
    return 3;
  default:
    return 0;
  }
}

bool Parser::parse_expr(Const &out) {
  // Nested `?:` and unary operators recurse: both count against one depth.
  if (!enter_expr())
    return false;
  ExprDepth guard(expr_depth_);
  if (!parse_binary(out, 1))
    return false;
  if (!is_punct('?'))
    return true;
  Token q = tok_;
  advance();
  Const a, b;
  if (!parse_expr(a) || !expect_punct(':') || !parse_expr(b))
    return false;
  if (!out.is_int() || !a.is_int() || !b.is_int()) {
    error(span(out.first, b.last), "'?:' needs integer operands");
    return false;
  }
  (void)q;
  Token first = out.first;
  // ptxas keeps the type of the chosen operand (no usual conversions).
  out = out.bits != 0 ? a : b;
  out.first = first;
  out.last = b.last;
  return true;
}

bool Parser::parse_binary(Const &out, int min_prec) {
  if (!parse_unary(out))
    return false;
  while (true) {
    std::string_view op;
    int ntok = 1;
    int prec = binary_op(op, ntok);
    if (prec < min_prec || prec == 0)
      return true;
    Token op_tok = tok_;
    std::string op_text(op);
    for (int i = 0; i < ntok; ++i)
      advance();
    Const rhs;
    if (!parse_binary(rhs, prec + 1))
      return false;
    if (!fold_binary(op_text, op_tok, out, rhs))
      return false;
  }
}

bool Parser::parse_unary(Const &out) {
  if (!enter_expr())
    return false;
  ExprDepth guard(expr_depth_);
  Token first = tok_;
  if (is_punct('(') && peek_.kind == Tok::DotName) {
    // Casts: (.s64) and (.u64).
    advance();
    Token type = tok_;
    if (tok_.text != "s64" && tok_.text != "u64") {
      error(loc(type), fmt::format("unsupported cast to '.{}' (a constant "
                                   "expression casts only to .s64 or .u64)",
                                   type.text));
      return false;
    }
    advance();
    if (!expect_punct(')'))
      return false;
    if (!parse_unary(out))
      return false;
    if (!out.is_int()) {
      error(span(first, out.last), "a cast needs an integer operand");
      return false;
    }
    out.kind = type.text == "s64" ? Const::Kind::S64 : Const::Kind::U64;
    out.first = first;
    return true;
  }
  if (tok_.kind == Tok::Punct && (tok_.punct == '-' || tok_.punct == '+' ||
                                  tok_.punct == '~' || tok_.punct == '!')) {
    char op = tok_.punct;
    advance();
    if (!parse_unary(out))
      return false;
    out.first = first;
    if (op == '+')
      return true;
    if (!out.is_int()) {
      if (op != '-') {
        error(span(first, out.last),
              fmt::format("'{}' needs an integer operand", op));
        return false;
      }
      if (out.f32_literal && out.bare) {
        out.bits ^= 1ull << 31; // `-0f3F800000` (not PTX): the sign flips
        return true;
      }
      f32_operand(out);
      out.bits ^= 1ull << 63;
      return true;
    }
    if (op == '-')
      out.bits = 0 - out.bits;
    else if (op == '~') {
      out.bits = ~out.bits;
      out.kind = Const::Kind::U64; // ptxas: always unsigned
    } else {
      out.bits = out.bits == 0 ? 1 : 0;
      out.kind = Const::Kind::S64;
    }
    return true;
  }
  return parse_primary(out);
}

bool Parser::parse_primary(Const &out) {
  out.first = out.last = tok_;
  if (tok_.kind == Tok::Int) {
    char lastc = tok_.text.empty() ? '\0' : tok_.text.back();
    bool u = lastc == 'u' || lastc == 'U' ||
             tok_.ival > static_cast<uint64_t>(INT64_MAX);
    out.kind = u ? Const::Kind::U64 : Const::Kind::S64;
    out.bits = tok_.ival;
    advance();
    return true;
  }
  if (tok_.kind == Tok::Float) {
    out.kind = Const::Kind::F64;
    out.bits = tok_.ival;
    out.f32_literal = tok_.is_f32;
    out.bare = true;
    advance();
    return true;
  }
  if (is_punct('(')) {
    Token open = tok_;
    advance();
    if (!parse_expr(out))
      return false;
    if (!is_punct(')'))
      return expected("')'");
    out.bare = false;
    out.first = open;
    out.last = tok_;
    advance();
    return true;
  }
  return expected("a constant");
}

// An operator applied to a `0f` literal: ptxas 13 takes the literal's 32
// bits, zero-extended, as the bits of an f64 (so `-(0f40000000)` is a tiny
// negative denormal, -0.0 once rounded to f32). bcusim computes the same
// value, the one a GPU runs (docs/ptx-frontend.md).
void Parser::f32_operand(Const &c) {
  if (!c.f32_literal)
    return;
  c.f32_literal = false;
  c.bare = false;
  c.bits &= 0xFFFFFFFFull;
}

bool Parser::fold_binary(std::string_view op, const Token &op_tok, Const &a,
                         Const b) {
  SourceLoc where = span(a.first, b.last);
  if ((a.f32_literal && a.bare) || (b.f32_literal && b.bare)) {
    // ptxas: a syntax error (it takes a parenthesized one).
    error(where, fmt::format("a 0f floating-point literal cannot be an "
                             "operand of '{}' without parentheses",
                             op));
    return false;
  }
  f32_operand(a);
  f32_operand(b);
  (void)op_tok;
  bool cmp = op == "<" || op == ">" || op == "<=" || op == ">=" || op == "==" ||
             op == "!=";
  if (!a.is_int() || !b.is_int()) {
    if (a.is_int() || b.is_int()) {
      error(where, "constant expression mixes integer and floating-point "
                   "operands");
      return false;
    }
    double x, y;
    std::memcpy(&x, &a.bits, 8);
    std::memcpy(&y, &b.bits, 8);
    double r = 0;
    if (cmp) {
      bool v = op == "<"    ? x < y
               : op == ">"  ? x > y
               : op == "<=" ? x <= y
               : op == ">=" ? x >= y
               : op == "==" ? x == y
                            : x != y;
      a.kind = Const::Kind::S64;
      a.bits = v ? 1 : 0;
      a.last = b.last;
      return true;
    }
    if (op == "+")
      r = x + y;
    else if (op == "-")
      r = x - y;
    else if (op == "*")
      r = x * y;
    else if (op == "/") {
      if (y == 0) {
        error(where, "division by zero in constant expression");
        return false;
      }
      r = x / y;
    } else {
      error(where, fmt::format("'{}' needs integer operands", op));
      return false;
    }
    std::memcpy(&a.bits, &r, 8);
    a.last = b.last;
    return true;
  }
  bool u = a.kind == Const::Kind::U64 || b.kind == Const::Kind::U64;
  uint64_t x = a.bits, y = b.bits;
  auto sx = static_cast<int64_t>(x), sy = static_cast<int64_t>(y);
  Const::Kind kind = u ? Const::Kind::U64 : Const::Kind::S64;
  uint64_t r = 0;
  if (op == "*")
    r = x * y;
  else if (op == "+")
    r = x + y;
  else if (op == "-")
    r = x - y;
  else if (op == "&")
    r = x & y;
  else if (op == "^")
    r = x ^ y;
  else if (op == "|")
    r = x | y;
  else if (op == "/" || op == "%") {
    if (y == 0) {
      error(where, fmt::format("{} by zero in constant expression",
                               op == "/" ? "division" : "remainder"));
      return false;
    }
    if (op == "%") {
      r = x % y; // ptxas: always unsigned
      kind = Const::Kind::U64;
    } else if (u) {
      r = x / y;
    } else {
      if (sx == INT64_MIN && sy == -1) {
        error(where, "constant expression overflows (the most negative "
                     "64-bit value divided by -1)");
        return false;
      }
      r = static_cast<uint64_t>(sx / sy);
    }
  } else if (op == "<<" || op == ">>") {
    // The left operand's type; the count is taken modulo 64 (as ptxas).
    unsigned n = static_cast<unsigned>(y & 63);
    kind = a.kind;
    if (op == "<<")
      r = x << n;
    else if (a.kind == Const::Kind::S64)
      r = static_cast<uint64_t>(sx >> n);
    else
      r = x >> n;
  } else if (cmp) {
    bool v;
    if (u)
      v = op == "<"    ? x < y
          : op == ">"  ? x > y
          : op == "<=" ? x <= y
          : op == ">=" ? x >= y
          : op == "==" ? x == y
                       : x != y;
    else
      v = op == "<"    ? sx < sy
          : op == ">"  ? sx > sy
          : op == "<=" ? sx <= sy
          : op == ">=" ? sx >= sy
          : op == "==" ? sx == sy
                       : sx != sy;
    r = v ? 1 : 0;
    kind = Const::Kind::S64;
  } else if (op == "&&" || op == "||") {
    bool v = op == "&&" ? (x != 0 && y != 0) : (x != 0 || y != 0);
    r = v ? 1 : 0;
    kind = Const::Kind::S64;
  }
  a.kind = kind;
  a.bits = r;
  a.last = b.last;
  return true;
}

// Where ptxas takes only an integer literal: an operator after the literal
// (other than `closer`, which ends the construct) or a parenthesis before
// it would start a constant expression, which ptxas rejects there.
bool Parser::no_expr_here(std::string_view what, char closer) {
  if (tok_.kind != Tok::Punct || tok_.punct == closer ||
      std::strchr("*/%+-&^|?<>(", tok_.punct) == nullptr)
    return true;
  error(loc(tok_), fmt::format("a constant expression cannot be used as {} "
                               "(only an integer literal)",
                               what));
  return false;
}

// ===========================================================================
// Module level
// ===========================================================================

// The declared types of a module, resolved once against the type table
// (types.def): RegInfo::ty, VarDecl::ty and Param::ty.
void resolve_types(Module &m) {
  auto resolve = [](auto &items) {
    for (auto &x : items)
      x.ty = type_named(x.type);
  };
  resolve(m.globals);
  for (auto &f : m.functions) {
    resolve(f.params);
    resolve(f.returns);
    resolve(f.regs);
    resolve(f.locals);
    for (auto &p : f.prototypes) {
      resolve(p.params);
      resolve(p.returns);
    }
  }
}

std::optional<Module> Parser::run() {
  mod_.source = source_;
  // A module begins with its PTX ISA version, as ptxas requires ("Missing
  // .version directive at start of file").
  if (tok_.kind != Tok::DotName || tok_.text != "version")
    error(loc(tok_), "a PTX module must begin with a .version directive "
                     "(such as .version 9.0)");
  bool aborted = false;
  while (tok_.kind != Tok::End && errors_ < kMaxErrors) {
    if (!parse_top_level()) {
      aborted = true; // module-level errors are not recovered from
      break;
    }
  }
  // With the whole module read, names left unresolved are errors too (also
  // when a body had errors: those are independent).
  if (!aborted && errors_ < kMaxErrors)
    resolve_module_refs();
  if (errors_ != 0)
    return std::nullopt;
  resolve_types(mod_);
  return std::move(mod_);
}

bool Parser::parse_top_level() {
  if (tok_.kind != Tok::DotName) {
    if (tok_.kind == Tok::Error)
      return expected("");
    return expected("a directive");
  }
  Token start = tok_;
  std::string_view d = tok_.text;
  if (d == "version")
    return parse_version();
  if (d == "target")
    return parse_target();
  if (d == "address_size") {
    advance();
    uint32_t v = 0;
    Token at = tok_;
    if (!expect_u32(v, "an address size"))
      return false;
    if (v != 32 && v != 64) {
      error(loc(at), "address size must be 32 or 64");
      return false;
    }
    mod_.address_size = v;
    return true;
  }
  if (d == "file") {
    // .file N "name" {, timestamp, size}: kept for source positions.
    advance();
    if (tok_.kind == Tok::Int && tok_.line == start.line) {
      uint32_t n = static_cast<uint32_t>(tok_.ival);
      advance();
      if (tok_.kind == Tok::String && tok_.line == start.line)
        mod_.files.emplace_back(n, std::string(tok_.text));
    }
    skip_line(start.line);
    return true;
  }
  if (d == "loc") {
    advance();
    skip_line(start.line);
    return true;
  }
  if (d == "section")
    return skip_section();
  if (d == "pragma") {
    advance();
    if (tok_.kind != Tok::String)
      return expected("a string");
    mod_.pragmas.emplace_back(tok_.text);
    advance();
    return expect_punct(';');
  }
  // Linkage and declarations.
  bool is_extern = false, is_visible = false, is_weak = false,
       is_common = false;
  while (tok_.kind == Tok::DotName &&
         (tok_.text == "extern" || tok_.text == "visible" ||
          tok_.text == "weak" || tok_.text == "common")) {
    is_extern |= tok_.text == "extern";
    is_visible |= tok_.text == "visible";
    is_weak |= tok_.text == "weak";
    is_common |= tok_.text == "common";
    advance();
  }
  if (tok_.kind != Tok::DotName)
    return expected("a declaration after linkage directive");
  if (tok_.text == "entry" || tok_.text == "func") {
    bool entry = tok_.text == "entry";
    advance();
    return parse_function(entry, is_extern, is_visible, is_weak, start);
  }
  Space space = space_from_name(tok_.text);
  if (space == Space::Global || space == Space::Shared ||
      space == Space::SharedCluster || space == Space::Const ||
      space == Space::Local || space == Space::Tex) {
    if (space == Space::SharedCluster) {
      error(loc(tok_), "'.shared::cluster' variables cannot be declared; "
                       "declare them '.shared'");
      return false;
    }
    advance();
    std::vector<VarDecl> decls;
    if (!parse_var_decl(space, is_extern, is_visible, is_weak, is_common, decls,
                        0, start))
      return false;
    for (auto &v : decls)
      if (!add_global(std::move(v)))
        return false;
    return true;
  }
  error(loc(tok_), fmt::format("unknown directive '.{}'", tok_.text));
  return false;
}

bool Parser::parse_version() {
  advance();
  if (tok_.kind != Tok::Float && tok_.kind != Tok::Int)
    return expected("a version number such as 9.0");
  mod_.version = std::string(tok_.text);
  mod_.version_loc = loc(tok_);
  advance();
  return true;
}

bool Parser::parse_target() {
  Token start = tok_;
  advance();
  bool first = true;
  while (true) {
    if (tok_.kind != Tok::Ident || tok_.line != start.line)
      return expected("a target name such as sm_90");
    if (first) {
      mod_.target = std::string(tok_.text);
      mod_.target_loc = loc(tok_);
    }
    mod_.targets.emplace_back(tok_.text);
    first = false;
    advance();
    if (!is_punct(',') || tok_.line != start.line)
      return true;
    advance();
  }
}

bool Parser::skip_section() {
  advance(); // .section
  if (tok_.kind != Tok::DotName && tok_.kind != Tok::Ident)
    return expected("a section name");
  advance();
  if (!is_punct('{'))
    return expected("'{'");
  Token open = tok_;
  advance();
  int depth = 1;
  while (depth > 0) {
    if (tok_.kind == Tok::End) {
      error(loc(open), "unterminated '.section' block");
      return false;
    }
    if (is_punct('{'))
      ++depth;
    else if (is_punct('}'))
      --depth;
    advance();
  }
  return true;
}

bool Parser::parse_param(Param &p, bool allow_unnamed) {
  p.loc = loc(tok_);
  if (is_dot("param"))
    p.space = Space::Param;
  else if (is_dot("reg"))
    p.space = Space::Reg;
  else
    return expected("'.param' or '.reg'");
  advance();
  bool have_type = false;
  while (tok_.kind == Tok::DotName) {
    std::string_view a = tok_.text;
    if (a == "align") {
      advance();
      if (!expect_u32(p.align, "an alignment"))
        return false;
      continue;
    }
    if (a == "ptr") {
      p.is_ptr = true;
      advance();
      continue;
    }
    Space s = space_from_name(a);
    if (p.is_ptr && (s == Space::Global || s == Space::Shared ||
                     s == Space::Const || s == Space::Local)) {
      p.ptr_space = s;
      advance();
      continue;
    }
    if (a == "v2" || a == "v4" || a == "v8") {
      // Vector parameters are not produced by nvcc; reject explicitly.
      error(loc(tok_), "vector parameters are not supported");
      return false;
    }
    if (is_scalar_type(a)) {
      if (have_type) {
        error(loc(tok_), "parameter has two types");
        return false;
      }
      p.type = std::string(a);
      have_type = true;
      advance();
      continue;
    }
    error(loc(tok_), fmt::format("unknown parameter attribute '.{}'", a));
    return false;
  }
  if (!have_type)
    return expected("a parameter type");
  if (tok_.kind == Tok::Ident) {
    p.name = std::string(tok_.text);
    p.loc = loc(tok_);
    advance();
  } else if (!allow_unnamed) {
    return expected("a parameter name");
  }
  if (is_punct('[')) {
    advance();
    if (is_punct('(') && !no_expr_here("an array size", ']'))
      return false;
    if (tok_.kind != Tok::Int || tok_.ival == 0)
      return expected("an array size");
    if (tok_.ival > (1u << 20)) {
      // The PTX ISA bounds parameter space far below this.
      error(loc(tok_), "parameter array too large");
      return false;
    }
    p.array_size = tok_.ival;
    advance();
    if (!no_expr_here("an array size", ']') || !expect_punct(']'))
      return false;
  }
  return true;
}

bool Parser::parse_param_list(std::vector<Param> &out, bool allow_unnamed) {
  if (!expect_punct('('))
    return false;
  if (is_punct(')')) {
    advance();
    return true;
  }
  while (true) {
    Param p;
    if (!parse_param(p, allow_unnamed))
      return false;
    // In a .callprototype, parameters may all be named `_` (as nvcc writes
    // them): `_` names no parameter.
    if (!p.name.empty() && !(allow_unnamed && p.name == "_"))
      for (const Param &q : out)
        if (q.name == p.name) {
          Diagnostic &d = error(
              p.loc, fmt::format("redefinition of parameter '{}'", p.name));
          DiagnosticSink::note(d, q.loc, "previous definition is here");
          return false;
        }
    out.push_back(std::move(p));
    if (is_punct(',')) {
      advance();
      continue;
    }
    return expect_punct(')');
  }
}

bool Parser::parse_kernel_directive(Function &f, bool &handled) {
  handled = true;
  std::string_view d = tok_.text;
  f.directive_locs.emplace_back(std::string(d), loc(tok_));
  auto dims = [&](std::array<uint32_t, 3> &out) {
    Token at = tok_;
    advance();
    for (int i = 0; i < 3; ++i) {
      Token v = tok_;
      if (!expect_u32(out[static_cast<size_t>(i)], "a dimension"))
        return false;
      if (out[static_cast<size_t>(i)] == 0) {
        error(loc(v),
              fmt::format("'.{}' dimensions must be positive", at.text));
        return false;
      }
      if (!is_punct(','))
        break;
      advance();
    }
    for (auto &x : out)
      if (x == 0)
        x = 1;
    return true;
  };
  if (d == "maxntid")
    return dims(f.maxntid);
  if (d == "reqntid")
    return dims(f.reqntid);
  if (d == "reqnctapercluster")
    return dims(f.reqnctapercluster);
  if (d == "minnctapersm" || d == "maxnreg" || d == "maxclusterrank" ||
      d == "minnctapersm") {
    advance();
    uint32_t &dst = d == "minnctapersm" ? f.minnctapersm
                    : d == "maxnreg"    ? f.maxnreg
                                        : f.maxclusterrank;
    return expect_u32(dst, "a count");
  }
  if (d == "explicitcluster") {
    f.explicitcluster = true;
    advance();
    return true;
  }
  if (d == "noreturn") {
    f.noreturn = true;
    advance();
    return true;
  }
  if (d == "pragma") {
    advance();
    if (tok_.kind != Tok::String)
      return expected("a string");
    f.pragmas.emplace_back(tok_.text);
    advance();
    return expect_punct(';');
  }
  handled = false;
  return true;
}

bool Parser::parse_function(bool is_entry, bool is_extern, bool is_visible,
                            bool is_weak, const Token &start) {
  Function f;
  f.is_entry = is_entry;
  f.is_visible = is_visible;
  f.is_weak = is_weak;
  cur_src_[0] = cur_src_[1] = cur_src_[2] = 0;
  cur_call_ = {0, 0, 0};
  inlined_at_.clear();
  if (!is_entry && is_punct('(')) {
    if (!parse_param_list(f.returns, false))
      return false;
  }
  if (tok_.kind != Tok::Ident || tok_.text[0] == '%')
    return expected(is_entry ? "a kernel name" : "a function name");
  f.name = std::string(tok_.text);
  f.loc = loc(tok_);
  Token name_tok = tok_;
  advance();
  if (is_punct('(')) {
    if (!parse_param_list(f.params, false))
      return false;
  }
  while (tok_.kind == Tok::DotName) {
    bool handled = false;
    if (!parse_kernel_directive(f, handled))
      return false;
    if (!handled) {
      error(loc(tok_),
            fmt::format("unknown function directive '.{}'", tok_.text));
      return false;
    }
  }
  (void)start;
  bool has_body = is_punct('{');
  if (!has_body && !is_punct(';'))
    return expected("'{' or ';'");
  // A body-less declaration (prototype or .extern) may precede the
  // definition; both share one Module::functions entry so that operands
  // resolved against the declaration stay valid.
  uint32_t index;
  auto it = function_index_.find(f.name);
  if (it != function_index_.end()) {
    Function &prev = mod_.functions[it->second];
    if (!prev.is_extern && has_body) {
      Diagnostic &d =
          error(loc(name_tok), fmt::format("redefinition of '{}'", f.name));
      DiagnosticSink::note(d, prev.loc, "previous definition is here");
      return false;
    }
    if (prev.is_entry != f.is_entry) {
      Diagnostic &d =
          error(loc(name_tok),
                fmt::format("'{}' redeclared as a different kind of function",
                            f.name));
      DiagnosticSink::note(d, prev.loc, "previous declaration is here");
      return false;
    }
    index = it->second;
    if (!has_body) {
      advance(); // ';' : a repeated declaration changes nothing
      return true;
    }
    mod_.functions[index] = std::move(f);
  } else {
    index = static_cast<uint32_t>(mod_.functions.size());
    function_index_.emplace(f.name, index);
    mod_.functions.push_back(std::move(f));
  }
  Function &fn = mod_.functions[index];
  if (!has_body) {
    fn.is_extern = true;
    advance();
    return true;
  }
  (void)is_extern;
  fn.is_extern = false;
  return parse_body(fn, index);
}

bool Parser::parse_var_decl(Space space, bool is_extern, bool is_visible,
                            bool is_weak, bool is_common,
                            std::vector<VarDecl> &out, uint32_t scope,
                            const Token &start) {
  VarDecl proto;
  proto.space = space;
  proto.is_extern = is_extern;
  proto.is_visible = is_visible;
  proto.is_weak = is_weak;
  proto.is_common = is_common;
  proto.scope = scope;
  (void)start;
  bool have_type = false;
  while (tok_.kind == Tok::DotName) {
    std::string_view a = tok_.text;
    if (a == "align") {
      advance();
      Token at = tok_;
      if (!expect_u32(proto.align, "an alignment"))
        return false;
      if (proto.align == 0 || (proto.align & (proto.align - 1)) != 0) {
        error(loc(at), "alignment must be a power of two");
        return false;
      }
      continue;
    }
    if (a == "v2" || a == "v4" || a == "v8") {
      proto.vec = static_cast<uint8_t>(a[1] - '0');
      advance();
      continue;
    }
    if (a == "ptr") { // `.param .u64 .ptr` inside bodies
      advance();
      continue;
    }
    if (a == "attribute") {
      // .attribute(.managed) or .attribute(.unified(hi, lo)): memory the
      // host reaches too; for the engine it is ordinary .global memory.
      advance();
      if (!expect_punct('('))
        return false;
      while (true) {
        if (tok_.kind != Tok::DotName ||
            (tok_.text != "managed" && tok_.text != "unified")) {
          return expected("'.managed' or '.unified'");
        }
        std::string attr(tok_.text);
        advance();
        if (attr == "unified" && is_punct('(')) {
          advance();
          attr += "(";
          while (tok_.kind == Tok::Int) {
            attr += std::string(tok_.text);
            advance();
            if (!is_punct(','))
              break;
            attr += ", ";
            advance();
          }
          if (!expect_punct(')'))
            return false;
          attr += ")";
        }
        proto.is_managed = proto.is_managed || attr == "managed";
        proto.attributes.push_back(std::move(attr));
        if (!is_punct(','))
          break;
        advance();
      }
      if (!expect_punct(')'))
        return false;
      continue;
    }
    if (is_scalar_type(a)) {
      if (have_type) {
        error(loc(tok_), "variable has two types");
        return false;
      }
      proto.type = std::string(a);
      have_type = true;
      advance();
      continue;
    }
    error(loc(tok_), fmt::format("unknown variable attribute '.{}'", a));
    return false;
  }
  if (!have_type)
    return expected("a type");
  while (true) {
    VarDecl v = proto;
    if (tok_.kind != Tok::Ident || tok_.text[0] == '%')
      return expected("a variable name");
    v.name = std::string(tok_.text);
    v.loc = loc(tok_);
    advance();
    while (is_punct('[')) {
      advance();
      if (is_punct(']')) {
        v.dims.push_back(0);
        advance();
        continue;
      }
      Token at = tok_;
      if (is_punct('(') && !no_expr_here("an array size", ']'))
        return false;
      if (tok_.kind != Tok::Int)
        return expected("an array size");
      if (tok_.ival == 0) {
        error(loc(at), "array size must be positive");
        return false;
      }
      v.dims.push_back(tok_.ival);
      advance();
      if (!no_expr_here("an array size", ']') || !expect_punct(']'))
        return false;
    }
    for (size_t i = 1; i < v.dims.size(); ++i)
      if (v.dims[i] == 0) {
        error(v.loc, "only the first array dimension may be left out");
        return false;
      }
    {
      uint64_t bytes = std::max<uint64_t>(type_bytes(v.type), 1) *
                       std::max<uint64_t>(v.vec, 1);
      for (uint64_t d : v.dims) {
        if (d != 0 && bytes > kMaxVariableBytes / d) {
          error(v.loc, fmt::format("'{}' is too large", v.name));
          return false;
        }
        bytes *= std::max<uint64_t>(d, 1);
      }
      if (bytes > kMaxVariableBytes) {
        error(v.loc, fmt::format("'{}' is too large", v.name));
        return false;
      }
    }
    if (is_punct('=')) {
      Token eq = tok_;
      advance();
      if (v.is_extern) {
        error(loc(eq), "an '.extern' variable cannot have an initializer");
        return false;
      }
      if (space == Space::Shared || space == Space::Local ||
          space == Space::Param) {
        error(loc(eq), "variables in this state space cannot be "
                       "initialized");
        return false;
      }
      if (!parse_initializer(v))
        return false;
    }
    out.push_back(std::move(v));
    if (is_punct(',')) {
      advance();
      continue;
    }
    return expect_punct(';');
  }
}

bool Parser::parse_initializer(VarDecl &v) {
  if (!parse_init_item(v, 0))
    return false;
  uint64_t n = v.element_count();
  if (n == 0 && !v.dims.empty() && v.dims[0] == 0) {
    // `x[] = {...}`: the initializer sizes the first dimension.
    uint64_t inner = std::max<uint64_t>(v.vec, 1);
    for (size_t i = 1; i < v.dims.size(); ++i)
      inner *= v.dims[i];
    v.dims[0] = (v.init.size() + inner - 1) / inner;
    if (v.dims[0] == 0)
      v.dims[0] = 1;
  } else if (v.init.size() > n) {
    error(v.loc, fmt::format("too many initializers for '{}' ({} for {} "
                             "element{})",
                             v.name, v.init.size(), n, n == 1 ? "" : "s"));
    return false;
  }
  return true;
}

bool Parser::parse_init_item(VarDecl &v, int depth) {
  if (is_punct('{')) {
    if (depth > 8) {
      error(loc(tok_), "initializer nested too deeply");
      return false;
    }
    advance();
    if (is_punct('}')) {
      advance();
      return true;
    }
    while (true) {
      if (!parse_init_item(v, depth + 1))
        return false;
      if (is_punct(',')) {
        advance();
        continue;
      }
      return expect_punct('}');
    }
  }
  VarDecl::Init init;
  if (starts_expr()) {
    // A constant expression, folded; integers given to a floating-point
    // variable are converted to its type.
    Const c;
    if (!parse_expr(c))
      return false;
    bool is_signed = c.kind == Const::Kind::S64;
    if (c.is_int() && (v.type == "f32" || v.type == "f64")) {
      auto sv = static_cast<int64_t>(c.bits);
      init.kind = VarDecl::Init::Kind::Float;
      init.from_integer = true;
      if (v.type == "f32") {
        float fv =
            is_signed ? static_cast<float>(sv) : static_cast<float>(c.bits);
        uint32_t b;
        std::memcpy(&b, &fv, 4);
        init.bits = b;
      } else {
        double d =
            is_signed ? static_cast<double>(sv) : static_cast<double>(c.bits);
        std::memcpy(&init.bits, &d, 8);
      }
    } else if (c.is_int()) {
      init.bits = c.bits;
    } else {
      init.kind = VarDecl::Init::Kind::Float;
      uint64_t bits = c.bits;
      bool f32 = c.f32_literal;
      if (v.type == "f32" && !f32) {
        double d;
        std::memcpy(&d, &bits, 8);
        float fv = static_cast<float>(d);
        uint32_t b;
        std::memcpy(&b, &fv, 4);
        bits = b;
      } else if (v.type == "f64" && f32) {
        // As ptxas 13 assembles it: the literal's 32 bits, zero-extended
        // (not converted; docs/ptx-frontend.md "Literals").
        bits &= 0xffffffffu;
      }
      init.bits = bits;
    }
  } else if (tok_.kind == Tok::Ident && tok_.text[0] != '%') {
    init.kind = VarDecl::Init::Kind::Symbol;
    if (tok_.text == "generic" && peek_.kind == Tok::Punct &&
        peek_.punct == '(') {
      advance();
      advance();
      if (tok_.kind != Tok::Ident)
        return expected("a variable name");
      init.generic = true;
      init.symbol = std::string(tok_.text);
      advance();
      if (!expect_punct(')'))
        return false;
    } else {
      init.symbol = std::string(tok_.text);
      advance();
    }
    if (is_punct('+')) {
      advance();
      if (!starts_expr())
        return expected("an integer offset");
      Const c;
      if (!parse_expr(c))
        return false;
      if (!c.is_int()) {
        error(span(c.first, c.last), "a symbol offset must be an integer");
        return false;
      }
      init.bits = c.bits; // symbol + offset
    }
  } else {
    return expected("an initializer value");
  }
  v.init.push_back(std::move(init));
  return true;
}

bool Parser::add_global(VarDecl v) {
  auto it = global_index_.find(v.name);
  if (it != global_index_.end()) {
    VarDecl &prev = mod_.globals[it->second];
    if (v.is_extern)
      return true; // a repeated extern declaration changes nothing
    if (prev.is_extern) {
      prev = std::move(v);
      return true;
    }
    Diagnostic &d = error(v.loc, fmt::format("redefinition of '{}'", v.name));
    DiagnosticSink::note(d, prev.loc, "previous definition is here");
    return false;
  }
  global_index_.emplace(v.name, static_cast<uint32_t>(mod_.globals.size()));
  mod_.globals.push_back(std::move(v));
  return true;
}

// ===========================================================================
// Function bodies
// ===========================================================================

void Parser::push_scope(Function &f) {
  uint32_t id = static_cast<uint32_t>(f.scope_parents.size());
  f.scope_parents.push_back(scope_);
  open_scopes_.push_back(scope_);
  scope_ = id;
  undo_marks_.push_back(undo_.size());
}

void Parser::pop_scope() {
  size_t mark = undo_marks_.back();
  undo_marks_.pop_back();
  while (undo_.size() > mark) {
    Undo &u = undo_.back();
    if (u.exact)
      u.exact->pop_back();
    else
      u.range->pop_back();
    undo_.pop_back();
  }
  scope_ = open_scopes_.back();
  open_scopes_.pop_back();
}

bool Parser::declare_reg(Function &f, std::string_view name, const Token &at,
                         std::string_view type, uint8_t vec) {
  auto it = reg_exact_.find(name);
  if (it == reg_exact_.end())
    it = reg_exact_.emplace(std::string(name), std::vector<Binding>{}).first;
  auto prev = lookup_reg(name);
  if (prev) {
    // Same scope: a redeclaration. (Inner scopes may shadow.)
    if (f.regs[*prev].scope == scope_) {
      Diagnostic &d =
          error(loc(at), fmt::format("redeclaration of register '{}'", name));
      DiagnosticSink::note(d, f.regs[*prev].loc,
                           "previous declaration is here");
      return false;
    }
  }
  uint32_t index = static_cast<uint32_t>(f.regs.size());
  RegInfo r;
  r.name = std::string(name);
  r.type = std::string(type);
  r.loc = loc(at);
  r.vec = vec;
  r.scope = scope_;
  f.regs.push_back(std::move(r));
  it->second.push_back({index, scope_, seq_++});
  undo_.push_back({&it->second, nullptr});
  return true;
}

bool Parser::declare_reg_range(Function &f, std::string_view prefix,
                               uint32_t count, const Token &at,
                               std::string_view type, uint8_t vec) {
  auto it = reg_ranges_.find(prefix);
  if (it == reg_ranges_.end())
    it = reg_ranges_.emplace(std::string(prefix), std::vector<RangeBinding>{})
             .first;
  for (auto b = it->second.rbegin(); b != it->second.rend(); ++b)
    if (b->scope == scope_) {
      Diagnostic &d = error(
          loc(at), fmt::format("redeclaration of registers '{}<...>'", prefix));
      DiagnosticSink::note(d, f.regs[b->base].loc,
                           "previous declaration is here");
      return false;
    }
  uint32_t base = static_cast<uint32_t>(f.regs.size());
  SourceLoc l = loc(at);
  f.regs.reserve(f.regs.size() + count);
  std::string name(prefix);
  for (uint32_t i = 0; i < count; ++i) {
    RegInfo r;
    name.resize(prefix.size());
    name += std::to_string(i);
    r.name = name;
    r.type = std::string(type);
    r.loc = l;
    r.vec = vec;
    r.scope = scope_;
    f.regs.push_back(std::move(r));
  }
  it->second.push_back({base, count, scope_, seq_++});
  undo_.push_back({nullptr, &it->second});
  return true;
}

std::optional<uint32_t> Parser::lookup_reg(std::string_view name) const {
  const Binding *exact = nullptr;
  if (auto it = reg_exact_.find(name);
      it != reg_exact_.end() && !it->second.empty())
    exact = &it->second.back();
  // `%r12` may come from a `%r<N>` range declaration.
  size_t d = name.size();
  while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
    --d;
  const RangeBinding *range = nullptr;
  uint32_t number = 0;
  if (d < name.size() && d > 0 && name.size() - d <= 9 &&
      !(name[d] == '0' && name.size() - d > 1)) {
    for (size_t i = d; i < name.size(); ++i)
      number = number * 10 + static_cast<uint32_t>(name[i] - '0');
    if (auto it = reg_ranges_.find(name.substr(0, d));
        it != reg_ranges_.end()) {
      for (auto b = it->second.rbegin(); b != it->second.rend(); ++b)
        if (number < b->count) {
          range = &*b;
          break;
        }
    }
  }
  if (range && (!exact || range->seq > exact->seq))
    return range->base + number;
  if (exact)
    return exact->value;
  return std::nullopt;
}

bool Parser::parse_reg_decl(Function &f) {
  advance(); // .reg
  uint8_t vec = 0;
  std::string_view type;
  while (tok_.kind == Tok::DotName) {
    std::string_view a = tok_.text;
    if (a == "v2" || a == "v4" || a == "v8") {
      vec = static_cast<uint8_t>(a[1] - '0');
    } else if (is_scalar_type(a)) {
      if (!type.empty()) {
        error(loc(tok_), "register has two types");
        return false;
      }
      type = a;
    } else if (a == "align") {
      advance();
      uint32_t ignored;
      if (!expect_u32(ignored, "an alignment"))
        return false;
      continue;
    } else {
      error(loc(tok_), fmt::format("unknown register attribute '.{}'", a));
      return false;
    }
    advance();
  }
  if (type.empty())
    return expected("a register type");
  while (true) {
    if (tok_.kind != Tok::Ident)
      return expected("a register name");
    Token name = tok_;
    advance();
    if (is_punct('<')) {
      advance();
      Token at = tok_;
      uint32_t count = 0;
      if (!expect_u32(count, "a register count", '>'))
        return false;
      // Bounded so that a hostile file cannot make the parser allocate
      // gigabytes; nvcc's largest kernels use a few tens of thousands.
      if (count == 0 || count > kMaxRegsPerFunction) {
        error(loc(at), fmt::format("register count must be between 1 and {}",
                                   kMaxRegsPerFunction));
        return false;
      }
      if (f.regs.size() + count > kMaxRegsPerFunction) {
        error(loc(at), fmt::format("too many registers in one function "
                                   "(more than {})",
                                   kMaxRegsPerFunction));
        return false;
      }
      if (!expect_punct('>'))
        return false;
      if (!declare_reg_range(f, name.text, count, name, type, vec))
        return false;
    } else {
      if (name.text == "_") {
        error(loc(name), "'_' cannot be declared as a register");
        return false;
      }
      if (!declare_reg(f, name.text, name, type, vec))
        return false;
    }
    if (is_punct(',')) {
      advance();
      continue;
    }
    return expect_punct(';');
  }
}

bool Parser::parse_label_or_prototype(Function &f) {
  Token name = tok_;
  advance(); // name
  advance(); // ':'
  if (is_dot("callprototype")) {
    advance();
    CallPrototype p;
    p.name = std::string(name.text);
    p.loc = loc(name);
    p.scope = scope_;
    if (is_punct('(')) {
      if (!parse_param_list(p.returns, true))
        return false;
    }
    if (tok_.kind != Tok::Ident || tok_.text != "_")
      return expected("'_'");
    advance();
    if (is_punct('(')) {
      if (!parse_param_list(p.params, true))
        return false;
    }
    if (is_dot("noreturn")) {
      p.noreturn = true;
      advance();
    }
    if (!expect_punct(';'))
      return false;
    if (protos_.find(name.text, scope_)) {
      error(loc(name), fmt::format("redefinition of '{}'", name.text));
      return true;
    }
    protos_.insert(name.text, scope_,
                   {static_cast<uint32_t>(f.prototypes.size()), scope_, 0});
    f.prototypes.push_back(std::move(p));
    return true;
  }
  if (const Binding *b = labels_.find(name.text, scope_)) {
    Diagnostic &d =
        error(loc(name), fmt::format("duplicate label '{}'", name.text));
    DiagnosticSink::note(d, loc(label_tokens_[b->seq]),
                         "previous definition is here");
    return true; // recoverable: keep parsing
  }
  uint32_t target = static_cast<uint32_t>(f.body.size());
  labels_.insert(name.text, scope_,
                 {target, scope_, static_cast<uint32_t>(f.labels.size())});
  f.labels.emplace_back(std::string(name.text), target);
  label_tokens_.push_back(name);
  return true;
}

bool Parser::parse_ident_operand(Function &f, Operand &out, uint16_t op,
                                 uint16_t elem, uint16_t sub) {
  std::string_view n = tok_.text;
  out.loc = loc(tok_);
  if (n == "_") {
    out.kind = Operand::Kind::Sink;
    advance();
    return true;
  }
  // `%tid.w`, `%v.x`: a name with a `.component` this parser does not know.
  auto no_component = [&](const Token &name) {
    if (tok_.kind != Tok::DotName || tok_.space_before)
      return true;
    error(span(name, tok_),
          is_special_register(name.text)
              ? fmt::format("unknown special register '{}.{}'", name.text,
                            tok_.text)
              : fmt::format("vector element access '{}.{}' is not supported",
                            name.text, tok_.text));
    return false;
  };
  if (auto r = lookup_reg(n)) {
    out.kind = Operand::Kind::Reg;
    out.reg = *r;
    Token name = tok_;
    advance();
    return no_component(name);
  }
  if (n[0] == '%') {
    if (is_special_register(n)) {
      out.kind = Operand::Kind::Special;
      out.name = std::string(n);
      Token name = tok_;
      advance();
      return no_component(name);
    }
    error(loc(tok_), fmt::format("use of undeclared register '{}'", n));
    advance();
    return false;
  }
  if (n == "WARP_SZ") {
    // The predefined identifier (the warp size, what `warpSize` compiles
    // to) reads like a special register.
    out.kind = Operand::Kind::Special;
    out.name = std::string(n);
    advance();
    return true;
  }
  out.kind = Operand::Kind::Symbol;
  out.name = std::string(n);
  OperandPath p;
  p.instr = static_cast<uint32_t>(f.body.size());
  p.op = op;
  p.elem = elem;
  p.sub = sub;
  p.scope = scope_;
  refs_.push_back(p);
  advance();
  return true;
}

bool Parser::parse_address(Function &f, Operand &out, uint16_t op) {
  Token open = tok_;
  advance(); // [
  out.kind = Operand::Kind::Address;
  int64_t offset = 0;
  // The offset is a constant expression (folded); `[base-expr]` (which
  // ptxas does not take) reads as `[base+(-expr)]` with the minus binding to
  // the first term.
  auto read_offset = [&] {
    if (!starts_expr())
      return expected("an integer offset");
    Const c;
    if (!parse_expr(c))
      return false;
    if (!c.is_int()) {
      error(span(c.first, c.last), "an address offset must be an integer");
      return false;
    }
    offset = static_cast<int64_t>(c.bits);
    return true;
  };
  if (tok_.kind == Tok::Ident) {
    Operand base;
    if (!parse_ident_operand(f, base, op, 0, kNoElem))
      return false;
    if (base.kind == Operand::Kind::Sink) {
      error(base.loc, "'_' cannot be used as an address");
      return false;
    }
    out.elems.push_back(std::move(base));
    if (is_punct('+')) {
      advance();
      if (!read_offset())
        return false;
    } else if (is_punct('-')) {
      if (!read_offset())
        return false;
    }
    if (is_punct(',')) {
      // Tensor form: [tmap, {c0, c1, ...}].
      advance();
      if (!is_punct('{'))
        return expected("'{' starting tensor coordinates");
      Operand coords;
      if (!parse_operand(f, coords, op, 1, kNoElem, true))
        return false;
      out.elems.push_back(std::move(coords));
    }
  } else if (starts_expr()) {
    if (!read_offset())
      return false;
  } else {
    return expected("an address");
  }
  out.ival = offset;
  if (!is_punct(']'))
    return expected("']'");
  out.loc = span(open, tok_);
  advance();
  return true;
}

bool Parser::parse_operand(Function &f, Operand &out, uint16_t op,
                           uint16_t elem, uint16_t sub, bool allow_compound) {
  Token first = tok_;
  // `(` starts a constant expression when a constant, an operator or a cast
  // follows; otherwise it opens a call's parameter list.
  bool paren_expr =
      is_punct('(') &&
      (peek_.kind == Tok::Int || peek_.kind == Tok::Float ||
       peek_.kind == Tok::DotName ||
       (peek_.kind == Tok::Punct && std::strchr("(-+~!", peek_.punct)));
  if (is_punct('!') && peek_.kind == Tok::Ident) {
    advance();
    if (!parse_ident_operand(f, out, op, elem, sub))
      return false;
    out.negated = true;
    if (out.loc.line == first.line)
      out.loc.length = out.loc.col + out.loc.length - first.col;
    out.loc.col = first.col;
  } else if (starts_expr() && (!is_punct('(') || paren_expr)) {
    Const c;
    if (!parse_expr(c))
      return false;
    if (c.is_int()) {
      out.kind = Operand::Kind::Imm;
    } else {
      out.kind = Operand::Kind::FImm;
      out.is_f32 = c.f32_literal;
    }
    out.ival = static_cast<int64_t>(c.bits);
    out.loc = span(c.first, c.last);
  } else if (tok_.kind == Tok::Ident) {
    if (!parse_ident_operand(f, out, op, elem, sub))
      return false;
    if (out.kind == Operand::Kind::Symbol && is_punct('+') &&
        (peek_.kind == Tok::Int ||
         (peek_.kind == Tok::Punct && std::strchr("(-+~!", peek_.punct)))) {
      // `mov.u64 %rd1, sym+8` (the offset a constant expression): the
      // offset goes to ival.
      advance();
      Const c;
      if (!parse_expr(c))
        return false;
      if (!c.is_int()) {
        error(span(c.first, c.last), "a symbol offset must be an integer");
        return false;
      }
      if (c.kind == Const::Kind::U64 &&
          c.bits > static_cast<uint64_t>(INT64_MAX)) {
        error(span(c.first, c.last), "symbol offset out of range");
        return false;
      }
      out.ival = static_cast<int64_t>(c.bits);
      out.loc = span(first, c.last);
    }
  } else if (is_punct('[') && allow_compound) {
    if (elem != kNoElem) {
      error(loc(tok_), "an address cannot appear inside a list");
      return false;
    }
    return parse_address(f, out, op);
  } else if ((is_punct('{') || is_punct('(')) && allow_compound) {
    char close = is_punct('{') ? '}' : ')';
    out.kind = close == '}' ? Operand::Kind::Vector : Operand::Kind::List;
    advance();
    if (elem != kNoElem && sub != kNoElem) {
      error(loc(first), "lists nest too deeply");
      return false;
    }
    if (!(close == ')' && is_punct(')'))) {
      while (true) {
        if (out.elems.size() >= kNoElem - 1) {
          error(loc(tok_), "too many list elements");
          return false;
        }
        Operand e;
        uint16_t idx = static_cast<uint16_t>(out.elems.size());
        bool ok = elem == kNoElem ? parse_operand(f, e, op, idx, kNoElem, false)
                                  : parse_operand(f, e, op, elem, idx, false);
        if (!ok)
          return false;
        out.elems.push_back(std::move(e));
        if (is_punct(',')) {
          advance();
          continue;
        }
        break;
      }
    }
    if (!is_punct(close))
      return expected(fmt::format("'{}'", close));
    out.loc = span(first, tok_);
    advance();
    return true;
  } else {
    return expected("an operand");
  }
  if (is_punct('|') && elem == kNoElem && allow_compound) {
    // d|p destination pair.
    advance();
    Operand second;
    if (tok_.kind != Tok::Ident)
      return expected("a register after '|'");
    Token last = tok_;
    if (!parse_ident_operand(f, second, op, 1, kNoElem))
      return false;
    Operand pair;
    pair.kind = Operand::Kind::Pair;
    pair.loc = span(first, last);
    // The first half's symbol path (if any) must point into the pair.
    if (out.kind == Operand::Kind::Symbol && !refs_.empty()) {
      for (auto it = refs_.rbegin(); it != refs_.rend(); ++it)
        if (it->instr == f.body.size() && it->op == op && it->elem == kNoElem) {
          it->elem = 0;
          break;
        }
    }
    pair.elems.push_back(std::move(out));
    pair.elems.push_back(std::move(second));
    out = std::move(pair);
  }
  return true;
}

bool Parser::parse_instruction(Function &f) {
  Instruction ins;
  Token first = tok_;
  if (is_punct('@')) {
    advance();
    Guard g;
    Token at = tok_;
    if (is_punct('!')) {
      g.negated = true;
      advance();
    }
    if (tok_.kind != Tok::Ident)
      return expected("a predicate register");
    auto r = lookup_reg(tok_.text);
    if (!r) {
      error(loc(tok_),
            fmt::format("use of undeclared register '{}'", tok_.text));
      return false;
    }
    g.reg = *r;
    g.loc = span(at, tok_);
    advance();
    ins.guard = g;
  }
  if (tok_.kind != Tok::Ident || tok_.text[0] == '%' || tok_.text == "_")
    return expected("an instruction");
  Token op_tok = tok_;
  Token op_last = tok_;
  ins.opcode = std::string(tok_.text);
  advance();
  while (tok_.kind == Tok::DotName && !tok_.space_before) {
    ins.modifiers.emplace_back(tok_.text);
    op_last = tok_;
    advance();
  }
  ins.loc = span(op_tok, op_last);
  resolve(ins);
  if (tok_.kind == Tok::DotName) {
    error(loc(tok_), "unexpected space before instruction modifier");
    return false;
  }
  // Operands are parsed before the instruction is appended; pending symbol
  // references name it by its future index, f.body.size().
  auto drop_refs = [&] {
    while (!refs_.empty() && refs_.back().instr == f.body.size())
      refs_.pop_back();
  };
  Instruction &in = ins;
  Token last = op_last;
  if (!is_punct(';')) {
    while (true) {
      if (in.operands.size() >= kNoElem - 1) {
        error(loc(tok_), "too many operands");
        drop_refs();
        return false;
      }
      Operand o;
      if (!parse_operand(f, o, static_cast<uint16_t>(in.operands.size()),
                         kNoElem, kNoElem, true)) {
        drop_refs();
        return false;
      }
      in.operands.push_back(std::move(o));
      if (!is_punct(','))
        break;
      advance();
    }
  }
  if (!is_punct(';')) {
    expected("',' or ';'");
    drop_refs();
    return false;
  }
  SourceLoc whole = loc(first);
  if (!in.operands.empty()) {
    const SourceLoc &l = in.operands.back().loc;
    if (l.line == first.line && l.col + l.length > first.col)
      whole.length = l.col + l.length - first.col;
  } else {
    whole = span(first, last);
  }
  in.stmt_loc = whole;
  advance();
  ins.src_file = cur_src_[0];
  ins.src_line = cur_src_[1];
  ins.src_col = cur_src_[2];
  ins.call_file = cur_call_[0];
  ins.call_line = cur_call_[1];
  ins.call_col = cur_call_[2];
  f.body.push_back(std::move(ins));
  return true;
}

bool Parser::parse_body_statement(Function &f) {
  if (tok_.kind == Tok::DotName) {
    std::string_view d = tok_.text;
    Token start = tok_;
    if (d == "reg")
      return parse_reg_decl(f);
    if (d == "loc") {
      // .loc file line col {, function_name label, inlined_at f l c}: the
      // source position of the instructions that follow. Inlined code
      // comes as a chain of .loc lines, each naming the position it was
      // inlined at; the outermost one is the call in the function's own
      // code.
      advance();
      uint32_t v[3] = {0, 0, 0}, at[3] = {0, 0, 0};
      for (int k = 0; k < 3 && tok_.kind == Tok::Int && tok_.line == start.line;
           ++k) {
        v[k] = static_cast<uint32_t>(tok_.ival);
        advance();
      }
      while (tok_.kind != Tok::End && tok_.line == start.line) {
        bool inlined = tok_.kind == Tok::Ident && tok_.text == "inlined_at";
        advance();
        if (!inlined)
          continue;
        for (int k = 0;
             k < 3 && tok_.kind == Tok::Int && tok_.line == start.line; ++k) {
          at[k] = static_cast<uint32_t>(tok_.ival);
          advance();
        }
      }
      std::array<uint32_t, 3> key{v[0], v[1], v[2]};
      if (at[1])
        inlined_at_[key] = {at[0], at[1], at[2]};
      // The outermost position of the chain.
      std::array<uint32_t, 3> outer{at[0], at[1], at[2]};
      for (int guard = 0; outer[1] && guard < 64; ++guard) {
        auto it = inlined_at_.find(outer);
        if (it == inlined_at_.end())
          break;
        outer = it->second;
      }
      // A header's code inlined into a function of the file that holds
      // the outermost call (cuda::memcpy_async in a device function of the
      // .cu file): the inner position is that function's line, the last
      // one of that file before the header.
      std::array<uint32_t, 3> inner{v[0], v[1], v[2]};
      if (at[1] && v[0] != outer[0]) {
        std::array<uint32_t, 3> p{at[0], at[1], at[2]};
        for (int guard = 0; p[1] && p != outer && guard < 64; ++guard) {
          if (p[0] == outer[0]) {
            inner = p;
            break;
          }
          auto it = inlined_at_.find(p);
          if (it == inlined_at_.end())
            break;
          p = it->second;
        }
      }
      cur_src_[0] = inner[0];
      cur_src_[1] = inner[1];
      cur_src_[2] = inner[2];
      cur_call_ = outer;
      skip_line(start.line);
      return true;
    }
    if (d == "file") {
      advance();
      skip_line(start.line);
      return true;
    }
    if (d == "pragma") {
      advance();
      if (tok_.kind != Tok::String)
        return expected("a string");
      f.body_pragmas.emplace_back(static_cast<uint32_t>(f.body.size()),
                                  std::string(tok_.text));
      advance();
      return expect_punct(';');
    }
    Space space = space_from_name(d);
    if (space == Space::Local || space == Space::Shared ||
        space == Space::Param || space == Space::Const ||
        space == Space::Global) {
      advance();
      size_t before = f.locals.size();
      if (!parse_var_decl(space, false, false, false, false, f.locals, scope_,
                          start))
        return false;
      for (size_t i = before; i < f.locals.size(); ++i) {
        const VarDecl &v = f.locals[i];
        if (const Binding *b = locals_.find(v.name, scope_)) {
          Diagnostic &d2 =
              error(v.loc, fmt::format("redefinition of '{}'", v.name));
          DiagnosticSink::note(d2, f.locals[b->value].loc,
                               "previous definition is here");
          continue;
        }
        locals_.insert(v.name, scope_, {static_cast<uint32_t>(i), scope_, 0});
      }
      return true;
    }
    error(loc(tok_),
          fmt::format("unknown directive '.{}' in function body", d));
    return false;
  }
  if (tok_.kind == Tok::Ident && peek_.kind == Tok::Punct && peek_.punct == ':')
    return parse_label_or_prototype(f);
  if (is_punct('@') || tok_.kind == Tok::Ident)
    return parse_instruction(f);
  if (tok_.kind == Tok::Error) {
    error(loc(tok_), tok_.error);
    return false;
  }
  return expected("an instruction, a declaration or a label");
}

bool Parser::parse_body(Function &f, uint32_t fn_index) {
  reg_exact_.clear();
  reg_ranges_.clear();
  undo_.clear();
  undo_marks_.clear();
  open_scopes_.clear();
  labels_.clear();
  locals_.clear();
  protos_.clear();
  refs_.clear();
  label_tokens_.clear();
  scope_ = 0;
  seq_ = 0;
  f.scope_parents.assign(1, 0);
  Token open = tok_;
  advance(); // {
  undo_marks_.push_back(0);
  std::vector<Token> open_braces{open};
  while (errors_ < kMaxErrors) {
    if (tok_.kind == Tok::End) {
      error(loc(open_braces.back()), "unterminated '{' (missing '}')");
      return false;
    }
    if (is_punct('}')) {
      advance();
      open_braces.pop_back();
      if (open_braces.empty())
        break;
      pop_scope();
      continue;
    }
    if (is_punct('{')) {
      open_braces.push_back(tok_);
      advance();
      push_scope(f);
      continue;
    }
    if (!parse_body_statement(f))
      recover();
  }
  if (errors_ >= kMaxErrors)
    return false;
  resolve_function_refs(f, fn_index);
  return true;
}

Operand &Parser::operand_at(Function &f, const OperandPath &p) {
  Operand *o = &f.body[p.instr].operands[p.op];
  if (p.elem != kNoElem)
    o = &o->elems[p.elem];
  if (p.sub != kNoElem)
    o = &o->elems[p.sub];
  return *o;
}

void Parser::resolve_function_refs(Function &f, uint32_t fn_index) {
  for (const OperandPath &p : refs_) {
    Operand &o = operand_at(f, p);
    bool done = false;
    auto find_in = [&](const ScopedNames &map,
                       uint32_t scope) -> const Binding * {
      return map.find(o.name, scope);
    };
    for (uint32_t s = p.scope;; s = f.scope_parents[s]) {
      if (const Binding *b = find_in(labels_, s)) {
        o.kind = Operand::Kind::Label;
        o.label = b->value;
        done = true;
      } else if (const Binding *b2 = find_in(locals_, s)) {
        o.sym_kind = Operand::SymbolKind::Local;
        o.sym_index = b2->value;
        done = true;
      } else if (const Binding *b3 = find_in(protos_, s)) {
        o.sym_kind = Operand::SymbolKind::Prototype;
        o.sym_index = b3->value;
        done = true;
      }
      if (done || s == 0)
        break;
    }
    if (done)
      continue;
    for (size_t i = 0; i < f.params.size() && !done; ++i)
      if (f.params[i].name == o.name) {
        o.sym_kind = Operand::SymbolKind::Param;
        o.sym_index = static_cast<uint32_t>(i);
        done = true;
      }
    for (size_t i = 0; i < f.returns.size() && !done; ++i)
      if (f.returns[i].name == o.name) {
        o.sym_kind = Operand::SymbolKind::Return;
        o.sym_index = static_cast<uint32_t>(i);
        done = true;
      }
    if (!done)
      module_refs_.emplace_back(fn_index, p);
  }
  refs_.clear();
}

void Parser::resolve_module_refs() {
  for (auto &[fn, p] : module_refs_) {
    Operand &o = operand_at(mod_.functions[fn], p);
    if (auto it = global_index_.find(o.name); it != global_index_.end()) {
      o.sym_kind = Operand::SymbolKind::Global;
      o.sym_index = it->second;
    } else if (auto it2 = function_index_.find(o.name);
               it2 != function_index_.end()) {
      o.sym_kind = Operand::SymbolKind::Function;
      o.sym_index = it2->second;
    } else {
      error(o.loc, fmt::format("use of undeclared identifier '{}'", o.name));
    }
  }
  // Initializers that name symbols must name a variable or function.
  for (const VarDecl &v : mod_.globals)
    for (const VarDecl::Init &i : v.init)
      if (i.kind == VarDecl::Init::Kind::Symbol &&
          !global_index_.count(i.symbol) && !function_index_.count(i.symbol))
        error(v.loc, fmt::format("initializer of '{}' names undeclared "
                                 "symbol '{}'",
                                 v.name, i.symbol));
}

} // namespace

std::optional<Module> parse(std::shared_ptr<const SourceFile> source,
                            DiagnosticSink &sink) {
  if (!source) {
    sink.error(SourceLoc{}, "no PTX source");
    return std::nullopt;
  }
  Parser p(std::move(source), sink);
  return p.run();
}

} // namespace bcusim::ptx
