// One small PTX kernel per instruction family, each checked against values
// computed here from the PTX ISA definitions.
#include <cmath>
#include <cstring>

#include "test_util.h"

namespace bcusim::engine::test {
namespace {

// Runs `code` in every thread of one CTA; the code computes %res (b64) from
// %t (tid.x, u32); out[tid] = %res.
std::vector<uint64_t> per_thread(const std::string &code,
                                 uint32_t nthreads = 32,
                                 const std::string &globals = "") {
  std::string body = R"(
  .reg .b64 %out, %addr, %res, %off;
  .reg .b32 %t;
  ld.param.u64 %out, [k_param_0];
  mov.u32 %t, %tid.x;
  mul.wide.u32 %off, %t, 8;
  add.s64 %addr, %out, %off;
  mov.u64 %res, 0;
)" + code + R"(
  st.global.u64 [%addr], %res;
  ret;)";
  auto m = load_text(ptx_module(".param .u64 k_param_0", body, globals));
  if (!m)
    return {};
  Device d;
  DevicePtr p = d.alloc(nthreads * 8);
  auto r = d.launch(*m, "k", config({1, 1, 1}, {nthreads, 1, 1}),
                    {KernelArg::ptr(p)});
  EXPECT_TRUE(r.ok()) << r.diagnostics_text();
  return download<uint64_t>(d, p, nthreads);
}

uint64_t f32bits(float f) { return std::bit_cast<uint32_t>(f); }

TEST(Integer, CarryChainAdds64BitFrom32BitHalves) {
  auto v = per_thread(R"(
  .reg .b32 %a<3>, %b<3>, %d<3>;
  mov.u32 %a1, 0xffffffff; mov.u32 %a2, 1;
  mov.u32 %b1, %t; mov.u32 %b2, 2;
  add.cc.u32 %d1, %a1, %b1;
  addc.u32 %d2, %a2, %b2;
  mov.b64 %res, {%d1, %d2};)");
  for (uint64_t t = 0; t < 32; ++t)
    EXPECT_EQ(v[t], 0x1ffffffffull + t + (2ull << 32));
}

TEST(Integer, MulHiWideAndMad) {
  auto v = per_thread(R"(
  .reg .b32 %x, %h;
  .reg .b64 %w;
  mul.lo.u32 %x, %t, 0x9e3779b9;
  mul.hi.s32 %h, %x, -7;
  mul.wide.s32 %w, %x, -3;
  mad.lo.s32 %h, %h, 3, %t;
  cvt.u64.u32 %res, %h;
  xor.b64 %res, %res, %w;)");
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t x = t * 0x9e3779b9u;
    int32_t h = int32_t((int64_t(int32_t(x)) * -7) >> 32);
    int64_t w = int64_t(int32_t(x)) * -3;
    uint32_t h2 = uint32_t(h) * 3 + t;
    EXPECT_EQ(v[t], uint64_t(h2) ^ uint64_t(w));
  }
}

TEST(Integer, BitFieldsAndPermutes) {
  auto v = per_thread(R"(
  .reg .b32 %x, %e, %i, %p, %l, %f;
  mul.lo.u32 %x, %t, 0x01234567;
  bfe.s32 %e, %x, %t, 5;
  bfi.b32 %i, %t, %x, 4, 3;
  prmt.b32.b4e %p, %x, %t, %t;
  lop3.b32 %l, %x, %t, %e, 0xe8;
  shf.r.clamp.b32 %f, %x, %t, %t;
  add.u32 %e, %e, %i;
  add.u32 %e, %e, %p;
  add.u32 %e, %e, %l;
  add.u32 %e, %e, %f;
  cvt.u64.u32 %res, %e;)");
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t x = t * 0x01234567u;
    // bfe.s32: len 5 from pos t, sign-extended from bit min(pos+len-1, 31)
    uint32_t e = 0;
    {
      uint32_t pos = t, len = 5, sbit = (x >> std::min(pos + len - 1, 31u)) & 1;
      for (uint32_t i = 0; i < 32; ++i) {
        uint32_t bit = (i < len && pos + i <= 31) ? (x >> (pos + i)) & 1 : sbit;
        e |= bit << i;
      }
    }
    uint32_t ins = (x & ~(7u << 4)) | ((t & 7u) << 4);
    static const int b4e[4][4] = {
        {0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}};
    uint64_t src = x | (uint64_t(t) << 32);
    uint32_t p = 0;
    for (int n = 0; n < 4; ++n)
      p |= uint32_t((src >> (8 * b4e[t & 3][n])) & 0xff) << (8 * n);
    uint32_t l = (x & t) | (x & e) | (t & e); // 0xe8 = majority
    uint32_t n = std::min(t, 32u);
    uint64_t hl = (uint64_t(t) << 32) | x;
    uint32_t f = uint32_t(hl >> n);
    EXPECT_EQ(v[t], uint64_t(uint32_t(e + ins + p + l + f))) << t;
  }
}

