// Half-precision arithmetic: .f16, .f16x2, .bf16, .bf16x2 forms of add sub
// mul fma neg abs min max ex2.approx tanh.approx, with .rn .rz .rm .rp,
// .ftz (f16), .sat, .relu, .NaN, .xorsign.abs. Every result is the exact
// value rounded once into the format (docs/engine.md "Half precision").
// The x2 forms work on both 16-bit halves independently.
#include <atomic>
#include <cmath>
#include <fmt/format.h>

#include "compile.h"
#include "float_format.h"
#include "mufu.h"
#include "observe.h"

namespace bcusim::engine::detail {

namespace {

enum HalfOp : uint32_t {
  kAdd,
  kSub,
  kMul,
  kFma,
  kNeg,
  kAbs,
  kMin,
  kMax,
  kEx2,
  kTanh
};
// Inst.flags bits.
constexpr uint8_t kPacked = 1, kBF = 2, kFtz = 4, kSat = 8, kRelu = 16,
                  kNaN = 32, kXorsign = 64, kOob = 128;

bool is_subnormal16(uint32_t h, bool bf) {
  uint32_t e = bf ? (h >> 7) & 0xff : (h >> 10) & 0x1f;
  uint32_t f = bf ? h & 0x7f : h & 0x3ff;
  return e == 0 && f != 0;
}
bool is_nan16(uint32_t h, bool bf) {
  return bf ? (h & 0x7fff) > 0x7f80 : (h & 0x7fff) > 0x7c00;
}

// The exact sum x + y (x, y doubles) as one double that rounds like it into
// any format of at most 51 significand bits: the rounded sum nudged by one
// ulp toward the rounding error, so that a sum on a rounding boundary of
// the narrow format falls on the side the exact value lies on.
double exact_sum(double x, double y, Round mode) {
  double s = x + y;
  if (!std::isfinite(s))
    return s;
  if (s == 0) {
    // IEEE: exact zero sums of opposite signs are +0, -0 under .rm.
    if (std::signbit(x) != std::signbit(y))
      return mode == Round::RM ? -0.0 : 0.0;
    return s;
  }
  double bb = s - x;
  double err = (x - (s - bb)) + (y - bb); // TwoSum: s + err == x + y
  if (err == 0)
    return s;
  return std::nextafter(s, err > 0 ? INFINITY : -INFINITY);
}

uint32_t half_op(const Inst &in, uint32_t a, uint32_t b, uint32_t c) {
  const bool bf = in.flags & kBF;
  const FloatFormat &f = bf ? kBF16 : kF16;
  const Round mode = Round(in.n);
  const uint32_t op = in.aux;
  if (in.flags & kFtz) {
    if (is_subnormal16(a, bf))
      a &= 0x8000;
    if (is_subnormal16(b, bf))
      b &= 0x8000;
    if (is_subnormal16(c, bf))
      c &= 0x8000;
  }
  // .oob changes nothing for register operands (measured on H100:
  // fma.rn.oob.f16 of 0, 0, 0x7fff gives 0x7fff, as fma.rn.f16 does).
  uint32_t r;
  switch (op) {
  // neg/abs of a NaN give the canonical NaN (measured on H100: neg.f16 of
  // 0x7e00 gives 0x7fff), like every f16/bf16 arithmetic result.
  case kNeg:
    r = is_nan16(a, bf) ? kCanonicalNaN16 : a ^ 0x8000;
    break;
  case kAbs:
    r = is_nan16(a, bf) ? kCanonicalNaN16 : a & 0x7fff;
    break;
  case kMin:
  case kMax: {
    bool na = is_nan16(a, bf), nb = is_nan16(b, bf);
    if ((na && nb) || ((in.flags & kNaN) && (na || nb))) {
      r = kCanonicalNaN16;
      break;
    }
    uint32_t sign = (a ^ b) & 0x8000;
    if (in.flags & kXorsign) {
      a &= 0x7fff;
      b &= 0x7fff;
    }
    if (na || nb) {
      r = na ? b : a;
    } else {
      double x = decode(f, a), y = decode(f, b);
      bool take_a;
      if (x == y) // -0 < +0
        take_a = op == kMin ? (a & 0x8000) != 0 : (a & 0x8000) == 0;
      else
        take_a = op == kMin ? x < y : x > y;
      r = take_a ? a : b;
    }
    if (in.flags & kXorsign)
      r = (r & 0x7fff) | sign;
    break;
  }
  default: {
    double x = decode(f, a), y = decode(f, b), v = 0;
    switch (op) {
    case kAdd:
      v = exact_sum(x, y, mode);
      break;
    case kSub:
      v = exact_sum(x, -y, mode);
      break;
    case kMul:
      v = x * y; // exact: at most 22 significand bits, no underflow
      break;
    case kFma:
      v = exact_sum(x * y, decode(f, c), mode);
      break;
    case kEx2: // the hardware's approximations (mufu.h)
      r = mufu::ex2_approx16(a, bf);
      break;
    default:
      r = mufu::tanh_approx16(a, bf);
      break;
    }
    if (op == kEx2 || op == kTanh)
      break;
    r = uint32_t(encode_double(f, v, {mode, false, (in.flags & kRelu) != 0}));
    // .ftz flushes a product or fma whose exact value is below the
    // smallest normal, even when it rounds up to it (tininess before
    // rounding; measured on H100: mul.rn.ftz.f16 of 0x0400 and 0x3bff
    // gives +0).
    const double min_normal = bf ? 0x1p-126 : 0x1p-14;
    if ((in.flags & kFtz) && (op == kMul || op == kFma) && v != 0 &&
        std::fabs(v) < min_normal && !is_nan16(r, bf))
      r = std::signbit(v) && !(in.flags & kRelu) ? 0x8000 : 0;
    break;
  }
  }
  if ((in.flags & kFtz) && is_subnormal16(r, bf))
    r &= 0x8000;
  if (in.flags & kSat) {
    // [+0, 1]: NaN, -0 and negative results give +0.
    if (is_nan16(r, bf) || (r & 0x8000) || r == 0)
      r = 0;
    else if (decode(f, r) > 1.0)
      r = bf ? 0x3f80 : 0x3c00;
  }
  return r;
}

void exec_half(Exec &x, const Inst &in, uint32_t m) {
  // f16/bf16 values in 32-bit lanes: one in the low half, or a pair.
  auto *d = x.lanes<uint32_t>(in.a[0]);
  const auto *a = x.lanes<uint32_t>(in.a[1]);
  const auto *b = in.a[2] == kNone ? a : x.lanes<uint32_t>(in.a[2]);
  const auto *c = in.a[3] == kNone ? a : x.lanes<uint32_t>(in.a[3]);
  if (in.flags & kPacked) {
    for_lanes(m, [&](uint32_t l) {
      uint32_t lo = half_op(in, uint32_t(a[l] & 0xffff),
                            uint32_t(b[l] & 0xffff), uint32_t(c[l] & 0xffff));
      uint32_t hi =
          half_op(in, uint32_t(a[l] >> 16 & 0xffff),
                  uint32_t(b[l] >> 16 & 0xffff), uint32_t(c[l] >> 16 & 0xffff));
      d[l] = uint64_t(hi) << 16 | lo;
    });
  } else {
    for_lanes(m, [&](uint32_t l) {
      d[l] = half_op(in, uint32_t(a[l] & 0xffff), uint32_t(b[l] & 0xffff),
                     uint32_t(c[l] & 0xffff));
    });
  }
}

// A mul and add/sub the assembler fuses (contract.h): one rounding of
// a * b + c, with imm bit 0 negating the product and bit 1 the addend (sign
// flips of every half, exact).
void exec_half_contracted(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<uint32_t>(in.a[0]);
  const auto *a = x.lanes<uint32_t>(in.a[1]);
  const auto *b = x.lanes<uint32_t>(in.a[2]);
  const auto *c = x.lanes<uint32_t>(in.a[3]);
  const uint32_t na = (in.imm & 1) ? 0x80008000u : 0;
  const uint32_t nc = (in.imm & 2) ? 0x80008000u : 0;
  if (in.flags & kPacked) {
    for_lanes(m, [&](uint32_t l) {
      const uint32_t va = a[l] ^ na, vc = c[l] ^ nc;
      uint32_t lo = half_op(in, va & 0xffff, b[l] & 0xffff, vc & 0xffff);
      uint32_t hi = half_op(in, va >> 16 & 0xffff, b[l] >> 16 & 0xffff,
                            vc >> 16 & 0xffff);
      d[l] = uint64_t(hi) << 16 | lo;
    });
  } else {
    for_lanes(m, [&](uint32_t l) {
      d[l] = half_op(in, (a[l] ^ na) & 0xffff, b[l] & 0xffff,
                     (c[l] ^ nc) & 0xffff);
    });
  }
}

// atom/red .add.noftz on f16, f16x2, bf16, bf16x2 (compile_memory picks
// it): the same addition as add.rn (no flushing), each half separately,
// applied atomically. a[0] = old value destination (kNone for red), a[1] =
// address base, a[2] = b; flags = MemSpace; imm = offset; n = 1 bf16; aux =
// the AtomicOp offset (0, add).
template <class I, class A>
void exec_atom_half(Exec &x, const Inst &in, uint32_t m) {
  const auto *base = x.lanes<A>(in.a[1]);
  const auto *b = x.lanes<uint32_t>(in.a[2]);
  auto *d = in.a[0] != kNone ? x.lanes<uint32_t>(in.a[0]) : nullptr;
  const MemSpace sp = MemSpace(in.flags);
  Inst add;
  add.aux = kAdd;
  add.flags = in.n ? kBF : 0;
  add.n = uint8_t(Round::RN);
  ++x.progress;
  AccessBatch batch(x, in, AccessType::Atomic, sizeof(I), AtomicOp::Add);
  for_lanes(m, [&](uint32_t l) {
    if (x.faulted)
      return;
    const uint64_t addr = uint64_t(base[l]) + uint64_t(in.imm);
    if (addr % sizeof(I)) {
      x.set_fault(FaultKind::Misaligned, sp, addr, sizeof(I), l, true);
      return;
    }
    uint8_t *p = x.translate(sp, addr, sizeof(I), true, l);
    if (!p)
      return;
    batch.add(l, sp, addr);
    std::atomic_ref<I> ref(*reinterpret_cast<I *>(p));
    I old = ref.load();
    for (;;) {
      uint32_t r = half_op(add, old & 0xffff, uint32_t(b[l] & 0xffff), 0);
      if constexpr (sizeof(I) == 4)
        r |= half_op(add, old >> 16, uint32_t(b[l] >> 16 & 0xffff), 0) << 16;
      if (ref.compare_exchange_weak(old, I(r)))
        break;
    }
    if (d)
      d[l] = old;
  });
  batch.emit();
}

template <class I> ExecFn atom_half_fn(uint8_t aw) {
  return aw == 8 ? &exec_atom_half<I, uint64_t> : &exec_atom_half<I, uint32_t>;
}

} // namespace

WidthPick atom_half_add(Ty t) {
  return t.code == Ty::F16X2 || t.code == Ty::BF16X2 ? &atom_half_fn<uint32_t>
                                                     : &atom_half_fn<uint16_t>;
}

bool is_half_type(Ty t) {
  return t.code == Ty::F16 || t.code == Ty::F16X2 || t.code == Ty::BF16 ||
         t.code == Ty::BF16X2;
}

bool compile_half(Compiler &c, const ptx::Instruction &in) {
  using ptx::Op;
  static constexpr Op names[] = {Op::add, Op::sub, Op::mul, Op::fma, Op::neg,
                                 Op::abs, Op::min, Op::max, Op::ex2, Op::tanh};
  uint32_t op = kNone;
  for (uint32_t k = 0; k < 10; ++k)
    if (in.op == names[k])
      op = k;
  if (op == kNone) {
    c.unsupported(fmt::format("half-precision '{}'", in.opcode));
    return true;
  }
  Mods mods(in);
  const ptx::Mod rnd =
      mods.take_any({ptx::Mod::rn, ptx::Mod::rz, ptx::Mod::rm, ptx::Mod::rp});
  bool approx = mods.take(ptx::Mod::approx);
  uint8_t flags = 0;
  flags |= mods.take(ptx::Mod::ftz) ? kFtz : 0;
  flags |= mods.take(ptx::Mod::sat) ? kSat : 0;
  flags |= mods.take(ptx::Mod::relu) ? kRelu : 0;
  flags |= mods.take(ptx::Mod::NaN) ? kNaN : 0;
  flags |= mods.take(ptx::Mod::oob) ? kOob : 0;
  if (mods.take(ptx::Mod::xorsign)) {
    if (!mods.take(ptx::Mod::abs)) {
      c.error(in.loc, "'.xorsign' needs '.abs'");
      return true;
    }
    flags |= kXorsign;
  }
  auto t = mods.take_type();
  if (!t || !is_half_type(*t)) {
    c.unsupported("type");
    return true;
  }
  if (t->code == Ty::F16X2 || t->code == Ty::BF16X2)
    flags |= kPacked;
  if (t->code == Ty::BF16 || t->code == Ty::BF16X2)
    flags |= kBF;
  if ((op == kEx2 || op == kTanh) && !approx) {
    c.error(in.loc,
            fmt::format("'{}' on half precision needs '.approx'", in.opcode));
    return true;
  }
  size_t nsrc = op == kFma                                                ? 3
                : (op == kNeg || op == kAbs || op == kEx2 || op == kTanh) ? 1
                                                                          : 2;
  if (!c.expect_operands(nsrc + 1) || !c.finish(mods))
    return true;
  if ((op == kAdd || op == kSub) && c.contractions &&
      (*c.contractions)[c.cur_index].contracted()) {
    // Fused with the mul that feeds it, as the assembler does (contract.h,
    // docs/engine.md "Multiply-add contraction").
    const Contraction &k = (*c.contractions)[c.cur_index];
    const ptx::Instruction &mul = c.ast().body[k.mul];
    uint32_t a = c.src(mul.operands[1], *t), b = c.src(mul.operands[2], *t);
    uint32_t e = c.src(in.operands[k.addend], *t);
    uint32_t d = c.dst(in.operands[0]);
    Inst &i = c.emit(&exec_half_contracted);
    i.a[0] = d;
    i.a[1] = a;
    i.a[2] = b;
    i.a[3] = e;
    i.aux = kFma;
    i.flags = flags;
    i.n = uint8_t(Round::RN);
    i.imm = (k.neg_product ? 1 : 0) | (k.neg_addend ? 2 : 0);
    return true;
  }
  // Operands are 16- or 32-bit registers holding the halves.
  uint32_t s[3] = {kNone, kNone, kNone};
  for (size_t k = 0; k < nsrc; ++k)
    s[k] = c.src(in.operands[k + 1], *t);
  uint32_t d = c.dst(in.operands[0]);
  Inst &i = c.emit(&exec_half);
  i.a[0] = d;
  for (size_t k = 0; k < nsrc; ++k)
    i.a[k + 1] = s[k];
  i.aux = op;
  i.flags = flags;
  i.n = uint8_t(rnd == ptx::Mod::rz   ? Round::RZ
                : rnd == ptx::Mod::rm ? Round::RM
                : rnd == ptx::Mod::rp ? Round::RP
                                      : Round::RN);
  return true;
}

} // namespace bcusim::engine::detail
