// Assembler: statement -> word. The mnemonic is matched against the __Syntax
// lines of every optype; the opcode variant is chosen by comparing the
// written operands' kinds with each opcode's Order<...> and field types
// (docs/isa.md, "Choosing the variant"). No per-mnemonic tables.
#include <algorithm>

#include <fmt/format.h>

#include "bcusim/isa/model.h"
#include "bcusim/isa/tools.h"
#include "internal.h"
#include "rules.h"

namespace bcusim::isa {

namespace {

struct Token {
  enum Kind {
    Ident,
    Number,
    At,
    Bang,
    Comma,
    Semi,
    Control,
    End,
    Bad
  } kind = End;
  std::string_view text;
  size_t offset = 0;
  uint64_t value = 0;
  bool overflow = false;
};

bool ident_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }
bool space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' ||
         c == '\n';
}

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (space(c)) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/')
      break;
    Token t;
    t.offset = i;
    size_t start = i;
    if (ident_start(c)) {
      while (i < s.size() && (ident_char(s[i]) || s[i] == '.'))
        ++i;
      t.kind = Token::Ident;
    } else if (c >= '0' && c <= '9') {
      t.kind = Token::Number;
      unsigned base = 10;
      if (c == '0' && i + 1 < s.size() &&
          (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        base = 16;
        i += 2;
      }
      size_t digits = 0;
      while (i < s.size() && (ident_char(s[i]) || s[i] == '.')) {
        char d = s[i];
        int v = -1;
        if (d >= '0' && d <= '9')
          v = d - '0';
        else if (base == 16 && d >= 'a' && d <= 'f')
          v = d - 'a' + 10;
        else if (base == 16 && d >= 'A' && d <= 'F')
          v = d - 'A' + 10;
        if (v < 0) {
          t.kind = Token::Bad;
        } else {
          if (t.value > (~uint64_t{0} - static_cast<uint64_t>(v)) / base)
            t.overflow = true;
          t.value = t.value * base + static_cast<uint64_t>(v);
        }
        ++digits;
        ++i;
      }
      if (digits == 0)
        t.kind = Token::Bad;
    } else if (c == '@' || c == '!' || c == ',' || c == ';') {
      t.kind = c == '@'   ? Token::At
               : c == '!' ? Token::Bang
               : c == ',' ? Token::Comma
                          : Token::Semi;
      ++i;
    } else if (c == '$') {
      ++i;
      while (i < s.size() && ident_char(s[i]))
        ++i;
      t.kind = Token::Control;
    } else {
      // One bad token: up to the next separator (UTF-8 bytes included).
      ++i;
      while (i < s.size() && !space(s[i]) && s[i] != ',' && s[i] != ';')
        ++i;
      t.kind = Token::Bad;
    }
    t.text = s.substr(start, i - start);
    out.push_back(t);
  }
  Token end;
  end.offset = s.size();
  // Point the end at the last non-space character before a comment.
  size_t cut = s.find("//");
  std::string_view body = cut == std::string_view::npos ? s : s.substr(0, cut);
  while (!body.empty() && space(body.back()))
    body.remove_suffix(1);
  end.offset = body.size();
  out.push_back(end);
  return out;
}

// One written operand.
struct Operand {
  bool is_number = false;
  bool negated = false;
  std::string_view name;
  uint64_t value = 0;
  bool overflow = false;
  SourceLoc at;
};

// The statement after tokenizing: guard, mnemonic, operands.
struct Statement {
  std::optional<Operand> guard;
  std::string_view mnemonic;
  SourceLoc mnemonic_at;
  std::vector<Operand> operands;
  SourceLoc operands_at; // the span of all operands
  SourceLoc end_at;      // where a missing operand would go
};

// A matched mnemonic: its optype and the fields it sets.
struct MnemonicMatch {
  std::string optype;
  std::string canonical; // the mnemonic with default modifiers filled in
  rules::FieldValues values;
};

class Assembler {
public:
  Assembler(const IsaModel &model, std::string_view text, SourceLoc loc,
            DiagnosticSink &sink)
      : model_(model), text_(text), base_(loc), sink_(sink) {}

