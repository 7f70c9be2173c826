// Numerics against the H100: tensor-core accumulation (whole wmma and wgmma
// cases the hardware computed, kernels/mma_h100.txt and wgmma_h100.txt) and the
// MUFU models (special values measured on the H100; the dense tables of
// ../shared/hardware/mufu when present). docs/tensor-cores.md "Arithmetic",
// docs/engine.md "Approximate functions".
#include "test_util.h"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <lzma.h>
#include <set>
#include <sstream>

#include "mufu.h"

namespace bcusim::engine::test {
namespace {

// ---- tensor cores
// ------------------------------------------------------------

struct MmaCase {
  std::string op;
  int cs = 0;
  std::vector<uint32_t> a, b, c, d;
};

// The cases of a file of kernels/: a line "OP [CS]" starts a case, lines
// "A ..", "B ..", "C ..", "D .." hold its operands and result in hex. `cs`
// is read where the file gives it (mma_h100.txt).
std::vector<MmaCase> read_cases(const char *name, bool with_cs) {
  std::ifstream f(kernel_path(name));
  EXPECT_TRUE(f) << kernel_path(name);
  std::vector<MmaCase> out;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream in(line);
    std::string head;
    in >> head;
    if (head.size() != 1) {
      out.push_back({head, 0, {}, {}, {}, {}});
      if (with_cs)
        in >> out.back().cs;
      continue;
    }
    std::vector<uint32_t> &v = head == "A"   ? out.back().a
                               : head == "B" ? out.back().b
                               : head == "C" ? out.back().c
                                             : out.back().d;
    std::string w;
    while (in >> w)
      v.push_back(uint32_t(std::stoul(w, nullptr, 16)));
  }
  return out;
}

std::vector<MmaCase> mma_cases() { return read_cases("mma_h100.txt", true); }

// One warp: load A (row-major), B (column-major), C (row-major), multiply,
// store D (row-major); returns D's bit patterns.
std::vector<uint32_t> run_wmma(const MmaCase &mc) {
  const bool tf32 = mc.op.find("tf32") != std::string::npos;
  const bool bf16 = mc.op.find("bf16") != std::string::npos;
  const bool acc16 = mc.op == "m16n16k16.f16.f16";
  const std::string shape = tf32 ? "m16n16k8" : "m16n16k16";
  const std::string ab = tf32 ? "tf32" : bf16 ? "bf16" : "f16";
  const int nab = tf32 || bf16 ? 4 : 8, ncd = acc16 ? 4 : 8;
  auto regs = [](const char *p, int n) {
    std::string s = "{";
    for (int i = 0; i < n; ++i)
      s += std::string(i ? ", " : "") + "%" + p + std::to_string(i);
    return s + "}";
  };
  const std::string cd = acc16 ? "f16" : "f32";
  const std::string body =
      ".reg .b64 %p<4>;\n.reg .b32 %a<8>;\n.reg .b32 %b<8>;\n"
      ".reg .b32 %c<8>;\n.reg .b32 %d<8>;\n"
      "ld.param.u64 %p0, [pa];\nld.param.u64 %p1, [pb];\n"
      "ld.param.u64 %p2, [pc];\nld.param.u64 %p3, [pd];\n"
      "wmma.load.a.sync.aligned.row." +
      shape + ".global." + ab + " " + regs("a", nab) +
      ", [%p0];\n"
      "wmma.load.b.sync.aligned.col." +
      shape + ".global." + ab + " " + regs("b", nab) +
      ", [%p1];\n"
      "wmma.load.c.sync.aligned.row." +
      shape + ".global." + cd + " " + regs("c", ncd) +
      ", [%p2];\n"
      "wmma.mma.sync.aligned.row.col." +
      shape + "." + (acc16 ? "f16.f16" : "f32." + ab + "." + ab + ".f32") +
      " " + regs("d", ncd) + ", " + regs("a", nab) + ", " + regs("b", nab) +
      ", " + regs("c", ncd) +
      ";\n"
      "wmma.store.d.sync.aligned.row." +
      shape + ".global." + cd + " [%p3], " + regs("d", ncd) + ";\nret;";
  auto m = load_text(ptx_module(
      ".param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd", body));
  if (!m)
    return {};
  Device d;
  auto up = [&](const std::vector<uint32_t> &v, bool half) {
    if (!half)
      return upload(d, v);
    std::vector<uint16_t> h(v.begin(), v.end());
    return upload(d, h);
  };
  const bool half_ab = !tf32;
  DevicePtr pa = up(mc.a, half_ab), pb = up(mc.b, half_ab),
            pc = up(mc.c, acc16), pd = d.alloc(256 * 4);
  auto r = d.launch(*m, "k", config({1, 1, 1}, {32, 1, 1}),
                    {KernelArg::ptr(pa), KernelArg::ptr(pb), KernelArg::ptr(pc),
                     KernelArg::ptr(pd)});
  EXPECT_TRUE(r.ok()) << r.diagnostics_text();
  if (acc16) {
    auto h = download<uint16_t>(d, pd, 256);
    return {h.begin(), h.end()};
  }
  return download<uint32_t>(d, pd, 256);
}

TEST(TensorCores, WholeCasesAsTheH100ComputedThem) {
  const auto cases = mma_cases();
  ASSERT_EQ(cases.size(), 6u);
  for (const auto &mc : cases) {
    SCOPED_TRACE(mc.op + " case " + std::to_string(mc.cs));
    ASSERT_EQ(mc.c.size(), 256u);
    const auto got = run_wmma(mc);
    ASSERT_EQ(got.size(), 256u);
    int differ = 0;
    for (size_t i = 0; i < 256; ++i)
      if (got[i] != mc.d[i] && ++differ <= 5)
        ADD_FAILURE() << "D[" << i / 16 << "][" << i % 16 << "] = " << std::hex
                      << got[i] << ", H100 " << mc.d[i];
    EXPECT_EQ(differ, 0);
  }
}

// ---- textures (numerics tex.1d, measured on H100)
// -----------------------------

TEST(Textures, LinearFilterAndFetchOutOfRangeAsTheH100) {
  const std::string body = R"(.reg .b64 %rd<6>;
  .reg .b32 %r<4>;
  .reg .f32 %f<10>;
  ld.param.u64 %rd0, [ptex];
  ld.param.u64 %rd1, [px];
  ld.param.u64 %rd2, [pi];
  ld.param.u64 %rd3, [pout];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd4, %r0, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.f32 %f0, [%rd5];
  add.s64 %rd5, %rd2, %rd4;
  ld.global.s32 %r1, [%rd5];
  tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd0, {%f0}];
  tex.1d.v4.f32.s32 {%f5, %f6, %f7, %f8}, [%rd0, {%r1}];
  mul.wide.u32 %rd4, %r0, 8;
  add.s64 %rd5, %rd3, %rd4;
  st.global.f32 [%rd5], %f1;
  st.global.f32 [%rd5+4], %f5;
  ret;)";
  auto m = load_text(ptx_module(".param .u64 ptex, .param .u64 px, .param "
                                ".u64 pi, .param .u64 pout",
                                body));
  ASSERT_TRUE(m);
  Device d;
  const std::vector<float> texels = {1.0f, INFINITY, 2.0f, 1e-40f, 3.0f, NAN};
  DevicePtr tp = upload(d, texels);
  Texture t;
  t.base = tp;
  t.width = 6;
  t.linear = true;
  const uint64_t h = d.create_texture(t);
  // Float coordinates (texel units) and integer indices per thread.
  const std::vector<float> xs = {0.5f, 3.5f, 5.0f, 1.25f, 2.5f};
  const std::vector<int32_t> is = {-1, 6, 2, 1000, -4};
  DevicePtr px = upload(d, xs), pi = upload(d, is), po = d.alloc(5 * 8);
  auto r = d.launch(*m, "k", config({1, 1, 1}, {5, 1, 1}),
                    {KernelArg::u64(h), KernelArg::ptr(px), KernelArg::ptr(pi),
                     KernelArg::ptr(po)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  const auto out = download<uint32_t>(d, po, 10);
  EXPECT_EQ(out[0], 0x3f800000u); // weight 0 for the infinity: 1
  EXPECT_EQ(out[2], 0x00000000u); // a denormal texel alone: flushed
  EXPECT_EQ(out[4], 0x7fffffffu); // half of a NaN: the canonical NaN
  EXPECT_EQ(out[6], 0x7f800000u); // 0.25 * 1 + 0.75 * inf
  EXPECT_EQ(out[8], 0x40000000u); // exactly on texel 2
  // tex1Dfetch: outside [0, 6) every channel is 0; inside, the texel.
  EXPECT_EQ(out[1], 0u);
  EXPECT_EQ(out[3], 0u);
  EXPECT_EQ(out[5], 0x40000000u);
  EXPECT_EQ(out[7], 0u);
  EXPECT_EQ(out[9], 0u);
}

TEST(Textures, NormalizedU8LinearFilterInFixedPoint) {
  const std::string body = R"(.reg .b64 %rd<6>;
  .reg .b32 %r<2>;
  .reg .f32 %f<6>;
  ld.param.u64 %rd0, [ptex];
  ld.param.u64 %rd1, [px];
  ld.param.u64 %rd3, [pout];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd4, %r0, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.f32 %f0, [%rd5];
  tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd0, {%f0}];
  add.s64 %rd5, %rd3, %rd4;
  st.global.f32 [%rd5], %f1;
  ret;)";
  auto m = load_text(
      ptx_module(".param .u64 ptex, .param .u64 px, .param .u64 pout", body));
  ASSERT_TRUE(m);
  Device d;
  const std::vector<uint8_t> texels = {0, 1, 2, 127, 128, 254, 255, 64};
  DevicePtr tp = upload(d, texels);
  Texture t;
  t.base = tp;
  t.width = 8;
  t.format = Texture::Format::U8;
  t.normalized_float = true;
  t.linear = true;
  const uint64_t h = d.create_texture(t);
  // The H100's results (numerics, u8-normalized linear unnorm clamp).
  const std::vector<float> xs = {1.0f, 1.001953125f, 0.5625f, 0.501953125f};
  const uint32_t want[] = {0x3b010081u, 0x3b020082u, 0x39800080u, 0x37800080u};
  DevicePtr px = upload(d, xs), po = d.alloc(xs.size() * 4);
  auto r =
      d.launch(*m, "k", config({1, 1, 1}, {4, 1, 1}),
               {KernelArg::u64(h), KernelArg::ptr(px), KernelArg::ptr(po)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  const auto out = download<uint32_t>(d, po, xs.size());
  for (size_t i = 0; i < xs.size(); ++i)
    EXPECT_EQ(out[i], want[i]) << "x = " << xs[i];
}

TEST(Textures, WrapWithUnnormalizedCoordinatesClamps) {
  const std::string body = R"(.reg .b64 %rd<6>;
  .reg .b32 %r<2>;
  .reg .f32 %f<6>;
  ld.param.u64 %rd0, [ptex];
  ld.param.u64 %rd1, [px];
  ld.param.u64 %rd3, [pout];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd4, %r0, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.f32 %f0, [%rd5];
  tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd0, {%f0}];
  add.s64 %rd5, %rd3, %rd4;
  st.global.f32 [%rd5], %f1;
  ret;)";
  auto m = load_text(
      ptx_module(".param .u64 ptex, .param .u64 px, .param .u64 pout", body));
  ASSERT_TRUE(m);
  Device d;
  DevicePtr tp = upload(d, std::vector<float>{1, 2, 3, 4});
  // The H100 (numerics, linear unnorm "wrap"): clamps. Point sampling
  // here: -1.5 and 5.5 read texels 0 and 3 (wrapping would give 2 and 1).
  const std::vector<float> xs = {-1.5f, 5.5f, 2.5f};
  DevicePtr px = upload(d, xs), po = d.alloc(xs.size() * 4);
  for (auto am : {Texture::Address::Wrap, Texture::Address::Mirror}) {
    Texture t;
    t.base = tp;
    t.width = 4;
    t.address[0] = am;
    const uint64_t h = d.create_texture(t);
    auto r =
        d.launch(*m, "k", config({1, 1, 1}, {3, 1, 1}),
                 {KernelArg::u64(h), KernelArg::ptr(px), KernelArg::ptr(po)});
    ASSERT_TRUE(r.ok()) << r.diagnostics_text();
    EXPECT_EQ(download<float>(d, po, 3), (std::vector<float>{1, 4, 3}));
  }
}

