// Integer arithmetic and logic: add sub mul mad (lo/hi/wide, 24-bit), div
// rem min max abs neg sad, shl shr shf, and or xor not cnot lop3, popc clz
// brev bfe bfi prmt dp4a, and the carry chain (add.cc/addc/sub.cc/subc/
// mad.cc/madc). Arithmetic wraps (computed on unsigned 64-bit values).
#include <algorithm>
#include <fmt/format.h>

#include "compile.h"

namespace bcusim::engine::detail {

namespace {

// ---- generic lane loops ----------------------------------------------------
template <class T, class F> void op1(Exec &x, const Inst &in, uint32_t m) {
  using R = decltype(F{}(T{})); // the result: T, or u32 (popc, clz)
  auto *d = x.lanes<R>(in.a[0]);
  const auto *a = x.lanes<T>(in.a[1]);
  for_lanes(m, [&](uint32_t l) { d[l] = bits(F{}(as<T>(a[l]))); });
}
template <class T, class F> void op2(Exec &x, const Inst &in, uint32_t m) {
  using R = decltype(F{}(T{}, T{})); // the result: T, or twice as wide
  auto *d = x.lanes<R>(in.a[0]);
  const auto *a = x.lanes<T>(in.a[1]);
  const auto *b = x.lanes<T>(in.a[2]);
  for_lanes(m, [&](uint32_t l) { d[l] = bits(F{}(as<T>(a[l]), as<T>(b[l]))); });
}
template <class T, class F> void op3(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<T>(in.a[0]);
  const auto *a = x.lanes<T>(in.a[1]);
  const auto *b = x.lanes<T>(in.a[2]);
  const auto *c = x.lanes<T>(in.a[3]);
  for_lanes(m, [&](uint32_t l) {
    d[l] = bits(F{}(as<T>(a[l]), as<T>(b[l]), as<T>(c[l])));
  });
}
// Shifts: the amount is always a u32 operand.
template <class T, class F> void opshift(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<T>(in.a[0]);
  const auto *a = x.lanes<T>(in.a[1]);
  const auto *b = x.lanes<uint32_t>(in.a[2]);
  for_lanes(m, [&](uint32_t l) {
    d[l] = bits(F{}(as<T>(a[l]), static_cast<uint32_t>(b[l])));
  });
}

template <template <class> class Loop, class F> ExecFn by_int(Ty t) {
  switch (t.code) {
  case Ty::U8:
  case Ty::B8:
    return with_avx2<&Loop<uint8_t>::template run<F>>();
  case Ty::S8:
    return with_avx2<&Loop<int8_t>::template run<F>>();
  case Ty::U16:
  case Ty::B16:
    return with_avx2<&Loop<uint16_t>::template run<F>>();
  case Ty::S16:
    return with_avx2<&Loop<int16_t>::template run<F>>();
  case Ty::U32:
  case Ty::B32:
    return with_avx2<&Loop<uint32_t>::template run<F>>();
  case Ty::S32:
    return with_avx2<&Loop<int32_t>::template run<F>>();
  case Ty::U64:
  case Ty::B64:
    return with_avx2<&Loop<uint64_t>::template run<F>>();
  case Ty::S64:
    return with_avx2<&Loop<int64_t>::template run<F>>();
  default:
    return nullptr;
  }
}
template <class T> struct L1 {
  template <class F> static void run(Exec &x, const Inst &i, uint32_t m) {
    op1<T, F>(x, i, m);
  }
};
template <class T> struct L2 {
  template <class F> static void run(Exec &x, const Inst &i, uint32_t m) {
    op2<T, F>(x, i, m);
  }
};
template <class T> struct L3 {
  template <class F> static void run(Exec &x, const Inst &i, uint32_t m) {
    op3<T, F>(x, i, m);
  }
};

template <class T> using U = std::make_unsigned_t<T>;
template <class T> constexpr uint32_t width = sizeof(T) * 8;

// ---- operations ------------------------------------------------------------
struct Add {
  template <class T> T operator()(T a, T b) const {
    return T(uint64_t(a) + uint64_t(b));
  }
};
struct Sub {
  template <class T> T operator()(T a, T b) const {
    return T(uint64_t(a) - uint64_t(b));
  }
};
struct MulLo {
  template <class T> T operator()(T a, T b) const {
    return T(uint64_t(a) * uint64_t(b));
  }
};
struct MulHi {
  template <class T> T operator()(T a, T b) const {
    if constexpr (sizeof(T) == 8) {
      using W =
          std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
      return T(static_cast<W>(a) * static_cast<W>(b) >> 64);
    } else {
      using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
      return T(static_cast<W>(a) * static_cast<W>(b) >> width<T>);
    }
  }
};
template <class T>
using Wide = std::conditional_t<
    sizeof(T) == 2, std::conditional_t<std::is_signed_v<T>, int32_t, uint32_t>,
    std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;
struct MulWide {
  template <class T> Wide<T> operator()(T a, T b) const {
    return Wide<T>(uint64_t(int64_t(a)) * uint64_t(int64_t(b)));
  }
};
struct MadLo {
  template <class T> T operator()(T a, T b, T c) const {
    return T(uint64_t(a) * uint64_t(b) + uint64_t(c));
  }
};
struct MadHi {
  template <class T> T operator()(T a, T b, T c) const {
    return T(uint64_t(MulHi{}(a, b)) + uint64_t(c));
  }
};
struct Min {
  template <class T> T operator()(T a, T b) const { return a < b ? a : b; }
};
struct Max {
  template <class T> T operator()(T a, T b) const { return a > b ? a : b; }
};
struct And {
  template <class T> T operator()(T a, T b) const { return a & b; }
};
struct Or {
  template <class T> T operator()(T a, T b) const { return a | b; }
};
struct Xor {
  template <class T> T operator()(T a, T b) const { return a ^ b; }
};
struct Not {
  template <class T> T operator()(T a) const { return T(~a); }
};
struct CNot {
  template <class T> T operator()(T a) const { return T(a == 0 ? 1 : 0); }
};
struct Neg {
  template <class T> T operator()(T a) const { return T(0 - uint64_t(a)); }
};
struct Abs {
  template <class T> T operator()(T a) const {
    return a < 0 ? T(0 - uint64_t(a)) : a;
  }
};
// Division by zero: PTX leaves the result unspecified; bcusim gives all
// ones for both quotient and remainder, as measured on H100, and
// INT_MIN / -1 = INT_MIN (docs/engine.md "Decisions").
struct Div {
  template <class T> T operator()(T a, T b) const {
    if (b == 0)
      return T(~U<T>(0));
    if constexpr (std::is_signed_v<T>)
      if (b == T(-1))
        return T(0 - uint64_t(a));
    return a / b;
  }
};
struct Rem {
  template <class T> T operator()(T a, T b) const {
    if (b == 0)
      return T(~U<T>(0));
    if constexpr (std::is_signed_v<T>)
      if (b == T(-1))
        return 0;
    return a % b;
  }
};
struct Shl {
  template <class T> T operator()(T a, uint32_t n) const {
    return n >= width<T> ? T(0) : T(U<T>(a) << n);
  }
};
struct Shr {
  template <class T> T operator()(T a, uint32_t n) const {
    if constexpr (std::is_signed_v<T>)
      return a >> (n >= width<T> ? width<T> - 1 : n);
    else
      return n >= width<T> ? T(0) : T(a >> n);
  }
};
struct Popc {
  template <class T> uint32_t operator()(T a) const {
    return std::popcount(U<T>(a));
  }
};
struct Clz {
  template <class T> uint32_t operator()(T a) const {
    return std::countl_zero(U<T>(a));
  }
};
struct Brev {
  template <class T> T operator()(T a) const {
    U<T> v = U<T>(a), r = 0;
    for (uint32_t i = 0; i < width<T>; ++i)
      r |= U<T>((v >> i) & 1) << (width<T> - 1 - i);
    return T(r);
  }
};
struct Sad {
  template <class T> T operator()(T a, T b, T c) const {
    return T(uint64_t(c) + uint64_t(a < b ? uint64_t(b) - uint64_t(a)
                                          : uint64_t(a) - uint64_t(b)));
  }
};
// 24-bit multiplies: operands are the low 24 bits (sign-extended for .s32).
template <class T> int64_t low24(T a) {
  if constexpr (std::is_signed_v<T>)
    return int64_t(int32_t(uint32_t(a) << 8) >> 8);
  else
    return int64_t(uint32_t(a) & 0xffffff);
}
struct Mul24Lo {
  template <class T> T operator()(T a, T b) const {
    return T(uint64_t(low24(a) * low24(b)));
  }
};
struct Mul24Hi {
  template <class T> T operator()(T a, T b) const {
    return T(uint64_t(low24(a) * low24(b)) >> 16);
  }
};
struct Mad24Lo {
  template <class T> T operator()(T a, T b, T c) const {
    return T(uint64_t(low24(a) * low24(b)) + uint64_t(c));
  }
};

// mad24.hi: bits 47..16 of the 48-bit product plus c; .sat (only .s32)
// clamps the sum to the s32 range.
struct Mad24Hi {
  template <class T> T operator()(T a, T b, T c) const {
    return T((uint64_t(low24(a) * low24(b)) >> 16) + uint64_t(c));
  }
};
struct Mad24HiSat {
  int32_t operator()(int32_t a, int32_t b, int32_t c) const {
    int64_t r = ((low24(a) * low24(b)) >> 16) + c;
    return int32_t(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX));
  }
};
// mad.hi.sat.s32: the high half of the product plus c, clamped to s32.
struct MadHiSat {
  int32_t operator()(int32_t a, int32_t b, int32_t c) const {
    int64_t r = ((int64_t(a) * b) >> 32) + c;
    return int32_t(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX));
  }
};
// min.relu / max.relu (.s32): the result, or 0 when it is negative.
struct MinRelu {
  int32_t operator()(int32_t a, int32_t b) const {
    return std::max(std::min(a, b), 0);
  }
};
struct MaxRelu {
  int32_t operator()(int32_t a, int32_t b) const {
    return std::max(std::max(a, b), 0);
  }
};

