// The lexer on its own: token kinds, values and positions.
#include "lexer.h"

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace bcusim::ptx::detail {
namespace {

std::vector<Token> lex_all(const SourceFile &f) {
  Lexer lx(f);
  std::vector<Token> out;
  for (Token t = lx.next(); t.kind != Tok::End; t = lx.next())
    out.push_back(t);
  return out;
}

TEST(PtxLexer, OpcodeWithModifiersSplitsIntoDotNames) {
  SourceFile f("t", "ld.global.nc.v4.f32 mbarrier.arrive.shared::cta.b64");
  auto t = lex_all(f);
  ASSERT_EQ(t.size(), 9u);
  EXPECT_EQ(t[0].kind, Tok::Ident);
  EXPECT_EQ(t[0].text, "ld");
  EXPECT_EQ(t[1].kind, Tok::DotName);
  EXPECT_EQ(t[1].text, "global");
  EXPECT_FALSE(t[1].space_before);
  EXPECT_EQ(t[4].text, "f32");
  EXPECT_EQ(t[5].text, "mbarrier");
  EXPECT_TRUE(t[5].space_before);
  EXPECT_EQ(t[7].text, "shared::cta");
  EXPECT_EQ(t[8].text, "b64");
}

TEST(PtxLexer, SpecialRegisterComponentIsPartOfTheName) {
  SourceFile f("t", "%tid.x %cluster_ctaid.z %r1.x %laneid");
  auto t = lex_all(f);
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[0].text, "%tid.x");
  EXPECT_EQ(t[1].text, "%cluster_ctaid.z");
  EXPECT_EQ(t[2].text, "%r1"); // not a special register: `.x` stays apart
  EXPECT_EQ(t[3].text, "x");
  EXPECT_EQ(t[4].text, "%laneid");
}

TEST(PtxLexer, IntegerLiterals) {
  SourceFile f("t", "42 0x1F 017 0b101 7U 0xFFFFFFFFFFFFFFFF 0");
  auto t = lex_all(f);
  ASSERT_EQ(t.size(), 7u);
  uint64_t want[] = {42, 31, 15, 5, 7, UINT64_MAX, 0};
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(t[i].kind, Tok::Int) << i;
    EXPECT_EQ(t[i].ival, want[i]) << i;
  }
}

TEST(PtxLexer, FloatLiterals) {
  SourceFile f("t", "0f3F800000 0d4002000000000000 1.5 2e3");
  auto t = lex_all(f);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_TRUE(t[0].is_f32);
  EXPECT_EQ(t[0].ival, 0x3F800000u);
  EXPECT_FALSE(t[1].is_f32);
  EXPECT_EQ(t[1].ival, 0x4002000000000000ull);
  double d;
  std::memcpy(&d, &t[2].ival, 8);
  EXPECT_EQ(d, 1.5);
  std::memcpy(&d, &t[3].ival, 8);
  EXPECT_EQ(d, 2000.0);
}

TEST(PtxLexer, BadLiteralsAreErrorTokens) {
  SourceFile f("t", "0f3F80 0x 09 0x1FFFFFFFFFFFFFFFF 12ab");
  auto t = lex_all(f);
  ASSERT_EQ(t.size(), 5u);
  for (const auto &x : t) {
    EXPECT_EQ(x.kind, Tok::Error) << x.text;
    EXPECT_NE(x.error, nullptr);
  }
}

TEST(PtxLexer, CommentsAndPositions) {
  SourceFile f("t", "// line comment\n  /* block\n comment */ add;\n\tx");
  auto t = lex_all(f);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].text, "add");
  EXPECT_EQ(t[0].line, 3u);
  EXPECT_EQ(t[0].col, 13u);
  EXPECT_EQ(t[1].punct, ';');
  EXPECT_EQ(t[2].line, 4u);
  EXPECT_EQ(t[2].col, 2u);
}

TEST(PtxLexer, StringsAndPunctuation) {
  SourceFile f("t", ".pragma \"nounroll\"; {a|b}, [x+-4] @!p _ \"open");
  auto t = lex_all(f);
  EXPECT_EQ(t[1].kind, Tok::String);
  EXPECT_EQ(t[1].text, "nounroll");
  EXPECT_EQ(t[1].length, 10u);
  EXPECT_EQ(t.back().kind, Tok::Error); // unterminated string
}

TEST(PtxLexer, ConstantExpressionOperatorsArePunctuation) {
  // `%` alone is the remainder operator, `%r1` a register; `/` that starts
  // no comment is division; `<<` is two adjacent '<' tokens.
  SourceFile f("t", "3 % 2 %r1 8/2 1<<4 ~0 a?b:c 1&2^3*4 /* c */ 5");
  auto t = lex_all(f);
  std::vector<char> puncts;
  for (const Token &x : t)
    if (x.kind == Tok::Punct)
      puncts.push_back(x.punct);
  EXPECT_EQ(std::string(puncts.begin(), puncts.end()), "%/<<~?:&^*");
  EXPECT_EQ(t[3].kind, Tok::Ident);
  EXPECT_EQ(t[3].text, "%r1");
  EXPECT_EQ(t[8].punct, '<');
  EXPECT_EQ(t[9].offset, t[8].offset + 1); // `<<`: adjacent
  EXPECT_EQ(t.back().kind, Tok::Int);      // the comment was skipped
  EXPECT_EQ(t.back().ival, 5u);
}

} // namespace
} // namespace bcusim::ptx::detail
