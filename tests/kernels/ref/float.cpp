// References for tests/kernels/float/*.cu. IEEE 754 fixes every result of
// add/sub/mul/div/fma/sqrt in each rounding mode, so the host computes them
// with the same operation under std::fesetround (this program is built with
// -frounding-math -ffp-contract=off, and x86-64 SSE arithmetic has no excess
// precision and no flush-to-zero). Float-to-integer conversions follow PTX
// cvt: round per the mode, then clamp to the destination range.
#include "ref_common.h"

#include <algorithm>
#include <cfenv>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>

#include "../float/cvt_corners_inputs.h"

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

// ---- cvt_corners -----------------------------------------------------------
// An independent model of PTX cvt: every value is held exactly in a long
// double (64-bit significand: every f16/bf16/f32/f64 value and every 64-bit
// integer is exact in it). f32 and f64 results are rounded by the host
// (fesetround, one rounding from the exact value); the 16-bit formats and
// tf32 by a search in the sorted table of all their finite values (the
// neighbours below and above, picked per mode; a tie goes to the even
// encoding; one step past the largest finite value is infinity).
// NaN results: f16/bf16 0x7fff, tf32 0x7fffffff (canonical); into f32/f64 a
// NaN keeps its sign and payload, quieted.
using ld = long double;

struct Table {
  std::vector<ld> vals; // non-negative finite values, ascending
  std::vector<u64> codes;
  u64 sign, inf, nan;
  ld inf_at; // where rounding reaches infinity (the next binade)
};

template <typename Decode>
Table make_table(int width, u64 inf, u64 nan, ld inf_at, Decode dec) {
  Table t{{}, {}, u64(1) << (width - 1), inf, nan, inf_at};
  for (u64 c = 0; c < t.sign; ++c) {
    ld v = dec(c);
    if (std::isfinite(v)) {
      t.vals.push_back(v);
      t.codes.push_back(c);
    }
  }
  return t;
}
ld f16_value(u64 c) {
  uint16_t b = uint16_t(c);
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return ld(h);
}
ld f32_bits_value(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return ld(f);
}
const Table &f16_table() {
  static const Table t = make_table(16, 0x7c00, 0x7fff, 65536.0L, f16_value);
  return t;
}
const Table &bf16_table() {
  static const Table t =
      make_table(16, 0x7f80, 0x7fff, std::ldexp(1.0L, 128),
                 [](u64 c) { return f32_bits_value(uint32_t(c) << 16); });
  return t;
}
const Table &tf32_table() { // 19-bit codes
  static const Table t =
      make_table(19, 0x3fc00, 0x3ffff, std::ldexp(1.0L, 128),
                 [](u64 c) { return f32_bits_value(uint32_t(c) << 13); });
  return t;
}

enum class Mode { RN, RZ, RM, RP, RNA };
struct Mods {
  Mode mode = Mode::RN;
  int irnd = -1; // .rni .rzi .rmi .rpi: 0..3
  bool ftz = false, sat = false, relu = false, satfinite = false;
};
Mods parse_mods(const std::string &s) {
  Mods m;
  size_t p = 0;
  while (p < s.size()) {
    size_t q = s.find('.', p);
    if (q == std::string::npos)
      q = s.size();
    std::string w = s.substr(p, q - p);
    p = q + 1;
    if (w == "rn")
      m.mode = Mode::RN;
    else if (w == "rz")
      m.mode = Mode::RZ;
    else if (w == "rm")
      m.mode = Mode::RM;
    else if (w == "rp")
      m.mode = Mode::RP;
    else if (w == "rna")
      m.mode = Mode::RNA;
    else if (w == "rni")
      m.irnd = 0;
    else if (w == "rzi")
      m.irnd = 1;
    else if (w == "rmi")
      m.irnd = 2;
    else if (w == "rpi")
      m.irnd = 3;
    else if (w == "ftz")
      m.ftz = true;
    else if (w == "sat")
      m.sat = true;
    else if (w == "relu")
      m.relu = true;
    else if (w == "satfinite")
      m.satfinite = true;
    else {
      std::fprintf(stderr, "bad modifier %s\n", w.c_str());
      std::exit(2);
    }
  }
  return m;
}

u64 round_table(const Table &t, ld x, const Mods &m) {
  if (std::isnan(x))
    return m.sat ? 0 : t.nan;
  const bool neg = std::signbit(x);
  if ((m.relu || m.sat) && (neg || x == 0))
    return 0; // negative (incl. -0 under .relu) -> +0
  ld a = std::fabs(x);
  u64 code;
  if (std::isinf(a)) {
    code = t.inf;
  } else {
    auto it = std::upper_bound(t.vals.begin(), t.vals.end(), a);
    size_t i = size_t(it - t.vals.begin()) - 1; // vals[i] <= a
    ld lo = t.vals[i];
    bool top = i + 1 == t.vals.size();
    ld hi = top ? t.inf_at : t.vals[i + 1];
    u64 lo_c = t.codes[i], hi_c = top ? t.inf : t.codes[i + 1];
    if (lo == a) {
      code = lo_c;
    } else {
      Mode mode = m.mode;
      if (neg && mode == Mode::RM)
        mode = Mode::RP;
      else if (neg && mode == Mode::RP)
        mode = Mode::RM;
      switch (mode) {
      case Mode::RZ:
      case Mode::RM:
        code = lo_c;
        break;
      case Mode::RP:
        code = hi_c;
        break;
      default:
        if (a - lo < hi - a)
          code = lo_c;
        else if (a - lo > hi - a)
          code = hi_c;
        else
          code = mode == Mode::RNA ? hi_c : ((lo_c & 1) ? hi_c : lo_c);
      }
    }
  }
  if (code == t.inf && m.satfinite)
    code = t.codes.back();
  code |= neg ? t.sign : 0;
  if (m.sat && !neg && a > 1)
    code = round_table(t, 1.0L, Mods{});
  return code;
}

// f32/f64 results: the host rounds the exact value once.
template <typename F> F host_round(ld x, Mode mode) {
  int fm = mode == Mode::RZ   ? FE_TOWARDZERO
           : mode == Mode::RM ? FE_DOWNWARD
           : mode == Mode::RP ? FE_UPWARD
                              : FE_TONEAREST;
  std::fesetround(fm);
  volatile ld v = x;
  volatile F r = F(v);
  std::fesetround(FE_TONEAREST);
  return r;
}

