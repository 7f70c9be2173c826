// Models of the MUFU unit and of the `.approx` instruction sequences
// (mufu.h; docs/engine.md "Approximate functions").
#include "mufu.h"

#include <bit>
#include <cmath>
#include <iterator>

#include "float_format.h"

namespace bcusim::engine::detail::mufu {

namespace {

constexpr float kNaN32 = std::bit_cast<float>(0x7fffffffu);
constexpr float kMinNormal = 1.17549435e-38f; // 2^-126

float flush(float v) {
  return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v;
}
// A double result rounded to nearest into f32, a denormal flushed (the unit
// keeps none), a NaN canonical.
float unit_result(double v) {
  if (std::isnan(v))
    return kNaN32;
  return flush(float(v));
}
// FMUL.FTZ: operands and result flushed.
float fmul_ftz(float a, float b) { return flush(flush(a) * flush(b)); }

} // namespace

float rcp(float x) {
  x = flush(x);
  if (std::isnan(x))
    return kNaN32;
  return unit_result(1.0 / double(x));
}

namespace {
double unit_form(const double (&c)[3], uint32_t d);
double sqrt_form(float x, bool reciprocal);
} // namespace

float rsq(float x) {
  x = flush(x);
  if (std::isnan(x) || x < 0)
    return kNaN32;
  if (x == 0 || std::isinf(x))
    return unit_result(1.0 / std::sqrt(double(x)));
  return unit_result(sqrt_form(x, true));
}

float sqrt(float x) {
  x = flush(x);
  if (std::isnan(x) || x < 0)
    return kNaN32;
  if (x == 0 || std::isinf(x))
    return unit_result(std::sqrt(double(x)));
  return unit_result(sqrt_form(x, false));
}

namespace {
double ex2_form(float x);
} // namespace

float ex2(float x) {
  x = flush(x);
  if (std::isnan(x))
    return kNaN32;
  // x >= 0: the unit's fixed-point form. Below 0 the H100's results are
  // not those of the same form (2^-0.5 is one ulp below 2^1.5 / 4), so
  // there the exact function, rounded.
  if (!(x >= 0 && x < 128.0f))
    return unit_result(std::exp2(double(x)));
  return unit_result(ex2_form(x));
}

namespace {
#include "mufu_tables.inc"

// The segment of a mantissa (23 bits) and the position in it, -1/2 .. 1/2.
struct Segment {
  int index;
  double u;
};
Segment segment(uint32_t mantissa) {
  constexpr int kLow = 23 - kMufuSegmentBits;
  return {int(mantissa >> kLow),
          std::ldexp(double(mantissa & ((1u << kLow) - 1)), -kLow) - 0.5};
}
double quadratic(const double (&c)[3], double u) {
  return c[0] + (c[1] + c[2] * u) * u;
}
} // namespace

namespace {
// The square of the offset d in a segment as the unit forms it: 2 h^2 plus,
// per set bit b of L, the partial product floor(h 2^(b-8)), h = d >> 10,
// L = d & 1023 (the square of L dropped, each partial product truncated;
// measured: near x = 1 the term grows in steps of 256, 128, 64 values of d
// as h grows).
double lg2_square(uint32_t d) {
  const uint32_t h = d >> 10, low = d & 1023;
  uint64_t m = 2ull * h * h;
  for (int bit = 0; bit < 10; ++bit)
    if (low >> bit & 1)
      m += bit >= 8 ? uint64_t(h) << (bit - 8) : h >> (8 - bit);
  return double(m);
}

// The unit's fixed-point form c0 + c1 d + c2 M(d) (units of 2^-36, rounded
// to an integer) at offset d of its segment.
double unit_form(const double (&c)[3], uint32_t d) {
  return std::nearbyint(c[0] + c[1] * d + c[2] * lg2_square(d));
}

// 2^x of 0 <= x < 128: the unit reads x in fixed point with 23 fraction
// bits, truncated (measured: neighbouring inputs below 1 give the same
// result), and evaluates 2^f of the fraction f in the fixed-point form (a
// table fitted to x in [1, 2), the value 2^(1+f)); an integer x gives the
// exact power of 2.
double ex2_form(float x) {
  const double fixed = std::floor(std::ldexp(double(x), 23));
  const double i = std::floor(std::ldexp(fixed, -23));
  const uint32_t f = uint32_t(fixed - std::ldexp(i, 23));
  if (f == 0)
    return std::ldexp(1.0, int(i));
  const uint32_t d = f & ((1u << kLg2SegmentBits) - 1);
  return std::ldexp(unit_form(kEx2Table[f >> kLg2SegmentBits], d),
                    int(i) - 1 - 36);
}

// sqrt or 1/sqrt of a positive normal x = m 2^e: the unit's value for the
// mantissa (m in [1, 2) for an even e, 2m in [2, 4) for an odd one; tables
// fitted to the H100's results) scaled by 2^(+-e/2).
double sqrt_form(float x, bool reciprocal) {
  const uint32_t b = std::bit_cast<uint32_t>(x);
  const uint32_t mant = b & 0x7fffffu;
  const int e = int(b >> 23) - 127;
  const bool odd = (e & 1) != 0;
  const uint32_t seg = mant >> kLg2SegmentBits;
  const uint32_t d = mant & ((1u << kLg2SegmentBits) - 1);
  const double(&c)[3] = reciprocal
                            ? (odd ? kRsqrtTwoTable[seg] : kRsqrtOneTable[seg])
                            : (odd ? kSqrtTwoTable[seg] : kSqrtOneTable[seg]);
  const int half = (odd ? e - 1 : e) / 2;
  // A power of 4 gives the exact power of 2 (measured: rsqrt of 1, 2^-24,
  // 2^-126 are 1, 2^12, 2^63, where the form is half an ulp lower).
  if (mant == 0 && !odd)
    return std::ldexp(1.0, reciprocal ? -half : half);
  return std::ldexp(unit_form(c, d), (reciprocal ? -half : half) - 36);
}
} // namespace

float lg2(float x) {
  x = flush(x);
  if (std::isnan(x) || x < 0)
    return kNaN32;
  if (x == 1)
    return 0;
  if (x == 0 || std::isinf(x))
    return x == 0 ? -INFINITY : x;
  // The unit computes lg2 of the mantissa in fixed point (units of 2^-36)
  // per segment of 2^17 mantissa values as c0 + c1 d + c2 M(d), d the
  // offset in the segment (coefficients fitted to the H100's results:
  // mufu_tables.inc), and adds the exponent; the sum rounded to nearest f32.
  // Below 1 its results lie 2^-26 to 2^-25 higher: a table of its own.
  const uint32_t b = std::bit_cast<uint32_t>(x);
  const uint32_t mant = b & 0x7fffffu;
  const int e = int(b >> 23) - 127;
  const uint32_t d = mant & ((1u << kLg2SegmentBits) - 1);
  const double(&c)[3] = e >= 0 ? kLg2Table[mant >> kLg2SegmentBits]
                               : kLg2BelowOneTable[mant >> kLg2SegmentBits];
  const double m = unit_form(c, d);
  // Rounded to nearest f32 for x in [0.5, 2), truncated beyond (measured:
  // lg2(2) is 1, not 1 + 2^-23; lg2(0.1) is 0xc0549a77).
  const double v = std::ldexp(std::ldexp(double(e), 36) + m, -36);
  const Round mode = e == 0 || e == -1 ? Round::RN : Round::RZ;
  return flush(std::bit_cast<float>(uint32_t(encode_double(kF32, v, {mode}))));
}

namespace {
// The unit's angle: |t| as a fraction of a turn in fixed point with 25
// fraction bits (truncated), in units of 2^-25 turns.
uint32_t fraction25(float t) {
  const double q = std::trunc(std::ldexp(std::fabs(double(t)), 25));
  return uint32_t(std::fmod(q, 33554432.0));
}
// The sine of q 2^-25 turns, by quadrants: the second and fourth are
// mirrored, the remainder r negated by one's complement (2^23 - 1 - r;
// measured: sin near 2 pi is sin(2 pi (t - 1 + 2^-25)) and cos of a quarter
// turn exactly 0). The quarter-turn angle's sine is the unit's
// interpolation (mufu_tables.inc).
double sin_units(uint32_t q) {
  const uint32_t quadrant = q >> 23, r = q & 0x7fffffu;
  const uint32_t a = quadrant & 1 ? 0x7fffffu - r : r;
  const double sign = quadrant >= 2 ? -1.0 : 1.0;
  // Zero in the third and fourth quadrants is -0 (measured: sin of a half
  // turn is -0, of a whole turn +0).
  if (a == 0)
    return sign * 0.0;
  // The unit's fixed-point form of lg2 with integer coefficients per
  // segment of 2^17 angles: c0 + c1 d + c2 M(d) in units of 2^-37,
  // truncated to f32 (measured: every angle of the H100's binades and of
  // ../shared/hardware/mufu bit for bit; the first segment is
  // 25737 d - 14 M(d)). Near a quarter turn this gives 1 exactly where
  // c = 2^23 - 1 - A is at most 512 with at most two bits set, so cos of
  // 0 and of tiny angles is 1. The f32 value is final: no rounding follows.
  const uint32_t d = a & ((1u << kLg2SegmentBits) - 1);
  const int64_t(&c)[3] = kSinTable[a >> kLg2SegmentBits];
  const double u = std::ldexp(
      double(c[0] + c[1] * int64_t(d) + c[2] * int64_t(lg2_square(d))), -37);
  const double v = double(
      std::bit_cast<float>(uint32_t(encode_double(kF32, u, {Round::RZ}))));
  return quadrant >= 2 ? -v : v;
}
} // namespace

float sin_turns(float t) {
  t = flush(t);
  if (!std::isfinite(t))
    return kNaN32;
  // Odd: the magnitude's sine with t's sign (a zero too). |x| < 2^-22.35
  // (|t| < 2^-25) gives 0, as measured.
  const float r = unit_result(sin_units(fraction25(t)));
  return std::signbit(t) ? -r : r;
}

float cos_turns(float t) {
  t = flush(t);
  if (!std::isfinite(t))
    return kNaN32;
  // Even; the sine of a quarter turn minus the angle, the angle negated by
  // one's complement: 1/4 - f - 2^-25 (cos of a quarter turn exactly 0).
  const uint32_t g = (5u * 0x800000u - 1u - fraction25(t)) & 0x1ffffffu;
  return unit_result(sin_units(g));
}

float tanh(float x) {
  if (std::isnan(x))
    return kNaN32;
  // Below 2^-8 the unit returns x itself, denormals included (measured:
  // every f32 input of the H100 sweep below 2^-8 gives x).
  if (std::fabs(x) < 0.00390625f)
    return x;
  // From 8 on the unit returns +-1 (measured: every f16 and bf16 input
  // from 8 gives 1.0, every one below it less).
  if (std::fabs(x) >= 8.0f)
    return std::copysign(1.0f, x);
  // On [0.5, 2) the interpolation fitted to the H100's results
  // (mufu_tables.inc); elsewhere a quadratic per segment fitted to them.
  const uint32_t b = std::bit_cast<uint32_t>(x);
  const uint32_t e = (b >> 23) & 0xff;
  if (e == 126 || e == 127) {
    // The unit reads x in fixed point with 20 fraction bits, truncated
    // (measured: the results change only at multiples of 2^-20). Its value
    // is a smooth part in the high bits of that operand plus a weight per
    // low bit (measured: within every 2^-17 the steps follow the bits).
    const int low = e == 126 ? 4 : 3;
    const uint32_t fixed = (b & 0x7fffffu) >> low;
    const uint32_t high = (fixed >> kTanhLowBits) << (kTanhLowBits + low);
    const Segment s = segment(high);
    const double(&c)[3 + kTanhLowBits] =
        e == 126 ? kTanhHalfTable[s.index] : kTanhOneTable[s.index];
    double v = c[0] + (c[1] + c[2] * s.u) * s.u;
    for (int bit = 0; bit < kTanhLowBits; ++bit)
      if (fixed >> bit & 1)
        v += c[3 + bit];
    return unit_result(std::signbit(x) ? -v : v);
  }
  // The other binades of [2^-8, 8): the unit reads fewer mantissa bits the
  // smaller x (measured: 17 bits at 2^-8, 21 at 2), and the quadratic of
  // the segment of the truncated mantissa follows its results within 4 ulp
  // but for a few (docs/engine.md).
  for (size_t i = 0; i < std::size(kTanhQuadBinade); ++i) {
    if ((b & 0x7f800000u) != kTanhQuadBinade[i])
      continue;
    constexpr int kLow = 23 - kTanhQuadSegmentBits;
    const uint32_t mant = (b & 0x7fffffu) >> kTanhQuadLow[i] << kTanhQuadLow[i];
    const double u = std::ldexp(double(mant & ((1u << kLow) - 1)), -kLow) - 0.5;
    const double v = quadratic(kTanhQuadTable[i][mant >> kLow], u);
    return unit_result(std::signbit(x) ? -v : v);
  }
  return unit_result(std::tanh(double(x)));
}

// ---- the PTX forms: the machine code ptxas emits for sm_90 ----

float rcp_approx(float x, bool ftz) {
  if (ftz)
    return rcp(x);
  // Tiny operands are scaled up by 2^24, huge ones down by 4, and the
  // reciprocal scaled by the same factor (FMUL, denormals kept).
  const float a = std::fabs(x);
  float s = a < kMinNormal ? 16777216.0f : 1.0f;
  if (a > 8.50705917e+37f) // 2^126
    s = 0.25f;
  return s * rcp(x * s);
}

float sqrt_approx(float x, bool ftz) {
  if (ftz || !(std::fabs(x) < kMinNormal))
    return sqrt(x);
  return sqrt(x * 16777216.0f) * 0.000244140625f; // 2^24, 2^-12
}

float rsqrt_approx(float x, bool ftz) {
  if (ftz || !(std::fabs(x) < kMinNormal))
    return rsq(x);
  return rsq(x * 16777216.0f) * 4096.0f;
}

float ex2_approx(float x, bool ftz) {
  if (ftz || !(x < -126.0f))
    return ex2(x);
  const float h = ex2(x * 0.5f); // the square keeps denormal results
  return h * h;
}

float lg2_approx(float x, bool ftz) {
  if (ftz || !(std::fabs(x) < kMinNormal))
    return lg2(x);
  return lg2(x * 16777216.0f) + -24.0f;
}

namespace {
// FMUL.RZ x, 1/(2 pi): the angle in turns, rounded toward zero.
float turns(float x) {
  const double p = double(x) * double(0.15915493667125701904f); // exact
  return std::bit_cast<float>(uint32_t(encode_double(kF32, p, {Round::RZ})));
}
} // namespace

float sin_approx(float x) { return sin_turns(turns(x)); }
float cos_approx(float x) { return cos_turns(turns(x)); }
float tanh_approx(float x) { return tanh(x); }

namespace {
// The machine code's sequences; NaN results as the host computes them.
float div_approx_raw(float x, float y, bool ftz) {
  if (ftz)
    return fmul_ftz(x, rcp(y));
  if (std::fabs(y) < kMinNormal) {
    y *= 16777216.0f;
    x *= 16777216.0f;
  }
  return rcp(y) * x;
}

float div_full_raw(float x, float y, bool ftz) {
  if (ftz) {
    if (std::fabs(flush(y)) > 8.50705917e+37f) {
      y = fmul_ftz(y, 0.25f);
      x = fmul_ftz(x, 0.25f);
    }
    return fmul_ftz(rcp(y), x);
  }
  if (std::fabs(y) > 8.50705917e+37f) {
    y *= 0.25f;
    x *= 0.25f;
  }
  if (std::fabs(y) < kMinNormal) {
    y *= 16777216.0f;
    x *= 16777216.0f;
  }
  return rcp(y) * x;
}

float canonical(float v) { return std::isnan(v) ? kNaN32 : v; }
} // namespace

float div_approx(float x, float y, bool ftz) {
  return canonical(div_approx_raw(x, y, ftz));
}
float div_full(float x, float y, bool ftz) {
  return canonical(div_full_raw(x, y, ftz));
}

// ---- f64 ----

namespace {
constexpr uint64_t kHigh = 0xffffffff00000000ull;
double high_word(double v) {
  return std::bit_cast<double>(std::bit_cast<uint64_t>(v) & kHigh);
}
// The operand as the unit reads it: the high word, a denormal as zero.
double operand64(double x) {
  x = high_word(x);
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0, x) : x;
}
// The result: NaN canonical (0x7fffffff in the high word), a denormal
// flushed, otherwise the high word of the value truncated.
double result64(long double v) {
  if (std::isnan(v))
    return std::bit_cast<double>(0x7fffffff00000000ull);
  double d = double(v);
  if (std::fabs(static_cast<long double>(d)) > std::fabs(v))
    d = std::nextafter(d, 0.0); // toward zero
  if (std::fpclassify(d) == FP_SUBNORMAL)
    return std::copysign(0.0, d);
  return high_word(d);
}
} // namespace

