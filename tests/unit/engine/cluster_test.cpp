// elect.sync, bar.warp.sync membership, clusters
// (special registers, barrier.cluster phases, the DSMEM address map of
// docs/clusters.md), the grid.sync workspace and griddepcontrol notes.
#include <cstring>

#include "test_util.h"

namespace bcusim::engine::test {
namespace {

std::string sm90_module(const std::string &params, const std::string &body,
                        const std::string &directives = "") {
  return ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry "
         "k(" +
         params + ")\n" + directives + "\n{\n" + body + "\n}\n";
}

// Runs a kernel with one u64 output buffer of `n` elements. `report` gets
// the run's report with its diagnostics rendered into `report_text` (the
// diagnostics point into the module, which does not outlive this call).
std::string report_text;
std::vector<uint64_t> run_out(const std::string &text, Dim3 grid, Dim3 block,
                              size_t n, RunReport *report = nullptr,
                              LaunchConfig cfg = {}) {
  auto m = load_text(text);
  if (!m)
    return {};
  Device d;
  DevicePtr p = d.alloc(n * 8);
  cfg.grid = grid;
  cfg.block = block;
  if (cfg.time_limit_s == 60)
    cfg.time_limit_s = 30;
  auto r = d.launch(*m, "k", cfg, {KernelArg::ptr(p)});
  report_text = r.diagnostics_text();
  if (report) {
    *report = r;
    report->diagnostics.clear();
    report->notes.clear();
    report->notes.resize(r.notes.size());
  } else
    EXPECT_TRUE(r.ok()) << report_text;
  return download<uint64_t>(d, p, n);
}

const char *kOutPrologue = R"(
  .reg .b64 %out, %addr, %res, %off;
  .reg .b32 %t, %g;
  .reg .pred %p<4>;
  ld.param.u64 %out, [k_param_0];
  mov.u32 %t, %tid.x;
  mov.u32 %g, %ctaid.x;
  mad.lo.u32 %g, %g, %ntid.x, %t;
  mul.wide.u32 %off, %g, 8;
  add.s64 %addr, %out, %off;
  mov.u64 %res, 0;
)";

// The leader is the lowest-numbered executing member lane
// (docs/clusters.md "elect.sync").
TEST(Elect, FullAndPartialMasks) {
  auto v = run_out(
      sm90_module(".param .u64 k_param_0", std::string(kOutPrologue) + R"(
  .reg .b32 %l1, %l2, %lane, %q;
  mov.u32 %lane, %laneid;
  elect.sync %l1|%p1, -1;
  selp.u32 %q, 0x10000, 0, %p1;
  mov.u32 %l2, 99;
  setp.lt.u32 %p3, %lane, 8;
  @%p3 bra SKIP;
  elect.sync %l2|%p2, 0xffffff00;
  @%p2 or.b32 %q, %q, 0x20000;
SKIP:
  shl.b32 %l2, %l2, 8;
  or.b32 %q, %q, %l1;
  or.b32 %q, %q, %l2;
  cvt.u64.u32 %res, %q;
  st.global.u64 [%addr], %res;
  ret;)"),
      {1, 1, 1}, {32, 1, 1}, 32);
  ASSERT_EQ(v.size(), 32u);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    uint64_t want = 0; // leader of the full warp: lane 0
    want |= (lane < 8 ? 99u : 8u) << 8;
    if (lane == 0)
      want |= 0x10000;
    if (lane == 8)
      want |= 0x20000;
    EXPECT_EQ(v[lane], want) << "lane " << lane;
  }
}

TEST(Elect, SinkForDAndPartialWarpLeader) {
  // A CTA of 40 threads: warp 1 has lanes 0-7 only; mask -1 elects lane 0
  // of each warp; `_` discards d.
  auto v = run_out(
      sm90_module(".param .u64 k_param_0", std::string(kOutPrologue) + R"(
  elect.sync _|%p1, -1;
  selp.u64 %res, 1, 0, %p1;
  st.global.u64 [%addr], %res;
  ret;)"),
      {1, 1, 1}, {40, 1, 1}, 40);
  ASSERT_EQ(v.size(), 40u);
  for (uint32_t t = 0; t < 40; ++t)
    EXPECT_EQ(v[t], t == 0 || t == 32 ? 1u : 0u) << t;
}

