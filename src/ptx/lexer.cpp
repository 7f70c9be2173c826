#include "lexer.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

namespace bcusim::ptx::detail {

namespace {

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         c == '$' || c == '%';
}
bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

// Special registers with .x/.y/.z components (PTX ISA "Special Registers").
bool has_xyz_component(std::string_view name) {
  return name == "%tid" || name == "%ntid" || name == "%ctaid" ||
         name == "%nctaid" || name == "%cluster_ctaid" ||
         name == "%cluster_nctaid" || name == "%clusterid" ||
         name == "%nclusterid";
}

} // namespace

Lexer::Lexer(const SourceFile &file) : file_(file), text_(file.text()) {}

void Lexer::skip_space_and_comments(bool &saw_space) {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '\n') {
      ++pos_;
      ++line_;
      line_start_ = pos_;
      saw_space = true;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++pos_;
      saw_space = true;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n')
        ++pos_;
      saw_space = true;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
      size_t end = text_.find("*/", pos_ + 2);
      size_t stop = end == std::string_view::npos ? text_.size() : end + 2;
      for (size_t i = pos_; i < stop; ++i)
        if (text_[i] == '\n') {
          ++line_;
          line_start_ = i + 1;
        }
      pos_ = stop;
      saw_space = true;
    } else {
      return;
    }
  }
}

Token Lexer::make(Tok kind, size_t begin) {
  Token t;
  t.kind = kind;
  t.offset = static_cast<uint32_t>(begin);
  t.line = line_;
  t.col = static_cast<uint32_t>(begin - line_start_ + 1);
  t.length = static_cast<uint32_t>(pos_ - begin);
  t.text = text_.substr(begin, pos_ - begin);
  return t;
}

Token Lexer::lex_number(size_t begin) {
  // 0f / 0d hexadecimal floating-point bit patterns.
  auto at = [&](size_t i) -> char {
    return i < text_.size() ? text_[i] : '\0';
  };
  if (at(begin) == '0' && (at(begin + 1) == 'f' || at(begin + 1) == 'F' ||
                           at(begin + 1) == 'd' || at(begin + 1) == 'D')) {
    bool f32 = at(begin + 1) == 'f' || at(begin + 1) == 'F';
    size_t digits = f32 ? 8 : 16;
    size_t i = begin + 2;
    uint64_t bits = 0;
    size_t n = 0;
    while (hex_value(at(i)) >= 0) {
      bits = (bits << 4) | static_cast<uint64_t>(hex_value(at(i)));
      ++i;
      ++n;
    }
    bool bad = n != digits || is_ident_char(at(i));
    while (is_ident_char(at(i)))
      ++i;
    pos_ = i;
    Token t = make(bad ? Tok::Error : Tok::Float, begin);
    if (bad) {
      t.error = f32 ? "invalid floating-point literal: 0f needs exactly 8 "
                      "hexadecimal digits"
                    : "invalid floating-point literal: 0d needs exactly 16 "
                      "hexadecimal digits";
      return t;
    }
    t.ival = bits;
    t.is_f32 = f32;
    return t;
  }
  // Hexadecimal / binary integers.
  if (at(begin) == '0' && (at(begin + 1) == 'x' || at(begin + 1) == 'X' ||
                           at(begin + 1) == 'b' || at(begin + 1) == 'B')) {
    bool hex = at(begin + 1) == 'x' || at(begin + 1) == 'X';
    size_t i = begin + 2;
    uint64_t v = 0;
    bool overflow = false;
    size_t n = 0;
    for (;; ++i, ++n) {
      int d = hex                              ? hex_value(at(i))
              : (at(i) == '0' || at(i) == '1') ? at(i) - '0'
                                               : -1;
      if (d < 0)
        break;
      unsigned shift = hex ? 4 : 1;
      if (v >> (64 - shift))
        overflow = true;
      v = (v << shift) | static_cast<uint64_t>(d);
    }
    if (at(i) == 'U' || at(i) == 'u')
      ++i;
    bool bad = n == 0 || is_ident_char(at(i));
    while (is_ident_char(at(i)))
      ++i;
    pos_ = i;
    Token t = make(bad || overflow ? Tok::Error : Tok::Int, begin);
    if (bad)
      t.error = "invalid integer literal";
    else if (overflow)
      t.error = "integer literal does not fit in 64 bits";
    t.ival = v;
    return t;
  }
  // Decimal (or octal with a leading 0) integer, or decimal float.
  size_t i = begin;
  while (is_digit(at(i)))
    ++i;
  bool is_float = false;
  if (at(i) == '.' && is_digit(at(i + 1))) {
    is_float = true;
    ++i;
    while (is_digit(at(i)))
      ++i;
  } else if (at(i) == '.' && !is_ident_char(at(i + 1))) {
    is_float = true; // "1." form
    ++i;
  }
  if ((at(i) == 'e' || at(i) == 'E') &&
      (is_digit(at(i + 1)) ||
       ((at(i + 1) == '+' || at(i + 1) == '-') && is_digit(at(i + 2))))) {
    is_float = true;
    i += 2;
    while (is_digit(at(i)))
      ++i;
  }
  if (is_float) {
    bool bad = is_ident_char(at(i));
    while (is_ident_char(at(i)))
      ++i;
    pos_ = i;
    Token t = make(bad ? Tok::Error : Tok::Float, begin);
    if (bad) {
      t.error = "invalid floating-point literal";
      return t;
    }
    std::string copy(t.text);
    double d = std::strtod(copy.c_str(), nullptr);
    std::memcpy(&t.ival, &d, sizeof d);
    return t;
  }
  bool octal = at(begin) == '0' && i - begin > 1;
  uint64_t v = 0;
  bool overflow = false;
  bool bad = false;
  for (size_t k = begin; k < i; ++k) {
    unsigned d = static_cast<unsigned>(text_[k] - '0');
    unsigned base = octal ? 8 : 10;
    if (d >= base)
      bad = true;
    if (v > (UINT64_MAX - d) / base)
      overflow = true;
    v = v * base + d;
  }
  if (at(i) == 'U' || at(i) == 'u')
    ++i;
  if (is_ident_char(at(i)))
    bad = true;
  while (is_ident_char(at(i)))
    ++i;
  pos_ = i;
  Token t = make(bad || overflow ? Tok::Error : Tok::Int, begin);
  if (bad)
    t.error =
        octal ? "invalid octal integer literal" : "invalid integer literal";
  else if (overflow)
    t.error = "integer literal does not fit in 64 bits";
  t.ival = v;
  return t;
}