// add/min/max on .u16x2/.s16x2: each half-word on its own. aux: 0 add,
// 2 min, 3 max; flags bit0 = signed, bit1 = .relu (min/max .s16x2).
void exec_x2(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<uint32_t>(in.a[0]);
  const auto *a = x.lanes<uint32_t>(in.a[1]), *b = x.lanes<uint32_t>(in.a[2]);
  const bool sgn = in.flags & 1, relu = in.flags & 2;
  for_lanes(m, [&](uint32_t l) {
    uint32_t r = 0;
    for (uint32_t h = 0; h < 2; ++h) {
      uint32_t ua = uint32_t(a[l] >> (16 * h)) & 0xffff,
               ub = uint32_t(b[l] >> (16 * h)) & 0xffff;
      int32_t va = sgn ? int16_t(ua) : int32_t(ua),
              vb = sgn ? int16_t(ub) : int32_t(ub);
      int32_t v = in.aux == 0   ? va + vb
                  : in.aux == 2 ? std::min(va, vb)
                                : std::max(va, vb);
      if (relu)
        v = std::max(v, 0);
      r |= (uint32_t(v) & 0xffff) << (16 * h);
    }
    d[l] = r;
  });
}

// mul.wide / mad.wide: the destination is twice as wide.
template <class T> void mul_wide(Exec &x, const Inst &in, uint32_t m) {
  op2<T, MulWide>(x, in, m);
}
template <class T> void mad_wide(Exec &x, const Inst &in, uint32_t m) {
  using W = Wide<T>;
  auto *d = x.lanes<W>(in.a[0]);
  const auto *a = x.lanes<T>(in.a[1]), *b = x.lanes<T>(in.a[2]);
  const auto *c = x.lanes<W>(in.a[3]);
  for_lanes(m, [&](uint32_t l) {
    W w = MulWide{}(as<T>(a[l]), as<T>(b[l]));
    d[l] = bits(W(uint64_t(w) + uint64_t(as<W>(c[l]))));
  });
}

