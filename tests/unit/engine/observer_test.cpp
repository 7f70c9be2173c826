// The engine's observation point (observer.h): every memory access and
// synchronization event of a launch, with the fields the checkers rely on.
#include <algorithm>
#include <cstring>
#include <map>

#include <gtest/gtest.h>

#include "bcusim/engine/observer.h"
#include "bcusim/engine/tensormap.h"
#include "test_util.h"

namespace bcusim::engine::test {
namespace {

struct Access {
  uint32_t pc, warp, lanes, size;
  uint64_t cta, owner;
  StateSpace space;
  AccessType type;
  MemOrder order;
  MemScope scope;
  AtomicOp atom;
  AccessOrigin origin;
  bool generic;
  std::vector<uint64_t> addr; // by lane (0 for lanes not in `lanes`)
};

// The synchronization events a Recorder saw, in order.
enum class K {
  ThreadExit,
  CtaBegin,
  CtaEnd,
  Fence,
  BarrierArrive,
  BarrierComplete,
  BarrierResume,
  WarpSync,
  Elect,
  MbarInit,
  MbarArrive,
  MbarPhaseComplete,
  MbarWaitDone,
  Other,
};

struct Recorder : Observer {
  bool accesses = true;
  std::vector<Access> acc;
  std::vector<K> sync; // every synchronization event, in order
  std::vector<FenceEvent> fences;
  std::vector<BarrierArriveEvent> arrivals;
  std::vector<BarrierCompleteEvent> completions;
  std::vector<BarrierResumeEvent> resumptions;
  std::vector<WarpSyncEvent> warp_syncs;
  std::vector<MbarEvent> mbar_arrivals, mbar_waits;
  int begins = 0, ends = 0;
  bool async_proxy = false; // LaunchView::async_proxy of the last launch
  bool wants_accesses() const override { return accesses; }
  void on_launch_begin(const LaunchView &v) override {
    ++begins;
    async_proxy = v.async_proxy();
    EXPECT_EQ(v.kernel(), "k");
  }
  void on_launch_end(const LaunchView &) override { ++ends; }
  void on_access(const AccessEvent &e) override {
    Access a{e.pc,      e.warp,
             e.lanes,   e.size,
             e.cta,     e.owner,
             e.space,   e.type,
             e.order,   e.scope,
             e.atom,    e.origin,
             e.generic, std::vector<uint64_t>(32, 0)};
    for (uint32_t l = 0; l < 32; ++l)
      if ((e.lanes >> l) & 1)
        a.addr[l] = e.addr[l];
    acc.push_back(std::move(a));
  }
  void on_thread_exit(const ThreadEvent &) override {
    sync.push_back(K::ThreadExit);
  }
  void on_cta_begin(const CtaEvent &) override { sync.push_back(K::CtaBegin); }
  void on_cta_end(const CtaEvent &) override { sync.push_back(K::CtaEnd); }
  void on_fence(const FenceEvent &e) override {
    sync.push_back(K::Fence);
    fences.push_back(e);
  }
  void on_barrier_arrive(const BarrierArriveEvent &e) override {
    sync.push_back(K::BarrierArrive);
    arrivals.push_back(e);
  }
  void on_barrier_complete(const BarrierCompleteEvent &e) override {
    sync.push_back(K::BarrierComplete);
    completions.push_back(e);
  }
  void on_barrier_resume(const BarrierResumeEvent &e) override {
    sync.push_back(K::BarrierResume);
    resumptions.push_back(e);
  }
  void on_warp_sync(const WarpSyncEvent &e) override {
    sync.push_back(K::WarpSync);
    warp_syncs.push_back(e);
  }
  void on_elect(const WarpSyncEvent &) override { sync.push_back(K::Elect); }
  void on_mbar_init(const MbarEvent &) override { sync.push_back(K::MbarInit); }
  void on_mbar_arrive(const MbarEvent &e) override {
    sync.push_back(K::MbarArrive);
    mbar_arrivals.push_back(e);
  }
  void on_mbar_phase_complete(const MbarEvent &) override {
    sync.push_back(K::MbarPhaseComplete);
  }
  void on_mbar_wait_done(const MbarEvent &e) override {
    sync.push_back(K::MbarWaitDone);
    mbar_waits.push_back(e);
  }
  void on_mbar_expect_tx(const MbarEvent &) override {
    sync.push_back(K::Other);
  }
  size_t count(K k) const {
    return size_t(std::count(sync.begin(), sync.end(), k));
  }
};

RunReport run(const std::string &body, Recorder &rec, Dim3 block,
              const std::string &params = "",
              const std::vector<KernelArg> &args = {}, Device *dev = nullptr) {
  auto m = load_text(ptx_module(params, body));
  EXPECT_TRUE(m);
  Device local;
  Device &d = dev ? *dev : local;
  auto cfg = config({1, 1, 1}, block);
  cfg.observer = &rec;
  return d.launch(*m, "k", cfg, args);
}

TEST(Observer, SharedAccessesAndABarrier) {
  Recorder rec;
  auto r = run(R"(
  .shared .align 4 .b8 s[260];
  .reg .b32 %r<8>;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  ld.shared.u32 %r5, [%r4+4];
  ret;)",
               rec, {64, 1, 1});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  EXPECT_EQ(rec.begins, 1);
  EXPECT_EQ(rec.ends, 1);
  // No cp or wgmma in the program: nothing reaches shared memory through
  // the async proxy.
  EXPECT_FALSE(rec.async_proxy);
  std::vector<Access> shared;
  for (const auto &a : rec.acc)
    if (a.space == StateSpace::Shared)
      shared.push_back(a);
  ASSERT_EQ(shared.size(), 4u); // a store and a load per warp
  for (const auto &a : shared) {
    EXPECT_EQ(a.lanes, 0xffffffffu);
    EXPECT_EQ(a.size, 4u);
    EXPECT_EQ(a.owner, 0u);
    EXPECT_FALSE(a.generic);
    EXPECT_EQ(a.order, MemOrder::Weak);
    // Offsets in the CTA's shared memory: s follows the reserved 1 KiB.
    for (uint32_t l = 0; l < 32; ++l)
      EXPECT_EQ(a.addr[l], 1024u + 4u * (a.warp * 32 + l) +
                               (a.type == AccessType::Read ? 4 : 0));
  }
  const auto &arrive = rec.arrivals;
  const auto &complete = rec.completions;
  const auto &resume = rec.resumptions;
  ASSERT_EQ(arrive.size(), 2u);
  ASSERT_EQ(complete.size(), 1u);
  ASSERT_EQ(resume.size(), 2u);
  EXPECT_EQ(complete[0].warps, 0b11u);
  EXPECT_EQ(complete[0].barrier, 0);
  EXPECT_EQ(arrive[0].count, 0u); // all threads
  EXPECT_EQ(arrive[0].op, BarrierOp::Sync);
  EXPECT_TRUE(arrive[0].aligned); // bar.sync is barrier.sync.aligned
  // Events come in order: both arrivals, the completion, the resumptions.
  size_t i_complete = 0, i_last_arrive = 0, i_first_resume = rec.sync.size();
  for (size_t i = 0; i < rec.sync.size(); ++i) {
    if (rec.sync[i] == K::BarrierArrive)
      i_last_arrive = i;
    if (rec.sync[i] == K::BarrierComplete)
      i_complete = i;
    if (rec.sync[i] == K::BarrierResume)
      i_first_resume = std::min(i_first_resume, i);
  }
  EXPECT_LT(i_last_arrive, i_complete);
  EXPECT_LT(i_complete, i_first_resume);
  EXPECT_EQ(rec.count(K::ThreadExit), 2u);
  EXPECT_EQ(rec.count(K::CtaBegin), 1u);
  EXPECT_EQ(rec.count(K::CtaEnd), 1u);
}

TEST(Observer, GenericAddressesResolveToTheirSpace) {
  Recorder rec;
  auto r = run(R"(
  .shared .align 8 .b8 s[64];
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u64 %rd1, s;
  cvta.shared.u64 %rd2, %rd1;
  mov.u32 %r1, 7;
  st.u32 [%rd2+8], %r1;
  ret;)",
               rec, {1, 1, 1});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  ASSERT_EQ(rec.acc.size(), 1u);
  EXPECT_EQ(rec.acc[0].space, StateSpace::Shared);
  EXPECT_TRUE(rec.acc[0].generic);
  EXPECT_EQ(rec.acc[0].addr[0], 1024u + 8u);
}

