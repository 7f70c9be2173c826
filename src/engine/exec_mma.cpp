// Warp-level matrix instructions (docs/tensor-cores.md): wmma.load,
// wmma.store, wmma.mma, mma.sync, ldmatrix, stmatrix, movmatrix. Each is
// .sync.aligned: it runs once the whole warp has converged on it (a
// warp-synchronous instruction over all 32 lanes), and a lane missing from
// it is a located error. The matrices are gathered from (and scattered to)
// the 32 lanes' registers by the fragment layouts; loads and stores report
// every lane's accesses to the observer like ld/st.
#include <algorithm>
#include <cfenv>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>

#include "bcusim/ptx/instructions.h"
#include "compile.h"
#include "float_format.h"
#include "observe.h"

namespace bcusim::engine::detail {

namespace {

// Element types of matrix operands.
enum class El : uint8_t {
  E4M3,
  E5M2,
  F16,
  BF16,
  TF32,
  F32,
  F64,
  S8,
  U8,
  S32,
  S4,
  U4,
  B1
};
bool is_int(El e) {
  return e == El::S8 || e == El::U8 || e == El::S4 || e == El::U4 ||
         e == El::B1;
}

uint32_t el_bits(El e) {
  switch (e) {
  case El::F16:
  case El::BF16:
    return 16;
  case El::S8:
  case El::U8:
  case El::E4M3:
  case El::E5M2:
    return 8;
  case El::S4:
  case El::U4:
    return 4;
  case El::B1:
    return 1;
  case El::F64:
    return 64;
  default:
    return 32;
  }
}
// Elements per register (f64 registers are 64-bit and hold one).
uint32_t per_reg(El e) { return e == El::F64 ? 1 : 32 / el_bits(e); }

// The element type a type modifier names; false for other modifiers.
bool el_of(ptx::Mod mod, El &e) {
  using ptx::Mod;
  switch (mod) {
  case Mod::f16:
    e = El::F16;
    return true;
  case Mod::bf16:
    e = El::BF16;
    return true;
  case Mod::tf32:
    e = El::TF32;
    return true;
  case Mod::f32:
    e = El::F32;
    return true;
  case Mod::f64:
    e = El::F64;
    return true;
  case Mod::s8:
    e = El::S8;
    return true;
  case Mod::u8:
    e = El::U8;
    return true;
  case Mod::s32:
    e = El::S32;
    return true;
  case Mod::s4:
    e = El::S4;
    return true;
  case Mod::u4:
    e = El::U4;
    return true;
  case Mod::b1:
    e = El::B1;
    return true;
  case Mod::e4m3:
    e = El::E4M3;
    return true;
  case Mod::e5m2:
    e = El::E5M2;
    return true;
  default:
    return false;
  }
}

// Takes the element types among the modifiers, in written order.
std::vector<El> take_els(const ptx::Instruction &in, Mods &mods) {
  std::vector<El> types;
  for (ptx::Mod md : in.mods) {
    El e;
    if (el_of(md, e) && mods.take(md))
      types.push_back(e);
  }
  return types;
}

// Every f16 value, decoded once (matrix operands are read many times).
const float *f16_values() {
  static const std::vector<float> t = [] {
    std::vector<float> v(65536);
    for (uint32_t h = 0; h < 65536; ++h)
      v[h] = float(decode(kF16, h));
    return v;
  }();
  return t.data();
}

// An element's value: floating-point types as double, integers exactly.
double el_value(El e, uint64_t bits) {
  switch (e) {
  case El::F16:
    return f16_values()[bits & 0xffff];
  case El::BF16:
    return std::bit_cast<float>(uint32_t(bits & 0xffff) << 16);
  case El::TF32: // the 13 low fraction bits are not part of a tf32 operand
    return std::bit_cast<float>(uint32_t(bits) & 0xffffe000u);
  case El::F32:
    return std::bit_cast<float>(uint32_t(bits));
  case El::F64:
    return std::bit_cast<double>(bits);
  case El::S8:
    return int8_t(bits);
  case El::U8:
    return uint8_t(bits);
  case El::E4M3:
    return decode(kE4M3, bits & 0xff);
  case El::E5M2:
    return decode(kE5M2, bits & 0xff);
  case El::S4:
    return int(bits & 0xf) - ((bits & 8) ? 16 : 0);
  case El::U4:
    return double(bits & 0xf);
  case El::B1:
    return double(bits & 1);
  default:
    return int32_t(bits);
  }
}

// One matrix operand of a warp: `nregs` register slots per lane holding
// elements of type `el`. Element j of a lane is in register j / per_reg.
struct Frag {
  El el = El::F32;
  uint32_t nregs = 0;
  const uint32_t *slots = nullptr;
  uint32_t count() const { return nregs * per_reg(el); }
  uint64_t get(Exec &x, uint32_t lane, uint32_t j) const {
    uint32_t pr = per_reg(el), w = el_bits(el);
    uint64_t r = x.reg(slots[j / pr])[lane];
    if (pr == 1)
      return r;
    return (r >> ((j % pr) * w)) & ((uint64_t(1) << w) - 1);
  }
  void set(Exec &x, uint32_t lane, uint32_t j, uint64_t v) const {
    uint32_t pr = per_reg(el), w = el_bits(el);
    const auto reg = x.reg(slots[j / pr]);
    if (pr == 1) {
      reg.set(lane, w == 32 ? v & 0xffffffffu : v);
      return;
    }
    uint64_t mask = ((uint64_t(1) << w) - 1) << ((j % pr) * w);
    reg.set(lane,
            (reg[lane] & ~mask & 0xffffffffu) | ((v << ((j % pr) * w)) & mask));
  }
};

// ---- the arithmetic (docs/tensor-cores.md "Arithmetic") ---------------------
// D = A (m x k) * B (k x n) + C, all row-major in `a`, `b`, `c`.
// Floating point: the H100's block accumulation (below). f64: a chain of
// IEEE fma in k order (rounding mode `rnd`). Integers: exact, wrapping to 32
// bits, or clamped with .satfinite.
struct MmaShape {
  uint32_t m, n, k;
};

enum : uint8_t { kSatfinite = 1 };

// b1: the "product" is a_ik AND / XOR b_kj (.and.popc / .xor.popc), so the
// sum counts the bits: d = c + popc(row op column).
enum : uint8_t { kBitAnd = 2, kBitXor = 4 };

// The smallest normal exponent of an element type (a subnormal's exponent
// for the alignment).
int el_emin(El e) {
  switch (e) {
  case El::F16:
  case El::E5M2:
    return -14;
  case El::E4M3:
    return -6;
  default:
    return -126;
  }
}

// How many products the hardware adds in one step (with the accumulator):
// 16 for 16-bit and 8-bit floating-point multiplicands, 4 for tf32.
uint32_t block_size(El ab) { return ab == El::TF32 ? 4 : 16; }

// How an instruction family accumulates (docs/tensor-cores.md
// "Arithmetic"): the products added in one step (0: block_size), the
// fraction bits every term keeps below the step's largest exponent, and the
// significant bits of a step's f32 result (24, or fewer: the result is
// truncated further).
struct Accumulation {
  uint32_t block = 0;
  int frac_bits = 25;
  int result_bits = 24;
};

// wgmma (measured on the H100 with tests/exec/wgmma_numerics.cu): all K
// products of the instruction and C in one step; e4m3/e5m2 keep 13
// fraction bits per term, and an f32 result keeps 14 significant bits (an
// f16 result is the step's sum rounded to f16).
Accumulation wgmma_accumulation(El ab, El d, uint32_t k) {
  if (ab == El::E4M3 || ab == El::E5M2)
    return {k, 13, d == El::F16 ? 24 : 14};
  return {k, 25, 24};
}

// The exponent a term is aligned by: its exponent field (the smallest normal
// exponent for a subnormal); a product's is the sum of its factors'.
int align_exp(double v, int emin) { return std::max(std::ilogb(v), emin); }

// One step of the floating-point accumulation: `acc` (an f32 value, the
// exponent minimum `acc_emin`) plus the products a[q] * b[q] for q in
// [q0, q1). Every term is truncated toward zero to a multiple of
// 2^(E - frac_bits), E the largest alignment exponent of the step's nonzero
// terms, the truncated terms are added exactly, and the sum is truncated
// (rounded toward zero) into f32 with `result_bits` significant bits,
// overflowing to infinity.
double block_step(double acc, int acc_emin, const double *a, const double *b,
                  uint32_t stride_b, uint32_t q0, uint32_t q1, int emin_a,
                  int emin_b, int frac_bits = 25, int result_bits = 24) {
  int e = INT32_MIN;
  bool all_neg_zero = std::signbit(acc);
  if (acc != 0)
    e = align_exp(acc, acc_emin);
  for (uint32_t q = q0; q < q1; ++q) {
    const double x = a[q], y = b[q * stride_b];
    if (x != 0 && y != 0)
      e = std::max(e, align_exp(x, emin_a) + align_exp(y, emin_b));
    all_neg_zero = all_neg_zero && std::signbit(x) != std::signbit(y);
  }
  if (e == INT32_MIN) // every term is zero: IEEE's sign of a sum of zeros
    return all_neg_zero ? -0.0 : 0.0;
  const int quantum = e - frac_bits;
  // |term| < 2^(e + 2), so a truncated term is below 2^27 quanta and the
  // sum of 1 + 64 of them fits easily.
  auto quanta = [&](double v) {
    return int64_t(std::trunc(std::ldexp(v, -quantum)));
  };
  int64_t sum = quanta(acc);
  for (uint32_t q = q0; q < q1; ++q)
    sum += quanta(a[q] * b[q * stride_b]); // exact: at most 48 bits
  if (sum == 0)
    return 0.0;
  const uint64_t mag = uint64_t(sum < 0 ? -sum : sum);
  uint32_t bits =
      uint32_t(encode(kF32, sum < 0, mag, quantum, {Round::RZ, false, false}));
  if ((bits & 0x7fffffffu) == 0x7f7fffffu &&
      std::ldexp(double(mag), quantum) > double(FLT_MAX))
    return sum < 0 ? -INFINITY : INFINITY;
  // Fewer significant bits: truncate the significand further (a subnormal
  // sum is already a multiple of the coarser quantum).
  bits &= ~((1u << (24 - result_bits)) - 1);
  return std::bit_cast<float>(bits);
}

// The special values of one element: NaN when an operand is NaN, a product
// is inf x 0, or infinities of both signs meet; otherwise +-inf when one is
// present; 0 when the result is finite.
double special(double c, const double *a, const double *b, uint32_t stride_b,
               uint32_t k) {
  bool pos = std::isinf(c) && c > 0, neg = std::isinf(c) && c < 0,
       nan = std::isnan(c);
  for (uint32_t q = 0; q < k; ++q) {
    const double x = a[q], y = b[q * stride_b];
    if (std::isnan(x) || std::isnan(y) ||
        ((std::isinf(x) || std::isinf(y)) && (x == 0 || y == 0)))
      nan = true;
    else if (std::isinf(x) || std::isinf(y))
      (std::signbit(x) != std::signbit(y) ? neg : pos) = true;
  }
  if (nan || (pos && neg))
    return NAN;
  return pos ? INFINITY : neg ? -INFINITY : 0.0;
}

void multiply(MmaShape s, El ea, El eb, El cd_in, El cd_out, Round rnd,
              uint32_t flags, const std::vector<double> &a,
              const std::vector<double> &b, const std::vector<double> &c,
              std::vector<uint64_t> &d, Accumulation rule = {}) {
  const uint32_t block = rule.block ? rule.block : block_size(ea);
  d.assign(size_t(s.m) * s.n, 0);
  for (uint32_t i = 0; i < s.m; ++i)
    for (uint32_t j = 0; j < s.n; ++j) {
      double cv = c[i * s.n + j];
      const bool satf = flags & kSatfinite;
      if (is_int(ea)) {
        int64_t acc = int64_t(cv);
        for (uint32_t q = 0; q < s.k; ++q) {
          int64_t x = int64_t(a[i * s.k + q]), y = int64_t(b[q * s.n + j]);
          if (ea == El::B1)
            acc += (flags & kBitXor) ? (x ^ y) : (x & y);
          else
            acc += x * y;
        }
        if (satf)
          acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        d[i * s.n + j] = uint32_t(int32_t(uint32_t(acc)));
        continue;
      }
      if (ea == El::F64) {
        int old = std::fegetround();
        std::fesetround(rnd == Round::RZ   ? FE_TOWARDZERO
                        : rnd == Round::RM ? FE_DOWNWARD
                        : rnd == Round::RP ? FE_UPWARD
                                           : FE_TONEAREST);
        volatile double acc = cv;
        for (uint32_t q = 0; q < s.k; ++q)
          acc = std::fma(a[i * s.k + q], b[q * s.n + j], acc);
        std::fesetround(old);
        d[i * s.n + j] = std::bit_cast<uint64_t>(double(acc));
        continue;
      }
      const double *ra = &a[i * s.k], *rb = &b[j];
      double acc = special(cv, ra, rb, s.n, s.k);
      if (acc == 0) {
        acc = cv;
        int acc_emin = el_emin(cd_in);
        for (uint32_t q0 = 0; q0 < s.k && !std::isinf(acc); q0 += block) {
          acc = block_step(acc, acc_emin, ra, rb, s.n, q0,
                           std::min(s.k, q0 + block), el_emin(ea), el_emin(eb),
                           rule.frac_bits, rule.result_bits);
          acc_emin = el_emin(El::F32);
        }
      }
      if (cd_out == El::F16) // the f32 sum, rounded to nearest even
        d[i * s.n + j] = encode_double(kF16, acc, {Round::RN, satf, false});
      else if (std::isnan(acc))
        d[i * s.n + j] = 0x7fffffffu;
      else
        d[i * s.n + j] = std::bit_cast<uint32_t>(float(acc)); // exact
    }
}

// ---- operands
// ------------------------------------------------------------------
// An instruction's operands are its MatrixOps payload (code.h): kind,
// shape, element types, flags, layout, the register counts of d, a, b, c
// and their slots (in that order); Desc is the handlers' view of it.
enum MmaKind : uint32_t { kMma, kWmmaMma, kWmmaLoad, kWmmaStore };
enum Which : uint32_t { kA, kB, kC, kD };
struct Desc {
  uint32_t kind, m, n, k;
  El a, b, c, d;
  uint32_t flags, layout, na, nb, nc, nd;
  const uint32_t *slots;
  Frag frag(Which w) const {
    switch (w) {
    case kD:
      return {d, nd, slots};
    case kA:
      return {a, na, slots + nd};
    case kB:
      return {b, nb, slots + nd + na};
    default:
      return {c, nc, slots + nd + na + nb};
    }
  }
};
Desc desc_of(const Exec &x, const Inst &in) {
  const MatrixOps &w = x.prog->payload<MatrixOps>(in);
  return Desc{w.kind,  w.m,     w.n,     w.k,     El(w.a),
              El(w.b), El(w.c), El(w.d), w.flags, w.layout,
              w.na,    w.nb,    w.nc,    w.nd,    w.slots.data()};
}

// .aligned: every lane of the warp executes the instruction together.
bool whole_warp(Exec &x, uint32_t m) {
  if (m == kFullMask)
    return true;
  const uint32_t exited = x.warp->exited & ~m, absent = ~x.warp->valid;
  const uint32_t off = ~m & ~exited & ~absent;
  std::string why;
  if (exited)
    why += fmt::format(", lanes {:#010x} have exited", exited);
  if (absent)
    why += fmt::format(", lanes {:#010x} do not exist", absent);
  if (off)
    why += fmt::format(", lanes {:#010x} are guarded off", off);
  x.set_error(FaultKind::WarpSync, uint32_t(std::countr_zero(m)),
              fmt::format("'{}' executed by lanes {:#010x} only{}: a "
                          ".sync.aligned matrix instruction needs all 32 "
                          "lanes of the warp",
                          x.prog->code_text[x.pc], m, why));
  return false;
}

// ---- mma.sync fragment layouts (PTX ISA "Matrix fragments for mma")
// ---------- Row and column of element i of lane `lane` of operand `w`.
void mma_pos(const Desc &d, Which w, uint32_t lane, uint32_t i, uint32_t &row,
             uint32_t &col) {
  const uint32_t g = lane >> 2, t = lane & 3;
  // Integer and FP8 multiplicands share the s8 layouts (scaled by P).
  const bool intab = is_int(d.a) || el_bits(d.a) == 8;
  // Integer multiplicands: P elements per 32-bit register (4 s8, 8 s4, 32
  // b1); the m16n8 layouts of every integer type are the s8 one scaled by P.
  const uint32_t P = intab ? per_reg(d.a) : 1;
  if (w == kC || w == kD) {
    if (d.m == 8) { // m8n8k4 f64, m8n8k16 s8
      row = g;
      col = 2 * t + i;
    } else {
      row = g + 8 * (i >> 1);
      col = 2 * t + (i & 1);
    }
    return;
  }
  if (d.m == 8) {
    if (w == kA) {
      row = g;
      col = P * t + i;
    } else {
      row = P * t + i;
      col = g;
    }
    return;
  }
  if (d.a == El::TF32) {
    if (w == kA) {
      row = g + 8 * (i & 1);
      col = t + 4 * (i >> 1);
    } else {
      row = t + 4 * i;
      col = g;
    }
    return;
  }
  if (intab) {
    if (w == kA) {
      row = g + 8 * ((i / P) & 1);
      col = P * t + i % P + 4 * P * (i / (2 * P));
    } else {
      row = P * t + i % P + 4 * P * (i / P);
      col = g;
    }
    return;
  }
  // f16 / bf16: m16n8k8, m16n8k16
  if (w == kA) {
    row = g + 8 * ((i >> 1) & 1);
    col = 2 * t + (i & 1) + 8 * (i >> 2);
  } else {
    row = 2 * t + (i & 1) + 8 * (i >> 1);
    col = g;
  }
}

// wmma fragments: the distribution is unspecified by PTX; bcusim's is
// element j of lane l = matrix element (l * E + j) mod (rows * cols) in
// row-major order (E elements per lane; copies where E * 32 exceeds the
// matrix). docs/tensor-cores.md "wmma fragments".
void wmma_dims(const Desc &d, Which w, uint32_t &rows, uint32_t &cols) {
  rows = w == kB ? d.k : d.m;
  cols = w == kA ? d.k : d.n;
}

void gather(Exec &x, const Desc &d, Which w, std::vector<double> &out) {
  uint32_t rows, cols;
  wmma_dims(d, w, rows, cols);
  out.assign(size_t(rows) * cols, 0.0);
  Frag f = d.frag(w);
  const uint32_t E = f.count();
  for (uint32_t l = 0; l < kWarpSize; ++l)
    for (uint32_t j = 0; j < E; ++j) {
      uint32_t r, c;
      if (d.kind == kMma) {
        mma_pos(d, w, l, j, r, c);
      } else {
        uint32_t idx = l * E + j;
        if (idx >= rows * cols)
          continue; // a copy
        r = idx / cols;
        c = idx % cols;
      }
      out[r * cols + c] = el_value(f.el, f.get(x, l, j));
    }
}

void scatter(Exec &x, const Desc &d, const std::vector<uint64_t> &v) {
  Frag f = d.frag(kD);
  const uint32_t E = f.count(), rows = d.m, cols = d.n;
  for (uint32_t l = 0; l < kWarpSize; ++l)
    for (uint32_t j = 0; j < E; ++j) {
      uint32_t r, c;
      if (d.kind == kMma) {
        mma_pos(d, kD, l, j, r, c);
      } else {
        uint32_t idx = (l * E + j) % (rows * cols);
        r = idx / cols;
        c = idx % cols;
      }
      f.set(x, l, j, v[r * cols + c]);
    }
}

void exec_mma(Exec &x, const Inst &in, uint32_t m) {
  if (!whole_warp(x, m))
    return;
  Desc d = desc_of(x, in);
  thread_local std::vector<double> a, b, c;
  thread_local std::vector<uint64_t> out;
  gather(x, d, kA, a);
  gather(x, d, kB, b);
  gather(x, d, kC, c);
  multiply({d.m, d.n, d.k}, d.a, d.b, d.c, d.d, Round(d.layout >> 8), d.flags,
           a, b, c, out);
  scatter(x, d, out);
}

// ---- wmma.load / wmma.store
// -------------------------------------------------- a[0] = the address base
// slot (kNone: absolute), imm = offset, a[1] = the stride slot (kNone: the
// default), flags = MemSpace; layout bit0 = col.
uint64_t lane_addr(Exec &x, const Inst &in, uint32_t l) {
  return (in.a[0] == kNone ? 0 : x.reg(in, 0)[l]) + uint64_t(in.imm);
}

bool uniform_operands(Exec &x, const Inst &in) {
  for (uint32_t k : {0u, 1u}) {
    if (in.a[k] == kNone)
      continue;
    const auto v = x.reg(in, k);
    for (uint32_t l = 1; l < kWarpSize; ++l)
      if (v[l] != v[0]) {
        x.set_error(FaultKind::WarpSync, l,
                    fmt::format("'{}': lane {} gives {} {:#x}, lane 0 gives "
                                "{:#x} (every lane must give the same {})",
                                x.prog->code_text[x.pc], l,
                                k == 0 ? "address" : "stride", v[l], v[0],
                                k == 0 ? "address" : "stride"));
        return false;
      }
  }
  return true;
}

void exec_wmma_ldst(Exec &x, const Inst &in, uint32_t m) {
  if (!whole_warp(x, m) || !uniform_operands(x, in))
    return;
  Desc d = desc_of(x, in);
  const bool store = d.kind == kWmmaStore;
  const Which w = Which(d.flags >> 1);
  const Frag f = d.frag(kD); // the loaded or stored fragment
  uint32_t rows, cols;
  wmma_dims(d, w, rows, cols);
  const bool col_major = d.layout & 1;
  const uint64_t stride =
      in.a[1] != kNone ? x.reg(in, 1)[0] : (col_major ? rows : cols);
  const uint32_t bits = el_bits(f.el);
  const uint32_t esize = bits >= 8 ? bits / 8 : 1; // sub-byte: its byte
  const MemSpace sp = MemSpace(in.flags);
  const uint32_t E = f.count();
  if (store)
    ++x.progress;
  for (uint32_t j = 0; j < E && !x.faulted; ++j) {
    AccessBatch batch(x, in, store ? AccessType::Write : AccessType::Read,
                      esize);
    for (uint32_t l = 0; l < kWarpSize && !x.faulted; ++l) {
      uint32_t idx = l * E + j;
      if (store && idx >= rows * cols)
        continue; // copies are stored once
      idx %= rows * cols;
      uint32_t r = idx / cols, c = idx % cols;
      const uint64_t pos = col_major ? c * stride + r : r * stride + c;
      uint64_t addr = lane_addr(x, in, l) + pos * bits / 8;
      if (addr % esize) {
        x.set_fault(FaultKind::Misaligned, sp, addr, esize, l, store);
        break;
      }
      uint8_t *p = x.translate(sp, addr, esize, store, l);
      if (!p)
        break;
      uint64_t v = 0;
      if (bits < 8) { // s4/u4/b1: element `pos` from the low bits up
        const uint32_t sh = uint32_t(pos * bits % 8), mk = (1u << bits) - 1;
        if (store)
          *p = uint8_t((*p & ~(mk << sh)) | ((f.get(x, l, j) & mk) << sh));
        else
          f.set(x, l, j, (*p >> sh) & mk);
      } else if (store) {
        v = f.get(x, l, j);
        std::memcpy(p, &v, esize);
      } else {
        std::memcpy(&v, p, esize);
        f.set(x, l, j, v);
      }
      batch.add(l, sp, addr);
    }
    batch.emit();
  }
}

// ---- ldmatrix / stmatrix / movmatrix ----------------------------------------
// 8x8 matrices of 16-bit elements; lane l holds, of each matrix, row l / 4,
// elements 2 (l % 4) and 2 (l % 4) + 1 (.trans: column l / 4, rows 2 (l %
// 4) and 2 (l % 4) + 1). Lanes 8i..8i+7 give the row addresses of matrix
// i. a[1..4] = the registers, a[0] = address base slot, imm = offset,
// n = matrices, flags = MemSpace, aux bit0 = .trans, bit1 = store.
void exec_ldstmatrix(Exec &x, const Inst &in, uint32_t m) {
  if (!whole_warp(x, m))
    return;
  const bool trans = in.aux & 1, store = in.aux & 2;
  const MemSpace sp = MemSpace(in.flags);
  uint16_t mat[4][8][8];
  if (store) {
    ++x.progress;
    for (uint32_t i = 0; i < in.n; ++i)
      for (uint32_t l = 0; l < kWarpSize; ++l) {
        uint64_t v = x.reg(in, 1 + i)[l];
        uint32_t r = l / 4, c = 2 * (l % 4);
        for (uint32_t h = 0; h < 2; ++h) {
          uint16_t e = uint16_t(v >> (16 * h));
          if (trans)
            mat[i][c + h][r] = e;
          else
            mat[i][r][c + h] = e;
        }
      }
  }
  AccessBatch batch(x, in, store ? AccessType::Write : AccessType::Read, 16);
  for (uint32_t l = 0; l < 8 * in.n && !x.faulted; ++l) {
    uint64_t addr = (in.a[0] == kNone ? 0 : x.reg(in, 0)[l]) + uint64_t(in.imm);
    if (addr % 16) {
      x.set_fault(FaultKind::Misaligned, sp, addr, 16, l, store);
      break;
    }
    uint8_t *p = x.translate(sp, addr, 16, store, l);
    if (!p)
      break;
    if (store)
      std::memcpy(p, mat[l / 8][l % 8], 16);
    else
      std::memcpy(mat[l / 8][l % 8], p, 16);
    batch.add(l, sp, addr);
  }
  batch.emit();
  if (store || x.faulted)
    return;
  for (uint32_t i = 0; i < in.n; ++i)
    for (uint32_t l = 0; l < kWarpSize; ++l) {
      uint32_t r = l / 4, c = 2 * (l % 4);
      uint64_t lo = trans ? mat[i][c][r] : mat[i][r][c];
      uint64_t hi = trans ? mat[i][c + 1][r] : mat[i][r][c + 1];
      x.reg(in, 1 + i).set(l, lo | hi << 16);
    }
}

void exec_movmatrix(Exec &x, const Inst &in, uint32_t m) {
  if (!whole_warp(x, m))
    return;
  uint16_t mat[8][8];
  const auto a = x.reg(in, 1);
  for (uint32_t l = 0; l < kWarpSize; ++l) {
    mat[l / 4][2 * (l % 4)] = uint16_t(a[l]);
    mat[l / 4][2 * (l % 4) + 1] = uint16_t(a[l] >> 16);
  }
  const auto d = x.reg(in, 0);
  for (uint32_t l = 0; l < kWarpSize; ++l) {
    uint32_t r = l / 4, c = 2 * (l % 4);
    d.set(l, uint64_t(mat[c][r]) | uint64_t(mat[c + 1][r]) << 16);
  }
}

// ---- wgmma (docs/hopper.md "wgmma" and "Matrix descriptors") ---------------
// A warpgroup is four consecutive warps of the CTA, the first one's index a
// multiple of 4. Warp r of the warpgroup holds rows 16r..16r+15 of A (from
// registers) and of the 64 x N accumulator D, so each warp's rows depend only
// on its own registers and on shared memory: bcusim computes them when the
// warp issues the instruction (results at issue; wgmma.wait_group only
// retires the groups).
constexpr uint32_t kWgTransA = 1, kWgTransB = 2, kWgDescA = 4, kWgNegA = 8,
                   kWgNegB = 16, kWgSparse = 32;
// wgmma.mma_async.sp: the sparsity selector in bits 8.. of the layout word.
constexpr uint32_t kWgSelShift = 8;

// The byte offset in shared memory of element (mn, k) of a matrix given by
// a wgmma matrix descriptor (PTX ISA "Matrix Descriptor Format" and
// "Shared Memory Matrix Layout"): start address bits 13-0, leading
// dimension byte offset bits 29-16, stride dimension byte offset bits
// 45-32 (each in units of 16 bytes), swizzle mode bits 63-62 (0 none, 1
// 128 B, 2 64 B, 3 32 B). `kbit` is the element's bit offset along K (one
// row of a K-major matrix is at most 32 bytes), `esize` its size in bytes
// (MN-major matrices are 16-bit).
uint64_t wg_offset(uint64_t desc, uint32_t mn, uint32_t kbit, bool mn_major,
                   uint32_t esize) {
  const uint64_t start = (desc & 0x3fff) << 4;
  const uint64_t lbo = ((desc >> 16) & 0x3fff) << 4;
  const uint64_t sbo = ((desc >> 32) & 0x3fff) << 4;
  static constexpr uint32_t kSwizzle[4] = {0, 128, 64, 32};
  const uint32_t S = kSwizzle[desc >> 62];
  uint64_t off;
  if (!mn_major) {
    const uint32_t kb = kbit / 8; // byte along K
    if (!S) // core matrices of 8 rows x 16 bytes: LBO along K, SBO along MN
      off = (mn / 8) * sbo + (mn % 8) * 16 + (kb / 16) * lbo + kb % 16;
    else // rows of S bytes, 8-row groups SBO apart (LBO unused)
      off = (mn / 8) * sbo + (mn % 8) * S + kb;
  } else {
    const uint32_t k = kbit / (8 * esize), mb = mn * esize;
    if (!S)
      off = (mb / 16) * sbo + mb % 16 + (k % 8) * 16 + (k / 8) * lbo;
    else
      off = (mb / S) * lbo + mb % S + (k % 8) * S + (k / 8) * sbo;
  }
  uint64_t addr = start + off;
  if (S) // the 16-byte chunk's bits 4.. XOR the row bits 7.. (as TMA writes)
    addr ^= ((addr >> 7) & (S / 16 - 1)) << 4;
  return addr;
}

// Reads a 64 x K (A) or K x N (B, mn = column) operand's rows [mn0, mn0 +
// rows) from shared memory through descriptor `desc`, into `out` as
// out[r * K + q] (A) or out[q * rows + r] (B). Reports the reads.
bool wg_read(Exec &x, const Inst &in, uint64_t desc, El e, uint32_t mn0,
             uint32_t rows, uint32_t K, bool mn_major, bool is_b,
             std::vector<double> &out, Warp::WgmmaRead &rec) {
  const uint32_t bits = el_bits(e), esize = bits >= 8 ? bits / 8 : 1;
  out.assign(size_t(rows) * K, 0.0);
  AccessBatch batch(x, in, AccessType::Read, esize);
  // wgmma reads its shared-memory operands through the async proxy.
  batch.set_async_proxy();
  uint32_t lane = 0;
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t q = 0; q < K; ++q) {
      // The descriptor names the executing CTA's own shared memory.
      const uint64_t addr = x.cta->shared_base +
                            wg_offset(desc, mn0 + r, q * bits, mn_major, esize);
      uint8_t *p = x.translate(MemSpace::Shared, addr, esize, false, lane);
      if (!p)
        return false;
      uint64_t v = 0;
      std::memcpy(&v, p, esize);
      if (bits < 8)
        v = (v >> (q * bits % 8)) & ((1u << bits) - 1);
      out[is_b ? size_t(q) * rows + r : size_t(r) * K + q] = el_value(e, v);
      batch.add(lane, MemSpace::Shared, addr);
      if (batch.on())
        rec.addrs.push_back(addr);
      if (++lane == kWarpSize) {
        batch.emit();
        lane = 0;
      }
    }
  batch.emit();
  return true;
}

// Row and column (in the warp's 16 rows) of element i of a lane's D
// fragment: the m16n8 accumulator layout of mma, repeated every 8 columns.
void wg_d_pos(uint32_t lane, uint32_t i, uint32_t &row, uint32_t &col) {
  row = (lane >> 2) + 8 * ((i >> 1) & 1);
  col = 8 * (i >> 2) + 2 * (lane & 3) + (i & 1);
}

// wgmma.mma_async.sp (PTX ISA "Sparse matrix storage" and "Matrix fragments
// for warpgroup-level multiply-accumulate operation with sparse matrix A"):
// the warp's 16 rows of A arrive packed, 16 x K/2 (`packed`, row-major),
// and the metadata places each packed element in its chunk of the K-wide
// row. 16- and 8-bit types: 2:4, a 4-bit nibble per chunk of 4 holds the
// chunk positions of its two packed elements (bits 1-0: the first, 3-2:
// the second); tf32: 1:2, a nibble per chunk of 2 (0b0100: position 0,
// 0b1110: position 1). Local row r = g + 8 h (g = r mod 8) and chunk j take
// their nibble from lane 4 g + 2 sel + j / 4, bits 16 h + 4 (j mod 4)
// (16-bit types and tf32: 8 chunks per row), or from lane 4 g + 2 (j / 8)
// + h, bits 4 (j mod 8) (8-bit types: 16 chunks, sel 0). A nibble PTX
// calls invalid (undefined behaviour) is an error naming the lane.
bool wg_unpack_sparse(Exec &x, const Desc &d, uint32_t meta_slot,
                      const std::vector<double> &packed,
                      std::vector<double> &a) {
  const uint32_t K = d.k, P = K / 2;
  const uint32_t sel = (d.layout >> kWgSelShift) & 3;
  const bool tf32 = d.a == El::TF32, byte = el_bits(d.a) == 8;
  const auto meta = x.reg(meta_slot);
  a.assign(size_t(16) * K, 0.0);
  for (uint32_t r = 0; r < 16; ++r) {
    const uint32_t g = r % 8, h = r / 8;
    for (uint32_t c = 0; c < P; ++c) {
      const uint32_t j = tf32 ? c : c / 2; // chunk
      const uint32_t lane =
          byte ? 4 * g + 2 * (j / 8) + h : 4 * g + 2 * sel + j / 4;
      const uint32_t bit = byte ? 4 * (j % 8) : 16 * h + 4 * (j % 4);
      const uint32_t nib = uint32_t(meta[lane] >> bit) & 0xf;
      uint32_t col;
      if (tf32) {
        if (nib != 0x4 && nib != 0xe) {
          x.set_error(FaultKind::WarpSync, lane,
                      fmt::format("'{}': sparsity metadata nibble {:#x} (bits "
                                  "{}-{} of lane {}) is not 0b0100 or 0b1110, "
                                  "the only values tf32 takes",
                                  x.prog->code_text[x.pc], nib, bit + 3, bit,
                                  lane));
          return false;
        }
        col = 2 * j + (nib == 0xe ? 1 : 0);
      } else {
        if ((nib & 3) == (nib >> 2)) {
          x.set_error(FaultKind::WarpSync, lane,
                      fmt::format("'{}': sparsity metadata nibble {:#x} (bits "
                                  "{}-{} of lane {}) names one position twice "
                                  "(0b0000, 0b0101, 0b1010 and 0b1111 are "
                                  "invalid)",
                                  x.prog->code_text[x.pc], nib, bit + 3, bit,
                                  lane));
          return false;
        }
        col = 4 * j + ((nib >> (2 * (c % 2))) & 3);
      }
      a[size_t(r) * K + col] = packed[size_t(r) * P + c];
    }
  }
  return true;
}

void exec_wgmma(Exec &x, const Inst &in, uint32_t m) {
  if (!whole_warp(x, m) || !whole_warpgroup(x))
    return;
  const Desc d = desc_of(x, in);
  const uint32_t rank = x.warp->index & 3, N = d.n;
  const bool sparse = d.layout & kWgSparse;
  // A's K: the packed width of a sparse A.
  const uint32_t K = sparse ? d.k / 2 : d.k;
  thread_local std::vector<double> a, b, c;
  thread_local std::vector<uint64_t> out;
  Warp::WgmmaLive live;
  live.reads[0].size = std::max(el_bits(d.a) / 8, 1u);
  live.reads[1].size = std::max(el_bits(d.b) / 8, 1u);
  // A: the warp's 16 rows.
  if (d.layout & kWgDescA) {
    if (!wg_read(x, in, x.reg(d.slots[d.nd])[0], d.a, 16 * rank, 16, K,
                 (d.layout & kWgTransA) != 0, false, a, live.reads[0]))
      return;
  } else {
    Desc ra = d;
    ra.kind = kMma;
    ra.m = 16;
    ra.n = 8;
    ra.k = K; // a sparse A's registers: the dense fragment of its packed K
    a.assign(size_t(16) * K, 0.0);
    const Frag f = d.frag(kA);
    for (uint32_t l = 0; l < kWarpSize; ++l)
      for (uint32_t j = 0; j < f.count(); ++j) {
        uint32_t r, col;
        mma_pos(ra, kA, l, j, r, col);
        a[r * K + col] = el_value(f.el, f.get(x, l, j));
      }
  }
  if (sparse) {
    thread_local std::vector<double> packed;
    packed.swap(a);
    if (!wg_unpack_sparse(x, d, d.slots[d.nd + d.na + 1], packed, a))
      return;
  }
  // B: K x N, column j of B is row j of the descriptor's N x K matrix.
  if (!wg_read(x, in, x.reg(d.slots[d.nd + d.na])[0], d.b, 0, N, d.k,
               (d.layout & kWgTransB) != 0, true, b, live.reads[1]))
    return;
  if (d.layout & kWgNegA)
    for (double &v : a)
      v = -v;
  if (d.layout & kWgNegB)
    for (double &v : b)
      v = -v;
  // C: the accumulator, or zero when scale-d is false (lane 0's predicate).
  const Frag fd = d.frag(kD);
  c.assign(size_t(16) * N, 0.0);
  if (x.p[in.a[0]] & 1)
    for (uint32_t l = 0; l < kWarpSize; ++l)
      for (uint32_t j = 0; j < fd.count(); ++j) {
        uint32_t r, col;
        wg_d_pos(l, j, r, col);
        c[r * N + col] = el_value(fd.el, fd.get(x, l, j));
      }
  multiply({16, N, d.k}, d.a, d.b, d.c, d.d, Round::RN, d.flags, a, b, c, out,
           wgmma_accumulation(d.a, d.d, d.k));
  for (uint32_t l = 0; l < kWarpSize; ++l)
    for (uint32_t j = 0; j < fd.count(); ++j) {
      uint32_t r, col;
      wg_d_pos(l, j, r, col);
      fd.set(x, l, j, out[r * N + col]);
    }
  const uint64_t id = ++x.warp->wgmma_issued;
  // Its accumulator and register-A operands stay live until the wait_group
  // that retires it (warp_step.cpp reports other accesses to them).
  {
    live.id = id;
    live.pc = x.pc;
    live.slots.assign(d.slots, d.slots + d.nd);
    if (!(d.layout & kWgDescA))
      live.slots.insert(live.slots.end(), d.slots + d.nd,
                        d.slots + d.nd + d.na);
    x.warp->wgmma_live.push_back(std::move(live));
  }
  if (x.sync_obs) {
    auto e = thread_event<WgmmaEvent>(x, m);
    e.id = id;
    e.accumulators = d.nd;
    e.a_registers = (d.layout & kWgDescA) ? 0 : d.na;
    x.sync_obs->on_wgmma_issue(e);
  }
}

// wgmma.fence / commit_group / wait_group: a = 0, 1, 2; imm = wait_group's
// count.
void exec_wgmma_sync(Exec &x, const Inst &in, uint32_t m) {
  if (!whole_warp(x, m) || !whole_warpgroup(x))
    return;
  Warp &w = *x.warp;
  auto e = thread_event<WgmmaEvent>(x, m);
  if (in.aux == 0) {
    if (x.sync_obs)
      x.sync_obs->on_wgmma_fence(e);
    return;
  }
  if (in.aux == 1) {
    // An empty group is still a group (wait_group counts it).
    e.group = w.wgmma_committed++;
    w.wgmma_groups.push_back(w.wgmma_issued);
    if (x.sync_obs)
      x.sync_obs->on_wgmma_commit(e);
    return;
  }
  const size_t keep = size_t(in.imm);
  if (w.wgmma_groups.size() > keep) {
    const size_t n = w.wgmma_groups.size() - keep;
    w.wgmma_retired = std::max(w.wgmma_retired, w.wgmma_groups[n - 1]);
    w.wgmma_groups.erase(w.wgmma_groups.begin(),
                         w.wgmma_groups.begin() + ptrdiff_t(n));
    // The shared memory a retired wgmma read through its descriptors: the
    // asynchronous read ends here (docs/hopper.md "Checker rules for async
    // pipelines"), so it is reported again at this instruction.
    for (const auto &l : w.wgmma_live) {
      if (l.id > w.wgmma_retired)
        continue;
      for (const auto &r : l.reads) {
        AccessBatch batch(x, in, AccessType::Read, r.size);
        uint32_t lane = 0;
        for (uint64_t addr : r.addrs) {
          batch.add(lane, MemSpace::Shared, addr);
          if (++lane == kWarpSize) {
            batch.emit();
            lane = 0;
          }
        }
        batch.emit();
      }
    }
    std::erase_if(w.wgmma_live, [&](const Warp::WgmmaLive &l) {
      return l.id <= w.wgmma_retired;
    });
  }
  if (x.sync_obs) {
    e.retired = w.wgmma_retired;
    e.allowed = uint32_t(in.imm);
    x.sync_obs->on_wgmma_wait(e);
  }
}

// ---- compilation
// -------------------------------------------------------------
bool wmma_shape(uint32_t m, uint32_t n, uint32_t k) {
  return (m == 16 && n == 16 && k == 16) || (m == 32 && n == 8 && k == 16) ||
         (m == 8 && n == 32 && k == 16) || (m == 16 && n == 16 && k == 8) ||
         (m == 8 && n == 8 && (k == 4 || k == 32 || k == 128));
}

// Register counts per lane (PTX ISA "Matrix fragments"), 0 = unsupported.
uint32_t wmma_regs(uint32_t m, uint32_t n, uint32_t k, Which w, El e) {
  const uint32_t rows = w == kB ? k : m, cols = w == kA ? k : n;
  const uint32_t elems = rows * cols;
  if (e == El::F16 && (w == kA || w == kB))
    return 8; // 16 halves per lane, every shape (copies)
  if (e == El::F16)
    return 4; // 256 accumulators in f16x2 pairs
  return std::max<uint32_t>(1, elems / (kWarpSize * per_reg(e)));
}

uint32_t mma_regs(uint32_t m, uint32_t n, uint32_t k, Which w, El e) {
  const uint32_t rows = w == kB ? k : m, cols = w == kA ? k : n;
  return rows * cols / (kWarpSize * per_reg(e));
}

bool slots_of(Compiler &c, const ptx::Operand &o, Ty t, bool dst, uint32_t want,
              std::vector<uint32_t> &out) {
  using K = ptx::Operand::Kind;
  std::vector<const ptx::Operand *> regs;
  if (o.kind == K::Vector)
    for (const auto &e : o.elems)
      regs.push_back(&e);
  else
    regs.push_back(&o);
  if (regs.size() != want) {
    c.error(o.loc, fmt::format("expected {} register{} here, got {}", want,
                               want == 1 ? "" : "s", regs.size()));
    return false;
  }
  for (const auto *r : regs)
    out.push_back(dst ? c.dst(*r) : c.src(*r, t));
  return true;
}

Ty reg_ty(El e) {
  return Ty{e == El::F64 ? Ty::F64 : e == El::F32 ? Ty::F32 : Ty::B32};
}

MemSpace space_of(Mods &mods) {
  const ptx::Mod sp =
      mods.take_any({ptx::Mod::global, ptx::Mod::shared, ptx::Mod::shared_cta});
  return sp == ptx::Mod::unknown  ? MemSpace::Generic
         : sp == ptx::Mod::global ? MemSpace::Global
                                  : MemSpace::Shared;
}

// wmma.mma's layout qualifier for matrix `which` ("a"/"b") against the
// wmma.load instructions of the function that define its fragment's first
// register: PTX leaves a mismatch undefined, bcusim reports it when every
// such load disagrees (docs/tensor-cores.md "Fragments").
bool layout_matches(Compiler &c, const ptx::Instruction &mma,
                    const ptx::Operand &frag, ptx::Mod which, ptx::Mod layout) {
  using K = ptx::Operand::Kind;
  auto first_reg = [](const ptx::Operand &o) -> const ptx::Operand & {
    return o.kind == K::Vector && !o.elems.empty() ? o.elems[0] : o;
  };
  const ptx::Operand &want = first_reg(frag);
  if (want.kind != K::Reg)
    return true;
  const ptx::Instruction *other = nullptr;
  for (const auto &ins : c.ast().body) {
    if (ins.op != ptx::Op::wmma || ins.operands.empty() ||
        !ins.has(ptx::Mod::load) || !ins.has(which))
      continue;
    const ptx::Operand &got = first_reg(ins.operands[0]);
    if (got.kind != K::Reg || got.reg != want.reg)
      continue;
    if (ins.has(layout))
      return true; // a load with the same layout defines it
    other = &ins;
  }
  if (!other)
    return true;
  c.error(mma.loc,
          fmt::format("'{}' uses matrix {} as .{}, but it was loaded as .{} "
                      "by the wmma.load at line {} (the layouts must match)",
                      c.text_of(mma), ptx::name_of(which), ptx::name_of(layout),
                      layout == ptx::Mod::row ? "col" : "row",
                      other->loc.line));
  return false;
}

Inst &emit_sync(Compiler &c, ExecFn f) {
  uint32_t all = c.const_slot(kFullMask, 4);
  Inst &i = c.emit(f, Kind::WarpSync);
  i.member = all;
  return i;
}
// The same, with the operands in `w`.
Inst &emit_sync(Compiler &c, ExecFn f, MatrixOps w) {
  uint32_t all = c.const_slot(kFullMask, 4);
  Inst &i = c.emit_with(f, std::move(w), Kind::WarpSync);
  i.member = all;
  return i;
}

// wgmma.mma_async (PTX ISA "wgmma.mma_async"): d, a (registers or a
// descriptor), b-desc, scale-d, then the immediates the type family takes:
// imm-scale-a, imm-scale-b (floating point), imm-trans-a (descriptor A),
// imm-trans-b (f16/bf16). wgmma.fence, commit_group, wait_group N.
bool compile_wgmma(Compiler &c, const ptx::Instruction &in, Mods &mods) {
  using K = ptx::Operand::Kind;
  const auto &o = in.operands;
  for (uint32_t which = 0; which < 3; ++which) {
    static constexpr ptx::Mod kNames[3] = {
        ptx::Mod::fence, ptx::Mod::commit_group, ptx::Mod::wait_group};
    if (!mods.take(kNames[which]))
      continue;
    if (!c.expect_operands(which == 2 ? 1 : 0) || !c.finish(mods))
      return true;
    int64_t count = 0;
    if (which == 2) {
      if (o[0].kind != K::Imm || o[0].ival < 0) {
        c.error(o[0].loc, "'wgmma.wait_group' takes an immediate group count");
        return true;
      }
      count = o[0].ival;
    }
    Inst &i = emit_sync(c, &exec_wgmma_sync);
    i.aux = which;
    i.imm = count;
    return true;
  }
  // wgmma.mma_async.sp: A sparse (packed M x K/2), then sp-meta, sp-sel.
  const bool sparse = mods.take(ptx::Mod::sp);
  if (!mods.take(ptx::Mod::mma_async)) {
    c.unsupported(fmt::format("form of {}", c.text_of(in)));
    return true;
  }
  const auto sh = ptx::matrix_shape(in);
  if (!sh || !sh->complete) {
    c.error(in.loc, "'wgmma.mma_async' needs a shape (.m64nNkK)");
    return true;
  }
  const uint32_t m = sh->m, n = sh->n, k = sh->k;
  const std::string &shape = in.modifiers[sh->index];
  mods.take_at(sh->index);
  const bool satf = mods.take(ptx::Mod::satfinite);
  const bool bit_and = mods.take(ptx::Mod::and_);
  const bool popc = mods.take(ptx::Mod::popc);
  const std::vector<El> types = take_els(in, mods);
  if (types.size() != 3) {
    c.error(in.loc,
            fmt::format("'{}' needs .dtype.atype.btype", c.text_of(in)));
    return true;
  }
  const El td = types[0], ta = types[1], tb = types[2];
  auto fp8 = [](El e) { return e == El::E4M3 || e == El::E5M2; };
  auto i8 = [](El e) { return e == El::S8 || e == El::U8; };
  const bool half = ta == El::F16 || ta == El::BF16;
  const bool integer = i8(ta) || ta == El::B1;
  // K of each family (twice as wide when A is sparse; b1 has no sparse
  // form); N multiples of 8 up to 256 (integer and b1: 8, 16, 24, then
  // multiples of 16).
  const uint32_t want_k = (half                ? 16
                           : ta == El::TF32    ? 8
                           : ta == El::B1      ? (sparse ? 0 : 256)
                           : fp8(ta) || i8(ta) ? 32
                                               : 0) *
                          (sparse ? 2 : 1);
  const bool types_ok =
      (half && tb == ta &&
       (td == El::F32 || (ta == El::F16 && td == El::F16))) ||
      (ta == El::TF32 && tb == ta && td == El::F32) ||
      (fp8(ta) && fp8(tb) && (td == El::F32 || td == El::F16)) ||
      (i8(ta) && i8(tb) && td == El::S32) ||
      (ta == El::B1 && tb == ta && td == El::S32);
  const bool n_ok =
      n >= 8 && n <= 256 && n % 8 == 0 && (!integer || n <= 24 || n % 16 == 0);
  if (!types_ok || m != 64 || k != want_k || !n_ok) {
    c.error(in.loc, fmt::format("'{}': no wgmma.mma_async{} form has shape .{} "
                                "with these types",
                                c.text_of(in), sparse ? ".sp" : "", shape));
    return true;
  }
  if ((ta == El::B1) != (bit_and && popc) || (satf && !i8(ta))) {
    c.error(in.loc, fmt::format("'{}': b1 takes '.and.popc', '.satfinite' "
                                "only integer types",
                                c.text_of(in)));
    return true;
  }
  const bool desc_a = !o.empty() && o.size() > 1 && o[1].kind != K::Vector;
  const size_t imms = integer ? 0 : half ? (desc_a ? 4 : 3) : 2;
  // Operands before the immediates: d, a, b-desc{, sp-meta, sp-sel},
  // scale-d.
  const size_t fixed = sparse ? 6 : 4;
  if (!c.expect_operands(fixed + imms) || !c.finish(mods))
    return true;
  int64_t sel = 0;
  if (sparse) {
    // sp-sel: "a 32-bit integer constant with values in the range 0..3";
    // 0 or 1 for the 16-bit types and tf32 (the thread pair of each four
    // that gives the metadata), 0 for the 8-bit types (all threads do).
    const auto &op = o[4];
    const int64_t most = el_bits(ta) == 8 ? 0 : 1;
    if (op.kind != K::Imm || op.ival < 0 || op.ival > most) {
      c.error(op.loc,
              fmt::format("'{}': the sparsity selector must be the immediate "
                          "{}",
                          c.text_of(in), most ? "0 or 1" : "0"));
      return true;
    }
    sel = op.ival;
  }
  const auto &scale_op = o[fixed - 1];
  int64_t iv[4] = {1, 1, 0, 0}; // scale-a, scale-b, trans-a, trans-b
  for (size_t q = 0; q < imms; ++q) {
    const auto &op = o[fixed + q];
    const uint32_t slot = q == 2 && !desc_a ? 3 : uint32_t(q);
    const bool scale = slot < 2;
    if (op.kind != K::Imm || (scale && op.ival != 1 && op.ival != -1) ||
        (!scale && op.ival != 0 && op.ival != 1)) {
      c.error(op.loc, fmt::format("'{}': operand {} must be {}", c.text_of(in),
                                  fixed + 1 + q,
                                  scale ? "the immediate 1 or -1"
                                        : "the immediate 0 or 1"));
      return true;
    }
    iv[slot] = op.ival;
  }
  MatrixOps w;
  w.kind = kMma;
  w.m = m;
  w.n = n;
  w.k = k;
  w.a = uint32_t(ta);
  w.b = uint32_t(tb);
  w.c = w.d = uint32_t(td);
  w.flags = (satf ? kSatfinite : 0) | (ta == El::B1 ? kBitAnd : 0);
  w.layout = (iv[2] ? kWgTransA : 0) | (iv[3] ? kWgTransB : 0) |
             (desc_a ? kWgDescA : 0) | (iv[0] < 0 ? kWgNegA : 0) |
             (iv[1] < 0 ? kWgNegB : 0) | (sparse ? kWgSparse : 0) |
             uint32_t(sel) << kWgSelShift;
  // D: N/2 registers per lane (f32, s32) or N/4 (f16 pairs); A: 4.
  const uint32_t nd = td == El::F16 ? n / 4 : n / 2;
  const uint32_t na = desc_a ? 1 : 4;
  w.na = na;
  w.nb = 1;
  w.nc = 0;
  w.nd = nd;
  std::vector<uint32_t> sd, sa, sb;
  if (desc_a)
    sa.push_back(c.src(o[1], Ty{Ty::B64}));
  else if (!slots_of(c, o[1], reg_ty(ta), false, na, sa))
    return true;
  sb.push_back(c.src(o[2], Ty{Ty::B64}));
  if (sparse) // sp-meta, after B's slot
    sb.push_back(c.src(o[3], Ty{Ty::B32}));
  // D is read (the accumulator) and written.
  std::vector<uint32_t> sd_in;
  if (!slots_of(c, o[0], reg_ty(td), false, nd, sd_in) ||
      !slots_of(c, o[0], reg_ty(td), true, nd, sd))
    return true;
  if (sd != sd_in) {
    c.error(o[0].loc, fmt::format("'{}': the accumulator must be registers",
                                  c.text_of(in)));
    return true;
  }
  const uint32_t scale_d = c.is_pred_operand(scale_op) ? c.psrc(scale_op)
                           : scale_op.kind == K::Imm
                               ? c.const_pred(scale_op.ival != 0)
                               : kNone;
  if (scale_d == kNone) {
    c.error(scale_op.loc, fmt::format("'{}': scale-d is a predicate or an "
                                      "immediate",
                                      c.text_of(in)));
    return true;
  }
  for (auto *v : {&sd, &sa, &sb})
    w.slots.insert(w.slots.end(), v->begin(), v->end());
  Inst &i = emit_sync(c, &exec_wgmma, std::move(w));
  i.a[0] = scale_d;
  return true;
}

} // namespace