// ---- MUFU: special values (numerics/h100-default.txt.gz)
// ---------------------

float F(uint32_t b) { return std::bit_cast<float>(b); }
uint32_t B(float f) { return std::bit_cast<uint32_t>(f); }

uint32_t ulps(uint32_t a, uint32_t b) {
  if ((a ^ b) & 0x80000000u)
    return UINT32_MAX;
  return a > b ? a - b : b - a;
}
uint32_t ulps16(uint32_t a, uint32_t b) {
  if ((a ^ b) & 0x8000u)
    return UINT32_MAX;
  return a > b ? a - b : b - a;
}

struct Special {
  const char *op;
  uint32_t in, out;
};

TEST(Mufu, SpecialInputsAsTheH100) {
  using namespace detail::mufu;
  const std::map<std::string, std::function<float(float)>> fn = {
      {"rcp.approx.f32", [](float x) { return rcp_approx(x, false); }},
      {"rcp.approx.ftz.f32", [](float x) { return rcp_approx(x, true); }},
      {"sqrt.approx.f32", [](float x) { return sqrt_approx(x, false); }},
      {"sqrt.approx.ftz.f32", [](float x) { return sqrt_approx(x, true); }},
      {"rsqrt.approx.f32", [](float x) { return rsqrt_approx(x, false); }},
      {"rsqrt.approx.ftz.f32", [](float x) { return rsqrt_approx(x, true); }},
      {"ex2.approx.f32", [](float x) { return ex2_approx(x, false); }},
      {"ex2.approx.ftz.f32", [](float x) { return ex2_approx(x, true); }},
      {"lg2.approx.f32", [](float x) { return lg2_approx(x, false); }},
      {"lg2.approx.ftz.f32", [](float x) { return lg2_approx(x, true); }},
      {"sin.approx.f32", [](float x) { return sin_approx(x); }},
      {"cos.approx.f32", [](float x) { return cos_approx(x); }},
      {"tanh.approx.f32", [](float x) { return tanh_approx(x); }},
  };
  // Inputs: +-0, +-min denormal, +-max denormal, +-min normal, +-max, +-inf,
  // NaNs; results as the H100 printed them.
  const Special rows[] = {
#include "kernels/mufu_special_h100.inc"
  };
  int differ = 0;
  for (const Special &s : rows) {
    const uint32_t got = B(fn.at(s.op)(F(s.in)));
    // Zeros, infinities and NaNs exactly; a finite result of a denormal
    // operand (non-.ftz forms) within the function's bound.
    const bool finite = std::isfinite(F(s.out)) && F(s.out) != 0;
    if (finite && ulps(got, s.out) <= 2)
      continue;
    if (got != s.out && ++differ <= 10)
      ADD_FAILURE() << s.op << " " << std::hex << s.in << ": " << got
                    << ", H100 " << s.out;
  }
  EXPECT_EQ(differ, 0);
}