// add.sat.s32 / sub.sat.s32: clamp to the s32 range.
template <bool IsSub> void sat_s32(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<int32_t>(in.a[0]);
  const auto *a = x.lanes<int32_t>(in.a[1]), *b = x.lanes<int32_t>(in.a[2]);
  for_lanes(m, [&](uint32_t l) {
    int64_t r = IsSub ? int64_t(as<int32_t>(a[l])) - as<int32_t>(b[l])
                      : int64_t(as<int32_t>(a[l])) + as<int32_t>(b[l]);
    r = std::clamp<int64_t>(r, INT32_MIN, INT32_MAX);
    d[l] = bits(int32_t(r));
  });
}

// Carry chain: the carry flag is one predicate (Program::cc_pred). For
// subtraction it holds the borrow (PTX: subc computes a - (b + CC.CF)).
// flags bit 0: write CC, bit 1: read CC; aux: 0 add, 1 sub, 2 mad.lo, 3 mad.hi
template <class T> void carry_op(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<T>(in.a[0]);
  const auto *a = x.lanes<T>(in.a[1]), *b = x.lanes<T>(in.a[2]);
  const auto *c = in.a[3] != kNone ? x.lanes<T>(in.a[3]) : nullptr;
  uint32_t &cc = x.p[in.target];
  uint32_t out = cc;
  using UT = U<T>;
  for_lanes(m, [&](uint32_t l) {
    UT cin = (in.flags & 2) ? ((cc >> l) & 1) : 0;
    UT va = UT(a[l]), vb = UT(b[l]), r;
    bool cout;
    if (in.aux == 1) {
      r = UT(va - vb - cin);
      cout = (static_cast<unsigned __int128>(vb) + cin) > va;
    } else {
      UT addend = va;
      if (in.aux == 2)
        addend = UT(MulLo{}(va, vb));
      else if (in.aux == 3)
        addend = UT(MulHi{}(T(va), T(vb)));
      UT other = in.aux >= 2 ? UT(c[l]) : vb;
      unsigned __int128 wide =
          static_cast<unsigned __int128>(addend) + other + cin;
      r = UT(wide);
      cout = (wide >> width<T>) != 0;
    }
    d[l] = bits(r);
    out = (out & ~(1u << l)) | (uint32_t(cout) << l);
  });
  if (in.flags & 1)
    cc = out;
}

// 32-bit bfe/bfi take position and length modulo 256 (PTX). The 64-bit
// forms are shifts and masks on the H100 (measured: bfe.u64 with length
// 256 extracts every bit): a position of 64 or more shifts everything out
// (sign bits for .s64), a length of 64 or more is the whole register; for
// .s64 the sign is bit len-1 of the shifted value.
uint64_t shl64(uint64_t v, uint64_t n) { return n >= 64 ? 0 : v << n; }
uint64_t mask64(uint64_t len) { return shl64(1, len) - 1; }

// T: the lane type of d and a (b and c are u32).
template <class T> struct Bfe {
  static void fn(Exec &x, const Inst &in, uint32_t m) {
    // flags: bit0 signed, bit1 64-bit
    auto *d = x.lanes<T>(in.a[0]);
    const auto *a = x.lanes<T>(in.a[1]);
    const auto *b = x.lanes<uint32_t>(in.a[2]), *c = x.lanes<uint32_t>(in.a[3]);
    bool sgn = in.flags & 1;
    if (in.flags & 2) {
      for_lanes(m, [&](uint32_t l) {
        uint64_t pos = uint32_t(b[l]), len = uint32_t(c[l]);
        uint64_t mask = mask64(len);
        uint64_t t =
            sgn ? uint64_t(int64_t(a[l]) >> std::min<uint64_t>(pos, 63))
                : (pos >= 64 ? 0 : uint64_t(a[l]) >> pos);
        t &= mask;
        if (sgn && len >= 1 && len <= 64 && ((t >> (len - 1)) & 1))
          t |= ~mask;
        d[l] = t;
      });
      return;
    }
    for_lanes(m, [&](uint32_t l) {
      uint32_t pos = b[l] & 0xff, len = c[l] & 0xff;
      uint64_t v = a[l] & 0xffffffffu;
      uint64_t sbit = 0;
      if (sgn && len > 0)
        sbit = (v >> std::min(pos + len - 1, 31u)) & 1;
      uint64_t r = 0;
      for (uint32_t i = 0; i <= 31; ++i) {
        uint64_t bit = (i < len && pos + i <= 31) ? (v >> (pos + i)) & 1 : sbit;
        r |= bit << i;
      }
      d[l] = r & 0xffffffffu;
    });
  }
};

