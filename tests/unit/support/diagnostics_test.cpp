#include "bcusim/support/diagnostics.h"

#include <gtest/gtest.h>

using namespace bcusim;

TEST(Diagnostics, RendersLocationSourceLineAndCaret) {
  auto f =
      SourceFile::from_string("a.s", "BAR.SYNC 0x0 ;\nBAR.ARV 0x10, 0x40 ;\n");
  DiagnosticSink sink;
  auto &d = sink.error({f.get(), 2, 9, 4}, "barrier id must be in [0, 15]");
  DiagnosticSink::note(d, {}, "legal forms: BAR.ARV UImm4, UImm12");
  EXPECT_EQ(render(d), "a.s:2:9: error: barrier id must be in [0, 15]\n"
                       "BAR.ARV 0x10, 0x40 ;\n"
                       "        ^~~~\n"
                       "bcusim: note: legal forms: BAR.ARV UImm4, UImm12\n");
  EXPECT_EQ(sink.error_count(), 1u);
}

TEST(Diagnostics, PositionFromOffset) {
  auto f = SourceFile::from_string("x", "ab\ncd\n\nef");
  uint32_t line = 0, col = 0;
  f->position(4, line, col);
  EXPECT_EQ(line, 2u);
  EXPECT_EQ(col, 2u);
  f->position(7, line, col);
  EXPECT_EQ(line, 4u);
  EXPECT_EQ(col, 1u);
  EXPECT_EQ(f->line(4), "ef");
  EXPECT_EQ(f->line(3), "");
  EXPECT_EQ(f->line(9), "");
}

TEST(Diagnostics, TabsAreKeptInTheCaretLine) {
  auto f = SourceFile::from_string("t.ptx", "\tbar.sync 16;\n");
  Diagnostic d{Severity::Error, {f.get(), 1, 11, 2}, "bad", {}};
  EXPECT_EQ(render(d),
            "t.ptx:1:11: error: bad\n\tbar.sync 16;\n\t         ^~\n");
}