TEST(WarpSync, ExecutingLaneOutsideTheMaskIsAnError) {
  RunReport r;
  run_out(sm90_module(".param .u64 k_param_0", std::string(kOutPrologue) + R"(
  elect.sync _|%p1, 0xf0f0f0f0;
  ret;)"),
          {1, 1, 1}, {32, 1, 1}, 32, &r);
  EXPECT_EQ(r.status, RunStatus::Fault);
  EXPECT_NE(report_text.find("lane 0, which is not in its "
                             "membermask 0xf0f0f0f0"),
            std::string::npos)
      << report_text;
}

TEST(WarpSync, MemberThatExitedIsADeadlock) {
  // Lanes 16-31 exit first (the guarded exit precedes the sync), then the
  // others sync with the full mask.
  RunReport r;
  run_out(sm90_module(".param .u64 k_param_0", std::string(kOutPrologue) + R"(
  .reg .b32 %lane;
  mov.u32 %lane, %laneid;
  setp.ge.u32 %p1, %lane, 16;
  @%p1 exit;
  bar.warp.sync -1;
  ret;)"),
          {1, 1, 1}, {32, 1, 1}, 32, &r);
  EXPECT_EQ(r.status, RunStatus::Deadlock);
  EXPECT_NE(report_text.find("member lanes 0xffff0000 of membermask "
                             "0xffffffff, which have exited"),
            std::string::npos)
      << report_text;
}

TEST(WarpSync, PartialWarpIgnoresLanesThatDoNotExist) {
  auto v = run_out(
      sm90_module(".param .u64 k_param_0", std::string(kOutPrologue) + R"(
  bar.warp.sync -1;
  mov.u64 %res, 7;
  st.global.u64 [%addr], %res;
  ret;)"),
      {1, 1, 1}, {20, 1, 1}, 20);
  for (auto x : v)
    EXPECT_EQ(x, 7u);
}

// sm_70+: the lanes of one mask meet at different bar.warp.sync
// instructions (docs/clusters.md "Different instructions"). Each half
// stores to shared memory before its sync and reads the other half's
// element after it.
const char *kHalvesSync = R"(
  .reg .b32 %lane, %s, %a, %v;
  .shared .align 4 .b32 sh[32];
  mov.u32 %lane, %laneid;
  mov.u32 %s, sh;
  shl.b32 %a, %lane, 2;
  add.u32 %a, %s, %a;
  setp.lt.u32 %p1, %lane, 16;
  @%p1 bra LOW;
  add.u32 %v, %lane, 200;
  st.shared.u32 [%a], %v;
  bar.warp.sync -1;
  ld.shared.u32 %v, [%a+-64];
  bra DONE;
LOW:
  add.u32 %v, %lane, 100;
  st.shared.u32 [%a], %v;
  bar.warp.sync -1;
  ld.shared.u32 %v, [%a+64];
DONE:
  cvt.u64.u32 %res, %v;
  st.global.u64 [%addr], %res;
  ret;)";

TEST(WarpSync, MembersMeetAtDifferentInstructionsOnSm70) {
  auto v = run_out(sm90_module(".param .u64 k_param_0",
                               std::string(kOutPrologue) + kHalvesSync),
                   {1, 1, 1}, {32, 1, 1}, 32);
  ASSERT_EQ(v.size(), 32u);
  for (uint32_t lane = 0; lane < 32; ++lane)
    EXPECT_EQ(v[lane], lane < 16 ? lane + 216 : lane + 84) << lane;
}

TEST(WarpSync, DifferentInstructionsAreAnErrorOnSm6x) {
  RunReport r;
  run_out(".version 6.0\n.target sm_60\n.address_size 64\n\n.visible .entry "
          "k(.param .u64 k_param_0)\n{\n" +
              std::string(kOutPrologue) + kHalvesSync + "\n}\n",
          {1, 1, 1}, {32, 1, 1}, 32, &r);
  EXPECT_EQ(r.status, RunStatus::Fault);
  EXPECT_NE(report_text.find("lanes 0x0000ffff wait here with membermask "
                             "0xffffffff, but member lanes 0xffff0000 wait "
                             "at another 'bar.warp.sync' instruction"),
            std::string::npos)
      << report_text;
  EXPECT_NE(report_text.find("for .target sm_6x or below"), std::string::npos)
      << report_text;
}

