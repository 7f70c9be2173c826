// Scheduling: deterministic by default, reproducible random schedules, the
// same results on several host threads.
#include <algorithm>

#include "test_util.h"

namespace bcusim::engine::test {
namespace {

// Each thread takes a ticket; the order of tickets is the schedule.
const char *kTickets = R"(
  .reg .b32 %t, %c, %k, %old;
  .reg .b64 %o, %p, %q;
  ld.param.u64 %o, [k_param_0];
  ld.param.u64 %p, [k_param_1];
  mov.u32 %t, %tid.x;
  mov.u32 %c, %ctaid.x;
  mov.u32 %k, %ntid.x;
  mad.lo.u32 %t, %c, %k, %t;
  atom.global.add.u32 %old, [%p], 1;
  mul.wide.u32 %q, %old, 4;
  add.s64 %q, %o, %q;
  st.global.u32 [%q], %t;
  ret;)";

std::vector<uint32_t> order(const Schedule &s, unsigned threads = 1) {
  auto m = load_text(
      ptx_module(".param .u64 k_param_0, .param .u64 k_param_1", kTickets));
  Device d;
  DevicePtr o = d.alloc(4 * 256), c = d.alloc(4);
  LaunchConfig cfg = config({4, 1, 1}, {64, 1, 1}, threads);
  cfg.schedule = s;
  auto r = d.launch(*m, "k", cfg, {KernelArg::ptr(o), KernelArg::ptr(c)});
  EXPECT_TRUE(r.ok()) << r.diagnostics_text();
  return download<uint32_t>(d, o, 256);
}

TEST(Schedule, Parse) {
  EXPECT_EQ(Schedule::parse("rr")->kind, Schedule::Kind::RoundRobin);
  auto s = Schedule::parse("random:123");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kind, Schedule::Kind::Random);
  EXPECT_EQ(s->seed, 123u);
  EXPECT_FALSE(Schedule::parse("random:"));
  EXPECT_FALSE(Schedule::parse("random:x"));
  EXPECT_FALSE(Schedule::parse("fifo"));
}

TEST(Schedule, DefaultIsDeterministic) {
  Schedule rr;
  auto a = order(rr), b = order(rr);
  EXPECT_EQ(a, b);
  // Round-robin with a quantum: the first warp takes the first 32 tickets.
  for (uint32_t i = 0; i < 32; ++i)
    EXPECT_EQ(a[i], i);
}

TEST(Schedule, RandomIsReproducibleAndDifferent) {
  auto s1 = *Schedule::parse("random:1"), s2 = *Schedule::parse("random:2");
  auto a = order(s1), b = order(s1), c = order(s2);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, order(Schedule{}));
  std::vector<uint32_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (uint32_t i = 0; i < 256; ++i)
    EXPECT_EQ(sorted[i], i);
}

TEST(Schedule, ParseReverseAndDelayAndPrintBack) {
  auto r = Schedule::parse("reverse");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, Schedule::Kind::Reverse);
  auto d = Schedule::parse("delay:31");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind, Schedule::Kind::Delay);
  EXPECT_EQ(d->warp, 31u);
  EXPECT_FALSE(Schedule::parse("delay:32"));
  EXPECT_FALSE(Schedule::parse("delay:"));
  EXPECT_FALSE(Schedule::parse("delay:-1"));
  EXPECT_EQ(Schedule::parse("default")->kind, Schedule::Kind::RoundRobin);
  for (const char *t : {"rr", "reverse", "delay:3", "random:99"})
    EXPECT_EQ(Schedule::parse(t)->str(), t);
}

TEST(Schedule, ExplorationStartsWithTheGivenOneAndNeverRepeats) {
  auto list = Schedule::exploration(8, Schedule{}, 2);
  std::vector<std::string> names;
  for (const auto &s : list)
    names.push_back(s.str());
  EXPECT_EQ(names, (std::vector<std::string>{"rr", "reverse", "random:1",
                                             "delay:0", "random:2", "delay:1",
                                             "random:3", "random:4"}));
  auto from_random = Schedule::exploration(3, *Schedule::parse("random:1"), 4);
  ASSERT_EQ(from_random.size(), 3u);
  EXPECT_EQ(from_random[0].str(), "random:1");
  EXPECT_EQ(from_random[1].str(), "rr");
  EXPECT_EQ(from_random[2].str(), "reverse");
  // A single warp per CTA: nothing to delay.
  for (const auto &s : Schedule::exploration(6, Schedule{}, 1))
    EXPECT_NE(s.kind, Schedule::Kind::Delay);
}

