// Hand-written PTX lexer (internal to src/ptx). One pass over the text, no
// allocation per token: tokens are views into the SourceFile's text.
#pragma once

#include <cstdint>
#include <string_view>

#include "bcusim/support/diagnostics.h"

namespace bcusim::ptx::detail {

enum class Tok : uint8_t {
  End,
  Ident,   // name: letters, digits, _ $ %, starting with a letter, _ $ or %;
           // %tid.x-style special registers include their `.x` component
  DotName, // `.name`, `.shared::cta`, `.1d` (text excludes the dot)
  Int,     // integer literal (value in Token::ival, U suffix accepted)
  Float,   // 0fXXXXXXXX (is_f32), 0dXXXXXXXXXXXXXXXX or decimal (f64 bits)
  String,  // "..." (text excludes the quotes, escapes kept as written)
  Punct,   // one of , ; : { } [ ] ( ) < > + - ! @ | = * / % & ^ ~ ?
           // (two-character operators such as `<<` are two tokens)
  Error,   // a character or literal the lexer cannot read (message set)
};

struct Token {
  Tok kind = Tok::End;
  char punct = 0;              // for Punct
  bool is_f32 = false;         // for Float
  bool space_before = true;    // whitespace/comment between this and previous
  std::string_view text;       // the token as written (without dot / quotes)
  uint64_t ival = 0;           // Int value / Float bits
  uint32_t offset = 0;         // byte offset of the first character
  uint32_t line = 0;           // 1-based
  uint32_t col = 0;            // 1-based
  uint32_t length = 0;         // characters in the source, including dot/quotes
  const char *error = nullptr; // for Error
};

class Lexer {
public:
  explicit Lexer(const SourceFile &file);
  Token next();

private:
  void skip_space_and_comments(bool &saw_space);
  Token make(Tok kind, size_t begin);
  Token lex_number(size_t begin);

  const SourceFile &file_;
  std::string_view text_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  size_t line_start_ = 0;
};

} // namespace bcusim::ptx::detail
