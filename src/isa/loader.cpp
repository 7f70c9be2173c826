// Loader for the ISA description language of the spec (001): parses
// __DefBitFieldType / __DefGroup / __DefOptype / __DefOpcode with their
// __Encoding, __Syntax, __OperandInfo and __Examples sections (prose sections
// are skipped, code fences respected), flattens group -> optype -> opcode into
// one OpcodeModel per opcode and checks the result (docs/isa.md, "Load-time
// checks"). Every problem is a `file:line:col: error:` diagnostic.
#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "bcusim/isa/model.h"

namespace bcusim::isa {

// ---------------------------------------------------------------------------
// Model lookups

const BitFieldType::Enumerator *
BitFieldType::find(std::string_view enumerator) const {
  for (const auto &e : enumerators)
    if (e.name == enumerator)
      return &e;
  return nullptr;
}

const BitFieldType::Enumerator *BitFieldType::find(uint64_t value) const {
  if (!index_by_value.empty()) {
    if (value >= index_by_value.size() || index_by_value[value] < 0)
      return nullptr;
    return &enumerators[static_cast<size_t>(index_by_value[value])];
  }
  for (const auto &e : enumerators)
    if (e.value == value)
      return &e;
  return nullptr;
}

const FieldInfo *OpcodeModel::field(std::string_view n) const {
  int i = field_index(n);
  return i < 0 ? nullptr : &fields[static_cast<size_t>(i)];
}

int OpcodeModel::field_index(std::string_view n) const {
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == n)
      return static_cast<int>(i);
  return -1;
}

bool OpcodeModel::is_output(std::string_view n) const {
  return std::find(out_list.begin(), out_list.end(), n) != out_list.end();
}

const BitFieldType *IsaModel::type(std::string_view n) const {
  for (const auto &t : types)
    if (t.name == n)
      return &t;
  return nullptr;
}

const OpcodeModel *IsaModel::opcode(std::string_view n) const {
  for (const auto &o : opcodes)
    if (o.name == n)
      return &o;
  return nullptr;
}

std::vector<const OpcodeModel *>
IsaModel::opcodes_of(std::string_view optype) const {
  std::vector<const OpcodeModel *> out;
  for (const auto &o : opcodes)
    if (o.optype == optype)
      out.push_back(&o);
  return out;
}

Word128 encode(const OpcodeModel &op,
               const std::vector<std::pair<std::string, uint64_t>> &values) {
  Word128 w;
  for (const auto &f : op.fields) {
    uint64_t v = 0;
    if (f.fixed)
      v = *f.fixed;
    else if (f.deflt)
      v = *f.deflt;
    for (const auto &[name, value] : values)
      if (name == f.name)
        v = value;
    w.set_bits(f.lsb, f.width, v);
  }
  return w;
}

namespace {

// ---------------------------------------------------------------------------
// Line lexer: identifiers (may contain '.', as in `pg.not`), numbers
// (decimal or 0x hex), punctuation; `//` starts a comment.

struct Tok {
  enum Kind { Ident, Number, Punct, End, Bad } kind = End;
  std::string_view text;
  uint32_t col = 0; // 1-based byte column
  uint64_t value = 0;
  bool overflow = false;
};

bool is_ident_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_ident_char(char c) {
  return is_ident_start(c) || (c >= '0' && c <= '9');
}
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

class LineLexer {
public:
  explicit LineLexer(std::string_view line) : line_(line) {}

  Tok next() {
    while (pos_ < line_.size() && is_space(line_[pos_]))
      ++pos_;
    Tok t;
    t.col = static_cast<uint32_t>(pos_ + 1);
    if (pos_ >= line_.size() ||
        (line_[pos_] == '/' && pos_ + 1 < line_.size() &&
         line_[pos_ + 1] == '/')) {
      t.kind = Tok::End;
      return t;
    }
    size_t start = pos_;
    char c = line_[pos_];
    if (is_ident_start(c)) {
      while (pos_ < line_.size() &&
             (is_ident_char(line_[pos_]) ||
              (line_[pos_] == '.' && pos_ + 1 < line_.size() &&
               is_ident_start(line_[pos_ + 1]))))
        ++pos_;
      t.kind = Tok::Ident;
    } else if (c >= '0' && c <= '9') {
      t.kind = Tok::Number;
      unsigned base = 10;
      if (c == '0' && pos_ + 1 < line_.size() &&
          (line_[pos_ + 1] == 'x' || line_[pos_ + 1] == 'X')) {
        base = 16;
        pos_ += 2;
      }
      size_t digits = 0;
      while (pos_ < line_.size() && is_ident_char(line_[pos_])) {
        char d = line_[pos_];
        int v = -1;
        if (d >= '0' && d <= '9')
          v = d - '0';
        else if (base == 16 && d >= 'a' && d <= 'f')
          v = d - 'a' + 10;
        else if (base == 16 && d >= 'A' && d <= 'F')
          v = d - 'A' + 10;
        if (v < 0) {
          t.kind = Tok::Bad;
        } else {
          uint64_t nv = t.value * base + static_cast<uint64_t>(v);
          if (t.value > (~uint64_t{0} - static_cast<uint64_t>(v)) / base)
            t.overflow = true;
          t.value = nv;
        }
        ++digits;
        ++pos_;
      }
      if (digits == 0)
        t.kind = Tok::Bad;
    } else if (c == '=' && pos_ + 1 < line_.size() && line_[pos_ + 1] == '=') {
      pos_ += 2;
      t.kind = Tok::Punct;
    } else if (std::string_view("<>,;=[]:{}!.").find(c) !=
               std::string_view::npos) {
      ++pos_;
      t.kind = Tok::Punct;
    } else {
      // Anything else (including UTF-8 bytes) is one bad token up to the
      // next space.
      while (pos_ < line_.size() && !is_space(line_[pos_]))
        ++pos_;
      t.kind = Tok::Bad;
    }
    t.text = line_.substr(start, pos_ - start);
    return t;
  }

private:
  std::string_view line_;
  size_t pos_ = 0;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_space(s.back()))
    s.remove_suffix(1);
  return s;
}

