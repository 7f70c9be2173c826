// Floating-point arithmetic (f32, f64): add sub mul fma mad div rcp sqrt
// rsqrt ex2 lg2 sin cos tanh min max abs neg copysign testp, with rounding
// .rn/.rz/.rm/.rp, .ftz and .sat. `.approx` operations are computed with the
// host's correctly rounded (or libm) functions: at least as accurate as the
// hardware's approximations (docs/engine.md "Decisions").
#include <bit>
#include <cfenv>
#include <cfloat>
#include <cmath>
#include <fmt/format.h>

#include "compile.h"
#include "mufu.h"

namespace bcusim::engine::detail {

namespace {

constexpr int kFtz = 1, kSat = 2;

template <class T> inline T flush(T v) {
  if (std::fpclassify(v) == FP_SUBNORMAL)
    return std::copysign(T(0), v);
  return v;
}
template <class T, int FS> inline T pre(T v) {
  if constexpr ((FS & kFtz) != 0)
    return flush(v);
  else
    return v;
}
// An f32 NaN result is the canonical 0x7fffffff whatever the operands
// (measured on H100: add.rn.f32 of 0x7fc00001 and 1 gives 0x7fffffff, and so
// do abs.f32 and neg.f32 of any NaN).
inline float canonical(float v) {
  return std::isnan(v) ? std::bit_cast<float>(0x7fffffffu) : v;
}
inline double canonical(double v) { return v; }

template <class T, int FS> inline T post(T v) {
  v = canonical(v);
  if constexpr ((FS & kFtz) != 0)
    v = flush(v);
  if constexpr ((FS & kSat) != 0) {
    // [+0, 1]: NaN, -0 and negative results give +0.
    if (!(v > T(0)))
      return T(0);
    v = v > T(1) ? T(1) : v;
  }
  return v;
}

// Directed rounding for one instruction (R: 0 rn, 1 rz, 2 rm, 3 rp).
template <int R> struct RoundScope {
  int old = 0;
  RoundScope() {
    if constexpr (R != 0) {
      old = std::fegetround();
      std::fesetround(R == 1   ? FE_TOWARDZERO
                      : R == 2 ? FE_DOWNWARD
                               : FE_UPWARD);
    }
  }
  ~RoundScope() {
    if constexpr (R != 0)
      std::fesetround(old);
  }
};
// Keeps the compiler from evaluating under the default rounding mode.
template <int R, class T> inline T opaque(T v) {
  if constexpr (R != 0) {
    volatile T t = v;
    return t;
  } else {
    return v;
  }
}

template <class T, class F, int R, int FS>
void f1(Exec &x, const Inst &in, uint32_t m) {
  RoundScope<R> rs;
  auto *d = x.lanes<T>(in.a[0]);
  const auto *a = x.lanes<T>(in.a[1]);
  for_lanes(m, [&](uint32_t l) {
    T va = opaque<R>(pre<T, FS>(as<T>(a[l])));
    d[l] = bits(post<T, FS>(opaque<R>(F{}(va))));
  });
}
template <class T, class F, int R, int FS>
void f2(Exec &x, const Inst &in, uint32_t m) {
  RoundScope<R> rs;
  auto *d = x.lanes<T>(in.a[0]);
  const auto *a = x.lanes<T>(in.a[1]), *b = x.lanes<T>(in.a[2]);
  for_lanes(m, [&](uint32_t l) {
    T va = opaque<R>(pre<T, FS>(as<T>(a[l])));
    T vb = opaque<R>(pre<T, FS>(as<T>(b[l])));
    d[l] = bits(post<T, FS>(opaque<R>(F{}(va, vb))));
  });
}
template <class T, class F, int R, int FS>
void f3(Exec &x, const Inst &in, uint32_t m) {
  RoundScope<R> rs;
  auto *d = x.lanes<T>(in.a[0]);
  const auto *a = x.lanes<T>(in.a[1]), *b = x.lanes<T>(in.a[2]),
             *c = x.lanes<T>(in.a[3]);
  for_lanes(m, [&](uint32_t l) {
    T va = opaque<R>(pre<T, FS>(as<T>(a[l])));
    T vb = opaque<R>(pre<T, FS>(as<T>(b[l])));
    T vc = opaque<R>(pre<T, FS>(as<T>(c[l])));
    d[l] = bits(post<T, FS>(opaque<R>(F{}(va, vb, vc))));
  });
}

// A NaN with its quiet bit set (sign and payload kept).
inline double quiet(double v) {
  return std::bit_cast<double>(std::bit_cast<uint64_t>(v) |
                               (uint64_t(1) << 51));
}
inline float quiet(float v) { return v; } // f32 NaN results are canonical
// f64 add, sub, mul, min and max with a NaN operand give b's NaN when b is
// one, else a's, quieted (measured on H100: add.rn.f64 of 0x7ff8000000000000
// and 0xfff80000deadbeef gives 0xfff80000deadbeef); the host picks a's.
template <class T> inline bool nan_operand(T a, T b, T &r) {
  if (std::isnan(b))
    r = quiet(b);
  else if (std::isnan(a))
    r = quiet(a);
  else
    return false;
  return true;
}
struct FAdd {
  template <class T> T operator()(T a, T b) const {
    T r;
    return nan_operand(a, b, r) ? r : a + b;
  }
};
struct FSub {
  template <class T> T operator()(T a, T b) const {
    T r;
    return nan_operand(a, b, r) ? r : a - b;
  }
};
// With .ftz a product whose exact value is below the smallest normal is
// flushed even when it rounds up to it (tininess before rounding; measured
// on H100: mul.rn.ftz.f32 of 0x00800000 and 0x3f7fffff gives +0). `exact`
// is the result before rounding to f32.
template <bool Ftz, class T> inline T flush_tiny(double exact, T r) {
  if constexpr (Ftz && std::is_same_v<T, float>)
    if (exact != 0 && std::fabs(exact) < double(FLT_MIN))
      return std::copysign(0.0f, float(exact));
  return r;
}
template <bool Ftz> struct FMulT {
  template <class T> T operator()(T a, T b) const {
    T r;
    if (nan_operand(a, b, r))
      return r;
    return flush_tiny<Ftz>(double(a) * double(b), a * b);
  }
};
using FMul = FMulT<false>;
struct FDiv {
  template <class T> T operator()(T a, T b) const { return a / b; }
};
// With hardware FMA the fused multiply-add is one instruction instead of a
// libm call; chosen at compile time when the host supports it.
template <class T>
__attribute__((target("fma"))) inline Lane<T> fma_one(Lane<T> va, Lane<T> vb,
                                                      Lane<T> vc) {
  if constexpr (std::is_same_v<T, float>)
    return bits(
        canonical(__builtin_fmaf(as<float>(va), as<float>(vb), as<float>(vc))));
  else
    return bits(__builtin_fma(as<double>(va), as<double>(vb), as<double>(vc)));
}
// Written out (not through for_lanes) so that the FMA inlines.
template <class T>
__attribute__((target("fma"))) void fma_hw(Exec &x, const Inst &in,
                                           uint32_t m) {
  auto *d = x.lanes<T>(in.a[0]);
  const auto *a = x.lanes<T>(in.a[1]), *b = x.lanes<T>(in.a[2]),
             *c = x.lanes<T>(in.a[3]);
  if (m == kFullMask) {
    for (uint32_t l = 0; l < kWarpSize; ++l)
      d[l] = fma_one<T>(a[l], b[l], c[l]);
  } else {
    for (uint32_t r = m; r != 0; r &= r - 1) {
      uint32_t l = uint32_t(std::countr_zero(r));
      d[l] = fma_one<T>(a[l], b[l], c[l]);
    }
  }
}
// The same with AVX2 as well: the f32 lanes pack into 256-bit vectors.
__attribute__((target("avx2,fma"))) void fma_hw_avx2(Exec &x, const Inst &in,
                                                     uint32_t m) {
  auto *d = x.lanes<float>(in.a[0]);
  const auto *a = x.lanes<float>(in.a[1]), *b = x.lanes<float>(in.a[2]),
             *c = x.lanes<float>(in.a[3]);
  if (m == kFullMask) {
    for (uint32_t l = 0; l < kWarpSize; ++l)
      d[l] = fma_one<float>(a[l], b[l], c[l]);
  } else {
    for (uint32_t r = m; r != 0; r &= r - 1) {
      uint32_t l = uint32_t(std::countr_zero(r));
      d[l] = fma_one<float>(a[l], b[l], c[l]);
    }
  }
}
bool host_has_fma() {
  static const bool has = __builtin_cpu_supports("fma");
  return has;
}

// add/sub/mul.rn.f32 without .ftz/.sat: the host's IEEE operation with a
// NaN result made canonical, which is what FAdd/FSub/FMul compute for f32
// (quiet() of an f32 NaN is the NaN itself, and post() makes it canonical).
// The lane loop has no branch, so the compiler vectorizes it; with AVX2
// (chosen at compile time when the host has it) 8 lanes at a time.
struct PAdd {
  float operator()(float a, float b) const { return a + b; }
};
struct PSub {
  float operator()(float a, float b) const { return a - b; }
};
struct PMul {
  float operator()(float a, float b) const { return a * b; }
};
template <class Op>
[[gnu::always_inline]] inline void
f32_rn_lanes(Lane<float> *d, const Lane<float> *a, const Lane<float> *b,
             uint32_t m) {
  auto one = [](Lane<float> va, Lane<float> vb) -> Lane<float> {
    float r = Op{}(as<float>(va), as<float>(vb));
    return r != r ? Lane<float>(0x7fffffffu)
                  : Lane<float>(std::bit_cast<uint32_t>(r));
  };
  if (m == kFullMask) {
    for (uint32_t l = 0; l < kWarpSize; ++l)
      d[l] = one(a[l], b[l]);
  } else {
    for (uint32_t r = m; r != 0; r &= r - 1) {
      uint32_t l = uint32_t(std::countr_zero(r));
      d[l] = one(a[l], b[l]);
    }
  }
}
template <class Op> void f32_rn(Exec &x, const Inst &in, uint32_t m) {
  f32_rn_lanes<Op>(x.lanes<float>(in.a[0]), x.lanes<float>(in.a[1]),
                   x.lanes<float>(in.a[2]), m);
}
template <class Op>
__attribute__((target("avx2"))) void f32_rn_avx2(Exec &x, const Inst &in,
                                                 uint32_t m) {
  f32_rn_lanes<Op>(x.lanes<float>(in.a[0]), x.lanes<float>(in.a[1]),
                   x.lanes<float>(in.a[2]), m);
}
template <class Op> ExecFn pick_f32_rn() {
  return host_has_avx2() ? &f32_rn_avx2<Op> : &f32_rn<Op>;
}
template <bool Ftz> struct FFmaT {
  template <class T> T operator()(T a, T b, T c) const {
    if constexpr (std::is_same_v<T, float>)
      return flush_tiny<Ftz>(std::fma(double(a), double(b), double(c)),
                             std::fma(a, b, c));
    else
      return std::fma(a, b, c);
  }
};
// A contracted mul and add/sub (contract.h): the signs of the product and
// the addend as the assembler's fused multiply-add applies them.
template <bool Ftz, bool NegP, bool NegC> struct FFmaSigned {
  template <class T> T operator()(T a, T b, T c) const {
    return FFmaT<Ftz>{}(NegP ? -a : a, b, NegC ? -c : c);
  }
};
struct FRcp {
  template <class T> T operator()(T a) const { return T(1) / a; }
};
struct FSqrt {
  template <class T> T operator()(T a) const { return std::sqrt(a); }
};
struct FRsqrt {
  template <class T> T operator()(T a) const { return T(1) / std::sqrt(a); }
};
struct FEx2 {
  template <class T> T operator()(T a) const { return std::exp2(a); }
};
struct FLg2 {
  template <class T> T operator()(T a) const { return std::log2(a); }
};
struct FSin {
  template <class T> T operator()(T a) const { return std::sin(a); }
};
struct FCos {
  template <class T> T operator()(T a) const { return std::cos(a); }
};
struct FTanh {
  template <class T> T operator()(T a) const { return std::tanh(a); }
};
// abs/neg of an f64 NaN: the NaN quieted, its sign unchanged (measured on
// H100: neg.f64 of 0x7ff8000000000000 gives 0x7ff8000000000000).
struct FAbs {
  template <class T> T operator()(T a) const {
    return std::isnan(a) ? quiet(a) : std::fabs(a);
  }
};
struct FNeg {
  template <class T> T operator()(T a) const {
    return std::isnan(a) ? quiet(a) : -a;
  }
};
// PTX min/max: a NaN operand yields the other operand; -0 < +0; two NaNs
// give b's, quieted (measured on H100 for f64).
struct FMin {
  template <class T> T operator()(T a, T b) const {
    if (std::isnan(a))
      return std::isnan(b) ? quiet(b) : b;
    if (std::isnan(b))
      return a;
    if (a == b)
      return std::signbit(a) ? a : b;
    return a < b ? a : b;
  }
};
struct FMax {
  template <class T> T operator()(T a, T b) const {
    if (std::isnan(a))
      return std::isnan(b) ? quiet(b) : b;
    if (std::isnan(b))
      return a;
    if (a == b)
      return std::signbit(a) ? b : a;
    return a > b ? a : b;
  }
};
// copysign d, a, b: b's magnitude with a's sign (PTX operand order); the
// bits are moved as they are, NaN payloads included (measured on H100).
template <class U> void exec_copysign(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<U>(in.a[0]);
  const auto *a = x.lanes<U>(in.a[1]), *b = x.lanes<U>(in.a[2]);
  constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
  for_lanes(m,
            [&](uint32_t l) { d[l] = (U(a[l]) & sign) | (U(b[l]) & ~sign); });
}

// min/max .f32 with .NaN and/or .xorsign.abs (flags: 1 max, 2 .NaN,
// 4 .xorsign.abs, 8 .ftz), as the f16 forms: .NaN makes any NaN operand give
// the canonical NaN; .xorsign.abs compares magnitudes and gives the result
// the exclusive or of the operands' signs (measured on H100, NaN operands
// included: min.xorsign.abs.f32 of NaN and -2 is the 2 with the signs'
// xor).
void exec_minmax_f32(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<float>(in.a[0]);
  const auto *a = x.lanes<float>(in.a[1]), *b = x.lanes<float>(in.a[2]);
  const bool is_max = in.flags & 1, nan_mode = in.flags & 2,
             xorsign = in.flags & 4, ftz = in.flags & 8;
  for_lanes(m, [&](uint32_t l) {
    float fa = as<float>(a[l]), fb = as<float>(b[l]);
    if (ftz) {
      fa = flush(fa);
      fb = flush(fb);
    }
    uint32_t ua = std::bit_cast<uint32_t>(fa), ub = std::bit_cast<uint32_t>(fb);
    bool na = std::isnan(fa), nb = std::isnan(fb);
    if ((na && nb) || (nan_mode && (na || nb))) {
      d[l] = 0x7fffffffu;
      return;
    }
    uint32_t sign = (ua ^ ub) & 0x80000000u;
    if (xorsign) {
      ua &= 0x7fffffffu;
      ub &= 0x7fffffffu;
    }
    uint32_t r =
        is_max
            ? bits(FMax{}(std::bit_cast<float>(ua), std::bit_cast<float>(ub)))
            : bits(FMin{}(std::bit_cast<float>(ua), std::bit_cast<float>(ub)));
    if (xorsign)
      r = (r & 0x7fffffffu) | sign;
    d[l] = r;
  });
}

template <class T, class F, int R, int FS> struct f1x {
  static void run(Exec &x, const Inst &i, uint32_t m) {
    f1<T, F, R, FS>(x, i, m);
  }
};
template <class T, class F, int R, int FS> struct f2x {
  static void run(Exec &x, const Inst &i, uint32_t m) {
    f2<T, F, R, FS>(x, i, m);
  }
};
template <class T, class F, int R, int FS> struct f3x {
  static void run(Exec &x, const Inst &i, uint32_t m) {
    f3<T, F, R, FS>(x, i, m);
  }
};

template <template <class, class, int, int> class Loop, class F, class T, int R>
ExecFn pick_fs(int fs) {
  switch (fs) {
  case 0:
    return &Loop<T, F, R, 0>::run;
  case 1:
    return &Loop<T, F, R, 1>::run;
  case 2:
    return &Loop<T, F, R, 2>::run;
  default:
    return &Loop<T, F, R, 3>::run;
  }
}
template <template <class, class, int, int> class Loop, class F>
ExecFn pick(Ty t, int r, int fs) {
  if (t.code == Ty::F32) {
    switch (r) {
    case 0:
      return pick_fs<Loop, F, float, 0>(fs);
    case 1:
      return pick_fs<Loop, F, float, 1>(fs);
    case 2:
      return pick_fs<Loop, F, float, 2>(fs);
    default:
      return pick_fs<Loop, F, float, 3>(fs);
    }
  }
  if (t.code == Ty::F64) {
    switch (r) {
    case 0:
      return pick_fs<Loop, F, double, 0>(fs);
    case 1:
      return pick_fs<Loop, F, double, 1>(fs);
    case 2:
      return pick_fs<Loop, F, double, 2>(fs);
    default:
      return pick_fs<Loop, F, double, 3>(fs);
    }
  }
  return nullptr;
}

// testp: aux = 0 finite, 1 infinite, 2 number, 3 notanumber, 4 normal,
// 5 subnormal; writes predicate a[0].
template <class T> void exec_testp(Exec &x, const Inst &in, uint32_t m) {
  const auto *a = x.lanes<T>(in.a[1]);
  uint32_t r = 0;
  for_lanes(m, [&](uint32_t l) {
    T v = as<T>(a[l]);
    bool b = false;
    switch (in.aux) {
    case 0:
      b = std::isfinite(v);
      break;
    case 1:
      b = std::isinf(v);
      break;
    case 2:
      b = !std::isnan(v);
      break;
    case 3:
      b = std::isnan(v);
      break;
    case 4: // zero counts as normal (measured on H100: testp.normal.f32
            // of 0x00000000 and 0x80000000 is true)
      b = std::isnormal(v) || v == T(0);
      break;
    case 5:
      b = std::fpclassify(v) == FP_SUBNORMAL;
      break;
    }
    r |= uint32_t(b) << l;
  });
  x.p[in.a[0]] = (x.p[in.a[0]] & ~m) | r;
}

// The f32 .approx forms and div.full: the models of the hardware's MUFU
// sequences (mufu.h). aux = the operation, flags bit 0 = .ftz.
enum ApproxOp : uint32_t {
  kRcpA,
  kSqrtA,
  kRsqrtA,
  kEx2A,
  kLg2A,
  kSinA,
  kCosA,
  kTanhA,
  kDivA,
  kDivFull
};
void exec_approx(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<float>(in.a[0]);
  const auto *a = x.lanes<float>(in.a[1]);
  const auto *b = in.a[2] == kNone ? a : x.lanes<float>(in.a[2]);
  const bool ftz = in.flags & 1;
  for_lanes(m, [&](uint32_t l) {
    const float va = as<float>(a[l]), vb = as<float>(b[l]);
    float r;
    switch (in.aux) {
    case kRcpA:
      r = mufu::rcp_approx(va, ftz);
      break;
    case kSqrtA:
      r = mufu::sqrt_approx(va, ftz);
      break;
    case kRsqrtA:
      r = mufu::rsqrt_approx(va, ftz);
      break;
    case kEx2A:
      r = mufu::ex2_approx(va, ftz);
      break;
    case kLg2A:
      r = mufu::lg2_approx(va, ftz);
      break;
    case kSinA:
      r = mufu::sin_approx(va);
      break;
    case kCosA:
      r = mufu::cos_approx(va);
      break;
    case kTanhA:
      r = mufu::tanh_approx(va);
      break;
    case kDivA:
      r = mufu::div_approx(va, vb, ftz);
      break;
    default:
      r = mufu::div_full(va, vb, ftz);
      break;
    }
    d[l] = bits(r);
  });
}
// rcp/rsqrt .approx.ftz.f64 (mufu.h); aux = 0 rcp, 1 rsqrt.
void exec_approx64(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<double>(in.a[0]);
  const auto *a = x.lanes<double>(in.a[1]);
  for_lanes(m, [&](uint32_t l) {
    const double v = as<double>(a[l]);
    d[l] = bits(in.aux == 0 ? mufu::rcp_approx_ftz64(v)
                            : mufu::rsqrt_approx_ftz64(v));
  });
}

} // namespace

template <bool Ftz> ExecFn pick_contracted(Ty t, int fs, bool np, bool nc) {
  if (np)
    return nc ? pick<f3x, FFmaSigned<Ftz, true, true>>(t, 0, fs)
              : pick<f3x, FFmaSigned<Ftz, true, false>>(t, 0, fs);
  return nc ? pick<f3x, FFmaSigned<Ftz, false, true>>(t, 0, fs)
            : pick<f3x, FFmaSigned<Ftz, false, false>>(t, 0, fs);
}

bool compile_float(Compiler &c, const ptx::Instruction &in) {
  for (const auto &m : in.modifiers)
    if (auto ht = parse_type(m); ht && is_half_type(*ht))
      return compile_half(c, in);
  Mods mods(in);
  const ptx::Op op = in.op;
  if (op == ptx::Op::testp) {
    static constexpr ptx::Mod kKinds[] = {
        ptx::Mod::finite,     ptx::Mod::infinite, ptx::Mod::number,
        ptx::Mod::notanumber, ptx::Mod::normal,   ptx::Mod::subnormal};
    uint32_t kind = kNone;
    for (uint32_t k = 0; k < 6; ++k)
      if (mods.take(kKinds[k]))
        kind = k;
    auto t = mods.take_type();
    if (kind == kNone || !t || (t->code != Ty::F32 && t->code != Ty::F64)) {
      c.unsupported("form of testp");
      return true;
    }
    if (!c.expect_operands(2) || !c.finish(mods))
      return true;
    uint32_t a = c.src(in.operands[1], *t);
    uint32_t p = c.pdst(in.operands[0]);
    Inst &i =
        c.emit(t->code == Ty::F32 ? &exec_testp<float> : &exec_testp<double>);
    i.a[0] = p;
    i.a[1] = a;
    i.aux = kind;
    return true;
  }
  const bool nan_mode = in.has(ptx::Mod::NaN);
  const bool xorsign = in.has(ptx::Mod::xorsign);
  if ((op == ptx::Op::min || op == ptx::Op::max) && (nan_mode || xorsign)) {
    mods.take(ptx::Mod::NaN);
    if (xorsign &&
        !(mods.take(ptx::Mod::xorsign) && mods.take(ptx::Mod::abs))) {
      c.unsupported(".xorsign without .abs");
      return true;
    }
    bool ftz = mods.take(ptx::Mod::ftz);
    auto t = mods.take_type();
    if (!t || t->code != Ty::F32) {
      c.unsupported("type (min/max .NaN/.xorsign.abs take .f32 here)");
      return true;
    }
    if (!c.expect_operands(3) || !c.finish(mods))
      return true;
    uint32_t a = c.src(in.operands[1], *t), b = c.src(in.operands[2], *t);
    uint32_t d = c.dst(in.operands[0]);
    Inst &i = c.emit(&exec_minmax_f32);
    i.a[0] = d;
    i.a[1] = a;
    i.a[2] = b;
    i.flags = (op == ptx::Op::max ? 1 : 0) | (nan_mode ? 2 : 0) |
              (xorsign ? 4 : 0) | (ftz ? 8 : 0);
    return true;
  }
  const ptx::Mod rnd =
      mods.take_any({ptx::Mod::rn, ptx::Mod::rz, ptx::Mod::rm, ptx::Mod::rp});
  bool approx = mods.take(ptx::Mod::approx);
  bool full = mods.take(ptx::Mod::full);
  int fs = (mods.take(ptx::Mod::ftz) ? kFtz : 0) |
           (mods.take(ptx::Mod::sat) ? kSat : 0);
  auto t = mods.take_type();
  if (!t)
    return false; // not a float op after all (integer family reports)
  if (!t->is_float())
    return false;
  if (t->code != Ty::F32 && t->code != Ty::F64) {
    c.unsupported(
        fmt::format("type .{}", t->code == Ty::F16 ? "f16" : "f16x2/bf16"));
    return true;
  }
  int r = rnd == ptx::Mod::rz   ? 1
          : rnd == ptx::Mod::rm ? 2
          : rnd == ptx::Mod::rp ? 3
                                : 0;
  if (t->code == Ty::F64 && fs == kFtz &&
      ((op == ptx::Op::rcp && approx) || op == ptx::Op::rsqrt)) {
    if (!c.expect_operands(2) || !c.finish(mods))
      return true;
    uint32_t s0 = c.src(in.operands[1], *t);
    uint32_t d = c.dst(in.operands[0]);
    Inst &i = c.emit(&exec_approx64);
    i.a[0] = d;
    i.a[1] = s0;
    i.aux = op == ptx::Op::rcp ? 0 : 1;
    return true;
  }
  if (t->code == Ty::F32 &&
      (approx || full || op == ptx::Op::rsqrt || op == ptx::Op::tanh ||
       op == ptx::Op::sin || op == ptx::Op::cos || op == ptx::Op::ex2 ||
       op == ptx::Op::lg2)) {
    static constexpr std::pair<ptx::Op, ApproxOp> approx_ops[] = {
        {ptx::Op::rcp, kRcpA},     {ptx::Op::sqrt, kSqrtA},
        {ptx::Op::rsqrt, kRsqrtA}, {ptx::Op::ex2, kEx2A},
        {ptx::Op::lg2, kLg2A},     {ptx::Op::sin, kSinA},
        {ptx::Op::cos, kCosA},     {ptx::Op::tanh, kTanhA},
        {ptx::Op::div, kDivA}};
    for (auto &[name, code] : approx_ops) {
      if (op != name || (fs & kSat))
        continue;
      const size_t n = code == kDivA ? 2 : 1;
      if (!c.expect_operands(n + 1) || !c.finish(mods))
        return true;
      uint32_t s0 = c.src(in.operands[1], *t);
      uint32_t s1 = n == 2 ? c.src(in.operands[2], *t) : kNone;
      uint32_t d = c.dst(in.operands[0]);
      Inst &i = c.emit(&exec_approx);
      i.a[0] = d;
      i.a[1] = s0;
      i.a[2] = s1;
      i.aux = code == kDivA && full ? kDivFull : code;
      i.flags = (fs & kFtz) ? 1 : 0;
      return true;
    }
  }
  if ((op == ptx::Op::add || op == ptx::Op::sub) && c.contractions &&
      (*c.contractions)[c.cur_index].contracted()) {
    // The assembler fuses this add with the mul that feeds it: one
    // rounding of a * b + c (docs/engine.md "Multiply-add contraction").
    const Contraction &k = (*c.contractions)[c.cur_index];
    const ptx::Instruction &mul = c.ast().body[k.mul];
    if (!c.expect_operands(3) || !c.finish(mods))
      return true;
    uint32_t a = c.src(mul.operands[1], *t), b = c.src(mul.operands[2], *t);
    uint32_t s = c.src(in.operands[k.addend], *t);
    uint32_t d = c.dst(in.operands[0]);
    Inst &i = c.emit(
        (fs & kFtz)
            ? pick_contracted<true>(*t, fs, k.neg_product, k.neg_addend)
            : pick_contracted<false>(*t, fs, k.neg_product, k.neg_addend));
    i.a[0] = d;
    i.a[1] = a;
    i.a[2] = b;
    i.a[3] = s;
    return true;
  }
  ExecFn f = nullptr;
  size_t nsrc = 2;
  const bool f32_rn_plain = t->code == Ty::F32 && r == 0 && fs == 0;
  if (op == ptx::Op::add)
    f = f32_rn_plain ? pick_f32_rn<PAdd>() : pick<f2x, FAdd>(*t, r, fs);
  else if (op == ptx::Op::sub)
    f = f32_rn_plain ? pick_f32_rn<PSub>() : pick<f2x, FSub>(*t, r, fs);
  else if (op == ptx::Op::mul)
    f = f32_rn_plain  ? pick_f32_rn<PMul>()
        : (fs & kFtz) ? pick<f2x, FMulT<true>>(*t, r, fs)
                      : pick<f2x, FMulT<false>>(*t, r, fs);
  else if (op == ptx::Op::div)
    f = pick<f2x, FDiv>(*t, r, fs);
  else if (op == ptx::Op::fma || op == ptx::Op::mad) {
    f = (fs & kFtz) ? pick<f3x, FFmaT<true>>(*t, r, fs)
                    : pick<f3x, FFmaT<false>>(*t, r, fs);
    if (r == 0 && fs == 0 && host_has_fma())
      f = t->code == Ty::F32 ? &fma_hw<float> : &fma_hw<double>;
    if (r == 0 && fs == 0 && host_has_fma() && host_has_avx2() &&
        t->code == Ty::F32)
      f = &fma_hw_avx2;
    nsrc = 3;
  } else if (op == ptx::Op::min)
    f = pick<f2x, FMin>(*t, 0, fs);
  else if (op == ptx::Op::max)
    f = pick<f2x, FMax>(*t, 0, fs);
  else if (op == ptx::Op::copysign)
    f = t->code == Ty::F32 ? &exec_copysign<uint32_t>
                           : &exec_copysign<uint64_t>;
  else {
    nsrc = 1;
    if (op == ptx::Op::rcp)
      f = pick<f1x, FRcp>(*t, r, fs);
    else if (op == ptx::Op::sqrt)
      f = pick<f1x, FSqrt>(*t, r, fs);
    else if (op == ptx::Op::rsqrt)
      f = pick<f1x, FRsqrt>(*t, 0, fs);
    else if (op == ptx::Op::ex2)
      f = pick<f1x, FEx2>(*t, 0, fs);
    else if (op == ptx::Op::lg2)
      f = pick<f1x, FLg2>(*t, 0, fs);
    else if (op == ptx::Op::sin)
      f = pick<f1x, FSin>(*t, 0, fs);
    else if (op == ptx::Op::cos)
      f = pick<f1x, FCos>(*t, 0, fs);
    else if (op == ptx::Op::tanh)
      f = pick<f1x, FTanh>(*t, 0, fs);
    else if (op == ptx::Op::abs)
      f = pick<f1x, FAbs>(*t, 0, fs);
    else if (op == ptx::Op::neg)
      f = pick<f1x, FNeg>(*t, 0, fs);
  }
  (void)approx;
  if (!f) {
    c.unsupported("operation");
    return true;
  }
  if (!c.expect_operands(nsrc + 1) || !c.finish(mods))
    return true;
  uint32_t s[3];
  for (size_t k = 0; k < nsrc; ++k)
    s[k] = c.src(in.operands[k + 1], *t);
  uint32_t d = c.dst(in.operands[0]);
  Inst &i = c.emit(f);
  i.a[0] = d;
  for (size_t k = 0; k < nsrc; ++k)
    i.a[k + 1] = s[k];
  return true;
}

} // namespace bcusim::engine::detail