// T: the lane type of d, a and b (c and e are u32).
template <class T> struct Bfi {
  static void fn(Exec &x, const Inst &in, uint32_t m) {
    auto *d = x.lanes<T>(in.a[0]);
    const auto *a = x.lanes<T>(in.a[1]), *b = x.lanes<T>(in.a[2]);
    const auto *c = x.lanes<uint32_t>(in.a[3]), *e = x.lanes<uint32_t>(in.a[4]);
    if (in.flags & 2) {
      for_lanes(m, [&](uint32_t l) {
        uint64_t pos = uint32_t(c[l]), mask = mask64(uint32_t(e[l]));
        d[l] = shl64(a[l] & mask, pos) | (b[l] & ~shl64(mask, pos));
      });
      return;
    }
    for_lanes(m, [&](uint32_t l) {
      uint32_t pos = c[l] & 0xff, len = e[l] & 0xff;
      uint64_t f = b[l];
      for (uint32_t i = 0; i < len && pos + i <= 31; ++i) {
        uint64_t bit = (a[l] >> i) & 1;
        f = (f & ~(1ull << (pos + i))) | (bit << (pos + i));
      }
      d[l] = f & 0xffffffffu;
    });
  }
};

// prmt: aux = mode (0 generic, 1 f4e, 2 b4e, 3 rc8, 4 ecl, 5 ecr, 6 rc16).
void exec_prmt(Exec &x, const Inst &in, uint32_t m) {
  static const uint8_t modes[6][4][4] = {
      // d.b0..d.b3 for selector 0..3
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}, // f4e
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}}, // b4e
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, // rc8
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}}, // ecl
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}, // ecr
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}, // rc16
  };
  auto *d = x.lanes<uint32_t>(in.a[0]);
  const auto *a = x.lanes<uint32_t>(in.a[1]), *b = x.lanes<uint32_t>(in.a[2]),
             *c = x.lanes<uint32_t>(in.a[3]);
  for_lanes(m, [&](uint32_t l) {
    uint64_t src = (a[l] & 0xffffffffu) | (uint64_t(b[l]) << 32);
    uint32_t sel = static_cast<uint32_t>(c[l]);
    uint32_t r = 0;
    for (uint32_t n = 0; n < 4; ++n) {
      uint32_t byte;
      if (in.aux == 0) {
        uint32_t s = (sel >> (4 * n)) & 0xf;
        byte = (src >> (8 * (s & 7))) & 0xff;
        if (s & 8)
          byte = (byte & 0x80) ? 0xff : 0;
      } else {
        byte = (src >> (8 * modes[in.aux - 1][sel & 3][n])) & 0xff;
      }
      r |= byte << (8 * n);
    }
    d[l] = r;
  });
}

void exec_lop3(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<uint32_t>(in.a[0]);
  const auto *a = x.lanes<uint32_t>(in.a[1]), *b = x.lanes<uint32_t>(in.a[2]),
             *c = x.lanes<uint32_t>(in.a[3]), *lut = x.lanes<uint32_t>(in.a[4]);
  for_lanes(m, [&](uint32_t l) {
    uint32_t va = uint32_t(a[l]), vb = uint32_t(b[l]), vc = uint32_t(c[l]);
    uint32_t t = uint32_t(lut[l]) & 0xff, r = 0;
    for (uint32_t i = 0; i < 8; ++i)
      if (t & (1u << i))
        r |= ((i & 4) ? va : ~va) & ((i & 2) ? vb : ~vb) & ((i & 1) ? vc : ~vc);
    d[l] = r;
  });
}

// shf.{l,r}.{wrap,clamp}.b32: flags bit0 = right, bit1 = clamp.
void exec_shf(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<uint32_t>(in.a[0]);
  const auto *a = x.lanes<uint32_t>(in.a[1]), *b = x.lanes<uint32_t>(in.a[2]),
             *c = x.lanes<uint32_t>(in.a[3]);
  for_lanes(m, [&](uint32_t l) {
    uint32_t n = uint32_t(c[l]);
    n = (in.flags & 2) ? std::min(n, 32u) : (n & 31);
    uint64_t v = (a[l] & 0xffffffffu) | (uint64_t(b[l]) << 32);
    uint64_t r = (in.flags & 1) ? (n == 32 ? v >> 32 : v >> n)
                                : ((n == 32 ? v << 31 << 1 : v << n) >> 32);
    d[l] = r & 0xffffffffu;
  });
}

// dp4a: flags bit0 = a signed, bit1 = b signed.
void exec_dp4a(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<uint32_t>(in.a[0]);
  const auto *a = x.lanes<uint32_t>(in.a[1]), *b = x.lanes<uint32_t>(in.a[2]),
             *c = x.lanes<uint32_t>(in.a[3]);
  for_lanes(m, [&](uint32_t l) {
    int64_t acc =
        (in.flags & 3) ? int64_t(int32_t(c[l])) : int64_t(uint32_t(c[l]));
    for (int i = 0; i < 4; ++i) {
      uint32_t ba = (a[l] >> (8 * i)) & 0xff, bb = (b[l] >> (8 * i)) & 0xff;
      int64_t va = (in.flags & 1) ? int64_t(int8_t(ba)) : int64_t(ba);
      int64_t vb = (in.flags & 2) ? int64_t(int8_t(bb)) : int64_t(bb);
      acc += va * vb;
    }
    d[l] = uint32_t(acc);
  });
}