// Strips a `//` comment from a line.
std::string_view strip_comment(std::string_view s) {
  size_t p = s.find("//");
  return p == std::string_view::npos ? s : s.substr(0, p);
}

// ---------------------------------------------------------------------------
// Raw (unflattened) description

struct Named {
  std::string name;
  SourceLoc at;
};

struct RawField {
  FieldInfo info;
  enum class ValueKind { None, Fixed, Default } value_kind = ValueKind::None;
  bool value_is_number = false;
  uint64_t number = 0;
  std::string enumerator;
  SourceLoc type_at, name_at, value_at;
};

struct RawSyntax {
  std::string text;
  SourceLoc at;
  std::string mnemonic;
  SourceLoc mnemonic_at;
  std::vector<std::string> operands;
  std::vector<std::string> controls;
};

struct RawModifierSet {
  Named field;
  std::vector<Named> values;
};

struct RawList {
  bool present = false;
  SourceLoc at;
  std::vector<Named> names;
};

struct RawDef {
  enum class Kind { Group, Optype, Opcode } kind = Kind::Group;
  std::string name;
  SourceLoc at;
  Named parent;
  std::vector<RawField> fields;
  std::vector<RawSyntax> syntax;
  std::vector<RawModifierSet> modifier_sets;
  RawList in_list, out_list, order;
  std::vector<std::pair<Named, unsigned>> bitwidth;
  std::vector<ExampleLine> examples;
};

struct RawType {
  BitFieldType type;
  std::vector<bool> explicit_value; // per enumerator
};

const char *kind_name(RawDef::Kind k) {
  switch (k) {
  case RawDef::Kind::Group:
    return "__DefGroup";
  case RawDef::Kind::Optype:
    return "__DefOptype";
  case RawDef::Kind::Opcode:
    return "__DefOpcode";
  }
  return "";
}

// ---------------------------------------------------------------------------
// Parser: line oriented; one state machine over all files.

enum class Section { None, Encoding, Syntax, OperandInfo, Examples, Prose };

class Parser {
public:
  Parser(DiagnosticSink &sink, std::vector<RawType> &types,
         std::vector<RawDef> &defs)
      : sink_(sink), types_(types), defs_(defs) {}

  void parse_file(const SourceFile &file) {
    file_ = &file;
    in_type_ = false;
    current_def_ = -1;
    section_ = Section::None;
    fence_open_ = false;
    for (uint32_t ln = 1; ln <= file.line_count(); ++ln) {
      line_no_ = ln;
      parse_line(file.line(ln));
    }
    if (fence_open_)
      error(fence_at_, "unterminated ``` code block");
  }

private:
  SourceLoc at(uint32_t col, size_t length = 1) const {
    return SourceLoc{file_, line_no_, col,
                     static_cast<uint32_t>(std::max<size_t>(length, 1))};
  }
  SourceLoc at(const Tok &t) const {
    return at(t.col, std::max<size_t>(t.text.size(), 1));
  }
  void error(SourceLoc loc, std::string message) {
    sink_.error(loc, std::move(message));
  }
  void expect_error(const Tok &t, std::string_view what) {
    if (t.kind == Tok::End)
      error(at(t.col), fmt::format("expected {}", what));
    else
      error(at(t), fmt::format("expected {}, found '{}'", what, t.text));
  }
  bool expect_punct(LineLexer &lx, std::string_view p) {
    Tok t = lx.next();
    if (t.kind == Tok::Punct && t.text == p)
      return true;
    expect_error(t, fmt::format("'{}'", p));
    return false;
  }
  bool expect_end(LineLexer &lx) {
    Tok t = lx.next();
    if (t.kind == Tok::End)
      return true;
    expect_error(t, "end of line");
    return false;
  }
  bool number(LineLexer &lx, uint64_t &value, std::string_view what) {
    Tok t = lx.next();
    if (t.kind != Tok::Number) {
      expect_error(t, what);
      return false;
    }
    if (t.overflow) {
      error(at(t), fmt::format("number '{}' does not fit 64 bits", t.text));
      return false;
    }
    value = t.value;
    return true;
  }

  RawDef *def() {
    return current_def_ < 0 ? nullptr
                            : &defs_[static_cast<size_t>(current_def_)];
  }

