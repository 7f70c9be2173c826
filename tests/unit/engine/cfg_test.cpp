// Basic blocks and immediate post-dominators computed at load (cfg.h,
// docs/engine.md "Reconvergence"): Program::reconv names, per branch, the
// first pc of the block where its paths reconverge.
#include <gtest/gtest.h>

#include "bcusim/engine/engine.h"
#include "cfg.h"

namespace bcusim::engine::detail {
namespace {

const char *kHeader = ".version 8.0\n.target sm_80\n.address_size 64\n";

struct Loaded {
  std::unique_ptr<Module> mod;
  const Program *prog = nullptr;
  const FuncInfo *fn = nullptr;
  // The first pc of the instruction on source line `line`.
  uint32_t pc_at(uint32_t line) const {
    for (uint32_t pc = fn->entry_pc; pc < fn->end_pc; ++pc)
      if (prog->locs[pc].line == line)
        return pc;
    ADD_FAILURE() << "no instruction on line " << line;
    return kNone;
  }
};

Loaded load(const std::string &body) {
  Loaded l;
  DiagnosticSink sink;
  l.mod = Module::load_string(
      "cfg.ptx",
      std::string(kHeader) + ".visible .entry k()\n{\n" + body + "}\n", sink);
  EXPECT_TRUE(l.mod) << sink.render_all();
  if (!l.mod)
    return l;
  l.prog = &l.mod->program();
  for (const auto &f : l.prog->funcs)
    if (f.name == "k")
      l.fn = &f;
  EXPECT_TRUE(l.fn);
  return l;
}

// Source lines: the header takes lines 1-3, the entry lines 4-5, so the
// body's first line is line 6.
TEST(Cfg, IfElseReconvergesAfterBothArms) {
  Loaded l = load(".reg .pred %p<2>;\n"         // 6
                  ".reg .b32 %r<4>;\n"          // 7
                  "mov.u32 %r1, %tid.x;\n"      // 8
                  "setp.lt.u32 %p1, %r1, 16;\n" // 9
                  "@%p1 bra THEN;\n"            // 10
                  "add.s32 %r2, %r1, 1;\n"      // 11
                  "bra JOIN;\n"                 // 12
                  "THEN:\n"                     // 13
                  "add.s32 %r2, %r1, 2;\n"      // 14
                  "JOIN:\n"                     // 15
                  "add.s32 %r3, %r2, 1;\n"      // 16
                  "ret;\n");                    // 17
  ASSERT_TRUE(l.fn);
  EXPECT_EQ(l.prog->reconv[l.pc_at(10)], l.pc_at(16));
  EXPECT_EQ(l.prog->reconv[l.pc_at(12)], l.pc_at(16));
  // Only branches have a reconvergence point.
  EXPECT_EQ(l.prog->reconv[l.pc_at(11)], kNone);
  const FunctionCfg g = build_cfg(l.prog->code, l.fn->entry_pc, l.fn->end_pc);
  // Blocks: [8..10] [11..12] [14] [16..17] [end of function].
  ASSERT_EQ(g.start.size(), 5u);
  EXPECT_EQ(g.start[1], l.pc_at(11));
  EXPECT_EQ(g.ipdom[0], g.block_of(l.pc_at(16)));
  EXPECT_EQ(g.ipdom[g.block_of(l.pc_at(16))], g.exit());
}

TEST(Cfg, LoopWithBreakReconvergesAtTheLoopExit) {
  Loaded l = load(".reg .pred %p<3>;\n"         // 6
                  ".reg .b32 %r<4>;\n"          // 7
                  "mov.u32 %r1, %tid.x;\n"      // 8
                  "LOOP:\n"                     // 9
                  "add.s32 %r1, %r1, 1;\n"      // 10
                  "setp.eq.s32 %p1, %r1, 5;\n"  // 11
                  "@%p1 bra OUT;\n"             // 12
                  "setp.lt.s32 %p2, %r1, 10;\n" // 13
                  "@%p2 bra LOOP;\n"            // 14
                  "OUT:\n"                      // 15
                  "add.s32 %r2, %r1, 1;\n"      // 16
                  "ret;\n");                    // 17
  ASSERT_TRUE(l.fn);
  EXPECT_EQ(l.prog->reconv[l.pc_at(12)], l.pc_at(16));
  EXPECT_EQ(l.prog->reconv[l.pc_at(14)], l.pc_at(16));
}

TEST(Cfg, PathsThatMeetOnlyAtTheExitHaveNoReconvergencePoint) {
  Loaded l = load(".reg .pred %p<2>;\n"         // 6
                  ".reg .b32 %r<4>;\n"          // 7
                  "mov.u32 %r1, %tid.x;\n"      // 8
                  "setp.lt.u32 %p1, %r1, 16;\n" // 9
                  "@%p1 bra A;\n"               // 10
                  "add.s32 %r2, %r1, 1;\n"      // 11
                  "exit;\n"                     // 12
                  "A:\n"                        // 13
                  "add.s32 %r2, %r1, 2;\n"      // 14
                  "ret;\n");                    // 15
  ASSERT_TRUE(l.fn);
  EXPECT_EQ(l.prog->reconv[l.pc_at(10)], kNone);
}

TEST(Cfg, GuardedExitFallsThroughAndEndlessLoopsHaveNoPostDominator) {
  Loaded l = load(".reg .pred %p<3>;\n"         // 6
                  ".reg .b32 %r<4>;\n"          // 7
                  "mov.u32 %r1, %tid.x;\n"      // 8
                  "setp.lt.u32 %p1, %r1, 16;\n" // 9
                  "setp.lt.u32 %p2, %r1, 8;\n"  // 10
                  "@%p1 bra SPIN;\n"            // 11
                  "@%p2 exit;\n"                // 12
                  "add.s32 %r2, %r1, 1;\n"      // 13
                  "ret;\n"                      // 14
                  "SPIN:\n"                     // 15
                  "bra SPIN;\n");               // 16
  ASSERT_TRUE(l.fn);
  // The lanes at SPIN never leave: the others reconverge after the guarded
  // exit (whose false lanes go on).
  const FunctionCfg g = build_cfg(l.prog->code, l.fn->entry_pc, l.fn->end_pc);
  EXPECT_EQ(g.ipdom[g.block_of(l.pc_at(16))], kNone);
  EXPECT_EQ(g.ipdom[g.block_of(l.pc_at(11))], g.block_of(l.pc_at(12)));
  EXPECT_EQ(l.prog->reconv[l.pc_at(11)], l.pc_at(12));
  EXPECT_EQ(l.prog->reconv[l.pc_at(16)], kNone);
}

} // namespace
} // namespace bcusim::engine::detail