// dp2a.{lo,hi}: two 16-bit elements of a times two bytes of b (bytes 0-1
// for .lo, 2-3 for .hi) plus c. flags bit0 = a signed, bit1 = b signed,
// bit2 = .hi.
void exec_dp2a(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<uint32_t>(in.a[0]);
  const auto *a = x.lanes<uint32_t>(in.a[1]), *b = x.lanes<uint32_t>(in.a[2]),
             *c = x.lanes<uint32_t>(in.a[3]);
  const uint32_t first = (in.flags & 4) ? 2 : 0;
  for_lanes(m, [&](uint32_t l) {
    int64_t acc =
        (in.flags & 3) ? int64_t(int32_t(c[l])) : int64_t(uint32_t(c[l]));
    for (uint32_t i = 0; i < 2; ++i) {
      uint32_t ha = (a[l] >> (16 * i)) & 0xffff,
               bb = (b[l] >> (8 * (first + i))) & 0xff;
      int64_t va = (in.flags & 1) ? int64_t(int16_t(ha)) : int64_t(ha);
      int64_t vb = (in.flags & 2) ? int64_t(int8_t(bb)) : int64_t(bb);
      acc += va * vb;
    }
    d[l] = uint32_t(acc);
  });
}

// szext.{wrap,clamp}.{s32,u32} d, a, n: the low n bits of a, sign- or
// zero-extended; n is b mod 32 (.wrap) or min(b, 32) (.clamp); n = 0 gives
// 0. flags bit0 = signed, bit1 = clamp.
void exec_szext(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<uint32_t>(in.a[0]);
  const auto *a = x.lanes<uint32_t>(in.a[1]), *b = x.lanes<uint32_t>(in.a[2]);
  for_lanes(m, [&](uint32_t l) {
    uint32_t n = uint32_t(b[l]);
    n = (in.flags & 2) ? std::min(n, 32u) : (n & 31);
    uint32_t v = uint32_t(a[l]);
    if (n == 0) {
      v = 0;
    } else if (n < 32) {
      v &= (1u << n) - 1;
      if ((in.flags & 1) && ((v >> (n - 1)) & 1))
        v |= ~0u << n;
    }
    d[l] = v;
  });
}

// bmsk.{wrap,clamp}.b32 d, a, b: b one bits starting at bit a; both are
// taken mod 32 (.wrap) or limited to 32 (.clamp). flags bit1 = clamp.
void exec_bmsk(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<uint32_t>(in.a[0]);
  const auto *a = x.lanes<uint32_t>(in.a[1]), *b = x.lanes<uint32_t>(in.a[2]);
  for_lanes(m, [&](uint32_t l) {
    uint64_t pos = uint32_t(a[l]), len = uint32_t(b[l]);
    if (in.flags & 2) {
      pos = std::min<uint64_t>(pos, 32);
      len = std::min<uint64_t>(len, 32);
    } else {
      pos &= 31;
      len &= 31;
    }
    d[l] = (((uint64_t(1) << len) - 1) << pos) & 0xffffffffu;
  });
}

// bfind: position of the most significant non-sign bit, 0xffffffff when
// there is none; .shiftamt gives the left shift that brings it to the top.
// flags bit0 = signed, bit1 = 64-bit, bit2 = shiftamt.
template <class T> struct Bfind {
  static void fn(Exec &x, const Inst &in, uint32_t m) {
    auto *d = x.lanes<uint32_t>(in.a[0]);
    const auto *a = x.lanes<T>(in.a[1]);
    uint32_t w = (in.flags & 2) ? 64 : 32;
    for_lanes(m, [&](uint32_t l) {
      uint64_t v = w == 64 ? a[l] : (a[l] & 0xffffffffu);
      if ((in.flags & 1) && ((v >> (w - 1)) & 1))
        v = ~v & (w == 64 ? ~0ull : 0xffffffffull);
      if (v == 0) {
        d[l] = 0xffffffffu;
        return;
      }
      uint32_t pos = 63 - uint32_t(std::countl_zero(v));
      d[l] = (in.flags & 4) ? (w - 1 - pos) : pos;
    });
  }
};

bool is_float_op(const ptx::Instruction &in) {
  for (auto &m : in.modifiers) {
    auto t = parse_type(m);
    if (t && t->is_float())
      return true;
  }
  return false;
}

} // namespace