TEST(Mufu, DivisionSequences) {
  using namespace detail::mufu;
  // Measured on the H100 (numerics, div.approx/div.full): a huge divisor is
  // scaled by 1/4 in div.full (finite quotient), not in div.approx (whose
  // reciprocal flushes to zero); x / 0 is inf, 0 / 0 NaN.
  EXPECT_EQ(B(div_full(1.0f, F(0x7f7fffffu), false)), 0x00200000u);
  EXPECT_EQ(B(div_approx(1.0f, F(0x7f7fffffu), false)), 0u);
  EXPECT_EQ(B(div_full(1.0f, 0.0f, false)), 0x7f800000u);
  EXPECT_EQ(B(div_approx(0.0f, 0.0f, true)), 0x7fffffffu);
  EXPECT_EQ(B(div_full(6.0f, 3.0f, true)), 0x40000000u);
}

TEST(Mufu, DoubleFormsReadAndWriteTheHighWord) {
  using namespace detail::mufu;
  auto D = [](uint64_t b) { return std::bit_cast<double>(b); };
  auto U = [](double d) { return std::bit_cast<uint64_t>(d); };
  // rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64 on the H100 (numerics).
  const std::pair<uint64_t, uint64_t> rcp_rows[] = {
      {0x3ff8000000000000, 0x3fe5555500000000},
      {0x4004000000000000, 0x3fd9999900000000}, // truncated, not rounded
      {0x3fefffffffffffff, 0x3ff0000000000000}, // low word not read
      {0x7ff0000000000001, 0x0000000000000000}, // read as infinity
      {0x000fffffffffffff, 0x7ff0000000000000}, // denormal: zero
      {0x7fefffffffffffff, 0x0000000000000000}, // denormal result flushed
      {0x7ff80000deadbeef, 0x7fffffff00000000},
      {0x8000000000000000, 0xfff0000000000000}};
  for (auto [in, out] : rcp_rows)
    EXPECT_EQ(U(rcp_approx_ftz64(D(in))), out) << std::hex << in;
  const std::pair<uint64_t, uint64_t> rsqrt_rows[] = {
      {0x3fe0000000000000, 0x3ff6a09e00000000},
      {0x7fefffffffffffff, 0x1ff0000000000000},
      {0x8010000000000000, 0x7fffffff00000000},
      {0x8000000000000001, 0xfff0000000000000},
      {0x0000000000000001, 0x7ff0000000000000},
      {0x7ff0000000000000, 0x0000000000000000}};
  for (auto [in, out] : rsqrt_rows)
    EXPECT_EQ(U(rsqrt_approx_ftz64(D(in))), out) << std::hex << in;
}

TEST(Mufu, Lg2FollowsTheMeasuredFixedPointRule) {
  using namespace detail::mufu;
  // lg2.approx.ftz.f32 of 1 + j 2^-23 on the H100 (mufu/lg2.approx.ftz.f32
  // _b1-2): 7377 + 11818 j in units of 2^-36 below j = 1024, then less the
  // square term the unit forms with truncated partial products
  // (docs/engine.md "Approximate functions").
  const std::pair<uint32_t, uint32_t> h100[] = {
      {0x3f800001, 0x3495f600}, {0x3f8003e8, 0x393470e1},
      {0x3f800400, 0x3938c1fa}, {0x3f800800, 0x39b8b0ba},
      {0x3f800fa0, 0x3a345153}, {0x3f804e20, 0x3b612741},
      {0x3f807530, 0x3ba8c39c}};
  for (const auto &[x, want] : h100) {
    const uint32_t got = B(lg2_approx(F(x), true));
    if ((x & 0x7fffff) < 1024) // the linear part: exact
      EXPECT_EQ(got, want) << std::hex << x;
    else // the square term's product is not reproduced bit for bit
      EXPECT_LE(ulps(got, want), 1u) << std::hex << x;
  }
  // Beyond [0.5, 2) the sum with the exponent is truncated, not rounded
  // (numerics/h100-default.txt.gz, lg2.approx.ftz.f32).
  const std::pair<float, uint32_t> truncated[] = {{2.0f, 0x3f800000},
                                                  {0.1f, 0xc0549a77},
                                                  {480.0f, 0x410e829f},
                                                  {1e30f, 0x42c750d0},
                                                  {0x1p-24f, 0xc1bfffff}};
  for (const auto &[x, want] : truncated)
    EXPECT_EQ(B(lg2_approx(x, true)), want) << x;
}