TEST(Observer, OrderingQualifiersAndAtomicsReachTheObserver) {
  Recorder rec;
  Device d;
  DevicePtr p = d.alloc(64);
  auto r = run(R"(
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 1;
  st.release.gpu.global.u32 [%rd1], %r1;
  ld.volatile.global.u32 %r2, [%rd1+4];
  atom.global.cta.add.u32 %r3, [%rd1+8], %r1;
  red.global.add.u32 [%rd1+12], %r1;
  fence.acq_rel.gpu;
  membar.cta;
  ret;)",
               rec, {1, 1, 1}, ".param .u64 out", {KernelArg::ptr(p)}, &d);
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  std::vector<Access> g;
  for (const auto &a : rec.acc)
    if (a.space == StateSpace::Global)
      g.push_back(a);
  ASSERT_EQ(g.size(), 4u);
  EXPECT_EQ(g[0].type, AccessType::Write);
  EXPECT_EQ(g[0].order, MemOrder::Release);
  EXPECT_EQ(g[0].scope, MemScope::Gpu);
  EXPECT_EQ(g[0].addr[0], p);
  EXPECT_EQ(g[1].order, MemOrder::Volatile);
  EXPECT_EQ(g[1].scope, MemScope::Sys);
  EXPECT_EQ(g[2].type, AccessType::Atomic);
  EXPECT_EQ(g[2].atom, AtomicOp::Add);
  EXPECT_EQ(g[2].order, MemOrder::Relaxed); // atom's default .sem
  EXPECT_EQ(g[2].scope, MemScope::Cta);
  EXPECT_EQ(g[3].scope, MemScope::Gpu); // red's default scope
  const auto &f = rec.fences;
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].order, MemOrder::AcqRel);
  EXPECT_EQ(f[0].scope, MemScope::Gpu);
  EXPECT_EQ(f[1].order, MemOrder::Sc); // membar = fence.sc
  EXPECT_EQ(f[1].scope, MemScope::Cta);
}

