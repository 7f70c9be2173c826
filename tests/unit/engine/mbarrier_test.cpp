// The mbarrier state machine (docs/mbarrier.md): the layout of the state
// word, every transition as a kernel observes it in shared memory, token and
// parity waits, try_wait's bound, async copies, and the misuse diagnostics.
#include "test_util.h"

#include "mbarrier_state.h"

namespace bcusim::engine::test {
namespace {

namespace mb = detail::mbar;

TEST(MbarrierLayout, FieldsRoundTrip) {
  uint64_t s = mb::make(5, 7, 1048575, -3);
  EXPECT_EQ(mb::phase(s), 5u);
  EXPECT_EQ(mb::pending(s), 7u);
  EXPECT_EQ(mb::expected(s), 1048575u);
  EXPECT_EQ(mb::tx(s), -3);
  EXPECT_EQ(mb::make(0, 3, 3, 0), 0x0000'0000'0030'0003ull);
  EXPECT_EQ(mb::make(1, 0, 0, 64), (1ull << 61) | (64ull << 40));
  EXPECT_EQ(mb::tx(mb::make(0, 0, 0, mb::kTxMax)), mb::kTxMax);
  EXPECT_EQ(mb::tx(mb::make(0, 0, 0, -mb::kTxMax)), -mb::kTxMax);
  // The phase number wraps modulo 8.
  EXPECT_EQ(mb::phase(mb::make(9, 0, 0, 0)), 1u);
  // A token: the arrival's phase and the pending count left after it.
  EXPECT_EQ(mb::token(2, 5), (2ull << 61) | 5);
}

// One thread walks an mbarrier through its transitions and stores the state
// word after each step (out[i]) and the values it observes.
const char *kWalk = R"(
  .shared .align 8 .b64 bar;
  .reg .b32 %r<8>;
  .reg .b64 %rd<16>;
  .reg .pred %p<8>;
  ld.param.u64 %rd1, [out];
  mbarrier.init.shared::cta.b64 [bar], 3;
  ld.shared.u64 %rd2, [bar];
  st.global.u64 [%rd1], %rd2;
  mbarrier.arrive.shared::cta.b64 %rd3, [bar];
  ld.shared.u64 %rd2, [bar];
  st.global.u64 [%rd1+8], %rd2;
  st.global.u64 [%rd1+16], %rd3;
  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 64;
  mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd4, [bar], 32;
  mbarrier.arrive.relaxed.cta.shared::cta.b64 %rd4, [bar];
  ld.shared.u64 %rd2, [bar];
  st.global.u64 [%rd1+24], %rd2;
  mbarrier.test_wait.shared::cta.b64 %p1, [bar], %rd3;
  selp.u64 %rd5, 1, 0, %p1;
  st.global.u64 [%rd1+32], %rd5;
  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 96;
  ld.shared.u64 %rd2, [bar];
  st.global.u64 [%rd1+40], %rd2;
  mbarrier.test_wait.shared::cta.b64 %p1, [bar], %rd3;
  mbarrier.test_wait.parity.shared::cta.b64 %p2, [bar], 0;
  mbarrier.test_wait.parity.shared::cta.b64 %p3, [bar], 1;
  selp.u64 %rd5, 1, 0, %p1;
  selp.u64 %rd6, 2, 0, %p2;
  selp.u64 %rd7, 4, 0, %p3;
  or.b64 %rd5, %rd5, %rd6;
  or.b64 %rd5, %rd5, %rd7;
  st.global.u64 [%rd1+48], %rd5;
  mbarrier.arrive_drop.shared::cta.b64 %rd8, [bar];
  mbarrier.arrive.noComplete.shared::cta.b64 %rd8, [bar], 1;
  mbarrier.pending_count.b64 %r1, %rd8;
  cvt.u64.u32 %rd9, %r1;
  st.global.u64 [%rd1+56], %rd9;
  ld.shared.u64 %rd2, [bar];
  st.global.u64 [%rd1+64], %rd2;
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [bar];
  ld.shared.u64 %rd2, [bar];
  st.global.u64 [%rd1+72], %rd2;
  mov.u64 %rd10, bar;
  cvta.shared.u64 %rd10, %rd10;
  mbarrier.inval.b64 [%rd10];
  mbarrier.init.b64 [%rd10], 1;
  st.shared.u64 [bar], 0;
  mbarrier.try_wait.parity.shared::cta.b64 %p4, [bar], 1, 1000;
  selp.u64 %rd5, 1, 0, %p4;
  st.global.u64 [%rd1+80], %rd5;
  ret;)";

TEST(Mbarrier, EveryTransitionIsVisibleInSharedMemory) {
  auto m = load_text(ptx_module(".param .u64 out", kWalk));
  ASSERT_TRUE(m);
  Device d;
  DevicePtr p = d.alloc(11 * 8);
  auto r = d.launch(*m, "k", config({1, 1, 1}, {1, 1, 1}), {KernelArg::ptr(p)});
  ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostics_text();
  auto v = download<uint64_t>(d, p, 11);
  EXPECT_EQ(v[0], mb::make(0, 3, 3, 0));  // init 3
  EXPECT_EQ(v[1], mb::make(0, 2, 3, 0));  // arrive
  EXPECT_EQ(v[2], mb::token(0, 3));       // its token: pending before it
  EXPECT_EQ(v[3], mb::make(0, 0, 3, 96)); // tx keeps phase 0 open
  EXPECT_EQ(v[4], 0u);                    // test_wait: incomplete
  EXPECT_EQ(v[5], mb::make(1, 3, 3, 0));  // complete_tx completes
  EXPECT_EQ(v[6], 1u | 2u);               // token and parity 0 done
  EXPECT_EQ(v[7], 2u);                    // pending_count (prior)
  EXPECT_EQ(v[8], mb::make(1, 1, 2, 0));  // arrive_drop: expected 2
  EXPECT_EQ(v[9], mb::make(2, 2, 2, 0));  // remote arrive completes
  EXPECT_EQ(v[10], 1u); // a store of 0 over the word: phase 0, parity 1 done
}

// 64 threads, count 64: every thread arrives and waits with try_wait; the
// phase completes once, in the order the scheduler chose.
TEST(Mbarrier, TryWaitReleasesEveryThread) {
  auto m = load_text(ptx_module(".param .u64 out", R"(
  .shared .align 8 .b64 bar;
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra S;
  mbarrier.init.shared.b64 [bar], 64;
S:
  bar.sync 0;
  mbarrier.arrive.shared.b64 %rd2, [bar];
W:
  mbarrier.try_wait.shared.b64 %p2, [bar], %rd2;
  @!%p2 bra W;
  ld.shared.u64 %rd3, [bar];
  mul.wide.u32 %rd4, %r1, 8;
  add.u64 %rd4, %rd1, %rd4;
  st.global.u64 [%rd4], %rd3;
  ret;)"));
  ASSERT_TRUE(m);
  for (auto sched : {"", "random:3"}) {
    Device d;
    DevicePtr p = d.alloc(64 * 8);
    auto cfg = config({1, 1, 1}, {64, 1, 1});
    if (*sched) {
      cfg.schedule.kind = Schedule::Kind::Random;
      cfg.schedule.seed = 3;
    }
    auto r = d.launch(*m, "k", cfg, {KernelArg::ptr(p)});
    ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostics_text();
    for (uint64_t s : download<uint64_t>(d, p, 64))
      EXPECT_EQ(s, mb::make(1, 64, 64, 0));
  }
}

// The bulk copy is deferred: a thread that reads the destination without
// waiting still sees the old contents in the same turn; after the
// mbarrier's phase completes it sees the copy.
TEST(Mbarrier, BulkCopyCompletesTransactionsWhenPerformed) {
  auto m = load_text(ptx_module(".param .u64 in, .param .u64 out", R"(
  .shared .align 16 .b32 buf[8];
  .shared .align 8 .b64 bar;
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], 32;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 32, [bar];
  ld.shared.u32 %r1, [buf+4];
  st.global.u32 [%rd2], %r1;
W:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
  @!%p1 bra W;
  ld.shared.u32 %r1, [buf+4];
  st.global.u32 [%rd2+4], %r1;
  ret;)"));
  ASSERT_TRUE(m);
  Device d;
  DevicePtr in = upload<uint32_t>(d, {10, 11, 12, 13, 14, 15, 16, 17});
  DevicePtr out = d.alloc(8);
  auto r = d.launch(*m, "k", config({1, 1, 1}, {1, 1, 1}),
                    {KernelArg::ptr(in), KernelArg::ptr(out)});
  ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostics_text();
  auto v = download<uint32_t>(d, out, 2);
  EXPECT_EQ(v[0], 0u);
  EXPECT_EQ(v[1], 11u);
}

// cp.async groups: wait_group 1 completes every group but the newest; the
// newest is still in flight in the same turn (deferred, never earlier).
TEST(Mbarrier, CpAsyncWaitGroupCompletesOlderGroups) {
  auto m = load_text(ptx_module(".param .u64 in, .param .u64 out", R"(
  .shared .align 16 .b32 buf[8];
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  cp.async.ca.shared.global [buf], [%rd1], 4;
  cp.async.commit_group;
  cp.async.cg.shared.global [buf+16], [%rd1+16], 16, 8;
  cp.async.commit_group;
  cp.async.wait_group 1;
  ld.shared.u32 %r1, [buf];
  st.global.u32 [%rd2], %r1;
  ld.shared.u32 %r1, [buf+16];
  st.global.u32 [%rd2+4], %r1;
  cp.async.wait_all;
  ld.shared.v4.u32 {%r0, %r1, %r2, %r3}, [buf+16];
  st.global.v4.u32 [%rd2+16], {%r0, %r1, %r2, %r3};
  ret;)"));
  ASSERT_TRUE(m);
  Device d;
  DevicePtr in = upload<uint32_t>(d, {10, 11, 12, 13, 14, 15, 16, 17});
  DevicePtr out = d.alloc(8 * 4);
  auto r = d.launch(*m, "k", config({1, 1, 1}, {1, 1, 1}),
                    {KernelArg::ptr(in), KernelArg::ptr(out)});
  ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostics_text();
  EXPECT_EQ(download<uint32_t>(d, out, 8),
            (std::vector<uint32_t>{10, 0, 0, 0, 14, 15, 0, 0}));
}

TEST(Mbarrier, BulkCopyBoundsAreChecked) {
  auto m = load_text(ptx_module(".param .u64 in", R"(
  .shared .align 16 .b32 buf[8];
  .shared .align 8 .b64 bar;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [in];
  mbarrier.init.shared::cta.b64 [bar], 1;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 64, [bar];
  ret;)"));
  ASSERT_TRUE(m);
  Device d;
  DevicePtr in = d.alloc(32);
  auto r =
      d.launch(*m, "k", config({1, 1, 1}, {1, 1, 1}), {KernelArg::ptr(in)});
  EXPECT_EQ(r.status, RunStatus::Fault);
  EXPECT_NE(
      r.diagnostics_text().find("out-of-bounds .shared store of 64 bytes"),
      std::string::npos)
      << r.diagnostics_text();
}

TEST(Mbarrier, DeadlockNamesTheObject) {
  auto m = load_text(ptx_module("", R"(
  .shared .align 8 .b64 bar;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  mbarrier.init.shared.b64 [bar], 2;
  mbarrier.arrive.shared.b64 %rd1, [bar];
W:
  mbarrier.try_wait.shared.b64 %p1, [bar], %rd1, 50;
  @!%p1 bra W;
  ret;)"));
  ASSERT_TRUE(m);
  Device d;
  auto cfg = config({1, 1, 1}, {1, 1, 1});
  cfg.max_steps = 1'000'000;
  auto r = d.launch(*m, "k", cfg, {});
  EXPECT_EQ(r.status, RunStatus::Deadlock);
  EXPECT_LT(r.warp_steps, 1000u);
  EXPECT_NE(r.diagnostics_text().find(
                "is suspended in mbarrier.try_wait on the mbarrier at shared "
                "address 0x400 ('bar') for the completion of phase 0 (mod 8); "
                "state 0x0000000000200001: phase 0 (mod 8), pending arrivals "
                "1 of 2, tx-count 0"),
            std::string::npos)
      << r.diagnostics_text();
}

TEST(Mbarrier, MisuseIsReported) {
  struct Case {
    const char *body, *needle;
  } cases[] = {
      {"mbarrier.arrive.shared.b64 %rd1, [bar];", "before its initialization"},
      {"mbarrier.init.shared.b64 [bar], 1;\n mbarrier.arrive.shared.b64 "
       "%rd1, [bar];\n mbarrier.init.shared.b64 [bar], 1;",
       "without mbarrier.inval"},
      {"mbarrier.init.shared.b64 [bar], 1;\n mbarrier.init.shared.b64 [bar], "
       "2;",
       "without mbarrier.inval"},
      {"mbarrier.init.shared.b64 [bar], 1;\n mbarrier.arrive.shared.b64 "
       "%rd1, [bar], 2;",
       "over-arrival"},
      {"mbarrier.init.shared.b64 [bar], 1;\n "
       "mbarrier.complete_tx.relaxed.cta.shared.b64 [bar], 1048575;\n "
       "mbarrier.complete_tx.relaxed.cta.shared.b64 [bar], 1;",
       "below its range"},
      {"mbarrier.init.shared.b64 [bar], 1;\n "
       "mbarrier.arrive.noComplete.shared.b64 %rd1, [bar], 1;",
       ".noComplete arrival that completes"},
      {"mbarrier.init.shared.b64 [bar], 1;\n mbarrier.arrive.shared.b64 "
       "%rd1, [bar];\n mbarrier.arrive.shared.b64 %rd2, [bar];\n "
       "mbarrier.test_wait.shared.b64 %p1, [bar], %rd1;",
       "neither the current phase"},
  };
  for (const auto &c : cases) {
    auto m = load_text(ptx_module("", std::string(R"(
  .shared .align 8 .b64 bar;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  )") + c.body + "\n  ret;"));
    ASSERT_TRUE(m);
    Device d;
    auto r = d.launch(*m, "k", config({1, 1, 1}, {1, 1, 1}), {});
    EXPECT_EQ(r.status, RunStatus::Fault) << c.body;
    EXPECT_NE(r.diagnostics_text().find(c.needle), std::string::npos)
        << r.diagnostics_text();
    EXPECT_NE(r.diagnostics_text().find("('bar')"), std::string::npos)
        << r.diagnostics_text();
  }
}

// Several threads initializing one untouched object with the same count
// cannot change the outcome: a warning, once, and the run succeeds.
TEST(Mbarrier, SameCountReinitBeforeAnyArrivalIsAWarning) {
  auto m = load_text(ptx_module("", R"(
  .shared .align 8 .b64 bar;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  mbarrier.init.shared.b64 [bar], 32;
  mbarrier.arrive.shared.b64 %rd1, [bar];
  ret;)"));
  ASSERT_TRUE(m);
  Device d;
  auto r = d.launch(*m, "k", config({1, 1, 1}, {32, 1, 1}), {});
  EXPECT_EQ(r.status, RunStatus::Ok) << r.diagnostics_text();
  ASSERT_EQ(r.diagnostics.size(), 1u) << r.diagnostics_text();
  EXPECT_EQ(r.diagnostics[0].severity, Severity::Warning);
  EXPECT_NE(r.diagnostics[0].message.find("harmless here"), std::string::npos);
}

// --warn-only keeps running through survivable mbarrier misuse.
TEST(Mbarrier, WarnOnlySurvivesOverArrival) {
  auto m = load_text(ptx_module("", R"(
  .shared .align 8 .b64 bar;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  mbarrier.init.shared.b64 [bar], 1;
  mbarrier.arrive.shared.b64 %rd1, [bar], 2;
  mbarrier.test_wait.parity.shared.b64 %p1, [bar], 0;
  @!%p1 trap;
  ret;)"));
  ASSERT_TRUE(m);
  Device d;
  auto cfg = config({1, 1, 1}, {1, 1, 1});
  cfg.warn_only = true;
  auto r = d.launch(*m, "k", cfg, {});
  EXPECT_EQ(r.status, RunStatus::Ok) << r.diagnostics_text();
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].severity, Severity::Warning);
  EXPECT_NE(r.diagnostics[0].message.find("over-arrival"), std::string::npos);
}

} // namespace
} // namespace bcusim::engine::test