ld round_int(ld v, int irnd) {
  switch (irnd) {
  case 0:
    return std::nearbyint(v);
  case 1:
    return std::trunc(v);
  case 2:
    return std::floor(v);
  default:
    return std::ceil(v);
  }
}

int int_bits(const std::string &t) { return std::stoi(t.substr(1)); }
bool is_int(const std::string &t) { return t[0] == 's' || t[0] == 'u'; }

// The source's exact value; `nan_bits` keeps a NaN's f32 image (sign,
// payload) for NaN results into f32/f64.
struct Source {
  ld v;
  uint32_t nan32 = 0;
  u64 nan64 = 0;
};

u64 float_to_int(ld v, const std::string &src, const std::string &dst,
                 const Mods &m) {
  const int n = int_bits(dst);
  if (std::isnan(v))
    return (src == "f64" || n == 64) ? (u64(1) << (n - 1)) : 0;
  ld r = round_int(v, m.irnd);
  ld lo = dst[0] == 's' ? -std::ldexp(1.0L, n - 1) : 0;
  ld hi = dst[0] == 's' ? std::ldexp(1.0L, n - 1) - 1 : std::ldexp(1.0L, n) - 1;
  r = std::clamp(r, lo, hi);
  u64 bits = dst[0] == 's' ? u64(int64_t(r)) : u64(r);
  return n == 64 ? bits : bits & ((u64(1) << n) - 1);
}

u64 cvt_one(const std::string &mods, const std::string &dst,
            const std::string &src, Source s) {
  Mods m = parse_mods(mods);
  ld v = s.v;
  // .ftz flushes an f32 subnormal source, except into f16 (as the H100
  // does: cvt.rm.ftz.f16.f32 of 0x807fffff gives 0x8001).
  if (m.ftz && src == "f32" && dst != "f16" && v != 0 &&
      std::fabs(v) < 0x1p-126L)
    v = std::signbit(v) ? -0.0L : 0.0L;
  if (is_int(dst))
    return float_to_int(v, src, dst, m);
  if (m.irnd >= 0) // same type: round to an integral value
    v = round_int(v, m.irnd);
  // NaN results, as the H100 gives them (docs/engine.md "Conversions"): an
  // f64 NaN keeps its sign and the high bits of its payload, quieted, in
  // every destination; f32/f16 sources give the canonical NaN of an
  // f16/bf16/f32 destination; bf16 -> f32 shifts the pattern unquieted.
  if (std::isnan(v) && src == "f64" && (dst == "f16" || dst == "bf16")) {
    const u64 frac = s.nan64 & ((u64(1) << 52) - 1), sign = s.nan64 >> 63;
    return dst == "f16" ? (sign << 15 | 0x7e00 | frac >> 42)
                        : (sign << 15 | 0x7fc0 | frac >> 45);
  }
  if (dst == "f16")
    return round_table(f16_table(), v, m);
  if (dst == "bf16")
    return round_table(bf16_table(), v, m);
  if (dst == "tf32") {
    // an infinity or NaN: .rna cuts the 13 low bits (.satfinite then takes
    // one tf32 unit off); .rn/.rz give 0x7fffe000 for NaN
    const uint32_t b = s.nan32;
    if (m.mode == Mode::RNA && (std::isnan(v) || std::isinf(v)))
      return (b & ~0x1fffu) - (m.satfinite ? 0x2000u : 0u);
    return std::isnan(v) ? 0x7fffe000u : round_table(tf32_table(), v, m) << 13;
  }
  if (dst == "f32") {
    if (std::isnan(v))
      return m.sat           ? 0
             : src == "f64"  ? (s.nan32 | 0x400000u)
             : src == "bf16" ? s.nan32
                             : 0x7fffffffu;
    float f = host_round<float>(v, m.mode);
    if (m.ftz && std::fpclassify(f) == FP_SUBNORMAL)
      f = std::copysign(0.0f, f);
    if (m.sat)
      f = f > 1 ? 1.0f : (f > 0 ? f : 0.0f); // [+0, 1], NaN/-0 -> +0
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  }
  // f64
  if (std::isnan(v) && m.ftz && src == "f32")
    return 0x7fffffffe0000000ull; // the canonical f32 NaN, widened
  if (std::isnan(v))
    return m.sat ? 0 : (s.nan64 | (u64(1) << 51));
  double d = host_round<double>(v, m.mode);
  if (m.sat)
    d = d > 1 ? 1.0 : (d > 0 ? d : 0.0);
  u64 b;
  std::memcpy(&b, &d, 8);
  return b;
}

Source from_f32(uint32_t b) {
  Source s{f32_bits_value(b)};
  s.nan32 = b;
  s.nan64 = (u64(b & 0x80000000u) << 32) | 0x7ff0000000000000ull |
            (u64(b & 0x7fffffu) << 29);
  return s;
}
Source from_f64(u64 b) {
  double d;
  std::memcpy(&d, &b, 8);
  Source s{ld(d)};
  s.nan64 = b;
  s.nan32 = uint32_t(b >> 32 & 0x80000000u) | 0x7f800000u |
            uint32_t((b >> 29) & 0x7fffffu);
  return s;
}

