// References for tests/kernels/float/*.cu. IEEE 754 fixes every result of
// add/sub/mul/div/fma/sqrt in each rounding mode, so the host computes them
// with the same operation under std::fesetround (this program is built with
// -frounding-math -ffp-contract=off, and x86-64 SSE arithmetic has no excess
// precision and no flush-to-zero). Float-to-integer conversions follow PTX
// cvt: round per the mode, then clamp to the destination range.
#include "ref_common.h"

#include <cfenv>
#include <climits>
#include <cmath>

namespace {

using s32 = std::int32_t;
using s64 = std::int64_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

// Runs f() with the given rounding mode, then restores round-to-nearest.
// GCC may move floating-point operations across fesetround even with
// -frounding-math, so this file is compiled with -O0 and the operands are
// volatile (see CMakeLists.txt).
template <typename F> auto rounded(int mode, F f) {
  std::fesetround(mode);
  volatile auto r = f();
  std::fesetround(FE_TONEAREST);
  return r;
}

void f32_ops() {
  const float t[10] = {
      1.0f,     -2.5f,           0.1f,        3.0f,        1e-40f,
      -7.0e20f, 1.17549435e-38f, 16777216.0f, -0.3333333f, 123456.789f};
  std::vector<float> out;
  for (int i = 0; i < 100; ++i) {
    volatile float a = t[i % 10], b = t[i / 10], c = t[(i + 3) % 10];
    const float row[20] = {
        a + b,
        a - b,
        a * b,
        a / b,
        std::fma(a, b, c),
        std::sqrt(std::fabs(a)),
        1.0f / b,
        rounded(FE_TOWARDZERO, [&] { return a + b; }),
        rounded(FE_UPWARD, [&] { return a + b; }),
        rounded(FE_DOWNWARD, [&] { return a + b; }),
        rounded(FE_TOWARDZERO, [&] { return a * b; }),
        rounded(FE_UPWARD, [&] { return a * b; }),
        rounded(FE_DOWNWARD, [&] { return a / b; }),
        rounded(FE_UPWARD, [&] { return a / b; }),
        rounded(FE_TOWARDZERO, [&] { return std::fma(a, b, c); }),
        rounded(FE_DOWNWARD, [&] { return std::sqrt(std::fabs(b)); }),
        std::fmin(a, b), // no NaN and no +-0 pair among the operands
        std::fmax(a, b),
        std::copysign(a, b),
        -a};
    out.insert(out.end(), row, row + 20);
  }
  kref::print_buffer(out);
}

void f64_ops() {
  const double t[8] = {1.0,
                       -2.5,
                       0.1,
                       3.0,
                       4.9e-320,
                       -1e300,
                       2.2250738585072014e-308,
                       -0.333333333333333};
  std::vector<double> out;
  for (int i = 0; i < 64; ++i) {
    volatile double a = t[i % 8], b = t[i / 8], c = t[(i + 5) % 8];
    const double row[16] = {
        a + b,
        a - b,
        a * b,
        a / b,
        std::fma(a, b, c),
        std::sqrt(std::fabs(a)),
        1.0 / b,
        rounded(FE_TOWARDZERO, [&] { return a + b; }),
        rounded(FE_UPWARD, [&] { return a * b; }),
        rounded(FE_DOWNWARD, [&] { return a / b; }),
        rounded(FE_UPWARD, [&] { return std::fma(a, b, c); }),
        rounded(FE_TOWARDZERO, [&] { return std::sqrt(std::fabs(b)); }),
        std::fmin(a, b),
        std::fmax(a, b),
        std::copysign(a, b),
        rounded(FE_UPWARD, [&] { return a + c; })};
    out.insert(out.end(), row, row + 16);
  }
  kref::print_buffer(out);
}

// PTX cvt float -> integer: round to an integral value (rni = nearest even,
// rzi = toward zero, rpi = up, rmi = down), then clamp to the destination
// range (float-to-integer conversions saturate by default in PTX).
enum class IntRound { Nearest, Zero, Up, Down };
template <typename I> I to_int(double x, IntRound mode) {
  double r = 0;
  switch (mode) {
  case IntRound::Nearest:
    r = std::nearbyint(x); // default mode: ties to even
    break;
  case IntRound::Zero:
    r = std::trunc(x);
    break;
  case IntRound::Up:
    r = std::ceil(x);
    break;
  case IntRound::Down:
    r = std::floor(x);
    break;
  }
  const double lo = static_cast<double>(std::numeric_limits<I>::min());
  const double hi = static_cast<double>(std::numeric_limits<I>::max());
  if (r <= lo)
    return std::numeric_limits<I>::min();
  if (r >= hi) // hi may round up to 2^N in double: treat it as the maximum
    return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}

void cvt_ops() {
  const float fs[16] = {
      2.5f,    -2.5f,         3.5f,     -0.5f,         0.49999997f,    1e10f,
      -1e10f,  4294967040.0f, -1.5f,    2147483520.0f, -2147483904.0f, 1e-30f,
      -1e-30f, 7.9999995f,    65519.0f, 1e20f};
  const s32 ns[16] = {0,         1,          -1,        16777217,
                      -16777217, 2147483647, INT_MIN,   16777219,
                      33554435,  -33554435,  123456789, -5,
                      100000001, 7,          -8,        1073741825};
  std::vector<s32> o32;
  std::vector<s64> o64;
  std::vector<float> of;
  std::vector<double> od;
  for (int i = 0; i < 16; ++i) {
    const float f = fs[i];
    const double d = f;
    const s32 n = ns[i];
    o32.push_back(to_int<s32>(d, IntRound::Nearest));
    o32.push_back(to_int<s32>(d, IntRound::Zero));
    o32.push_back(to_int<s32>(d, IntRound::Up));
    o32.push_back(to_int<s32>(d, IntRound::Down));
    o32.push_back(static_cast<s32>(to_int<u32>(d, IntRound::Nearest)));
    o32.push_back(static_cast<s32>(to_int<u32>(d, IntRound::Down)));
    o32.push_back(static_cast<s32>(to_int<u32>(d, IntRound::Zero)));
    o32.push_back(to_int<s32>(d, IntRound::Zero));
    o32.push_back(to_int<s32>(d * 0.5, IntRound::Nearest));
    o32.push_back(static_cast<s32>(to_int<u32>(d, IntRound::Up)));
    o64.push_back(to_int<s64>(d, IntRound::Nearest));
    o64.push_back(to_int<s64>(d, IntRound::Zero));
    o64.push_back(static_cast<s64>(to_int<u64>(d, IntRound::Zero)));
    volatile s32 vn = n;
    of.push_back(rounded(FE_TONEAREST, [&] { return static_cast<float>(vn); }));
    of.push_back(
        rounded(FE_TOWARDZERO, [&] { return static_cast<float>(vn); }));
    of.push_back(rounded(FE_UPWARD, [&] { return static_cast<float>(vn); }));
    of.push_back(rounded(FE_DOWNWARD, [&] { return static_cast<float>(vn); }));
    of.push_back(static_cast<float>(static_cast<u32>(vn)));
    of.push_back(static_cast<float>(static_cast<_Float16>(f))); // cvt.rn.f16
    volatile double third = static_cast<double>(vn) / 3.0;
    of.push_back(
        rounded(FE_TOWARDZERO, [&] { return static_cast<float>(third); }));
    od.push_back(d);
    volatile s64 big = static_cast<s64>(static_cast<u64>(static_cast<s64>(n)) *
                                        1099511627777ULL); // mul.lo wraps
    od.push_back(static_cast<double>(big));
  }
  kref::print_buffer(o32);
  kref::print_buffer(o64);
  kref::print_buffer(of);
  kref::print_buffer(od);
}

} // namespace

int main(int argc, char **argv) {
  const std::string_view name = argc > 1 ? argv[1] : "";
  if (name == "f32_ops")
    f32_ops();
  else if (name == "f64_ops")
    f64_ops();
  else if (name == "cvt_ops")
    cvt_ops();
  else
    kref::unknown_case(name);
  return 0;
}