Token Lexer::next() {
  bool saw_space = pos_ == 0;
  skip_space_and_comments(saw_space);
  if (pos_ >= text_.size()) {
    Token t = make(Tok::End, pos_);
    t.length = 1;
    t.space_before = saw_space;
    return t;
  }
  size_t begin = pos_;
  char c = text_[pos_];
  Token t;
  if (is_ident_start(c)) {
    ++pos_;
    while (pos_ < text_.size() && is_ident_char(text_[pos_]))
      ++pos_;
    if (c == '%' && pos_ + 1 < text_.size() && text_[pos_] == '.' &&
        (text_[pos_ + 1] == 'x' || text_[pos_ + 1] == 'y' ||
         text_[pos_ + 1] == 'z') &&
        (pos_ + 2 >= text_.size() || !is_ident_char(text_[pos_ + 2])) &&
        has_xyz_component(text_.substr(begin, pos_ - begin)))
      pos_ += 2;
    t = make(Tok::Ident, begin);
    if (t.text == "%") {
      // A lone `%` is the remainder operator of a constant expression.
      t.kind = Tok::Punct;
      t.punct = '%';
    }
  } else if (c == '.') {
    ++pos_;
    // `.name`, `.shared::cta`, `.async::generic`, `.1d`.
    while (pos_ < text_.size()) {
      if (is_ident_char(text_[pos_]))
        ++pos_;
      else if (text_[pos_] == ':' && pos_ + 2 < text_.size() &&
               text_[pos_ + 1] == ':' && is_ident_char(text_[pos_ + 2]))
        pos_ += 2;
      else
        break;
    }
    t = make(Tok::DotName, begin);
    t.text = t.text.substr(1);
    if (t.text.empty()) {
      t.kind = Tok::Error;
      t.error = "expected a name after '.'";
    }
  } else if (is_digit(c)) {
    t = lex_number(begin);
  } else if (c == '"') {
    ++pos_;
    while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size() &&
          text_[pos_ + 1] != '\n')
        ++pos_;
      ++pos_;
    }
    if (pos_ >= text_.size() || text_[pos_] != '"') {
      t = make(Tok::Error, begin);
      t.error = "missing terminating '\"' character";
    } else {
      ++pos_;
      t = make(Tok::String, begin);
      t.text = t.text.substr(1, t.text.size() - 2);
    }
  } else if (std::strchr(",;:{}[]()<>+-!@|=*/&^~?", c) != nullptr) {
    ++pos_;
    t = make(Tok::Punct, begin);
    t.punct = c;
  } else {
    // One UTF-8 sequence (or byte) that PTX does not use.
    ++pos_;
    while (pos_ < text_.size() &&
           (static_cast<unsigned char>(text_[pos_]) & 0xC0) == 0x80)
      ++pos_;
    t = make(Tok::Error, begin);
    t.length = 1;
    t.error = "unexpected character";
  }
  t.space_before = saw_space;
  (void)file_;
  return t;
}

} // namespace bcusim::ptx::detail
