#include "bcusim/isa/isa.h"

#include <gtest/gtest.h>

using bcusim::isa::Word128;

TEST(IsaWord128, SetAndGetBitsAcrossTheHalves) {
  Word128 w;
  w.set_bits(60, 8, 0xAB); // straddles bit 64
  EXPECT_EQ(w.bits(60, 8), 0xABu);
  EXPECT_EQ(w.lo, uint64_t{0xB} << 60);
  EXPECT_EQ(w.hi, 0xAu);
  w.set_bits(60, 8, 0);
  EXPECT_EQ(w, Word128{});
  w.set_bits(127, 1, 1);
  EXPECT_EQ(w.hi, uint64_t{1} << 63);
  w.set_bits(0, 64, ~uint64_t{0});
  EXPECT_EQ(w.lo, ~uint64_t{0});
  EXPECT_EQ(w.bits(0, 64), ~uint64_t{0});
}

TEST(IsaWord128, HexIsMostSignificantFirstLowerCase) {
  Word128 w{0x0123456789ABCDEFull, 0xFEDCBA9876543210ull};
  EXPECT_EQ(w.to_hex(), "fedcba98765432100123456789abcdef");
  EXPECT_EQ(Word128::from_hex("fedcba98765432100123456789abcdef"), w);
  EXPECT_EQ(Word128::from_hex("0xFEDCBA98765432100123456789ABCDEF"), w);
  EXPECT_FALSE(Word128::from_hex("fedcba98765432100123456789abcde"));
  EXPECT_FALSE(Word128::from_hex("fedcba98765432100123456789abcdeg"));
  EXPECT_FALSE(Word128::from_hex(""));
}
