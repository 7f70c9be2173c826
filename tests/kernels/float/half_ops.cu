// arch: sm_90
// half_ops: .f16, .f16x2, .bf16 and .bf16x2 arithmetic over every pair of
// special values: add sub mul fma (.rn .ftz .sat .relu .oob), neg abs,
// min max (.NaN .xorsign.abs .ftz), ex2.approx, tanh.approx, setp (all 14
// comparisons, one bit each; x2: bit 2c = lower halves, 2c+1 = upper) and
// set. Inputs: the 64 f16 and 64 bf16 values of cvt_corners_inputs.h
// (signed zeros, subnormals, the largest finite values, infinities, NaNs
// with payloads, ties): CTA x and thread t take a = V[x], b = V[t],
// c = V[(x + t) % 64]; the x2 operands pack A = {lo a, hi b},
// B = {lo b, hi c}, C = {lo c, hi a}. Each result is stored as its bit
// pattern (16-bit results zero-extended). Inline PTX: the instruction under
// test is exactly the one written.
// Launch: -g 64 -b 64, out = u32[4096 * 68].

#include "cvt_corners_inputs.h"

extern "C" __global__ void half_ops(unsigned *out) {
  const int x = blockIdx.x, t = threadIdx.x;
  const unsigned short a = kCvtF16[x], b = kCvtF16[t], c = kCvtF16[(x + t) % 64];
  const unsigned A = a | unsigned(b) << 16, B = b | unsigned(c) << 16,
                 C = c | unsigned(a) << 16;
  const unsigned short ab = kCvtBF16[x], bb = kCvtBF16[t],
                       cb = kCvtBF16[(x + t) % 64];
  const unsigned Ab = ab | unsigned(bb) << 16, Bb = bb | unsigned(cb) << 16,
                 Cb = cb | unsigned(ab) << 16;
  unsigned *o = out + (x * 64 + t) * 68;
  int k = 0;
  { unsigned short r; asm("add.rn.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("add.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("add.rn.ftz.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("add.rn.sat.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("add.rn.ftz.sat.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("sub.rn.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("sub.rn.ftz.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("mul.rn.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("mul.rn.ftz.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("mul.rn.sat.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(a), "h"(b), "h"(c)); o[k++] = r; }
  { unsigned short r; asm("fma.rn.ftz.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(a), "h"(b), "h"(c)); o[k++] = r; }
  { unsigned short r; asm("fma.rn.sat.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(a), "h"(b), "h"(c)); o[k++] = r; }
  { unsigned short r; asm("fma.rn.relu.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(a), "h"(b), "h"(c)); o[k++] = r; }
  { unsigned short r; asm("fma.rn.ftz.relu.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(a), "h"(b), "h"(c)); o[k++] = r; }
  { unsigned short r; asm("fma.rn.oob.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(a), "h"(b), "h"(c)); o[k++] = r; }
  { unsigned short r; asm("neg.f16 %0, %1;" : "=h"(r) : "h"(a)); o[k++] = r; }
  { unsigned short r; asm("neg.ftz.f16 %0, %1;" : "=h"(r) : "h"(a)); o[k++] = r; }
  { unsigned short r; asm("abs.f16 %0, %1;" : "=h"(r) : "h"(a)); o[k++] = r; }
  { unsigned short r; asm("abs.ftz.f16 %0, %1;" : "=h"(r) : "h"(a)); o[k++] = r; }
  { unsigned short r; asm("min.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("max.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("min.NaN.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("max.NaN.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("min.xorsign.abs.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("max.NaN.xorsign.abs.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("min.ftz.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("ex2.approx.f16 %0, %1;" : "=h"(r) : "h"(a)); o[k++] = r; }
  { unsigned short r; asm("tanh.approx.f16 %0, %1;" : "=h"(r) : "h"(a)); o[k++] = r; }
  {
    unsigned bits = 0, r;
    asm("{ .reg .pred p; setp.eq.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 0;
    asm("{ .reg .pred p; setp.ne.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 1;
    asm("{ .reg .pred p; setp.lt.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 2;
    asm("{ .reg .pred p; setp.le.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 3;
    asm("{ .reg .pred p; setp.gt.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 4;
    asm("{ .reg .pred p; setp.ge.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 5;
    asm("{ .reg .pred p; setp.equ.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 6;
    asm("{ .reg .pred p; setp.neu.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 7;
    asm("{ .reg .pred p; setp.ltu.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 8;
    asm("{ .reg .pred p; setp.leu.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 9;
    asm("{ .reg .pred p; setp.gtu.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 10;
    asm("{ .reg .pred p; setp.geu.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 11;
    asm("{ .reg .pred p; setp.num.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 12;
    asm("{ .reg .pred p; setp.nan.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 13;
    o[k++] = bits;
  }
  {
    unsigned bits = 0, r;
    asm("{ .reg .pred p; setp.eq.ftz.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 0;
    asm("{ .reg .pred p; setp.ne.ftz.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 1;
    asm("{ .reg .pred p; setp.lt.ftz.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 2;
    asm("{ .reg .pred p; setp.le.ftz.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 3;
    asm("{ .reg .pred p; setp.gt.ftz.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 4;
    asm("{ .reg .pred p; setp.ge.ftz.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 5;
    asm("{ .reg .pred p; setp.equ.ftz.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 6;
    asm("{ .reg .pred p; setp.neu.ftz.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 7;
    asm("{ .reg .pred p; setp.ltu.ftz.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 8;
    asm("{ .reg .pred p; setp.leu.ftz.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 9;
    asm("{ .reg .pred p; setp.gtu.ftz.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 10;
    asm("{ .reg .pred p; setp.geu.ftz.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 11;
    asm("{ .reg .pred p; setp.num.ftz.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 12;
    asm("{ .reg .pred p; setp.nan.ftz.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(a), "h"(b)); bits |= r << 13;
    o[k++] = bits;
  }
  { unsigned short r; asm("set.lt.u16.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned short r; asm("set.gtu.f16.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned r; asm("set.ge.u32.f16 %0, %1, %2;" : "=r"(r) : "h"(a), "h"(b)); o[k++] = r; }
  { unsigned r; asm("add.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(A), "r"(B)); o[k++] = r; }
  { unsigned r; asm("fma.rn.relu.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(A), "r"(B), "r"(C)); o[k++] = r; }
  { unsigned r; asm("min.NaN.f16x2 %0, %1, %2;" : "=r"(r) : "r"(A), "r"(B)); o[k++] = r; }
  { unsigned r; asm("ex2.approx.f16x2 %0, %1;" : "=r"(r) : "r"(A)); o[k++] = r; }
  { unsigned r; asm("mul.rn.ftz.sat.f16x2 %0, %1, %2;" : "=r"(r) : "r"(A), "r"(B)); o[k++] = r; }
  { unsigned r; asm("neg.f16x2 %0, %1;" : "=r"(r) : "r"(A)); o[k++] = r; }
  { unsigned r; asm("max.xorsign.abs.f16x2 %0, %1, %2;" : "=r"(r) : "r"(A), "r"(B)); o[k++] = r; }
  {
    unsigned bits = 0, r;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.eq.f16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(A), "r"(B)); bits |= r << 0;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.ne.f16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(A), "r"(B)); bits |= r << 2;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.lt.f16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(A), "r"(B)); bits |= r << 4;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.le.f16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(A), "r"(B)); bits |= r << 6;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.gt.f16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(A), "r"(B)); bits |= r << 8;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.ge.f16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(A), "r"(B)); bits |= r << 10;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.equ.f16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(A), "r"(B)); bits |= r << 12;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.neu.f16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(A), "r"(B)); bits |= r << 14;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.ltu.f16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(A), "r"(B)); bits |= r << 16;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.leu.f16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(A), "r"(B)); bits |= r << 18;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.gtu.f16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(A), "r"(B)); bits |= r << 20;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.geu.f16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(A), "r"(B)); bits |= r << 22;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.num.f16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(A), "r"(B)); bits |= r << 24;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.nan.f16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(A), "r"(B)); bits |= r << 26;
    o[k++] = bits;
  }
  { unsigned r; asm("set.ge.f16x2.f16x2 %0, %1, %2;" : "=r"(r) : "r"(A), "r"(B)); o[k++] = r; }
  { unsigned r; asm("set.lt.u32.f16x2 %0, %1, %2;" : "=r"(r) : "r"(A), "r"(B)); o[k++] = r; }
  { unsigned short r; asm("add.rn.bf16 %0, %1, %2;" : "=h"(r) : "h"(ab), "h"(bb)); o[k++] = r; }
  { unsigned short r; asm("add.bf16 %0, %1, %2;" : "=h"(r) : "h"(ab), "h"(bb)); o[k++] = r; }
  { unsigned short r; asm("sub.rn.bf16 %0, %1, %2;" : "=h"(r) : "h"(ab), "h"(bb)); o[k++] = r; }
  { unsigned short r; asm("mul.rn.bf16 %0, %1, %2;" : "=h"(r) : "h"(ab), "h"(bb)); o[k++] = r; }
  { unsigned short r; asm("fma.rn.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(ab), "h"(bb), "h"(cb)); o[k++] = r; }
  { unsigned short r; asm("fma.rn.relu.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(ab), "h"(bb), "h"(cb)); o[k++] = r; }
  { unsigned short r; asm("fma.rn.oob.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(ab), "h"(bb), "h"(cb)); o[k++] = r; }
  { unsigned short r; asm("fma.rn.oob.relu.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(ab), "h"(bb), "h"(cb)); o[k++] = r; }
  { unsigned short r; asm("neg.bf16 %0, %1;" : "=h"(r) : "h"(ab)); o[k++] = r; }
  { unsigned short r; asm("abs.bf16 %0, %1;" : "=h"(r) : "h"(ab)); o[k++] = r; }
  { unsigned short r; asm("ex2.approx.ftz.bf16 %0, %1;" : "=h"(r) : "h"(ab)); o[k++] = r; }
  { unsigned short r; asm("tanh.approx.bf16 %0, %1;" : "=h"(r) : "h"(ab)); o[k++] = r; }
  { unsigned short r; asm("min.bf16 %0, %1, %2;" : "=h"(r) : "h"(ab), "h"(bb)); o[k++] = r; }
  { unsigned short r; asm("max.NaN.bf16 %0, %1, %2;" : "=h"(r) : "h"(ab), "h"(bb)); o[k++] = r; }
  { unsigned short r; asm("min.xorsign.abs.bf16 %0, %1, %2;" : "=h"(r) : "h"(ab), "h"(bb)); o[k++] = r; }
  {
    unsigned bits = 0, r;
    asm("{ .reg .pred p; setp.eq.bf16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(ab), "h"(bb)); bits |= r << 0;
    asm("{ .reg .pred p; setp.ne.bf16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(ab), "h"(bb)); bits |= r << 1;
    asm("{ .reg .pred p; setp.lt.bf16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(ab), "h"(bb)); bits |= r << 2;
    asm("{ .reg .pred p; setp.le.bf16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(ab), "h"(bb)); bits |= r << 3;
    asm("{ .reg .pred p; setp.gt.bf16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(ab), "h"(bb)); bits |= r << 4;
    asm("{ .reg .pred p; setp.ge.bf16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(ab), "h"(bb)); bits |= r << 5;
    asm("{ .reg .pred p; setp.equ.bf16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(ab), "h"(bb)); bits |= r << 6;
    asm("{ .reg .pred p; setp.neu.bf16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(ab), "h"(bb)); bits |= r << 7;
    asm("{ .reg .pred p; setp.ltu.bf16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(ab), "h"(bb)); bits |= r << 8;
    asm("{ .reg .pred p; setp.leu.bf16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(ab), "h"(bb)); bits |= r << 9;
    asm("{ .reg .pred p; setp.gtu.bf16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(ab), "h"(bb)); bits |= r << 10;
    asm("{ .reg .pred p; setp.geu.bf16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(ab), "h"(bb)); bits |= r << 11;
    asm("{ .reg .pred p; setp.num.bf16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(ab), "h"(bb)); bits |= r << 12;
    asm("{ .reg .pred p; setp.nan.bf16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(ab), "h"(bb)); bits |= r << 13;
    o[k++] = bits;
  }
  { unsigned short r; asm("set.lt.bf16.bf16 %0, %1, %2;" : "=h"(r) : "h"(ab), "h"(bb)); o[k++] = r; }
  { unsigned r; asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(Ab), "r"(Bb), "r"(Cb)); o[k++] = r; }
  { unsigned r; asm("min.NaN.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(Ab), "r"(Bb)); o[k++] = r; }
  { unsigned r; asm("tanh.approx.bf16x2 %0, %1;" : "=r"(r) : "r"(Ab)); o[k++] = r; }
  { unsigned r; asm("max.xorsign.abs.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(Ab), "r"(Bb)); o[k++] = r; }
  { unsigned r; asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(Ab), "r"(Bb)); o[k++] = r; }
  {
    unsigned bits = 0, r;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.eq.bf16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(Ab), "r"(Bb)); bits |= r << 0;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.ne.bf16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(Ab), "r"(Bb)); bits |= r << 2;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.lt.bf16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(Ab), "r"(Bb)); bits |= r << 4;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.le.bf16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(Ab), "r"(Bb)); bits |= r << 6;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.gt.bf16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(Ab), "r"(Bb)); bits |= r << 8;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.ge.bf16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(Ab), "r"(Bb)); bits |= r << 10;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.equ.bf16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(Ab), "r"(Bb)); bits |= r << 12;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.neu.bf16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(Ab), "r"(Bb)); bits |= r << 14;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.ltu.bf16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(Ab), "r"(Bb)); bits |= r << 16;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.leu.bf16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(Ab), "r"(Bb)); bits |= r << 18;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.gtu.bf16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(Ab), "r"(Bb)); bits |= r << 20;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.geu.bf16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(Ab), "r"(Bb)); bits |= r << 22;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.num.bf16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(Ab), "r"(Bb)); bits |= r << 24;
    asm("{ .reg .pred p, q; .reg .u32 t; setp.nan.bf16x2 p|q, %1, %2; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; or.b32 %0, %0, t; }" : "=r"(r) : "r"(Ab), "r"(Bb)); bits |= r << 26;
    o[k++] = bits;
  }
  { unsigned r; asm("set.lt.u32.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(Ab), "r"(Bb)); o[k++] = r; }
}