  void parse_line(std::string_view raw) {
    std::string_view line = trim(raw);
    uint32_t indent = static_cast<uint32_t>(raw.find_first_not_of(" \t") + 1);
    if (fence_open_) {
      if (line.substr(0, 3) == "```") {
        fence_open_ = false;
        return;
      }
      if (section_ == Section::Syntax)
        parse_syntax_line(raw);
      else if (section_ == Section::Examples && !line.empty())
        def()->examples.push_back(
            {def()->name, std::string(line), at(indent, line.size())});
      return;
    }
    if (line.substr(0, 3) == "```") {
      if (section_ == Section::None || section_ == Section::Encoding ||
          (section_ == Section::OperandInfo && def() &&
           def()->kind == RawDef::Kind::Opcode) ||
          in_type_) {
        error(at(indent, 3), "a ``` code block is not allowed here");
      }
      fence_open_ = true;
      fence_at_ = at(indent, 3);
      return;
    }
    if (line.substr(0, 2) == "__") {
      parse_directive(raw);
      return;
    }
    std::string_view code = trim(strip_comment(line));
    if (in_type_) {
      if (!code.empty())
        parse_enumerator(raw);
      return;
    }
    switch (section_) {
    case Section::Encoding:
      if (!code.empty())
        parse_field(raw);
      return;
    case Section::OperandInfo:
      if (def()->kind == RawDef::Kind::Opcode && !code.empty())
        parse_operand_info(raw);
      return; // optype/group OperandInfo is prose
    case Section::Syntax:
      if (!code.empty())
        error(at(indent, code.size()),
              "syntax lines must be inside a ``` code block");
      return;
    case Section::Examples:
    case Section::Prose:
      return;
    case Section::None:
      if (!code.empty()) {
        if (def())
          error(at(indent, code.size()),
                fmt::format("expected a section (__Encoding, __Syntax, "
                            "__OperandInfo, ...) in {} {}",
                            kind_name(def()->kind), def()->name));
        else
          error(at(indent, code.size()),
                "expected a definition (__DefBitFieldType, __DefGroup, "
                "__DefOptype or __DefOpcode)");
      }
      return;
    }
  }

  void parse_directive(std::string_view raw) {
    LineLexer lx(raw);
    Tok d = lx.next();
    if (d.text == "__DefBitFieldType") {
      parse_type_header(lx);
      return;
    }
    RawDef::Kind kind;
    if (d.text == "__DefGroup")
      kind = RawDef::Kind::Group;
    else if (d.text == "__DefOptype")
      kind = RawDef::Kind::Optype;
    else if (d.text == "__DefOpcode")
      kind = RawDef::Kind::Opcode;
    else {
      parse_section(d, lx);
      return;
    }
    in_type_ = false;
    section_ = Section::None;
    current_def_ = -1;
    Tok name = lx.next();
    if (name.kind != Tok::Ident) {
      expect_error(name, "a name");
      return;
    }
    RawDef nd;
    nd.kind = kind;
    nd.name = std::string(name.text);
    nd.at = at(name);
    if (!expect_punct(lx, ":") || !expect_punct(lx, "["))
      return;
    Tok parent = lx.next();
    if (parent.kind != Tok::Ident) {
      expect_error(parent, "the parent's name");
      return;
    }
    nd.parent = {std::string(parent.text), at(parent)};
    if (!expect_punct(lx, "]") || !expect_end(lx))
      return;
    defs_.push_back(std::move(nd));
    current_def_ = static_cast<int>(defs_.size() - 1);
  }

  void parse_section(const Tok &d, LineLexer &lx) {
    static const std::pair<std::string_view, Section> sections[] = {
        {"__Encoding", Section::Encoding},
        {"__Syntax", Section::Syntax},
        {"__OperandInfo", Section::OperandInfo},
        {"__Examples", Section::Examples},
        {"__Description", Section::Prose},
        {"__ModifierInfo", Section::Prose},
        {"__Semantics", Section::Prose},
    };
    for (const auto &[name, sec] : sections) {
      if (d.text != name)
        continue;
      if (!def()) {
        error(at(d), fmt::format("section {} outside a __DefGroup, "
                                 "__DefOptype or __DefOpcode",
                                 name));
        return;
      }
      in_type_ = false;
      section_ = sec;
      expect_end(lx);
      return;
    }
    error(at(d), fmt::format("unknown directive '{}'", d.text));
  }

  void parse_type_header(LineLexer &lx) {
    in_type_ = false;
    current_def_ = -1;
    section_ = Section::None;
    Tok name = lx.next();
    if (name.kind != Tok::Ident) {
      expect_error(name, "a type name");
      return;
    }
    RawType t;
    t.type.name = std::string(name.text);
    t.type.defined_at = at(name);
    uint64_t width = 0;
    if (!expect_punct(lx, "<") || !number(lx, width, "the width in bits"))
      return;
    if (width == 0 || width > 64) {
      error(t.type.defined_at,
            fmt::format("width of {} must be 1..64 bits, not {}", t.type.name,
                        width));
      return;
    }
    t.type.width = static_cast<unsigned>(width);
    if (!expect_punct(lx, ">") || !expect_end(lx))
      return;
    types_.push_back(std::move(t));
    in_type_ = true;
  }