struct Conv {
  const char *mods, *dst, *src;
  char var; // x f32, p f32 pair (x, next x), y f64, h f16, b bf16, n integer
};
const Conv kConvs[] = {
    {"rni", "s8", "f32", 'x'},
    {"rzi", "s8", "f32", 'x'},
    {"rmi", "s8", "f32", 'x'},
    {"rpi", "s8", "f32", 'x'},
    {"rni", "u8", "f32", 'x'},
    {"rzi", "u8", "f32", 'x'},
    {"rmi", "u8", "f32", 'x'},
    {"rpi", "u8", "f32", 'x'},
    {"rni", "s16", "f32", 'x'},
    {"rzi", "s16", "f32", 'x'},
    {"rmi", "s16", "f32", 'x'},
    {"rpi", "s16", "f32", 'x'},
    {"rni", "u16", "f32", 'x'},
    {"rzi", "u16", "f32", 'x'},
    {"rmi", "u16", "f32", 'x'},
    {"rpi", "u16", "f32", 'x'},
    {"rni", "s32", "f32", 'x'},
    {"rzi", "s32", "f32", 'x'},
    {"rmi", "s32", "f32", 'x'},
    {"rpi", "s32", "f32", 'x'},
    {"rni", "u32", "f32", 'x'},
    {"rzi", "u32", "f32", 'x'},
    {"rmi", "u32", "f32", 'x'},
    {"rpi", "u32", "f32", 'x'},
    {"rni", "s64", "f32", 'x'},
    {"rzi", "s64", "f32", 'x'},
    {"rmi", "s64", "f32", 'x'},
    {"rpi", "s64", "f32", 'x'},
    {"rni", "u64", "f32", 'x'},
    {"rzi", "u64", "f32", 'x'},
    {"rmi", "u64", "f32", 'x'},
    {"rpi", "u64", "f32", 'x'},
    {"rni", "s8", "f64", 'y'},
    {"rzi", "s8", "f64", 'y'},
    {"rmi", "s8", "f64", 'y'},
    {"rpi", "s8", "f64", 'y'},
    {"rni", "u8", "f64", 'y'},
    {"rzi", "u8", "f64", 'y'},
    {"rmi", "u8", "f64", 'y'},
    {"rpi", "u8", "f64", 'y'},
    {"rni", "s16", "f64", 'y'},
    {"rzi", "s16", "f64", 'y'},
    {"rmi", "s16", "f64", 'y'},
    {"rpi", "s16", "f64", 'y'},
    {"rni", "u16", "f64", 'y'},
    {"rzi", "u16", "f64", 'y'},
    {"rmi", "u16", "f64", 'y'},
    {"rpi", "u16", "f64", 'y'},
    {"rni", "s32", "f64", 'y'},
    {"rzi", "s32", "f64", 'y'},
    {"rmi", "s32", "f64", 'y'},
    {"rpi", "s32", "f64", 'y'},
    {"rni", "u32", "f64", 'y'},
    {"rzi", "u32", "f64", 'y'},
    {"rmi", "u32", "f64", 'y'},
    {"rpi", "u32", "f64", 'y'},
    {"rni", "s64", "f64", 'y'},
    {"rzi", "s64", "f64", 'y'},
    {"rmi", "s64", "f64", 'y'},
    {"rpi", "s64", "f64", 'y'},
    {"rni", "u64", "f64", 'y'},
    {"rzi", "u64", "f64", 'y'},
    {"rmi", "u64", "f64", 'y'},
    {"rpi", "u64", "f64", 'y'},
    {"rni", "s32", "f16", 'h'},
    {"rzi", "s32", "f16", 'h'},
    {"rmi", "u64", "f16", 'h'},
    {"rpi", "s16", "f16", 'h'},
    {"rzi", "u8", "f16", 'h'},
    {"", "f32", "f16", 'h'},
    {"", "f64", "f16", 'h'},
    {"rni", "f16", "f16", 'h'},
    {"rn", "bf16", "f16", 'h'},
    {"ftz", "f32", "f16", 'h'},
    {"", "f32", "bf16", 'b'},
    {"", "f64", "bf16", 'b'},
    {"rni", "s32", "bf16", 'b'},
    {"rzi", "u64", "bf16", 'b'},
    {"rni", "bf16", "bf16", 'b'},
    {"rn", "f16", "bf16", 'b'},
    {"rz", "f16", "bf16", 'b'},
    {"rn", "f16", "f32", 'x'},
    {"rz", "f16", "f32", 'x'},
    {"rm", "f16", "f32", 'x'},
    {"rp", "f16", "f32", 'x'},
    {"rn.relu", "f16", "f32", 'x'},
    {"rn.satfinite", "f16", "f32", 'x'},
    {"rz.satfinite", "f16", "f32", 'x'},
    {"rz.relu.satfinite", "f16", "f32", 'x'},
    {"rn.sat", "f16", "f32", 'x'},
    {"rn.ftz", "f16", "f32", 'x'},
    {"rm.ftz", "f16", "f32", 'x'},
    {"rn", "bf16", "f32", 'x'},
    {"rz", "bf16", "f32", 'x'},
    {"rm", "bf16", "f32", 'x'},
    {"rp", "bf16", "f32", 'x'},
    {"rn.relu", "bf16", "f32", 'x'},
    {"rn.satfinite", "bf16", "f32", 'x'},
    {"rz.relu", "bf16", "f32", 'x'},
    {"rna", "tf32", "f32", 'x'},
    {"rna.satfinite", "tf32", "f32", 'x'},
    {"rn", "tf32", "f32", 'x'},
    {"rz", "tf32", "f32", 'x'},
    {"rn.relu", "tf32", "f32", 'x'},
    {"rn", "f16x2", "f32", 'p'},
    {"rz.relu", "f16x2", "f32", 'p'},
    {"rn", "bf16x2", "f32", 'p'},
    {"rz.satfinite", "bf16x2", "f32", 'p'},
    {"rni", "f32", "f32", 'x'},
    {"rzi", "f32", "f32", 'x'},
    {"rmi", "f32", "f32", 'x'},
    {"rpi", "f32", "f32", 'x'},
    {"ftz", "f32", "f32", 'x'},
    {"sat", "f32", "f32", 'x'},
    {"rni.ftz.sat", "f32", "f32", 'x'},
    {"", "f64", "f32", 'x'},
    {"ftz", "f64", "f32", 'x'},
    {"rn", "f32", "f64", 'y'},
    {"rz", "f32", "f64", 'y'},
    {"rm", "f32", "f64", 'y'},
    {"rp", "f32", "f64", 'y'},
    {"rn.ftz", "f32", "f64", 'y'},
    {"rz.sat", "f32", "f64", 'y'},
    {"rp.ftz", "f32", "f64", 'y'},
    {"rn", "f16", "f64", 'y'},
    {"rz", "f16", "f64", 'y'},
    {"rm", "f16", "f64", 'y'},
    {"rp", "f16", "f64", 'y'},
    {"rn", "bf16", "f64", 'y'},
    {"rz", "bf16", "f64", 'y'},
    {"rm", "bf16", "f64", 'y'},
    {"rp", "bf16", "f64", 'y'},
    {"rni", "f64", "f64", 'y'},
    {"rzi", "f64", "f64", 'y'},
    {"rmi", "f64", "f64", 'y'},
    {"rpi", "f64", "f64", 'y'},
    {"sat", "f64", "f64", 'y'},
    {"rn", "f32", "s64", 'n'},
    {"rz", "f32", "s64", 'n'},
    {"rm", "f32", "s64", 'n'},
    {"rp", "f32", "s64", 'n'},
    {"rn", "f64", "u64", 'n'},
    {"rz", "f64", "u64", 'n'},
    {"rm", "f64", "u64", 'n'},
    {"rp", "f64", "u64", 'n'},
    {"rn", "f64", "s64", 'n'},
    {"rn", "f32", "u64", 'n'},
    {"rp", "f32", "u64", 'n'},
    {"rn", "f16", "s32", 'n'},
    {"rz", "f16", "s32", 'n'},
    {"rm", "f16", "s32", 'n'},
    {"rp", "f16", "s32", 'n'},
    {"rn", "f16", "u16", 'n'},
    {"rn", "bf16", "s64", 'n'},
    {"rz", "bf16", "s64", 'n'},
    {"rp", "bf16", "u32", 'n'},
    {"rn.sat", "f32", "s32", 'n'},
    {"rn", "f16", "s8", 'n'},
    {"rn", "f64", "s32", 'n'},
    {"rzi.ftz", "s32", "f32", 'x'},
};

