// Data movement and conversion: mov (registers, immediates, symbol
// addresses, special registers, vector pack/unpack), cvt (every integer and
// floating-point pair incl. f16/bf16, rounding .rn/.rz/.rm/.rp and
// .rni/.rzi/.rmi/.rpi, .sat, .ftz), cvta and cvta.to, isspacep.
#include <algorithm>
#include <cfenv>
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "compile.h"

namespace bcusim::engine::detail {

void exec_mov(Exec &x, const Inst &in, uint32_t m) {
  uint64_t *d = x.s(in.a[0]);
  const uint64_t *a = x.s(in.a[1]);
  for_lanes(m, [&](uint32_t l) { d[l] = a[l]; });
}

namespace {

// ---- half precision --------------------------------------------------------
float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31, exp = (h >> 10) & 0x1f,
           man = h & 0x3ff;
  uint32_t f;
  if (exp == 0) {
    if (man == 0) {
      f = sign;
    } else { // subnormal
      float v = std::ldexp(float(man), -24);
      return sign ? -v : v;
    }
  } else if (exp == 31) {
    f = sign | 0x7f800000u | (man << 13);
  } else {
    f = sign | ((exp + 112) << 23) | (man << 13);
  }
  return std::bit_cast<float>(f);
}
// Round-to-nearest-even float -> half (other modes via the double path).
uint16_t float_to_half(float v) {
  uint32_t f = std::bit_cast<uint32_t>(v);
  uint16_t sign = uint16_t((f >> 16) & 0x8000);
  if (std::isnan(v))
    return uint16_t(sign | 0x7e00);
  float a = std::fabs(v);
  if (a >= 65520.0f)
    return uint16_t(sign | 0x7c00);
  if (a < std::ldexp(1.0f, -14)) { // subnormal half
    float q = std::nearbyint(a * std::ldexp(1.0f, 24));
    return uint16_t(sign | uint16_t(q));
  }
  int e;
  std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
  float scale = std::ldexp(1.0f, 11 - e);
  uint32_t q = uint32_t(std::nearbyint(a * scale)); // 11 significant bits
  int exp = e - 1 + 15;
  if (q == 2048) {
    q = 1024;
    ++exp;
  }
  if (exp >= 31)
    return uint16_t(sign | 0x7c00);
  return uint16_t(sign | (exp << 10) | (q & 0x3ff));
}
float bf16_to_float(uint16_t h) {
  return std::bit_cast<float>(uint32_t(h) << 16);
}
uint16_t float_to_bf16(float v) {
  uint32_t f = std::bit_cast<uint32_t>(v);
  if (std::isnan(v))
    return uint16_t((f >> 16) | 0x40);
  uint32_t round = 0x7fff + ((f >> 16) & 1);
  return uint16_t((f + round) >> 16);
}

// ---- cvt -------------------------------------------------------------------
// Inst fields: aux = source type code, flags = destination type code,
// n = rounding (0 none/rn, 1 rz, 2 rm, 3 rp; +4 for the integer forms
// .rni/.rzi/.rmi/.rpi), imm bit0 = sat, bit1 = ftz.
double read_float(uint64_t v, Ty::Code t) {
  switch (t) {
  case Ty::F16:
    return half_to_float(uint16_t(v));
  case Ty::BF16:
    return bf16_to_float(uint16_t(v));
  case Ty::F32:
    return as<float>(v);
  default:
    return as<double>(v);
  }
}

double round_integral(double v, int mode) {
  switch (mode & 3) {
  case 0:
    return std::nearbyint(v); // ties to even (default mode)
  case 1:
    return std::trunc(v);
  case 2:
    return std::floor(v);
  default:
    return std::ceil(v);
  }
}

template <class D> uint64_t float_to_int(double v, int rnd) {
  if (std::isnan(v))
    return 0;
  v = round_integral(v, rnd);
  // PTX: float-to-integer conversions saturate to the destination range.
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

uint64_t convert(uint64_t v, Ty::Code s, Ty::Code d, int rnd, bool sat,
                 bool ftz) {
  Ty st{s}, dt{d};
  int64_t sv = 0;
  uint64_t uv = 0;
  if (!st.is_float()) {
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
    uv = uint64_t(sv);
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
    // integer -> float, rounding mode rnd (0 = rn)
    int old = std::fegetround();
    if (rnd & 3)
      std::fesetround((rnd & 3) == 1   ? FE_TOWARDZERO
                      : (rnd & 3) == 2 ? FE_DOWNWARD
                                       : FE_UPWARD);
    uint64_t r;
    if (d == Ty::F64) {
      volatile double t = st.is_signed() ? double(sv) : double(uint64_t(uv));
      r = bits(double(t));
    } else {
      volatile float t = st.is_signed() ? float(sv) : float(uint64_t(uv));
      float f = t;
      if (sat)
        f = std::isnan(f) ? 0.f : std::clamp(f, 0.f, 1.f);
      r = d == Ty::F32   ? bits(f)
          : d == Ty::F16 ? float_to_half(f)
                         : float_to_bf16(f);
    }
    std::fesetround(old);
    return r;
  }
  double fv = read_float(v, s);
  if (ftz && s == Ty::F32 && std::fpclassify(float(fv)) == FP_SUBNORMAL)
    fv = std::copysign(0.0, fv);
  if (!dt.is_float()) {
    switch (d) {
    case Ty::U8:
      return float_to_int<uint8_t>(fv, rnd);
    case Ty::S8:
      return float_to_int<int8_t>(fv, rnd);
    case Ty::U16:
      return float_to_int<uint16_t>(fv, rnd);
    case Ty::S16:
      return float_to_int<int16_t>(fv, rnd);
    case Ty::U32:
      return float_to_int<uint32_t>(fv, rnd);
    case Ty::S32:
      return float_to_int<int32_t>(fv, rnd);
    case Ty::S64:
      return float_to_int<int64_t>(fv, rnd);
    default:
      return float_to_int<uint64_t>(fv, rnd);
    }
  }
  if (rnd & 4)
    fv = round_integral(fv, rnd);
  auto finish = [&](double r) -> double {
    if (sat)
      r = std::isnan(r) ? 0.0 : std::clamp(r, 0.0, 1.0);
    return r;
  };
  if (d == Ty::F64)
    return bits(finish(fv));
  float f;
  if ((rnd & 4) == 0 && (rnd & 3) && s == Ty::F64) {
    int old = std::fegetround();
    std::fesetround((rnd & 3) == 1   ? FE_TOWARDZERO
                    : (rnd & 3) == 2 ? FE_DOWNWARD
                                     : FE_UPWARD);
    volatile double src = fv;
    volatile float t = float(src);
    f = t;
    std::fesetround(old);
  } else {
    f = float(fv);
  }
  f = float(finish(f));
  if (ftz && std::fpclassify(f) == FP_SUBNORMAL)
    f = std::copysign(0.0f, f);
  if (d == Ty::F32)
    return bits(f);
  if (d == Ty::F16)
    return float_to_half(f);
  return float_to_bf16(f);
}

void exec_cvt(Exec &x, const Inst &in, uint32_t m) {
  uint64_t *d = x.s(in.a[0]);
  const uint64_t *a = x.s(in.a[1]);
  auto s = Ty::Code(in.aux), dt = Ty::Code(in.flags);
  bool sat = in.imm & 1, ftz = in.imm & 2;
  for_lanes(m,
            [&](uint32_t l) { d[l] = convert(a[l], s, dt, in.n, sat, ftz); });
}

// Fast paths for the conversions nvcc emits in address arithmetic.
template <class S, class D>
void exec_cvt_int(Exec &x, const Inst &in, uint32_t m) {
  uint64_t *d = x.s(in.a[0]);
  const uint64_t *a = x.s(in.a[1]);
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
void exec_pack(Exec &x, const Inst &in, uint32_t m) {
  uint64_t *d = x.s(in.a[0]);
  uint32_t w = uint32_t(in.imm);
  uint64_t mask = w == 64 ? ~0ull : ((1ull << w) - 1);
  for_lanes(m, [&](uint32_t l) {
    uint64_t v = 0;
    for (uint32_t k = 0; k < in.n; ++k)
      v |= (x.s(in.a[1 + k])[l] & mask) << (k * w);
    d[l] = v;
  });
}
void exec_unpack(Exec &x, const Inst &in, uint32_t m) {
  const uint64_t *s = x.s(in.a[0]);
  uint32_t w = uint32_t(in.imm);
  uint64_t mask = w == 64 ? ~0ull : ((1ull << w) - 1);
  for_lanes(m, [&](uint32_t l) {
    uint64_t v = s[l];
    for (uint32_t k = 0; k < in.n; ++k)
      if (in.a[1 + k] != kNone)
        x.s(in.a[1 + k])[l] = (v >> (k * w)) & mask;
  });
}

// cvta: imm = the window base to add (to generic) or subtract (.to).
void exec_add_imm(Exec &x, const Inst &in, uint32_t m) {
  uint64_t *d = x.s(in.a[0]);
  const uint64_t *a = x.s(in.a[1]);
  uint64_t k = uint64_t(in.imm);
  if (in.flags & 1) // 32-bit destination
    for_lanes(m, [&](uint32_t l) { d[l] = (a[l] + k) & 0xffffffffu; });
  else
    for_lanes(m, [&](uint32_t l) { d[l] = a[l] + k; });
}

// isspacep: aux = window base, imm = window size (global: everything that
// is not a window).
void exec_isspacep(Exec &x, const Inst &in, uint32_t m) {
  const uint64_t *a = x.s(in.a[1]);
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

uint64_t window_of(const std::string &space, bool &ok) {
  ok = true;
  if (space == "global")
    return 0;
  if (space == "shared" || space == "shared::cta")
    return kSharedWindow;
  if (space == "local")
    return kLocalWindow;
  if (space == "param" || space == "param::entry")
    return kParamWindow;
  if (space == "const")
    return kConstWindow;
  ok = false;
  return 0;
}

} // namespace

bool compile_convert(Compiler &c, const ptx::Instruction &in) {
  const std::string &op = in.opcode;
  const auto &o = in.operands;
  using K = ptx::Operand::Kind;
  if (op == "mov") {
    Mods mods(in.modifiers);
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
        Inst &i = c.emit(&exec_pack);
        i.a[0] = d;
        for (uint32_t k = 0; k < n; ++k)
          i.a[1 + k] = e[k];
        i.n = uint8_t(n);
        i.imm = w;
      } else {
        uint32_t s = c.src(o[1], *t);
        for (uint32_t k = 0; k < n; ++k)
          e[k] = vec.elems[k].kind == K::Sink ? kNone : c.dst(vec.elems[k]);
        Inst &i = c.emit(&exec_unpack);
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
      ExecFn f = special_reader(o[1].name, aux);
      if (!f) {
        c.error(o[1].loc,
                fmt::format("unsupported special register {}", o[1].name));
        return true;
      }
      uint32_t d = c.dst(o[0]);
      Inst &i = c.emit(f);
      i.a[0] = d;
      i.aux = aux;
      return true;
    }
    uint32_t s = c.src(o[1], *t);
    uint32_t d = c.dst(o[0]);
    Inst &i = c.emit(&exec_mov);
    i.a[0] = d;
    i.a[1] = s;
    return true;
  }
  if (op == "cvt") {
    Mods mods(in.modifiers);
    static const char *const rnames[] = {"rn",  "rz",  "rm",  "rp",
                                         "rni", "rzi", "rmi", "rpi"};
    int rnd = 0;
    bool have_rnd = false;
    for (int k = 0; k < 8; ++k)
      if (mods.take(rnames[k])) {
        rnd = k;
        have_rnd = true;
      }
    bool sat = mods.take("sat");
    bool ftz = mods.take("ftz");
    mods.take(
        "relu"); // only meaningful for f16 packs; not emitted by nvcc here
    auto dt = mods.take_type();
    auto st = mods.take_type();
    if (!dt || !st) {
      c.error(in.loc, "'cvt' needs a destination and a source type");
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
    // float -> integer needs an integer rounding mode; default to .rzi when
    // absent would hide a malformed program, but ptxas accepts none for
    // f16 moves; follow PTX: required only for float -> int.
    if (st->is_float() && !dt->is_float() && !have_rnd)
      rnd = 5;
    if (!c.expect_operands(2) || !c.finish(mods))
      return true;
    uint32_t s = c.src(o[1], *st);
    uint32_t d = c.dst(o[0]);
    ExecFn fast = (!sat && !ftz) ? fast_cvt(*dt, *st) : nullptr;
    Inst &i = c.emit(fast ? fast : &exec_cvt);
    i.a[0] = d;
    i.a[1] = s;
    i.aux = st->code;
    i.flags = dt->code;
    i.n = uint8_t(rnd);
    i.imm = (sat ? 1 : 0) | (ftz ? 2 : 0);
    return true;
  }
  if (op == "cvta") {
    Mods mods(in.modifiers);
    bool to = mods.take("to");
    std::string space =
        mods.take_any({"global", "shared", "shared::cta", "local", "param",
                       "param::entry", "const"});
    auto t = mods.take_type();
    if (space.empty() || !t || (t->bits() != 32 && t->bits() != 64)) {
      c.unsupported("form of cvta");
      return true;
    }
    if (!c.expect_operands(2) || !c.finish(mods))
      return true;
    bool ok;
    uint64_t base = window_of(space, ok);
    uint32_t s = c.src(o[1], *t);
    uint32_t d = c.dst(o[0]);
    Inst &i = c.emit(&exec_add_imm);
    i.a[0] = d;
    i.a[1] = s;
    i.imm = to ? -int64_t(base) : int64_t(base);
    i.flags = t->bits() == 32 ? 1 : 0;
    return true;
  }
  if (op == "isspacep") {
    Mods mods(in.modifiers);
    std::string space =
        mods.take_any({"global", "shared", "shared::cta", "local", "param",
                       "param::entry", "const"});
    if (space.empty()) {
      c.unsupported("form of isspacep");
      return true;
    }
    if (!c.expect_operands(2) || !c.finish(mods))
      return true;
    bool ok;
    uint64_t base = window_of(space, ok);
    uint32_t s = c.src(o[1], Ty{Ty::U64});
    uint32_t p = c.pdst(o[0]);
    Inst &i = c.emit(&exec_isspacep);
    i.a[0] = p;
    i.a[1] = s;
    i.flags = space == "global" ? 0 : 1;
    i.target = uint32_t(base >> 40);
    return true;
  }
  return false;
}

} // namespace bcusim::engine::detail
