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

} // namespace
} // namespace bcusim::engine::test