void cvt_corners() {
  std::vector<u64> out;
  for (int i = 0; i < 64; ++i) {
    for (const Conv &c : kConvs) {
      const std::string src = c.src, dst = c.dst;
      if (c.var == 'p') { // cvt.f16x2.f32 / .bf16x2.f32 d, a, b: a -> upper
        std::string elem = dst.substr(0, dst.size() - 2);
        u64 hi = cvt_one(c.mods, elem, "f32", from_f32(kCvtF32[i]));
        u64 lo = cvt_one(c.mods, elem, "f32", from_f32(kCvtF32[(i + 1) % 64]));
        out.push_back(hi << 16 | lo);
        continue;
      }
      Source s{0};
      switch (c.var) {
      case 'x':
        s = from_f32(kCvtF32[i]);
        break;
      case 'y':
        s = from_f64(kCvtF64[i]);
        break;
      case 'h':
        s = from_f32(uint32_t(kCvtF16[i] & 0x8000) << 16 | 0x7f800000u |
                     uint32_t(kCvtF16[i] & 0x3ff) << 13);
        s.v = f16_value(kCvtF16[i]);
        break;
      case 'b':
        s = from_f32(uint32_t(kCvtBF16[i]) << 16);
        break;
      default: { // integer source: the low bits the source type names
        u64 n = kCvtInt[i];
        const int bits = int_bits(src);
        u64 low = bits == 64 ? n : n & ((u64(1) << bits) - 1);
        if (src[0] == 's' && bits < 64 && (low >> (bits - 1)))
          s.v = ld(int64_t(low | ~((u64(1) << bits) - 1)));
        else
          s.v = src[0] == 's' ? ld(int64_t(low)) : ld(low);
      }
      }
      out.push_back(cvt_one(c.mods, dst, src, s));
    }
  }
  kref::print_buffer(out);
}

// ---- half_ops --------------------------------------------------------------
// Half-precision arithmetic, computed in binary128 (__float128): products of
// two f16/bf16 values are exact in it, and a sum's rounding error is kept
// exactly (TwoSum), so the exact result is the pair s + err. It is rounded
// to nearest-even by a search in the sorted table of all finite values of
// the format (one step past the largest is infinity). NaN results are
// 0x7fff. ex2 and tanh: the H100's truncated approximations.
using q128 = __float128;

struct QTable {
  std::vector<q128> vals; // non-negative finite, ascending
  std::vector<uint32_t> codes;
  q128 inf_at;
  uint32_t inf;
};
const QTable &qtable(bool bf) {
  static const QTable t16 = [] {
    QTable t{{}, {}, 65536, 0x7c00};
    for (uint32_t c = 0; c < 0x7c00; ++c) {
      t.vals.push_back(q128(f16_value(c)));
      t.codes.push_back(c);
    }
    return t;
  }();
  static const QTable tb = [] {
    QTable t{{}, {}, q128(std::ldexp(1.0L, 128)), 0x7f80};
    for (uint32_t c = 0; c < 0x7f80; ++c) {
      t.vals.push_back(q128(f32_bits_value(c << 16)));
      t.codes.push_back(c);
    }
    return t;
  }();
  return bf ? tb : t16;
}

// Rounds the exact value s + err (|err| below half an ulp of s in
// binary128) to nearest-even.
uint32_t round_pair(bool bf, q128 s, q128 err) {
  const QTable &t = qtable(bf);
  if (s != s)
    return 0x7fff;
  const bool neg = s < 0 || (s == 0 && std::signbit(double(s)));
  q128 a = neg ? -s : s, e = neg ? -err : err;
  uint32_t code;
  if (a >= t.inf_at * 2) {
    code = t.inf;
  } else {
    size_t i = size_t(std::upper_bound(t.vals.begin(), t.vals.end(), a) -
                      t.vals.begin()) -
               1;
    if (t.vals[i] == a && e < 0) // just below a table value
      --i;
    bool top = i + 1 == t.vals.size();
    q128 lo = t.vals[i], hi = top ? t.inf_at : t.vals[i + 1];
    uint32_t lo_c = t.codes[i], hi_c = top ? t.inf : t.codes[i + 1];
    if (a == lo && e == 0) {
      code = lo_c;
    } else {
      q128 d = 2 * a - (lo + hi); // < -2e: nearer lo; > -2e: nearer hi
      if (d < -2 * e)
        code = lo_c;
      else if (d > -2 * e)
        code = hi_c;
      else
        code = (lo_c & 1) ? hi_c : lo_c;
    }
  }
  return code | (neg ? 0x8000u : 0u);
}

bool h_nan(uint32_t h, bool bf) {
  return bf ? (h & 0x7fff) > 0x7f80 : (h & 0x7fff) > 0x7c00;
}
bool h_sub(uint32_t h, bool bf) {
  return bf ? ((h & 0x7f80) == 0 && (h & 0x7f))
            : ((h & 0x7c00) == 0 && (h & 0x3ff));
}
q128 h_val(uint32_t h, bool bf) {
  return bf ? q128(f32_bits_value(h << 16)) : q128(f16_value(h));
}