  std::optional<Decoded> run() {
    Statement st;
    if (!parse(st))
      return std::nullopt;
    auto mm = match_mnemonic(st);
    if (!mm)
      return std::nullopt;
    return select_and_encode(st, *mm);
  }

private:
  SourceLoc at(size_t offset, size_t length) const {
    SourceLoc l = base_;
    l.col = base_.col + static_cast<uint32_t>(offset);
    l.length = static_cast<uint32_t>(std::max<size_t>(length, 1));
    return l;
  }
  SourceLoc at(const Token &t) const { return at(t.offset, t.text.size()); }
  Diagnostic &error(SourceLoc loc, std::string message) {
    return sink_.error(loc, std::move(message));
  }

  bool parse_operand(const std::vector<Token> &toks, size_t &i, Operand &op) {
    size_t start = toks[i].offset;
    if (toks[i].kind == Token::Bang) {
      op.negated = true;
      ++i;
    }
    const Token &t = toks[i];
    if (t.kind == Token::Ident) {
      op.name = t.text;
    } else if (t.kind == Token::Number) {
      if (op.negated) {
        error(at(toks[i - 1]), "'!' applies to predicates, not to immediates");
        return false;
      }
      op.is_number = true;
      op.value = t.value;
      op.overflow = t.overflow;
    } else {
      bad_token(t, "an operand (a register, a predicate or an immediate)");
      return false;
    }
    op.at = at(start, t.offset + t.text.size() - start);
    ++i;
    return true;
  }

  void bad_token(const Token &t, std::string_view expected) {
    if (t.kind == Token::End)
      error(at(t.offset, 1), fmt::format("expected {}", expected));
    else if (t.kind == Token::Control)
      error(at(t),
            fmt::format("'{}' is scheduling control information that 001 does "
                        "not define; bcusim accepts none (docs/isa.md)",
                        t.text));
    else if (t.kind == Token::Bad && !t.text.empty() && t.text[0] == '-')
      error(at(t), "immediates are unsigned; negative values are not allowed");
    else if (t.kind == Token::Bad)
      error(at(t),
            fmt::format("malformed token '{}'; expected {}", t.text, expected));
    else
      error(at(t), fmt::format("expected {}, found '{}'", expected, t.text));
  }

  bool parse(Statement &st) {
    auto toks = tokenize(text_);
    size_t i = 0;
    if (toks[i].kind == Token::At) {
      size_t start = toks[i].offset;
      ++i;
      Operand g;
      if (toks[i].kind == Token::Bang) {
        g.negated = true;
        ++i;
      }
      if (toks[i].kind != Token::Ident) {
        bad_token(toks[i], "a guard predicate after '@' (e.g. @P0, @!P0)");
        return false;
      }
      g.name = toks[i].text;
      g.at = at(start, toks[i].offset + toks[i].text.size() - start);
      st.guard = g;
      ++i;
    }
    if (toks[i].kind != Token::Ident) {
      bad_token(toks[i], "an instruction mnemonic");
      return false;
    }
    st.mnemonic = toks[i].text;
    st.mnemonic_at = at(toks[i]);
    ++i;
    size_t first_operand = toks[i].offset;
    size_t last_end = first_operand;
    if (toks[i].kind != Token::End && toks[i].kind != Token::Semi) {
      for (;;) {
        Operand op;
        if (!parse_operand(toks, i, op))
          return false;
        last_end = toks[i - 1].offset + toks[i - 1].text.size();
        st.operands.push_back(op);
        if (toks[i].kind == Token::Comma) {
          ++i;
          continue;
        }
        break;
      }
    }
    if (toks[i].kind == Token::Semi)
      ++i;
    if (toks[i].kind != Token::End) {
      bad_token(toks[i], st.operands.empty() ? "operands or ';'"
                                             : "',' or the end of the "
                                               "instruction");
      return false;
    }
    st.operands_at = at(first_operand, last_end - first_operand);
    st.end_at = at(toks[i].offset, 1);
    if (!st.operands.empty())
      st.end_at = at(last_end, 1);
    else
      st.end_at = at(st.mnemonic_at.col - base_.col + st.mnemonic.size(), 1);
    return true;
  }

