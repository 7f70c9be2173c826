// Models of the MUFU unit and of the `.approx` instruction sequences
// (mufu.h; docs/engine.md "Approximate functions").
#include "mufu.h"

#include <bit>
#include <cmath>
#include <numbers>

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

float rsq(float x) {
  x = flush(x);
  if (std::isnan(x) || x < 0)
    return kNaN32;
  return unit_result(1.0 / std::sqrt(double(x)));
}

float sqrt(float x) {
  x = flush(x);
  if (std::isnan(x) || x < 0)
    return kNaN32;
  return unit_result(std::sqrt(double(x)));
}

float ex2(float x) {
  x = flush(x);
  if (std::isnan(x))
    return kNaN32;
  return unit_result(std::exp2(double(x)));
}

float lg2(float x) {
  x = flush(x);
  if (std::isnan(x) || x < 0)
    return kNaN32;
  if (x == 1)
    return 0;
  // The unit's result lies above log2 x by 0.4 to 2.3 units of 2^-24
  // (absolute; an interpolation error that varies along the binade): the
  // average, 2^-24, is added (75.9 % -> 92.8 % of [0.5, 1) within 4 ulp).
  return unit_result(std::log2(double(x)) + 0x1p-24);
}

namespace {
// The unit's angle: |t| as a fraction of a turn in fixed point with 25
// fraction bits (truncated).
double fraction25(float t) {
  const double q = std::trunc(std::ldexp(std::fabs(double(t)), 25));
  return std::fmod(q, 33554432.0) / 33554432.0;
}
// The sine of a fraction f of a turn, by quadrants: the second and fourth
// are mirrored, the remainder r negated by one's complement (1/4 - r -
// 2^-25; measured: sin near 2 pi is sin(2 pi (t - 1 + 2^-25)) and cos of
// a quarter turn exactly 0).
double sin_fraction(double f) {
  const int quadrant = int(f * 4);
  const double r = f - quadrant * 0.25, mirrored = 0.25 - r - 0x1p-25;
  const double a = quadrant == 0   ? r
                   : quadrant == 1 ? mirrored
                   : quadrant == 2 ? -r
                                   : -mirrored;
  return std::sin(2.0 * std::numbers::pi * a);
}
} // namespace

float sin_turns(float t) {
  t = flush(t);
  if (!std::isfinite(t))
    return kNaN32;
  // Odd: the magnitude's sine with t's sign (a zero too). |x| < 2^-22.35
  // (|t| < 2^-25) gives 0, as measured.
  const float r = unit_result(sin_fraction(fraction25(t)));
  return std::signbit(t) ? -r : r;
}

float cos_turns(float t) {
  t = flush(t);
  if (!std::isfinite(t))
    return kNaN32;
  // Even; the sine of a quarter turn minus the angle, the angle negated by
  // one's complement: 1/4 - f - 2^-25 (every input of [0.5, 1) within 4
  // ulp, 32 % bit-exact; cos of a quarter turn exactly 0).
  double g = 1.25 - 0x1p-25 - fraction25(t);
  g -= std::floor(g);
  return unit_result(sin_fraction(g));
}

float tanh(float x) {
  if (std::isnan(x))
    return kNaN32;
  // Below 2^-8 (1 + 2^-7) the unit returns x itself, denormals included
  // (measured: every f16 and bf16 input up to there gives x).
  if (std::fabs(x) < std::bit_cast<float>(0x3b810000u))
    return x;
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