struct HalfOp {
  const char *op; // opcode with modifiers, without the type
  const char *type;
  int nsrc;
  const char *kind; // arith, setp, set (16-bit), set32
};
const HalfOp kHalfOps[] = {
    {"add.rn", "f16", 2, "arith"},
    {"add", "f16", 2, "arith"},
    {"add.rn.ftz", "f16", 2, "arith"},
    {"add.rn.sat", "f16", 2, "arith"},
    {"add.rn.ftz.sat", "f16", 2, "arith"},
    {"sub.rn", "f16", 2, "arith"},
    {"sub.rn.ftz", "f16", 2, "arith"},
    {"mul.rn", "f16", 2, "arith"},
    {"mul.rn.ftz", "f16", 2, "arith"},
    {"mul.rn.sat", "f16", 2, "arith"},
    {"fma.rn", "f16", 3, "arith"},
    {"fma.rn.ftz", "f16", 3, "arith"},
    {"fma.rn.sat", "f16", 3, "arith"},
    {"fma.rn.relu", "f16", 3, "arith"},
    {"fma.rn.ftz.relu", "f16", 3, "arith"},
    {"fma.rn.oob", "f16", 3, "arith"},
    {"neg", "f16", 1, "arith"},
    {"neg.ftz", "f16", 1, "arith"},
    {"abs", "f16", 1, "arith"},
    {"abs.ftz", "f16", 1, "arith"},
    {"min", "f16", 2, "arith"},
    {"max", "f16", 2, "arith"},
    {"min.NaN", "f16", 2, "arith"},
    {"max.NaN", "f16", 2, "arith"},
    {"min.xorsign.abs", "f16", 2, "arith"},
    {"max.NaN.xorsign.abs", "f16", 2, "arith"},
    {"min.ftz", "f16", 2, "arith"},
    {"ex2.approx", "f16", 1, "arith"},
    {"tanh.approx", "f16", 1, "arith"},
    {"setp", "f16", 2, "setp"},
    {"setp.ftz", "f16", 2, "setp"},
    {"set.lt.u16", "f16", 2, "set"},
    {"set.gtu.f16", "f16", 2, "set"},
    {"set.ge.u32", "f16", 2, "set32"},
    {"add.rn", "f16x2", 2, "arith"},
    {"fma.rn.relu", "f16x2", 3, "arith"},
    {"min.NaN", "f16x2", 2, "arith"},
    {"ex2.approx", "f16x2", 1, "arith"},
    {"mul.rn.ftz.sat", "f16x2", 2, "arith"},
    {"neg", "f16x2", 1, "arith"},
    {"max.xorsign.abs", "f16x2", 2, "arith"},
    {"setp", "f16x2", 2, "setp"},
    {"set.ge.f16x2", "f16x2", 2, "set32"},
    {"set.lt.u32", "f16x2", 2, "set32"},
    {"add.rn", "bf16", 2, "arith"},
    {"add", "bf16", 2, "arith"},
    {"sub.rn", "bf16", 2, "arith"},
    {"mul.rn", "bf16", 2, "arith"},
    {"fma.rn", "bf16", 3, "arith"},
    {"fma.rn.relu", "bf16", 3, "arith"},
    {"fma.rn.oob", "bf16", 3, "arith"},
    {"fma.rn.oob.relu", "bf16", 3, "arith"},
    {"neg", "bf16", 1, "arith"},
    {"abs", "bf16", 1, "arith"},
    {"ex2.approx.ftz", "bf16", 1, "arith"},
    {"tanh.approx", "bf16", 1, "arith"},
    {"min", "bf16", 2, "arith"},
    {"max.NaN", "bf16", 2, "arith"},
    {"min.xorsign.abs", "bf16", 2, "arith"},
    {"setp", "bf16", 2, "setp"},
    {"set.lt.bf16", "bf16", 2, "set"},
    {"fma.rn", "bf16x2", 3, "arith"},
    {"min.NaN", "bf16x2", 2, "arith"},
    {"tanh.approx", "bf16x2", 1, "arith"},
    {"max.xorsign.abs", "bf16x2", 2, "arith"},
    {"mul.rn", "bf16x2", 2, "arith"},
    {"setp", "bf16x2", 2, "setp"},
    {"set.lt.u32", "bf16x2", 2, "set32"},
};

bool has_mod(const std::string &op, const char *m) {
  std::string s = "." + op + ".";
  return s.find(std::string(".") + m + ".") != std::string::npos;
}