TEST(Integer, DivisionByZeroIsDefined) {
  auto v = per_thread(R"(
  .reg .b32 %q, %r, %z;
  mov.u32 %z, 0;
  div.u32 %q, %t, %z;
  rem.u32 %r, %t, %z;
  mov.b64 %res, {%q, %r};)");
  // both all ones (as on the H100, docs/engine.md "Decisions")
  for (uint32_t t = 0; t < 32; ++t)
    EXPECT_EQ(v[t], 0xffffffffffffffffull);
}

TEST(Compare, SetpUnorderedAndCombined) {
  auto v = per_thread(R"(
  .reg .f32 %a, %nan;
  .reg .pred %p, %q, %c;
  .reg .b32 %s;
  cvt.rn.f32.u32 %a, %t;
  mov.b32 %nan, 0x7fc00000;
  setp.lt.u32 %c, %t, 8;
  setp.ltu.and.f32 %p|%q, %a, %nan, %c;
  selp.u32 %s, 1, 0, %p;
  selp.u32 %t, 2, 0, %q;
  add.u32 %s, %s, %t;
  set.gt.u32.f32 %t, %a, 10.5;
  and.b32 %t, %t, 4;
  add.u32 %s, %s, %t;
  cvt.u64.u32 %res, %s;)");
  for (uint32_t t = 0; t < 32; ++t) {
    // ltu with NaN is true: p = true & c, q = false & c
    uint32_t want = (t < 8 ? 1u : 0u) + (float(t) > 10.5f ? 4u : 0u);
    EXPECT_EQ(v[t], want) << t;
  }
}

TEST(Float, MinMaxNaNAndTestp) {
  auto v = per_thread(R"(
  .reg .f32 %a, %nan, %m;
  .reg .pred %p;
  .reg .b32 %s;
  cvt.rn.f32.u32 %a, %t;
  mov.b32 %nan, 0x7fc00000;
  min.f32 %m, %a, %nan;
  testp.notanumber.f32 %p, %m;
  selp.u32 %s, 100, 0, %p;
  cvt.rzi.u32.f32 %t, %m;
  add.u32 %s, %s, %t;
  cvt.u64.u32 %res, %s;)");
  for (uint32_t t = 0; t < 32; ++t)
    EXPECT_EQ(v[t], t); // min(x, NaN) = x, not NaN
}

TEST(Float, RoundingModesOfAdd) {
  auto v = per_thread(R"(
  .reg .f32 %one, %tiny, %rz, %rp;
  mov.f32 %one, 0f3F800000;
  mov.f32 %tiny, 0f33800000;
  add.rz.f32 %rz, %one, %tiny;
  add.rp.f32 %rp, %one, %tiny;
  mov.b64 %res, {%rz, %rp};)",
                      1);
  float tiny = std::ldexp(1.0f, -24);
  EXPECT_EQ(uint32_t(v[0]), f32bits(1.0f));
  EXPECT_EQ(uint32_t(v[0] >> 32), f32bits(std::nextafter(1.0f, 2.0f)));
  (void)tiny;
}

TEST(Convert, SaturationNaNAndHalf) {
  auto v = per_thread(R"(
  .reg .b32 %s, %u;
  .reg .f64 %d;
  .reg .f32 %f;
  .reg .b16 %h;
  cvt.rn.f64.u32 %d, %t;
  mul.f64 %d, %d, 0d41E0000000000000;
  cvt.rni.s32.f64 %s, %d;
  cvt.sat.u8.s32 %u, %s;
  cvt.rn.f16.f64 %h, %d;
  cvt.f32.f16 %f, %h;
  mov.b32 %u, %f;
  mov.b64 %res, {%s, %u};)",
                      4);
  // t * 2^31 saturates to INT32_MAX for t >= 1
  EXPECT_EQ(uint32_t(v[0]), 0u);
  EXPECT_EQ(uint32_t(v[1]), 0x7fffffffu);
  EXPECT_EQ(uint32_t(v[2]), 0x7fffffffu);
  // 2^31 and 2^32 overflow f16: +inf
  EXPECT_EQ(uint32_t(v[1] >> 32), f32bits(INFINITY));
  EXPECT_EQ(uint32_t(v[0] >> 32), f32bits(0.0f));
}