TEST(Schedule, ReverseRunsTheLastWarpOfTheLastCtaFirst) {
  auto a = order(*Schedule::parse("reverse"));
  // CTA 3 is admitted first and its warp 1 (threads 224..255) runs first.
  for (uint32_t i = 0; i < 32; ++i)
    EXPECT_EQ(a[i], 224 + i);
  EXPECT_EQ(a, order(*Schedule::parse("reverse")));
}

TEST(Schedule, DelayedWarpRunsLast) {
  // One CTA of 4 warps: warp 0 takes the last 32 tickets.
  auto m = load_text(
      ptx_module(".param .u64 k_param_0, .param .u64 k_param_1", kTickets));
  Device d;
  DevicePtr o = d.alloc(4 * 128), c = d.alloc(4);
  LaunchConfig cfg = config({1, 1, 1}, {128, 1, 1});
  cfg.schedule = *Schedule::parse("delay:0");
  auto r = d.launch(*m, "k", cfg, {KernelArg::ptr(o), KernelArg::ptr(c)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  auto a = download<uint32_t>(d, o, 128);
  for (uint32_t i = 0; i < 32; ++i)
    EXPECT_EQ(a[96 + i], i);
}

// Warp 1 spins until warp 0 sets a flag; under delay:0 warp 0 runs only
// once warp 1 is seen spinning, and the kernel still completes.
TEST(Schedule, DelayedWarpIsReleasedWhenTheOthersSpin) {
  auto m = load_text(ptx_module(".param .u64 k_param_0", R"(
  .reg .b32 %t, %v;
  .reg .b64 %p;
  .reg .pred %w0, %done;
  ld.param.u64 %p, [k_param_0];
  mov.u32 %t, %tid.x;
  setp.lt.u32 %w0, %t, 32;
  @%w0 bra SET;
SPIN:
  ld.volatile.global.u32 %v, [%p];
  setp.ne.u32 %done, %v, 0;
  @!%done bra SPIN;
  ret;
SET:
  st.volatile.global.u32 [%p], 1;
  ret;)"));
  ASSERT_TRUE(m);
  Device d;
  DevicePtr f = d.alloc(4);
  LaunchConfig cfg = config({1, 1, 1}, {64, 1, 1});
  cfg.schedule = *Schedule::parse("delay:0");
  cfg.time_limit_s = 30;
  auto r = d.launch(*m, "k", cfg, {KernelArg::ptr(f)});
  EXPECT_TRUE(r.ok()) << r.diagnostics_text();
  // Without the writer the same spin is a deadlock, reported at once.
  cfg.schedule = Schedule{};
  auto m2 = load_text(ptx_module(".param .u64 k_param_0", R"(
  .reg .b32 %v;
  .reg .b64 %p;
  .reg .pred %done;
  ld.param.u64 %p, [k_param_0];
SPIN:
  ld.volatile.global.u32 %v, [%p];
  setp.ne.u32 %done, %v, 0;
  @!%done bra SPIN;
  ret;)"));
  ASSERT_TRUE(m2);
  DevicePtr g = d.alloc(4);
  auto r2 = d.launch(*m2, "k", cfg, {KernelArg::ptr(g)});
  EXPECT_EQ(r2.status, RunStatus::Deadlock) << r2.diagnostics_text();
  EXPECT_LT(r2.seconds, 10.0);
}

// A spin across host threads: CTA 0 waits for a flag no CTA sets, CTA 1
// finishes; with two workers the deadlock is found as with one.
TEST(Schedule, SpinDeadlockAcrossHostThreads) {
  auto m = load_text(ptx_module(".param .u64 k_param_0", R"(
  .reg .b32 %v, %c;
  .reg .b64 %p;
  .reg .pred %done, %first;
  ld.param.u64 %p, [k_param_0];
  mov.u32 %c, %ctaid.x;
  setp.ne.u32 %first, %c, 0;
  @%first bra END;
SPIN:
  ld.volatile.global.u32 %v, [%p];
  setp.ne.u32 %done, %v, 0;
  @!%done bra SPIN;
END:
  ret;)"));
  ASSERT_TRUE(m);
  for (unsigned threads : {1u, 2u}) {
    Device d;
    DevicePtr f = d.alloc(4);
    LaunchConfig cfg = config({2, 1, 1}, {32, 1, 1}, threads);
    cfg.time_limit_s = 30;
    auto r = d.launch(*m, "k", cfg, {KernelArg::ptr(f)});
    EXPECT_EQ(r.status, RunStatus::Deadlock) << threads;
    EXPECT_NE(r.diagnostics_text().find("CTA (0,0,0) warp 0 lanes 0xffffffff "
                                        "spin in the loop closed here"),
              std::string::npos)
        << r.diagnostics_text();
  }
}

} // namespace
} // namespace bcusim::engine::test
