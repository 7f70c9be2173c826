// Exact rounding into the PTX floating-point formats (float_format.h).
#include "float_format.h"

#include <bit>
#include <cmath>

namespace bcusim::engine::detail {

namespace {

constexpr FloatFormat ieee(uint8_t ebits, uint8_t mbits, uint64_t nan) {
  int bias = (1 << (ebits - 1)) - 1;
  return FloatFormat{ebits,
                     mbits,
                     int16_t(bias),
                     true,
                     true,
                     true,
                     nan,
                     (1 << ebits) - 2 - bias,
                     (uint64_t(2) << mbits) - 1};
}

} // namespace

const FloatFormat kF16 = ieee(5, 10, 0x7fff);
const FloatFormat kBF16 = ieee(8, 7, 0x7fff);
const FloatFormat kTF32 = ieee(8, 10, 0x3ffff);
const FloatFormat kF32 = ieee(8, 23, 0x7fffffff);
const FloatFormat kF64 = ieee(11, 52, 0x7fffffffffffffffull);
const FloatFormat kE5M2 = ieee(5, 2, 0x7f);
// e4m3 (OCP FP8): no infinities; S.1111.111 is NaN, so the largest finite
// value is 1.75 * 2^8 = 448.
const FloatFormat kE4M3{4, 3, 7, false, false, true, 0x7f, 8, 0xe};
// The FP6/FP4 formats have neither infinities nor NaNs.
const FloatFormat kE2M3{2, 3, 1, false, false, true, kNoNaN, 2, 0xf};
const FloatFormat kE3M2{3, 2, 3, false, false, true, kNoNaN, 4, 0x7};
const FloatFormat kE2M1{2, 1, 1, false, false, true, kNoNaN, 2, 0x3};
// ue8m0: 2^(E-127) for E in 0..254, 0xff NaN; handled by encode_ue8m0.
const FloatFormat kUE8M0{8, 0, 127, false, false, false, 0xff, 127, 1};

namespace {

uint64_t largest_finite(const FloatFormat &f) {
  return (uint64_t(f.emax + f.bias) << f.mbits) |
         (f.qmax & ((uint64_t(1) << f.mbits) - 1));
}
uint64_t infinity(const FloatFormat &f) {
  return uint64_t((1u << f.ebits) - 1) << f.mbits;
}
uint64_t sign_bit(const FloatFormat &f) {
  return uint64_t(1) << (f.ebits + f.mbits);
}

} // namespace

uint64_t encode(const FloatFormat &f, bool neg, uint64_t m, int e,
                EncodeOpts o) {
  const uint64_t sign = neg && f.has_sign ? sign_bit(f) : 0;
  if (m == 0)
    return o.relu ? 0 : sign;
  if (neg && o.relu)
    return 0;
  // value = m * 2^e with m in [2^p, 2^(p+1)): unbiased exponent p + e.
  const int p = 63 - std::countl_zero(m);
  const int emin = 1 - f.bias;
  int exp = std::max(p + e, emin);
  // Significand q in units of 2^(exp - mbits).
  const int shift = (exp - f.mbits) - e; // bits of m below the quantum
  uint64_t q;
  if (shift <= 0) {
    q = m << -shift; // exact: q < 2^(mbits + 1)
  } else {
    uint64_t rem, half;
    bool above_half, at_half;
    if (shift >= 64) {
      q = 0;
      // m < 2^64 <= 2^shift: the remainder m is below half unless shift
      // is exactly 64 and m >= 2^63.
      above_half = shift == 64 && m > (uint64_t(1) << 63);
      at_half = shift == 64 && m == (uint64_t(1) << 63);
      rem = m;
    } else {
      q = m >> shift;
      rem = m & ((uint64_t(1) << shift) - 1);
      half = uint64_t(1) << (shift - 1);
      above_half = rem > half;
      at_half = rem == half;
    }
    bool up = false;
    switch (o.mode) {
    case Round::RN:
      up = above_half || (at_half && (q & 1));
      break;
    case Round::RNA:
      up = above_half || at_half;
      break;
    case Round::RZ:
      break;
    case Round::RM:
      up = neg && rem != 0;
      break;
    case Round::RP:
      up = !neg && rem != 0;
      break;
    }
    q += up ? 1 : 0;
    if (q == (uint64_t(2) << f.mbits)) {
      q >>= 1;
      ++exp;
    }
  }
  if (q == 0) // rounded to zero
    return o.relu ? 0 : sign;
  if (exp > f.emax || (exp == f.emax && q > f.qmax)) {
    // Overflow: the rounding direction decides between the largest finite
    // value and infinity; satfinite (and formats without infinity) clamp.
    bool to_inf = false;
    switch (o.mode) {
    case Round::RN:
    case Round::RNA:
      to_inf = true;
      break;
    case Round::RZ:
      break;
    case Round::RM:
      to_inf = neg;
      break;
    case Round::RP:
      to_inf = !neg;
      break;
    }
    if (to_inf && f.has_inf && !o.satfinite)
      return sign | infinity(f);
    if (to_inf && !f.has_inf && !o.satfinite && f.nan != kNoNaN)
      return sign | f.nan; // e4m3 without .satfinite: NaN
    return sign | largest_finite(f);
  }
  const uint64_t hidden = uint64_t(1) << f.mbits;
  if (q < hidden) // subnormal (exp == emin)
    return sign | q;
  return sign | (uint64_t(exp + f.bias) << f.mbits) | (q - hidden);
}

namespace {

// ue8m0: an unsigned power of two 2^(E-127), E in 0..254 (no zero, no
// subnormals); .rz rounds the exponent down, .rp up.
uint64_t encode_ue8m0(double v, EncodeOpts o) {
  if (std::isnan(v))
    return 0xff;
  if (std::isinf(v))
    return v > 0 && !o.satfinite ? 0xff : (v > 0 ? 0xfe : 0);
  if (v <= 0)
    return 0; // the smallest value, 2^-127
  int ex;
  double mant = std::frexp(v, &ex); // v = mant * 2^ex, mant in [0.5, 1)
  int e = ex - 1;                   // floor(log2 v)
  if (o.mode == Round::RP && mant != 0.5)
    ++e;
  int biased = e + 127;
  if (biased < 0)
    return 0;
  if (biased > 254)
    return o.satfinite ? 0xfe : 0xff;
  return uint64_t(biased);
}

} // namespace

uint64_t encode_double(const FloatFormat &f, double v, EncodeOpts o) {
  if (&f == &kUE8M0)
    return encode_ue8m0(v, o);
  const bool neg = std::signbit(v);
  const uint64_t sign = neg && f.has_sign ? sign_bit(f) : 0;
  if (std::isnan(v)) {
    if (f.nan != kNoNaN)
      return f.nan;
    return largest_finite(f); // FP6/FP4: no NaN (docs: NaN -> +max)
  }
  if (std::isinf(v)) {
    if (neg && o.relu)
      return 0;
    if (f.has_inf && !o.satfinite)
      return sign | infinity(f);
    return sign | largest_finite(f);
  }
  uint64_t b = std::bit_cast<uint64_t>(v);
  int be = int((b >> 52) & 0x7ff);
  uint64_t m = b & ((uint64_t(1) << 52) - 1);
  int e;
  if (be == 0) {
    e = -1074;
  } else {
    m |= uint64_t(1) << 52;
    e = be - 1075;
  }
  return encode(f, neg, m, e, o);
}

double decode(const FloatFormat &f, uint64_t bits) {
  if (&f == &kUE8M0) {
    if ((bits & 0xff) == 0xff)
      return std::nan("");
    return std::ldexp(1.0, int(bits & 0xff) - 127);
  }
  const uint64_t fracmask = (uint64_t(1) << f.mbits) - 1;
  const uint64_t expmask = (uint64_t(1) << f.ebits) - 1;
  const bool neg = f.has_sign && ((bits >> (f.ebits + f.mbits)) & 1);
  const uint64_t be = (bits >> f.mbits) & expmask;
  const uint64_t frac = bits & fracmask;
  double v;
  if (f.ieee_top && be == expmask) {
    v = frac == 0 ? INFINITY : std::nan("");
  } else if (!f.ieee_top && f.nan != kNoNaN &&
             (bits & (sign_bit(f) - 1)) == (f.nan & (sign_bit(f) - 1))) {
    v = std::nan(""); // e4m3: S.1111.111
  } else if (be == 0) {
    v = std::ldexp(double(frac), 1 - f.bias - f.mbits);
  } else {
    v = std::ldexp(double(frac | (fracmask + 1)), int(be) - f.bias - f.mbits);
  }
  return neg ? -v : v;
}

} // namespace bcusim::engine::detail
