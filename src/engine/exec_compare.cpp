// Comparison and selection: setp (every comparison incl. unordered, with
// .and/.or/.xor combining and p|q destinations), set, selp, slct, and the
// predicate logic and/or/xor/not/mov on .pred.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>

#include "compile.h"
#include "float_format.h"

namespace bcusim::engine::detail {

namespace {

enum Cmp : uint32_t {
  EQ,
  NE,
  LT,
  LE,
  GT,
  GE,
  LO,
  LS,
  HI,
  HS,
  EQU,
  NEU,
  LTU,
  LEU,
  GTU,
  GEU,
  NUM,
  NAN_
};

template <class T> inline bool compare(uint32_t op, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    bool un = std::isnan(a) || std::isnan(b);
    switch (op) {
    case EQ:
      return !un && a == b;
    case NE:
      return !un && a != b;
    case LT:
      return !un && a < b;
    case LE:
      return !un && a <= b;
    case GT:
      return !un && a > b;
    case GE:
      return !un && a >= b;
    case EQU:
      return un || a == b;
    case NEU:
      return un || a != b;
    case LTU:
      return un || a < b;
    case LEU:
      return un || a <= b;
    case GTU:
      return un || a > b;
    case GEU:
      return un || a >= b;
    case NUM:
      return !un;
    case NAN_:
      return un;
    default:
      return false;
    }
  } else {
    using U = std::make_unsigned_t<T>;
    switch (op) {
    case EQ:
      return a == b;
    case NE:
      return a != b;
    case LT:
      return a < b;
    case LE:
      return a <= b;
    case GT:
      return a > b;
    case GE:
      return a >= b;
    case LO:
      return U(a) < U(b);
    case LS:
      return U(a) <= U(b);
    case HI:
      return U(a) > U(b);
    case HS:
      return U(a) >= U(b);
    default:
      return false;
    }
  }
}

// Combines a comparison mask with predicate c: aux high byte = bool op
// (0 none, 1 and, 2 or, 3 xor).
inline uint32_t combine(uint32_t boolop, uint32_t r, uint32_t c) {
  switch (boolop) {
  case 1:
    return r & c;
  case 2:
    return r | c;
  case 3:
    return r ^ c;
  default:
    return r;
  }
}

// setp: a[0] = p, a[1] = q (or kNone), a[2] = a, a[3] = b, a[4] = c pred;
// aux = cmp | boolop << 8; flags bit 0: ftz.
// The comparison as a template parameter: one tight loop per (type, op).
template <class T, uint32_t Op>
uint32_t compare_lanes(const Lane<T> *a, const Lane<T> *b, uint32_t m) {
  if (m == kFullMask) {
    // A byte per lane (a loop the compiler vectorizes), then 8 bytes of
    // 0/1 to 8 bits by one multiplication.
    alignas(8) uint8_t c[kWarpSize];
    for (uint32_t l = 0; l < kWarpSize; ++l)
      c[l] = compare<T>(Op, as<T>(a[l]), as<T>(b[l])) ? 1 : 0;
    uint32_t r = 0;
    for (uint32_t k = 0; k < kWarpSize / 8; ++k) {
      uint64_t v;
      std::memcpy(&v, c + 8 * k, 8);
      r |= uint32_t((v * 0x0102040810204080ull) >> 56) << (8 * k);
    }
    return r;
  }
  uint32_t r = 0;
  for_lanes(m, [&](uint32_t l) {
    r |= uint32_t(compare<T>(Op, as<T>(a[l]), as<T>(b[l]))) << l;
  });
  return r;
}

template <class T> void exec_setp(Exec &x, const Inst &in, uint32_t m) {
  const auto *a = x.lanes<T>(in.a[2]), *b = x.lanes<T>(in.a[3]);
  uint32_t op = in.aux & 0xff, boolop = in.aux >> 8;
  uint32_t r = 0;
  if (!(in.flags & 1) && op <= GE) {
    switch (op) {
    case EQ:
      r = compare_lanes<T, EQ>(a, b, m);
      break;
    case NE:
      r = compare_lanes<T, NE>(a, b, m);
      break;
    case LT:
      r = compare_lanes<T, LT>(a, b, m);
      break;
    case LE:
      r = compare_lanes<T, LE>(a, b, m);
      break;
    case GT:
      r = compare_lanes<T, GT>(a, b, m);
      break;
    default:
      r = compare_lanes<T, GE>(a, b, m);
      break;
    }
  } else
    for_lanes(m, [&](uint32_t l) {
      T va = as<T>(a[l]), vb = as<T>(b[l]);
      if constexpr (std::is_floating_point_v<T>)
        if (in.flags & 1) {
          if (std::fpclassify(va) == FP_SUBNORMAL)
            va = std::copysign(T(0), va);
          if (std::fpclassify(vb) == FP_SUBNORMAL)
            vb = std::copysign(T(0), vb);
        }
      r |= uint32_t(compare<T>(op, va, vb)) << l;
    });
  uint32_t cp = in.a[4] != kNone ? x.p[in.a[4]] : 0;
  uint32_t p = combine(boolop, r, cp);
  x.p[in.a[0]] = (x.p[in.a[0]] & ~m) | (p & m);
  if (in.a[1] != kNone) {
    uint32_t q = combine(boolop, ~r, cp);
    x.p[in.a[1]] = (x.p[in.a[1]] & ~m) | (q & m);
  }
}

// set: like setp, into a register: flags bit1: f32 result (1.0f / 0.0f),
// otherwise all ones / 0.
template <class T> void exec_set(Exec &x, const Inst &in, uint32_t m) {
  const auto *a = x.lanes<T>(in.a[2]), *b = x.lanes<T>(in.a[3]);
  auto *d = x.lanes<uint32_t>(in.a[0]);
  uint32_t op = in.aux & 0xff, boolop = in.aux >> 8;
  uint32_t cp = in.a[4] != kNone ? x.p[in.a[4]] : 0;
  for_lanes(m, [&](uint32_t l) {
    uint32_t r = compare<T>(op, as<T>(a[l]), as<T>(b[l])) ? 1u : 0u;
    r = combine(boolop, r, (cp >> l) & 1) & 1;
    d[l] =
        (in.flags & 2) ? (r ? bits(1.0f) : bits(0.0f)) : (r ? 0xffffffffu : 0u);
  });
}

// setp/set on .f16 .f16x2 .bf16 .bf16x2: flags bit0 ftz, bit2 bf16, bit3
// x2. setp x2: p = the lower halves' comparison, q = the upper halves'.
// set: imm = the "true" value of one result element (its "false" is 0);
// an x2 set writes one element per half.
uint32_t half_compare(const Inst &in, uint64_t a, uint64_t b) {
  const FloatFormat &f = (in.flags & 4) ? kBF16 : kF16;
  double va = decode(f, a & 0xffff), vb = decode(f, b & 0xffff);
  if (in.flags & 1) {
    if (va != 0 && std::fabs(va) < ((in.flags & 4) ? 0x1p-126 : 0x1p-14))
      va = 0;
    if (vb != 0 && std::fabs(vb) < ((in.flags & 4) ? 0x1p-126 : 0x1p-14))
      vb = 0;
  }
  return compare<double>(in.aux & 0xff, va, vb) ? 1u : 0u;
}
void exec_setp_half(Exec &x, const Inst &in, uint32_t m) {
  const auto *a = x.lanes<uint32_t>(in.a[2]), *b = x.lanes<uint32_t>(in.a[3]);
  uint32_t boolop = in.aux >> 8;
  uint32_t lo = 0, hi = 0;
  for_lanes(m, [&](uint32_t l) {
    lo |= half_compare(in, a[l], b[l]) << l;
    if (in.flags & 8)
      hi |= half_compare(in, a[l] >> 16, b[l] >> 16) << l;
  });
  uint32_t cp = in.a[4] != kNone ? x.p[in.a[4]] : 0;
  uint32_t p = combine(boolop, lo, cp);
  x.p[in.a[0]] = (x.p[in.a[0]] & ~m) | (p & m);
  if (in.a[1] != kNone) {
    uint32_t q = combine(boolop, (in.flags & 8) ? hi : ~lo, cp);
    x.p[in.a[1]] = (x.p[in.a[1]] & ~m) | (q & m);
  }
}
void exec_set_half(Exec &x, const Inst &in, uint32_t m) {
  const auto *a = x.lanes<uint32_t>(in.a[2]), *b = x.lanes<uint32_t>(in.a[3]);
  auto *d = x.lanes<uint32_t>(in.a[0]);
  uint32_t boolop = in.aux >> 8;
  uint32_t cp = in.a[4] != kNone ? x.p[in.a[4]] : 0;
  const uint64_t yes = uint64_t(in.imm);
  for_lanes(m, [&](uint32_t l) {
    uint32_t c = (cp >> l) & 1;
    uint32_t r = combine(boolop, half_compare(in, a[l], b[l]), c) & 1;
    if (in.flags & 8) {
      uint32_t h =
          combine(boolop, half_compare(in, a[l] >> 16, b[l] >> 16), c) & 1;
      d[l] = (h ? yes << 16 : 0) | (r ? yes : 0);
    } else {
      d[l] = r ? yes : 0;
    }
  });
}

// T: the lane type of the operation's registers.
template <class T> struct Selp {
  static void fn(Exec &x, const Inst &in, uint32_t m) {
    auto *d = x.lanes<T>(in.a[0]);
    const auto *a = x.lanes<T>(in.a[1]), *b = x.lanes<T>(in.a[2]);
    uint32_t c = x.p[in.a[3]];
    for_lanes(m, [&](uint32_t l) { d[l] = ((c >> l) & 1) ? a[l] : b[l]; });
  }
};

// slct: d = c >= 0 ? a : b (c is s32 or f32: flags bit0 = f32).
template <class T> struct Slct {
  static void fn(Exec &x, const Inst &in, uint32_t m) {
    auto *d = x.lanes<T>(in.a[0]);
    const auto *a = x.lanes<T>(in.a[1]), *b = x.lanes<T>(in.a[2]);
    const auto *c = x.lanes<uint32_t>(in.a[3]);
    for_lanes(m, [&](uint32_t l) {
      bool ge =
          (in.flags & 1) ? as<float>(c[l]) >= 0.0f : as<int32_t>(c[l]) >= 0;
      d[l] = ge ? a[l] : b[l];
    });
  }
};

// Predicate logic: aux 0 and, 1 or, 2 xor, 3 not, 4 mov.
void exec_predlogic(Exec &x, const Inst &in, uint32_t m) {
  uint32_t a = x.p[in.a[1]];
  uint32_t b = in.a[2] != kNone ? x.p[in.a[2]] : 0;
  uint32_t r = 0;
  switch (in.aux) {
  case 0:
    r = a & b;
    break;
  case 1:
    r = a | b;
    break;
  case 2:
    r = a ^ b;
    break;
  case 3:
    r = ~a;
    break;
  default:
    r = a;
    break;
  }
  x.p[in.a[0]] = (x.p[in.a[0]] & ~m) | (r & m);
}

// A predicate from a value slot (mov.pred p, %is_explicit_cluster).
template <class S> struct SlotToPred {
  static void fn(Exec &x, const Inst &in, uint32_t m) {
    const auto *a = x.lanes<S>(in.a[1]);
    uint32_t r = 0;
    for_lanes(m, [&](uint32_t l) { r |= uint32_t(a[l] != 0) << l; });
    x.p[in.a[0]] = (x.p[in.a[0]] & ~m) | r;
  }
};

template <template <class> class H> ExecFn by_type(Ty t) {
  switch (t.code) {
  case Ty::B16:
  case Ty::U16:
    return with_avx2<&H<uint16_t>::run>();
  case Ty::S16:
    return with_avx2<&H<int16_t>::run>();
  case Ty::B32:
  case Ty::U32:
    return with_avx2<&H<uint32_t>::run>();
  case Ty::S32:
    return with_avx2<&H<int32_t>::run>();
  case Ty::B64:
  case Ty::U64:
    return with_avx2<&H<uint64_t>::run>();
  case Ty::S64:
    return with_avx2<&H<int64_t>::run>();
  case Ty::F32:
    return with_avx2<&H<float>::run>();
  case Ty::F64:
    return with_avx2<&H<double>::run>();
  default:
    return nullptr;
  }
}
template <class T> struct SetpH {
  static void run(Exec &x, const Inst &i, uint32_t m) { exec_setp<T>(x, i, m); }
};
template <class T> struct SetH {
  static void run(Exec &x, const Inst &i, uint32_t m) { exec_set<T>(x, i, m); }
};

int parse_cmp(Mods &mods) {
  using ptx::Mod;
  // The handlers' comparison codes are the indices of this list.
  static constexpr Mod kCmps[] = {
      Mod::eq,  Mod::ne,  Mod::lt,  Mod::le,  Mod::gt,  Mod::ge,
      Mod::lo,  Mod::ls,  Mod::hi,  Mod::hs,  Mod::equ, Mod::neu,
      Mod::ltu, Mod::leu, Mod::gtu, Mod::geu, Mod::num, Mod::nan};
  for (int k = 0; k < 18; ++k)
    if (mods.take(kCmps[k]))
      return k;
  return -1;
}

} // namespace