TEST(Convert, HalfRoundTrip) {
  auto v = per_thread(R"(
  .reg .f32 %f, %g;
  .reg .b16 %h;
  .reg .b32 %b;
  cvt.rn.f32.u32 %f, %t;
  mul.f32 %f, %f, 0f3DCCCCCD;
  cvt.rn.f16.f32 %h, %f;
  cvt.f32.f16 %g, %h;
  mov.b32 %b, %g;
  cvt.u64.u32 %res, %b;)");
  for (uint32_t t = 0; t < 32; ++t) {
    float f = float(t) * std::bit_cast<float>(0x3DCCCCCDu);
    // the nearest half: 11 significant bits
    int e;
    std::frexp(f, &e);
    float q =
        f == 0 ? 0 : std::ldexp(std::nearbyint(std::ldexp(f, 11 - e)), e - 11);
    EXPECT_EQ(uint32_t(v[t]), f32bits(q)) << t;
  }
}

TEST(Memory, GenericSharedLocalVectorsAndConst) {
  auto v = per_thread(R"(
  .shared .align 16 .b8 sh[512];
  .local .align 16 .b8 lo[16];
  .reg .b64 %s, %g, %l, %lg, %o;
  .reg .b32 %a, %b, %c, %d, %k;
  mov.u64 %s, sh;
  cvt.u64.u32 %o, %t;
  shl.b64 %o, %o, 4;
  add.s64 %s, %s, %o;
  cvta.shared.u64 %g, %s;
  add.u32 %b, %t, 1;
  st.v4.u32 [%g], {%t, %b, 7, 9};
  ld.shared.v4.u32 {%a, %b, %c, %d}, [%s];
  mov.u64 %l, lo;
  cvta.local.u64 %lg, %l;
  st.u32 [%lg+8], %d;
  ld.local.u32 %d, [%l+8];
  ld.const.u32 %k, [tbl+4];
  add.u32 %a, %a, %b;
  add.u32 %a, %a, %c;
  add.u32 %a, %a, %d;
  add.u32 %a, %a, %k;
  cvt.u64.u32 %res, %a;)",
                      32, ".const .align 4 .u32 tbl[2] = {5, 1000};\n");
  for (uint32_t t = 0; t < 32; ++t)
    EXPECT_EQ(v[t], t + (t + 1) + 7 + 9 + 1000) << t;
}

TEST(Memory, SharedAtomicsAndModuleGlobal) {
  auto v = per_thread(R"(
  .shared .align 4 .u32 counter;
  .reg .b32 %old, %x;
  atom.shared.add.u32 %old, [counter], 1;
  red.global.add.u32 [gsum], %t;
  bar.sync 0;
  ld.shared.u32 %x, [counter];
  ld.global.u32 %old, [gsum];
  mov.b64 %res, {%x, %old};)",
                      64, ".global .align 4 .u32 gsum = 3;\n");
  for (uint32_t t = 0; t < 64; ++t)
    EXPECT_EQ(v[t], 64u | (uint64_t(3 + 64 * 63 / 2) << 32)) << t;
}

// atom.add.f32 as the H100 computes it (hardware/numerics, atom.global.add.f32
// and atom.shared.add.f32): global memory flushes subnormal operands and
// results, shared memory does not; a NaN result is 0x7fffffff.
TEST(Memory, FloatAtomicAddFlushesInGlobalMemoryOnly) {
  auto v = per_thread(R"(
  .shared .align 4 .b32 s;
  .reg .b32 %x, %y, %z, %old;
  .reg .pred %first;
  setp.eq.u32 %first, %t, 0;
  @%first st.global.b32 [g], 1;
  @%first st.shared.b32 [s], 1;
  @%first atom.global.add.f32 %old, [g], 0f00000001;
  @%first atom.shared.add.f32 %old, [s], 0f00000001;
  @%first st.global.b32 [g+4], 0x7fc00001;
  @%first atom.global.add.f32 %old, [g+4], 0f3F800000;
  ld.global.b32 %x, [g];
  ld.shared.b32 %y, [s];
  ld.global.b32 %z, [g+4];
  xor.b32 %x, %x, %z;
  mov.b64 %res, {%x, %y};)",
                      1, ".global .align 4 .b32 g[2];\n");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(uint32_t(v[0]), 0u ^ 0x7fffffffu); // 1 + 1 ulp flushed: +0
  EXPECT_EQ(v[0] >> 32, 2u);                   // shared: subnormal sum
}

