// Data movement and conversion: mov (registers, immediates, symbol
// addresses, special registers, vector pack/unpack), cvt (every integer and
// floating-point pair incl. f16/bf16, rounding .rn/.rz/.rm/.rp and
// .rni/.rzi/.rmi/.rpi, .sat, .ftz), cvta and cvta.to, isspacep.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "compile.h"
#include "float_format.h"

namespace bcusim::engine::detail {

namespace {

template <class D, class S> struct Mov {
  static void fn(Exec &x, const Inst &in, uint32_t m) {
    auto *d = x.lanes<D>(in.a[0]);
    const auto *a = x.lanes<S>(in.a[1]);
    for_lanes(m, [&](uint32_t l) { d[l] = D(a[l]); });
  }
};

// ---- cvt -------------------------------------------------------------------
// Inst fields: aux = source type code, flags = destination type code,
// n = rounding (0 rn, 1 rz, 2 rm, 3 rp, 4..7 the integer forms
// .rni/.rzi/.rmi/.rpi, 8 rna), imm bit0 = sat, bit1 = ftz, bit2 = relu,
// bit3 = satfinite. The rules are in docs/engine.md "Conversions".
constexpr int kRna = 8;
constexpr int kCvtSat = 1, kCvtFtz = 2, kCvtRelu = 4, kCvtSatfinite = 8;

Round round_of(int rnd) {
  if (rnd == kRna)
    return Round::RNA;
  switch (rnd & 3) {
  case 0:
    return Round::RN;
  case 1:
    return Round::RZ;
  case 2:
    return Round::RM;
  default:
    return Round::RP;
  }
}

const FloatFormat &format_of(Ty::Code t) {
  switch (t) {
  case Ty::F16:
    return kF16;
  case Ty::BF16:
    return kBF16;
  case Ty::F32:
    return kF32;
  default:
    return kF64;
  }
}

double read_float(uint64_t v, Ty::Code t) {
  switch (t) {
  case Ty::F16:
    return decode(kF16, v & 0xffff);
  case Ty::BF16:
    return decode(kBF16, v & 0xffff);
  case Ty::F32:
    return as<float>(v);
  default:
    return as<double>(v);
  }
}

double round_integral(double v, int mode) {
  switch (mode & 3) {
  case 0:
    return std::nearbyint(v); // ties to even (the default mode)
  case 1:
    return std::trunc(v);
  case 2:
    return std::floor(v);
  default:
    return std::ceil(v);
  }
}

// Float -> integer: round to an integral value, then clamp to the
// destination range (PTX: .sat is implied). NaN gives 0, except from .f64
// or into a 64-bit integer, where it gives 1 << (bits - 1).
template <class D> uint64_t float_to_int(double v, int rnd, bool from_f64) {
  if (std::isnan(v)) {
    constexpr int kBits = int(sizeof(D)) * 8;
    if (from_f64 || kBits == 64)
      return uint64_t(1) << (kBits - 1);
    return 0;
  }
  v = round_integral(v, rnd);
  if (v <= double(std::numeric_limits<D>::min()))
    return bits(std::numeric_limits<D>::min());
  if (v >= double(std::numeric_limits<D>::max()))
    return bits(std::numeric_limits<D>::max());
  return bits(static_cast<D>(v));
}

template <class D>
uint64_t int_to_int(int64_t sv, uint64_t uv, bool src_signed, bool sat) {
  if (sat) {
    if (src_signed) {
      if constexpr (std::is_signed_v<D>) {
        sv = std::clamp<int64_t>(sv, std::numeric_limits<D>::min(),
                                 std::numeric_limits<D>::max());
      } else {
        if (sv < 0)
          return 0;
        if (uint64_t(sv) > uint64_t(std::numeric_limits<D>::max()))
          return bits(std::numeric_limits<D>::max());
      }
      return bits(static_cast<D>(sv));
    }
    if (uv > uint64_t(std::numeric_limits<D>::max()))
      return bits(std::numeric_limits<D>::max());
    return bits(static_cast<D>(uv));
  }
  return bits(static_cast<D>(uv));
}

uint64_t flush_f32(uint64_t r) {
  if ((r & 0x7f800000u) == 0 && (r & 0x7fffffu) != 0)
    return r & 0x80000000u;
  return r;
}

// .sat on a floating-point result: clamp to [+0, 1]; NaN and -0 give +0.
uint64_t saturate(const FloatFormat &f, uint64_t r) {
  double v = decode(f, r);
  if (!(v > 0.0))
    return 0;
  if (v > 1.0)
    return encode_double(f, 1.0, {});
  return r;
}

// A NaN converted into f32 or f64 keeps its sign and the high bits of its
// payload, quieted (IEEE 754's recommendation; the f16/bf16 payload moves to
// the top of the wider fraction).
uint64_t nan_into(uint64_t v, Ty::Code s, Ty::Code d) {
  uint32_t f32;
  switch (s) {
  case Ty::F16:
    f32 = (uint32_t(v & 0x8000) << 16) | 0x7f800000u |
          (uint32_t(v & 0x3ff) << 13);
    break;
  case Ty::BF16:
    f32 = uint32_t(v & 0xffff) << 16;
    break;
  case Ty::F32:
    f32 = uint32_t(v);
    break;
  default: {
    uint64_t q = v | (uint64_t(1) << 51);
    if (d == Ty::F64)
      return q;
    f32 = uint32_t(q >> 32 & 0x80000000u) | 0x7f800000u |
          uint32_t((q >> 29) & 0x7fffffu);
    break;
  }
  }
  f32 |= 0x400000u;
  if (d == Ty::F32)
    return f32;
  return (uint64_t(f32 & 0x80000000u) << 32) | 0x7ff0000000000000ull |
         (uint64_t(f32 & 0x7fffffu) << 29);
}

// NaN results of float -> float cvt, as measured on H100 (docs/engine.md
// "Conversions"): from f64 the payload's high bits are kept (quieted) in
// every destination; from f32 into f16/bf16 and from f16 into f32, and
// f32 -> f32 (.rni etc., .ftz), the result is the canonical NaN; bf16 ->
// f32 is the bf16 bit pattern shifted, unquieted; f16/bf16 -> f64 keeps the
// payload (quieted); f32 -> f64 too, except under .ftz, which makes the
// canonical f32 NaN first.
uint64_t nan_result(uint64_t v, Ty::Code s, Ty::Code d, bool ftz) {
  if (s == Ty::F64) {
    const uint64_t frac = v & ((uint64_t(1) << 52) - 1);
    const uint64_t sign = v >> 63;
    switch (d) {
    case Ty::F16:
      return sign << 15 | 0x7e00 | (frac >> 42);
    case Ty::BF16:
      return sign << 15 | 0x7fc0 | (frac >> 45);
    default:
      return nan_into(v, s, d);
    }
  }
  if (d == Ty::F16 || d == Ty::BF16)
    return kCanonicalNaN16;
  if (d == Ty::F32) {
    if (s == Ty::BF16)
      return (v & 0xffff) << 16;
    return 0x7fffffffu;
  }
  // into f64
  if (s == Ty::F32 && ftz)
    return nan_into(0x7fffffffu, s, d);
  return nan_into(v, s, d);
}

uint64_t convert(uint64_t v, Ty::Code s, Ty::Code d, int rnd, int flags) {
  Ty st{s}, dt{d};
  const bool sat = flags & kCvtSat, ftz = flags & kCvtFtz;
  if (!st.is_float()) {
    int64_t sv = 0;
    switch (st.bits()) {
    case 8:
      sv = st.is_signed() ? int8_t(v) : int64_t(uint8_t(v));
      break;
    case 16:
      sv = st.is_signed() ? int16_t(v) : int64_t(uint16_t(v));
      break;
    case 32:
      sv = st.is_signed() ? int32_t(v) : int64_t(uint32_t(v));
      break;
    default:
      sv = int64_t(v);
      break;
    }
    uint64_t uv = uint64_t(sv);
    if (!dt.is_float()) {
      switch (d) {
      case Ty::U8:
        return int_to_int<uint8_t>(sv, uv, st.is_signed(), sat);
      case Ty::S8:
        return int_to_int<int8_t>(sv, uv, st.is_signed(), sat);
      case Ty::U16:
      case Ty::B16:
        return int_to_int<uint16_t>(sv, uv, st.is_signed(), sat);
      case Ty::S16:
        return int_to_int<int16_t>(sv, uv, st.is_signed(), sat);
      case Ty::U32:
      case Ty::B32:
        return int_to_int<uint32_t>(sv, uv, st.is_signed(), sat);
      case Ty::S32:
        return int_to_int<int32_t>(sv, uv, st.is_signed(), sat);
      case Ty::S64:
        return int_to_int<int64_t>(sv, uv, st.is_signed(), sat);
      default:
        return int_to_int<uint64_t>(sv, uv, st.is_signed(), sat);
      }
    }
    // Integer -> float: one exact rounding of the integer's value.
    const bool neg = st.is_signed() && sv < 0;
    const uint64_t mag = neg ? 0 - uv : uv;
    const FloatFormat &f = format_of(d);
    uint64_t r = encode(f, neg, mag, 0, {round_of(rnd), false, false});
    return sat ? saturate(f, r) : r;
  }
  double fv = read_float(v, s);
  // .ftz does not flush the f32 source of cvt.f16.f32 (measured on H100:
  // cvt.rm.ftz.f16.f32 of 0x807fffff gives 0x8001, tests/kernels
  // cvt_corners).
  if (ftz && s == Ty::F32 && d != Ty::F16 && std::fpclassify(fv) != FP_ZERO &&
      std::fabs(fv) < double(std::numeric_limits<float>::min()))
    fv = std::copysign(0.0, fv);
  if (!dt.is_float()) {
    const bool f64 = s == Ty::F64;
    switch (d) {
    case Ty::U8:
      return float_to_int<uint8_t>(fv, rnd, f64);
    case Ty::S8:
      return float_to_int<int8_t>(fv, rnd, f64);
    case Ty::U16:
    case Ty::B16:
      return float_to_int<uint16_t>(fv, rnd, f64);
    case Ty::S16:
      return float_to_int<int16_t>(fv, rnd, f64);
    case Ty::U32:
    case Ty::B32:
      return float_to_int<uint32_t>(fv, rnd, f64);
    case Ty::S32:
      return float_to_int<int32_t>(fv, rnd, f64);
    case Ty::S64:
      return float_to_int<int64_t>(fv, rnd, f64);
    default:
      return float_to_int<uint64_t>(fv, rnd, f64);
    }
  }
  const FloatFormat &f = format_of(d);
  uint64_t r;
  if (std::isnan(fv)) {
    r = nan_result(v, s, d, ftz);
  } else {
    if ((rnd & 4) && rnd != kRna) // .rni etc.: same type, integral value
      fv = round_integral(fv, rnd);
    r = encode_double(
        f, fv,
        {round_of(rnd), (flags & kCvtSatfinite) != 0, (flags & kCvtRelu) != 0});
  }
  if (sat)
    r = saturate(f, r);
  if (ftz && d == Ty::F32)
    r = flush_f32(r);
  return r;
}

// A signed integer result fills its register sign-extended (measured on
// H100: cvt.s8.s32 of 0xffffffff gives 0xffffffff in a 32-bit register),
// as ld.s8/ld.s16 do; unsigned results are zero-extended.
uint64_t extend_result(uint64_t r, Ty::Code d) {
  switch (d) {
  case Ty::S8:
    return uint64_t(int64_t(int8_t(r)));
  case Ty::S16:
    return uint64_t(int64_t(int16_t(r)));
  default:
    return r;
  }
}

// D, S: the lane types of the destination and source registers (PTX lets
// them be wider than the conversion's types).
template <class D, class S> struct Cvt {
  static void fn(Exec &x, const Inst &in, uint32_t m) {
    auto *d = x.lanes<D>(in.a[0]);
    const auto *a = x.lanes<S>(in.a[1]);
    auto s = Ty::Code(in.aux), dt = Ty::Code(in.flags);
    int flags = int(in.imm);
    for_lanes(m, [&](uint32_t l) {
      d[l] = D(extend_result(convert(a[l], s, dt, in.n, flags), dt));
    });
  }
};

// Conversions into the narrow and packed formats: aux = the destination
// element format; flags = the source: 0 f32 (a[1] the upper element's, the
// only one for tf32; a[2] the lower element's), 1 one f16x2 register,
// 2 one bf16x2 register (a[1]); the upper source element goes to the upper
// destination element.
enum : uint32_t {
  kNarrowF16,
  kNarrowBF16,
  kNarrowTF32,
  kNarrowE4M3,
  kNarrowE5M2,
  kNarrowE2M1,
  kNarrowE2M3,
  kNarrowE3M2,
  kNarrowUE8M0,
};
const FloatFormat &narrow_format(uint32_t kind) {
  static const FloatFormat *const f[] = {&kF16,  &kBF16, &kTF32, &kE4M3, &kE5M2,
                                         &kE2M1, &kE2M3, &kE3M2, &kUE8M0};
  return *f[kind];
}
// Bits per destination element.
uint32_t narrow_width(uint32_t kind) {
  switch (kind) {
  case kNarrowF16:
  case kNarrowBF16:
    return 16;
  case kNarrowTF32:
    return 32;
  case kNarrowE2M1:
    return 4;
  default:
    return 8; // the FP6 formats use the low 6 bits of a byte
  }
}

uint64_t to_narrow(uint32_t kind, double v, int rnd, int flags) {
  EncodeOpts o{round_of(rnd), (flags & kCvtSatfinite) != 0,
               (flags & kCvtRelu) != 0};
  if (kind == kNarrowTF32) {
    // tf32: an f32 bit pattern whose 13 low fraction bits are zero; NaN is
    // the canonical f32 NaN.
    if (std::isnan(v))
      return 0x7fffffffu;
    return encode_double(kTF32, v, o) << 13;
  }
  return encode_double(narrow_format(kind), v, o);
}

void exec_cvt_narrow(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<uint32_t>(in.a[0]);
  const auto *hi = x.lanes<uint32_t>(in.a[1]);
  const int flags = int(in.imm);
  const uint32_t w = narrow_width(in.aux);
  if (in.flags != 0) { // one packed f16x2 / bf16x2 source
    const FloatFormat &sf = in.flags == 1 ? kF16 : kBF16;
    for_lanes(m, [&](uint32_t l) {
      double vh = decode(sf, hi[l] >> 16 & 0xffff);
      double vl = decode(sf, hi[l] & 0xffff);
      d[l] = to_narrow(in.aux, vh, in.n, flags) << w |
             to_narrow(in.aux, vl, in.n, flags);
    });
    return;
  }
  if (in.a[2] == kNone) {
    for_lanes(m, [&](uint32_t l) {
      d[l] = to_narrow(in.aux, as<float>(hi[l]), in.n, flags);
      // tf32 from an infinity or NaN (measured on H100): .rna cuts the
      // 13 low bits off (NaN payload and sign kept; 0x7f800001 becomes
      // infinity), and .satfinite then takes one tf32 unit off (infinity
      // becomes the largest finite value); .rn/.rz give 0x7fffe000 for NaN.
      uint32_t b = uint32_t(hi[l]);
      if (in.aux == kNarrowTF32 && (b & 0x7f800000u) == 0x7f800000u) {
        if (in.n == kRna)
          d[l] = (b & ~0x1fffu) - ((flags & kCvtSatfinite) ? 0x2000u : 0u);
        else if (b & 0x7fffffu)
          d[l] = 0x7fffe000u;
      }
    });
    return;
  }
  const auto *lo = x.lanes<uint32_t>(in.a[2]);
  for_lanes(m, [&](uint32_t l) {
    d[l] = to_narrow(in.aux, as<float>(hi[l]), in.n, flags) << w |
           to_narrow(in.aux, as<float>(lo[l]), in.n, flags);
  });
}

// cvt.f16x2.<narrow>x2 / cvt.bf16x2.ue8m0x2: aux = the source element
// format; flags = 1 for a bf16x2 destination; imm bit2 = .relu. Every
// narrow value is exact in the destination.
void exec_cvt_widen(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<uint32_t>(in.a[0]);
  const auto *a = x.lanes<uint32_t>(in.a[1]);
  const uint32_t w = narrow_width(in.aux);
  const uint64_t mask = (uint64_t(1) << w) - 1;
  const FloatFormat &sf = narrow_format(in.aux);
  const FloatFormat &df = in.flags ? kBF16 : kF16;
  EncodeOpts o{Round::RN, false, (in.imm & kCvtRelu) != 0};
  for_lanes(m, [&](uint32_t l) {
    uint64_t h = encode_double(df, decode(sf, a[l] >> w & mask), o);
    uint64_t lo = encode_double(df, decode(sf, a[l] & mask), o);
    d[l] = h << 16 | lo;
  });
}

// Fast paths for the conversions nvcc emits in address arithmetic.
template <class S, class D>
void exec_cvt_int(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<D>(in.a[0]);
  const auto *a = x.lanes<S>(in.a[1]);
  for_lanes(m, [&](uint32_t l) { d[l] = bits(static_cast<D>(as<S>(a[l]))); });
}

ExecFn fast_cvt(Ty d, Ty s) {
  auto is = [](Ty t, Ty::Code c) { return t.code == c; };
  if (is(d, Ty::U64) && is(s, Ty::U32))
    return &exec_cvt_int<uint32_t, uint64_t>;
  if (is(d, Ty::S64) && is(s, Ty::S32))
    return &exec_cvt_int<int32_t, int64_t>;
  if (is(d, Ty::U64) && is(s, Ty::S32))
    return &exec_cvt_int<int32_t, int64_t>;
  if (is(d, Ty::S64) && is(s, Ty::U32))
    return &exec_cvt_int<uint32_t, uint64_t>;
  if ((is(d, Ty::U32) || is(d, Ty::S32)) && (is(s, Ty::U64) || is(s, Ty::S64)))
    return &exec_cvt_int<uint64_t, uint32_t>;
  return nullptr;
}

// Vector pack {a, b, ...} -> d and unpack d -> {a, b, ...}: n elements of
// `imm` bits each.
// D: the lane type of the vector register, E: of the elements' registers.
template <class D, class E> struct Pack {
  static void fn(Exec &x, const Inst &in, uint32_t m) {
    auto *d = x.lanes<D>(in.a[0]);
    uint32_t w = uint32_t(in.imm);
    uint64_t mask = w == 64 ? ~0ull : ((1ull << w) - 1);
    for_lanes(m, [&](uint32_t l) {
      uint64_t v = 0;
      for (uint32_t k = 0; k < in.n; ++k)
        v |= (uint64_t(x.lanes<E>(in.a[1 + k])[l]) & mask) << (k * w);
      d[l] = D(v);
    });
  }
};
template <class E, class S> struct Unpack {
  static void fn(Exec &x, const Inst &in, uint32_t m) {
    const auto *s = x.lanes<S>(in.a[0]);
    uint32_t w = uint32_t(in.imm);
    uint64_t mask = w == 64 ? ~0ull : ((1ull << w) - 1);
    for_lanes(m, [&](uint32_t l) {
      uint64_t v = s[l];
      for (uint32_t k = 0; k < in.n; ++k)
        if (in.a[1 + k] != kNone)
          x.lanes<E>(in.a[1 + k])[l] = E((v >> (k * w)) & mask);
    });
  }
};

// cvta: imm = the window base to add (to generic) or subtract (.to).
template <class D, class S> struct AddImm {
  static void fn(Exec &x, const Inst &in, uint32_t m) {
    auto *d = x.lanes<D>(in.a[0]);
    const auto *a = x.lanes<S>(in.a[1]);
    uint64_t k = uint64_t(in.imm);
    if (in.flags & 1) // 32-bit destination
      for_lanes(m, [&](uint32_t l) { d[l] = D((a[l] + k) & 0xffffffffu); });
    else
      for_lanes(m, [&](uint32_t l) { d[l] = D(a[l] + k); });
  }
};

// isspacep: aux = window base, imm = window size (global: everything that
// is not a window).
template <class S> struct IsSpaceP {
  static void fn(Exec &x, const Inst &in, uint32_t m) {
    const auto *a = x.lanes<S>(in.a[1]);
    uint32_t r = 0;
    for_lanes(m, [&](uint32_t l) {
      uint64_t v = a[l];
      bool in_window = v >= kSharedWindow && v < kConstWindow + kWindowSize;
      bool b = in.flags == 0 ? !in_window
                             : (v >= uint64_t(in.target) << 40 &&
                                v - (uint64_t(in.target) << 40) < kWindowSize);
      r |= uint32_t(b) << l;
    });
    x.p[in.a[0]] = (x.p[in.a[0]] & ~m) | r;
  }
};

uint64_t window_of(ptx::Space space, bool &ok) {
  ok = true;
  switch (space) {
  case ptx::Space::Global:
    return 0;
  case ptx::Space::Shared:
    return kSharedWindow;
  case ptx::Space::Local:
    return kLocalWindow;
  case ptx::Space::Param:
    return kParamWindow;
  case ptx::Space::Const:
    return kConstWindow;
  default:
    ok = false;
    return 0;
  }
}

// The state space of cvta / isspacep: .global, .shared{::cta}, .local,
// .param{::entry} or .const (None: none of them).
ptx::Space take_window_space(Mods &mods) {
  using ptx::Mod;
  return ptx::space_of(
      mods.take_any({Mod::global, Mod::shared, Mod::shared_cta, Mod::local,
                     Mod::param, Mod::param_entry, Mod::const_}));
}

} // namespace

ExecFn mov_fn(uint8_t wd, uint8_t ws) { return by_widths<Mov>(wd, ws); }

bool compile_convert(Compiler &c, const ptx::Instruction &in) {
  const ptx::Op op = in.op;
  const auto &o = in.operands;
  using K = ptx::Operand::Kind;
  if (op == ptx::Op::mov) {
    Mods mods(in);
    auto t = mods.take_type();
    if (!t) {
      c.error(in.loc, "'mov' needs a type");
      return true;
    }
    if (!c.expect_operands(2) || !c.finish(mods))
      return true;
    if (o[1].kind == K::Vector || o[0].kind == K::Vector) {
      bool pack = o[1].kind == K::Vector;
      const auto &vec = pack ? o[1] : o[0];
      uint32_t n = static_cast<uint32_t>(vec.elems.size());
      if (n < 2 || n > 4 || t->bits() % n != 0) {
        c.unsupported("vector form of mov");
        return true;
      }
      uint32_t w = t->bits() / n;
      Ty et{w == 8 ? Ty::B8 : w == 16 ? Ty::B16 : w == 32 ? Ty::B32 : Ty::B64};
      uint32_t e[4];
      if (pack) {
        for (uint32_t k = 0; k < n; ++k)
          e[k] = c.src(vec.elems[k], et);
        uint32_t d = c.dst(o[0]);
        uint8_t ew = c.width(e[0], et);
        for (uint32_t k = 1; k < n; ++k)
          if (c.width(e[k], et) != ew) {
            c.unsupported("vector form of mov with registers of two widths");
            return true;
          }
        Inst &i = c.emit(by_widths<Pack>(c.width(d, *t), ew));
        i.a[0] = d;
        for (uint32_t k = 0; k < n; ++k)
          i.a[1 + k] = e[k];
        i.n = uint8_t(n);
        i.imm = w;
      } else {
        uint32_t s = c.src(o[1], *t);
        for (uint32_t k = 0; k < n; ++k)
          e[k] = vec.elems[k].kind == K::Sink ? kNone : c.dst(vec.elems[k]);
        uint8_t ew = 0;
        for (uint32_t k = 0; k < n; ++k)
          if (e[k] != kNone) {
            if (ew && c.width(e[k], et) != ew) {
              c.unsupported("vector form of mov with registers of two widths");
              return true;
            }
            ew = c.width(e[k], et);
          }
        Inst &i =
            c.emit(by_widths<Unpack>(ew ? ew : width_of(et), c.width(s, *t)));
        i.a[0] = s;
        for (uint32_t k = 0; k < n; ++k)
          i.a[1 + k] = e[k];
        i.n = uint8_t(n);
        i.imm = w;
      }
      return true;
    }
    if (o[1].kind == K::Special) {
      uint32_t aux = 0;
      uint32_t d = c.dst(o[0]);
      ExecFn f = special_reader(o[1].name, aux, c.width(d, *t));
      if (!f) {
        c.error(o[1].loc,
                fmt::format("unsupported special register {}", o[1].name));
        return true;
      }
      Inst &i = c.emit(f);
      i.a[0] = d;
      i.aux = aux;
      return true;
    }
    uint32_t s = c.src(o[1], *t);
    uint32_t d = c.dst(o[0]);
    Inst &i = c.emit(mov_fn(c.width(d, *t), c.width(s, *t)));
    i.a[0] = d;
    i.a[1] = s;
    return true;
  }
  if (op == ptx::Op::cvt) {
    Mods mods(in);
    static constexpr ptx::Mod kRnds[] = {
        ptx::Mod::rn,  ptx::Mod::rz,  ptx::Mod::rm,
        ptx::Mod::rp,  ptx::Mod::rni, ptx::Mod::rzi,
        ptx::Mod::rmi, ptx::Mod::rpi, ptx::Mod::rna};
    int rnd = 0;
    bool have_rnd = false;
    for (int k = 0; k < 9; ++k)
      if (mods.take(kRnds[k])) {
        rnd = k;
        have_rnd = true;
      }
    int flags = (mods.take(ptx::Mod::sat) ? kCvtSat : 0) |
                (mods.take(ptx::Mod::ftz) ? kCvtFtz : 0) |
                (mods.take(ptx::Mod::relu) ? kCvtRelu : 0) |
                (mods.take(ptx::Mod::satfinite) ? kCvtSatfinite : 0);
    // The narrow packed types are cvt's own (in written order).
    static constexpr ptx::Mod kNarrow[] = {ptx::Mod::e4m3x2, ptx::Mod::e5m2x2,
                                           ptx::Mod::e2m1x2, ptx::Mod::e2m3x2,
                                           ptx::Mod::e3m2x2, ptx::Mod::ue8m0x2};
    int narrow_dst = -1, narrow_src = -1;
    for (size_t j = 0; j < in.mods.size(); ++j)
      for (int k = 0; k < 6; ++k)
        if (in.mods[j] == kNarrow[k]) {
          bool dst_first =
              narrow_dst < 0 && narrow_src < 0 &&
              !std::any_of(in.modifiers.begin(), in.modifiers.begin() + j,
                           [](const std::string &t) {
                             return parse_type(t).has_value();
                           });
          (dst_first ? narrow_dst : narrow_src) = k;
          mods.take_at(j);
        }
    if (narrow_dst >= 0 || narrow_src >= 0) {
      auto other = mods.take_type();
      if (!c.finish(mods))
        return true;
      if (narrow_dst >= 0 && other &&
          (other->code == Ty::F32 || other->code == Ty::F16X2 ||
           other->code == Ty::BF16X2)) {
        bool pair = other->code == Ty::F32;
        if (!c.expect_operands(pair ? 3 : 2))
          return true;
        uint32_t hi = c.src(o[1], *other);
        uint32_t lo = pair ? c.src(o[2], *other) : kNone;
        uint32_t d = c.dst(o[0]);
        Inst &i = c.emit(&exec_cvt_narrow);
        i.a[0] = d;
        i.a[1] = hi;
        i.a[2] = lo;
        i.aux = kNarrowE4M3 + uint32_t(narrow_dst);
        i.flags = other->code == Ty::F32 ? 0 : other->code == Ty::F16X2 ? 1 : 2;
        i.n = uint8_t(rnd);
        i.imm = flags;
        return true;
      }
      if (narrow_src >= 0 && other &&
          (other->code == Ty::F16X2 || other->code == Ty::BF16X2)) {
        if (!c.expect_operands(2))
          return true;
        uint32_t s = c.src(o[1], Ty{Ty::B16});
        uint32_t d = c.dst(o[0]);
        Inst &i = c.emit(&exec_cvt_widen);
        i.a[0] = d;
        i.a[1] = s;
        i.aux = kNarrowE4M3 + uint32_t(narrow_src);
        i.flags = other->code == Ty::BF16X2 ? 1 : 0;
        i.imm = flags;
        return true;
      }
      c.unsupported("conversion type");
      return true;
    }
    auto dt = mods.take_type();
    auto st = mods.take_type();
    if (!dt || !st) {
      c.error(in.loc, "'cvt' needs a destination and a source type");
      return true;
    }
    // Packed and tf32 destinations from f32: cvt.f16x2.f32 d, a, b (a in
    // the upper half), cvt.bf16x2.f32, cvt.tf32.f32.
    if ((dt->code == Ty::F16X2 || dt->code == Ty::BF16X2 ||
         dt->code == Ty::TF32) &&
        st->code == Ty::F32) {
      bool pair = dt->code != Ty::TF32;
      if (!c.expect_operands(pair ? 3 : 2) || !c.finish(mods))
        return true;
      uint32_t hi = c.src(o[1], *st);
      uint32_t lo = pair ? c.src(o[2], *st) : kNone;
      uint32_t d = c.dst(o[0]);
      Inst &i = c.emit(&exec_cvt_narrow);
      i.a[0] = d;
      i.a[1] = hi;
      i.a[2] = lo;
      i.aux = dt->code == Ty::F16X2    ? kNarrowF16
              : dt->code == Ty::BF16X2 ? kNarrowBF16
                                       : kNarrowTF32;
      i.n = uint8_t(rnd);
      i.imm = flags;
      return true;
    }
    auto ok_type = [](Ty t) {
      return t.code != Ty::PRED && t.code != Ty::B128 && t.code != Ty::F16X2 &&
             t.code != Ty::BF16X2 && t.code != Ty::TF32;
    };
    if (!ok_type(*dt) || !ok_type(*st)) {
      c.unsupported("conversion type");
      return true;
    }
    // Float -> integer without a rounding modifier (ptxas requires one):
    // .rzi, what C's conversion does.
    if (st->is_float() && !dt->is_float() && !have_rnd)
      rnd = 5;
    if (!c.expect_operands(2) || !c.finish(mods))
      return true;
    uint32_t s = c.src(o[1], *st);
    uint32_t d = c.dst(o[0]);
    const uint8_t wd = c.width(d, *dt), ws = c.width(s, *st);
    ExecFn fast = flags == 0 && wd == width_of(*dt) && ws == width_of(*st)
                      ? fast_cvt(*dt, *st)
                      : nullptr;
    Inst &i = c.emit(fast ? fast : by_widths<Cvt>(wd, ws));
    i.a[0] = d;
    i.a[1] = s;
    i.aux = st->code;
    i.flags = dt->code;
    i.n = uint8_t(rnd);
    i.imm = flags;
    return true;
  }
  if (op == ptx::Op::cvta) {
    Mods mods(in);
    bool to = mods.take(ptx::Mod::to);
    const ptx::Space space = take_window_space(mods);
    auto t = mods.take_type();
    if (space == ptx::Space::None || !t ||
        (t->bits() != 32 && t->bits() != 64)) {
      c.unsupported("form of cvta");
      return true;
    }
    if (!c.expect_operands(2) || !c.finish(mods))
      return true;
    bool ok;
    uint64_t base = window_of(space, ok);
    uint32_t s = c.src(o[1], *t);
    uint32_t d = c.dst(o[0]);
    Inst &i = c.emit(by_widths<AddImm>(c.width(d, *t), c.width(s, *t)));
    i.a[0] = d;
    i.a[1] = s;
    i.imm = to ? -int64_t(base) : int64_t(base);
    i.flags = t->bits() == 32 ? 1 : 0;
    return true;
  }
  if (op == ptx::Op::isspacep) {
    Mods mods(in);
    const ptx::Space space = take_window_space(mods);
    if (space == ptx::Space::None) {
      c.unsupported("form of isspacep");
      return true;
    }
    if (!c.expect_operands(2) || !c.finish(mods))
      return true;
    bool ok;
    uint64_t base = window_of(space, ok);
    uint32_t s = c.src(o[1], Ty{Ty::U64});
    uint32_t p = c.pdst(o[0]);
    Inst &i = c.emit(by_width<IsSpaceP>(c.width(s, Ty{Ty::U64})));
    i.a[0] = p;
    i.a[1] = s;
    i.flags = space == ptx::Space::Global ? 0 : 1;
    i.target = uint32_t(base >> 40);
    return true;
  }
  return false;
}

} // namespace bcusim::engine::detail