TEST(Mufu, HalfPrecisionEx2IsTheTruncatedUnitResult) {
  using namespace detail::mufu;
  // ex2.approx.f16: 2^x truncated; beyond 65504 infinity (H100, mufu
  // tables): 2^15.99 = 65085.6 -> 0x7bf2... and 2^16 -> inf.
  EXPECT_EQ(ex2_approx16(0x4c00, false), 0x7c00u); // x = 16
  EXPECT_EQ(ex2_approx16(0x3c00, false), 0x4000u); // x = 1: 2
  EXPECT_EQ(ex2_approx16(0x11c6, false), 0x3c00u); // tiny x: 1, not 1+ulp
  EXPECT_EQ(ex2_approx16(0xa4cc, true), 0x3f80u);  // bf16 -tiny: 1.0
  EXPECT_EQ(ex2_approx16(0x7e00, false), 0x7fffu); // NaN
}

// ---- MUFU: the dense tables of ../shared/hardware/mufu
// ----------------------- Each table holds every result of a binade (f32, 2^23)
// or of all 65536 16-bit inputs, delta-coded u32 (decode.py). `make test` reads
// the first 2^20 entries of each f32 table (all of a 16-bit one) and checks
// every 8th; BCUSIM_MUFU_EXHAUSTIVE=1 reads and checks every entry.

std::string mufu_dir() {
  return std::string(BCUSIM_SOURCE_DIR) + "/../shared/hardware/mufu/";
}

bool read_table(const std::string &path, size_t limit,
                std::vector<uint32_t> &out) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    return false;
  std::vector<uint8_t> in((std::istreambuf_iterator<char>(f)),
                          std::istreambuf_iterator<char>());
  lzma_stream s = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK)
    return false;
  std::vector<uint8_t> raw(limit * 4);
  s.next_in = in.data();
  s.avail_in = in.size();
  s.next_out = raw.data();
  s.avail_out = raw.size();
  lzma_ret r = LZMA_OK;
  while (r == LZMA_OK && s.avail_out > 0)
    r = lzma_code(&s, LZMA_FINISH);
  const size_t n = (raw.size() - s.avail_out) / 4;
  lzma_end(&s);
  out.resize(n);
  uint32_t acc = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t v;
    std::memcpy(&v, &raw[i * 4], 4);
    acc += v;
    out[i] = acc;
  }
  return n > 0;
}

struct Table {
  const char *file;
  uint32_t base;
  std::function<uint32_t(uint32_t)> model;
  double min_within4; // the fraction within 4 ulp reached (docs table)
  uint32_t max_ulp;   // the largest distance on the checked inputs
};

TEST(Mufu, DenseTablesWithinTheRecordedBounds) {
  using namespace detail::mufu;
  if (!std::ifstream(mufu_dir() + "decode.py"))
    GTEST_SKIP() << "no " << mufu_dir();
  const bool all = std::getenv("BCUSIM_MUFU_EXHAUSTIVE") != nullptr;
  auto f32 = [](float (*g)(float, bool)) {
    return [g](uint32_t x) { return B(g(F(x), true)); };
  };
  auto f32n = [](float (*g)(float)) {
    return [g](uint32_t x) { return B(g(F(x))); };
  };
  const Table tables[] = {
      {"rcp.approx.ftz.f32_b1-2", 0x3f800000, f32(rcp_approx), 1.0, 1},
      {"rsqrt.approx.ftz.f32_b1-2", 0x3f800000, f32(rsqrt_approx), 1.0, 1},
      {"rsqrt.approx.ftz.f32_b2-4", 0x40000000, f32(rsqrt_approx), 1.0, 1},
      {"sqrt.approx.ftz.f32_b1-2", 0x3f800000, f32(sqrt_approx), 1.0, 1},
      {"sqrt.approx.ftz.f32_b2-4", 0x40000000, f32(sqrt_approx), 1.0, 1},
      {"ex2.approx.ftz.f32_b0.25-0.5", 0x3e800000, f32(ex2_approx), 1.0, 2},
      {"ex2.approx.ftz.f32_b0.5-1", 0x3f000000, f32(ex2_approx), 1.0, 2},
      {"ex2.approx.ftz.f32_b1-2", 0x3f800000, f32(ex2_approx), 1.0, 2},
      {"ex2.approx.ftz.f32_bm1-m0.5", 0xbf000000, f32(ex2_approx), 1.0, 2},
      // The bound reached (fraction within 4 ulp, largest distance) on the
      // sampled inputs and on every input (docs/engine.md).
      {"lg2.approx.ftz.f32_b0.5-1", 0x3f000000, f32(lg2_approx), 0.9999, 1024},
      {"lg2.approx.ftz.f32_b1-2", 0x3f800000, f32(lg2_approx), 1.0, 1},
      {"sin.approx.ftz.f32_b0.5-1", 0x3f000000, f32n(sin_approx), 1.0, 0},
      {"sin.approx.ftz.f32_b4-8", 0x40800000, f32n(sin_approx), 1.0, 0},
      {"cos.approx.ftz.f32_b0.5-1", 0x3f000000, f32n(cos_approx), 1.0, 0},
      {"tanh.approx.f32_b0.5-1", 0x3f000000, f32n(tanh_approx), 1.0, 1},
      {"tanh.approx.f32_b1-2", 0x3f800000, f32n(tanh_approx), 1.0, 2},
      {"ex2.approx.f16_all", 0,
       [](uint32_t x) { return ex2_approx16(x, false); }, 1.0, 0},
      {"ex2.approx.ftz.bf16_all", 0,
       [](uint32_t x) { return ex2_approx16(x, true); }, 1.0, 0},
      {"tanh.approx.f16_all", 0,
       [](uint32_t x) { return tanh_approx16(x, false); }, 1.0, 0},
      {"tanh.approx.bf16_all", 0,
       [](uint32_t x) { return tanh_approx16(x, true); }, 1.0, 0},
  };
  for (const Table &t : tables) {
    SCOPED_TRACE(t.file);
    const bool half = t.base == 0;
    std::vector<uint32_t> hw;
    ASSERT_TRUE(read_table(mufu_dir() + t.file + ".bin.xz",
                           half || all ? (1u << 23) : (1u << 20), hw));
    const size_t step = half || all ? 1 : 8;
    size_t n = 0, within4 = 0, exact = 0;
    uint32_t worst = 0, worst_in = 0;
    for (size_t i = 0; i < hw.size(); i += step) {
      const uint32_t x = t.base | uint32_t(i);
      const bool bf = std::string(t.file).find("bf16") != std::string::npos;
      if (half && (x & 0x7fff) > (bf ? 0x7f80u : 0x7c00u))
        continue; // NaN inputs: the canonical NaN, checked elsewhere
      const uint32_t got = t.model(x), want = hw[i];
      const uint32_t d = half ? ulps16(got, want & 0xffff) : ulps(got, want);
      ++n;
      within4 += d <= 4;
      exact += d == 0;
      if (d > worst) {
        worst = d;
        worst_in = x;
      }
    }
    const double frac = double(within4) / double(n);
    std::printf(
        "%-30s %9zu inputs: %.5f within 4 ulp, %.5f exact, max %u ulp\n",
        t.file, n, frac, double(exact) / double(n), worst);
    EXPECT_GE(frac, t.min_within4) << n << " inputs";
    EXPECT_LE(worst, t.max_ulp) << "at input " << std::hex << worst_in;
  }
}

