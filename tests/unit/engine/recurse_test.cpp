// Recursive device functions (tests/unit/engine/kernels/recurse.cu, real
// nvcc output): every activation has its own frame and registers
// (docs/engine.md "Recursion"). Expected values come from the same
// recursions written here for the host.
#include <cstdint>
#include <functional>

#include "test_util.h"

namespace bcusim::engine::test {
namespace {

constexpr uint64_t kPrime = 1000000007ull;

uint64_t fact(int n) { return n <= 1 ? 1 : uint64_t(n) * fact(n - 1) % kPrime; }
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

// A launch of `kernel(const T *in, int *out)` of recurse.ptx: its status,
// its diagnostics rendered (they point into the module) and `out` (out_n
// elements, in.size() when 0; -1 before the launch).
struct InOut {
  RunStatus status = RunStatus::Ok;
  std::string text;
  std::vector<int32_t> out;
};
template <class T>
InOut run_in_out(const char *kernel, const std::vector<T> &in,
                 const LaunchConfig &cfg, size_t out_n = 0) {
  InOut r;
  auto m = load_file("recurse.ptx");
  if (!m) {
    ADD_FAILURE() << "recurse.ptx does not load";
    r.status = RunStatus::BadLaunch;
    return r;
  }
  Device d;
  const size_t n = out_n ? out_n : in.size();
  DevicePtr pin = upload(d, in), po = upload(d, std::vector<int32_t>(n, -1));
  RunReport rep =
      d.launch(*m, kernel, cfg, {KernelArg::ptr(pin), KernelArg::ptr(po)});
  r.status = rep.status;
  r.text = rep.diagnostics_text();
  r.out = download<int32_t>(d, po, n);
  return r;
}

TEST(Recursion, FactorialAndFibonacciAtPerLaneDepths) {
  auto m = load_file("recurse.ptx");
  ASSERT_TRUE(m);
  const int n = 96;
  std::vector<int32_t> in(n);
  for (int t = 0; t < n; ++t)
    in[t] = (t * 7) % 21; // lanes of one warp at depths 0 .. 20
  for (unsigned threads : {1u, 2u}) {
    Device d;
    DevicePtr pin = upload(d, in), pf = upload(d, std::vector<uint64_t>(n)),
              pg = upload(d, std::vector<int32_t>(n));
    auto r = d.launch(
        *m, "_Z8fact_fibPKiPyPi", config({3, 1, 1}, {32, 1, 1}, threads),
        {KernelArg::ptr(pin), KernelArg::ptr(pf), KernelArg::ptr(pg)});
    ASSERT_TRUE(r.ok()) << r.diagnostics_text();
    auto f = download<uint64_t>(d, pf, n);
    auto g = download<int32_t>(d, pg, n);
    for (int t = 0; t < n; ++t) {
      EXPECT_EQ(f[t], fact(in[t])) << t;
      EXPECT_EQ(g[t], fib(in[t] % 16)) << t;
    }
  }
}

TEST(Recursion, BinaryTreeSum) {
  auto m = load_file("recurse.ptx");
  ASSERT_TRUE(m);
  const int n = 100;
  std::vector<int32_t> val(n), left(n), right(n);
  for (int i = 0; i < n; ++i) {
    val[i] = (i * 37) % 101 - 50;
    left[i] = 2 * i + 1 < n && i % 5 != 3 ? 2 * i + 1 : -1;
    right[i] = 2 * i + 2 < n && i % 7 != 2 ? 2 * i + 2 : -1;
  }
  std::function<int(int)> sum = [&](int i) {
    return i < 0 ? 0 : val[i] + sum(left[i]) + sum(right[i]);
  };
  Device d;
  DevicePtr pv = upload(d, val), pl = upload(d, left), pr = upload(d, right),
            po = upload(d, std::vector<int32_t>(n, -1));
  auto r = d.launch(*m, "_Z4treePKiS0_S0_Pii", config({2, 1, 1}, {64, 1, 1}),
                    {KernelArg::ptr(pv), KernelArg::ptr(pl), KernelArg::ptr(pr),
                     KernelArg::ptr(po), KernelArg::s32(n)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  auto out = download<int32_t>(d, po, n);
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(out[i], sum(i)) << i;
}

TEST(Recursion, MutualRecursion) {
  const int n = 64;
  std::vector<uint32_t> in(n);
  for (int t = 0; t < n; ++t)
    in[t] = uint32_t(t * 3 % 17);
  auto r = run_in_out("_Z6parityPKjPi", in, config({1, 1, 1}, {64, 1, 1}));
  ASSERT_EQ(r.status, RunStatus::Ok) << r.text;
  for (int t = 0; t < n; ++t)
    EXPECT_EQ(r.out[t], in[t] % 2 == 0 ? 2 : 1) << t;
}

// down / half of recurse.cu, calling each other through a table.
int down(int n, int acc);
int half(int n, int acc);
int step(int which, int n, int acc) {
  return which ? half(n, acc) : down(n, acc);
}
int down(int n, int acc) {
  return n <= 0 ? acc : step(n & 1, n - 1, acc * 3 + n);
}
int half(int n, int acc) {
  if (n <= 0)
    return acc;
  return step((n >> 1) & 1, n / 2, acc + 7) ^ n;
}

TEST(Recursion, ThroughFunctionPointers) {
  const int n = 64;
  std::vector<int32_t> in(n);
  for (int t = 0; t < n; ++t)
    in[t] = t % 13;
  auto r = run_in_out("_Z5fnptrPKiPi", in, config({1, 1, 1}, {64, 1, 1}));
  ASSERT_EQ(r.status, RunStatus::Ok) << r.text;
  for (int t = 0; t < n; ++t)
    EXPECT_EQ(r.out[t], step(t & 1, in[t], t)) << t;
}

// depot of recurse.cu: a local array at every depth, the child reading
// the parent's through a pointer.
int depot(int n, const int *parent, int k) {
  int a[12];
  for (int i = 0; i < 12; ++i)
    a[i] = n * 100 + i + (parent ? parent[(i + k) % 12] : 0);
  int r = 0;
  if (n > 0)
    r = depot(n - 1, a, k + 1);
  for (int i = 0; i < 12; ++i)
    r += a[(i * 5 + k) % 12] * (i + 1);
  return r;
}

TEST(Recursion, LocalArrayInEveryActivation) {
  const int n = 64;
  std::vector<int32_t> in(n);
  for (int t = 0; t < n; ++t)
    in[t] = (t * 5) % 6;
  for (unsigned threads : {1u, 2u}) {
    auto r = run_in_out("_Z6localsPKiPi", in,
                        config({2, 1, 1}, {32, 1, 1}, threads));
    ASSERT_EQ(r.status, RunStatus::Ok) << r.text;
    for (int t = 0; t < n; ++t)
      EXPECT_EQ(r.out[t], depot(in[t], nullptr, t & 3)) << t;
  }
}

// The lanes of a warp interleave at different depths under other
// schedules too (random preemption at memory instructions, reversed warp
// order): the same results.
TEST(Recursion, SameResultsUnderOtherSchedules) {
  const int n = 64;
  std::vector<int32_t> in(n);
  for (int t = 0; t < n; ++t)
    in[t] = (t * 5) % 6;
  for (const char *sched : {"reverse", "random:1", "random:2", "delay:1"}) {
    LaunchConfig cfg = config({1, 1, 1}, {64, 1, 1});
    cfg.schedule = *Schedule::parse(sched);
    auto r = run_in_out("_Z6localsPKiPi", in, cfg);
    ASSERT_EQ(r.status, RunStatus::Ok) << sched << ": " << r.text;
    for (int t = 0; t < n; ++t)
      EXPECT_EQ(r.out[t], depot(in[t], nullptr, t & 3)) << sched << " " << t;
  }
}

TEST(Recursion, SharedMemoryWorkAtEveryDepth) {
  const int n = 128;
  std::vector<int32_t> depth(n);
  for (int t = 0; t < n; ++t)
    depth[t] = (t * 11) % 10;
  auto r = run_in_out("_Z12shared_paintPKiPi", depth,
                      config({1, 1, 1}, {128, 1, 1}));
  ASSERT_EQ(r.status, RunStatus::Ok) << r.text;
  const auto &out = r.out;
  for (int t = 0; t < n; ++t) {
    int s[4] = {0, 0, 0, 0};
    // paint(d) recurses first, then updates: the innermost (d = 1) first.
    for (int k = 1; k <= depth[t]; ++k)
      s[k & 3] = s[k & 3] * 3 + k * (t + 1);
    EXPECT_EQ(out[t], s[0] + 10 * s[1] + 100 * s[2] + 1000 * s[3]) << t;
  }
}

int runaway(int n) {
  return n == 0 ? 0 : 1 + runaway(n - 1) + n + ((n * 3) & 7);
}

TEST(Recursion, RunawayRecursionOverflowsTheStack) {
  const int n = 32;
  std::vector<int32_t> in(n, 3);
  in[5] = -1; // never reaches 0
  auto r =
      run_in_out("_Z4deepPKiPi", in, config({1, 1, 1}, {32, 1, 1}), n + 72);
  EXPECT_EQ(r.status, RunStatus::Fault);
  const std::string &text = r.text;
  EXPECT_NE(text.find("error: stack overflow: the call of 'runaway(int, "
                      "int volatile*)'"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("limit of 1024 bytes per thread"), std::string::npos)
      << text;
  EXPECT_NE(text.find("in kernel 'deep(int const*, int*)', CTA (0,0,0), warp "
                      "0, lane 5"),
            std::string::npos)
      << text;
}

TEST(Recursion, LargerStackLimitIsHonoured) {
  const int n = 32;
  std::vector<int32_t> in(n);
  for (int t = 0; t < n; ++t)
    in[t] = 100 + t;
  for (uint32_t stack : {1024u, 32768u}) {
    LaunchConfig cfg = config({1, 1, 1}, {32, 1, 1});
    cfg.stack_size = stack;
    auto r = run_in_out("_Z4deepPKiPi", in, cfg, n + 72);
    if (stack == 1024) {
      EXPECT_EQ(r.status, RunStatus::Fault) << r.text;
      continue;
    }
    ASSERT_EQ(r.status, RunStatus::Ok) << r.text;
    for (int t = 0; t < n; ++t)
      EXPECT_EQ(r.out[t], runaway(in[t])) << t;
  }
}

} // namespace
} // namespace bcusim::engine::test

namespace bcusim::engine::test {
namespace {

// A function reached through a pointer the module never names (address
// arithmetic from another function's address) is not known to recurse:
// re-entering it faults instead of overwriting its one static frame.
TEST(Recursion, ReenteringAnUnnamedFunctionThroughAPointerFaults) {
  const std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.func (.param .b32 anchor_r) anchor(.param .b32 anchor_n)
{
  .reg .b32 %r<2>;
  ld.param.b32 %r1, [anchor_n];
  st.param.b32 [anchor_r], %r1;
  ret;
}
.func (.param .b32 hidden_r) hidden(.param .b32 hidden_n)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  .reg .pred %p<2>;
  ld.param.b32 %r1, [hidden_n];
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra DONE;
  sub.s32 %r2, %r1, 1;
  mov.u64 %rd1, anchor;
  add.u64 %rd2, %rd1, 16;
  {
  .param .b32 a;
  .param .b32 b;
  st.param.b32 [a], %r2;
  proto : .callprototype (.param .b32 _) _ (.param .b32 _);
  call (b), %rd2, (a), proto;
  ld.param.b32 %r3, [b];
  }
DONE:
  st.param.b32 [hidden_r], %r1;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  {
  .param .b32 a;
  .param .b32 b;
  st.param.b32 [a], 2;
  call (b), hidden, (a);
  ld.param.b32 %r1, [b];
  }
  st.global.u32 [%rd1], %r1;
  ret;
}
)";
  auto m = load_text(ptx);
  ASSERT_TRUE(m);
  Device d;
  DevicePtr out = upload(d, std::vector<int32_t>(1));
  auto r =
      d.launch(*m, "k", config({1, 1, 1}, {1, 1, 1}), {KernelArg::ptr(out)});
  EXPECT_EQ(r.status, RunStatus::Fault);
  EXPECT_NE(r.diagnostics_text().find(
                "indirect call re-enters function 'hidden', which is active"),
            std::string::npos)
      << r.diagnostics_text();
}

} // namespace
} // namespace bcusim::engine::test