uint32_t half_arith(const std::string &op, bool bf, uint32_t a, uint32_t b,
                    uint32_t c) {
  const bool ftz = has_mod(op, "ftz");
  const std::string name = op.substr(0, op.find('.'));
  // .oob: no effect on register operands (as on the H100).
  if (ftz) {
    for (uint32_t *v : {&a, &b, &c})
      if (h_sub(*v, bf))
        *v &= 0x8000;
  }
  uint32_t r;
  if (name == "neg") { // a NaN gives 0x7fff (as on the H100)
    r = h_nan(a, bf) ? 0x7fff : a ^ 0x8000;
  } else if (name == "abs") {
    r = h_nan(a, bf) ? 0x7fff : a & 0x7fff;
  } else if (name == "min" || name == "max") {
    const bool is_min = name == "min", xs = has_mod(op, "xorsign");
    bool na = h_nan(a, bf), nb = h_nan(b, bf);
    if ((na && nb) || (has_mod(op, "NaN") && (na || nb)))
      return 0x7fff;
    uint32_t sign = (a ^ b) & 0x8000;
    uint32_t x = xs ? a & 0x7fff : a, y = xs ? b & 0x7fff : b;
    if (na)
      r = y;
    else if (nb)
      r = x;
    else {
      q128 vx = h_val(x, bf), vy = h_val(y, bf);
      if (vx == vy) // -0 below +0
        r = is_min ? ((x & 0x8000) ? x : y) : ((x & 0x8000) ? y : x);
      else
        r = (is_min ? vx < vy : vx > vy) ? x : y;
    }
    if (xs)
      r = (r & 0x7fff) | sign;
  } else {
    q128 x = h_val(a, bf), y = h_val(b, bf), s, err = 0;
    const bool unary = name == "ex2" || name == "tanh";
    if (h_nan(a, bf) || (!unary && h_nan(b, bf)) ||
        (name == "fma" && h_nan(c, bf))) {
      r = 0x7fff;
    } else {
      if (name == "ex2") {
        // The H100's rule (docs/engine.md "Approximate functions"): x read
        // with 23 fraction bits (truncated), 2^x truncated toward zero
        // (bf16: after rounding to f32), beyond the largest finite value
        // infinity.
        long double xq = ::truncl((long double)x * 8388608.0L) / 8388608.0L;
        long double v = ::exp2l(xq);
        if (bf)
          v = (float)v;
        const uint32_t max_finite = bf ? 0x7f7f : 0x7bff;
        if (q128(v) > h_val(max_finite, bf)) {
          r = bf ? 0x7f80 : 0x7c00;
        } else {
          r = round_pair(bf, q128(v), 0);
          if (h_val(r, bf) > q128(v))
            r -= 1;
        }
        if (has_mod(op, "relu") && (r & 0x8000))
          r = 0;
        if (has_mod(op, "ftz") && h_sub(r, bf))
          r &= 0x8000;
        return r;
      }
      if (name == "tanh") {
        // The H100's rule: the f32 unit's value (x itself below
        // 2^-8 (1 + 2^-7), else tanh rounded to f32), truncated toward zero.
        const double xd = double((long double)x);
        const float v =
            std::fabs(xd) < 0x1.02p-8 ? float(xd) : float(std::tanh(xd));
        r = round_pair(bf, q128(v), 0);
        if (h_val(r & 0x7fff, bf) > q128(std::fabs(v)))
          r -= 1;
        return r;
      }
      if (name == "mul") {
        s = x * y;
      } else {
        q128 p = name == "fma" ? x * y : x;
        q128 z = name == "fma" ? h_val(c, bf) : (name == "sub" ? -y : y);
        s = p + z;
        if (s - s == 0) { // finite: TwoSum
          q128 bb = s - p;
          err = (p - (s - bb)) + (z - bb);
        }
      }
      r = s != s ? 0x7fff : round_pair(bf, s, err);
      if (s - s != 0 && s == s) // infinite
        r = (s < 0 ? 0x8000 : 0) | (bf ? 0x7f80 : 0x7c00);
      // .ftz: an exact product or fma below the smallest normal is flushed
      // even when it rounds up to it (tininess before rounding, as the
      // H100 does)
      const q128 min_normal = bf ? q128(0x1p-126) : q128(0x1p-14);
      if (ftz && (name == "mul" || name == "fma") && s == s && s != 0 &&
          (s < 0 ? -s : s) < min_normal)
        r = s < 0 ? 0x8000 : 0;
    }
    if (has_mod(op, "relu") && r != 0x7fff && (r & 0x8000))
      r = 0;
  }
  if (ftz && h_sub(r, bf))
    r &= 0x8000;
  if (has_mod(op, "sat")) {
    if (h_nan(r, bf) || (r & 0x8000) || r == 0)
      r = 0;
    else if (h_val(r, bf) > 1)
      r = bf ? 0x3f80 : 0x3c00;
  }
  return r;
}

const char *const kCmps[] = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",  "equ",
                             "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

bool half_cmp(const std::string &cmp, bool ftz, bool bf, uint32_t a,
              uint32_t b) {
  if (ftz) {
    if (h_sub(a, bf))
      a &= 0x8000;
    if (h_sub(b, bf))
      b &= 0x8000;
  }
  const bool un = h_nan(a, bf) || h_nan(b, bf);
  if (cmp == "num")
    return !un;
  if (cmp == "nan")
    return un;
  const bool u = cmp.size() == 3;
  if (un)
    return u;
  q128 x = h_val(a, bf), y = h_val(b, bf);
  const std::string base = cmp.substr(0, 2);
  if (base == "eq")
    return x == y;
  if (base == "ne")
    return x != y;
  if (base == "lt")
    return x < y;
  if (base == "le")
    return x <= y;
  if (base == "gt")
    return x > y;
  return x >= y;
}

void half_ops() {
  std::vector<uint32_t> out;
  for (int x = 0; x < 64; ++x)
    for (int t = 0; t < 64; ++t) {
      for (const HalfOp &h : kHalfOps) {
        const std::string op = h.op, type = h.type, kind = h.kind;
        const bool bf = type[0] == 'b';
        const bool x2 = type.size() > 4;
        const unsigned short *v = bf ? kCvtBF16 : kCvtF16;
        // Element e of the operands: e = 0 the scalar / lower halves.
        auto operands = [&](int e, uint32_t &a, uint32_t &b, uint32_t &c) {
          uint32_t va = v[x], vb = v[t], vc = v[(x + t) % 64];
          if (e == 0) {
            a = va, b = vb, c = vc;
          } else {
            a = vb, b = vc, c = va;
          }
        };
        const int n = x2 ? 2 : 1;
        if (kind == "arith") {
          uint32_t r = 0;
          for (int e = 0; e < n; ++e) {
            uint32_t a, b, c;
            operands(e, a, b, c);
            r |= half_arith(op, bf, a, b, c) << (16 * e);
          }
          out.push_back(r);
        } else if (kind == "setp") {
          uint32_t bits = 0;
          for (int ci = 0; ci < 14; ++ci)
            for (int e = 0; e < n; ++e) {
              uint32_t a, b, c;
              operands(e, a, b, c);
              bool r = half_cmp(kCmps[ci], has_mod(op, "ftz"), bf, a, b);
              bits |= uint32_t(r) << (x2 ? 2 * ci + e : ci);
            }
          out.push_back(bits);
        } else { // set.CMP.DTYPE
          std::string rest = op.substr(4);
          std::string cmp = rest.substr(0, rest.find('.'));
          std::string dt = rest.substr(rest.find('.') + 1);
          uint32_t yes = dt == "f16" || dt == "f16x2"     ? 0x3c00
                         : dt == "bf16" || dt == "bf16x2" ? 0x3f80
                         : (x2 || dt == "u16")            ? 0xffff
                                                          : 0xffffffffu;
          uint32_t r = 0;
          for (int e = 0; e < n; ++e) {
            uint32_t a, b, c;
            operands(e, a, b, c);
            if (half_cmp(cmp, false, bf, a, b))
              r |= yes << (16 * e);
          }
          out.push_back(r);
        }
      }
    }
  kref::print_buffer(out);
}