// ---- MUFU: the H100's binades of tests/hardware/mufu ------------------------
// Every tanh.approx.f32 binade from 2^-25 to 8 (the negative ones from 2^-8)
// and the sin.approx.f32 binades of small angles, recorded on an H100
// (tests/hardware/README.md), coded as the tables above (FORM_bHEX.bin.xz,
// HEX the first input). Sampled as above; BCUSIM_MUFU_EXHAUSTIVE=1 checks
// every input.

std::string h100_mufu_dir() {
  return std::string(BCUSIM_SOURCE_DIR) + "/tests/hardware/mufu/";
}

struct BinadeBound {
  const char *form;
  uint32_t base;
  double min_exact;   // bit-exact share reached (sampled and every input)
  double min_within4; // share within 4 ulp
  uint32_t max_ulp;   // the largest distance
};

TEST(Mufu, H100BinadesWithinTheRecordedBounds) {
  using namespace detail::mufu;
  const bool all = std::getenv("BCUSIM_MUFU_EXHAUSTIVE") != nullptr;
  // docs/engine.md "Approximate functions": the bounds per binade.
  const BinadeBound bounds[] = {
#include "kernels/mufu_h100_bounds.inc"
  };
  std::set<std::string> files;
  for (const auto &e : std::filesystem::directory_iterator(h100_mufu_dir()))
    files.insert(e.path().filename().string());
  EXPECT_EQ(files.size(), std::size(bounds)) << "a binade without a bound";
  for (const BinadeBound &b : bounds) {
    char name[64];
    std::snprintf(name, sizeof name, "%s_b%08x.bin.xz", b.form, b.base);
    SCOPED_TRACE(name);
    EXPECT_TRUE(files.count(name));
    std::vector<uint32_t> hw;
    ASSERT_TRUE(
        read_table(h100_mufu_dir() + name, all ? (1u << 23) : (1u << 20), hw));
    const bool sine = std::string(b.form).rfind("sin", 0) == 0;
    const size_t step = all ? 1 : 8;
    size_t n = 0, within4 = 0, exact = 0;
    uint32_t worst = 0, worst_in = 0;
    for (size_t i = 0; i < hw.size(); i += step) {
      const uint32_t x = b.base | uint32_t(i);
      const uint32_t got = B(sine ? sin_approx(F(x)) : tanh_approx(F(x)));
      const uint32_t d = ulps(got, hw[i]);
      ++n;
      within4 += d <= 4;
      exact += d == 0;
      if (d > worst) {
        worst = d;
        worst_in = x;
      }
    }
    const double frac4 = double(within4) / double(n),
                 frac0 = double(exact) / double(n);
    std::printf("%-34s %8zu inputs: %.5f within 4 ulp, %.5f exact, max %u "
                "ulp\n",
                name, n, frac4, frac0, worst);
    EXPECT_GE(frac4, b.min_within4) << n << " inputs";
    EXPECT_GE(frac0, b.min_exact) << n << " inputs";
    EXPECT_LE(worst, b.max_ulp) << "at input " << std::hex << worst_in;
  }
}

// ---- MUFU: the H100 sweep (tests/hardware/mufu_sweep_model-43efe05.tsv.xz)
// Per form and binade of every f32 input (sin, cos: every 4th), the H100
// against the model of 43efe05: compared, bit-exact, zeros of the other
// sign, within 1/2/4 ulp, the largest distance and an input showing it.

bool read_xz(const std::string &path, std::string &out) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    return false;
  std::vector<uint8_t> in((std::istreambuf_iterator<char>(f)),
                          std::istreambuf_iterator<char>());
  lzma_stream s = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK)
    return false;
  s.next_in = in.data();
  s.avail_in = in.size();
  std::vector<uint8_t> buf(1 << 16);
  lzma_ret r = LZMA_OK;
  while (r == LZMA_OK) {
    s.next_out = buf.data();
    s.avail_out = buf.size();
    r = lzma_code(&s, LZMA_FINISH);
    out.append(reinterpret_cast<char *>(buf.data()), buf.size() - s.avail_out);
  }
  lzma_end(&s);
  return r == LZMA_STREAM_END;
}

struct SweepRow {
  std::string form;
  uint32_t base = 0;
  uint64_t n = 0, exact = 0, zero_sign = 0, max_ulp = 0;
  uint32_t worst_in = 0, worst_gpu = 0;
};