  // `NAME;` or the project's extension `NAME = value;`.
  void parse_enumerator(std::string_view raw) {
    LineLexer lx(raw);
    Tok name = lx.next();
    if (name.kind != Tok::Ident) {
      expect_error(name, "an enumerator name");
      return;
    }
    RawType &t = types_.back();
    BitFieldType::Enumerator e;
    e.name = std::string(name.text);
    e.defined_at = at(name);
    bool explicit_value = false;
    Tok p = lx.next();
    if (p.kind == Tok::Punct && p.text == "=") {
      if (!number(lx, e.value, "the enumerator's value"))
        return;
      explicit_value = true;
      p = lx.next();
    } else {
      // Declaration order: one more than the previous enumerator.
      e.value =
          t.type.enumerators.empty() ? 0 : t.type.enumerators.back().value + 1;
    }
    if (!(p.kind == Tok::Punct && p.text == ";")) {
      expect_error(p, "';'");
      return;
    }
    if (!expect_end(lx))
      return;
    t.type.enumerators.push_back(std::move(e));
    t.explicit_value.push_back(explicit_value);
  }

  // field<lsb, width> Type name [==value | =value];
  void parse_field(std::string_view raw) {
    LineLexer lx(raw);
    Tok kw = lx.next();
    if (kw.kind != Tok::Ident || kw.text != "field") {
      expect_error(kw, "'field<lsb, width> Type name;'");
      return;
    }
    RawField f;
    uint64_t lsb = 0, width = 0;
    if (!expect_punct(lx, "<") || !number(lx, lsb, "the field's lsb") ||
        !expect_punct(lx, ",") || !number(lx, width, "the field's width") ||
        !expect_punct(lx, ">"))
      return;
    Tok type = lx.next();
    if (type.kind != Tok::Ident) {
      expect_error(type, "the field's type");
      return;
    }
    Tok name = lx.next();
    if (name.kind != Tok::Ident) {
      expect_error(name, "the field's name");
      return;
    }
    f.type_at = at(type);
    f.name_at = at(name);
    SourceLoc whole = at(kw.col, 1);
    if (lsb >= 128 || width == 0 || width > 64 || lsb + width > 128) {
      error(whole, fmt::format("field<{}, {}> does not lie within the 128-bit "
                               "word (width 1..64, lsb + width <= 128)",
                               lsb, width));
      return;
    }
    f.info.lsb = static_cast<unsigned>(lsb);
    f.info.width = static_cast<unsigned>(width);
    f.info.type = std::string(type.text);
    f.info.name = std::string(name.text);
    Tok p = lx.next();
    if (p.kind == Tok::Punct && (p.text == "==" || p.text == "=")) {
      f.value_kind = p.text == "==" ? RawField::ValueKind::Fixed
                                    : RawField::ValueKind::Default;
      Tok v = lx.next();
      if (v.kind == Tok::Number && !v.overflow) {
        f.value_is_number = true;
        f.number = v.value;
      } else if (v.kind == Tok::Ident) {
        f.enumerator = std::string(v.text);
      } else {
        expect_error(v, "a value (an enumerator or a number)");
        return;
      }
      f.value_at = at(v);
      p = lx.next();
    }
    if (!(p.kind == Tok::Punct && p.text == ";")) {
      expect_error(p, "';'");
      return;
    }
    if (!expect_end(lx))
      return;
    // The whole line is the field's definition; the caret goes under `field`.
    f.info.defined_at = at(kw.col, trim(strip_comment(raw)).size());
    def()->fields.push_back(std::move(f));
  }

  void parse_list(LineLexer &lx, RawList &list, const Tok &kw) {
    if (list.present) {
      error(at(kw), fmt::format("{} given twice", kw.text));
      return;
    }
    list.present = true;
    list.at = at(kw);
    if (!expect_punct(lx, "<"))
      return;
    Tok t = lx.next();
    if (t.kind == Tok::Punct && t.text == ">") {
      // empty list
    } else {
      for (;;) {
        if (t.kind != Tok::Ident) {
          expect_error(t, "a field name");
          return;
        }
        list.names.push_back({std::string(t.text), at(t)});
        Tok sep = lx.next();
        if (sep.kind == Tok::Punct && sep.text == ">")
          break;
        if (!(sep.kind == Tok::Punct && sep.text == ",")) {
          expect_error(sep, "',' or '>'");
          return;
        }
        t = lx.next();
      }
    }
    if (expect_punct(lx, ";"))
      expect_end(lx);
  }

  void parse_operand_info(std::string_view raw) {
    LineLexer lx(raw);
    Tok kw = lx.next();
    RawDef &d = *def();
    if (kw.text == "InList") {
      parse_list(lx, d.in_list, kw);
    } else if (kw.text == "OutList") {
      parse_list(lx, d.out_list, kw);
    } else if (kw.text == "Order") {
      parse_list(lx, d.order, kw);
    } else if (kw.text == "Bitwidth") {
      uint64_t bits = 0;
      if (!expect_punct(lx, "<"))
        return;
      Tok n = lx.next();
      if (n.kind != Tok::Ident) {
        expect_error(n, "a field name");
        return;
      }
      if (!expect_punct(lx, ">") || !expect_punct(lx, "=") ||
          !number(lx, bits, "a width in bits") || !expect_punct(lx, ";") ||
          !expect_end(lx))
        return;
      if (bits == 0 || bits > 64) {
        error(at(n), fmt::format("Bitwidth must be 1..64, not {}", bits));
        return;
      }
      d.bitwidth.push_back(
          {{std::string(n.text), at(n)}, static_cast<unsigned>(bits)});
    } else {
      expect_error(kw, "InList<...>, OutList<...>, Order<...> or "
                       "Bitwidth<field> = n");
    }
  }

