// The exact rounding core of conversions (src/engine/float_format.h):
// hand-computed encodings at the corners of every format and mode.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "float_format.h"

namespace bcusim::engine::detail {
namespace {

EncodeOpts mode(Round r, bool satfinite = false, bool relu = false) {
  return EncodeOpts{r, satfinite, relu};
}

TEST(FloatFormat, F16TiesAndDirections) {
  // 1 + 2^-11 is halfway between 1 (0x3c00) and 1 + 2^-10 (0x3c01).
  const double tie = 1.0 + std::ldexp(1.0, -11);
  EXPECT_EQ(encode_double(kF16, tie, mode(Round::RN)), 0x3c00u); // to even
  EXPECT_EQ(encode_double(kF16, tie, mode(Round::RNA)), 0x3c01u);
  EXPECT_EQ(encode_double(kF16, tie, mode(Round::RZ)), 0x3c00u);
  EXPECT_EQ(encode_double(kF16, tie, mode(Round::RP)), 0x3c01u);
  EXPECT_EQ(encode_double(kF16, -tie, mode(Round::RM)), 0xbc01u);
  EXPECT_EQ(encode_double(kF16, -tie, mode(Round::RP)), 0xbc00u);
  // 1 + 3 * 2^-11: halfway between 0x3c01 and 0x3c02: even is 0x3c02.
  EXPECT_EQ(
      encode_double(kF16, 1.0 + 3 * std::ldexp(1.0, -11), mode(Round::RN)),
      0x3c02u);
}

TEST(FloatFormat, F16OverflowPerMode) {
  // 65520 is halfway between 65504 (the largest) and 65536 (infinity).
  EXPECT_EQ(encode_double(kF16, 65520.0, mode(Round::RN)), 0x7c00u);
  EXPECT_EQ(encode_double(kF16, 65519.0, mode(Round::RN)), 0x7bffu);
  EXPECT_EQ(encode_double(kF16, 1e9, mode(Round::RZ)), 0x7bffu);
  EXPECT_EQ(encode_double(kF16, 1e9, mode(Round::RM)), 0x7bffu);
  EXPECT_EQ(encode_double(kF16, -1e9, mode(Round::RM)), 0xfc00u);
  EXPECT_EQ(encode_double(kF16, -1e9, mode(Round::RP)), 0xfbffu);
  EXPECT_EQ(encode_double(kF16, 1e9, mode(Round::RN, true)), 0x7bffu);
  EXPECT_EQ(encode_double(kF16, INFINITY, mode(Round::RN, true)), 0x7bffu);
  EXPECT_EQ(encode_double(kF16, -INFINITY, mode(Round::RN)), 0xfc00u);
}

TEST(FloatFormat, F16Subnormals) {
  const double min_sub = std::ldexp(1.0, -24);
  EXPECT_EQ(encode_double(kF16, min_sub, mode(Round::RN)), 0x0001u);
  // Half the smallest subnormal: a tie between 0 and it, to even (0).
  EXPECT_EQ(encode_double(kF16, min_sub / 2, mode(Round::RN)), 0x0000u);
  EXPECT_EQ(encode_double(kF16, min_sub / 2, mode(Round::RP)), 0x0001u);
  EXPECT_EQ(encode_double(kF16, -min_sub / 2, mode(Round::RM)), 0x8001u);
  EXPECT_EQ(encode_double(kF16, -min_sub / 2, mode(Round::RN)), 0x8000u);
  // 1.5 * 2^-24: tie between 1 and 2 subnormal units -> 2.
  EXPECT_EQ(encode_double(kF16, 1.5 * min_sub, mode(Round::RN)), 0x0002u);
  // The largest subnormal rounding up into the smallest normal.
  EXPECT_EQ(
      encode_double(kF16, std::ldexp(1.0, -14) - min_sub / 4, mode(Round::RN)),
      0x0400u);
  // The smallest double: far below half a unit, but not zero.
  EXPECT_EQ(encode_double(kF16, std::numeric_limits<double>::denorm_min(),
                          mode(Round::RP)),
            0x0001u);
  EXPECT_EQ(decode(kF16, 0x0001), min_sub);
  EXPECT_EQ(decode(kF16, 0x83ff), -std::ldexp(1023.0, -24));
}

TEST(FloatFormat, IntegersRoundOnce) {
  // 2^53 + 1 into f32 (24 bits): 2^53 exactly under RN, +1 ulp under RP.
  const uint64_t n = (uint64_t(1) << 53) + 1;
  EXPECT_EQ(encode(kF32, false, n, 0, mode(Round::RN)), 0x5a000000u);
  EXPECT_EQ(encode(kF32, false, n, 0, mode(Round::RP)), 0x5a000001u);
  // UINT64_MAX into f64: 2^64 under RN, 2^64 - 2048 under RZ.
  EXPECT_EQ(encode(kF64, false, ~uint64_t(0), 0, mode(Round::RN)),
            0x43f0000000000000ull);
  EXPECT_EQ(encode(kF64, false, ~uint64_t(0), 0, mode(Round::RZ)),
            0x43efffffffffffffull);
  // 2049 into f16 (11 bits): a tie between 2048 and 2050 -> 2048.
  EXPECT_EQ(encode(kF16, false, 2049, 0, mode(Round::RN)), 0x6800u);
  EXPECT_EQ(encode(kF16, true, 2049, 0, mode(Round::RM)), 0xe801u);
}

TEST(FloatFormat, Fp8) {
  // e4m3: no infinity, 448 the largest; NaN 0x7f.
  EXPECT_EQ(encode_double(kE4M3, 448.0, mode(Round::RN, true)), 0x7eu);
  EXPECT_EQ(encode_double(kE4M3, 1e6, mode(Round::RN, true)), 0x7eu);
  EXPECT_EQ(encode_double(kE4M3, -INFINITY, mode(Round::RN, true)), 0xfeu);
  EXPECT_EQ(encode_double(kE4M3, NAN, mode(Round::RN, true)), 0x7fu);
  EXPECT_EQ(encode_double(kE4M3, std::ldexp(1.0, -9), mode(Round::RN, true)),
            0x01u); // the smallest subnormal
  EXPECT_EQ(encode_double(kE4M3, -1.0, mode(Round::RN, true, true)), 0x00u);
  EXPECT_TRUE(std::isnan(decode(kE4M3, 0xff)));
  EXPECT_EQ(decode(kE4M3, 0x7e), 448.0);
  // e5m2: IEEE-like, 57344 the largest.
  EXPECT_EQ(encode_double(kE5M2, 57344.0, mode(Round::RN, true)), 0x7bu);
  EXPECT_EQ(encode_double(kE5M2, 1e9, mode(Round::RN, false)), 0x7cu);
  EXPECT_EQ(decode(kE5M2, 0x7c), INFINITY);
}

TEST(FloatFormat, Fp6Fp4AndUe8m0) {
  EXPECT_EQ(encode_double(kE2M1, 5.0, mode(Round::RN, true)), 0x6u); // tie 4|6
  EXPECT_EQ(encode_double(kE2M1, 100.0, mode(Round::RN, true)), 0x7u);
  EXPECT_EQ(encode_double(kE2M1, -0.25, mode(Round::RN, true)), 0x8u); // -0
  EXPECT_EQ(encode_double(kE2M1, NAN, mode(Round::RN, true)), 0x7u);
  EXPECT_EQ(decode(kE2M3, 0x1f), 7.5);
  EXPECT_EQ(decode(kE3M2, 0x1f), 28.0);
  EXPECT_EQ(encode_double(kUE8M0, 3.0, mode(Round::RZ)), 128u);
  EXPECT_EQ(encode_double(kUE8M0, 3.0, mode(Round::RP)), 129u);
  EXPECT_EQ(encode_double(kUE8M0, 4.0, mode(Round::RP)), 129u);
  EXPECT_EQ(encode_double(kUE8M0, INFINITY, mode(Round::RZ, true)), 0xfeu);
  EXPECT_EQ(decode(kUE8M0, 0), std::ldexp(1.0, -127));
}

} // namespace
} // namespace bcusim::engine::detail