// shfl.sync takes its lane operand mod 32 (hardware/numerics,
// shfl.sync.up.b32 by 33 reads lane - 1).
TEST(Warp, ShflLaneOperandModulo32) {
  auto v = per_thread(R"(
  .reg .b32 %u, %i;
  .reg .pred %ok;
  shfl.sync.up.b32 %u|%ok, %t, 33, 0, -1;
  shfl.sync.idx.b32 %i, %t, 37, 31, -1;
  mov.b64 %res, {%u, %i};)");
  for (uint32_t t = 0; t < 32; ++t)
    EXPECT_EQ(v[t], (t == 0 ? 0 : t - 1) | (uint64_t(5) << 32)) << t;
}

// atom.global.v2.f32.add (sm_90): one atomic add per element.
TEST(Memory, VectorFloatAtomicAdd) {
  auto m = load_text(R"(.version 8.1
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b64 %a;
  .reg .f32 %o<2>;
  ld.param.u64 %a, [p];
  atom.global.v2.f32.add {%o0, %o1}, [%a], {0f3F800000, 0f40000000};
  red.global.v2.f32.add [%a+8], {0f3F800000, 0f40000000};
  ret;
})");
  ASSERT_TRUE(m);
  Device d;
  DevicePtr p = d.alloc(16);
  auto r = d.launch(*m, "k", config({1, 1, 1}, {4, 1, 1}), {KernelArg::ptr(p)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  auto out = download<float>(d, p, 4);
  EXPECT_EQ(out, (std::vector<float>{4, 8, 4, 8}));
}

TEST(Control, DivergentPathsReconverge) {
  // Odd and even lanes take different paths and meet again; a shfl after the
  // join sees every lane's value.
  auto v = per_thread(R"(
  .reg .pred %p;
  .reg .b32 %x, %y;
  and.b32 %x, %t, 1;
  setp.eq.u32 %p, %x, 1;
  @%p bra ODD;
  mul.lo.u32 %y, %t, 10;
  bra.uni JOIN;
ODD:
  mul.lo.u32 %y, %t, 100;
JOIN:
  shfl.sync.bfly.b32 %x, %y, 1, 31, -1;
  mov.b64 %res, {%y, %x};)");
  for (uint32_t t = 0; t < 32; ++t) {
    auto y = [](uint32_t l) { return l % 2 ? l * 100 : l * 10; };
    EXPECT_EQ(v[t], y(t) | (uint64_t(y(t ^ 1)) << 32)) << t;
  }
}

TEST(Control, CallWithParamsAndReturn) {
  std::string text = R"(.version 8.0
.target sm_80
.address_size 64
.func (.param .b32 r) twice(.param .b32 x, .param .b32 y)
{
  .reg .b32 %a, %b;
  ld.param.b32 %a, [x];
  ld.param.b32 %b, [y];
  mad.lo.s32 %a, %a, 2, %b;
  st.param.b32 [r], %a;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %t, %v;
  .reg .b64 %o, %w;
  ld.param.u64 %o, [out];
  mov.u32 %t, %tid.x;
  {
  .param .b32 p0;
  .param .b32 p1;
  .param .b32 rv;
  st.param.b32 [p0], %t;
  st.param.b32 [p1], 5;
  call.uni (rv), twice, (p0, p1);
  ld.param.b32 %v, [rv];
  }
  mul.wide.u32 %w, %t, 4;
  add.s64 %o, %o, %w;
  st.global.u32 [%o], %v;
  ret;
}
)";
  auto m = load_text(text);
  ASSERT_TRUE(m);
  Device d;
  DevicePtr p = d.alloc(4 * 40);
  auto r =
      d.launch(*m, "k", config({1, 1, 1}, {40, 1, 1}), {KernelArg::ptr(p)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  auto got = download<int32_t>(d, p, 40);
  for (int t = 0; t < 40; ++t)
    EXPECT_EQ(got[t], 2 * t + 5);
}

TEST(Special, ThreadAndLaneRegistersIn3D) {
  auto v = per_thread(R"(
  .reg .b32 %l, %m, %g;
  mov.u32 %l, %laneid;
  mov.u32 %m, %lanemask_lt;
  mov.u32 %g, %lanemask_ge;
  xor.b32 %m, %m, %g;
  mov.b64 %res, {%l, %m};)",
                      40);
  for (uint32_t t = 0; t < 40; ++t)
    EXPECT_EQ(v[t], (t % 32) | (0xffffffffull << 32)) << t;
}

} // namespace
} // namespace bcusim::engine::test