  // Enumerator options of a mnemonic part, as `.X` strings.
  std::vector<std::string> part_options(const SyntaxForm &form,
                                        const MnemonicPart &p) const {
    std::vector<std::string> out;
    if (p.kind == MnemonicPart::Kind::FieldChoice) {
      for (const OpcodeModel *op : model_.opcodes_of(form.optype)) {
        const FieldInfo *f = op->field(p.field);
        const BitFieldType *t = f ? model_.type(f->type) : nullptr;
        if (t)
          for (const auto &e : t->enumerators)
            out.push_back("." + e.name);
        break;
      }
    } else {
      out.push_back("." + p.text);
    }
    return out;
  }

  std::optional<MnemonicMatch> match_mnemonic(const Statement &st) {
    std::string_view written = rules::canonical_mnemonic(st.mnemonic);
    std::vector<std::string_view> parts;
    std::vector<size_t> part_offsets; // within the written mnemonic
    {
      size_t pos = 0;
      for (;;) {
        size_t dot = written.find('.', pos);
        parts.push_back(written.substr(pos, dot - pos));
        part_offsets.push_back(pos);
        if (dot == std::string_view::npos)
          break;
        pos = dot + 1;
      }
    }
    // Aliases change the text: then point diagnostics at the whole mnemonic.
    bool aliased = written != st.mnemonic;
    size_t best_prefix = 0;
    std::vector<std::pair<const SyntaxForm *, size_t>> near; // form, prefix
    for (const auto &form : model_.forms) {
      const OpcodeModel *any = nullptr;
      for (const auto &op : model_.opcodes)
        if (op.optype == form.optype) {
          any = &op;
          break;
        }
      if (!any)
        continue;
      MnemonicMatch m;
      m.optype = form.optype;
      size_t k = 0;
      bool ok = true;
      for (; k < form.parts.size(); ++k) {
        const MnemonicPart &p = form.parts[k];
        if (k >= parts.size()) {
          // A trailing modifier left out: allowed when it has a default.
          const FieldInfo *f = p.kind == MnemonicPart::Kind::FieldChoice
                                   ? any->field(p.field)
                                   : nullptr;
          auto v = f ? rules::omitted_modifier(model_, *any, *f) : std::nullopt;
          if (!v || k + 1 != form.parts.size()) {
            ok = false;
            break;
          }
          m.values.push_back({p.field, *v});
          const BitFieldType *t = model_.type(f->type);
          const auto *e = t ? t->find(*v) : nullptr;
          m.canonical += "." + (e ? e->name : std::string());
          continue;
        }
        std::string_view w = parts[k];
        if (p.kind == MnemonicPart::Kind::Literal ||
            p.kind == MnemonicPart::Kind::FieldValue) {
          if (w != p.text) {
            ok = false;
            break;
          }
          if (p.kind == MnemonicPart::Kind::FieldValue)
            m.values.push_back({p.field, p.value});
        } else {
          const FieldInfo *f = any->field(p.field);
          const BitFieldType *t = f ? model_.type(f->type) : nullptr;
          const auto *e = t ? t->find(w) : nullptr;
          if (!e) {
            ok = false;
            break;
          }
          m.values.push_back({p.field, e->value});
        }
        if (k)
          m.canonical += ".";
        m.canonical += std::string(w);
      }
      if (ok && parts.size() > form.parts.size()) {
        ok = false;
        k = form.parts.size();
      }
      if (ok)
        return m;
      if (k > 0) {
        if (k > best_prefix) {
          best_prefix = k;
          near.clear();
        }
        if (k == best_prefix)
          near.push_back({&form, k});
      }
    }
    if (near.empty()) {
      std::vector<std::string> known;
      for (const auto &form : model_.forms) {
        std::string m;
        for (size_t k = 0; k < form.parts.size(); ++k) {
          if (k)
            m += '.';
          if (form.parts[k].kind == MnemonicPart::Kind::FieldChoice) {
            std::vector<std::string> names;
            for (auto &o : part_options(form, form.parts[k]))
              names.push_back(o.substr(1));
            m += "{" + fmt::format("{}", fmt::join(names, ",")) + "}";
          } else {
            m += form.parts[k].text;
          }
        }
        if (std::find(known.begin(), known.end(), m) == known.end())
          known.push_back(m);
      }
      error(st.mnemonic_at, fmt::format("unknown mnemonic '{}'; known: {}",
                                        st.mnemonic, fmt::join(known, ", ")));
      return std::nullopt;
    }
    std::vector<std::string> options;
    for (const auto &[form, k] : near)
      if (k < form->parts.size())
        for (auto &o : part_options(*form, form->parts[k]))
          if (std::find(options.begin(), options.end(), o) == options.end())
            options.push_back(o);
    std::string prefix(written.substr(0, part_offsets[best_prefix - 1] +
                                             parts[best_prefix - 1].size()));
    if (best_prefix >= parts.size()) {
      error(st.mnemonic_at,
            fmt::format("incomplete mnemonic '{}': expected a modifier {}",
                        st.mnemonic, fmt::join(options, ", ")));
    } else {
      size_t off = aliased ? 0 : part_offsets[best_prefix] - 1;
      size_t len = aliased ? st.mnemonic.size() : st.mnemonic.size() - off;
      SourceLoc loc = at(st.mnemonic_at.col - base_.col + off, len);
      if (options.empty())
        error(loc, fmt::format("unexpected modifier '.{}' after '{}'",
                               parts[best_prefix], prefix));
      else
        error(loc, fmt::format("unknown modifier '.{}' for {}; expected {}",
                               parts[best_prefix], prefix,
                               fmt::join(options, ", ")));
    }
    return std::nullopt;
  }