// Two groups (masks 0x00ff00ff and 0xff00ff00), each with lanes at both
// redux.sync instructions; lanes 24-31 of the second group exit before it
// runs: the group waits only for its non-exited members.
TEST(WarpSync, GroupsAcrossInstructionsWaitForNonExitedMembers) {
  auto v = run_out(
      sm90_module(".param .u64 k_param_0", std::string(kOutPrologue) + R"(
  .reg .b32 %lane, %m, %b, %v, %w;
  mov.u32 %lane, %laneid;
  mov.u32 %v, 0;
  and.b32 %b, %lane, 8;
  setp.eq.u32 %p2, %b, 0;
  selp.b32 %m, 0x00ff00ff, 0xff00ff00, %p2;
  setp.ge.u32 %p3, %lane, 24;
  @%p3 bra OUT;
  setp.lt.u32 %p1, %lane, 16;
  @%p1 bra LOW;
  redux.sync.add.u32 %v, %lane, %m;
  bra DONE;
LOW:
  add.u32 %w, %lane, 100;
  redux.sync.add.u32 %v, %w, %m;
DONE:
OUT:
  cvt.u64.u32 %res, %v;
  st.global.u64 [%addr], %res;
  ret;)"),
      {1, 1, 1}, {32, 1, 1}, 32);
  ASSERT_EQ(v.size(), 32u);
  // 0-7 (+100) with 16-23: 828 + 156; 8-15 (+100) with nobody else: 892.
  for (uint32_t lane = 0; lane < 32; ++lane)
    EXPECT_EQ(v[lane], lane >= 24 ? 0u : (lane & 8) == 0 ? 984u : 892u) << lane;
}

TEST(WarpSync, LanesJoinedFromAnotherInstructionCountTheirStep) {
  // Thread-instructions: mov, setp (32 each), the guarded bra (16 taken),
  // each half's bar.warp.sync (16 + 16), the high half's bra (16), ret (32).
  RunReport r;
  run_out(sm90_module(".param .u64 k_param_0", R"(
  .reg .b32 %lane;
  .reg .pred %p1;
  mov.u32 %lane, %laneid;
  setp.lt.u32 %p1, %lane, 16;
  @%p1 bra LOW;
  bar.warp.sync -1;
  bra DONE;
LOW:
  bar.warp.sync -1;
DONE:
  ret;)"),
          {1, 1, 1}, {32, 1, 1}, 1, &r);
  EXPECT_EQ(r.status, RunStatus::Ok) << report_text;
  EXPECT_EQ(r.thread_steps, 160u);
}

TEST(Elect, OneLeaderAcrossInstructions) {
  // Lanes 0-3 elect at one instruction, lanes 4-31 at another: one
  // election, leader lane 0, whose predicate alone is true.
  auto v = run_out(
      sm90_module(".param .u64 k_param_0", std::string(kOutPrologue) + R"(
  .reg .b32 %lane, %d;
  mov.u32 %lane, %laneid;
  setp.lt.u32 %p1, %lane, 4;
  @%p1 bra LOW;
  elect.sync %d|%p2, -1;
  bra DONE;
LOW:
  elect.sync %d|%p2, -1;
DONE:
  selp.u32 %lane, 0x100, 0, %p2;
  or.b32 %d, %d, %lane;
  cvt.u64.u32 %res, %d;
  st.global.u64 [%addr], %res;
  ret;)"),
      {1, 1, 1}, {32, 1, 1}, 32);
  ASSERT_EQ(v.size(), 32u);
  for (uint32_t lane = 0; lane < 32; ++lane)
    EXPECT_EQ(v[lane], lane == 0 ? 0x100u : 0u) << lane;
}

TEST(WarpSync, DifferentQualifiersAreAnError) {
  RunReport r;
  run_out(sm90_module(".param .u64 k_param_0", std::string(kOutPrologue) + R"(
  .reg .b32 %lane;
  mov.u32 %lane, %laneid;
  setp.lt.u32 %p1, %lane, 16;
  @%p1 bra LOW;
  vote.sync.all.pred %p2, %p1, -1;
  bra DONE;
LOW:
  vote.sync.any.pred %p2, %p1, -1;
DONE:
  ret;)"),
          {1, 1, 1}, {32, 1, 1}, 32, &r);
  EXPECT_EQ(r.status, RunStatus::Fault);
  EXPECT_NE(report_text.find("'vote.sync.any.pred': lanes 0x0000ffff wait "
                             "here with membermask 0xffffffff, but member "
                             "lanes 0xffff0000 wait at 'vote.sync.all.pred'"),
            std::string::npos)
      << report_text;
}