  // Inside the __Syntax code block: a form `MNEMONIC op, {!}op $ctl ;` or a
  // modifier set `[.]field = {.A, .B}`.
  void parse_syntax_line(std::string_view raw) {
    std::string_view code = strip_comment(raw);
    std::string_view line = trim(code);
    if (line.empty())
      return;
    uint32_t col = static_cast<uint32_t>(code.find(line) + 1);
    RawDef &d = *def();
    if (line.find('{') != std::string_view::npos &&
        line.find('=') != std::string_view::npos &&
        line.find('=') < line.find('{')) {
      // Modifier set.
      LineLexer lx(raw);
      Tok t = lx.next();
      if (t.kind == Tok::Punct && t.text == ".")
        t = lx.next();
      if (t.kind != Tok::Ident) {
        expect_error(t, "a field name");
        return;
      }
      RawModifierSet set;
      set.field = {std::string(t.text), at(t)};
      if (!expect_punct(lx, "=") || !expect_punct(lx, "{"))
        return;
      for (;;) {
        Tok dot = lx.next();
        if (!(dot.kind == Tok::Punct && dot.text == ".")) {
          expect_error(dot, "'.' before a modifier");
          return;
        }
        Tok v = lx.next();
        if (v.kind != Tok::Ident) {
          expect_error(v, "a modifier name");
          return;
        }
        set.values.push_back({std::string(v.text), at(v)});
        Tok sep = lx.next();
        if (sep.kind == Tok::Punct && sep.text == "}")
          break;
        if (!(sep.kind == Tok::Punct && sep.text == ",")) {
          expect_error(sep, "',' or '}'");
          return;
        }
      }
      expect_end(lx);
      d.modifier_sets.push_back(std::move(set));
      return;
    }
    RawSyntax s;
    s.text = std::string(line);
    s.at = at(col, line.size());
    size_t sp = line.find_first_of(" \t");
    std::string_view mnemonic = line.substr(0, sp);
    s.mnemonic = std::string(mnemonic);
    s.mnemonic_at = at(col, mnemonic.size());
    for (char c : mnemonic)
      if (!(is_ident_char(c) || c == '.')) {
        error(
            s.mnemonic_at,
            fmt::format("malformed mnemonic '{}' in a syntax line", mnemonic));
        return;
      }
    std::string_view rest =
        sp == std::string_view::npos ? std::string_view{} : line.substr(sp);
    size_t semi = rest.find(';');
    if (semi != std::string_view::npos) {
      if (!trim(rest.substr(semi + 1)).empty()) {
        error(at(col + static_cast<uint32_t>(sp + semi + 1), 1),
              "unexpected text after ';' in a syntax line");
        return;
      }
      rest = rest.substr(0, semi);
    }
    std::string word;
    auto flush = [&] {
      if (word.empty())
        return;
      if (word[0] == '$')
        s.controls.push_back(word);
      else if (word.rfind("{!}", 0) == 0)
        s.operands.push_back(word.substr(3));
      else
        s.operands.push_back(word);
      word.clear();
    };
    for (char c : rest) {
      if (c == ',' || is_space(c))
        flush();
      else
        word += c;
    }
    flush();
    d.syntax.push_back(std::move(s));
  }

  DiagnosticSink &sink_;
  std::vector<RawType> &types_;
  std::vector<RawDef> &defs_;
  const SourceFile *file_ = nullptr;
  uint32_t line_no_ = 0;
  bool in_type_ = false;
  int current_def_ = -1;
  Section section_ = Section::None;
  bool fence_open_ = false;
  SourceLoc fence_at_;
};

// ---------------------------------------------------------------------------
// Flattening and checks

std::string describe_bits(const FieldInfo &f) {
  if (f.width == 1)
    return fmt::format("[{}]", f.lsb);
  return fmt::format("[{}:{}]", f.lsb + f.width - 1, f.lsb);
}

class Builder {
public:
  Builder(DiagnosticSink &sink, std::vector<RawType> &types,
          std::vector<RawDef> &defs, IsaModel &model)
      : sink_(sink), raw_types_(types), defs_(defs), model_(model) {}