  // Does written operand `w` fit field `name` of `op`?
  bool fits(const OpcodeModel &op, const std::string &name,
            const Operand &w) const {
    const FieldInfo *f = op.field(name);
    const BitFieldType *t = f ? model_.type(f->type) : nullptr;
    if (!t)
      return false;
    if (w.negated && op.field_index(not_field(name)) < 0)
      return false;
    if (w.is_number)
      return !t->enumerated();
    return t->enumerated() && t->find(w.name) != nullptr;
  }

  std::string operand_kind(const Operand &w) const {
    if (w.is_number)
      return "immediate";
    for (const auto &t : model_.types)
      if (t.find(w.name))
        return std::string(w.negated ? "!" : "") + t.name;
    return "unknown";
  }

  std::string form_text(const MnemonicMatch &mm, const OpcodeModel &op) const {
    std::string out = mm.canonical;
    bool first = true;
    for (const auto &name : operand_fields(op)) {
      const FieldInfo *f = op.field(name);
      if (!f)
        continue;
      // Optional when it may be left out and leaving it out is legal
      // (BAR.ARV's count may not be: SrcCnt > 0).
      auto omitted = rules::omitted_operand(model_, op, *f, mm.values);
      bool optional = false;
      if (omitted) {
        rules::FieldValues with = mm.values;
        with.push_back({name, *omitted});
        optional = !rules::check(model_, op, with, true).has_value();
      }
      out += first ? (optional ? " [" : " ") : (optional ? " [, " : ", ");
      first = false;
      if (op.field_index(not_field(name)) >= 0)
        out += "{!}";
      out += f->type + " " + f->name;
      if (optional)
        out += "]";
    }
    return out + fmt::format("  ({})", op.name);
  }

  void add_forms(Diagnostic &d, const MnemonicMatch &mm) {
    for (const OpcodeModel *op : model_.opcodes_of(mm.optype))
      DiagnosticSink::note(d, {}, "legal form: " + form_text(mm, *op));
  }

  struct Choice {
    const OpcodeModel *op = nullptr;
    int omitted = -1; // index into the operand fields, -1 = none
    uint64_t omitted_value = 0;
  };