TEST(Cluster, SpecialRegistersOf2x2Clusters) {
  // grid 4x2, cluster 2x2: res = ctarank | nctarank << 8 | clusterid.x << 16
  // | cluster_ctaid.y << 24 | is_explicit << 32.
  LaunchConfig cfg;
  cfg.cluster = {2, 2, 1};
  auto v = run_out(sm90_module(".param .u64 k_param_0", R"(
  .reg .b64 %out, %addr, %off, %res, %w;
  .reg .b32 %a, %b, %c, %d, %e, %lin;
  ld.param.u64 %out, [k_param_0];
  mov.u32 %a, %ctaid.y;
  mov.u32 %b, %ctaid.x;
  mad.lo.u32 %lin, %a, 4, %b;
  mul.wide.u32 %off, %lin, 8;
  add.s64 %addr, %out, %off;
  mov.u32 %a, %cluster_ctarank;
  mov.u32 %b, %cluster_nctarank;
  mov.u32 %c, %clusterid.x;
  mov.u32 %d, %cluster_ctaid.y;
  mov.u32 %e, %is_explicit_cluster;
  shl.b32 %b, %b, 8;
  shl.b32 %c, %c, 16;
  shl.b32 %d, %d, 24;
  or.b32 %a, %a, %b;
  or.b32 %a, %a, %c;
  or.b32 %a, %a, %d;
  cvt.u64.u32 %res, %a;
  cvt.u64.u32 %w, %e;
  shl.b64 %w, %w, 32;
  or.b64 %res, %res, %w;
  st.global.u64 [%addr], %res;
  ret;)"),
                   {4, 2, 1}, {1, 1, 1}, 8, nullptr, cfg);
  ASSERT_EQ(v.size(), 8u);
  for (uint32_t y = 0; y < 2; ++y)
    for (uint32_t x = 0; x < 4; ++x) {
      uint64_t rank = (x % 2) + 2 * (y % 2);
      uint64_t want = rank | 4u << 8 | uint64_t(x / 2) << 16 |
                      uint64_t(y % 2) << 24 | 1ull << 32;
      EXPECT_EQ(v[y * 4 + x], want) << x << "," << y;
    }
}

TEST(Cluster, DsmemAddressMap) {
  // docs/clusters.md: .shared::cluster address of rank r = r * 16 MiB +
  // offset, the offset counting the reserved 1 KiB (s is at 0x400), as
  // measured on an NVIDIA H200 (driver 580.159.04, CUDA 13.0, 2026-11-28);
  // generic = that + the shared window 0x0100'0000'0000. A CTA's own
  // addresses carry its rank.
  LaunchConfig cfg;
  cfg.cluster = {4, 1, 1};
  auto v = run_out(sm90_module(".param .u64 k_param_0", R"(
  .shared .align 8 .b8 s[64];
  .reg .b64 %out, %addr, %off, %res, %gen, %gm;
  .reg .b32 %a, %m, %rk, %own;
  ld.param.u64 %out, [k_param_0];
  mov.u32 %a, %ctaid.x;
  mul.wide.u32 %off, %a, 32;
  add.s64 %addr, %out, %off;
  mov.u32 %a, s;
  add.u32 %a, %a, 8;
  mapa.shared::cluster.u32 %m, %a, 3;
  cvt.u64.u32 %res, %m;
  st.global.u64 [%addr], %res;
  getctarank.shared::cluster.u32 %rk, %m;
  getctarank.shared::cluster.u32 %own, %a;
  shl.b32 %own, %own, 8;
  or.b32 %rk, %rk, %own;
  cvt.u64.u32 %res, %rk;
  st.global.u64 [%addr+8], %res;
  cvta.shared.u64 %gen, s;
  mapa.u64 %gm, %gen, 1;
  st.global.u64 [%addr+16], %gm;
  getctarank.u64 %rk, %gm;
  cvt.u64.u32 %res, %rk;
  st.global.u64 [%addr+24], %res;
  ret;)",
                               ".reqnctapercluster 4, 1, 1"),
                   {4, 1, 1}, {1, 1, 1}, 16, nullptr, cfg);
  ASSERT_EQ(v.size(), 16u);
  for (uint32_t c = 0; c < 4; ++c) {
    EXPECT_EQ(v[c * 4 + 0], 3ull * (1u << 24) + 0x400 + 8) << c;
    EXPECT_EQ(v[c * 4 + 1], 3u | (uint64_t(c) << 8)) << c;
    EXPECT_EQ(v[c * 4 + 2], 0x0100'0000'0000ull + (1u << 24) + 0x400) << c;
    EXPECT_EQ(v[c * 4 + 3], 1u) << c;
  }
}