bool compile_integer(Compiler &c, const ptx::Instruction &in) {
  const ptx::Op op = in.op;
  // The opcode rows (opcodes.def) send the integer opcodes here; a float
  // type goes on to compile_float.
  if (is_float_op(in))
    return false;
  // Predicate logic (and/or/xor/not on .pred) belongs to compare.
  if (in.has(ptx::Mod::pred))
    return false;
  Mods mods(in);
  auto &ops_ = in.operands;

  auto simple = [&](size_t nsrc, ExecFn f, Ty t) {
    if (!c.expect_operands(nsrc + 1))
      return;
    if (!f) {
      c.unsupported(fmt::format(
          "type .{}", in.modifiers.empty() ? "" : in.modifiers.back()));
      return;
    }
    if (!c.finish(mods))
      return;
    uint32_t s[4];
    for (size_t i = 0; i < nsrc; ++i)
      s[i] = c.src(ops_[i + 1], t);
    uint32_t d = c.dst(ops_[0]);
    Inst &i = c.emit(f);
    i.a[0] = d;
    for (size_t k = 0; k < nsrc; ++k)
      i.a[k + 1] = s[k];
  };
  auto need_type = [&]() -> std::optional<Ty> {
    auto t = mods.take_type();
    if (!t)
      c.error(in.loc, fmt::format("'{}' needs a type", c.text_of(in)));
    return t;
  };
  auto cc_index = [&]() {
    if (c.prog.cc_pred == kNone)
      c.prog.cc_pred = c.prog.npreds++;
    return c.prog.cc_pred;
  };

  // .u16x2 / .s16x2 (add, min, max): two half-words in a .b32.
  if (op == ptx::Op::add || op == ptx::Op::min || op == ptx::Op::max) {
    bool x2s = mods.take(ptx::Mod::s16x2),
         x2u = !x2s && mods.take(ptx::Mod::u16x2);
    if (x2s || x2u) {
      bool relu = mods.take(ptx::Mod::relu);
      if (relu && (!x2s || op == ptx::Op::add)) {
        c.unsupported(".relu (only min/max .s32 and .s16x2)");
        return true;
      }
      simple(2, &exec_x2, Ty{Ty::B32});
      if (!c.failed) {
        auto &i = c.prog.code.back();
        i.aux = op == ptx::Op::add ? 0 : op == ptx::Op::min ? 2 : 3;
        i.flags = (x2s ? 1 : 0) | (relu ? 2 : 0);
      }
      return true;
    }
  }
  if (op == ptx::Op::add || op == ptx::Op::sub || op == ptx::Op::addc ||
      op == ptx::Op::subc) {
    bool cc = mods.take(ptx::Mod::cc);
    bool carry_in = op == ptx::Op::addc || op == ptx::Op::subc;
    bool sat = mods.take(ptx::Mod::sat);
    auto t = need_type();
    if (!t)
      return true;
    bool is_sub = op == ptx::Op::sub || op == ptx::Op::subc;
    if (cc || carry_in) {
      ExecFn f =
          t->bits() == 32
              ? (t->is_signed() ? &carry_op<int32_t> : &carry_op<uint32_t>)
          : t->bits() == 64
              ? (t->is_signed() ? &carry_op<int64_t> : &carry_op<uint64_t>)
              : nullptr;
      simple(2, f, *t);
      if (!c.failed && f) {
        auto &i = c.prog.code.back();
        i.target = cc_index();
        i.aux = is_sub ? 1 : 0;
        i.flags = (cc ? 1 : 0) | (carry_in ? 2 : 0);
      }
      return true;
    }
    if (sat) {
      if (t->code != Ty::S32) {
        c.unsupported("saturation type (only .sat.s32)");
        return true;
      }
      simple(2, is_sub ? &sat_s32<true> : &sat_s32<false>, *t);
      return true;
    }
    simple(2, is_sub ? by_int<L2, Sub>(*t) : by_int<L2, Add>(*t), *t);
    return true;
  }
  if (op == ptx::Op::mul || op == ptx::Op::mad || op == ptx::Op::madc) {
    const ptx::Mod mode =
        mods.take_any({ptx::Mod::lo, ptx::Mod::hi, ptx::Mod::wide});
    bool cc = mods.take(ptx::Mod::cc);
    bool carry_in = op == ptx::Op::madc;
    auto t = need_type();
    if (!t)
      return true;
    if (mode == ptx::Mod::unknown) {
      c.error(in.loc,
              fmt::format("'{}' needs .lo, .hi or .wide", c.text_of(in)));
      return true;
    }
    bool mad = op != ptx::Op::mul;
    if (cc || carry_in) {
      if (mode == ptx::Mod::wide) {
        c.unsupported("carry with .wide");
        return true;
      }
      ExecFn f =
          t->bits() == 32
              ? (t->is_signed() ? &carry_op<int32_t> : &carry_op<uint32_t>)
          : t->bits() == 64
              ? (t->is_signed() ? &carry_op<int64_t> : &carry_op<uint64_t>)
              : nullptr;
      simple(3, f, *t);
      if (!c.failed && f) {
        auto &i = c.prog.code.back();
        i.target = cc_index();
        i.aux = mode == ptx::Mod::hi ? 3 : 2;
        i.flags = (cc ? 1 : 0) | (carry_in ? 2 : 0);
      }
      return true;
    }
    if (mode == ptx::Mod::wide) {
      ExecFn f = nullptr;
      switch (t->code) {
      case Ty::S16:
        f = mad ? with_avx2<&mad_wide<int16_t>>()
                : with_avx2<&mul_wide<int16_t>>();
        break;
      case Ty::U16:
        f = mad ? with_avx2<&mad_wide<uint16_t>>()
                : with_avx2<&mul_wide<uint16_t>>();
        break;
      case Ty::S32:
        f = mad ? with_avx2<&mad_wide<int32_t>>()
                : with_avx2<&mul_wide<int32_t>>();
        break;
      case Ty::U32:
        f = mad ? with_avx2<&mad_wide<uint32_t>>()
                : with_avx2<&mul_wide<uint32_t>>();
        break;
      default:
        break;
      }
      if (!mad) {
        simple(2, f, *t);
        return true;
      }
      // c is the wide type
      if (!c.expect_operands(4) || !f || !c.finish(mods)) {
        if (!f)
          c.unsupported("type for .wide");
        return true;
      }
      Ty wt = t->is_signed() ? Ty{t->bits() == 16 ? Ty::S32 : Ty::S64}
                             : Ty{t->bits() == 16 ? Ty::U32 : Ty::U64};
      uint32_t a = c.src(ops_[1], *t), b = c.src(ops_[2], *t),
               cc2 = c.src(ops_[3], wt);
      uint32_t d = c.dst(ops_[0]);
      Inst &i = c.emit(f);
      i.a[0] = d;
      i.a[1] = a;
      i.a[2] = b;
      i.a[3] = cc2;
      return true;
    }
    if (mad && mods.take(ptx::Mod::sat)) {
      if (mode != ptx::Mod::hi || t->code != Ty::S32) {
        c.unsupported("saturation (only mad.hi.sat.s32)");
        return true;
      }
      simple(3, &op3<int32_t, MadHiSat>, *t);
      return true;
    }
    if (mad)
      simple(3,
             mode == ptx::Mod::lo ? by_int<L3, MadLo>(*t)
                                  : by_int<L3, MadHi>(*t),
             *t);
    else
      simple(2,
             mode == ptx::Mod::lo ? by_int<L2, MulLo>(*t)
                                  : by_int<L2, MulHi>(*t),
             *t);
    return true;
  }
  if (op == ptx::Op::mul24 || op == ptx::Op::mad24) {
    const ptx::Mod mode = mods.take_any({ptx::Mod::lo, ptx::Mod::hi});
    bool sat = op == ptx::Op::mad24 && mods.take(ptx::Mod::sat);
    auto t = need_type();
    if (!t)
      return true;
    if (t->code != Ty::S32 && t->code != Ty::U32) {
      c.unsupported("type (mul24/mad24 take .u32/.s32)");
      return true;
    }
    bool s = t->is_signed();
    if (op == ptx::Op::mul24)
      simple(2,
             mode == ptx::Mod::hi
                 ? (s ? &op2<int32_t, Mul24Hi> : &op2<uint32_t, Mul24Hi>)
                 : (s ? &op2<int32_t, Mul24Lo> : &op2<uint32_t, Mul24Lo>),
             *t);
    else if (sat && (mode != ptx::Mod::hi || !s))
      c.unsupported("saturation (only mad24.hi.sat.s32)");
    else if (sat)
      simple(3, &op3<int32_t, Mad24HiSat>, *t);
    else if (mode == ptx::Mod::hi)
      simple(3, s ? &op3<int32_t, Mad24Hi> : &op3<uint32_t, Mad24Hi>, *t);
    else
      simple(3, s ? &op3<int32_t, Mad24Lo> : &op3<uint32_t, Mad24Lo>, *t);
    return true;
  }
  auto t = need_type();
  if (!t)
    return true;
  if (op == ptx::Op::div) {
    simple(2, by_int<L2, Div>(*t), *t);
    return true;
  }
  if (op == ptx::Op::rem) {
    simple(2, by_int<L2, Rem>(*t), *t);
    return true;
  }
  if ((op == ptx::Op::min || op == ptx::Op::max) && mods.take(ptx::Mod::relu)) {
    if (t->code != Ty::S32) {
      c.unsupported(".relu (only min/max .s32 and .s16x2)");
      return true;
    }
    simple(2,
           op == ptx::Op::min ? &op2<int32_t, MinRelu> : &op2<int32_t, MaxRelu>,
           *t);
    return true;
  }
  if (op == ptx::Op::min) {
    simple(2, by_int<L2, Min>(*t), *t);
    return true;
  }
  if (op == ptx::Op::max) {
    simple(2, by_int<L2, Max>(*t), *t);
    return true;
  }
  if (op == ptx::Op::and_) {
    simple(2, by_int<L2, And>(*t), *t);
    return true;
  }
  if (op == ptx::Op::or_) {
    simple(2, by_int<L2, Or>(*t), *t);
    return true;
  }
  if (op == ptx::Op::xor_) {
    simple(2, by_int<L2, Xor>(*t), *t);
    return true;
  }
  if (op == ptx::Op::not_) {
    simple(1, by_int<L1, Not>(*t), *t);
    return true;
  }
  if (op == ptx::Op::cnot) {
    simple(1, by_int<L1, CNot>(*t), *t);
    return true;
  }
  if (op == ptx::Op::neg) {
    simple(1, by_int<L1, Neg>(*t), *t);
    return true;
  }
  if (op == ptx::Op::abs) {
    simple(1, by_int<L1, Abs>(*t), *t);
    return true;
  }
  if (op == ptx::Op::popc) {
    simple(1, by_int<L1, Popc>(*t), *t);
    return true;
  }
  if (op == ptx::Op::clz) {
    simple(1, by_int<L1, Clz>(*t), *t);
    return true;
  }
  if (op == ptx::Op::brev) {
    simple(1, by_int<L1, Brev>(*t), *t);
    return true;
  }
  if (op == ptx::Op::sad) {
    simple(3, by_int<L3, Sad>(*t), *t);
    return true;
  }
  if (op == ptx::Op::shl || op == ptx::Op::shr) {
    ExecFn f = nullptr;
    bool left = op == ptx::Op::shl;
    switch (t->code) {
    case Ty::B16:
    case Ty::U16:
      f = left ? &opshift<uint16_t, Shl> : &opshift<uint16_t, Shr>;
      break;
    case Ty::S16:
      f = left ? &opshift<int16_t, Shl> : &opshift<int16_t, Shr>;
      break;
    case Ty::B32:
    case Ty::U32:
      f = left ? &opshift<uint32_t, Shl> : &opshift<uint32_t, Shr>;
      break;
    case Ty::S32:
      f = left ? &opshift<int32_t, Shl> : &opshift<int32_t, Shr>;
      break;
    case Ty::B64:
    case Ty::U64:
      f = left ? &opshift<uint64_t, Shl> : &opshift<uint64_t, Shr>;
      break;
    case Ty::S64:
      f = left ? &opshift<int64_t, Shl> : &opshift<int64_t, Shr>;
      break;
    default:
      break;
    }
    if (!c.expect_operands(3))
      return true;
    if (!f) {
      c.unsupported("type");
      return true;
    }
    if (!c.finish(mods))
      return true;
    uint32_t a = c.src(ops_[1], *t), b = c.src(ops_[2], Ty{Ty::U32});
    uint32_t d = c.dst(ops_[0]);
    Inst &i = c.emit(f);
    i.a[0] = d;
    i.a[1] = a;
    i.a[2] = b;
    return true;
  }
  if (op == ptx::Op::bfind) {
    bool shiftamt = mods.take(ptx::Mod::shiftamt);
    if (t->bits() != 32 && t->bits() != 64) {
      c.unsupported("type");
      return true;
    }
    simple(1, by_width<Bfind>(width_of(*t)), *t);
    if (!c.failed)
      c.prog.code.back().flags = (t->is_signed() ? 1 : 0) |
                                 (t->bits() == 64 ? 2 : 0) | (shiftamt ? 4 : 0);
    return true;
  }
  if (op == ptx::Op::bfe || op == ptx::Op::bfi) {
    bool bfe = op == ptx::Op::bfe;
    if (t->bits() != 32 && t->bits() != 64) {
      c.unsupported("type");
      return true;
    }
    if (!c.expect_operands(bfe ? 4 : 5) || !c.finish(mods))
      return true;
    uint32_t s[4];
    s[0] = c.src(ops_[1], *t);
    if (bfe) {
      s[1] = c.src(ops_[2], Ty{Ty::U32});
      s[2] = c.src(ops_[3], Ty{Ty::U32});
    } else {
      s[1] = c.src(ops_[2], *t);
      s[2] = c.src(ops_[3], Ty{Ty::U32});
      s[3] = c.src(ops_[4], Ty{Ty::U32});
    }
    uint32_t d = c.dst(ops_[0]);
    Inst &i =
        c.emit(bfe ? by_width<Bfe>(width_of(*t)) : by_width<Bfi>(width_of(*t)));
    i.a[0] = d;
    for (int k = 0; k < (bfe ? 3 : 4); ++k)
      i.a[k + 1] = s[k];
    i.flags = (t->is_signed() ? 1 : 0) | (t->bits() == 64 ? 2 : 0);
    return true;
  }
  if (op == ptx::Op::prmt) {
    static constexpr ptx::Mod kModes[] = {ptx::Mod::f4e, ptx::Mod::b4e,
                                          ptx::Mod::rc8, ptx::Mod::ecl,
                                          ptx::Mod::ecr, ptx::Mod::rc16};
    uint32_t mode = 0;
    for (uint32_t k = 0; k < 6; ++k)
      if (mods.take(kModes[k]))
        mode = k + 1;
    if (t->code != Ty::B32) {
      c.unsupported("type (prmt takes .b32)");
      return true;
    }
    simple(3, &exec_prmt, *t);
    if (!c.failed)
      c.prog.code.back().aux = mode;
    return true;
  }
  if (op == ptx::Op::lop3) {
    if (t->code != Ty::B32) {
      c.unsupported("type (lop3 takes .b32)");
      return true;
    }
    simple(4, &exec_lop3, *t);
    return true;
  }
  if (op == ptx::Op::shf) {
    const ptx::Mod dir = mods.take_any({ptx::Mod::l, ptx::Mod::r});
    const ptx::Mod mode = mods.take_any({ptx::Mod::wrap, ptx::Mod::clamp});
    if (dir == ptx::Mod::unknown || mode == ptx::Mod::unknown ||
        t->bits() != 32) {
      c.unsupported("form of shf (shf.{l,r}.{wrap,clamp}.b32)");
      return true;
    }
    simple(3, &exec_shf, *t);
    if (!c.failed)
      c.prog.code.back().flags =
          (dir == ptx::Mod::r ? 1 : 0) | (mode == ptx::Mod::clamp ? 2 : 0);
    return true;
  }
  if (op == ptx::Op::szext || op == ptx::Op::bmsk) {
    const ptx::Mod mode = mods.take_any({ptx::Mod::wrap, ptx::Mod::clamp});
    bool ok = op == ptx::Op::szext ? (t->code == Ty::S32 || t->code == Ty::U32)
                                   : t->code == Ty::B32;
    if (mode == ptx::Mod::unknown || !ok) {
      c.unsupported(op == ptx::Op::szext
                        ? "form of szext (szext.{wrap,clamp}.{s32,u32})"
                        : "form of bmsk (bmsk.{wrap,clamp}.b32)");
      return true;
    }
    if (!c.expect_operands(3) || !c.finish(mods))
      return true;
    uint32_t a = c.src(ops_[1], *t), b = c.src(ops_[2], Ty{Ty::U32});
    uint32_t d = c.dst(ops_[0]);
    Inst &i = c.emit(op == ptx::Op::szext ? &exec_szext : &exec_bmsk);
    i.a[0] = d;
    i.a[1] = a;
    i.a[2] = b;
    i.flags = (t->is_signed() ? 1 : 0) | (mode == ptx::Mod::clamp ? 2 : 0);
    return true;
  }
  if (op == ptx::Op::dp2a) {
    // the mode comes first (dp2a.lo.atype.btype); need_type took atype
    const ptx::Mod mode = mods.take_any({ptx::Mod::lo, ptx::Mod::hi});
    auto t2 = mods.take_type();
    if (mode == ptx::Mod::unknown || !t2 || t->bits() != 32 ||
        t2->bits() != 32) {
      c.unsupported("form of dp2a (dp2a.{lo,hi}.atype.btype, 32-bit types)");
      return true;
    }
    simple(3, &exec_dp2a, *t);
    if (!c.failed)
      c.prog.code.back().flags = (t->is_signed() ? 1 : 0) |
                                 (t2->is_signed() ? 2 : 0) |
                                 (mode == ptx::Mod::hi ? 4 : 0);
    return true;
  }
  if (op == ptx::Op::dp4a) {
    auto t2 = mods.take_type();
    if (!t2 || t->bits() != 32 || t2->bits() != 32) {
      c.unsupported("form of dp4a (dp4a.atype.btype with 32-bit types)");
      return true;
    }
    simple(3, &exec_dp4a, *t);
    if (!c.failed)
      c.prog.code.back().flags =
          (t->is_signed() ? 1 : 0) | (t2->is_signed() ? 2 : 0);
    return true;
  }
  return false;
}

} // namespace bcusim::engine::detail
