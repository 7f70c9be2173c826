// Exact rounding into the floating-point formats of PTX (internal): binary16
// (f16), bfloat16, tf32, binary32, binary64 and the narrow formats e4m3,
// e5m2, e2m3, e3m2, e2m1 and ue8m0. One routine rounds an exact value
// (sign, integer significand, power of two) into any of them in any PTX
// rounding mode, so that conversions never round twice and never depend on
// the host's floating-point environment. docs/engine.md "Floating point"
// states the rules.
#pragma once

#include <cstdint>

namespace bcusim::engine::detail {

struct FloatFormat {
  uint8_t ebits, mbits; // exponent and fraction field widths
  int16_t bias;
  bool has_inf;  // the all-ones exponent with a zero fraction is infinity
  bool ieee_top; // the all-ones exponent holds only inf/NaN (IEEE style)
  bool has_sign; // false for ue8m0
  uint64_t nan;  // the canonical NaN (kNoNaN: the format has none)
  int emax;      // largest unbiased exponent of a finite value
  uint64_t qmax; // its largest significand (with the hidden bit)
  uint32_t width() const { return (has_sign ? 1u : 0u) + ebits + mbits; }
};
inline constexpr uint64_t kNoNaN = ~0ull;

// The formats. tf32 is held in a 32-bit register with the 13 low fraction
// bits zero; its FloatFormat is the 19-bit value (see to_tf32_bits).
extern const FloatFormat kF16, kBF16, kTF32, kF32, kF64, kE4M3, kE5M2, kE2M3,
    kE3M2, kE2M1, kUE8M0;

// Rounding modes: the PTX .rn (nearest even), .rna (nearest, ties away),
// .rz, .rm, .rp.
enum class Round : uint8_t { RN, RZ, RM, RP, RNA };

struct EncodeOpts {
  Round mode = Round::RN;
  bool satfinite = false; // overflow and infinities -> largest finite
  bool relu = false;      // negative results (and -0) -> +0; NaN stays NaN
};

// value = (-1)^neg * m * 2^e, rounded into `f`: returns the encoding.
uint64_t encode(const FloatFormat &f, bool neg, uint64_t m, int e,
                EncodeOpts o);
// A double (every source format is exact in one), incl. inf and NaN. A NaN
// gives the format's canonical NaN (satfinite formats without a NaN: see
// docs); infinities saturate under satfinite.
uint64_t encode_double(const FloatFormat &f, double v, EncodeOpts o);
// The exact value of an encoding.
double decode(const FloatFormat &f, uint64_t bits);

// Canonical NaNs of the 16-bit formats (PTX: 0x7fff).
inline constexpr uint16_t kCanonicalNaN16 = 0x7fff;

} // namespace bcusim::engine::detail