  std::optional<Decoded> select_and_encode(const Statement &st,
                                           const MnemonicMatch &mm) {
    // Names that are no operand at all are reported on their own.
    for (const auto &w : st.operands)
      if (!w.is_number && operand_kind(w) == "unknown") {
        auto &d = error(w.at, fmt::format("unknown operand '{}' (not a "
                                          "register, predicate or other "
                                          "operand name)",
                                          w.name));
        add_forms(d, mm);
        return std::nullopt;
      }
    auto ops = model_.opcodes_of(mm.optype);
    Choice choice;
    size_t min_arity = ~size_t{0}, max_arity = 0;
    for (const OpcodeModel *op : ops) {
      auto names = operand_fields(*op);
      if (names.size() == st.operands.size()) {
        bool ok = true;
        for (size_t k = 0; k < names.size() && ok; ++k)
          ok = fits(*op, names[k], st.operands[k]);
        if (ok && !choice.op)
          choice = {op, -1, 0};
      }
      min_arity = std::min(min_arity, names.size());
      max_arity = std::max(max_arity, names.size());
      for (size_t skip = 0; skip < names.size(); ++skip) {
        const FieldInfo *f = op->field(names[skip]);
        auto v = f ? rules::omitted_operand(model_, *op, *f, mm.values)
                   : std::nullopt;
        if (!v)
          continue;
        min_arity = std::min(min_arity, names.size() - 1);
      }
    }
    if (!choice.op) {
      for (const OpcodeModel *op : ops) {
        auto names = operand_fields(*op);
        if (names.size() != st.operands.size() + 1)
          continue;
        // Prefer leaving out the later operand.
        for (size_t skip = names.size(); skip-- > 0;) {
          const FieldInfo *f = op->field(names[skip]);
          auto v = f ? rules::omitted_operand(model_, *op, *f, mm.values)
                     : std::nullopt;
          if (!v)
            continue;
          bool ok = true;
          for (size_t k = 0, w = 0; k < names.size() && ok; ++k) {
            if (k == skip)
              continue;
            ok = fits(*op, names[k], st.operands[w++]);
          }
          if (ok) {
            choice = {op, static_cast<int>(skip), *v};
            break;
          }
        }
        if (choice.op)
          break;
      }
    }
    if (!choice.op) {
      size_t n = st.operands.size();
      if (n < min_arity || n > max_arity) {
        std::string expect =
            min_arity == max_arity
                ? fmt::format("{}", min_arity)
                : fmt::format("{} to {}", min_arity, max_arity);
        SourceLoc loc = n > max_arity ? st.operands[max_arity].at : st.end_at;
        if (n > max_arity)
          loc.length = st.operands_at.col + st.operands_at.length - loc.col;
        auto &d = error(loc, fmt::format("{} takes {} operand(s), {} given",
                                         mm.canonical, expect, n));
        add_forms(d, mm);
      } else {
        std::vector<std::string> kinds;
        for (const auto &w : st.operands)
          kinds.push_back(operand_kind(w));
        auto &d = error(st.operands_at,
                        fmt::format("no form of {} takes operands ({})",
                                    mm.canonical, fmt::join(kinds, ", ")));
        add_forms(d, mm);
      }
      return std::nullopt;
    }
    const OpcodeModel &op = *choice.op;
    rules::FieldValues values = mm.values;
    std::vector<std::pair<std::string, SourceLoc>> where;
    auto names = operand_fields(op);
    std::string omitted_name;
    for (size_t k = 0, w = 0; k < names.size(); ++k) {
      const FieldInfo *f = op.field(names[k]);
      if (static_cast<int>(k) == choice.omitted) {
        values.push_back({names[k], choice.omitted_value});
        omitted_name = names[k];
        continue;
      }
      const Operand &o = st.operands[w++];
      const BitFieldType *t = model_.type(f->type);
      uint64_t v;
      if (o.is_number) {
        if (o.overflow || o.value > t->max_value()) {
          auto &d = error(
              o.at, fmt::format("immediate {} does not fit {} {} (0..{:#x})",
                                o.overflow ? std::string("(too large)")
                                           : fmt::format("{:#x}", o.value),
                                f->type, f->name, t->max_value()));
          add_forms(d, mm);
          return std::nullopt;
        }
        v = o.value;
      } else {
        v = t->find(o.name)->value;
      }
      values.push_back({names[k], v});
      where.push_back({names[k], o.at});
      if (const FieldInfo *nf = op.field(not_field(names[k]))) {
        const BitFieldType *nt = model_.type(nf->type);
        const char *en = o.negated ? "True" : "False";
        const auto *e = nt ? nt->find(en) : nullptr;
        values.push_back({nf->name, e ? e->value : (o.negated ? 1u : 0u)});
      }
    }
    if (st.guard) {
      const FieldInfo *pg = op.field(kGuardField);
      const BitFieldType *t = pg ? model_.type(pg->type) : nullptr;
      const auto *e = t ? t->find(st.guard->name) : nullptr;
      if (!e) {
        error(st.guard->at,
              pg ? fmt::format("guard '{}' is not a {} (e.g. @P0, @!P0, @PT)",
                               st.guard->name, pg->type)
                 : fmt::format("{} takes no guard predicate", mm.canonical));
        return std::nullopt;
      }
      values.push_back({pg->name, e->value});
      if (const FieldInfo *nf = op.field(not_field(kGuardField))) {
        const BitFieldType *nt = model_.type(nf->type);
        const char *en = st.guard->negated ? "True" : "False";
        const auto *ne = nt ? nt->find(en) : nullptr;
        values.push_back(
            {nf->name, ne ? ne->value : (st.guard->negated ? 1u : 0u)});
      }
    }
    if (auto bad = rules::check(model_, op, values, omitted_name == "cnt")) {
      SourceLoc loc = st.end_at;
      for (const auto &[n, l] : where)
        if (n == bad->field)
          loc = l;
      auto &d = error(loc, bad->message);
      add_forms(d, mm);
      return std::nullopt;
    }
    return make_decoded(model_, op, encode(op, values));
  }