// A CTA's own shared addresses carry its cluster rank (rank r's memory at
// r * 16 MiB, as measured on an NVIDIA H200, driver 580.159.04, CUDA 13.0,
// 2026-11-28): a variable's address, the reserved region's start; direct
// accesses to a variable ([s]) and accesses through its address reach the
// CTA's own memory in every rank.
TEST(Cluster, OwnSharedAddressesCarryTheRank) {
  LaunchConfig cfg;
  cfg.cluster = {2, 1, 1};
  auto v = run_out(sm90_module(".param .u64 k_param_0", R"(
  .shared .align 4 .b8 s[16];
  .reg .b64 %out, %addr, %off, %res;
  .reg .b32 %a, %rk, %v;
  ld.param.u64 %out, [k_param_0];
  mov.u32 %a, %ctaid.x;
  mul.wide.u32 %off, %a, 32;
  add.s64 %addr, %out, %off;
  mov.u32 %rk, %cluster_ctarank;
  add.u32 %v, %rk, 10;
  st.shared.u32 [s+4], %v;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  mov.u32 %a, s;
  cvt.u64.u32 %res, %a;
  st.global.u64 [%addr], %res;
  mov.u32 %a, %reserved_smem_offset_begin;
  cvt.u64.u32 %res, %a;
  st.global.u64 [%addr+8], %res;
  ld.shared.u32 %v, [s+4];
  cvt.u64.u32 %res, %v;
  st.global.u64 [%addr+16], %res;
  mov.u32 %a, s;
  ld.shared.u32 %v, [%a+4];
  cvt.u64.u32 %res, %v;
  st.global.u64 [%addr+24], %res;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;)",
                               ".reqnctapercluster 2, 1, 1"),
                   {2, 1, 1}, {1, 1, 1}, 8, nullptr, cfg);
  ASSERT_EQ(v.size(), 8u);
  for (uint64_t r = 0; r < 2; ++r) {
    EXPECT_EQ(v[r * 4 + 0], r * (1u << 24) + 1024) << r;
    EXPECT_EQ(v[r * 4 + 1], r * (1u << 24)) << r;
    EXPECT_EQ(v[r * 4 + 2], r + 10) << r;
    EXPECT_EQ(v[r * 4 + 3], r + 10) << r;
  }
}

// Ring exchange over `phases` cluster-barrier phases in clusters of 4:
// in phase k each thread stores into s[k][tid] of rank (rank + 1) % 4,
// after the last phase it reads its own s[k][tid] for every k.
std::string ring_kernel() {
  return sm90_module(".param .u64 k_param_0", R"(
  .shared .align 4 .b8 s[768];
  .reg .b64 %out, %addr, %off, %res;
  .reg .b32 %t, %rk, %dst, %k, %a, %m, %v, %sum, %g;
  .reg .pred %p;
  ld.param.u64 %out, [k_param_0];
  mov.u32 %t, %tid.x;
  mov.u32 %rk, %cluster_ctarank;
  add.u32 %dst, %rk, 1;
  and.b32 %dst, %dst, 3;
  mov.u32 %k, 0;
LOOP:
  mad.lo.u32 %a, %k, 64, %t;
  shl.b32 %a, %a, 2;
  mov.u32 %m, s;
  add.u32 %a, %a, %m;
  mapa.shared::cluster.u32 %m, %a, %dst;
  mad.lo.u32 %v, %rk, 1000, %k;
  mad.lo.u32 %v, %t, 10, %v;
  st.shared::cluster.u32 [%m], %v;
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  add.u32 %k, %k, 1;
  setp.lt.u32 %p, %k, 3;
  @%p bra LOOP;
  mov.u32 %sum, 0;
  mov.u32 %k, 0;
SUM:
  mad.lo.u32 %a, %k, 64, %t;
  shl.b32 %a, %a, 2;
  mov.u32 %m, s;
  add.u32 %a, %a, %m;
  ld.shared.u32 %v, [%a];
  add.u32 %sum, %sum, %v;
  add.u32 %k, %k, 1;
  setp.lt.u32 %p, %k, 3;
  @%p bra SUM;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  mov.u32 %g, %ctaid.x;
  mad.lo.u32 %g, %g, 64, %t;
  mul.wide.u32 %off, %g, 8;
  add.s64 %addr, %out, %off;
  cvt.u64.u32 %res, %sum;
  st.global.u64 [%addr], %res;
  ret;)",
                     ".reqnctapercluster 4, 1, 1");
}