double rcp_approx_ftz64(double x) {
  return result64(1.0L / static_cast<long double>(operand64(x)));
}

double rsqrt_approx_ftz64(double x) {
  x = operand64(x);
  if (x < 0)
    return result64(NAN);
  return result64(1.0L / std::sqrt(static_cast<long double>(x)));
}

// ---- f16 / bf16 ----

uint32_t ex2_approx16(uint32_t h, bool bf) {
  const FloatFormat &f = bf ? kBF16 : kF16;
  double x = decode(f, h);
  if (std::isnan(x))
    return kCanonicalNaN16;
  if (bf && std::fabs(x) < double(kMinNormal))
    x = 0; // .ftz
  // 2^x truncated toward zero (bf16: the unit's f32 result, rounded to
  // nearest, truncated); beyond the largest finite value, infinity.
  // The unit reads x in fixed point with 23 fraction bits (truncated):
  // 2^x of |x| < 2^-23 is exactly 1 (measured on every input).
  x = std::trunc(std::ldexp(x, 23)) / 8388608.0;
  const double v = bf ? double(float(std::exp2(x))) : std::exp2(x);
  const uint32_t max_finite = bf ? 0x7f7fu : 0x7bffu;
  if (v > decode(f, max_finite))
    return bf ? 0x7f80u : 0x7c00u;
  uint32_t r = uint32_t(encode_double(f, v, {Round::RZ}));
  if (bf && (r & 0x7f80) == 0)
    r = 0; // .ftz: denormal results flushed
  return r;
}

uint32_t tanh_approx16(uint32_t h, bool bf) {
  const FloatFormat &f = bf ? kBF16 : kF16;
  const double x = decode(f, h);
  if (std::isnan(x))
    return kCanonicalNaN16;
  // The unit's f32 result truncated toward zero (measured: the f16 and
  // bf16 results are exactly the truncated f32 results of the H100).
  return uint32_t(encode_double(f, double(mufu::tanh(float(x))), {Round::RZ}));
}

} // namespace bcusim::engine::detail::mufu