bool is_wgmma(const Inst &in) {
  return in.fn == &exec_wgmma || in.fn == &exec_wgmma_sync;
}

bool whole_warpgroup(Exec &x) {
  const uint32_t first = x.warp->index & ~3u;
  const auto &w = x.cta->warps;
  bool ok = first + 4 <= w.size();
  for (uint32_t i = first; ok && i < first + 4; ++i)
    ok = w[i].valid == kFullMask;
  if (!ok)
    x.set_error(FaultKind::WarpSync, 0,
                fmt::format("'{}' in warp {}: its warpgroup (warps {}-{}) "
                            "does not have four complete warps (the CTA has "
                            "{} threads); a warpgroup instruction needs all "
                            "128 threads",
                            x.prog->code_text[x.pc], x.warp->index, first,
                            first + 3, x.cta->nthreads));
  return ok;
}

bool compile_mma(Compiler &c, const ptx::Instruction &in) {
  const ptx::Op op = in.op;
  if (op != ptx::Op::mma && op != ptx::Op::wmma && op != ptx::Op::ldmatrix &&
      op != ptx::Op::stmatrix && op != ptx::Op::movmatrix &&
      op != ptx::Op::wgmma)
    return false;
  const auto &o = in.operands;
  Mods mods(in);
  if (!mods.take(ptx::Mod::sync) || !mods.take(ptx::Mod::aligned)) {
    c.error(in.loc, fmt::format("'{}' needs '.sync.aligned'", in.opcode));
    return true;
  }
  if (op == ptx::Op::wgmma)
    return compile_wgmma(c, in, mods);
  if (op == ptx::Op::ldmatrix || op == ptx::Op::stmatrix) {
    const bool store = op == ptx::Op::stmatrix;
    const ptx::Mod num =
        mods.take_any({ptx::Mod::x1, ptx::Mod::x2, ptx::Mod::x4});
    bool trans = mods.take(ptx::Mod::trans);
    MemSpace sp = space_of(mods);
    if (!mods.take(ptx::Mod::m8n8) || num == ptx::Mod::unknown ||
        !mods.take(ptx::Mod::b16)) {
      c.unsupported(fmt::format("form of {}", in.opcode));
      return true;
    }
    if (!c.expect_operands(2) || !c.finish(mods))
      return true;
    const uint32_t n = num == ptx::Mod::x1 ? 1 : num == ptx::Mod::x2 ? 2 : 4;
    Addr addr;
    if (!c.address(o[store ? 0 : 1], sp, addr))
      return true;
    std::vector<uint32_t> regs;
    if (!slots_of(c, o[store ? 1 : 0], Ty{Ty::B32}, !store, n, regs))
      return true;
    Inst &i = emit_sync(c, &exec_ldstmatrix);
    i.a[0] = addr.base;
    i.imm = addr.off;
    for (uint32_t k = 0; k < n; ++k)
      i.a[1 + k] = regs[k];
    i.n = uint8_t(n);
    i.flags = uint8_t(sp);
    i.aux = (trans ? 1 : 0) | (store ? 2 : 0);
    return true;
  }
  if (op == ptx::Op::movmatrix) {
    if (!mods.take(ptx::Mod::m8n8) || !mods.take(ptx::Mod::trans) ||
        !mods.take(ptx::Mod::b16)) {
      c.unsupported("form of movmatrix");
      return true;
    }
    if (!c.expect_operands(2) || !c.finish(mods))
      return true;
    uint32_t s = c.src(o[1], Ty{Ty::B32});
    uint32_t d = c.dst(o[0]);
    Inst &i = emit_sync(c, &exec_movmatrix);
    i.a[0] = d;
    i.a[1] = s;
    return true;
  }
  // wmma.load / wmma.store / wmma.mma / mma
  const auto sh = ptx::matrix_shape(in);
  if (!sh || !sh->complete) {
    c.error(in.loc, fmt::format("'{}' needs a shape (.mMnNkK)", in.opcode));
    return true;
  }
  const uint32_t m = sh->m, n = sh->n, k = sh->k;
  const std::string &shape = in.modifiers[sh->index];
  mods.take_at(sh->index);
  MatrixOps w;
  w.m = m;
  w.n = n;
  w.k = k;
  std::vector<El> types;
  auto take_types = [&] { types = take_els(in, mods); };
  auto known_shape = [&](bool wmma_form, El a) {
    if (wmma_form) {
      if (a == El::F16 || a == El::BF16 || a == El::S8 || a == El::U8)
        return wmma_shape(m, n, k) && k == 16;
      if (a == El::TF32)
        return m == 16 && n == 16 && k == 8;
      if (a == El::F64)
        return m == 8 && n == 8 && k == 4;
      if (a == El::S4 || a == El::U4)
        return m == 8 && n == 8 && k == 32;
      if (a == El::B1)
        return m == 8 && n == 8 && k == 128;
      return false;
    }
    if (a == El::F16 || a == El::BF16)
      return m == 16 && n == 8 && (k == 8 || k == 16);
    if (a == El::TF32)
      return m == 16 && n == 8 && (k == 4 || k == 8);
    if (a == El::F64)
      return m == 8 && n == 8 && k == 4;
    if (a == El::S8 || a == El::U8)
      return (m == 16 && n == 8 && (k == 16 || k == 32)) ||
             (m == 8 && n == 8 && k == 16);
    if (a == El::E4M3 || a == El::E5M2)
      return m == 16 && n == 8 && k == 32;
    if (a == El::S4 || a == El::U4)
      return (m == 16 && n == 8 && (k == 32 || k == 64)) ||
             (m == 8 && n == 8 && k == 32);
    if (a == El::B1)
      return (m == 16 && n == 8 && (k == 128 || k == 256)) ||
             (m == 8 && n == 8 && k == 128);
    return false;
  };
  if (op == ptx::Op::wmma &&
      (mods.take(ptx::Mod::load) || mods.take(ptx::Mod::store))) {
    const bool store = in.has(ptx::Mod::store);
    Which which = store                    ? kD
                  : mods.take(ptx::Mod::a) ? kA
                  : mods.take(ptx::Mod::b) ? kB
                  : mods.take(ptx::Mod::c) ? kC
                                           : kD;
    if (store && !mods.take(ptx::Mod::d)) {
      c.error(in.loc, "'wmma.store' stores the '.d' matrix");
      return true;
    }
    if (!store && which == kD) {
      c.error(in.loc, "'wmma.load' needs '.a', '.b' or '.c'");
      return true;
    }
    const ptx::Mod lay = mods.take_any({ptx::Mod::row, ptx::Mod::col});
    MemSpace sp = space_of(mods);
    take_types();
    if (lay == ptx::Mod::unknown || types.size() != 1) {
      c.error(in.loc, fmt::format("'{}' needs '.row' or '.col' and one type",
                                  c.text_of(in)));
      return true;
    }
    El e = types[0];
    if (!wmma_shape(m, n, k)) {
      c.unsupported(fmt::format("wmma shape .{}", shape));
      return true;
    }
    if (o.size() != 2 && o.size() != 3) {
      c.error(in.loc, fmt::format("'{}' takes a fragment, an address and an "
                                  "optional stride",
                                  c.text_of(in)));
      return true;
    }
    if (!c.finish(mods))
      return true;
    const auto &frag_op = o[store ? 1 : 0];
    const auto &addr_op = o[store ? 0 : 1];
    Addr addr;
    if (!c.address(addr_op, sp, addr))
      return true;
    uint32_t stride = o.size() > 2 ? c.src(o[2], Ty{Ty::U32}) : kNone;
    uint32_t nregs = wmma_regs(m, n, k, which, e);
    std::vector<uint32_t> regs;
    if (!slots_of(c, frag_op, reg_ty(e), !store, nregs, regs))
      return true;
    w.kind = store ? kWmmaStore : kWmmaLoad;
    w.a = w.b = w.c = w.d = uint32_t(e);
    w.flags = uint32_t(which) << 1;
    w.layout = lay == ptx::Mod::col ? 1 : 0;
    w.nd = nregs; // the fragment's registers take d's place
    w.slots = std::move(regs);
    Inst &i = emit_sync(c, &exec_wmma_ldst, std::move(w));
    i.a[0] = addr.base;
    i.a[1] = stride;
    i.imm = addr.off;
    i.flags = uint8_t(sp);
    return true;
  }
  // wmma.mma / mma.sync: d, a, b, c
  const bool is_wmma = op == ptx::Op::wmma;
  if (is_wmma && !mods.take(ptx::Mod::mma)) {
    c.unsupported("wmma operation");
    return true;
  }
  const ptx::Mod la = mods.take_any({ptx::Mod::row, ptx::Mod::col});
  const ptx::Mod lb = mods.take_any({ptx::Mod::row, ptx::Mod::col});
  const ptx::Mod rnd =
      mods.take_any({ptx::Mod::rn, ptx::Mod::rz, ptx::Mod::rm, ptx::Mod::rp});
  bool satf = mods.take(ptx::Mod::satfinite);
  const ptx::Mod bitop = mods.take_any({ptx::Mod::and_, ptx::Mod::xor_});
  if (bitop != ptx::Mod::unknown && !mods.take(ptx::Mod::popc)) {
    c.error(in.loc, fmt::format("'.{}' needs '.popc'", ptx::name_of(bitop)));
    return true;
  }
  take_types();
  El ta, tb, tc, td;
  // Types as written: mma: .dtype.atype.btype.ctype; wmma: .dtype.ctype
  // (f16 family), .atype (bf16/tf32: .dtype.atype.btype.ctype), integer
  // .s32.atype.btype.s32, f64 .f64.f64.f64.f64.
  if (types.size() == 4) {
    td = types[0];
    ta = types[1];
    tb = types[2];
    tc = types[3];
  } else if (types.size() == 2 && is_wmma) {
    td = types[0];
    tc = types[1];
    ta = tb = El::F16;
  } else {
    c.error(in.loc,
            fmt::format("'{}': cannot tell the operand types", c.text_of(in)));
    return true;
  }
  auto width = [](El e) {
    return e == El::S8 || e == El::U8       ? 8
           : e == El::S4 || e == El::U4     ? 4
           : e == El::E4M3 || e == El::E5M2 ? 88
                                            : 0;
  };
  const bool mixed_ok = width(ta) != 0 && width(ta) == width(tb);
  if (!known_shape(is_wmma, ta) || (ta != tb && !mixed_ok) ||
      ((ta == El::B1) != (bitop != ptx::Mod::unknown))) {
    c.unsupported(
        fmt::format("{} shape .{} with these types", in.opcode, shape));
    return true;
  }
  if (!is_wmma && (la != ptx::Mod::row || lb != ptx::Mod::col) &&
      ta != El::F64) {
    c.unsupported(
        fmt::format("mma layout .{}.{}", ptx::name_of(la), ptx::name_of(lb)));
    return true;
  }
  if (!c.expect_operands(4) || !c.finish(mods))
    return true;
  if (is_wmma && (!layout_matches(c, in, o[1], ptx::Mod::a, la) ||
                  !layout_matches(c, in, o[2], ptx::Mod::b, lb)))
    return true;
  auto count = [&](Which wh, El e) {
    return is_wmma ? wmma_regs(m, n, k, wh, e) : mma_regs(m, n, k, wh, e);
  };
  std::vector<uint32_t> regs;
  uint32_t nd = count(kD, td), na = count(kA, ta), nb = count(kB, tb),
           nc = count(kC, tc);
  std::vector<uint32_t> sa, sb, sc, sd;
  if (!slots_of(c, o[1], reg_ty(ta), false, na, sa) ||
      !slots_of(c, o[2], reg_ty(tb), false, nb, sb) ||
      !slots_of(c, o[3], reg_ty(tc), false, nc, sc) ||
      !slots_of(c, o[0], reg_ty(td), true, nd, sd))
    return true;
  w.kind = is_wmma ? kWmmaMma : kMma;
  w.a = uint32_t(ta);
  w.b = uint32_t(tb);
  w.c = uint32_t(tc);
  w.d = uint32_t(td);
  w.flags = (satf ? kSatfinite : 0) | (bitop == ptx::Mod::and_   ? kBitAnd
                                       : bitop == ptx::Mod::xor_ ? kBitXor
                                                                 : 0);
  w.layout = uint32_t(rnd == ptx::Mod::rz   ? Round::RZ
                      : rnd == ptx::Mod::rm ? Round::RM
                      : rnd == ptx::Mod::rp ? Round::RP
                                            : Round::RN)
             << 8;
  w.na = na;
  w.nb = nb;
  w.nc = nc;
  w.nd = nd;
  for (auto *v : {&sd, &sa, &sb, &sc})
    w.slots.insert(w.slots.end(), v->begin(), v->end());
  emit_sync(c, &exec_mma, std::move(w));
  return true;
}

} // namespace bcusim::engine::detail