void check_ring(const std::vector<uint64_t> &v) {
  ASSERT_EQ(v.size(), 8u * 64);
  for (uint32_t c = 0; c < 8; ++c)
    for (uint32_t t = 0; t < 64; ++t) {
      uint32_t src = (c % 4 + 3) % 4; // the rank that wrote to c
      uint64_t want = 0;
      for (uint32_t k = 0; k < 3; ++k)
        want += src * 1000 + k + t * 10;
      EXPECT_EQ(v[c * 64 + t], want) << c << " " << t;
    }
}

TEST(Cluster, BarrierPhasesOrderDsmemStores) {
  check_ring(run_out(ring_kernel(), {8, 1, 1}, {64, 1, 1}, 8 * 64));
}

TEST(Cluster, BarrierPhasesOnTwoHostThreadsAndRandomSchedules) {
  LaunchConfig par;
  par.host_threads = 2;
  check_ring(
      run_out(ring_kernel(), {8, 1, 1}, {64, 1, 1}, 8 * 64, nullptr, par));
  for (uint64_t seed : {1u, 42u, 99u}) {
    LaunchConfig rnd;
    rnd.schedule.kind = Schedule::Kind::Random;
    rnd.schedule.seed = seed;
    check_ring(
        run_out(ring_kernel(), {8, 1, 1}, {64, 1, 1}, 8 * 64, nullptr, rnd));
  }
}

TEST(Cluster, ExitedThreadsCompleteThePhase) {
  // Threads 32-63 exit without arriving; the others' wait still completes.
  LaunchConfig cfg;
  cfg.cluster = {2, 1, 1};
  auto v = run_out(
      sm90_module(".param .u64 k_param_0", std::string(kOutPrologue) + R"(
  setp.ge.u32 %p1, %t, 32;
  @%p1 exit;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  mov.u64 %res, 5;
  st.global.u64 [%addr], %res;
  ret;)"),
      {2, 1, 1}, {64, 1, 1}, 128, nullptr, cfg);
  for (uint32_t g = 0; g < 128; ++g)
    EXPECT_EQ(v[g], g % 64 < 32 ? 5u : 0u) << g;
}

TEST(GridSync, WorkspaceThroughEnvreg1And2) {
  // %envreg1:%envreg2 is the grid workspace { wsSize = 8, barrier = 0 };
  // other environment registers read 0.
  auto v = run_out(
      sm90_module(".param .u64 k_param_0", std::string(kOutPrologue) + R"(
  .reg .b32 %hi, %lo, %e0, %ws;
  .reg .b64 %h64, %l64, %w;
  mov.u32 %hi, %envreg1;
  mov.u32 %lo, %envreg2;
  mov.u32 %e0, %envreg0;
  cvt.u64.u32 %h64, %hi;
  cvt.u64.u32 %l64, %lo;
  shl.b64 %h64, %h64, 32;
  or.b64 %w, %h64, %l64;
  ld.global.u32 %ws, [%w];
  add.u32 %ws, %ws, %e0;
  setp.ne.u64 %p1, %w, 0;
  selp.u32 %hi, 1000, 0, %p1;
  add.u32 %ws, %ws, %hi;
  cvt.u64.u32 %res, %ws;
  st.global.u64 [%addr], %res;
  ret;)"),
      {2, 1, 1}, {32, 1, 1}, 64);
  for (auto x : v)
    EXPECT_EQ(x, 1008u);
}