std::vector<SweepRow> sweep_rows() {
  std::string text;
  EXPECT_TRUE(read_xz(std::string(BCUSIM_SOURCE_DIR) +
                          "/tests/hardware/mufu_sweep_model-43efe05.tsv.xz",
                      text));
  std::vector<SweepRow> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    std::istringstream ls(line);
    for (std::string f; std::getline(ls, f, '\t');)
      c.push_back(f);
    if (c.size() != 14 || c[0] == "form" || c[1] == "all")
      continue;
    SweepRow r;
    r.form = c[0];
    r.base = uint32_t(std::stoul(c[1], nullptr, 16));
    r.n = std::stoull(c[2]);
    r.exact = std::stoull(c[3]);
    r.zero_sign = std::stoull(c[5]);
    r.max_ulp = std::stoull(c[10]);
    r.worst_in = uint32_t(std::stoul(c[11], nullptr, 16));
    r.worst_gpu = uint32_t(std::stoul(c[12], nullptr, 16));
    rows.push_back(r);
  }
  return rows;
}

float sweep_model(const std::string &form, float x) {
  using namespace detail::mufu;
  const bool ftz = form.find(".ftz") != std::string::npos;
  const std::string op = form.substr(0, form.find('.'));
  if (op == "rcp")
    return rcp_approx(x, ftz);
  if (op == "rsqrt")
    return rsqrt_approx(x, ftz);
  if (op == "sqrt")
    return sqrt_approx(x, ftz);
  if (op == "ex2")
    return ex2_approx(x, ftz);
  if (op == "lg2")
    return lg2_approx(x, ftz);
  if (op == "sin")
    return sin_approx(x);
  if (op == "cos")
    return cos_approx(x);
  return tanh_approx(x);
}

// Each row's input with the largest distance: the model now gives the H100's
// value there, or comes no further from it than the model of 43efe05 did.
// sin and cos (the unit's fixed-point form) exactly; tanh within its
// largest distance on the H100's binades (6 ulp, near 0.25).
TEST(Mufu, SweepWorstInputsNoFurtherThanRecorded) {
  const std::vector<SweepRow> rows = sweep_rows();
  ASSERT_EQ(rows.size(), 15u * 512u);
  int checked = 0;
  for (const SweepRow &r : rows) {
    if (r.max_ulp == 0)
      continue; // no differing input recorded
    ++checked;
    const uint32_t got = B(sweep_model(r.form, F(r.worst_in)));
    uint64_t bound = r.max_ulp;
    if (r.form.rfind("tanh", 0) == 0)
      bound = 6;
    if (r.form.rfind("sin", 0) == 0 || r.form.rfind("cos", 0) == 0)
      bound = 0;
    EXPECT_LE(ulps(got, r.worst_gpu), bound)
        << r.form << " " << std::hex << r.worst_in << ": " << got << ", H100 "
        << r.worst_gpu;
  }
  EXPECT_GT(checked, 1000);
}

// The counts the sweep recorded where the model changed. The model of 43efe05
// returned 0x3f7fffff for cos of every |x| < 2^-13, never -0 for sin of a
// positive operand or for cos, never +0 for sin of a negative one: so there
// the H100 gave 1.0 exactly n - exact times, and a zero of the other sign
// zero_sign times. The model must reproduce both counts. `make test` checks
// some binades, BCUSIM_MUFU_EXHAUSTIVE=1 all.
TEST(Mufu, SweepCountsOfOnesAndZeroSigns) {
  const bool all = std::getenv("BCUSIM_MUFU_EXHAUSTIVE") != nullptr;
  const std::set<std::pair<std::string, uint32_t>> some = {
      {"cos.approx.f32", 0x35800000u}, {"cos.approx.ftz.f32", 0xb6800000u},
      {"cos.approx.f32", 0x45000000u}, {"sin.approx.f32", 0x40000000u},
      {"sin.approx.f32", 0xc5000000u}, {"sin.approx.f32", 0x4c000000u}};
  int checked = 0;
  for (const SweepRow &r : sweep_rows()) {
    const bool cos = r.form.rfind("cos", 0) == 0;
    if (!cos && r.form.rfind("sin", 0) != 0)
      continue;
    const bool ones = cos && (r.base & 0x7fffffffu) <= 0x38800000u;
    if (!ones && r.zero_sign == 0 && !some.count({r.form, r.base}))
      continue;
    if (!all && !some.count({r.form, r.base}))
      continue;
    ++checked;
    const uint32_t other_zero =
        !cos && (r.base & 0x80000000u) ? 0x00000000u : 0x80000000u;
    uint64_t n = 0, one = 0, zero = 0;
    for (uint32_t i = 0; i < (1u << 23); i += 4) {
      const uint32_t got = B(sweep_model(r.form, F(r.base | i)));
      ++n;
      one += got == 0x3f800000u;
      zero += got == other_zero;
    }
    SCOPED_TRACE(r.form + " " + std::to_string(r.base));
    EXPECT_EQ(n, r.n);
    EXPECT_EQ(zero, r.zero_sign);
    if (ones) {
      EXPECT_EQ(one, r.n - r.exact);
    }
  }
  EXPECT_EQ(checked, all ? checked : int(some.size()));
}

// ---- wgmma against mma.sync (docs/hopper.md "wgmma") ------------------------