// ---- narrow_cvt, narrow_cvt_fp6_fp4 ----------------------------------------
// The FP8/FP6/FP4 formats as tables of their values (decoded by the OCP
// formula: a zero exponent field is subnormal; e4m3 has no infinity and
// S.1111.111 is NaN; e5m2 is IEEE-like; FP6/FP4 have neither), rounded by
// the same table search as cvt_corners. Decisions (docs/engine.md
// "Conversions"): NaN into e4m3/e5m2 is 0x7f; FP6/FP4 have no NaN, so NaN
// gives the largest positive value; ue8m0 (2^(E-127), 0xff NaN) rounds the
// exponent down (.rz) or up (.rp), zero and negative values give 0,
// overflow 0xff (0xfe with .satfinite).
struct Mini {
  int ebits, mbits, bias;
  u64 nan; // ~0: none (NaN -> the largest positive value)
  bool has_inf, e4m3;
};
ld mini_value(const Mini &f, u64 c) {
  u64 e = (c >> f.mbits) & ((u64(1) << f.ebits) - 1);
  u64 m = c & ((u64(1) << f.mbits) - 1);
  if (f.has_inf && e == (u64(1) << f.ebits) - 1)
    return m ? NAN : INFINITY;
  if (f.e4m3 && e == 15 && m == 7)
    return NAN;
  if (e == 0)
    return std::ldexp(ld(m), 1 - f.bias - f.mbits);
  return std::ldexp(ld(m + (u64(1) << f.mbits)), int(e) - f.bias - f.mbits);
}
int mini_width(const Mini &f) { return 1 + f.ebits + f.mbits; }
Table mini_table(const Mini &f) {
  Table t = make_table(mini_width(f), 0, 0, 0,
                       [&](u64 c) { return mini_value(f, c); });
  // One step past the largest value (the next binade).
  int top = int(std::ilogb(double(t.vals.back())));
  t.inf_at = std::ldexp(1.0L, top + 1);
  t.inf = f.has_inf ? (((u64(1) << f.ebits) - 1) << f.mbits) : t.codes.back();
  t.nan = f.nan != ~u64(0) ? f.nan : t.codes.back();
  return t;
}
const Mini kMiniE4M3{4, 3, 7, 0x7f, false, true},
    kMiniE5M2{5, 2, 15, 0x7f, true, false},
    kMiniE2M1{2, 1, 1, ~u64(0), false, false},
    kMiniE2M3{2, 3, 1, ~u64(0), false, false},
    kMiniE3M2{3, 2, 3, ~u64(0), false, false};

const Mini *mini_of(const std::string &p) {
  for (auto [name, f] : {std::pair{"e4m3", &kMiniE4M3},
                         {"e5m2", &kMiniE5M2},
                         {"e2m1", &kMiniE2M1},
                         {"e2m3", &kMiniE2M3},
                         {"e3m2", &kMiniE3M2}})
    if (p.find(name) != std::string::npos)
      return f;
  return nullptr;
}

u64 to_ue8m0(ld v, bool up, bool satfinite) {
  if (std::isnan(v))
    return 0xff;
  if (std::isinf(v))
    return v > 0 ? (satfinite ? 0xfe : 0xff) : 0;
  if (v <= 0)
    return 0;
  int e = std::ilogb(double(v)); // v is an f32 or bf16 value: exact in double
  if (up && std::ldexp(1.0L, e) != v)
    ++e;
  if (e + 127 < 0)
    return 0;
  if (e + 127 > 254)
    return satfinite ? 0xfe : 0xff;
  return u64(e + 127);
}

struct NarrowOp {
  const char *ptx, *kind, *a, *b;
};
const NarrowOp kNarrowSm90[] = {
    {"cvt.rn.satfinite.e4m3x2.f32", "pair", "x", "x2"},
    {"cvt.rn.satfinite.relu.e4m3x2.f32", "pair", "x", "x2"},
    {"cvt.rn.satfinite.e5m2x2.f32", "pair", "x", "x2"},
    {"cvt.rn.satfinite.relu.e5m2x2.f32", "pair", "x", "x2"},
    {"cvt.rn.satfinite.e4m3x2.f32", "pair", "ramp", "fine"},
    {"cvt.rn.satfinite.e5m2x2.f32", "pair", "ramp", "fine"},
    {"cvt.rn.satfinite.relu.e4m3x2.f32", "pair", "fine", "ramp"},
    {"cvt.rn.satfinite.e4m3x2.f16x2", "h2", "hp", ""},
    {"cvt.rn.satfinite.relu.e5m2x2.f16x2", "h2", "hp", ""},
    {"cvt.rn.f16x2.e4m3x2", "widen", "", ""},
    {"cvt.rn.relu.f16x2.e4m3x2", "widen", "", ""},
    {"cvt.rn.f16x2.e5m2x2", "widen", "", ""},
    {"cvt.rn.relu.f16x2.e5m2x2", "widen", "", ""},
};
const NarrowOp kNarrowSm100[] = {
    {"cvt.rn.satfinite.e2m1x2.f32", "pair8", "x", "x2"},
    {"cvt.rn.satfinite.e2m1x2.f32", "pair8", "ramp2", "fine2"},
    {"cvt.rn.satfinite.relu.e2m1x2.f32", "pair8", "fine2", "ramp2"},
    {"cvt.rn.satfinite.e2m3x2.f32", "pair", "x", "x2"},
    {"cvt.rn.satfinite.e2m3x2.f32", "pair", "ramp2", "fine2"},
    {"cvt.rn.satfinite.relu.e2m3x2.f32", "pair", "fine2", "ramp2"},
    {"cvt.rn.satfinite.e3m2x2.f32", "pair", "x", "x2"},
    {"cvt.rn.satfinite.e3m2x2.f32", "pair", "ramp", "ramp2"},
    {"cvt.rn.satfinite.relu.e3m2x2.f32", "pair", "ramp2", "fine"},
    {"cvt.rz.ue8m0x2.f32", "pair", "x", "x2"},
    {"cvt.rp.ue8m0x2.f32", "pair", "x", "x2"},
    {"cvt.rz.satfinite.ue8m0x2.f32", "pair", "x", "x2"},
    {"cvt.rp.satfinite.ue8m0x2.f32", "pair", "x", "x2"},
    {"cvt.rz.ue8m0x2.bf16x2", "h2", "bp", ""},
    {"cvt.rp.satfinite.ue8m0x2.bf16x2", "h2", "bp", ""},
    {"cvt.rn.f16x2.e2m1x2", "widen8", "", ""},
    {"cvt.rn.relu.f16x2.e2m1x2", "widen8", "", ""},
    {"cvt.rn.f16x2.e2m3x2", "widen", "", ""},
    {"cvt.rn.f16x2.e3m2x2", "widen", "", ""},
    {"cvt.rn.relu.f16x2.e3m2x2", "widen", "", ""},
    {"cvt.rn.bf16x2.ue8m0x2", "widen", "", ""},
};