  const IsaModel &model_;
  std::string_view text_;
  SourceLoc base_;
  DiagnosticSink &sink_;
};

} // namespace

std::optional<Decoded> assemble_one(const IsaModel &model,
                                    std::string_view text, SourceLoc loc,
                                    DiagnosticSink &sink) {
  if (loc.col == 0)
    loc.col = 1;
  return Assembler(model, text, loc, sink).run();
}

// Splits a file into statements: `//` starts a comment, `;` ends a
// statement, a line end ends one too. Blank statements are skipped.
std::optional<std::vector<AssembledAt>> assemble_located(const IsaModel &model,
                                                         const SourceFile &file,
                                                         DiagnosticSink &sink) {
  std::vector<AssembledAt> out;
  bool ok = true;
  for (uint32_t ln = 1; ln <= file.line_count(); ++ln) {
    std::string_view line = file.line(ln);
    size_t cut = line.find("//");
    std::string_view code =
        cut == std::string_view::npos ? line : line.substr(0, cut);
    size_t pos = 0;
    while (pos <= code.size()) {
      size_t semi = code.find(';', pos);
      size_t end = semi == std::string_view::npos ? code.size() : semi;
      std::string_view stmt = code.substr(pos, end - pos);
      size_t first = stmt.find_first_not_of(" \t\r\f\v");
      if (first != std::string_view::npos) {
        size_t last = stmt.find_last_not_of(" \t\r\f\v");
        std::string_view text = stmt.substr(first, last - first + 1);
        SourceLoc loc{&file, ln, static_cast<uint32_t>(pos + first + 1),
                      static_cast<uint32_t>(text.size())};
        auto d = assemble_one(model, text, loc, sink);
        if (d)
          out.push_back({std::move(*d), loc, std::string(text)});
        else
          ok = false;
      }
      if (semi == std::string_view::npos)
        break;
      pos = semi + 1;
    }
  }
  if (!ok)
    return std::nullopt;
  return out;
}

std::optional<std::vector<Decoded>>
assemble(const IsaModel &model, const SourceFile &file, DiagnosticSink &sink) {
  auto located = assemble_located(model, file, sink);
  if (!located)
    return std::nullopt;
  std::vector<Decoded> out;
  out.reserve(located->size());
  for (auto &a : *located)
    out.push_back(std::move(a.inst));
  return out;
}

} // namespace bcusim::isa