// Accesses of the local frame, the kernel parameters and the constant bank
// by every lane of a warp (or by some): one event per warp access, each
// lane with its address, a store with each lane's bytes.
TEST(Observer, LocalParamAndConstAccessesOfAWarp) {
  struct ValueRecorder : Recorder {
    std::vector<std::vector<uint8_t>> values; // per event, 32 * size bytes
    void on_access(const AccessEvent &e) override {
      Recorder::on_access(e);
      values.emplace_back();
      if (e.values)
        values.back().assign(e.values, e.values + 32 * e.size);
    }
  } rec;
  auto m = load_text(ptx_module(".param .u32 n", R"(
  .local .align 8 .b8 buf[16];
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  add.u32 %r3, %r2, %r1;
  mov.u64 %rd1, buf;
  st.local.v2.u32 [%rd1], {%r2, %r3};
  ld.local.u32 %r4, [%rd1+4];
  ld.const.u32 %r5, [tbl+4];
  setp.lt.u32 %p1, %r2, 40;
  @%p1 st.local.u32 [%rd1+8], %r5;
  ret;)",
                                ".const .align 4 .u32 tbl[2] = {5, 1000};"));
  ASSERT_TRUE(m);
  Device d;
  auto cfg = config({1, 1, 1}, {64, 1, 1});
  cfg.observer = &rec;
  auto r = d.launch(*m, "k", cfg, {KernelArg::s32(7)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  ASSERT_EQ(rec.acc.size(), 10u); // five accesses per warp
  auto u32_at = [](const std::vector<uint8_t> &v, size_t i) {
    uint32_t x = 0;
    std::memcpy(&x, v.data() + i, 4);
    return x;
  };
  for (uint32_t w = 0; w < 2; ++w) {
    std::vector<size_t> ev; // this warp's events, in order
    for (size_t i = 0; i < rec.acc.size(); ++i)
      if (rec.acc[i].warp == w)
        ev.push_back(i);
    ASSERT_EQ(ev.size(), 5u);
    const Access &param = rec.acc[ev[0]], &st = rec.acc[ev[1]],
                 &ld = rec.acc[ev[2]], &cst = rec.acc[ev[3]],
                 &st2 = rec.acc[ev[4]];
    EXPECT_EQ(param.space, StateSpace::Param);
    EXPECT_EQ(param.type, AccessType::Read);
    EXPECT_EQ(param.lanes, 0xffffffffu);
    EXPECT_EQ(param.size, 4u);
    EXPECT_EQ(st.space, StateSpace::Local);
    EXPECT_EQ(st.type, AccessType::Write);
    EXPECT_EQ(st.lanes, 0xffffffffu);
    EXPECT_EQ(st.size, 8u);
    EXPECT_EQ(ld.space, StateSpace::Local);
    EXPECT_EQ(ld.type, AccessType::Read);
    EXPECT_EQ(ld.size, 4u);
    EXPECT_EQ(cst.space, StateSpace::Const);
    EXPECT_EQ(cst.lanes, 0xffffffffu);
    EXPECT_EQ(st2.space, StateSpace::Local);
    EXPECT_EQ(st2.size, 4u);
    // Lanes 0-39 of the block store the second time: all of warp 0, the
    // first 8 lanes of warp 1.
    EXPECT_EQ(st2.lanes, w == 0 ? 0xffffffffu : 0xffu);
    ASSERT_EQ(rec.values[ev[1]].size(), 32u * 8);
    ASSERT_EQ(rec.values[ev[4]].size(), 32u * 4);
    EXPECT_TRUE(rec.values[ev[2]].empty()); // reads carry no values
    const uint64_t frame = st.addr[0];      // buf, in each thread's own frame
    for (uint32_t l = 0; l < 32; ++l) {
      const uint32_t tid = w * 32 + l;
      EXPECT_EQ(param.addr[l], 0u) << l;
      EXPECT_EQ(st.addr[l], frame) << l;
      EXPECT_EQ(ld.addr[l], frame + 4) << l;
      EXPECT_EQ(cst.addr[l], cst.addr[0]) << l;
      EXPECT_EQ(u32_at(rec.values[ev[1]], l * 8), tid) << l;
      EXPECT_EQ(u32_at(rec.values[ev[1]], l * 8 + 4), tid + 7) << l;
      if ((st2.lanes >> l) & 1) {
        EXPECT_EQ(st2.addr[l], frame + 8) << l;
        EXPECT_EQ(u32_at(rec.values[ev[4]], l * 4), 1000u) << l;
      }
    }
  }
}

TEST(Observer, WarpSyncsCarryTheirMemberLanes) {
  Recorder rec;
  auto r = run(R"(
  .reg .b32 %r<4>;
  .reg .pred %p<2>;
  mov.u32 %r1, %laneid;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra LO;
  bar.warp.sync 0xffff0000;
  bra END;
LO:
  bar.warp.sync 0x0000ffff;
END:
  shfl.sync.bfly.b32 %r2, %r1, 1, 31, 0xffffffff;
  ret;)",
               rec, {32, 1, 1});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  const auto &ws = rec.warp_syncs;
  ASSERT_EQ(ws.size(), 3u);
  uint32_t halves = ws[0].lanes | ws[1].lanes;
  EXPECT_EQ(halves, 0xffffffffu);
  EXPECT_TRUE(ws[0].lanes == 0xffffu || ws[0].lanes == 0xffff0000u);
  EXPECT_EQ(ws[2].lanes, 0xffffffffu);
}