TEST(GridSync, ManyCtasFinishWithEveryScheduler) {
  // tests/kernels/sync/grid_sync.cu with 64 CTAs: all must be resident.
  DiagnosticSink sink;
  auto m = Module::load_file(std::string(BCUSIM_SOURCE_DIR) +
                                 "/tests/kernels/sync/grid_sync.ptx",
                             sink);
  ASSERT_TRUE(m) << sink.render_all();
  const uint32_t n = 64 * 32;
  for (int mode = 0; mode < 3; ++mode) {
    Device d;
    DevicePtr a = d.alloc(n * 4), b = d.alloc(n * 4), c = d.alloc(n * 4);
    LaunchConfig cfg = config({64, 1, 1}, {32, 1, 1}, mode == 1 ? 2 : 1);
    if (mode == 2) {
      cfg.schedule.kind = Schedule::Kind::Random;
      cfg.schedule.seed = 5;
    }
    auto r =
        d.launch(*m, "grid_sync", cfg,
                 {KernelArg::ptr(a), KernelArg::ptr(b), KernelArg::ptr(c)});
    ASSERT_TRUE(r.ok()) << r.diagnostics_text();
    auto cv = download<int32_t>(d, c, n);
    for (uint32_t g = 0; g < n; g += 97) {
      uint32_t j = (g * 5) % n;
      int32_t bj =
          int32_t(((j + 37) % n) * 3 + 1) + int32_t((n - 1 - j) * 3 + 1);
      EXPECT_EQ(cv[g], bj) << g;
    }
  }
}

TEST(GridSync, OnlyTheKernelThatReadsTheWorkspaceIsCooperative) {
  // One module, two kernels: `coop` reads the grid workspace, `probe` does
  // not. A cooperative launch admits every CTA at once; an ordinary one
  // admits CTAs as it goes. In `probe`, CTA 0 spins (boundedly) on a flag
  // that the last CTA sets: launched cooperatively, the last CTA is
  // resident and sets it; launched as an ordinary kernel it is admitted only
  // after CTA 0's spin has ended, so CTA 0 sees 0. `probe` must launch as an
  // ordinary kernel although its module holds `coop`.
  const std::string text = R"(.version 8.0
.target sm_90
.address_size 64

.visible .entry coop(.param .u64 coop_param_0)
{
  .reg .b32 %hi;
  .reg .b64 %o;
  ld.param.u64 %o, [coop_param_0];
  mov.u32 %hi, %envreg1;
  st.global.u32 [%o], %hi;
  ret;
}

.visible .entry probe(.param .u64 probe_param_0)
{
  .reg .b32 %t, %c, %last, %seen, %i;
  .reg .b64 %o;
  .reg .pred %p<4>;
  ld.param.u64 %o, [probe_param_0];
  mov.u32 %t, %tid.x;
  setp.ne.u32 %p1, %t, 0;
  @%p1 bra DONE;
  mov.u32 %c, %ctaid.x;
  mov.u32 %last, %nctaid.x;
  sub.u32 %last, %last, 1;
  setp.ne.u32 %p2, %c, %last;
  @%p2 bra NOTLAST;
  atom.global.exch.b32 %seen, [%o], 1;
  bra DONE;
NOTLAST:
  setp.ne.u32 %p2, %c, 0;
  @%p2 bra DONE;
  mov.u32 %i, 0;
SPIN:
  atom.global.add.u32 %seen, [%o], 0;
  setp.ne.u32 %p3, %seen, 0;
  @%p3 bra SEEN;
  add.u32 %i, %i, 1;
  setp.lt.u32 %p3, %i, 2000;
  @%p3 bra SPIN;
SEEN:
  st.global.u32 [%o+4], %seen;
DONE:
  ret;
}
)";
  auto m = load_text(text);
  ASSERT_TRUE(m);
  Device d;
  DevicePtr p = d.alloc(8);
  auto r = d.launch(*m, "probe", config({64, 1, 1}, {32, 1, 1}),
                    {KernelArg::ptr(p)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  auto v = download<uint32_t>(d, p, 2);
  EXPECT_EQ(v[0], 1u); // the last CTA ran
  EXPECT_EQ(v[1], 0u); // after CTA 0 stopped looking: not all resident
}

TEST(GridDep, WaitWithoutPrerequisiteIsANoteOnly) {
  const std::string text = sm90_module(".param .u64 k_param_0", R"(
  griddepcontrol.launch_dependents;
  griddepcontrol.wait;
  ret;)");
  for (bool prereq : {false, true}) {
    LaunchConfig cfg;
    cfg.has_prerequisite = prereq;
    RunReport r;
    run_out(text, {2, 1, 1}, {32, 1, 1}, 1, &r, cfg);
    EXPECT_TRUE(r.ok()) << report_text;
    EXPECT_EQ(r.notes.size(), prereq ? 0u : 1u);
  }
}

} // namespace
} // namespace bcusim::engine::test
