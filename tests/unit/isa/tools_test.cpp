// Word file formats, the disassembler's checks, explain and listings.
#include "bcusim/isa/tools.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace bcusim;
using namespace bcusim::isa;
using ::testing::HasSubstr;

TEST(IsaTools, BinaryWordsAreLittleEndian) {
  Word128 w{0x0706050403020100ull, 0x0F0E0D0C0B0A0908ull};
  std::string bytes = to_bytes(w);
  ASSERT_EQ(bytes.size(), 16u);
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(static_cast<unsigned char>(bytes[i]), i); // byte 0 = bits 7..0
  DiagnosticSink sink;
  auto words = read_bin_words(bytes + bytes, "x.bin", sink);
  ASSERT_TRUE(words);
  ASSERT_EQ(words->size(), 2u);
  EXPECT_EQ((*words)[1].word, w);
  EXPECT_EQ((*words)[1].byte_offset, 16u);
  EXPECT_FALSE(read_bin_words(bytes.substr(0, 15), "x.bin", sink));
  EXPECT_THAT(sink.render_all(),
              HasSubstr("x.bin: 15 bytes is not a whole number of 16-byte"));
}

TEST(IsaTools, HexFilesAllowCommentsAndBlankLines) {
  auto f = SourceFile::from_string(
      "w.hex", "// words\n\n00000000000000000004010000007101  // BAR.SYNC\n"
               "  0x00000000000000000004010000007101\n");
  DiagnosticSink sink;
  auto words = read_hex_words(*f, sink);
  EXPECT_FALSE(sink.has_errors()) << sink.render_all();
  ASSERT_EQ(words.size(), 2u);
  EXPECT_EQ(words[1].index, 1u);
  EXPECT_EQ(words[1].at.line, 4u);
  EXPECT_EQ(words[1].at.col, 3u);
  auto bad = SourceFile::from_string(
      "b.hex", "0000\n00000000000000000004010000007101\n");
  words = read_hex_words(*bad, sink);
  ASSERT_EQ(words.size(), 1u);
  EXPECT_EQ(words[0].index, 1u); // the malformed line counts
  EXPECT_EQ(sink.error_count(), 1u);
  EXPECT_THAT(sink.render_all(),
              HasSubstr("b.hex:1:1: error: expected one instruction word of "
                        "exactly 32 hex digits"));
}

TEST(IsaTools, DisassemblerAppliesTheSpecRules) {
  auto model = builtin();
  std::string why;
  // BAR.ARV with count 0 (BAR_I, mode ARV).
  Word128 arv0 = encode(*model->opcode("BAR_I"), {{"mode", 1}, {"cnt", 0}});
  EXPECT_FALSE(disassemble_word(*model, arv0, why));
  EXPECT_EQ(why, "decodes as BAR.ARV 0x0, 0x0; but breaks a rule of the spec: "
                 "BAR.ARV requires a non-zero count (SrcCnt > 0)");
  Word128 odd = encode(*model->opcode("BAR_RED_RRI"), {{"cnt", 0x21}});
  EXPECT_FALSE(disassemble_word(*model, odd, why));
  EXPECT_THAT(why, HasSubstr("count 0x21 (33) is not a multiple of 32"));
  Word128 ok = encode(*model->opcode("BAR_I"), {{"mode", 1}, {"cnt", 0x20}});
  EXPECT_TRUE(disassemble_word(*model, ok, why));
}

TEST(IsaTools, ExplainNamesEveryFieldAndItsDefinition) {
  auto model = builtin();
  auto f = SourceFile::from_string("e.s", "BAR.SYNC 0x1, 0x40");
  DiagnosticSink sink;
  auto d = assemble_one(*model, f->text(), {f.get(), 1, 1, 1}, sink);
  ASSERT_TRUE(d);
  std::string e = explain(*model, *d);
  EXPECT_THAT(e, HasSubstr("opcode  BAR_I (optype BAR, group BCU)"));
  EXPECT_THAT(e, HasSubstr("word    00000000000000000004010000007101"));
  EXPECT_THAT(e, HasSubstr("cnt     [55:44]  0x40   -      operand   "
                           "isa/bcu.isa:"));
  EXPECT_THAT(e, HasSubstr("field<44, 12> UImm12 cnt;"));
  EXPECT_THAT(e, HasSubstr("mode    [80]     0x0    SYNC   modifier"));
  EXPECT_THAT(e, HasSubstr("optype  [7:0]    0x1    BAR    fixed"));
  EXPECT_THAT(e, HasSubstr("pg      [14:12]  0x7    PT     default"));
}

TEST(IsaTools, AssembleLocatedKeepsStatementPositions) {
  auto model = builtin();
  auto f = SourceFile::from_string(
      "l.s", "// c\n  BAR.SYNC 0x0 ; BAR.ARV 0x1, 0x20 // x\n\nB2R.WARP R4;\n");
  DiagnosticSink sink;
  auto a = assemble_located(*model, *f, sink);
  ASSERT_TRUE(a) << sink.render_all();
  ASSERT_EQ(a->size(), 3u);
  EXPECT_EQ((*a)[0].at.line, 2u);
  EXPECT_EQ((*a)[0].at.col, 3u);
  EXPECT_EQ((*a)[0].text, "BAR.SYNC 0x0");
  EXPECT_EQ((*a)[1].at.col, 18u);
  EXPECT_EQ((*a)[1].text, "BAR.ARV 0x1, 0x20");
  EXPECT_EQ((*a)[2].at.line, 4u);
  // Errors in several statements are all reported.
  auto bad = SourceFile::from_string("b.s", "BAR.X 0x0\nBAR.SYNC 0x10\n");
  EXPECT_FALSE(assemble(*model, *bad, sink));
  EXPECT_EQ(sink.error_count(), 2u);
}