TEST(Observer, MbarrierPhasesAndWaits) {
  Recorder rec;
  auto r = run(R"(
  .shared .align 8 .b64 bar;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  mbarrier.init.shared.b64 [bar], 1;
  mbarrier.arrive.shared.b64 %rd1, [bar];
  mbarrier.test_wait.shared.b64 %p1, [bar], %rd1;
  ret;)",
               rec, {1, 1, 1});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  std::vector<K> kinds;
  for (K k : rec.sync)
    if (k >= K::MbarInit && k <= K::MbarWaitDone)
      kinds.push_back(k);
  EXPECT_EQ(kinds, (std::vector<K>{K::MbarInit, K::MbarArrive,
                                   K::MbarPhaseComplete, K::MbarWaitDone}));
  ASSERT_EQ(rec.mbar_arrivals.size(), 1u);
  ASSERT_EQ(rec.mbar_waits.size(), 1u);
  const auto &a = rec.mbar_arrivals[0];
  EXPECT_EQ(a.order, MemOrder::Release);
  EXPECT_EQ(a.scope, MemScope::Cta);
  EXPECT_EQ(a.phase, 0u);
  EXPECT_EQ(rec.mbar_waits[0].phase, 0u);
  EXPECT_EQ(rec.mbar_waits[0].order, MemOrder::Acquire);
  // The object's word: one atomic access per operation.
  size_t words = 0;
  for (const auto &x : rec.acc)
    words += x.atom == AtomicOp::Mbarrier && x.size == 8;
  EXPECT_EQ(words, 3u);
}