bool compile_compare(Compiler &c, const ptx::Instruction &in) {
  const ptx::Op op = in.op;
  const auto &o = in.operands;
  const bool is_pred_type = in.has(ptx::Mod::pred);
  if ((op == ptx::Op::and_ || op == ptx::Op::or_ || op == ptx::Op::xor_ ||
       op == ptx::Op::not_ || op == ptx::Op::mov) &&
      is_pred_type) {
    Mods mods(in);
    mods.take(ptx::Mod::pred);
    bool unary = op == ptx::Op::not_ || op == ptx::Op::mov;
    if (!c.expect_operands(unary ? 2 : 3) || !c.finish(mods))
      return true;
    if (op == ptx::Op::mov && o[1].kind == ptx::Operand::Kind::Special) {
      uint32_t s = c.src(o[1], Ty{Ty::U32});
      uint32_t d = c.pdst(o[0]);
      Inst &i = c.emit(by_width<SlotToPred>(c.width(s, Ty{Ty::U32})));
      i.a[0] = d;
      i.a[1] = s;
      return true;
    }
    uint32_t a = c.psrc(o[1]);
    uint32_t b = unary ? kNone : c.psrc(o[2]);
    uint32_t d = c.pdst(o[0]);
    Inst &i = c.emit(&exec_predlogic);
    i.a[0] = d;
    i.a[1] = a;
    i.a[2] = b;
    i.aux = op == ptx::Op::and_   ? 0
            : op == ptx::Op::or_  ? 1
            : op == ptx::Op::xor_ ? 2
            : op == ptx::Op::not_ ? 3
                                  : 4;
    return true;
  }
  if (op == ptx::Op::setp || op == ptx::Op::set) {
    Mods mods(in);
    int cmp = parse_cmp(mods);
    const ptx::Mod boolop =
        mods.take_any({ptx::Mod::and_, ptx::Mod::or_, ptx::Mod::xor_});
    bool ftz = mods.take(ptx::Mod::ftz);
    std::optional<Ty> dt;
    if (op == ptx::Op::set)
      dt = mods.take_type();
    auto t = mods.take_type();
    if (cmp < 0 || !t) {
      c.error(in.loc,
              fmt::format("'{}' needs a comparison and a type", c.text_of(in)));
      return true;
    }
    const bool half = is_half_type(*t);
    if (half && (t->code == Ty::F16X2 || t->code == Ty::BF16X2) &&
        op == ptx::Op::setp && o[0].kind != ptx::Operand::Kind::Pair) {
      c.error(in.loc, "'setp' on an x2 type needs two predicates 'p|q'");
      return true;
    }
    if (op == ptx::Op::set && !half &&
        (!dt || (dt->code != Ty::U32 && dt->code != Ty::S32 &&
                 dt->code != Ty::B32 && dt->code != Ty::F32))) {
      c.unsupported("destination type of set");
      return true;
    }
    ExecFn f = half ? (op == ptx::Op::setp ? &exec_setp_half : &exec_set_half)
               : op == ptx::Op::setp ? by_type<SetpH>(*t)
                                     : by_type<SetH>(*t);
    if (!f) {
      c.unsupported("type");
      return true;
    }
    size_t want = boolop == ptx::Mod::unknown ? 3 : 4;
    if (!c.expect_operands(want) || !c.finish(mods))
      return true;
    uint32_t a = c.src(o[1], *t), b = c.src(o[2], *t);
    uint32_t cp = boolop == ptx::Mod::unknown ? kNone : c.psrc(o[3]);
    uint32_t p = kNone, q = kNone, d = kNone;
    if (op == ptx::Op::setp) {
      if (o[0].kind == ptx::Operand::Kind::Pair) {
        p = c.pdst(o[0].elems[0]);
        q = c.pdst(o[0].elems[1]);
      } else {
        p = c.pdst(o[0]);
      }
    } else {
      d = c.dst(o[0]);
    }
    Inst &i = c.emit(f);
    i.a[0] = op == ptx::Op::setp ? p : d;
    i.a[1] = q;
    i.a[2] = a;
    i.a[3] = b;
    i.a[4] = cp;
    uint32_t bo = boolop == ptx::Mod::and_   ? 1
                  : boolop == ptx::Mod::or_  ? 2
                  : boolop == ptx::Mod::xor_ ? 3
                                             : 0;
    i.aux = uint32_t(cmp) | (bo << 8);
    i.flags = (ftz ? 1 : 0) | (dt && dt->code == Ty::F32 ? 2 : 0);
    if (half) {
      bool x2 = t->code == Ty::F16X2 || t->code == Ty::BF16X2;
      i.flags = uint8_t((ftz ? 1 : 0) |
                        (t->code == Ty::BF16 || t->code == Ty::BF16X2 ? 4 : 0) |
                        (x2 ? 8 : 0));
      if (dt) {
        switch (dt->code) {
        case Ty::F16:
        case Ty::F16X2:
          i.imm = 0x3c00;
          break;
        case Ty::BF16:
        case Ty::BF16X2:
          i.imm = 0x3f80;
          break;
        case Ty::F32:
          i.imm = 0x3f800000;
          break;
        default:
          i.imm = x2 || dt->bits() == 16 ? 0xffff : 0xffffffff;
        }
      }
    }
    return true;
  }
  if (op == ptx::Op::selp) {
    Mods mods(in);
    auto t = mods.take_type();
    if (!t) {
      c.error(in.loc, "'selp' needs a type");
      return true;
    }
    if (!c.expect_operands(4) || !c.finish(mods))
      return true;
    uint32_t a = c.src(o[1], *t), b = c.src(o[2], *t), p = c.psrc(o[3]);
    uint32_t d = c.dst(o[0]);
    Inst &i = c.emit(by_width<Selp>(width_of(*t)));
    i.a[0] = d;
    i.a[1] = a;
    i.a[2] = b;
    i.a[3] = p;
    return true;
  }
  if (op == ptx::Op::slct) {
    Mods mods(in);
    mods.take(ptx::Mod::ftz);
    auto t = mods.take_type();
    auto ct = mods.take_type();
    if (!t || !ct || (ct->code != Ty::S32 && ct->code != Ty::F32)) {
      c.unsupported("form of slct");
      return true;
    }
    if (!c.expect_operands(4) || !c.finish(mods))
      return true;
    uint32_t a = c.src(o[1], *t), b = c.src(o[2], *t), cc = c.src(o[3], *ct);
    uint32_t d = c.dst(o[0]);
    Inst &i = c.emit(by_width<Slct>(width_of(*t)));
    i.a[0] = d;
    i.a[1] = a;
    i.a[2] = b;
    i.a[3] = cc;
    i.flags = ct->code == Ty::F32 ? 1 : 0;
    return true;
  }
  return false;
}

} // namespace bcusim::engine::detail