template <size_t N> void narrow_run(const NarrowOp (&ops)[N]) {
  std::vector<u64> out;
  for (int i = 0; i < 64; ++i) {
    auto f32 = [](uint32_t b) {
      float f;
      std::memcpy(&f, &b, 4);
      return f;
    };
    const float x = f32(kCvtF32[i]), x2 = f32(kCvtF32[(i + 1) % 64]);
    const float ramp = float(i - 32) * 7.25f,
                fine = float(i - 32) * 0.00048828125f;
    const float ramp2 = float(i - 32) * 0.25f, fine2 = float(i - 32) * 0.0625f;
    auto input = [&](const std::string &n) -> float {
      return n == "x"       ? x
             : n == "x2"    ? x2
             : n == "ramp"  ? ramp
             : n == "fine"  ? fine
             : n == "ramp2" ? ramp2
                            : fine2;
    };
    for (const NarrowOp &op : ops) {
      const std::string p = op.ptx, kind = op.kind;
      Mods m;
      m.mode = p.find(".rp.") != std::string::npos   ? Mode::RP
               : p.find(".rz.") != std::string::npos ? Mode::RZ
                                                     : Mode::RN;
      m.relu = p.find(".relu") != std::string::npos;
      m.satfinite = p.find(".satfinite") != std::string::npos;
      const bool ue = p.find("ue8m0") != std::string::npos;
      const Mini *mf = mini_of(p);
      auto narrow = [&](ld v) -> u64 {
        if (ue)
          return to_ue8m0(v, m.mode == Mode::RP, m.satfinite);
        static std::vector<std::pair<const Mini *, Table>> cache;
        for (auto &[k, t] : cache)
          if (k == mf)
            return round_table(t, v, m);
        cache.emplace_back(mf, mini_table(*mf));
        return round_table(cache.back().second, v, m);
      };
      const int w = mf == &kMiniE2M1 ? 4 : 8;
      if (kind == "pair" || kind == "pair8") {
        out.push_back(narrow(input(op.a)) << w | narrow(input(op.b)));
      } else if (kind == "h2") { // one packed f16x2 / bf16x2 source
        const bool bfs = p.find("bf16x2") != std::string::npos;
        u64 hi = bfs ? kCvtBF16[(i + 1) % 64] : kCvtF16[(i + 1) % 64];
        u64 lo = bfs ? kCvtBF16[i] : kCvtF16[i];
        auto val = [&](u64 h) {
          return bfs ? ld(f32(uint32_t(h) << 16)) : f16_value(h);
        };
        out.push_back(narrow(val(hi)) << w | narrow(val(lo)));
      } else { // widen: every byte value, both halves
        for (int j = 0; j < 4; ++j) {
          const u64 src = u64(4 * i + j) | u64(255 - 4 * i - j) << 8;
          const u64 mask = (u64(1) << w) - 1;
          Mods wm;
          wm.relu = m.relu;
          auto widen = [&](u64 c) -> u64 {
            if (ue) {
              ld v = c == 0xff ? ld(NAN) : std::ldexp(1.0L, int(c) - 127);
              return round_table(bf16_table(), v, wm);
            }
            const u64 sign = u64(1) << (mini_width(*mf) - 1);
            ld v = mini_value(*mf, c & (sign - 1));
            if (c & sign)
              v = -v;
            return round_table(f16_table(), v, wm);
          };
          out.push_back(widen(src >> w & mask) << 16 | widen(src & mask));
        }
      }
    }
  }
  kref::print_buffer(out);
}
void narrow_cvt() { narrow_run(kNarrowSm90); }
void narrow_cvt_fp6_fp4() { narrow_run(kNarrowSm100); }

// ---- half_atomics ----------------------------------------------------------
// One warp's atomicAdd on f16/f16x2/bf16/bf16x2 in lane order: each old
// value, then the sums; every addition is the exact sum rounded to nearest
// even (table search), each half of an x2 separately.
void half_atomics() {
  auto h16 = [](ld v) { return uint32_t(round_table(f16_table(), v, Mods{})); };
  auto hb = [](ld v) { return uint32_t(round_table(bf16_table(), v, Mods{})); };
  auto vh = [](uint32_t c) { return f16_value(c); };
  auto vb = [](uint32_t c) { return ld(f32_bits_value(c << 16)); };
  uint32_t h = 0, h2lo = 0, h2hi = 0, b = 0, b2lo = 0, b2hi = 0;
  std::vector<uint32_t> olds;
  for (int l = 0; l < 32; ++l) {
    olds.push_back(h);
    olds.push_back(h2hi << 16 | h2lo);
    olds.push_back(b);
    olds.push_back(b2hi << 16 | b2lo);
    volatile float scaled = 1.7f * float(l);
    h = h16(vh(h) + vh(h16(0.1f)));
    h2lo = h16(vh(h2lo) + vh(h16(0.1f)));
    h2hi = h16(vh(h2hi) + vh(h16(1000.0f + float(l))));
    b = hb(vb(b) + vb(hb(0.3f)));
    b2lo = hb(vb(b2lo) + vb(hb(scaled)));
    b2hi = hb(vb(b2hi) + vb(hb(0.001f)));
  }
  std::vector<uint32_t> sums = {h, h2hi << 16 | h2lo, b, b2hi << 16 | b2lo};
  kref::print_buffer(sums);
  kref::print_buffer(olds);
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
  else if (name == "cvt_corners")
    cvt_corners();
  else if (name == "half_ops")
    half_ops();
  else if (name == "half_atomics")
    half_atomics();
  else if (name == "narrow_cvt")
    narrow_cvt();
  else if (name == "narrow_cvt_fp6_fp4")
    narrow_cvt_fp6_fp4();
  else
    kref::unknown_case(name);
  return 0;
}