TEST(Observer, WithoutAccessInterestOnlySynchronizationIsReported) {
  Recorder rec;
  rec.accesses = false;
  auto r = run(R"(
  .shared .align 4 .b8 s[128];
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  st.shared.u32 [s], %r1;
  bar.sync 0;
  ret;)",
               rec, {32, 1, 1});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(rec.acc.empty());
  EXPECT_EQ(rec.count(K::BarrierArrive), 1u);
}

TEST(Observer, ALaunchTakesSeveralObservers) {
  Recorder all, sync_only;
  sync_only.accesses = false;
  auto m = load_text(ptx_module("", R"(
  .shared .align 4 .b8 s[128];
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  st.shared.u32 [s], %r1;
  barrier.sync 0;
  fence.proxy.async.shared::cta;
  ret;)"));
  ASSERT_TRUE(m);
  Device d;
  auto cfg = config({1, 1, 1}, {64, 1, 1});
  cfg.observers = {&all, &sync_only};
  auto r = d.launch(*m, "k", cfg, {});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  EXPECT_EQ(all.begins, 1);
  EXPECT_EQ(sync_only.ends, 1);
  EXPECT_EQ(all.acc.size(), 2u); // a store per warp
  EXPECT_TRUE(sync_only.acc.empty());
  EXPECT_EQ(all.sync, sync_only.sync);
  ASSERT_EQ(all.arrivals.size(), 2u);
  EXPECT_FALSE(all.arrivals[0].aligned); // barrier.sync without .aligned
  ASSERT_EQ(all.fences.size(), 2u);
  EXPECT_TRUE(all.fences[0].proxy);
  EXPECT_FALSE(all.fences[0].mbarrier_init);
}

// A tensor copy is a bulk copy of the async proxy: one issue and one
// completion event per destination CTA (BulkMbarrierTx), and its accesses
// carry AccessOrigin::BulkCopy with the copy's async id.
TEST(Observer, TensorCopiesAreBulkCopiesOfTheAsyncProxy) {
  struct AsyncRec : Recorder {
    std::vector<AsyncIssueEvent> issues;
    std::vector<AsyncCompleteEvent> completes;
    void on_async_issue(const AsyncIssueEvent &e) override {
      issues.push_back(e);
    }
    void on_async_complete(const AsyncCompleteEvent &e) override {
      completes.push_back(e);
    }
  } rec;
  Device dev;
  DevicePtr src = dev.alloc(64 * 4);
  TensorMap tm;
  tm.type = TmapType::U32;
  tm.rank = 1;
  tm.address = src;
  tm.dims[0] = 64;
  tm.strides[0] = 4;
  tm.box[0] = 16;
  auto bytes = tm.encode();
  auto m = load_text(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .align 64 .b8 tm[128])
{
  .shared .align 128 .b8 buf[64];
  .shared .align 8 .b64 bar;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  mov.b64 %rd1, tm;
  cvta.param.u64 %rd1, %rd1;
  mov.u32 %r1, 8;
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 64;
  cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [buf], [%rd1, {%r1}], [bar];
W:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
  @!%p1 bra W;
  ret;
})");
  ASSERT_TRUE(m);
  auto cfg = config({1, 1, 1}, {1, 1, 1});
  cfg.observer = &rec;
  auto r = dev.launch(*m, "k", cfg, {KernelArg::raw(bytes.data(), 128)});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  EXPECT_TRUE(rec.async_proxy);
  ASSERT_EQ(rec.issues.size(), 1u);
  ASSERT_EQ(rec.completes.size(), 1u);
  EXPECT_EQ(rec.issues[0].what, AsyncKind::BulkMbarrierTx);
  EXPECT_EQ(rec.completes[0].what, AsyncKind::BulkMbarrierTx);
  EXPECT_EQ(rec.completes[0].async_id, rec.issues[0].async_id);
  uint32_t shared_bytes = 0, global_bytes = 0;
  for (const auto &a : rec.acc)
    if (a.origin == AccessOrigin::BulkCopy) {
      (a.space == StateSpace::Shared ? shared_bytes : global_bytes) += a.size;
      EXPECT_EQ(a.type, a.space == StateSpace::Shared ? AccessType::Write
                                                      : AccessType::Read);
    }
  EXPECT_EQ(shared_bytes, 64u);
  EXPECT_EQ(global_bytes, 64u);
}