// Each warp of a warpgroup computes its 16 rows of wgmma.m64n8k16 with the
// same block accumulation as mma.sync.m16n8k16: with the same A and C
// registers and the same B, the two give the same bits, on inputs (random
// exponents, cancellation) where the accumulation order and truncation
// matter.
TEST(TensorCores, WgmmaRowsAreMmaSyncTilesBitForBit) {
  const std::string text = R"(.version 8.0
.target sm_90a
.address_size 64
.shared .align 128 .b8 bsm[256];
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc,
                  .param .u64 pout)
{
  .reg .b64 %rd<20>;
  .reg .b32 %r<40>;
  .reg .f32 %f<20>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  ld.param.u64 %rd4, [pout];
  mov.u32 %r0, %tid.x;
  and.b32 %r1, %r0, 31;
  shr.u32 %r2, %r1, 2;
  and.b32 %r3, %r1, 3;
  // A: 4 words per thread; C: 4 floats per thread
  mul.wide.u32 %rd5, %r0, 16;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.v4.b32 {%r4, %r5, %r6, %r7}, [%rd6];
  add.s64 %rd6, %rd3, %rd5;
  ld.global.v4.f32 {%f0, %f1, %f2, %f3}, [%rd6];
  mov.f32 %f4, %f0;
  mov.f32 %f5, %f1;
  mov.f32 %f6, %f2;
  mov.f32 %f7, %f3;
  // B (16 x 8 f16, row-major k x n in global): the mma fragment,
  // b_i = B[2t + (i & 1) + 8 (i >> 1)][g]
  shl.b32 %r8, %r3, 1;
  mad.lo.u32 %r9, %r8, 8, %r2;
  mul.wide.u32 %rd7, %r9, 2;
  add.s64 %rd8, %rd2, %rd7;
  ld.global.u16 %r10, [%rd8];
  ld.global.u16 %r11, [%rd8+16];
  ld.global.u16 %r12, [%rd8+128];
  ld.global.u16 %r13, [%rd8+144];
  shl.b32 %r11, %r11, 16;
  or.b32 %r14, %r10, %r11;
  shl.b32 %r13, %r13, 16;
  or.b32 %r15, %r12, %r13;
  // B into shared memory, K-major without swizzle: element (n, k) at
  // n * 16 + (k / 8) * 128 + (k % 8) * 2 (LBO 128, SBO 256)
  shr.u32 %r16, %r0, 3;
  and.b32 %r17, %r0, 7;
  mul.wide.u32 %rd9, %r0, 2;
  add.s64 %rd9, %rd2, %rd9;
  ld.global.u16 %r18, [%rd9];
  shr.u32 %r19, %r16, 3;
  and.b32 %r20, %r16, 7;
  mul.lo.u32 %r21, %r17, 16;
  mad.lo.u32 %r21, %r19, 128, %r21;
  mad.lo.u32 %r21, %r20, 2, %r21;
  mov.u32 %r22, bsm;
  add.u32 %r23, %r22, %r21;
  st.shared.u16 [%r23], %r18;
  bar.sync 0;
  fence.proxy.async.shared::cta;
  cvt.u64.u32 %rd10, %r22;
  shr.u64 %rd10, %rd10, 4;
  or.b64 %rd10, %rd10, 68720001024; // LBO 128 >> 4 << 16, SBO 256 >> 4 << 32
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r4, %r5, %r6, %r7}, {%r14, %r15}, {%f0, %f1, %f2, %f3};
  setp.eq.u32 %p1, %r0, %r0;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f4, %f5, %f6, %f7}, {%r4, %r5, %r6, %r7}, %rd10, %p1, 1, 1, 0;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  mul.wide.u32 %rd11, %r0, 32;
  add.s64 %rd11, %rd4, %rd11;
  st.global.v4.f32 [%rd11], {%f0, %f1, %f2, %f3};
  st.global.v4.f32 [%rd11+16], {%f4, %f5, %f6, %f7};
  ret;
}
)";
  static_assert(((uint64_t(8) << 16) | (uint64_t(16) << 32)) == 68720001024);
  std::string errors;
  auto m = load_text(text, &errors);
  ASSERT_TRUE(m) << errors;
  uint64_t seed = 12345;
  auto next = [&] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(seed >> 33);
  };
  // f16 with exponents spread over 2^-6 .. 2^6 and both signs.
  auto half = [&] {
    uint32_t r = next();
    return uint16_t((r & 0x8000) | ((9 + (r >> 16) % 12) << 10) | (r & 0x3ff));
  };
  std::vector<uint32_t> a(128 * 4);
  for (auto &w : a)
    w = half() | uint32_t(half()) << 16;
  std::vector<uint16_t> b(16 * 8);
  for (auto &h : b)
    h = half();
  std::vector<float> c(128 * 4);
  for (auto &f : c)
    f = std::ldexp(float(int32_t(next() % 2001) - 1000), int(next() % 9) - 8);
  Device d;
  DevicePtr da = upload(d, a), db = upload(d, b), dc = upload(d, c),
            out = d.alloc(128 * 8 * 4);
  auto r = d.launch(*m, "k", config({1, 1, 1}, {128, 1, 1}),
                    {KernelArg::ptr(da), KernelArg::ptr(db), KernelArg::ptr(dc),
                     KernelArg::ptr(out)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  const auto got = download<uint32_t>(d, out, 128 * 8);
  int nonzero = 0, differ = 0;
  for (size_t t = 0; t < 128; ++t)
    for (size_t i = 0; i < 4; ++i) {
      const uint32_t mma = got[t * 8 + i], wg = got[t * 8 + 4 + i];
      nonzero += mma != 0;
      if (mma != wg && ++differ <= 5)
        ADD_FAILURE() << "thread " << t << " element " << i << ": mma.sync "
                      << std::hex << mma << ", wgmma " << wg;
    }
  EXPECT_EQ(differ, 0);
  EXPECT_GT(nonzero, 400);
}

// ---- wgmma as the H100 computed it (docs/tensor-cores.md "Arithmetic") ------

// Whole m64n16kK cases of tests/exec/wgmma_numerics.cu on its wild data
// (kernels/wgmma_h100.txt): tf32 (one 8-product step) and e4m3/e5m2 (one
// 32-product step, 13 fraction bits per term; f32 results keep 14
// significant bits), with f32 and f16 accumulators.
std::vector<MmaCase> wgmma_cases() {
  return read_cases("wgmma_h100.txt", false);
}

// One warpgroup: A (64 x 32 bytes) and B (16 x 32 bytes) copied into shared
// memory in the K-major layout without swizzle (8-row core matrices, LBO
// 128, SBO 256), C loaded in register order, one wgmma from descriptors,
// D stored in register order; returns D (64 x 16, row-major).
std::vector<uint32_t> run_wgmma(const MmaCase &mc) {
  const std::string d_type = mc.op.substr(0, 3);
  const std::string ab = mc.op.substr(4);
  const bool acc16 = d_type == "f16", tf32 = ab == "tf32.tf32";
  const int size = tf32 ? 4 : 1, K = 32 / size, nd = acc16 ? 4 : 8;
  std::string dregs = "{";
  for (int i = 0; i < nd; ++i)
    dregs += std::string(i ? ", " : "") + "%d" + std::to_string(i);
  dregs += "}";
  std::string body = R"(.reg .b64 %rd<20>;
  .reg .b32 %r<20>;
  .reg .b32 %d<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  ld.param.u64 %rd4, [pd];
  mov.u32 %r0, %tid.x;
  // 16 bytes of A and 4 of B per thread, already in the shared layout
  mul.wide.u32 %rd5, %r0, 16;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd6];
  mov.u32 %r10, sa;
  cvt.u32.u64 %r11, %rd5;
  add.u32 %r12, %r10, %r11;
  st.shared.v4.b32 [%r12], {%r1, %r2, %r3, %r4};
  mul.wide.u32 %rd7, %r0, 4;
  add.s64 %rd8, %rd2, %rd7;
  ld.global.b32 %r5, [%rd8];
  mov.u32 %r13, sb;
  cvt.u32.u64 %r14, %rd7;
  add.u32 %r15, %r13, %r14;
  st.shared.b32 [%r15], %r5;
  // C: 8 words per thread
  mul.wide.u32 %rd9, %r0, 32;
  add.s64 %rd10, %rd3, %rd9;
  ld.global.v4.b32 {%d0, %d1, %d2, %d3}, [%rd10];
  ld.global.v4.b32 {%d4, %d5, %d6, %d7}, [%rd10+16];
  fence.proxy.async.shared::cta;
  bar.sync 0;
  cvt.u64.u32 %rd11, %r10;
  and.b64 %rd11, %rd11, 262143;
  shr.u64 %rd11, %rd11, 4;
  or.b64 %rd11, %rd11, 68720001024; // LBO 128 >> 4 << 16, SBO 256 >> 4 << 32
  cvt.u64.u32 %rd12, %r13;
  and.b64 %rd12, %rd12, 262143;
  shr.u64 %rd12, %rd12, 4;
  or.b64 %rd12, %rd12, 68720001024;
  setp.eq.u32 %p1, %r0, %r0;
  wgmma.fence.sync.aligned;
)";
  body += "  wgmma.mma_async.sync.aligned.m64n16k" + std::to_string(K) + "." +
          d_type + "." + (tf32 ? "tf32.tf32" : ab) + " " + dregs +
          ", %rd11, %rd12, %p1, 1, 1;\n";
  body += R"(  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  add.s64 %rd13, %rd4, %rd9;
  st.global.v4.b32 [%rd13], {%d0, %d1, %d2, %d3};
  st.global.v4.b32 [%rd13+16], {%d4, %d5, %d6, %d7};
  ret;)";
  const std::string text =
      ".version 8.0\n.target sm_90a\n.address_size 64\n"
      ".shared .align 1024 .b8 sa[2048];\n.shared .align 1024 .b8 sb[512];\n"
      ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, "
      ".param .u64 pd)\n{\n" +
      body + "\n}\n";
  std::string errors;
  auto m = load_text(text, &errors);
  EXPECT_TRUE(m) << errors;
  if (!m)
    return {};
  // Byte kb of row mn in the shared layout.
  auto core = [](int mn, int kb) {
    return (mn / 8) * 256 + (kb / 16) * 128 + (mn % 8) * 16 + kb % 16;
  };
  std::vector<uint8_t> sa(2048), sb(512);
  for (int r = 0; r < 64; ++r)
    for (int k = 0; k < K; ++k)
      for (int i = 0; i < size; ++i)
        sa[core(r, k * size + i)] = uint8_t(mc.a[r * K + k] >> (8 * i));
  for (int n = 0; n < 16; ++n)
    for (int k = 0; k < K; ++k)
      for (int i = 0; i < size; ++i)
        sb[core(n, k * size + i)] = uint8_t(mc.b[n * K + k] >> (8 * i));
  // Word j of thread t holds (row, column) of the accumulator layout (f16:
  // two halves per word).
  auto pos = [&](int t, int j, int half, int &row, int &col) {
    const int w = t / 32, g = t % 32 / 4, q = t % 4;
    if (acc16) {
      row = 16 * w + g + 8 * (j % 2);
      col = 8 * (j / 2) + 2 * q + half;
    } else {
      row = 16 * w + g + 8 * (j % 4 / 2);
      col = 8 * (j / 4) + 2 * q + j % 2;
    }
  };
  std::vector<uint32_t> c(128 * 8, 0);
  for (int t = 0; t < 128; ++t)
    for (int j = 0; j < nd; ++j)
      for (int h = 0; h < (acc16 ? 2 : 1); ++h) {
        int row, col;
        pos(t, j, h, row, col);
        c[t * 8 + j] |= mc.c[row * 16 + col] << (16 * h);
      }
  Device d;
  DevicePtr pa = upload(d, sa), pb = upload(d, sb), pc = upload(d, c),
            pd = d.alloc(128 * 8 * 4);
  auto r = d.launch(*m, "k", config({1, 1, 1}, {128, 1, 1}),
                    {KernelArg::ptr(pa), KernelArg::ptr(pb), KernelArg::ptr(pc),
                     KernelArg::ptr(pd)});
  EXPECT_TRUE(r.ok()) << r.diagnostics_text();
  const auto words = download<uint32_t>(d, pd, 128 * 8);
  std::vector<uint32_t> out(64 * 16);
  for (int t = 0; t < 128; ++t)
    for (int j = 0; j < nd; ++j)
      for (int h = 0; h < (acc16 ? 2 : 1); ++h) {
        int row, col;
        pos(t, j, h, row, col);
        out[row * 16 + col] =
            acc16 ? words[t * 8 + j] >> (16 * h) & 0xffff : words[t * 8 + j];
      }
  return out;
}

TEST(TensorCores, WgmmaCasesAsTheH100ComputedThem) {
  const auto cases = wgmma_cases();
  ASSERT_EQ(cases.size(), 5u);
  for (const auto &mc : cases) {
    SCOPED_TRACE(mc.op);
    ASSERT_EQ(mc.c.size(), 1024u);
    ASSERT_EQ(mc.d.size(), 1024u);
    const auto got = run_wgmma(mc);
    ASSERT_EQ(got.size(), 1024u);
    int differ = 0;
    for (size_t i = 0; i < 1024; ++i)
      if (got[i] != mc.d[i] && ++differ <= 5)
        ADD_FAILURE() << "D[" << i / 16 << "][" << i % 16 << "] = " << std::hex
                      << got[i] << ", H100 " << mc.d[i];
    EXPECT_EQ(differ, 0);
  }
}

} // namespace
} // namespace bcusim::engine::test
