// Run-time faults, deadlocks, limits, compile-time rejection and launch
// validation: each reported with its location and the executing thread.
#include "test_util.h"

namespace bcusim::engine::test {
namespace {

// 32 threads load a[tid] from an 8-element buffer: lane 8 faults first.
const char *kLoadTid = R"(
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [k_param_0];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  ret;)";

TEST(Faults, OutOfBoundsGlobalLoadNamesTheThread) {
  auto m = load_text(ptx_module(".param .u64 k_param_0", kLoadTid));
  ASSERT_TRUE(m);
  Device d;
  DevicePtr p = d.alloc(8 * 4);
  auto r =
      d.launch(*m, "k", config({2, 1, 1}, {32, 1, 1}), {KernelArg::ptr(p)});
  EXPECT_EQ(r.status, RunStatus::Fault);
  std::string text = r.diagnostics_text();
  EXPECT_NE(text.find("test.ptx:14:3: error: out-of-bounds .global load of 4 "
                      "bytes at address"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("ld.global.u32 %r2, [%rd3];"), std::string::npos) << text;
  EXPECT_NE(
      text.find("in kernel 'k', CTA (0,0,0), warp 0, lane 8, thread (8,0,0)"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("0 bytes past the end of the 32-byte allocation"),
            std::string::npos)
      << text;
}

// A whole warp's coalesced accesses (lane l at the first lane's address +
// l * size) that end exactly at the end of their global allocation or of
// the CTA's shared memory run; a sign-extending one widens each lane.
TEST(Faults, CoalescedAccessesEndingAtTheRegionsEnd) {
  auto m = load_text(ptx_module(".param .u64 k_param_0, .param .u64 k_param_1",
                                R"(
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [k_param_0];
  ld.param.u64 %rd2, [k_param_1];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 2;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.s16 %r2, [%rd4];
  mov.u32 %r3, sh;
  shl.b32 %r4, %r1, 2;
  add.u32 %r5, %r3, %r4;
  st.shared.u32 [%r5], %r2;
  ld.shared.u32 %r6, [%r5];
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r6;
  ret;)",
                                ".shared .align 4 .b8 sh[128];"));
  ASSERT_TRUE(m);
  Device d;
  std::vector<int16_t> in(32);
  for (int i = 0; i < 32; ++i)
    in[size_t(i)] = int16_t(i % 2 ? -1000 * i : i);
  DevicePtr pin = upload(d, in);
  DevicePtr pout = d.alloc(32 * 4);
  auto r = d.launch(*m, "k", config({1, 1, 1}, {32, 1, 1}),
                    {KernelArg::ptr(pin), KernelArg::ptr(pout)});
  ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostics_text();
  auto out = download<int32_t>(d, pout, 32);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(out[size_t(i)], int32_t(in[size_t(i)])) << i;
}

// A coalesced store one element longer than its allocation: the last lane
// faults, named as the per-lane check names it.
TEST(Faults, CoalescedStorePastTheEndNamesTheLastLane) {
  auto m = load_text(ptx_module(".param .u64 k_param_0", R"(
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [k_param_0];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;)"));
  ASSERT_TRUE(m);
  Device d;
  DevicePtr p = d.alloc(31 * 4);
  auto r =
      d.launch(*m, "k", config({1, 1, 1}, {32, 1, 1}), {KernelArg::ptr(p)});
  EXPECT_EQ(r.status, RunStatus::Fault);
  std::string text = r.diagnostics_text();
  EXPECT_NE(text.find("out-of-bounds .global store of 4 bytes"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("warp 0, lane 31, thread (31,0,0)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("0 bytes past the end of the 124-byte allocation"),
            std::string::npos)
      << text;
}

TEST(Faults, MisalignedAndNull) {
  auto m = load_text(ptx_module(".param .u64 k_param_0", R"(
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [k_param_0];
  ld.global.u32 %r2, [%rd1+2];
  ret;)"));
  ASSERT_TRUE(m);
  Device d;
  DevicePtr p = d.alloc(64);
  auto r = d.launch(*m, "k", config({1, 1, 1}, {1, 1, 1}), {KernelArg::ptr(p)});
  EXPECT_EQ(r.status, RunStatus::Fault);
  EXPECT_NE(r.diagnostics_text().find("misaligned .global load of 4 bytes"),
            std::string::npos)
      << r.diagnostics_text();
  auto r2 =
      d.launch(*m, "k", config({1, 1, 1}, {1, 1, 1}), {KernelArg::ptr(0)});
  EXPECT_EQ(r2.status, RunStatus::Fault);
  EXPECT_NE(r2.diagnostics_text().find("null-pointer .global load"),
            std::string::npos)
      << r2.diagnostics_text();
}

TEST(Faults, SharedOutOfBoundsThroughGenericAddress) {
  auto m = load_text(ptx_module("", R"(
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 buf[64];
  mov.u64 %rd1, buf;
  cvta.shared.u64 %rd2, %rd1;
  st.u32 [%rd2+64], %r1;
  ret;)"));
  ASSERT_TRUE(m);
  Device d;
  auto r = d.launch(*m, "k", config({1, 1, 1}, {1, 1, 1}), {});
  EXPECT_EQ(r.status, RunStatus::Fault);
  EXPECT_NE(r.diagnostics_text().find("out-of-bounds .shared store of 4 bytes"),
            std::string::npos)
      << r.diagnostics_text();
}

TEST(Faults, Trap) {
  auto m = load_text(ptx_module("", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 5;
  @%p1 trap;
  ret;)"));
  ASSERT_TRUE(m);
  Device d;
  auto r = d.launch(*m, "k", config({1, 1, 1}, {32, 1, 1}), {});
  EXPECT_EQ(r.status, RunStatus::Trap);
  EXPECT_NE(r.diagnostics_text().find("trap executed"), std::string::npos);
  EXPECT_NE(r.diagnostics_text().find("lane 5, thread (5,0,0)"),
            std::string::npos);
}

TEST(Faults, DeadlockBetweenBarrierAndWarpSync) {
  // Half the warp waits at shfl.sync for lanes that wait at bar.sync for
  // them: nobody can proceed.
  auto m = load_text(ptx_module("", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra L;
  bar.sync 0;
L:
  shfl.sync.idx.b32 %r2, %r1, 0, 31, -1;
  ret;)"));
  ASSERT_TRUE(m);
  Device d;
  auto r = d.launch(*m, "k", config({1, 1, 1}, {32, 1, 1}), {});
  EXPECT_EQ(r.status, RunStatus::Deadlock);
  std::string t = r.diagnostics_text();
  EXPECT_NE(t.find("deadlock in kernel 'k': every remaining warp of CTA "
                   "(0,0,0) is blocked"),
            std::string::npos)
      << t;
  EXPECT_NE(
      t.find("warp 0 lanes 0xffff0000 waits here at barrier 0 ('bar.sync') "
             "for lanes 0x0000ffff of its warp"),
      std::string::npos)
      << t;
  EXPECT_NE(t.find("warp 0 lanes 0x0000ffff waits for the other lanes"),
            std::string::npos)
      << t;
}

const char *kForever = R"(
L:
  bra L;
  ret;)";

TEST(Faults, StepLimitIsExactAndReported) {
  auto m = load_text(ptx_module("", kForever));
  ASSERT_TRUE(m);
  Device d;
  LaunchConfig c = config({2, 1, 1}, {64, 1, 1});
  c.max_steps = 1000;
  auto r = d.launch(*m, "k", c, {});
  EXPECT_EQ(r.status, RunStatus::StepLimit);
  EXPECT_EQ(r.warp_steps, 1000u);
  EXPECT_NE(r.diagnostics_text().find("did not finish within --max-steps 1000"),
            std::string::npos);
  EXPECT_NE(r.diagnostics_text().find("still running here"), std::string::npos);
}

// A loop that never repeats a state (a 64-bit counter) runs until the time
// limit; one that repeats a state while nothing changes is a deadlock.
const char *kCounting = R"(
  .reg .b64 %rd<2>;
  mov.u64 %rd1, 0;
L:
  add.u64 %rd1, %rd1, 1;
  bra L;
  ret;)";

TEST(Faults, EndlessLoopWithoutProgressIsADeadlock) {
  auto m = load_text(ptx_module("", kForever));
  ASSERT_TRUE(m);
  Device d;
  LaunchConfig c = config({1, 1, 1}, {32, 1, 1});
  c.time_limit_s = 30;
  auto r = d.launch(*m, "k", c, {});
  EXPECT_EQ(r.status, RunStatus::Deadlock);
  std::string t = r.diagnostics_text();
  EXPECT_NE(t.find("1 warp spins waiting for a change that no thread will "
                   "make"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("CTA (0,0,0) warp 0 lanes 0xffffffff spin in the loop "
                   "closed here"),
            std::string::npos)
      << t;
}

TEST(Faults, TimeLimit) {
  auto m = load_text(ptx_module("", kCounting));
  ASSERT_TRUE(m);
  Device d;
  LaunchConfig c = config({1, 1, 1}, {32, 1, 1});
  c.time_limit_s = 0.2;
  auto r = d.launch(*m, "k", c, {});
  EXPECT_EQ(r.status, RunStatus::TimeLimit);
  EXPECT_LT(r.seconds, 5.0);
}

// The errors that keep kernel `k` of `m` from running, rendered, and a
// launch of it, which must be refused with the same errors.
std::string refused_launch(const Module &m, const std::string &k) {
  Device d;
  auto r = d.launch(m, k, config({1, 1, 1}, {32, 1, 1}), {});
  EXPECT_EQ(r.status, RunStatus::BadLaunch);
  std::string errors;
  for (const auto &e : m.kernel_errors(k))
    errors += render(e);
  EXPECT_EQ(r.diagnostics_text(), errors);
  return errors;
}

TEST(Faults, UnsupportedInstructionsAreRejectedBeforeRunning) {
  auto m = load_text(ptx_module("", R"(
  .reg .b64 %rd<2>;
  stacksave.u64 %rd1;
  ret;)"));
  ASSERT_TRUE(m);
  std::string err = refused_launch(*m, "k");
  EXPECT_NE(err.find("test.ptx:9:3: error: kernel 'k' cannot run: "
                     "unsupported instruction 'stacksave.u64'"),
            std::string::npos)
      << err;
}

TEST(Faults, UnsupportedModifierIsNamed) {
  auto m = load_text(ptx_module("", R"(
  .reg .b32 %r<4>;
  add.foo.u32 %r1, %r2, %r3;
  ret;)"));
  ASSERT_TRUE(m);
  std::string err = refused_launch(*m, "k");
  EXPECT_NE(err.find("unsupported modifier .foo in 'add.foo.u32'"),
            std::string::npos)
      << err;
}

// A module loads when it parses: only the kernels that use something
// unsupported, themselves or through the functions they call, are refused.
TEST(Faults, OnlyKernelsThatUseSomethingUnsupportedAreRefused) {
  auto m = load_text(R"(.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b32 r) ext_fn (.param .b32 a);
.func (.param .b32 r) bad_leaf (.param .b32 a)
{
  .reg .b32 %r<3>;
  add.foo.u32 %r1, %r2, %r2;
  st.param.b32 [r], %r1;
  ret;
}
.func (.param .b32 r) middle (.param .b32 a)
{
  .reg .b32 %r<3>;
  { .param .b32 p; .param .b32 q; st.param.b32 [p], 1;
    call (q), bad_leaf, (p); }
  st.param.b32 [r], 0;
  ret;
}
.visible .entry good(.param .u64 out)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], 7;
  ret;
}
.visible .entry through_call()
{
  { .param .b32 p; .param .b32 q; st.param.b32 [p], 1;
    call (q), middle, (p); }
  ret;
}
.visible .entry external()
{
  { .param .b32 p; .param .b32 q; st.param.b32 [p], 1;
    call (q), ext_fn, (p); }
  ret;
}
)");
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->kernel_errors("good").empty());
  Device d;
  DevicePtr out = d.alloc(4);
  auto r =
      d.launch(*m, "good", config({1, 1, 1}, {1, 1, 1}), {KernelArg::ptr(out)});
  EXPECT_TRUE(r.ok()) << r.diagnostics_text();
  EXPECT_EQ(download<uint32_t>(d, out, 1)[0], 7u);

  std::string err = refused_launch(*m, "through_call");
  EXPECT_NE(err.find("test.ptx:8:3: error: kernel 'through_call' cannot run: "
                     "function 'bad_leaf' it calls: unsupported modifier .foo "
                     "in 'add.foo.u32'"),
            std::string::npos)
      << err;
  err = refused_launch(*m, "external");
  EXPECT_NE(err.find("test.ptx:36:5: error: kernel 'external' cannot run: "
                     "call to undefined external function 'ext_fn' (the "
                     "module does not define it)"),
            std::string::npos)
      << err;
}

TEST(Faults, LaunchValidation) {
  auto m = load_text(ptx_module(".param .u64 k_param_0", kLoadTid));
  ASSERT_TRUE(m);
  Device d;
  auto r =
      d.launch(*m, "k", config({1, 1, 1}, {1025, 1, 1}), {KernelArg::ptr(0)});
  EXPECT_EQ(r.status, RunStatus::BadLaunch);
  EXPECT_NE(r.diagnostics_text().find("at most 1024"), std::string::npos);
  r = d.launch(*m, "k", config({1, 1, 1}, {32, 1, 1}), {});
  EXPECT_EQ(r.status, RunStatus::BadLaunch);
  EXPECT_NE(r.diagnostics_text().find("takes 1 parameter; 0 arguments given"),
            std::string::npos)
      << r.diagnostics_text();
  r = d.launch(*m, "nope", config({1, 1, 1}, {32, 1, 1}), {});
  EXPECT_EQ(r.status, RunStatus::BadLaunch);
  auto m2 = load_text(".version 8.0\n.target sm_80\n.address_size 64\n"
                      ".visible .entry k() .reqntid 64, 1, 1\n{\n ret;\n}\n");
  ASSERT_TRUE(m2);
  r = d.launch(*m2, "k", config({1, 1, 1}, {32, 1, 1}), {});
  EXPECT_EQ(r.status, RunStatus::BadLaunch);
  EXPECT_NE(r.diagnostics_text().find(".reqntid"), std::string::npos);
  EXPECT_TRUE(d.launch(*m2, "k", config({1, 1, 1}, {64, 1, 1}), {}).ok());
}

} // namespace
} // namespace bcusim::engine::test

namespace bcusim::engine::test {
namespace {

// Spins until the flag (volatile) is non-zero, then stores 7.
const char *kSpinOnFlag = R"(
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [k_param_0];
  ld.param.u64 %rd2, [k_param_1];
W:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra W;
  mov.u32 %r2, 7;
  st.global.u32 [%rd2], %r2;
  ret;)";

// LaunchConfig::on_stuck: a launch whose warps spin on memory only others
// change asks before it reports a deadlock; resumed, it re-reads memory.
TEST(Faults, SpinningLaunchAsksOthersBeforeADeadlock) {
  auto m = load_text(
      ptx_module(".param .u64 k_param_0, .param .u64 k_param_1", kSpinOnFlag));
  ASSERT_TRUE(m);
  for (bool set_flag : {true, false}) {
    Device d;
    DevicePtr flag = d.alloc(4), out = d.alloc(4);
    LaunchConfig c = config({1, 1, 1}, {64, 1, 1});
    std::vector<uint64_t> progress;
    c.on_stuck = [&](uint64_t p) {
      progress.push_back(p);
      if (progress.size() == 2 && set_flag) {
        const uint32_t one = 1;
        d.write(flag, &one, 4);
      }
      return progress.size() < 3;
    };
    auto r = d.launch(*m, "k", c, {KernelArg::ptr(flag), KernelArg::ptr(out)});
    if (set_flag) {
      // Asked twice (the first resumption changed nothing), then done.
      EXPECT_EQ(r.status, RunStatus::Ok) << r.diagnostics_text();
      ASSERT_EQ(progress.size(), 2u);
      uint32_t v = 0;
      d.read(out, &v, 4);
      EXPECT_EQ(v, 7u);
    } else {
      // Refused at the third time: the deadlock is reported.
      EXPECT_EQ(r.status, RunStatus::Deadlock);
      ASSERT_EQ(progress.size(), 3u);
    }
    // Resumptions are not the launch's own progress.
    EXPECT_EQ(progress[0], progress[1]);
  }
}

} // namespace
} // namespace bcusim::engine::test