// wgmma: per warp of the warpgroup, the issues with their ids and register
// counts, the commits with their groups, the waits with what they retire;
// the descriptor's shared-memory reads are accesses at the wgmma.
struct WgmmaRecorder : Recorder {
  std::vector<std::pair<char, WgmmaEvent>> wg;
  void on_wgmma_fence(const ThreadEvent &e) override {
    WgmmaEvent w;
    static_cast<ThreadEvent &>(w) = e;
    wg.emplace_back('f', w);
  }
  void on_wgmma_issue(const WgmmaEvent &e) override { wg.emplace_back('i', e); }
  void on_wgmma_commit(const WgmmaEvent &e) override {
    wg.emplace_back('c', e);
  }
  void on_wgmma_wait(const WgmmaEvent &e) override { wg.emplace_back('w', e); }
};

TEST(Observer, WgmmaIssuesCommitsAndWaits) {
  const std::string text = R"(.version 8.0
.target sm_90a
.address_size 64
.shared .align 128 .b8 bsm[256];
.visible .entry k()
{
  .reg .b64 %rd<4>;
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  mov.u32 %r0, 0;
  mov.f32 %f0, 0f00000000;
  mov.f32 %f1, 0f00000000;
  mov.f32 %f2, 0f00000000;
  mov.f32 %f3, 0f00000000;
  mov.u32 %r1, bsm;
  cvt.u64.u32 %rd1, %r1;
  shr.u64 %rd1, %rd1, 4;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, {%r0, %r0, %r0, %r0}, %rd1, 1, 1, 1, 0;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd1, 1, 1, 1, 0, 0;
  wgmma.commit_group.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, {%r0, %r0, %r0, %r0}, %rd1, 1, 1, 1, 0;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 1;
  wgmma.wait_group.sync.aligned 0;
  ret;
}
)";
  std::string errors;
  auto m = load_text(text, &errors);
  ASSERT_TRUE(m) << errors;
  WgmmaRecorder rec;
  Device d;
  auto cfg = config({1, 1, 1}, {128, 1, 1});
  cfg.observer = &rec;
  auto r = d.launch(*m, "k", cfg, {});
  ASSERT_TRUE(r.ok()) << r.diagnostics_text();
  EXPECT_TRUE(rec.async_proxy);
  for (uint32_t warp = 0; warp < 4; ++warp) {
    std::string kinds;
    std::vector<WgmmaEvent> ev;
    for (const auto &[k, e] : rec.wg)
      if (e.warp == warp) {
        kinds += k;
        ev.push_back(e);
        EXPECT_EQ(e.lanes, 0xffffffffu);
      }
    ASSERT_EQ(kinds, "fiicicww") << "warp " << warp;
    EXPECT_EQ(ev[1].id, 1u);
    EXPECT_EQ(ev[1].accumulators, 4u);
    EXPECT_EQ(ev[1].a_registers, 4u);
    EXPECT_EQ(ev[2].id, 2u);
    EXPECT_EQ(ev[2].a_registers, 0u); // A from a descriptor
    EXPECT_EQ(ev[3].group, 0u);
    EXPECT_EQ(ev[4].id, 3u);
    EXPECT_EQ(ev[5].group, 1u);
    EXPECT_EQ(ev[6].allowed, 1u);
    EXPECT_EQ(ev[6].retired, 2u); // group 0: operations 1 and 2
    EXPECT_EQ(ev[7].allowed, 0u);
    EXPECT_EQ(ev[7].retired, 3u);
  }
  // Shared-memory reads at each wgmma: B (8 x 16 elements) per warp, and A
  // (16 x 16) for the descriptor-A one; the same reads again at the
  // wait_group that retires them (operations 1 and 2, then 3).
  std::map<uint32_t, uint32_t> reads; // pc -> lanes read
  for (const auto &a : rec.acc)
    if (a.space == StateSpace::Shared && a.type == AccessType::Read)
      reads[a.pc] += uint32_t(std::popcount(a.lanes));
  ASSERT_EQ(reads.size(), 5u);
  std::vector<uint32_t> counts;
  for (const auto &[pc, n] : reads)
    counts.push_back(n);
  EXPECT_EQ(counts, (std::vector<uint32_t>{4 * 128, 4 * (128 + 256), 4 * 128,
                                           4 * (128 + 128 + 256), 4 * 128}));
}

} // namespace
} // namespace bcusim::engine::test
