// CTA barriers lowered onto the BCU (docs/barriers.md). The
// lowering of single forms, and small kernels whose results follow from
// the PTX rules (expected values reasoned out in each test's comment).
#include <gtest/gtest.h>

#include "bcusim/engine/lower.h"
#include "bcusim/isa/isa.h"
#include "bcusim/ptx/ast.h"
#include "test_util.h"

namespace bcusim::engine::test {
namespace {

// Lowers the first barrier instruction of `body`.
std::optional<LoweredBarrier> lower_first(const std::string &body,
                                          std::string *errors = nullptr) {
  // Parsed only (compiling would report the bad forms as well).
  DiagnosticSink parse_sink;
  static std::optional<ptx::Module> m; // keeps the source alive for errors
  m = ptx::parse(SourceFile::from_string("test.ptx", ptx_module("", body)),
                 parse_sink);
  EXPECT_TRUE(m) << parse_sink.render_all();
  if (!m)
    return std::nullopt;
  const ptx::Function &fn = m->functions.at(0);
  for (const auto &in : fn.body)
    if (is_cta_barrier(in)) {
      DiagnosticSink sink;
      auto lb = lower_barrier(in, fn, sink);
      if (errors)
        *errors = sink.render_all();
      return lb;
    }
  return std::nullopt;
}

std::vector<std::string> texts(const LoweredBarrier &lb) {
  std::vector<std::string> t;
  for (const auto &i : lb.instrs)
    t.push_back(i.text);
  return t;
}

// Every word is what the assembler makes of the printed text.
void expect_words_match_assembler(const LoweredBarrier &lb) {
  for (const auto &i : lb.instrs) {
    DiagnosticSink sink;
    auto d = isa::assemble_one(*isa::builtin(), i.text, SourceLoc{}, sink);
    ASSERT_TRUE(d) << i.text << sink.render_all();
    EXPECT_EQ(d->word, i.word) << i.text;
  }
}

const char *kRegs = "  .reg .pred %p<4>;\n  .reg .b32 %r<8>;\n";

TEST(Lower, SeedExampleRedPopcBecomesRedAndResult) {
  auto lb = lower_first(std::string(kRegs) + "bar.red.popc.u32 %r3, 1, %p1;");
  ASSERT_TRUE(lb);
  EXPECT_EQ(texts(*lb), (std::vector<std::string>{"BAR.RED.POPC 0x1, 0x0, P0;",
                                                  "BAR.RESULT R3, PT;"}));
  EXPECT_TRUE(lb->aligned);
  expect_words_match_assembler(*lb);
}

TEST(Lower, SyncForms) {
  struct Case {
    const char *ptx, *bcu;
  } cases[] = {
      {"bar.sync 0;", "BAR.SYNC 0x0, 0x0;"},
      {"bar.cta.sync 1, 64;", "BAR.SYNC 0x1, 0x40;"},
      {"barrier.sync %r1;", "BAR.SYNC R0, 0x0;"},
      {"barrier.sync.aligned %r1, 96;", "BAR.SYNC R0, 0x60;"},
      {"barrier.cta.sync 2, %r2;", "BAR.SYNC 0x2, R1;"},
      {"bar.sync %r1, %r2;", "BAR.SYNC R0, R1;"},
      {"bar.arrive 3, 32;", "BAR.ARV 0x3, 0x20;"},
      {"barrier.arrive %r1, %r2;", "BAR.ARV R0, R1;"},
  };
  for (const auto &c : cases) {
    auto lb = lower_first(std::string(kRegs) + c.ptx);
    ASSERT_TRUE(lb) << c.ptx;
    EXPECT_EQ(texts(*lb), std::vector<std::string>{c.bcu}) << c.ptx;
    expect_words_match_assembler(*lb);
  }
}

TEST(Lower, AlignedOnlyForBarAndDotAligned) {
  EXPECT_TRUE(lower_first(std::string(kRegs) + "bar.sync 0;")->aligned);
  EXPECT_TRUE(
      lower_first(std::string(kRegs) + "barrier.sync.aligned 0;")->aligned);
  EXPECT_FALSE(lower_first(std::string(kRegs) + "barrier.sync 0;")->aligned);
  EXPECT_FALSE(
      lower_first(std::string(kRegs) + "barrier.arrive 0, 64;")->aligned);
}

TEST(Lower, RedWithRegisterIdAndCountUsesThePackedForm) {
  // BAR.RED has no (Reg, Reg) form (SPEC-NOTES 5): R2 holds id | count << 4.
  auto lb = lower_first(std::string(kRegs) +
                        "barrier.red.and.pred %p2, %r1, %r2, !%p1;");
  ASSERT_TRUE(lb);
  EXPECT_TRUE(lb->packed);
  EXPECT_EQ(texts(*lb), (std::vector<std::string>{"BAR.RED.AND R2, !P0;",
                                                  "BAR.RESULT RZ, P1;"}));
  expect_words_match_assembler(*lb);
}

TEST(Lower, RejectsBadImmediates) {
  std::string err;
  EXPECT_FALSE(lower_first(std::string(kRegs) + "bar.sync 16;", &err));
  EXPECT_NE(err.find("barrier id 16 is outside 0..15"), std::string::npos)
      << err;
  EXPECT_FALSE(lower_first(std::string(kRegs) + "bar.sync 1, 40;", &err));
  EXPECT_NE(err.find("not a multiple of the warp size"), std::string::npos)
      << err;
  EXPECT_FALSE(lower_first(std::string(kRegs) + "bar.arrive 1, 0;", &err));
  EXPECT_NE(err.find("non-zero thread count"), std::string::npos) << err;
}

// One thread per element of out: tid, popc, and, or of (tid odd).
const char *kRedKernel = R"(
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 1;
  bar.red.popc.u32 %r3, 0, %p1;
  barrier.red.and.pred %p2, 1, %p1;
  bar.red.or.pred %p3, 2, !%p1;
  selp.u32 %r4, 1, 0, %p2;
  selp.u32 %r5, 1, 0, %p3;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 12;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  st.global.u32 [%rd3+4], %r4;
  st.global.u32 [%rd3+8], %r5;
  ret;)";

TEST(Run, ReductionsOverAPartialWarpCta) {
  // 33 threads: odd tids 1..31 = 16 true predicates; AND false; OR of the
  // negation true (tid 0 is even). Every thread gets the result.
  auto m = load_text(ptx_module(".param .u64 out", kRedKernel));
  ASSERT_TRUE(m);
  Device d;
  auto out = upload(d, std::vector<uint32_t>(33 * 3, 7));
  auto r =
      d.launch(*m, "k", config({1, 1, 1}, {33, 1, 1}), {KernelArg::ptr(out)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  auto v = download<uint32_t>(d, out, 33 * 3);
  for (unsigned t = 0; t < 33; ++t) {
    EXPECT_EQ(v[t * 3], 16u) << t;
    EXPECT_EQ(v[t * 3 + 1], 0u) << t;
    EXPECT_EQ(v[t * 3 + 2], 1u) << t;
  }
}

TEST(Run, RegisterBarrierIdsPerWarp) {
  // 4 warps: warp w syncs on barrier w % 2 with 64 threads, so warps 0,2
  // and 1,3 pair up; each thread then reads the value its partner warp
  // wrote (tid + 64) % 128 before the barrier.
  auto m = load_text(ptx_module(".param .u64 out", R"(
  .shared .align 4 .b32 buf[128];
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %r1;
  shr.u32 %r5, %r1, 5;
  and.b32 %r5, %r5, 1;
  mov.u32 %r6, 64;
  barrier.sync.aligned %r5, %r6;
  add.u32 %r7, %r1, 64;
  and.b32 %r7, %r7, 127;
  shl.b32 %r7, %r7, 2;
  add.u32 %r7, %r2, %r7;
  ld.shared.u32 %r8, [%r7];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r8;
  ret;)"));
  ASSERT_TRUE(m);
  Device d;
  auto out = upload(d, std::vector<uint32_t>(128, 0));
  auto r =
      d.launch(*m, "k", config({1, 1, 1}, {128, 1, 1}), {KernelArg::ptr(out)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  auto v = download<uint32_t>(d, out, 128);
  for (unsigned t = 0; t < 128; ++t)
    EXPECT_EQ(v[t], (t + 64) % 128) << t;
}

const char *kMismatch = R"(
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra W1;
  bar.arrive 1, 64;
  ret;
W1:
  bar.sync 1, 32;
  ret;)";

TEST(Run, CountMismatchIsAnErrorUnlessWarnOnly) {
  auto m = load_text(ptx_module("", kMismatch));
  ASSERT_TRUE(m);
  Device d;
  auto r = d.launch(*m, "k", config({1, 1, 1}, {64, 1, 1}), {});
  EXPECT_EQ(r.status, RunStatus::Fault);
  EXPECT_NE(
      r.diagnostics_text().find("error: different thread counts on barrier 1"),
      std::string::npos)
      << r.diagnostics_text();
  auto cfg = config({1, 1, 1}, {64, 1, 1});
  cfg.warn_only = true;
  auto w = d.launch(*m, "k", cfg, {});
  EXPECT_TRUE(w.ok()) << w.diagnostics_text();
  ASSERT_EQ(w.diagnostics.size(), 1u);
  EXPECT_EQ(w.diagnostics[0].severity, Severity::Warning);
}

TEST(Run, CountZeroBarrierStopsWaitingForExitedPartialWarp) {
  // 100 threads = 4 warps, the last one partial (4 threads); it exits at
  // once and the other warps' bar.sync 0 completes (docs/barriers.md).
  auto m = load_text(ptx_module("", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 96;
  @%p1 bra DONE;
  bar.sync 0;
  bar.sync 0;
DONE:
  ret;)"));
  ASSERT_TRUE(m);
  Device d;
  auto r = d.launch(*m, "k", config({2, 1, 1}, {100, 1, 1}), {});
  EXPECT_TRUE(r.ok()) << r.diagnostics_text();
}

} // namespace
} // namespace bcusim::engine::test
