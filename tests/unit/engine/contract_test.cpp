// Multiply-add contraction (contract.h, docs/engine.md "Multiply-add
// contraction"): which adds and subs the PTX assembler fuses with the mul
// that feeds them, as ptxas (CUDA 13.0, sm_90) does it and an NVIDIA H200
// computed it (tests/hardware/conformance-h200, `contract_*`).
#include <gtest/gtest.h>

#include "bcusim/ptx/ast.h"
#include "contract.h"

namespace bcusim::engine::detail {
namespace {

struct Parsed {
  std::optional<ptx::Module> mod;
  std::vector<Contraction> c;
  // The contraction of the instruction on the body's line `n` (0-based,
  // counting instructions only).
  const Contraction &at(size_t n) const { return c.at(n); }
};

Parsed parse(const std::string &body) {
  Parsed p;
  DiagnosticSink sink;
  p.mod =
      ptx::parse(SourceFile::from_string(
                     "contract.ptx",
                     ".version 8.0\n.target sm_90\n.address_size 64\n"
                     ".visible .entry k(.param .u64 po)\n{\n"
                     ".reg .pred %p<4>;\n.reg .f32 %f<32>;\n.reg .f64 %fd<8>;\n"
                     ".reg .b16 %h<8>;\n.reg .b32 %r<8>;\n"
                     ".reg .b64 %rd<8>;\n" +
                         body + "}\n"),
                 sink);
  EXPECT_TRUE(p.mod) << sink.render_all();
  if (p.mod)
    p.c = find_contractions(p.mod->functions.at(0));
  return p;
}

TEST(Contract, AddOfAProductIsFused) {
  auto p = parse("mul.f32 %f3, %f1, %f2;\nadd.f32 %f4, %f3, %f5;\n");
  EXPECT_FALSE(p.at(0).contracted());
  ASSERT_TRUE(p.at(1).contracted());
  EXPECT_EQ(p.at(1).mul, 0u);
  EXPECT_EQ(p.at(1).addend, 2);
  EXPECT_FALSE(p.at(1).neg_product);
  EXPECT_FALSE(p.at(1).neg_addend);
}

TEST(Contract, SubtractionsNegateTheAddendOrTheProduct) {
  auto p = parse("mul.f32 %f3, %f1, %f2;\nsub.f32 %f4, %f3, %f5;\n"
                 "mul.f32 %f6, %f1, %f2;\nsub.f32 %f7, %f5, %f6;\n");
  ASSERT_TRUE(p.at(1).contracted());
  EXPECT_TRUE(p.at(1).neg_addend);
  EXPECT_FALSE(p.at(1).neg_product);
  ASSERT_TRUE(p.at(3).contracted());
  EXPECT_EQ(p.at(3).addend, 1);
  EXPECT_TRUE(p.at(3).neg_product);
  EXPECT_FALSE(p.at(3).neg_addend);
}

TEST(Contract, OfTwoProductsTheFirstOperandsIsFused) {
  // The later-defined product is the first operand: it is the one fused.
  auto p = parse("mul.f32 %f3, %f1, %f2;\nmul.f32 %f4, %f5, %f6;\n"
                 "sub.f32 %f7, %f4, %f3;\n");
  ASSERT_TRUE(p.at(2).contracted());
  EXPECT_EQ(p.at(2).mul, 1u);
  EXPECT_EQ(p.at(2).addend, 2);
  EXPECT_TRUE(p.at(2).neg_addend);
}

TEST(Contract, AProductReadByTwoAddsIsFusedIntoBoth) {
  auto p = parse("mul.f32 %f3, %f1, %f2;\nadd.f32 %f4, %f3, %f5;\n"
                 "add.f32 %f6, %f3, %f7;\n");
  EXPECT_TRUE(p.at(1).contracted());
  EXPECT_TRUE(p.at(2).contracted());
}

TEST(Contract, AProductWithAnotherReaderIsNotFused) {
  auto p = parse("ld.param.u64 %rd1, [po];\nmul.f32 %f3, %f1, %f2;\n"
                 "add.f32 %f4, %f3, %f5;\nst.global.f32 [%rd1], %f3;\n");
  EXPECT_FALSE(p.at(2).contracted());
}

TEST(Contract, RoundingModifiersAndMixedFtzPreventIt) {
  auto p = parse("mul.rn.f32 %f3, %f1, %f2;\nadd.f32 %f4, %f3, %f5;\n"
                 "mul.f32 %f6, %f1, %f2;\nadd.rn.f32 %f7, %f6, %f5;\n"
                 "mul.ftz.f32 %f8, %f1, %f2;\nadd.f32 %f9, %f8, %f5;\n"
                 "mul.ftz.f32 %f10, %f1, %f2;\nadd.ftz.sat.f32 %f11, %f10, "
                 "%f5;\n");
  EXPECT_FALSE(p.at(1).contracted());
  EXPECT_FALSE(p.at(3).contracted());
  EXPECT_FALSE(p.at(5).contracted());
  EXPECT_TRUE(p.at(7).contracted()); // same ftz; .sat on the add is kept
}

TEST(Contract, NotAcrossBlocks) {
  auto p = parse("mul.f32 %f3, %f1, %f2;\nsetp.lt.f32 %p1, %f1, %f2;\n"
                 "@%p1 bra $L;\nmov.f32 %f5, 0f00000000;\n$L:\n"
                 "add.f32 %f4, %f3, %f5;\n");
  EXPECT_FALSE(p.at(4).contracted());
}

TEST(Contract, ThroughANegationAndIntoAGuardedAdd) {
  auto p = parse("mul.f32 %f3, %f1, %f2;\nneg.f32 %f4, %f3;\n"
                 "add.f32 %f6, %f4, %f5;\nsetp.lt.f32 %p1, %f1, %f2;\n"
                 "mul.f32 %f7, %f1, %f2;\n@%p1 add.f32 %f8, %f7, %f5;\n");
  ASSERT_TRUE(p.at(2).contracted());
  EXPECT_EQ(p.at(2).mul, 0u);
  EXPECT_TRUE(p.at(2).neg_product);
  EXPECT_TRUE(p.at(5).contracted());
}

TEST(Contract, F64AndImmediates) {
  auto p = parse("mul.f64 %fd3, %fd1, 0d3FF8000000000000;\n"
                 "add.f64 %fd4, %fd3, 0d3FE0000000000000;\n");
  EXPECT_TRUE(p.at(1).contracted());
}

TEST(Contract, NotWhenASourceOfTheProductChangesBeforeTheAdd) {
  // The assembler fuses this one too (from the earlier value); bcusim
  // does not (docs/engine.md "Multiply-add contraction").
  auto p = parse("mul.f32 %f3, %f1, %f2;\nmov.f32 %f1, %f5;\n"
                 "add.f32 %f4, %f3, %f5;\n");
  EXPECT_FALSE(p.at(2).contracted());
}

TEST(Contract, ALoopCarriedProductIsNotFused) {
  // %f3 is read at the top of the loop, before the mul of the same block:
  // that read may see this mul's value from the previous iteration.
  auto p = parse("$L:\nadd.f32 %f6, %f3, %f5;\nmul.f32 %f3, %f1, %f2;\n"
                 "add.f32 %f4, %f3, %f5;\nsetp.lt.f32 %p1, %f4, %f6;\n"
                 "@%p1 bra $L;\n");
  EXPECT_FALSE(p.at(2).contracted());
}

TEST(Contract, HalfPrecisionToo) {
  // ptxas makes HFMA2 of each (measured on sm_90 machine code).
  auto p =
      parse("mul.f16 %h3, %h1, %h2;\nadd.f16 %h4, %h3, %h5;\n"
            "mul.bf16x2 %r3, %r1, %r2;\nsub.bf16x2 %r4, %r5, %r3;\n"
            "mul.ftz.f16x2 %r6, %r1, %r2;\nadd.ftz.f16x2 %r7, %r6, %r5;\n");
  EXPECT_TRUE(p.at(1).contracted());
  ASSERT_TRUE(p.at(3).contracted());
  EXPECT_TRUE(p.at(3).neg_product);
  EXPECT_TRUE(p.at(5).contracted());
}

TEST(Contract, NotASaturatedOrPredicatedProduct) {
  auto p = parse("mul.sat.f32 %f3, %f1, %f2;\nadd.f32 %f4, %f3, %f5;\n"
                 "setp.lt.f32 %p1, %f1, %f2;\n@%p1 mul.f32 %f6, %f1, %f2;\n"
                 "add.f32 %f7, %f6, %f5;\n");
  EXPECT_FALSE(p.at(1).contracted());
  EXPECT_FALSE(p.at(4).contracted());
}

} // namespace
} // namespace bcusim::engine::detail