  void build() {
    build_types();
    // Type problems do not stop flattening (more can be reported); an
    // unknown or duplicate definition does (the inheritance chain breaks).
    size_t errors_before = sink_.error_count();
    for (size_t i = 0; i < defs_.size(); ++i) {
      auto [it, fresh] = def_index_.emplace(defs_[i].name, i);
      if (!fresh) {
        auto &d = sink_.error(
            defs_[i].at, fmt::format("'{}' is defined twice", defs_[i].name));
        DiagnosticSink::note(d, defs_[it->second].at, "first defined here");
      }
    }
    for (size_t i = 0; i < defs_.size(); ++i) {
      const RawDef &d = defs_[i];
      if (d.parent.name != "ALL" && !def_index_.count(d.parent.name))
        sink_.error(d.parent.at,
                    fmt::format("unknown parent '{}'", d.parent.name));
      if (d.kind == RawDef::Kind::Optype)
        model_.optypes.push_back(d.name);
      for (const auto &e : d.examples)
        model_.examples.push_back(e);
    }
    if (sink_.error_count() != errors_before)
      return;
    for (size_t i = 0; i < defs_.size(); ++i)
      if (defs_[i].kind == RawDef::Kind::Opcode)
        build_opcode(i);
    for (size_t i = 0; i < defs_.size(); ++i)
      if (defs_[i].kind == RawDef::Kind::Optype)
        build_forms(i);
    check_distinguishable();
  }

private:
  void build_types() {
    std::map<std::string, size_t> seen;
    for (auto &rt : raw_types_) {
      BitFieldType &t = rt.type;
      auto [it, fresh] = seen.emplace(t.name, model_.types.size());
      if (!fresh) {
        auto &d = sink_.error(
            t.defined_at, fmt::format("type '{}' is defined twice", t.name));
        DiagnosticSink::note(d, model_.types[it->second].defined_at,
                             "first defined here");
        continue;
      }
      std::map<std::string, const BitFieldType::Enumerator *> names;
      std::map<uint64_t, const BitFieldType::Enumerator *> values;
      for (size_t i = 0; i < t.enumerators.size(); ++i) {
        const auto &e = t.enumerators[i];
        if (e.value > t.max_value())
          sink_.error(e.defined_at,
                      fmt::format("enumerator {} = {} does not fit {}<{}> "
                                  "(0..{})",
                                  e.name, e.value, t.name, t.width,
                                  t.max_value()));
        if (auto [n, ok] = names.emplace(e.name, &e); !ok) {
          auto &d = sink_.error(e.defined_at,
                                fmt::format("enumerator '{}' is declared twice "
                                            "in {}",
                                            e.name, t.name));
          DiagnosticSink::note(d, n->second->defined_at, "first declared here");
        }
        if (auto [v, ok] = values.emplace(e.value, &e); !ok) {
          auto &d = sink_.error(
              e.defined_at,
              fmt::format("enumerators '{}' and '{}' of {} have "
                          "the same value {}",
                          v->second->name, e.name, t.name, e.value));
          DiagnosticSink::note(
              d, v->second->defined_at,
              fmt::format("'{}' declared here", v->second->name));
        }
      }
      if (t.width <= 16 && t.enumerated()) {
        t.index_by_value.assign(size_t{1} << t.width, -1);
        for (size_t i = 0; i < t.enumerators.size(); ++i)
          if (t.enumerators[i].value < t.index_by_value.size() &&
              t.index_by_value[t.enumerators[i].value] < 0)
            t.index_by_value[t.enumerators[i].value] = static_cast<int>(i);
      }
      model_.types.push_back(t);
    }
  }

