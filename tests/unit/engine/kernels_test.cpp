// Real nvcc output (tests/unit/engine/kernels/*.cu, compiled with
// `nvcc -ptx -arch=sm_80`, the .ptx committed) run through the API and
// checked against independent host references written here.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>

#include "test_util.h"

namespace bcusim::engine::test {
namespace {

std::vector<uint32_t> random_u32(size_t n, uint64_t seed) {
  SplitMix64 r(seed);
  std::vector<uint32_t> v(n);
  for (auto &x : v)
    x = uint32_t(r.next());
  return v;
}

TEST(Kernels, Grid3dWithTails) {
  auto m = load_file("grid.ptx");
  ASSERT_TRUE(m);
  const int nx = 37, ny = 11, nz = 5;
  Dim3 block{8, 4, 2}, grid{5, 3, 3};
  for (unsigned threads : {1u, 2u}) {
    Device d;
    DevicePtr out = upload(d, std::vector<uint32_t>(nx * ny * nz, 0xdeadbeef));
    auto r = d.launch(*m, "_Z6grid3dPjiii", config(grid, block, threads),
                      {KernelArg::ptr(out), KernelArg::s32(nx),
                       KernelArg::s32(ny), KernelArg::s32(nz)});
    ASSERT_TRUE(r.ok()) << r.diagnostics_text();
    auto got = download<uint32_t>(d, out, nx * ny * nz);
    for (int z = 0; z < nz; ++z)
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
          uint32_t want = uint32_t(x * 7 + y * 131 + z * 1031) ^
                          uint32_t(x / 8 + (y / 4) * 3 + (z / 2) * 5);
          ASSERT_EQ(got[(z * ny + y) * nx + x], want)
              << x << "," << y << "," << z;
        }
  }
}

TEST(Kernels, MatmulTwoDimensional) {
  auto m = load_file("grid.ptx");
  ASSERT_TRUE(m);
  const int n = 19;
  std::vector<float> a(n * n), b(n * n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = float(i % 7) * 0.25f - 1.0f;
    b[i] = float(i % 5) * 0.5f + 0.125f;
  }
  Device d;
  DevicePtr pa = upload(d, a), pb = upload(d, b),
            pc = upload(d, std::vector<float>(n * n));
  auto r = d.launch(*m, "_Z6matmulPKfS0_Pfi", config({3, 3, 1}, {8, 8, 1}),
                    {KernelArg::ptr(pa), KernelArg::ptr(pb), KernelArg::ptr(pc),
                     KernelArg::s32(n)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  auto c = download<float>(d, pc, n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0;
      for (int k = 0; k < n; ++k)
        s = std::fma(a[i * n + k], b[k * n + j], s); // nvcc contracts s += a*b
      ASSERT_EQ(c[i * n + j], s) << i << "," << j;
    }
}

TEST(Kernels, HistogramAtomicsFromManyCtas) {
  auto m = load_file("atomics.ptx");
  ASSERT_TRUE(m);
  const int n = 10000, nbins = 37;
  auto in = random_u32(n, 7);
  std::vector<uint32_t> want(nbins, 0);
  for (auto v : in)
    ++want[v % nbins];
  for (unsigned threads : {1u, 2u}) {
    Device d;
    DevicePtr pin = upload(d, in),
              pb = upload(d, std::vector<uint32_t>(nbins, 0));
    auto r = d.launch(*m, "_Z9histogramPKjiPji",
                      config({8, 1, 1}, {128, 1, 1}, threads),
                      {KernelArg::ptr(pin), KernelArg::s32(n),
                       KernelArg::ptr(pb), KernelArg::s32(nbins)});
    ASSERT_TRUE(r.ok()) << r.diagnostics_text();
    EXPECT_EQ(download<uint32_t>(d, pb, nbins), want);
  }
}

TEST(Kernels, MixedAtomics) {
  auto m = load_file("atomics.ptx");
  ASSERT_TRUE(m);
  for (unsigned threads : {1u, 2u}) {
    Device d;
    DevicePtr v = upload(d, std::vector<int32_t>{-1, 1, 0, 0, 0});
    DevicePtr u = upload(
        d, std::vector<uint32_t>{0, 0xffffffffu, 0, 0, 0, 0, 0, 0, 0, 0});
    DevicePtr f = upload(d, std::vector<float>{0});
    DevicePtr dd = upload(d, std::vector<double>{0});
    DevicePtr ull = upload(d, std::vector<uint64_t>{0});
    auto r = d.launch(*m, "_Z5mixedPiPjPfPdPy",
                      config({4, 1, 1}, {64, 1, 1}, threads),
                      {KernelArg::ptr(v), KernelArg::ptr(u), KernelArg::ptr(f),
                       KernelArg::ptr(dd), KernelArg::ptr(ull)});
    ASSERT_TRUE(r.ok()) << r.diagnostics_text();
    const int T = 256;
    auto gv = download<int32_t>(d, v, 5);
    EXPECT_EQ(gv, (std::vector<int32_t>{T - 1, -(T - 1), T * (T - 1) / 2, -T,
                                        2 * T}));
    auto gu = download<uint32_t>(d, u, 10);
    EXPECT_EQ(gu[0], 0xffffffffu);
    EXPECT_EQ(gu[1], 0u);
    EXPECT_EQ(gu[2], 0u);        // xor of 0..255
    EXPECT_EQ(gu[3], 256u % 10); // inc wraps at 9
    // dec from 0 with limit 6 cycles through 6,5,...,0 (period 7)
    uint32_t dec = 0;
    for (int i = 0; i < T; ++i)
      dec = (dec == 0 || dec > 6) ? 6 : dec - 1;
    EXPECT_EQ(gu[4], dec);
    EXPECT_EQ(gu[5], uint32_t(T));
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(gu[6 + i] % 4, uint32_t(i));
      EXPECT_LT(gu[6 + i], uint32_t(T));
    }
    EXPECT_EQ(download<float>(d, f, 1)[0], 128.0f);
    EXPECT_EQ(download<double>(d, dd, 1)[0], 64.0);
    uint64_t want = 0;
    for (uint64_t t = 0; t < T; ++t)
      want += t << 20;
    EXPECT_EQ(download<uint64_t>(d, ull, 1)[0], want);
  }
}

TEST(Kernels, WarpIntrinsicsInDivergentCode) {
  auto m = load_file("warp.ptx");
  ASSERT_TRUE(m);
  const int nthreads = 64;
  std::vector<int32_t> in(nthreads);
  SplitMix64 rng(3);
  for (auto &x : in)
    x = int32_t(rng.next() % 50);
  in[5] = 7;
  Device d;
  DevicePtr pin = upload(d, in),
            pout = upload(d, std::vector<int32_t>(nthreads * 8));
  auto r = d.launch(*m, "_Z8warp_opsPKiPi", config({1, 1, 1}, {nthreads, 1, 1}),
                    {KernelArg::ptr(pin), KernelArg::ptr(pout)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  auto out = download<int32_t>(d, pout, nthreads * 8);
  for (int w = 0; w < nthreads / 32; ++w) {
    const int *v = &in[w * 32];
    int sum = 0, mx = INT_MIN;
    uint32_t ballot = 0;
    bool any7 = false, allpos = true;
    for (int l = 0; l < 32; ++l) {
      sum += v[l];
      mx = std::max(mx, v[l]);
      ballot |= uint32_t(v[l] & 1) << l;
      any7 |= v[l] == 7;
      allpos &= v[l] >= 0;
    }
    uint32_t even = 0;
    for (int l = 0; l < 32; ++l)
      if (v[l] % 2 == 0)
        even |= 1u << l;
    for (int l = 0; l < 32; ++l) {
      const int *o = &out[(w * 32 + l) * 8];
      EXPECT_EQ(o[0], sum);
      int half = 0;
      for (int k = (l < 16 ? 0 : 16); k < (l < 16 ? 16 : 32); ++k)
        half += v[k];
      EXPECT_EQ(o[1], half) << "lane " << l;
      EXPECT_EQ(uint32_t(o[2]), ballot);
      EXPECT_EQ(o[3], int(any7) + 2 * int(allpos));
      uint32_t match = 0;
      for (int k = 0; k < 32; ++k)
        if (v[k] % 3 == v[l] % 3)
          match |= 1u << k;
      EXPECT_EQ(uint32_t(o[4]), match);
      EXPECT_EQ(o[5], sum ^ mx);
      EXPECT_EQ(uint32_t(o[6]), v[l] % 2 == 0 ? even : 0u);
      int seg = l & ~7;
      EXPECT_EQ(o[7], l - 3 >= seg ? v[l - 3] : v[l]) << "lane " << l;
    }
  }
}

TEST(Kernels, PrintfInCtaOrder) {
  auto m = load_file("printf.ptx");
  ASSERT_TRUE(m);
  for (unsigned threads : {1u, 2u}) {
    Device d;
    auto r = d.launch(*m, "_Z5helloif", config({3, 1, 1}, {40, 1, 1}, threads),
                      {KernelArg::s32(5), KernelArg::f32(2.5f)});
    ASSERT_TRUE(r.ok()) << r.diagnostics_text();
    std::string want;
    for (int b = 0; b < 3; ++b)
      for (int t : {0, 16, 32}) {
        char line[200];
        std::snprintf(line, sizeof line,
                      "cta %d thread %d: n=5 x=2.500 str %c -1234567890123 "
                      "4000000000 ff|    "
                      "5|-5   |\n",
                      b, t, 'A' + t % 26);
        want += line;
      }
    EXPECT_EQ(r.printf_output, want);
  }
}

TEST(Kernels, LocalArraysAndCalls) {
  auto m = load_file("local.ptx");
  ASSERT_TRUE(m);
  std::vector<int32_t> idx(64);
  SplitMix64 rng(11);
  for (auto &x : idx)
    x = int32_t(rng.next() % 1000);
  const int n = 96;
  Device d;
  DevicePtr pidx = upload(d, idx), pout = upload(d, std::vector<int32_t>(n)),
            pf = upload(d, std::vector<float>(n));
  auto r = d.launch(
      *m, "_Z6localsPKiPiPf", config({3, 1, 1}, {32, 1, 1}),
      {KernelArg::ptr(pidx), KernelArg::ptr(pout), KernelArg::ptr(pf)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  auto out = download<int32_t>(d, pout, n);
  auto fout = download<float>(d, pf, n);
  for (int t = 0; t < n; ++t) {
    int a[16];
    for (int i = 0; i < 16; ++i)
      a[i] = t * i + idx[(t + i) % 64];
    int s = 0;
    for (int i = 0; i < 4; ++i)
      s += a[idx[(t * 3 + i) % 64] & 15];
    EXPECT_EQ(out[t], s) << t;
    EXPECT_EQ(fout[t], float(t) * 0.5f + 1.0f);
  }
}

TEST(Kernels, SyncthreadsDynamicSharedOddCtaSize) {
  auto m = load_file("sync.ptx");
  ASSERT_TRUE(m);
  const int n = 1000, block = 100, grid = 10;
  std::vector<int32_t> in(n);
  for (int i = 0; i < n; ++i)
    in[i] = (i * 37) % 101 - 50;
  Device d;
  DevicePtr pin = upload(d, in), pout = upload(d, std::vector<int32_t>(grid));
  LaunchConfig c = config({grid, 1, 1}, {block, 1, 1});
  c.shared_bytes = block * 4;
  auto r =
      d.launch(*m, "_Z9block_sumPKiPii", c,
               {KernelArg::ptr(pin), KernelArg::ptr(pout), KernelArg::s32(n)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  auto out = download<int32_t>(d, pout, grid);
  for (int b = 0; b < grid; ++b) {
    int s = 0;
    for (int k = 0; k < block; ++k)
      s += in[b * block + k];
    EXPECT_EQ(out[b], s);
  }
}

TEST(Kernels, SharedReverseAndStencilRounds) {
  auto m = load_file("sync.ptx");
  ASSERT_TRUE(m);
  {
    Device d;
    std::vector<int32_t> v(512);
    for (int i = 0; i < 512; ++i)
      v[i] = i * 3;
    DevicePtr p = upload(d, v);
    auto r = d.launch(*m, "_Z7reversePi", config({2, 1, 1}, {256, 1, 1}),
                      {KernelArg::ptr(p)});
    ASSERT_TRUE(r.ok()) << r.diagnostics_text();
    auto got = download<int32_t>(d, p, 512);
    for (int b = 0; b < 2; ++b)
      for (int t = 0; t < 256; ++t)
        EXPECT_EQ(got[b * 256 + t], v[b * 256 + 255 - t]);
  }
  {
    Device d;
    const int n = 128, rounds = 7;
    std::vector<int32_t> v(n);
    for (int i = 0; i < n; ++i)
      v[i] = i % 10;
    DevicePtr p = upload(d, v);
    auto r = d.launch(*m, "_Z14stencil_roundsPii", config({1, 1, 1}, {n, 1, 1}),
                      {KernelArg::ptr(p), KernelArg::s32(rounds)});
    ASSERT_TRUE(r.ok()) << r.diagnostics_text();
    for (int k = 0; k < rounds; ++k) {
      std::vector<int32_t> nv(n);
      for (int t = 0; t < n; ++t)
        nv[t] = v[(t + n - 1) % n] + v[(t + 1) % n] + (t % 3 == 0 ? 1 : 0);
      v = nv;
    }
    EXPECT_EQ(download<int32_t>(d, p, n), v);
  }
}

TEST(Kernels, SpinWaitOnAnotherLaneOfTheSameWarp) {
  auto m = load_file("spin.ptx");
  ASSERT_TRUE(m);
  Device d;
  DevicePtr flag = upload(d, std::vector<int32_t>{0}),
            out = upload(d, std::vector<int32_t>{0});
  auto r = d.launch(*m, "_Z12warp_handoffPViPi", config({1, 1, 1}, {32, 1, 1}),
                    {KernelArg::ptr(flag), KernelArg::ptr(out)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  EXPECT_EQ(download<int32_t>(d, out, 1)[0], 42);
}

TEST(Kernels, SpinWaitOnALaterCta) {
  auto m = load_file("spin.ptx");
  ASSERT_TRUE(m);
  for (unsigned threads : {1u, 2u}) {
    Device d;
    const int g = 6;
    DevicePtr flags = upload(d, std::vector<int32_t>(g)),
              out = upload(d, std::vector<int32_t>(g));
    auto r = d.launch(*m, "_Z9cta_chainPViPi",
                      config({g, 1, 1}, {32, 1, 1}, threads),
                      {KernelArg::ptr(flags), KernelArg::ptr(out)});
    ASSERT_TRUE(r.ok()) << r.diagnostics_text();
    auto got = download<int32_t>(d, out, g);
    for (int b = 0; b < g; ++b)
      EXPECT_EQ(got[b], g - b);
  }
}

uint32_t prmt_ref(uint32_t a, uint32_t b, uint32_t s) {
  uint64_t src = a | (uint64_t(b) << 32);
  uint32_t r = 0;
  for (int n = 0; n < 4; ++n) {
    uint32_t sel = (s >> (4 * n)) & 0xf;
    uint32_t byte = (src >> (8 * (sel & 7))) & 0xff;
    if (sel & 8)
      byte = (byte & 0x80) ? 0xff : 0;
    r |= byte << (8 * n);
  }
  return r;
}

TEST(Kernels, IntegerIntrinsics) {
  auto m = load_file("math.ptx");
  ASSERT_TRUE(m);
  const int n = 64;
  auto a = random_u32(n, 21), b = random_u32(n, 22);
  a[0] = 0;
  a[1] = 0x80000000u;
  b[2] = 0xffffffffu;
  Device d;
  DevicePtr pa = upload(d, a), pb = upload(d, b),
            po = upload(d, std::vector<uint32_t>(n * 16));
  auto r =
      d.launch(*m, "_Z7intmathPKjS0_Pj", config({2, 1, 1}, {32, 1, 1}),
               {KernelArg::ptr(pa), KernelArg::ptr(pb), KernelArg::ptr(po)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  auto out = download<uint32_t>(d, po, n * 16);
  for (int t = 0; t < n; ++t) {
    uint32_t x = a[t], y = b[t] | 1u;
    int32_t sx = int32_t(x), sy = int32_t(y);
    const uint32_t *o = &out[t * 16];
    EXPECT_EQ(o[0], uint32_t((uint64_t(x) * y) >> 32)) << t;
    EXPECT_EQ(o[1], uint32_t((int64_t(sx) * sy) >> 32)) << t;
    EXPECT_EQ(o[2], x / y + x % y) << t;
    int32_t q = (sx == INT_MIN && sy == -1) ? INT_MIN : sx / sy;
    int32_t rm = (sy == -1) ? 0 : sx % sy;
    EXPECT_EQ(o[3], uint32_t(q) + uint32_t(rm)) << t;
    uint32_t ffs = x ? uint32_t(__builtin_ctz(x)) + 1 : 0;
    uint32_t clz = x ? uint32_t(__builtin_clz(x)) : 32;
    EXPECT_EQ(o[4], uint32_t(__builtin_popcount(x)) + (clz << 8) + (ffs << 16))
        << t;
    uint32_t rev = 0;
    for (int i = 0; i < 32; ++i)
      rev |= ((x >> i) & 1u) << (31 - i);
    EXPECT_EQ(o[5], rev) << t;
    EXPECT_EQ(o[6], prmt_ref(x, y, y & 0x7777)) << t;
    uint64_t hl = (uint64_t(y) << 32) | x;
    uint32_t fl = uint32_t((hl << (y & 31)) >> 32),
             fr = uint32_t(hl >> (x & 31));
    EXPECT_EQ(o[7], fl ^ fr) << t;
    unsigned __int128 p =
        (unsigned __int128)(uint64_t(x) * 77777) * (uint64_t(y) << 20);
    EXPECT_EQ(o[8], uint32_t(uint64_t(p >> 64))) << t;
    EXPECT_EQ(o[9], uint32_t(std::llabs(int64_t(sx) - sy) + 5)) << t;
    int32_t dp = 3;
    for (int i = 0; i < 4; ++i)
      dp += int32_t(int8_t(x >> (8 * i))) * int32_t(int8_t(y >> (8 * i)));
    EXPECT_EQ(o[10], uint32_t(dp)) << t;
    EXPECT_EQ(o[11],
              (x >> (y % 32)) + uint32_t(sx >> (y % 31)) + (x << (y % 29)))
        << t;
    EXPECT_EQ(o[12], uint32_t(std::max(sx, sy)) + std::min(x, y) +
                         uint32_t(sx == INT_MIN ? sx : std::abs(sx)))
        << t;
    uint32_t usad = x > y ? x - y : y - x;
    int32_t hadd = int32_t((int64_t(sx) + sy) >> 1);
    EXPECT_EQ(o[13], usad + uint32_t(hadd)) << t;
    uint64_t w = uint64_t(x) * y + (uint64_t(y) << 32);
    EXPECT_EQ(o[14], uint32_t(w / (y | 3u)) ^ uint32_t(w % 1000003)) << t;
    int32_t m24 = int32_t(uint32_t(int64_t(int32_t(x << 8) >> 8) *
                                   int64_t(int32_t(y << 8) >> 8)));
    EXPECT_EQ(o[15], (x & 0xff) * (y & 0xff) + uint32_t(m24)) << t;
  }
}

TEST(Kernels, FloatIntrinsicsAndConversions) {
  auto m = load_file("math.ptx");
  ASSERT_TRUE(m);
  const int n = 64;
  std::vector<float> a(n), b(n);
  SplitMix64 rng(5);
  for (int i = 0; i < n; ++i) {
    a[i] = float(int64_t(rng.next() % 20001) - 10000) / 997.0f;
    b[i] = float(int64_t(rng.next() % 20001) - 10000) / 991.0f;
    if (b[i] == 0)
      b[i] = 1.5f;
  }
  a[3] = 2.5f / 7.0f; // ties for rounding to nearest even after * 7
  Device d;
  DevicePtr pa = upload(d, a), pb = upload(d, b),
            po = upload(d, std::vector<float>(n * 8)),
            pi = upload(d, std::vector<int32_t>(n * 4)),
            pd = upload(d, std::vector<double>(n * 3));
  auto r =
      d.launch(*m, "_Z9floatmathPKfS0_PfPiPd", config({2, 1, 1}, {32, 1, 1}),
               {KernelArg::ptr(pa), KernelArg::ptr(pb), KernelArg::ptr(po),
                KernelArg::ptr(pi), KernelArg::ptr(pd)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  auto out = download<float>(d, po, n * 8);
  auto iout = download<int32_t>(d, pi, n * 4);
  auto dout = download<double>(d, pd, n * 3);
  for (int t = 0; t < n; ++t) {
    float x = a[t], y = b[t];
    const float *o = &out[t * 8];
    EXPECT_EQ(o[0], x / y);
    EXPECT_EQ(o[1], std::sqrt(std::fabs(x)));
    EXPECT_EQ(o[2], std::fmin(x, y) + std::fmax(x, y) * 2.0f);
    EXPECT_EQ(o[3], std::copysign(y, x));
    EXPECT_EQ(o[4], std::fma(x, y, -1.0f));
    EXPECT_EQ(o[5], std::floor(x) + std::ceil(y) + std::trunc(x * 3.0f) +
                        std::nearbyint(y * 5.0f));
    EXPECT_EQ(o[6], float(int(x)) + float(unsigned(std::fabs(y))));
    EXPECT_EQ(o[7], x > y ? x - y : y - x);
    const int *io = &iout[t * 4];
    EXPECT_EQ(io[0], int(std::nearbyint(x * 7.0f))) << x;
    EXPECT_EQ(io[1], int(std::trunc(y * 7.0f)));
    EXPECT_EQ(io[2], int(std::ceil(x * 7.0f)));
    EXPECT_EQ(io[3], int(std::floor(y * 7.0f)));
    double dx = x, dy = y;
    const double *dd = &dout[t * 3];
    EXPECT_EQ(dd[0], dx / dy + std::sqrt(std::fabs(dx)));
    EXPECT_EQ(dd[1],
              std::fma(dx, dy, 0.125) - double((long long)(dx * 1000.0)));
    EXPECT_EQ(dd[2], double(x) * double(y));
  }
}

} // namespace
} // namespace bcusim::engine::test

namespace bcusim::engine::test {
namespace {

// Distance in units in the last place between two floats of the same sign.
int64_t ulp_distance(float a, float b) {
  auto key = [](float f) {
    int32_t i = std::bit_cast<int32_t>(f);
    return i < 0 ? int64_t(INT32_MIN) - i : int64_t(i);
  };
  return std::llabs(key(a) - key(b));
}

TEST(Kernels, CudaMathLibraryWithinItsErrorBounds) {
  auto m = load_file("libm.ptx");
  ASSERT_TRUE(m);
  const int n = 64;
  std::vector<float> x(n);
  SplitMix64 rng(17);
  for (int i = 0; i < n; ++i) {
    double u = double(rng.next() >> 11) * 0x1.0p-53;
    // small, medium and huge arguments (sinf/cosf take the Payne-Hanek path
    // through local memory above ~1e5)
    x[i] = float((u - 0.5) * (i % 3 == 0 ? 10.0 : i % 3 == 1 ? 2000.0 : 6e7));
  }
  Device d;
  DevicePtr px = upload(d, x), po = upload(d, std::vector<float>(n * 8)),
            pd = upload(d, std::vector<double>(n * 3));
  auto r =
      d.launch(*m, "_Z4libmPKfPfPd", config({2, 1, 1}, {32, 1, 1}),
               {KernelArg::ptr(px), KernelArg::ptr(po), KernelArg::ptr(pd)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  auto o = download<float>(d, po, n * 8);
  auto dd = download<double>(d, pd, n * 3);
  for (int t = 0; t < n; ++t) {
    double v = x[t];
    double want[8] = {std::sin(v),
                      std::cos(v),
                      std::exp(double(x[t] * 0.01f)),
                      std::log(double(std::fabs(x[t]) + 1.0f)),
                      std::pow(double(std::fabs(x[t]) + 0.5f), double(1.7f)),
                      std::tanh(double(x[t] * 0.001f)),
                      std::erf(double(x[t] * 0.0001f)),
                      std::atan2(v, 3.0)};
    // CUDA's documented maximum errors are at most 4 ulp for these.
    for (int k = 0; k < 8; ++k) {
      float w = float(want[k]);
      if (std::fabs(w) < 1e-30f)
        EXPECT_NEAR(o[t * 8 + k], w, 1e-30f) << "x=" << x[t] << " fn " << k;
      else
        EXPECT_LE(ulp_distance(o[t * 8 + k], w), 4)
            << "x=" << x[t] << " fn " << k << " got " << o[t * 8 + k]
            << " want " << w;
    }
    double we = std::exp(v * 0.001);
    if (std::isinf(we))
      EXPECT_EQ(dd[t * 3 + 0], we);
    else
      EXPECT_NEAR(dd[t * 3 + 0], we, 1e-15 * we);
    EXPECT_NEAR(dd[t * 3 + 1], std::log(std::fabs(v) + 1.0),
                1e-15 * std::log(std::fabs(v) + 2));
    EXPECT_NEAR(dd[t * 3 + 2], std::sin(v), 1e-15) << v;
  }
}

} // namespace
} // namespace bcusim::engine::test