  // Ancestors of a definition, root first. Empty on a cycle (reported).
  std::vector<size_t> chain(size_t i) {
    std::vector<size_t> out;
    std::set<size_t> seen;
    size_t cur = i;
    for (;;) {
      if (!seen.insert(cur).second) {
        sink_.error(defs_[i].parent.at,
                    fmt::format("'{}' inherits from itself", defs_[i].name));
        return {};
      }
      out.push_back(cur);
      const std::string &p = defs_[cur].parent.name;
      if (p == "ALL")
        break;
      cur = def_index_.at(p);
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

  // Resolves a `==`/`=` value against the field's type.
  std::optional<uint64_t> resolve_value(const RawField &f,
                                        const BitFieldType &t) {
    uint64_t v;
    if (f.value_is_number) {
      v = f.number;
    } else {
      const auto *e = t.find(f.enumerator);
      if (!e) {
        if (auto *d = error_once(
                f.value_at, fmt::format("unknown enumerator '{}' of type {}",
                                        f.enumerator, t.name)))
          DiagnosticSink::note(
              *d, t.defined_at,
              t.enumerated() ? fmt::format("{} is defined here", t.name)
                             : fmt::format("{} has no enumerators", t.name));
        return std::nullopt;
      }
      v = e->value;
    }
    if (f.info.width < 64 && v >= (uint64_t{1} << f.info.width)) {
      error_once(f.value_at, fmt::format("value {} does not fit field {} ({} "
                                         "bits)",
                                         v, f.info.name, f.info.width));
      return std::nullopt;
    }
    return v;
  }

  void build_opcode(size_t index) {
    const RawDef &d = defs_[index];
    std::vector<size_t> ancestors = chain(index);
    if (ancestors.empty())
      return;
    OpcodeModel op;
    op.name = d.name;
    op.defined_at = d.at;
    for (size_t a : ancestors) {
      if (defs_[a].kind == RawDef::Kind::Optype)
        op.optype = defs_[a].name;
      if (defs_[a].kind == RawDef::Kind::Group && op.group.empty())
        op.group = defs_[a].name;
    }
    if (op.optype.empty()) {
      sink_.error(d.at, fmt::format("opcode '{}' has no __DefOptype among its "
                                    "ancestors",
                                    d.name));
      return;
    }
    size_t errors_before = sink_.error_count();
    bool bad = false; // set also when a repeated error is not reported again
    std::vector<const RawField *> raw;
    for (size_t a : ancestors)
      for (const auto &f : defs_[a].fields)
        raw.push_back(&f);
    for (const RawField *rf : raw) {
      FieldInfo info = rf->info;
      // A field with a bad type or value is still added (the opcode is
      // dropped anyway), so that Order<> etc. do not report it again.
      const BitFieldType *t = model_.type(info.type);
      if (!t || t->width != info.width)
        bad = true;
      if (!t) {
        // Once per type name: a missing codes table would otherwise give
        // one error per use.
        if (unknown_types_.insert(info.type).second)
          error_once(rf->type_at, fmt::format("unknown type '{}' (no "
                                              "__DefBitFieldType {})",
                                              info.type, info.type));
      } else if (t->width != info.width) {
        if (auto *diag = error_once(
                rf->info.defined_at,
                fmt::format("field {} is {} bits wide but its type {} is {} "
                            "bits",
                            info.name, info.width, t->name, t->width)))
          DiagnosticSink::note(*diag, t->defined_at,
                               fmt::format("{} is defined here", t->name));
      } else if (rf->value_kind != RawField::ValueKind::None) {
        auto v = resolve_value(*rf, *t);
        bad = bad || !v;
        if (v && rf->value_kind == RawField::ValueKind::Fixed)
          info.fixed = v;
        else if (v)
          info.deflt = v;
      }
      for (size_t j = 0; j < op.fields.size(); ++j) {
        const FieldInfo &o = op.fields[j];
        if (o.name == info.name) {
          auto &diag = sink_.error(
              rf->name_at, fmt::format("field '{}' of opcode {} is defined "
                                       "twice",
                                       info.name, op.name));
          DiagnosticSink::note(diag, o.defined_at, "first defined here");
        } else if (info.lsb < o.lsb + o.width &&
                   o.lsb < info.lsb + info.width) {
          auto &diag = sink_.error(
              info.defined_at,
              fmt::format("field {} {} overlaps field {} {} in opcode {}",
                          info.name, describe_bits(info), o.name,
                          describe_bits(o), op.name));
          DiagnosticSink::note(diag, o.defined_at,
                               fmt::format("{} is defined here", o.name));
        }
      }
      op.fields.push_back(std::move(info));
    }
    auto check_names = [&](const RawList &list, std::vector<std::string> &out,
                           const char *what) {
      for (const auto &n : list.names) {
        if (op.field_index(n.name) < 0)
          sink_.error(n.at, fmt::format("{} names '{}', which is not a field "
                                        "of opcode {}",
                                        what, n.name, op.name));
        out.push_back(n.name);
      }
    };
    check_names(d.in_list, op.in_list, "InList");
    check_names(d.out_list, op.out_list, "OutList");
    check_names(d.order, op.order, "Order");
    op.order_at = d.order.present ? d.order.at : d.at;
    if (!d.order.present)
      sink_.error(d.at, fmt::format("opcode {} has no Order<...> in its "
                                    "__OperandInfo",
                                    op.name));
    for (const auto &[n, bits] : d.bitwidth) {
      if (op.field_index(n.name) < 0)
        sink_.error(n.at, fmt::format("Bitwidth names '{}', which is not a "
                                      "field of opcode {}",
                                      n.name, op.name));
      op.bitwidth.push_back({n.name, bits});
    }
    if (bad || sink_.error_count() != errors_before)
      return;
    for (const auto &f : op.fields) {
      Word128 ones;
      ones.set_bits(f.lsb, f.width, ~uint64_t{0});
      op.field_mask.lo |= ones.lo;
      op.field_mask.hi |= ones.hi;
      if (f.fixed) {
        op.mask.lo |= ones.lo;
        op.mask.hi |= ones.hi;
        op.match.set_bits(f.lsb, f.width, *f.fixed);
      }
    }
    if (op.mask.lo == 0 && op.mask.hi == 0)
      sink_.error(d.at, fmt::format("opcode {} has no fixed (==) field, so no "
                                    "word can be told to be one",
                                    op.name));
    model_.opcodes.push_back(std::move(op));
  }

  // Fields visible at the optype level (group chain + optype).
  std::vector<const RawField *> optype_fields(size_t index) {
    std::vector<const RawField *> out;
    for (size_t a : chain(index))
      for (const auto &f : defs_[a].fields)
        out.push_back(&f);
    return out;
  }

  void build_forms(size_t index) {
    const RawDef &d = defs_[index];
    std::vector<const RawField *> fields = optype_fields(index);
    auto find_field = [&](std::string_view n) -> const RawField * {
      for (const RawField *f : fields)
        if (f->info.name == n)
          return f;
      return nullptr;
    };
    for (const auto &set : d.modifier_sets) {
      const RawField *f = find_field(set.field.name);
      const BitFieldType *t = f ? model_.type(f->info.type) : nullptr;
      if (!f || !t) {
        sink_.error(set.field.at,
                    fmt::format("modifier set names '{}', which is not a "
                                "field of {}",
                                set.field.name, d.name));
        continue;
      }
      for (const auto &v : set.values)
        if (!t->find(v.name))
          sink_.error(v.at, fmt::format("'.{}' is not an enumerator of {} "
                                        "(the type of {})",
                                        v.name, t->name, f->info.name));
    }
    for (const auto &s : d.syntax) {
      SyntaxForm form;
      form.optype = d.name;
      form.text = s.text;
      form.defined_at = s.at;
      form.operand_names = s.operands;
      form.control_tokens = s.controls;
      std::string_view m = s.mnemonic;
      bool first = true;
      while (!m.empty()) {
        size_t dot = m.find('.');
        std::string_view part = m.substr(0, dot);
        m = dot == std::string_view::npos ? std::string_view{}
                                          : m.substr(dot + 1);
        MnemonicPart mp;
        mp.text = std::string(part);
        if (part.empty()) {
          sink_.error(s.mnemonic_at,
                      fmt::format("empty part in mnemonic '{}'", s.mnemonic));
          break;
        }
        if (!first) {
          if (const RawField *f = find_field(part);
              f && !f->info.type.empty() && model_.type(f->info.type) &&
              model_.type(f->info.type)->enumerated() &&
              f->value_kind != RawField::ValueKind::Fixed) {
            mp.kind = MnemonicPart::Kind::FieldChoice;
            mp.field = f->info.name;
          } else {
            // An enumerator of one of the optype's free enumerated fields
            // (`BAR.SYNC`: SYNC of BARMode mode) fixes that field.
            for (const RawField *f : fields) {
              const BitFieldType *t = model_.type(f->info.type);
              if (!t || f->value_kind == RawField::ValueKind::Fixed ||
                  f->info.name == kGuardField)
                continue;
              if (const auto *e = t->find(part)) {
                mp.kind = MnemonicPart::Kind::FieldValue;
                mp.field = f->info.name;
                mp.value = e->value;
                break;
              }
            }
          }
        }
        first = false;
        form.parts.push_back(std::move(mp));
      }
      model_.forms.push_back(std::move(form));
    }
  }

  void check_distinguishable() {
    auto &ops = model_.opcodes;
    for (size_t i = 0; i < ops.size(); ++i)
      for (size_t j = i + 1; j < ops.size(); ++j) {
        Word128 common{ops[i].mask.lo & ops[j].mask.lo,
                       ops[i].mask.hi & ops[j].mask.hi};
        bool differ = ((ops[i].match.lo ^ ops[j].match.lo) & common.lo) ||
                      ((ops[i].match.hi ^ ops[j].match.hi) & common.hi);
        if (!differ) {
          auto &d = sink_.error(
              ops[j].defined_at,
              fmt::format("opcodes {} and {} cannot be told apart by their "
                          "fixed bits",
                          ops[i].name, ops[j].name));
          DiagnosticSink::note(d, ops[i].defined_at,
                               fmt::format("{} is defined here", ops[i].name));
        }
      }
  }

  // Group and optype fields are flattened into every opcode; report a
  // problem in one of them once, not once per opcode.
  Diagnostic *error_once(SourceLoc loc, std::string message) {
    auto key = std::make_tuple(loc.file, loc.line, loc.col, message);
    if (!reported_.insert(key).second)
      return nullptr;
    return &sink_.error(loc, std::move(message));
  }
  std::set<std::tuple<const SourceFile *, uint32_t, uint32_t, std::string>>
      reported_;
  std::set<std::string> unknown_types_;

  DiagnosticSink &sink_;
  std::vector<RawType> &raw_types_;
  std::vector<RawDef> &defs_;
  IsaModel &model_;
  std::map<std::string, size_t> def_index_;
};

} // namespace

std::shared_ptr<const IsaModel>
load_sources(const std::vector<std::shared_ptr<const SourceFile>> &sources,
             DiagnosticSink &sink) {
  auto model = std::make_shared<IsaModel>();
  model->sources = sources;
  std::vector<RawType> types;
  std::vector<RawDef> defs;
  size_t errors_before = sink.error_count();
  Parser parser(sink, types, defs);
  for (const auto &s : sources)
    if (s)
      parser.parse_file(*s);
  if (sink.error_count() != errors_before)
    return nullptr;
  Builder(sink, types, defs, *model).build();
  if (sink.error_count() != errors_before)
    return nullptr;
  if (model->opcodes.empty()) {
    SourceLoc loc;
    if (!sources.empty() && sources.front())
      loc = SourceLoc{sources.front().get(), 1, 1, 1};
    sink.error(loc, "the description defines no opcode");
    return nullptr;
  }
  return model;
}

std::shared_ptr<const IsaModel> load(const std::vector<std::string> &paths,
                                     DiagnosticSink &sink) {
  // Diagnostics point into the files, and the caller renders them after a
  // failed load (when no model holds the files): keep every file read here
  // for the life of the process. Descriptions are few and small.
  static std::mutex registry_mutex;
  static std::vector<std::shared_ptr<const SourceFile>> registry;
  std::vector<std::shared_ptr<const SourceFile>> sources;
  bool ok = true;
  for (const auto &p : paths) {
    std::string error;
    auto f = SourceFile::read(p, error);
    if (!f) {
      sink.error({}, error);
      ok = false;
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(registry_mutex);
      registry.push_back(f);
    }
    sources.push_back(std::move(f));
  }
  if (!ok)
    return nullptr;
  return load_sources(sources, sink);
}

} // namespace bcusim::isa
