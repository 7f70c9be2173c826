// The checker driven by synthetic observer events (no engine): each
// ordering rule of docs/checker.md, what is and is not a race, the
// synchronization rules, uninitialized reads, the options, the summary and
// the JSON report.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <map>

#include "bcusim/check/checker.h"

namespace bcusim::check {
namespace {

using engine::AccessEvent;
using engine::AccessOrigin;
using engine::AccessType;
using engine::AtomicOp;
using engine::Dim3;
using engine::MemOrder;
using engine::MemScope;
using engine::StateSpace;

class FakeView final : public engine::LaunchView {
public:
  Dim3 g{1, 1, 1}, b{128, 1, 1}, c{1, 1, 1};
  std::string_view kernel() const override { return "k"; }
  Dim3 grid() const override { return g; }
  Dim3 block() const override { return b; }
  Dim3 cluster() const override { return c; }
  uint32_t shared_bytes() const override { return 1024; }
  uint32_t local_bytes() const override { return 64; }
  SourceLoc ptx_loc(uint32_t) const override { return {}; }
  std::string_view text(uint32_t pc) const override {
    auto it = texts.find(pc);
    if (it != texts.end())
      return it->second;
    return pc < 100 ? "ld.shared.u32" : "st.shared.u32";
  }
  std::map<uint32_t, std::string> texts; // instructions other than ld/st
  engine::CudaLoc cuda_loc(uint32_t) const override { return {}; }
  std::string describe(StateSpace, uint64_t) const override { return ""; }
  Dim3 cta_id(uint64_t linear) const override {
    return Dim3{uint32_t(linear % g.x), uint32_t(linear / g.x % g.y),
                uint32_t(linear / (uint64_t(g.x) * g.y))};
  }
  uint64_t grid_workspace() const override { return 0; }
};

// One launch fed by hand.
class Launch {
public:
  explicit Launch(const char *checks = "all", Dim3 grid = {1, 1, 1},
                  Dim3 block = {128, 1, 1}) {
    std::string err;
    checker = std::make_unique<Checker>(*Checks::parse(checks, err));
    view.g = grid;
    view.b = block;
    checker->on_launch_begin(view);
    for (uint64_t c = 0; c < grid.count(); ++c)
      begin_cta(c);
  }
  void begin_cta(uint64_t c) {
    engine::CtaEvent e;
    e.cta = c;
    e.cluster = c;
    checker->on_cta_begin(e);
  }
  // Lanes `lanes` of warp `warp` of CTA `cta` access 4 bytes each at
  // base + 4 * lane (or all at `base` when `same`).
  void access(AccessType t, uint32_t warp, uint32_t lanes, uint64_t base,
              uint32_t pc, bool same = false, uint64_t cta = 0,
              StateSpace sp = StateSpace::Shared,
              MemOrder order = MemOrder::Weak, MemScope scope = MemScope::None,
              uint32_t size = 4) {
    std::array<uint64_t, 32> addr{};
    for (uint32_t l = 0; l < 32; ++l)
      addr[l] = same ? base : base + 4ull * l;
    AccessEvent e;
    e.pc = pc;
    e.cta = cta;
    e.owner = cta;
    e.warp = warp;
    e.lanes = lanes;
    e.space = sp;
    e.type = t;
    e.order = order;
    e.scope = scope;
    e.atom = t == AccessType::Atomic ? AtomicOp::Add : AtomicOp::None;
    e.size = size;
    e.addr = addr.data();
    checker->on_access(e);
  }
  // Lanes of warp `warp` read 4 bytes each of a 16-element row at `base`:
  // lanes l and l + 16 read element l % 16 (a tile row read by two rows of
  // threads).
  void read_row(uint32_t warp, uint64_t base, uint32_t pc = 10,
                uint64_t cta = 0) {
    std::array<uint64_t, 32> addr{};
    for (uint32_t l = 0; l < 32; ++l)
      addr[l] = base + 4ull * (l % 16);
    AccessEvent e;
    e.pc = pc;
    e.cta = cta;
    e.owner = cta;
    e.warp = warp;
    e.lanes = ~0u;
    e.space = StateSpace::Shared;
    e.type = AccessType::Read;
    e.size = 4;
    e.addr = addr.data();
    checker->on_access(e);
  }
  void write(uint32_t warp, uint32_t lanes, uint64_t base, uint32_t pc = 100,
             uint64_t cta = 0) {
    access(AccessType::Write, warp, lanes, base, pc, false, cta);
  }
  void read(uint32_t warp, uint32_t lanes, uint64_t base, uint32_t pc = 10,
            uint64_t cta = 0) {
    access(AccessType::Read, warp, lanes, base, pc, false, cta);
  }
  // Lane 0 of `warp` issues a cp.async (id 1, group 0) that writes 16
  // bytes of shared memory at address 0.
  void async_copy(uint32_t warp) {
    engine::AsyncIssueEvent is;
    is.warp = warp;
    is.lanes = 1;
    is.async_id = 1;
    is.what = engine::AsyncKind::Copy;
    is.group = 0;
    checker->on_async_issue(is);
    std::array<uint64_t, 32> addr{};
    AccessEvent w;
    w.pc = 100;
    w.warp = warp;
    w.lanes = 1;
    w.space = StateSpace::Shared;
    w.type = AccessType::Write;
    w.origin = AccessOrigin::AsyncCopy;
    w.async_id = 1;
    w.size = 16;
    w.addr = addr.data();
    checker->on_access(w);
  }
  void warp_sync(uint32_t warp, uint32_t lanes) {
    engine::WarpSyncEvent e;
    e.warp = warp;
    e.lanes = lanes;
    checker->on_warp_sync(e);
  }
  void exit(uint32_t warp, uint32_t lanes) {
    engine::ThreadEvent e;
    e.warp = warp;
    e.lanes = lanes;
    checker->on_thread_exit(e);
  }
  // A full barrier phase among `warps` (all their lanes): arrive each,
  // complete, resume each.
  void barrier(uint32_t warps, int id = 0, uint32_t count = 0,
               uint64_t cta = 0) {
    for (uint32_t w = 0; w < 32; ++w)
      if ((warps >> w) & 1) {
        engine::BarrierArriveEvent e;
        e.cta = cta;
        e.warp = w;
        e.lanes = ~0u;
        e.barrier = id;
        e.count = count;
        checker->on_barrier_arrive(e);
      }
    engine::BarrierCompleteEvent c;
    c.cta = cta;
    c.barrier = id;
    c.warps = warps;
    c.count = count;
    checker->on_barrier_complete(c);
    for (uint32_t w = 0; w < 32; ++w)
      if ((warps >> w) & 1) {
        engine::BarrierResumeEvent e;
        e.cta = cta;
        e.warp = w;
        e.lanes = ~0u;
        e.barrier = id;
        checker->on_barrier_resume(e);
      }
  }
  const std::vector<Finding> &end() {
    checker->on_launch_end(view);
    return checker->findings();
  }
  size_t count(FindingKind k) {
    size_t n = 0;
    for (const auto &f : checker->findings())
      n += f.kind == k;
    return n;
  }

  FakeView view;
  std::unique_ptr<Checker> checker;
};

TEST(Checks, ParsesListsAndRejectsUnknownChecks) {
  std::string err;
  auto all = Checks::parse("all", err);
  ASSERT_TRUE(all);
  EXPECT_TRUE(all->race && all->sync && all->init && all->explicit_list);
  auto none = Checks::parse("none", err);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->any());
  auto two = Checks::parse("race,init", err);
  ASSERT_TRUE(two);
  EXPECT_TRUE(two->race && two->init && !two->sync);
  EXPECT_EQ(two->str(), "race,init");
  EXPECT_FALSE(Checks::parse("race,bogus", err));
  EXPECT_NE(err.find("bogus"), std::string::npos);
  EXPECT_FALSE(Checks::parse("", err));
  EXPECT_FALSE(Checks::parse("race,", err));
  // -KIND suppresses a finding kind.
  auto quiet = Checks::parse("all,-benign-race", err);
  ASSERT_TRUE(quiet);
  EXPECT_TRUE(quiet->suppressed(FindingKind::BenignRace));
  EXPECT_FALSE(quiet->suppressed(FindingKind::DataRace));
  EXPECT_EQ(quiet->str(), "race,sync,init,-benign-race");
  EXPECT_FALSE(Checks::parse("race,-nonsense", err));
  EXPECT_NE(err.find("nonsense"), std::string::npos);
  Checks dflt;
  EXPECT_TRUE(dflt.sync && !dflt.race && !dflt.init && !dflt.explicit_list);
}

TEST(Race, WriteThenReadByAnotherWarpWithoutBarrierRaces) {
  Launch r;
  r.write(0, ~0u, 0);    // warp 0 writes s[0..31]
  r.read(1, ~0u, 0, 11); // warp 1 reads them
  auto &f = r.end();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::DataRace);
  EXPECT_EQ(f[0].instances, 32u);
  EXPECT_EQ(f[0].space, "shared");
  EXPECT_NE(f[0].diag.message.find("read-after-write"), std::string::npos);
  EXPECT_NE(f[0].missing.find("no barrier"), std::string::npos);
}

TEST(Race, ACtaBarrierOrdersItsParticipants) {
  Launch r;
  r.write(0, ~0u, 0);
  r.barrier(0b11);
  r.read(1, ~0u, 0);
  EXPECT_TRUE(r.end().empty());
}

TEST(Race, ANamedBarrierOrdersOnlyTheWarpsOfItsPhase) {
  Launch r;
  r.write(0, ~0u, 0);
  r.barrier(0b011, 1, 64); // warps 0-1 only
  r.read(1, ~0u, 0, 11);   // ordered
  r.read(2, ~0u, 0, 12);   // warp 2 did not take part
  auto &f = r.end();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].sites[1].pc, 12u);
  EXPECT_NE(f[0].missing.find("barrier 1 orders warps 0,1 only"),
            std::string::npos)
      << f[0].missing;
}

TEST(Race, BarriersOrderTransitively) {
  Launch r;
  r.write(0, ~0u, 0);
  r.barrier(0b011, 1, 64); // warps 0-1
  r.barrier(0b110, 2, 64); // warps 1-2: warp 2 learns what warp 1 knew
  r.read(2, ~0u, 0);
  EXPECT_TRUE(r.end().empty());
}

TEST(Race, LanesOfOneWarpAreIndependentThreads) {
  Launch r;
  r.write(0, 1u << 0, 0);                              // lane 0 writes s[0]
  r.access(AccessType::Read, 0, 1u << 1, 0, 10, true); // lane 1 reads s[0]
  auto &f = r.end();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::IntraWarpRace);
  EXPECT_NE(f[0].diag.message.find("data race"), std::string::npos);
  EXPECT_NE(f[0].missing.find("__syncwarp"), std::string::npos);
}

TEST(Race, AWarpSyncOrdersItsMemberLanes) {
  Launch r;
  r.write(0, 1u << 0, 0);
  r.warp_sync(0, ~0u);
  r.access(AccessType::Read, 0, 1u << 1, 0, 10, true);
  EXPECT_TRUE(r.end().empty());
}

TEST(Race, APartialWarpSyncOrdersOnlyItsMembers) {
  Launch r;
  r.write(0, 1u << 0, 0);
  r.warp_sync(0, 0b0011);                              // lanes 0, 1
  r.access(AccessType::Read, 0, 1u << 1, 0, 10, true); // ordered
  r.access(AccessType::Read, 0, 1u << 2, 0, 11, true); // lane 2: not
  auto &f = r.end();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].sites[1].pc, 11u);
}

// A run of lanes reading one address is checked through its ends; a write
// by any lane of the run (or another warp) still meets a read.
TEST(Race, BroadcastReadsThenAWriteByAnyLane) {
  for (uint32_t writer : {0u, 5u, 31u}) {
    Launch r("race");
    r.access(AccessType::Read, 0, ~0u, 0, 10, true); // every lane reads s[0]
    r.access(AccessType::Write, 0, 1u << writer, 0, 100, true);
    auto &f = r.end();
    ASSERT_EQ(f.size(), 1u) << "writer lane " << writer;
    EXPECT_EQ(f[0].kind, FindingKind::IntraWarpRace);
  }
  Launch other("race");
  other.access(AccessType::Read, 0, ~0u, 0, 10, true);
  other.access(AccessType::Write, 1, 1, 0, 100, true); // warp 1
  EXPECT_EQ(other.end().size(), 1u);
}

// A warp's reads of a tile row are kept as one entry per granule (lanes l
// and l + 16 of both halves); a write is still checked against every lane
// of every warp that read its bytes, and the report names the earliest,
// lowest thread among them (docs/checker.md "Reports").
TEST(Race, ATileRowReadByEveryWarpThenAWrite) {
  Launch r("race");
  for (uint32_t w = 0; w < 3; ++w)
    r.read_row(w, 0);
  r.write(3, 1u << 5, 0); // warp 3 lane 5 writes element 5, no barrier
  auto &f = r.end();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::DataRace);
  EXPECT_EQ(f[0].instances, 6u); // lanes 5 and 21 of warps 0, 1 and 2
  EXPECT_EQ(f[0].sites[0].thread.warp, 0u);
  EXPECT_EQ(f[0].sites[0].thread.lane, 5u);
  EXPECT_EQ(f[0].sites[1].thread.warp, 3u);
  EXPECT_NE(f[0].diag.message.find("write-after-read"), std::string::npos);
}

TEST(Race, ATileRowReadThenWrittenAfterABarrier) {
  Launch r("race");
  for (uint32_t w = 0; w < 4; ++w)
    r.read_row(w, 0);
  r.barrier(0b1111);
  r.write(3, 0xffff, 0); // the next tile: s[0..15]
  r.barrier(0b1111);
  for (uint32_t w = 0; w < 4; ++w)
    r.read_row(w, 0, 11);
  EXPECT_TRUE(r.end().empty());
}

TEST(Race, ATileRowReadThenWrittenByALaneOfTheReadingWarp) {
  Launch r("race");
  r.read_row(0, 0);
  r.write(0, 1u << 3, 8); // lane 3 writes element 5 (address 8 + 4 * 3)
  auto &f = r.end();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::IntraWarpRace);
  EXPECT_EQ(f[0].instances, 2u); // lanes 5 and 21
  EXPECT_EQ(f[0].sites[0].thread.lane, 5u);
}

// A barrier of some warps orders their reads only: the write still meets
// the reads of the warp that did not take part, whatever was read between.
TEST(Race, ATileRowWriteAfterABarrierOfOtherWarps) {
  Launch r("race");
  r.read_row(0, 0);
  for (uint32_t w = 1; w < 4; ++w)
    r.read_row(w, 0);
  r.barrier(0b1110);
  r.write(3, 1u << 5, 0);
  auto &f = r.end();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].instances, 2u); // lanes 5 and 21 of warp 0
  EXPECT_EQ(f[0].sites[0].thread.warp, 0u);
  EXPECT_EQ(f[0].sites[0].thread.lane, 5u);
}

// Limit (docs/checker.md "Limits"): lanes of a read entry that read the
// granule again at another instruction in the same epoch keep the entry's
// instruction too, so the racing write is reported at both lines (lane
// cells would name the later one only).
TEST(Race, AReadEntryKeepsItsInstructionForLanesThatReadAgain) {
  Launch r("race");
  r.read_row(0, 0, 10);                                // entry at pc 10
  r.access(AccessType::Read, 0, 0x10003, 0, 11, true); // lanes 0, 1, 16: s[0]
  r.write(1, 1, 0);                                    // warp 1 writes s[0]
  auto &f = r.end();
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].sites[0].pc, 10u);
  EXPECT_EQ(f[1].sites[0].pc, 11u);
}

// The read log (docs/checker.md "Shadow memory"): after a barrier of the
// whole CTA, plain tile reads are logged instead of put into the shadow,
// and replayed before anything else reaches the CTA's shared memory. Each
// case runs twice, with that barrier first (the reads are logged) and
// without it (they are not), and must find and report the same.
std::vector<std::string> reports(Launch &r) {
  std::vector<std::string> v;
  for (const Finding &f : r.end())
    v.push_back(f.text + " x" + std::to_string(f.instances));
  return v;
}
template <class Steps> void same_when_logged(Steps steps, size_t n) {
  Launch logged("race"), plain("race");
  logged.barrier(0b1111); // the CTA's shared memory is clean
  steps(logged);
  steps(plain);
  auto a = reports(logged), b = reports(plain);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.size(), n);
}

// Another warp's write in the epoch of the reads: every reading lane of
// every warp is an instance, the earliest lowest thread named.
TEST(ReadLog, AWriteByAnotherWarpInTheEpochRaces) {
  same_when_logged(
      [](Launch &r) {
        for (uint32_t w = 0; w < 3; ++w)
          r.read_row(w, 0);
        r.write(3, 1u << 5, 0);
      },
      1);
  Launch r("race");
  r.barrier(0b1111);
  for (uint32_t w = 0; w < 3; ++w)
    r.read_row(w, 0);
  r.write(3, 1u << 5, 0);
  auto &f = r.end();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].instances, 6u); // lanes 5 and 21 of warps 0, 1 and 2
  EXPECT_EQ(f[0].sites[0].thread.warp, 0u);
  EXPECT_EQ(f[0].sites[0].thread.lane, 5u);
}

// A reader's own write after a warp sync of the readers (a change of
// knowledge that leaves the log as it is): no race; without the sync the
// other lanes' reads race with it.
TEST(ReadLog, AWriteByAReadingThreadDoesNotRace) {
  same_when_logged(
      [](Launch &r) {
        r.access(AccessType::Read, 0, ~0u, 0, 10, true); // every lane: s[0]
        r.warp_sync(0, ~0u);
        r.write(0, 1, 0); // lane 0 writes s[0]
      },
      0);
  same_when_logged(
      [](Launch &r) {
        r.access(AccessType::Read, 0, ~0u, 0, 10, true);
        r.write(0, 1, 0);
      },
      1);
}

// An asynchronous copy into the tile: the log is replayed first, and the
// copy races with the reads its issuing thread did not know of.
TEST(ReadLog, AnAsyncCopyMeetsTheLoggedReads) {
  same_when_logged(
      [](Launch &r) {
        for (uint32_t w = 0; w < 3; ++w)
          r.read_row(w, 0);
        r.async_copy(3);
        r.barrier(0b1111);
        // After it nothing is logged (an asynchronous copy was issued):
        // warp 2's store races with warp 1's read (no barrier between).
        r.read_row(1, 0, 11);
        r.write(2, 1u << 5, 0, 101);
      },
      3); // the copy after the reads, the read after the copy, the store
}

// A strong read of the tile: not logged; the log is replayed before it, and
// a later write races with the logged reads and the strong one alike.
TEST(ReadLog, AStrongReadReplaysTheLog) {
  same_when_logged(
      [](Launch &r) {
        r.read_row(0, 0);
        r.read_row(2, 0);
        r.access(AccessType::Read, 3, 1, 20, 12, true, 0, StateSpace::Shared,
                 MemOrder::Relaxed, MemScope::Cta); // lane 0: element 5
        r.read_row(1, 0, 13);
        r.write(1, 1u << 5, 0);
      },
      3);
}

// A barrier of some warps does not end the log: the write after it is
// checked against the reads of the warps that did not take part only.
TEST(ReadLog, ABarrierOfSomeWarpsKeepsTheLog) {
  same_when_logged(
      [](Launch &r) {
        for (uint32_t w = 0; w < 4; ++w)
          r.read_row(w, 0);
        r.barrier(0b0110, 1, 64);
        r.write(2, 1u << 5, 0);
      },
      1);
  Launch r("race");
  r.barrier(0b1111);
  for (uint32_t w = 0; w < 4; ++w)
    r.read_row(w, 0);
  r.barrier(0b0110, 1, 64);
  r.write(2, 1u << 5, 0);
  auto &f = r.end();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].instances, 4u); // lanes 5 and 21 of warps 0 and 3
}

// A barrier of the whole CTA ends the log's reads: the next tile's stores
// and its reads race with nothing, epoch after epoch; a store whose
// barrier is missing still races with the reads before it.
TEST(ReadLog, TheLogEndsAtABarrierOfTheWholeCta) {
  same_when_logged(
      [](Launch &r) {
        for (int step = 0; step < 3; ++step) {
          r.write(step % 4, ~0u, 0, 100);
          r.barrier(0b1111);
          for (uint32_t w = 0; w < 4; ++w)
            r.read_row(w, 0, 10);
          r.barrier(0b1111);
        }
      },
      0);
  same_when_logged(
      [](Launch &r) {
        for (int step = 0; step < 3; ++step) {
          r.write(step % 4, ~0u, 0, 100);
          r.barrier(0b1111);
          for (uint32_t w = 0; w < 4; ++w)
            r.read_row(w, 0, 10);
        }
      },
      2); // the stores after the reads; lane 0 of the storing warp too
}

// A long epoch of reads (a table read in a loop): the log is replayed when
// it is full, and what the reads after it find is the same.
TEST(ReadLog, AFullLogIsReplayed) {
  same_when_logged(
      [](Launch &r) {
        for (uint32_t i = 0; i < 5000; ++i)
          r.read_row(i % 3, 64 * (i % 4), 10 + i % 5);
        r.write(3, 1u << 5, 0);
      },
      5); // one per read instruction
}

// Reads the log's own test at the top of the check declines while the log
// is on go the general way (the log replayed first): a warp whose lanes
// know differently (a warp sync of some of them) and a coalesced read (two
// lanes a granule, no read entries). Another warp's write still races with
// them and with the logged reads.
TEST(ReadLog, ReadsTheLogDeclinesMeetTheLoggedReads) {
  same_when_logged(
      [](Launch &r) {
        r.read_row(0, 0);
        r.warp_sync(1, 0xffff); // lanes 0-15 of warp 1 only
        r.read_row(1, 0, 11);
        r.read_row(2, 0, 12);
        r.write(3, 1u << 5, 0);
      },
      3); // the write with each reading instruction
  same_when_logged(
      [](Launch &r) {
        r.read_row(0, 0);
        r.read(1, ~0u, 0, 11); // s[0..31], lane by lane
        r.read_row(2, 0, 12);
        r.write(3, 1u << 5, 0);
      },
      3);
  Launch r("race");
  r.barrier(0b1111);
  r.read_row(0, 0);
  r.warp_sync(1, 0xffff);
  r.read_row(1, 0, 11);
  r.write(3, 1u << 5, 0);
  auto &f = r.end();
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].instances + f[1].instances, 4u); // lanes 5, 21 of 0 and 1
}

// At a barrier of the whole CTA the log is dropped: the cells keep the
// tile's older stores (dead), and a thread's two stores to the two halves of
// a granule still keep a cell each (a dead cell is as good as free), so a
// racing read names the store that wrote its bytes, as it does when the
// reads went into the cells.
TEST(ReadLog, AStoreAfterTheDroppedLogIsNamedByItsBytes) {
  Launch r("race");
  r.write(3, 0b11, 0, 100); // lanes 0 and 1: s[0] and s[1]
  r.barrier(0b1111);
  r.read_row(0, 0);
  r.read_row(1, 0);
  r.barrier(0b1111);
  r.write(2, 1, 0, 110); // warp 2 lane 0: s[0], then s[1]
  r.write(2, 1, 4, 111);
  r.read(0, 1, 0, 12); // warp 0 lane 0 reads s[0], no barrier
  auto &f = r.end();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].sites[0].pc, 110u);
  EXPECT_EQ(f[0].sites[1].pc, 12u);
}

// Two stores of one thread to the two halves of a granule whose cells hold
// records that can never race again (stores before a barrier of the whole
// CTA) keep a cell each, as in a fresh granule: a racing read names the
// store that wrote its bytes, and a read of both halves both stores.
TEST(Race, ADeadCellDoesNotMergeAThreadsStores) {
  for (uint64_t at : {0, 4}) {
    Launch r("race");
    r.write(3, 0b11, 0, 100); // lanes 0 and 1: s[0] and s[1]
    r.barrier(0b1111);
    r.write(2, 1, 0, 110); // warp 2 lane 0: s[0], then s[1]
    r.write(2, 1, 4, 111);
    r.read(0, 1, at, 12); // warp 0 lane 0, no barrier
    auto &f = r.end();
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].sites[0].pc, at ? 111u : 110u);
    EXPECT_EQ(f[0].sites[1].pc, 12u);
  }
  Launch both("race");
  both.write(3, 0b11, 0, 100);
  both.barrier(0b1111);
  both.write(2, 1, 0, 110);
  both.write(2, 1, 4, 111);
  both.access(AccessType::Read, 0, 1, 0, 12, true, 0, StateSpace::Shared,
              MemOrder::Weak, MemScope::None, 8); // s[0] and s[1] at once
  auto &f = both.end();
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].sites[0].pc + f[1].sites[0].pc, 110u + 111u);
}

// Lanes of one store to one address: one of the writes is performed last
// (CUDA), no race among them; a later read by another warp without a
// barrier still races, and a read-modify-write by lanes does too.
TEST(Race, LanesOfOneStoreToOneAddressDoNotRace) {
  Launch r("race");
  r.access(AccessType::Write, 0, ~0u, 0, 10, true); // every lane writes s[0]
  EXPECT_TRUE(r.end().empty());
  Launch other("race");
  other.access(AccessType::Write, 0, ~0u, 0, 10, true);
  other.access(AccessType::Read, 1, 1, 0, 20, true); // warp 1, no barrier
  EXPECT_EQ(other.end().size(), 1u);
  Launch rmw("race");
  rmw.access(AccessType::Read, 0, 0b11, 0, 10, true);  // lanes 0, 1 load
  rmw.access(AccessType::Write, 0, 0b11, 0, 11, true); // and both store
  auto &f = rmw.end();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::IntraWarpRace);
}

TEST(Race, ByteGranularity) {
  Launch r;
  // Lane 0 writes bytes 0-4 (5 bytes), lane 1 writes bytes 4-7.
  r.access(AccessType::Write, 0, 1u << 0, 0, 100, true, 0, StateSpace::Shared,
           MemOrder::Weak, MemScope::None, 1);
  for (uint64_t b = 1; b < 5; ++b)
    r.access(AccessType::Write, 0, 1u << 0, b, 101, true, 0, StateSpace::Shared,
             MemOrder::Weak, MemScope::None, 1);
  r.access(AccessType::Write, 0, 1u << 1, 4, 102, true, 0, StateSpace::Shared,
           MemOrder::Weak, MemScope::None, 4);
  EXPECT_EQ(r.end().size(), 1u);
  Launch clean;
  // Neighbouring bytes of one word by different threads: no race.
  for (uint32_t l = 0; l < 4; ++l)
    clean.access(AccessType::Write, 0, 1u << l, l, 100, true, 0,
                 StateSpace::Shared, MemOrder::Weak, MemScope::None, 1);
  EXPECT_TRUE(clean.end().empty());
}

TEST(Race, AtomicsRaceOnlyWithPlainAccessesOrNarrowScopes) {
  Launch r("race", {2, 1, 1});
  // Two CTAs: atomics at .gpu scope on one global word: no race.
  r.access(AccessType::Atomic, 0, 1, 0x1000, 50, true, 0, StateSpace::Global,
           MemOrder::Relaxed, MemScope::Gpu);
  r.access(AccessType::Atomic, 0, 1, 0x1000, 50, true, 1, StateSpace::Global,
           MemOrder::Relaxed, MemScope::Gpu);
  EXPECT_EQ(r.count(FindingKind::DataRace), 0u);
  // A plain read of the same word by CTA 1: races with CTA 0's atomic.
  r.access(AccessType::Read, 1, 1, 0x1000, 51, true, 1, StateSpace::Global);
  // .cta-scoped atomics of two CTAs on another word: race.
  r.access(AccessType::Atomic, 0, 1, 0x2000, 52, true, 0, StateSpace::Global,
           MemOrder::Relaxed, MemScope::Cta);
  r.access(AccessType::Atomic, 0, 1, 0x2000, 52, true, 1, StateSpace::Global,
           MemOrder::Relaxed, MemScope::Cta);
  auto &f = r.end();
  ASSERT_EQ(f.size(), 2u);
  EXPECT_NE(f[0].missing.find("atomic"), std::string::npos);
  EXPECT_NE(f[1].missing.find("not morally strong"), std::string::npos);
}

// Global memory over hundreds of 4 KiB pages (its shadow then comes from
// slabs of huge pages): every page keeps the writes made there.
TEST(Race, WritesInFarPagesOfGlobalMemoryRaceWithLaterReads) {
  Launch r("race", {2, 1, 1});
  constexpr uint64_t kBase = 0x700000000000ull, kPages = 300;
  for (uint64_t p = 0; p < kPages; ++p) // CTA 0 writes 128 bytes per page
    r.access(AccessType::Write, 0, ~0u, kBase + p * 4096, 60, false, 0,
             StateSpace::Global);
  for (uint64_t p = 0; p < kPages; ++p) // CTA 1 reads one word of each
    r.access(AccessType::Read, 0, 1, kBase + p * 4096 + 4 * (p % 32), 61, true,
             1, StateSpace::Global);
  auto &f = r.end();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::DataRace);
  EXPECT_EQ(f[0].instances, kPages);
  EXPECT_EQ(f[0].space, "global");
}

// Shadow memory past the first pages comes from slabs that a launch keeps
// for the next ones: a later launch's pages and line records start empty
// (nothing of an earlier launch's writes) and keep their own.
TEST(Race, ALaunchOnSlabsKeptFromAnEarlierOneStartsEmpty) {
  constexpr uint64_t kBase = 0x700000000000ull, kPages = 300;
  auto writes = [&](Launch &r) { // CTA 0 writes 128 bytes per page
    for (uint64_t p = 0; p < kPages; ++p)
      r.access(AccessType::Write, 0, ~0u, kBase + p * 4096, 60, false, 0,
               StateSpace::Global);
  };
  auto reads = [&](Launch &r) { // CTA 1 reads one word of each
    for (uint64_t p = 0; p < kPages; ++p)
      r.access(AccessType::Read, 0, 1, kBase + p * 4096 + 4 * (p % 32), 61,
               true, 1, StateSpace::Global);
  };
  for (int round = 0; round < 3; ++round) {
    {
      Launch r("race", {2, 1, 1});
      writes(r);
      reads(r);
      auto &f = r.end();
      ASSERT_EQ(f.size(), 1u);
      EXPECT_EQ(f[0].kind, FindingKind::DataRace);
      EXPECT_EQ(f[0].instances, kPages);
    }
    { // the reads alone, on the slabs of the launch above
      Launch r("race", {2, 1, 1});
      reads(r);
      EXPECT_TRUE(r.end().empty());
    }
  }
}

// A warp's atomics on one counter are checked as a few lanes of the run,
// but for every lane (docs/checker.md "Decisions"): lane 0's own earlier
// plain write races with the other lanes' atomics, every lane acquires
// through the counter, and a later plain access is checked against them.
TEST(Race, AWarpsAtomicsOnOneAddressCountForEveryLane) {
  {
    Launch r("race");
    // 8 bytes: lane 0's 4-byte atomic does not stand for this write.
    r.access(AccessType::Write, 0, 1, 0x1000, 100, true, 0, StateSpace::Global,
             MemOrder::Weak, MemScope::None, 8);
    r.access(AccessType::Atomic, 0, ~0u, 0x1000, 50, true, 0,
             StateSpace::Global, MemOrder::Relaxed, MemScope::Gpu);
    auto &f = r.end();
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].kind, FindingKind::IntraWarpRace);
    EXPECT_EQ(f[0].sites[0].pc, 100u);
    EXPECT_EQ(f[0].sites[1].pc, 50u);
  }
  {
    Launch r("race", {2, 1, 1});
    // CTA 1 writes data, then releases the counter.
    r.access(AccessType::Write, 0, 1, 0x100, 100, true, 1, StateSpace::Global);
    r.access(AccessType::Atomic, 0, 1, 0x1000, 51, true, 1, StateSpace::Global,
             MemOrder::Release, MemScope::Gpu);
    // Every lane of CTA 0's warp 0 acquires it; lane 17 reads the data.
    r.access(AccessType::Atomic, 0, ~0u, 0x1000, 50, true, 0,
             StateSpace::Global, MemOrder::Acquire, MemScope::Gpu);
    r.access(AccessType::Read, 0, 1u << 17, 0x100, 10, true, 0,
             StateSpace::Global);
    EXPECT_EQ(r.count(FindingKind::DataRace), 0u);
    // A plain read of the counter by CTA 1, unordered with CTA 0's atomics.
    r.access(AccessType::Read, 1, 1, 0x1000, 11, true, 1, StateSpace::Global);
    auto &f = r.end();
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].kind, FindingKind::DataRace);
    EXPECT_EQ(f[0].sites[0].pc, 50u);
    EXPECT_EQ(f[0].sites[1].pc, 11u);
  }
}

// A thread's plain access, then its own atomic on the same bytes: the atomic
// does not stand for the plain access in shadow memory (morally strong needs
// both strong), so another thread's unordered atomic races with it
// (docs/checker.md "Shadow memory"), until a release orders it before.
TEST(Race, AThreadsAtomicDoesNotStandForItsPlainAccess) {
  for (AccessType first : {AccessType::Write, AccessType::Read}) {
    Launch r("race", {2, 1, 1});
    const uint32_t pc = first == AccessType::Write ? 100 : 10;
    r.access(first, 0, 1, 0x1000, pc, true, 0, StateSpace::Global);
    r.access(AccessType::Atomic, 0, 1, 0x1000, 50, true, 0, StateSpace::Global,
             MemOrder::Relaxed, MemScope::Gpu);
    r.access(AccessType::Atomic, 0, 1, 0x1000, 51, true, 1, StateSpace::Global,
             MemOrder::Relaxed, MemScope::Gpu);
    auto &f = r.end();
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].kind, FindingKind::DataRace);
    EXPECT_EQ(f[0].sites[0].pc, pc);
    EXPECT_EQ(f[0].sites[1].pc, 51u);
  }
  {
    // Lane 0's 4-byte store, then the warp's atomics on it: the other
    // lanes' atomics race with the store.
    Launch r("race");
    r.access(AccessType::Write, 0, 1, 0x1000, 100, true, 0, StateSpace::Global);
    r.access(AccessType::Atomic, 0, ~0u, 0x1000, 50, true, 0,
             StateSpace::Global, MemOrder::Relaxed, MemScope::Gpu);
    auto &f = r.end();
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].kind, FindingKind::IntraWarpRace);
    EXPECT_EQ(f[0].sites[0].pc, 100u);
    EXPECT_EQ(f[0].sites[1].pc, 50u);
  }
  {
    // A release atomic after the store, acquired by CTA 1's atomic: the
    // store happens before it (and before CTA 1's later plain read).
    Launch r("race", {2, 1, 1});
    r.access(AccessType::Write, 0, 1, 0x1000, 100, true, 0, StateSpace::Global);
    r.access(AccessType::Atomic, 0, 1, 0x1000, 50, true, 0, StateSpace::Global,
             MemOrder::Release, MemScope::Gpu);
    r.access(AccessType::Atomic, 0, 1, 0x1000, 51, true, 1, StateSpace::Global,
             MemOrder::Acquire, MemScope::Gpu);
    r.access(AccessType::Read, 0, 1, 0x1000, 11, true, 1, StateSpace::Global);
    EXPECT_TRUE(r.end().empty());
  }
  {
    // A thread of CTA 0 ordered after the store by a barrier: its atomic
    // does not race; CTA 1's still does.
    Launch r("race", {2, 1, 1});
    r.access(AccessType::Write, 0, 1, 0x1000, 100, true, 0, StateSpace::Global);
    r.access(AccessType::Atomic, 0, 1, 0x1000, 50, true, 0, StateSpace::Global,
             MemOrder::Relaxed, MemScope::Gpu);
    r.barrier(0b11, 0, 0, 0);
    r.access(AccessType::Atomic, 1, 1, 0x1000, 50, true, 0, StateSpace::Global,
             MemOrder::Relaxed, MemScope::Gpu);
    EXPECT_EQ(r.count(FindingKind::DataRace), 0u);
    r.access(AccessType::Atomic, 0, 1, 0x1000, 51, true, 1, StateSpace::Global,
             MemOrder::Relaxed, MemScope::Gpu);
    auto &f = r.end();
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].sites[0].pc, 100u);
    EXPECT_EQ(f[0].sites[1].pc, 51u);
  }
}

// Thread 0 of CTA 0 writes data, then publishes a flag; thread 0 of CTA 1
// reads the flag, then the data.
void handshake(Launch &r, MemOrder st, MemScope st_scope, MemOrder ld,
               bool fences) {
  r.access(AccessType::Write, 0, 1, 0x100, 100, true, 0, StateSpace::Global);
  if (fences) {
    engine::FenceEvent f;
    f.cta = 0;
    f.lanes = 1;
    f.order = MemOrder::AcqRel;
    f.scope = MemScope::Gpu;
    r.checker->on_fence(f);
  }
  r.access(AccessType::Write, 0, 1, 0x200, 101, true, 0, StateSpace::Global, st,
           st_scope);
  r.access(AccessType::Read, 0, 1, 0x200, 10, true, 1, StateSpace::Global, ld,
           MemScope::Gpu);
  if (fences) {
    engine::FenceEvent f;
    f.cta = 1;
    f.lanes = 1;
    f.order = MemOrder::AcqRel;
    f.scope = MemScope::Gpu;
    r.checker->on_fence(f);
  }
  r.access(AccessType::Read, 0, 1, 0x100, 11, true, 1, StateSpace::Global);
}

TEST(Race, ReleaseAcquireFlagsOrderDataAcrossCtas) {
  Launch r("race", {2, 1, 1});
  handshake(r, MemOrder::Release, MemScope::Gpu, MemOrder::Acquire, false);
  EXPECT_TRUE(r.end().empty());
}

TEST(Race, FencesMakeRelaxedFlagsASynchronization) {
  Launch r("race", {2, 1, 1});
  handshake(r, MemOrder::Relaxed, MemScope::Gpu, MemOrder::Relaxed, true);
  EXPECT_TRUE(r.end().empty());
}

TEST(Race, RelaxedFlagsWithoutFencesOrderNothing) {
  Launch r("race", {2, 1, 1});
  handshake(r, MemOrder::Relaxed, MemScope::Gpu, MemOrder::Relaxed, false);
  auto &f = r.end();
  ASSERT_EQ(f.size(), 1u); // the data; the relaxed flags are morally strong
  EXPECT_EQ(f[0].address, 0x100u);
}

TEST(Race, ACtaScopedReleaseDoesNotReachAnotherCta) {
  Launch r("race", {2, 1, 1});
  handshake(r, MemOrder::Release, MemScope::Cta, MemOrder::Acquire, false);
  auto &f = r.end();
  ASSERT_EQ(f.size(), 2u); // the flag (not morally strong) and the data
  EXPECT_NE(f[1].missing.find(".cta-scoped"), std::string::npos)
      << f[1].missing;
}

// Reads of other threads in between evict the first read from the two
// cells; the write is still checked against it (docs/checker.md "History").
TEST(Race, AWriteIsCheckedAgainstEvictedConcurrentReads) {
  Launch r("race", {2, 1, 1});
  r.access(AccessType::Read, 0, 1, 0x100, 10, true, 0, StateSpace::Global);
  r.access(AccessType::Read, 0, 1, 0x100, 11, true, 1, StateSpace::Global);
  r.access(AccessType::Read, 1, 1, 0x100, 12, true, 1, StateSpace::Global);
  r.barrier(0b11, 0, 0, 1); // orders CTA 1's reads before its write
  r.access(AccessType::Write, 0, 1, 0x100, 100, true, 1, StateSpace::Global);
  auto &f = r.end();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::DataRace);
  EXPECT_EQ(f[0].sites[0].pc, 10u);
  EXPECT_EQ(f[0].sites[1].pc, 100u);
}

// One lane's 4-byte access to global memory, given to the checker: thread
// `t` of CTA `cta` at `pc` (a store of `v`, its bytes in the event).
struct OneLane {
  std::array<uint64_t, 32> addr{};
  std::array<uint32_t, 32> values{};
  void access(Launch &r, uint64_t cta, uint32_t t, uint64_t address,
              uint32_t pc, AccessType type, uint32_t v = 1,
              MemOrder order = MemOrder::Weak,
              MemScope scope = MemScope::None) {
    addr[t & 31] = address;
    values[t & 31] = v;
    AccessEvent e;
    e.pc = pc;
    e.cta = cta;
    e.warp = t / 32;
    e.lanes = 1u << (t & 31);
    e.space = StateSpace::Global;
    e.type = type;
    e.order = order;
    e.scope = scope;
    e.size = 4;
    e.addr = addr.data();
    if (type == AccessType::Write)
      e.values = reinterpret_cast<const uint8_t *>(values.data());
    r.checker->on_access(e);
  }
};

// Writes of the same value by unordered threads: a benign race (a
// warning); different values: an error; both suppressible by kind.
TEST(Race, WritesOfTheSameValueAreABenignRace) {
  for (uint32_t second : {7u, 8u}) {
    for (bool suppress : {false, true}) {
      Launch r(suppress ? "race,-benign-race" : "race", {2, 1, 1});
      OneLane w;
      w.access(r, 0, 0, 0x100, 100, AccessType::Write, 7);
      w.access(r, 1, 0, 0x100, 101, AccessType::Write, second);
      auto &f = r.end();
      if (second == 7 && suppress) {
        EXPECT_TRUE(f.empty());
        continue;
      }
      ASSERT_EQ(f.size(), 1u);
      EXPECT_EQ(f[0].kind,
                second == 7 ? FindingKind::BenignRace : FindingKind::DataRace);
      EXPECT_EQ(f[0].severity,
                second == 7 ? Severity::Warning : Severity::Error);
      EXPECT_EQ(f[0].to_json()["kind"],
                second == 7 ? "benign-race" : "data-race");
    }
  }
}

// A pair of instructions that stores the same value in one instance and
// different values in another: error races, no benign-race beside them.
TEST(Race, ASameValueInstanceOfARacingPairAddsNoWarning) {
  Launch r("race", {3, 1, 1});
  OneLane w;
  const std::array<std::pair<uint32_t, uint32_t>, 3> writes{
      {{100, 7}, {101, 7}, {100, 8}}}; // (pc, value) of CTAs 0, 1, 2
  for (uint64_t c = 0; c < 3; ++c)
    w.access(r, c, 0, 0x100, writes[c].first, AccessType::Write,
             writes[c].second);
  auto &f = r.end();
  bool pair = false;
  for (const Finding &x : f) {
    EXPECT_NE(x.kind, FindingKind::BenignRace) << x.text;
    pair |= x.kind == FindingKind::DataRace && x.sites.size() == 2 &&
            x.sites[0].pc + x.sites[1].pc == 201;
  }
  EXPECT_TRUE(pair);
}

// Flags stored by a thread of each of 40 CTAs, 16 words in a row, none
// ordered with another: every pair of stores of a word is an instance of
// one benign race (16 x 40 x 39 / 2), the first 10000 listed in report
// order; then another instruction's store of a different value races with
// all 40 stores of the first word (docs/checker.md "Reports": instances
// beyond the list are counted only).
TEST(Race, EveryInstanceOfAFlagStoredByManyCtasIsCounted) {
  constexpr uint64_t kCtas = 40, kWords = 16;
  Launch r("race", {kCtas + 1, 1, 1});
  OneLane w;
  // (earlier CTA, later CTA, word) of each instance in report order.
  std::vector<std::array<uint64_t, 3>> order;
  for (uint64_t c = 0; c < kCtas; ++c)
    for (uint64_t j = 0; j < kWords; ++j) {
      w.access(r, c, 0, 0x100 + 8 * j, 100, AccessType::Write, 1);
      for (uint64_t e = 0; e < c; ++e)
        order.push_back({e, c, j});
    }
  w.access(r, kCtas, 0, 0x100, 101, AccessType::Write, 2);
  auto &f = r.end();
  ASSERT_EQ(f.size(), 2u);
  const Finding &b = f[0], &d = f[1];
  EXPECT_EQ(b.kind, FindingKind::BenignRace);
  EXPECT_EQ(b.instances, order.size());
  ASSERT_GT(order.size(), Finding::kMaxInstances);
  ASSERT_EQ(b.instance_list.size(), Finding::kMaxInstances);
  for (size_t i : {size_t(0), size_t(1), Finding::kMaxInstances - 1}) {
    const auto &x = b.instance_list[i];
    EXPECT_EQ(x.threads[0].cta_linear, order[i][0]) << i;
    EXPECT_EQ(x.threads[1].cta_linear, order[i][1]) << i;
    EXPECT_EQ(x.address, 0x100 + 8 * order[i][2]) << i;
  }
  EXPECT_EQ(d.kind, FindingKind::DataRace);
  EXPECT_EQ(d.instances, kCtas);
  EXPECT_EQ(d.instance_list.size(), kCtas);
  EXPECT_EQ(d.instance_list.back().threads[0].cta_linear, kCtas - 1);
  EXPECT_NE(b.text.find(std::to_string(order.size() - 1) + " more instances"),
            std::string::npos)
      << b.text;
}

// Beyond 64 kept writes of a granule, plain writes of one instruction,
// bytes and value are one group, checked by its newest member that an
// access is not ordered after (docs/checker.md "History"). 128 threads of
// CTA 0 store 1 to one word at pc 100, none ordered with another; thread
// 64's store (or, with `cta1`, a thread of CTA 1's instead) is the first
// to join the group (2 in the cells, 64 kept, then the group).
namespace flag_group {

struct FlagRun {
  Launch r{"race", {2, 1, 1}};
  OneLane one;
  // Thread `t` of CTA `cta` accesses the word at `pc` (a store of `v`).
  void access(uint64_t cta, uint32_t t, uint32_t pc, AccessType type,
              uint32_t v = 1, MemOrder o = MemOrder::Weak,
              MemScope s = MemScope::None) {
    one.access(r, cta, t, 0x100, pc, type, v, o, s);
  }
  // A relaxed store at scope `s`.
  void store(uint64_t cta, uint32_t t, uint32_t pc, MemScope s,
             uint32_t v = 1) {
    access(cta, t, pc, AccessType::Write, v, MemOrder::Relaxed, s);
  }
  // With `strong`, the 128 stores are relaxed at .sys scope (a `volatile`
  // flag): morally strong with one another, no finding among them.
  explicit FlagRun(bool cta1 = false, bool strong = false) {
    for (uint32_t t = 0; t < 128; ++t) {
      const uint64_t cta = cta1 && t == 64 ? 1 : 0;
      const uint32_t thread = cta ? 0 : t;
      if (strong)
        store(cta, thread, 100, MemScope::Sys);
      else
        access(cta, thread, 100, AccessType::Write);
    }
  }
};

// The findings between instructions `p` and `q` (nullptr: none).
const Finding *pair(const std::vector<Finding> &f, uint32_t p, uint32_t q) {
  for (const Finding &x : f)
    if (x.sites.size() == 2 && x.sites[0].pc == p && x.sites[1].pc == q)
      return &x;
  return nullptr;
}

// The 128 stores: each one finds every earlier store while 64 are kept,
// then the two cells, the 64 kept and the group (one instance); another
// thread's store of the same value finds the same 67.
TEST(FlagGroup, AnotherSameValueStoreIsOneInstanceOfTheGroup) {
  uint64_t before = 0;
  for (bool more : {false, true}) {
    FlagRun run;
    if (more)
      run.access(1, 0, 100, AccessType::Write);
    auto &f = run.r.end();
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].kind, FindingKind::BenignRace);
    if (!more) {
      // Stores 0..66 find 0..66 earlier ones (the group made by store
      // 66's eviction of store 64); stores 67..127 find 67 each.
      before = f[0].instances;
      EXPECT_EQ(before, 67u * 66 / 2 + 61u * 67);
    } else {
      EXPECT_EQ(f[0].instances, before + 2 + 64 + 1);
    }
  }
}

// A plain store of another value is an error against the group, one
// instance for it, whether its members are plain or strong stores.
TEST(FlagGroup, ADifferentValueIsAnErrorAgainstTheGroup) {
  for (bool strong : {false, true}) {
    FlagRun run(false, strong);
    run.access(1, 0, 101, AccessType::Write, 2);
    auto &f = run.r.end();
    const Finding *d = pair(f, 100, 101);
    ASSERT_TRUE(d) << strong;
    EXPECT_EQ(d->kind, FindingKind::DataRace);
    EXPECT_EQ(d->instances, 2u + 64 + 1);
  }
}

// CTA 0's barrier orders its stores before thread 0's plain read; CTA 1's
// store, the group's oldest member, is not: the read races with it (plain
// or strong members).
TEST(FlagGroup, AReadUnorderedWithTheOldestMemberOnlyRaces) {
  for (bool strong : {false, true}) {
    FlagRun run(true, strong);
    run.r.barrier(0b1111);
    run.access(0, 0, 300, AccessType::Read);
    auto &f = run.r.end();
    const Finding *d = pair(f, 100, 300);
    ASSERT_TRUE(d) << strong;
    EXPECT_EQ(d->kind, FindingKind::DataRace);
    EXPECT_EQ(d->instances, 1u);
    EXPECT_EQ(d->sites[0].thread.cta_linear, 1u);
  }
  // Without CTA 1's store, nothing races with the read.
  FlagRun all0;
  all0.r.barrier(0b1111);
  all0.access(0, 0, 300, AccessType::Read);
  EXPECT_FALSE(pair(all0.r.end(), 100, 300));
}

// After the barrier two threads of CTA 0 store again (pc 200, the two
// cells): ordered after every member, they drop the kept stores and the
// group; CTA 1's read then races with them only.
TEST(FlagGroup, AWriteOrderedAfterEveryMemberDropsTheGroup) {
  FlagRun run;
  run.r.barrier(0b1111);
  run.access(0, 0, 200, AccessType::Write);
  run.access(0, 1, 200, AccessType::Write);
  run.access(1, 0, 300, AccessType::Read);
  auto &f = run.r.end();
  EXPECT_FALSE(pair(f, 100, 300));
  const Finding *d = pair(f, 200, 300);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->instances, 2u);
}

// The same with a `volatile` flag: thread 64's store the first to join
// the group.
struct VolatileRun : FlagRun {
  explicit VolatileRun(bool cta1 = false) : FlagRun(cta1, true) {}
};

// A strong store of CTA 1 at .gpu scope is morally strong with every
// member (it passes over the group); at .cta scope with none of CTA 0's
// (the cells, the 64 kept, the group: one instance), but with all of them
// when it is CTA 0's.
TEST(FlagGroup, AStrongStoreAtGpuScopePassesOverAStrongGroup) {
  VolatileRun gpu;
  gpu.store(1, 0, 200, MemScope::Gpu);
  EXPECT_TRUE(gpu.r.end().empty());
  VolatileRun cta;
  cta.store(1, 0, 200, MemScope::Cta);
  auto &f = cta.r.end();
  ASSERT_EQ(f.size(), 1u);
  const Finding *b = pair(f, 100, 200);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->kind, FindingKind::BenignRace);
  EXPECT_EQ(b->instances, 2u + 64 + 1);
  VolatileRun own;
  own.store(0, 0, 200, MemScope::Cta, 2);
  EXPECT_TRUE(own.r.end().empty());
}

// A strong read at .sys scope passes over a group of strong stores.
TEST(FlagGroup, AStrongReadPassesOverAStrongGroup) {
  VolatileRun strong(true);
  strong.access(1, 1, 300, AccessType::Read, 0, MemOrder::Relaxed,
                MemScope::Sys);
  EXPECT_FALSE(pair(strong.r.end(), 100, 300));
}

// After the barrier two threads of CTA 0 store plainly (pc 200, the two
// cells): ordered after every member, they drop the kept stores and the
// group; CTA 1's read then races with them only. Strong stores at .cta
// scope instead keep the group: the read races with it too.
TEST(FlagGroup, APlainWriteOrderedAfterEveryMemberDropsAStrongGroup) {
  for (bool strong : {false, true}) {
    VolatileRun run;
    run.r.barrier(0b1111);
    for (uint32_t t : {0u, 1u})
      if (strong)
        run.store(0, t, 200, MemScope::Cta);
      else
        run.access(0, t, 200, AccessType::Write);
    run.access(1, 0, 300, AccessType::Read);
    auto &f = run.r.end();
    EXPECT_EQ(pair(f, 100, 300) != nullptr, strong) << strong;
    const Finding *d = pair(f, 200, 300);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->instances, 2u);
  }
}

} // namespace flag_group

// Beyond 64 kept reads of a granule, strong reads (not atomics) of one
// instruction, bytes, flags and size are one group (docs/checker.md
// "History"): a strong write of their size at .gpu or .sys scope passes
// over it, other writes are checked against its newest member they are not
// ordered after. 128 threads of CTA 0 read one word at pc 100 with a
// relaxed .sys load (thread 64, or with `cta1` a thread of CTA 1 instead,
// is the first to join the group: 2 in the cells, 64 kept, then the group).
namespace strong_read_group {

struct HubRun {
  Launch r;
  StateSpace sp;
  void at(AccessType type, uint64_t cta, uint32_t t, uint32_t pc,
          MemOrder o = MemOrder::Weak, MemScope s = MemScope::None) {
    r.access(type, t / 32, 1u << (t & 31), 0x40, pc, true, cta, sp, o, s);
  }
  void read(uint64_t cta, uint32_t t) {
    at(AccessType::Read, cta, t, 100, MemOrder::Relaxed, MemScope::Sys);
  }
  explicit HubRun(bool cta1 = false, StateSpace space = StateSpace::Global)
      : r("race", {2, 1, 1}), sp(space) {
    for (uint32_t t = 0; t < 128; ++t)
      if (cta1 && t == 64)
        read(1, 0);
      else
        read(0, t);
  }
};
using flag_group::pair;

// An atomic of CTA 1 at .gpu scope is morally strong with every read; at
// .cta scope with none of CTA 0's (the cells, the 64 kept, the group: one
// instance), but with all of them when it is CTA 0's.
TEST(StrongReadGroup, AnAtomicAtGpuScopePassesOverTheGroup) {
  HubRun gpu;
  gpu.at(AccessType::Atomic, 1, 0, 200, MemOrder::Relaxed, MemScope::Gpu);
  EXPECT_TRUE(gpu.r.end().empty());
  HubRun cta;
  cta.at(AccessType::Atomic, 1, 0, 200, MemOrder::Relaxed, MemScope::Cta);
  auto &f = cta.r.end();
  const Finding *d = pair(f, 100, 200);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind, FindingKind::DataRace);
  EXPECT_EQ(d->instances, 2u + 64 + 1);
  HubRun own;
  own.at(AccessType::Atomic, 0, 0, 200, MemOrder::Relaxed, MemScope::Cta);
  EXPECT_TRUE(own.r.end().empty());
}

// CTA 0's barrier orders its reads before thread 0's plain write; CTA 1's
// read, the group's oldest member, is not: the write races with it.
TEST(StrongReadGroup, APlainWriteUnorderedWithTheOldestMemberOnlyRaces) {
  HubRun run(true);
  run.r.barrier(0b1111);
  run.at(AccessType::Write, 0, 0, 300);
  auto &f = run.r.end();
  const Finding *d = pair(f, 100, 300);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind, FindingKind::DataRace);
  EXPECT_EQ(d->instances, 1u);
  EXPECT_EQ(d->sites[0].thread.cta_linear, 1u);
  HubRun all0;
  all0.r.barrier(0b1111);
  all0.at(AccessType::Write, 0, 0, 300);
  EXPECT_TRUE(all0.r.end().empty());
}

// After the barrier two threads of CTA 0 store (pc 200, the two cells):
// ordered after every member, they drop the kept reads and the group; CTA
// 1's store then races with them only.
TEST(StrongReadGroup, AWriteOrderedAfterEveryMemberDropsTheGroup) {
  HubRun run;
  run.r.barrier(0b1111);
  run.at(AccessType::Write, 0, 0, 200);
  run.at(AccessType::Write, 0, 1, 200);
  run.at(AccessType::Write, 1, 0, 300);
  auto &f = run.r.end();
  EXPECT_FALSE(pair(f, 100, 300));
  const Finding *d = pair(f, 200, 300);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->instances, 2u);
}

// Shared memory: the barrier makes the 128 reads dead, the group too, so
// the history goes at warp 3's next read; thread 0's store then races with
// warp 3's 32 reads after the barrier only (the cells and 30 kept: below
// the group threshold again).
TEST(StrongReadGroup, ADeadGroupGoesWithTheDeadHistory) {
  HubRun run(false, StateSpace::Shared);
  run.r.barrier(0b1111);
  for (uint32_t t = 96; t < 128; ++t)
    run.read(0, t);
  run.at(AccessType::Write, 0, 0, 200);
  auto &f = run.r.end();
  ASSERT_EQ(f.size(), 1u);
  const Finding *d = pair(f, 100, 200);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->instances, 32u);
  for (const auto &x : d->instance_list)
    EXPECT_EQ(x.threads[0].warp, 3u);
}

// CTA 0's shared memory history (with its group) is recycled when it ends:
// CTA 2, taking its place, keeps nothing of it at the same offset (its
// atomic at .cta scope would race with CTA 0's reads).
TEST(StrongReadGroup, ARetiredCtasGroupIsNotKept) {
  HubRun run(false, StateSpace::Shared);
  engine::CtaEvent e;
  e.cta = 0;
  run.r.checker->on_cta_end(e);
  run.r.begin_cta(2);
  for (uint32_t t = 0; t < 3; ++t)
    run.read(2, t);
  run.at(AccessType::Atomic, 2, 0, 200, MemOrder::Relaxed, MemScope::Cta);
  EXPECT_TRUE(run.r.end().empty());
}

} // namespace strong_read_group

namespace scattered {
using flag_group::pair;

// Every lane of warp `warp` of CTA `cta` accesses the global word at
// 0x100000 + stride * lane: a stride of 4 bytes is a coalesced access, one
// of 4 KiB puts the lanes far apart (a graph's neighbour words), where the
// checker fetches the lanes' shadow ahead before checking them one by one.
void at(Launch &r, AccessType t, uint64_t cta, uint32_t warp, uint64_t stride,
        uint32_t pc, MemOrder o = MemOrder::Weak, MemScope s = MemScope::None) {
  std::array<uint64_t, 32> addr{};
  for (uint32_t l = 0; l < 32; ++l)
    addr[l] = 0x100000 + stride * l;
  AccessEvent e;
  e.pc = pc;
  e.cta = cta;
  e.owner = cta;
  e.warp = warp;
  e.lanes = ~0u;
  e.space = StateSpace::Global;
  e.type = t;
  e.order = o;
  e.scope = s;
  e.atom = t == AccessType::Atomic ? AtomicOp::Add : AtomicOp::None;
  e.size = 4;
  e.addr = addr.data();
  r.checker->on_access(e);
}

// Three warps' `volatile` reads of each word (the third goes aside), an
// atomic at .gpu scope (morally strong with them), then another warp's
// plain store: far apart or not, the store races with the three reads and
// the atomic of its word, and the atomic with nothing.
TEST(Scattered, FarApartLanesFindWhatCoalescedLanesFind) {
  for (uint64_t stride : {4ull, 4096ull}) {
    Launch r("race", {2, 1, 1});
    at(r, AccessType::Read, 0, 0, stride, 10, MemOrder::Relaxed, MemScope::Sys);
    at(r, AccessType::Read, 1, 0, stride, 10, MemOrder::Relaxed, MemScope::Sys);
    at(r, AccessType::Read, 1, 1, stride, 10, MemOrder::Relaxed, MemScope::Sys);
    at(r, AccessType::Atomic, 0, 2, stride, 20, MemOrder::Relaxed,
       MemScope::Gpu);
    at(r, AccessType::Write, 1, 2, stride, 30);
    auto &f = r.end();
    EXPECT_EQ(f.size(), 2u) << stride;
    EXPECT_FALSE(pair(f, 10, 20));
    const Finding *d = pair(f, 10, 30);
    ASSERT_TRUE(d) << stride;
    EXPECT_EQ(d->kind, FindingKind::DataRace);
    EXPECT_EQ(d->instances, 32u * 3) << stride;
    const Finding *a = pair(f, 20, 30);
    ASSERT_TRUE(a) << stride;
    EXPECT_EQ(a->instances, 32u) << stride;
  }
}

} // namespace scattered

// One thread stores the two halves of a granule with two instructions;
// another thread's unordered read of the first half names the first store.
TEST(Race, AReportNamesTheStoreOfTheBytesNotTheThreadsLatestInTheGranule) {
  Launch r("race", {2, 1, 1});
  std::array<uint64_t, 32> addr{};
  AccessEvent e;
  e.lanes = 1;
  e.space = StateSpace::Global;
  e.type = AccessType::Write;
  e.size = 4;
  e.addr = addr.data();
  addr[0] = 0x100;
  e.pc = 100;
  r.checker->on_access(e);
  addr[0] = 0x104;
  e.pc = 101;
  r.checker->on_access(e);
  addr[0] = 0x100;
  e.type = AccessType::Read;
  e.cta = 1;
  e.pc = 5;
  r.checker->on_access(e);
  auto &f = r.end();
  ASSERT_EQ(f.size(), 1u);
  ASSERT_EQ(f[0].sites.size(), 2u);
  EXPECT_EQ(f[0].sites[0].pc, 100u);
}

// Lanes of one store to one address: the same value is defined, different
// values are an error between lanes of one instruction.
TEST(Race, LanesOfOneStoreWithDifferentValuesRace) {
  for (bool differ : {false, true}) {
    Launch r("race");
    std::array<uint64_t, 32> addr{};
    std::array<uint32_t, 32> values{};
    for (uint32_t l = 0; l < 32; ++l)
      values[l] = differ ? l : 5;
    AccessEvent w;
    w.lanes = ~0u;
    w.space = StateSpace::Shared;
    w.type = AccessType::Write;
    w.size = 4;
    w.addr = addr.data(); // every lane: address 0
    w.values = reinterpret_cast<const uint8_t *>(values.data());
    w.pc = 100;
    r.checker->on_access(w);
    auto &f = r.end();
    if (!differ) {
      EXPECT_TRUE(f.empty());
      continue;
    }
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].kind, FindingKind::IntraWarpRace);
    EXPECT_NE(f[0].diag.message.find("which lane writes last"),
              std::string::npos);
  }
}

TEST(Race, AsyncCopiesAreOrderedByTheirWait) {
  Launch early("race");
  early.async_copy(0);
  early.access(AccessType::Read, 0, 1, 0, 10, true); // before any wait
  auto &f = early.end();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].missing.find("asynchronous copy"), std::string::npos);

  Launch waited("race");
  waited.async_copy(0);
  engine::AsyncWaitEvent wt;
  wt.lanes = 1;
  wt.below = 1; // groups < 1 are complete
  waited.checker->on_async_wait(wt);
  waited.access(AccessType::Read, 0, 1, 0, 10, true);
  waited.barrier(0b1111);
  waited.access(AccessType::Read, 3, 1, 0, 11, true); // through the barrier
  EXPECT_TRUE(waited.end().empty());
}

TEST(Race, MbarrierPhasesOrderArrivalsBeforeSuccessfulWaits) {
  for (bool wait : {false, true}) {
    Launch r("race");
    r.write(0, ~0u, 0);
    engine::MbarEvent a;
    a.warp = 0;
    a.lanes = 1;
    a.object_offset = 512;
    a.order = MemOrder::Release;
    a.scope = MemScope::Cta;
    // All 32 lanes of warp 0 arrive (one event per lane, as the engine).
    for (uint32_t l = 0; l < 32; ++l) {
      a.lanes = 1u << l;
      r.checker->on_mbar_arrive(a);
    }
    engine::MbarEvent pc;
    pc.object_offset = 512;
    r.checker->on_mbar_phase_complete(pc);
    if (wait) {
      engine::MbarEvent d;
      d.warp = 1;
      d.object_offset = 512;
      d.order = MemOrder::Acquire;
      for (uint32_t l = 0; l < 32; ++l) {
        d.lanes = 1u << l;
        r.checker->on_mbar_wait_done(d);
      }
    }
    r.read(1, ~0u, 0);
    EXPECT_EQ(r.end().size(), wait ? 0u : 1u) << "wait=" << wait;
  }
}

TEST(Sync, AFullCtaBarrierThatExitedThreadsNeverReachedIsDivergence) {
  for (const char *checks : {(const char *)"sync", (const char *)nullptr}) {
    Launch r(checks ? checks : "race");
    if (!checks) { // the default checks (no --check): a warning
      r.checker = std::make_unique<Checker>(Checks{});
      r.checker->on_launch_begin(r.view);
      r.begin_cta(0);
    }
    r.exit(3, ~0u);    // warp 3 exits
    r.barrier(0b0111); // __syncthreads of warps 0-2
    auto &f = r.end();
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].kind, FindingKind::BarrierDivergence);
    EXPECT_EQ(f[0].severity, checks ? Severity::Error : Severity::Warning);
    EXPECT_NE(f[0].diag.message.find("divergence"), std::string::npos);
    EXPECT_NE(f[0].diag.message.find("tolerates"), std::string::npos);
  }
}

TEST(Sync, ACountedBarrierWithExitedThreadsIsNoDivergence) {
  Launch r("sync");
  r.exit(3, ~0u);
  r.barrier(0b0011, 1, 64); // bar.sync 1, 64 of warps 0-1
  EXPECT_TRUE(r.end().empty());
}

TEST(Sync, ArrivingOnTheNextPhaseBeforeAnyWaitIsMisuse) {
  Launch r("sync");
  engine::MbarEvent init;
  init.lanes = 1;
  init.object_offset = 8;
  r.checker->on_mbar_init(init);
  engine::MbarEvent a;
  a.lanes = 1;
  a.object_offset = 8;
  a.phase = 0;
  r.checker->on_mbar_arrive(a);
  a.phase = 1; // phase 0 completed; nobody waited for it
  r.checker->on_mbar_arrive(a);
  auto &f = r.end();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::SyncMisuse);
  EXPECT_NE(f[0].diag.message.find("phase 1"), std::string::npos);
}

TEST(Init, ReadsOfUnwrittenSharedAndLocalMemory) {
  Launch r("init");
  r.write(0, ~0u, 0);      // s[0..31]
  r.read(0, ~0u, 0);       // initialized
  r.read(1, ~0u, 128, 12); // s[32..63]: never written
  r.access(AccessType::Read, 0, 1, 8, 13, true, 0, StateSpace::Local);
  auto &f = r.end();
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].kind, FindingKind::UninitializedRead);
  EXPECT_EQ(f[0].instances, 32u);
  EXPECT_EQ(f[1].space, "local");
}

// Shared memory every byte of which was written answers a read at once
// (nothing to report); until then a read of an unwritten word is reported,
// and a CTA's whole memory written by another CTA's writes is not this
// one's.
TEST(Init, SharedMemoryWrittenThroughout) {
  Launch r("init", {2, 1, 1});
  for (uint64_t b = 0; b < 1024; b += 128)
    r.write(0, ~0u, b, 100, 0); // CTA 0: every byte of its 1 KiB
  r.read(1, ~0u, 512, 12, 0);   // written: nothing
  r.write(0, ~0u, 0, 100, 1);   // CTA 1: s[0..31] only
  r.read(1, ~0u, 512, 13, 1);   // never written there
  auto &f = r.end();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::UninitializedRead);
  EXPECT_EQ(f[0].instances, 32u);
  EXPECT_EQ(f[0].sites[0].pc, 13u);
}

// A structure {char; int} copied whole reads its padding word-wise: a
// read that finds part of its bytes written is not reported; one that finds
// none of them written (a 16-byte read whose second half nothing wrote) is.
TEST(Init, ReadingPaddingBesideWrittenBytesIsNotReported) {
  Launch r("init");
  r.access(AccessType::Write, 0, 1, 0, 1, true, 0, StateSpace::Shared,
           MemOrder::Weak, MemScope::None, 1); // the char at byte 0
  r.access(AccessType::Write, 0, 1, 4, 2, true, 0, StateSpace::Shared,
           MemOrder::Weak, MemScope::None, 4); // the int at bytes 4-7
  r.access(AccessType::Read, 0, 1, 0, 3, true, 0, StateSpace::Shared,
           MemOrder::Weak, MemScope::None, 4); // char + 3 padding bytes
  r.access(AccessType::Read, 0, 1, 0, 4, true, 0, StateSpace::Shared,
           MemOrder::Weak, MemScope::None, 8); // the whole record
  r.access(AccessType::Read, 0, 1, 0, 5, true, 0, StateSpace::Shared,
           MemOrder::Weak, MemScope::None, 16); // and 8 bytes nothing wrote
  r.access(AccessType::Read, 0, 1, 8, 6, true, 0, StateSpace::Shared,
           MemOrder::Weak, MemScope::None, 4); // nothing wrote these
  auto &f = r.end();
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].kind, FindingKind::UninitializedRead);
  EXPECT_EQ(f[1].kind, FindingKind::UninitializedRead);
}

TEST(Report, SummaryAndJson) {
  Launch r("race");
  r.write(0, ~0u, 0);
  r.read(1, ~0u, 0);
  r.end();
  EXPECT_EQ(r.checker->error_count(), 1u);
  std::string s = r.checker->summary();
  EXPECT_NE(s.find("1 data-race"), std::string::npos) << s;
  EXPECT_NE(s.find("1 error"), std::string::npos) << s;
  auto j = r.checker->report_json();
  ASSERT_EQ(j["findings"].size(), 1u);
  const auto &f = j["findings"][0];
  EXPECT_EQ(f["kind"], "data-race");
  EXPECT_EQ(f["severity"], "error");
  EXPECT_EQ(f["space"], "shared");
  EXPECT_EQ(f["instances"], 32);
  ASSERT_EQ(f["sites"].size(), 2u);
  EXPECT_EQ(f["sites"][0]["thread"]["warp"], 0);
  EXPECT_EQ(f["sites"][1]["thread"]["warp"], 1);
  EXPECT_EQ(f["sites"][1]["thread"]["tid"][0], 32);
}

namespace async_proxy {

// A bulk copy issued by lane 0 of `warp` that reads `bytes` of shared
// memory at `base` (through the async proxy).
void bulk_read(Launch &r, uint32_t warp, uint64_t base, uint32_t bytes) {
  engine::AsyncIssueEvent is;
  is.warp = warp;
  is.lanes = 1;
  is.async_id = 1;
  is.what = engine::AsyncKind::BulkGroupCopy;
  r.checker->on_async_issue(is);
  std::array<uint64_t, 32> addr{};
  addr[0] = base;
  AccessEvent e;
  e.pc = 200;
  e.warp = warp;
  e.lanes = 1;
  e.space = StateSpace::Shared;
  e.type = AccessType::Read;
  e.origin = AccessOrigin::BulkCopy;
  e.async_id = 1;
  e.size = bytes;
  e.addr = addr.data();
  r.checker->on_access(e);
}

// `fence.proxy.async<space>` by every lane of `warp`.
void proxy_fence(Launch &r, uint32_t warp, const char *space) {
  const uint32_t pc = 500 + warp;
  r.view.texts[pc] = std::string("fence.proxy.async") + space;
  engine::FenceEvent f;
  f.pc = pc;
  f.warp = warp;
  f.lanes = ~0u;
  f.proxy = true;
  r.checker->on_fence(f);
}

TEST(AsyncProxy, GenericWritesReadByABulkCopyNeedTheWritersProxyFence) {
  // Warp 0 writes 128 bytes, a barrier hands them to warp 1, whose lane 0
  // stores them with a bulk copy.
  Launch bare("race");
  bare.write(0, ~0u, 0);
  bare.barrier(0b11);
  bulk_read(bare, 1, 0, 128);
  auto &f = bare.end();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::ProxyFence);
  EXPECT_EQ(name_of(f[0].kind), "proxy-fence");
  EXPECT_NE(f[0].diag.message.find("fence.proxy.async"), std::string::npos);

  Launch fenced("race");
  fenced.write(0, ~0u, 0);
  proxy_fence(fenced, 0, ".shared::cta");
  fenced.barrier(0b11);
  bulk_read(fenced, 1, 0, 128);
  EXPECT_TRUE(fenced.end().empty());

  // A fence for global memory only, or by the issuing thread, does not
  // order the writer's shared-memory stores.
  Launch global("race");
  global.write(0, ~0u, 0);
  proxy_fence(global, 0, ".global");
  global.barrier(0b11);
  proxy_fence(global, 1, "");
  bulk_read(global, 1, 0, 128);
  global.end();
  EXPECT_EQ(global.count(FindingKind::ProxyFence), 1u);

  // A write after the fence needs another one.
  Launch later("race");
  later.write(0, ~0u, 0);
  proxy_fence(later, 0, "");
  later.write(0, 1, 0, 101);
  later.barrier(0b11);
  bulk_read(later, 1, 0, 128);
  auto &g = later.end();
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].instances, 1u);

  // The check can be suppressed by its kind.
  Launch off("race,-proxy-fence");
  off.write(0, ~0u, 0);
  off.barrier(0b11);
  bulk_read(off, 1, 0, 128);
  EXPECT_TRUE(off.end().empty());
}

// mbarrier events of one object (offset 512) by thread 0.
engine::MbarEvent mbar(uint64_t phase, int64_t tx, uint64_t async_id = 0) {
  engine::MbarEvent e;
  e.lanes = 1;
  e.object_offset = 512;
  e.phase = phase;
  e.tx = tx;
  e.async_id = async_id;
  return e;
}

void copy_issue(Launch &r, uint64_t id) {
  engine::AsyncIssueEvent is;
  is.pc = 300;
  is.lanes = 1;
  is.async_id = id;
  is.what = engine::AsyncKind::BulkMbarrierTx;
  r.checker->on_async_issue(is);
}

TEST(AsyncProxy, APhaseThatNeverCompletesNamesItsTransactionBytes) {
  for (int64_t announced : {2048, 512}) {
    Launch r("sync");
    auto a = mbar(0, announced);
    a.count = 1;
    r.checker->on_mbar_arrive(a); // arrive.expect_tx
    copy_issue(r, 1);
    auto c = mbar(0, 1024, 1);
    c.pc = 300;
    r.checker->on_mbar_complete_tx(c);
    auto &f = r.end();
    ASSERT_EQ(f.size(), 1u) << announced;
    EXPECT_EQ(f[0].kind, FindingKind::SyncMisuse);
    EXPECT_NE(f[0].diag.message.find("announced " + std::to_string(announced) +
                                     " bytes, the copies completed 1024"),
              std::string::npos)
        << f[0].diag.message;
    EXPECT_NE(f[0].diag.message.find(announced > 1024 ? "no copy will"
                                                      : "below zero"),
              std::string::npos);
  }
  // Balanced: nothing, even when the phase is still incomplete at the end.
  Launch ok("sync");
  ok.checker->on_mbar_arrive(mbar(0, 1024));
  copy_issue(ok, 1);
  ok.checker->on_mbar_complete_tx(mbar(0, 1024, 1));
  EXPECT_TRUE(ok.end().empty());
}

TEST(AsyncProxy, ACopyCompletingInALaterPhaseMeansTooFewBytesAnnounced) {
  Launch r("sync");
  r.checker->on_mbar_arrive(mbar(0, 512));
  copy_issue(r, 1);
  copy_issue(r, 2);
  r.checker->on_mbar_complete_tx(mbar(0, 512, 1));
  r.checker->on_mbar_phase_complete(mbar(0, 0));
  auto late = mbar(1, 512, 2);
  late.pc = 300;
  r.checker->on_mbar_complete_tx(late);
  auto &f = r.end();
  ASSERT_EQ(f.size(), 1u); // phase 1's imbalance is this one's consequence
  EXPECT_EQ(f[0].kind, FindingKind::SyncMisuse);
  EXPECT_NE(f[0].diag.message.find("issued in phase 0"), std::string::npos);
  EXPECT_NE(f[0].diag.message.find("expect_tx announced 512 bytes for it"),
            std::string::npos)
      << f[0].diag.message;
}

} // namespace async_proxy

// Line records (docs/checker.md "Shadow memory"): a warp's plain coalesced
// access to an untouched 128-byte line of global memory is one record,
// expanded into the line's granules when anything else touches its page.
// Each case runs twice: as is, and with its pages touched first by a read
// of their last word by a thread of CTA 3 (no record can be made there:
// the per-lane path), with the same findings both times.
namespace line_records {

constexpr uint64_t kBase = 0x10000; // page-aligned; lines 0x10000, 0x10080..

struct GlobalRun {
  Launch r{"race", {4, 1, 1}};
  bool touched;
  explicit GlobalRun(bool t) : touched(t) {
    if (touched)
      for (uint64_t page = kBase; page < kBase + 3 * 4096; page += 4096)
        access(AccessType::Read, 3, 0, 1, page + 4092, 1, 4);
  }
  // Lanes `lanes` of warp `warp` of CTA `cta`: lane l at base + size * l
  // (or every lane at `base` when `stride` is 0), storing value + l.
  void access(AccessType t, uint64_t cta, uint32_t warp, uint32_t lanes,
              uint64_t base, uint32_t pc, uint32_t size, uint64_t value = 0,
              uint32_t stride = ~0u, MemOrder order = MemOrder::Weak) {
    std::array<uint64_t, 32> addr{}, vals{};
    for (uint32_t l = 0; l < 32; ++l) {
      addr[l] = base + uint64_t(stride == ~0u ? size : stride) * l;
      vals[l] = value + l;
    }
    std::array<uint8_t, 32 * 8> bytes{};
    for (uint32_t l = 0; l < 32; ++l)
      std::memcpy(bytes.data() + l * size, &vals[l], size);
    AccessEvent e;
    e.pc = pc;
    e.cta = cta;
    e.warp = warp;
    e.lanes = lanes;
    e.space = StateSpace::Global;
    e.type = t;
    e.order = order;
    e.scope = order == MemOrder::Weak ? MemScope::None : MemScope::Gpu;
    e.atom = t == AccessType::Atomic ? AtomicOp::Add : AtomicOp::None;
    e.size = size;
    e.addr = addr.data();
    if (t == AccessType::Write)
      e.values = bytes.data();
    r.checker->on_access(e);
  }
  const std::vector<Finding> &end() { return r.end(); }
};

// Findings as text: the kind, the instances and each instance's threads.
std::string render(const std::vector<Finding> &fs) {
  std::string s;
  for (const Finding &f : fs) {
    s += f.text + " x" + std::to_string(f.instances) + "\n";
    for (const auto &i : f.instance_list) {
      for (uint32_t pc : i.pcs)
        s += " pc" + std::to_string(pc);
      for (const ThreadRef &t : i.threads)
        s += " t" + std::to_string(t.cta_linear) + "." +
             std::to_string(t.warp) + "." + std::to_string(t.lane);
      s += " @" + std::to_string(i.address) + "\n";
    }
  }
  return s;
}

// Runs `body` as is and with its pages touched first; the same findings
// both times, which `check` then examines.
template <class Body, class Check> void both(Body body, Check check) {
  std::string first;
  for (bool touched : {false, true}) {
    GlobalRun run(touched);
    body(run);
    const auto &f = run.end();
    check(f);
    if (!touched)
      first = render(f);
    else
      EXPECT_EQ(render(f), first);
  }
}

const Finding::Instance &only(const std::vector<Finding> &f) {
  static const Finding::Instance none;
  if (f.size() != 1 || f[0].instance_list.size() != 1) {
    ADD_FAILURE() << render(f);
    return none;
  }
  return f[0].instance_list[0];
}

TEST(LineRecords, AnotherThreadsStoreOfADifferentValueIsAnError) {
  both(
      [](GlobalRun &r) {
        r.access(AccessType::Write, 0, 0, ~0u, kBase, 100, 4, 1000);
        // Lane 5's word: 1005 before.
        r.access(AccessType::Write, 1, 0, 1, kBase + 20, 101, 4, 7);
      },
      [](const std::vector<Finding> &f) {
        const auto &i = only(f);
        ASSERT_EQ(f[0].kind, FindingKind::DataRace);
        EXPECT_NE(f[0].diag.message.find("different values"),
                  std::string::npos);
        ASSERT_EQ(i.pcs.size(), 2u);
        EXPECT_EQ(i.pcs[0], 100u);
        EXPECT_EQ(i.threads[0].cta_linear, 0u);
        EXPECT_EQ(i.threads[0].lane, 5u);
        EXPECT_EQ(i.threads[1].cta_linear, 1u);
        EXPECT_EQ(i.address, kBase + 20);
      });
}

TEST(LineRecords, AnotherThreadsStoreOfTheSameValueIsABenignRace) {
  both(
      [](GlobalRun &r) {
        r.access(AccessType::Write, 0, 0, ~0u, kBase, 100, 4, 1000);
        r.access(AccessType::Write, 1, 0, 1, kBase + 20, 101, 4, 1005);
        // Lane 6's word with lane 7's value.
        r.access(AccessType::Write, 2, 0, 1, kBase + 24, 102, 4, 1007);
      },
      [](const std::vector<Finding> &f) {
        ASSERT_EQ(f.size(), 2u) << render(f);
        EXPECT_EQ(f[0].kind, FindingKind::BenignRace);
        EXPECT_EQ(f[0].instance_list[0].threads[0].lane, 5u);
        EXPECT_EQ(f[1].kind, FindingKind::DataRace);
        EXPECT_EQ(f[1].instance_list[0].threads[0].lane, 6u);
      });
}

TEST(LineRecords, AReadByAnotherWarpWithoutSyncRaces) {
  both(
      [](GlobalRun &r) {
        r.access(AccessType::Write, 0, 0, ~0u, kBase, 100, 4, 1);
        r.access(AccessType::Read, 0, 1, ~0u, kBase, 10, 4);
      },
      [](const std::vector<Finding> &f) {
        ASSERT_EQ(f.size(), 1u) << render(f);
        EXPECT_EQ(f[0].kind, FindingKind::DataRace);
        EXPECT_EQ(f[0].instances, 32u);
        EXPECT_NE(f[0].diag.message.find("read-after-write"),
                  std::string::npos);
      });
}

// 8 bytes per lane: a whole warp covers two lines, 16 lanes each.
TEST(LineRecords, EightByteLanesCoverTwoLines) {
  both(
      [](GlobalRun &r) {
        r.access(AccessType::Write, 0, 0, ~0u, kBase, 100, 8, 1000);
        r.access(AccessType::Write, 1, 0, 1, kBase + 8 * 20, 101, 8, 1020);
        r.access(AccessType::Read, 2, 0, 1, kBase + 8 * 3 + 4, 11, 4);
      },
      [](const std::vector<Finding> &f) {
        ASSERT_EQ(f.size(), 2u) << render(f);
        EXPECT_EQ(f[0].kind, FindingKind::BenignRace);
        EXPECT_EQ(f[0].instance_list[0].threads[0].lane, 20u);
        EXPECT_EQ(f[1].kind, FindingKind::DataRace);
        EXPECT_EQ(f[1].instance_list[0].threads[0].lane, 3u);
        EXPECT_EQ(f[1].instance_list[0].address, kBase + 28);
      });
}

// Lanes starting mid-line: half a line each in two lines; the bytes of the
// first line before them stay untouched.
TEST(LineRecords, PartialLines) {
  both(
      [](GlobalRun &r) {
        r.access(AccessType::Write, 0, 0, ~0u, kBase + 64, 100, 4, 1000);
        // Before them: no race, until the read below.
        r.access(AccessType::Write, 1, 0, 1, kBase + 60, 101, 4, 5);
        r.access(AccessType::Write, 1, 1, 1, kBase + 128 + 4 * 4, 102, 4, 5);
        // Another warp's whole line over both halves.
        r.access(AccessType::Read, 2, 0, ~0u, kBase, 12, 4);
        // Lanes 1-2 of a warp, another layout of the same lines.
        r.access(AccessType::Write, 2, 1, 6, kBase + 128 + 8, 103, 4, 1018);
      },
      [](const std::vector<Finding> &f) {
        ASSERT_EQ(f.size(), 5u) << render(f);
        // CTA 1 warp 1 against lane 20 (word 4 of the second line).
        bool lane20 = false, reads = false, same = false, before = false;
        for (const Finding &x : f)
          for (const auto &i : x.instance_list) {
            lane20 |=
                i.threads[0].lane == 20 && i.pcs[0] == 100 && i.pcs[1] == 102;
            reads |= i.pcs[0] == 100 && i.pcs[1] == 12;
            same |= x.kind == FindingKind::BenignRace && i.pcs[1] == 103;
            before |=
                i.pcs[0] == 101 && i.pcs[1] == 12 && i.address == kBase + 60;
          }
        EXPECT_TRUE(lane20 && reads && same && before) << render(f);
      });
}

TEST(LineRecords, AnAtomicAfterARecordedAccess) {
  both(
      [](GlobalRun &r) {
        r.access(AccessType::Write, 0, 0, ~0u, kBase, 100, 4, 1);
        r.access(AccessType::Atomic, 1, 0, 1, kBase + 36, 50, 4, 0, ~0u,
                 MemOrder::Relaxed);
        r.access(AccessType::Read, 0, 0, ~0u, kBase + 128, 10, 4);
        r.access(AccessType::Atomic, 1, 0, 1, kBase + 128, 51, 4, 0, ~0u,
                 MemOrder::Relaxed);
      },
      [](const std::vector<Finding> &f) {
        ASSERT_EQ(f.size(), 2u) << render(f);
        EXPECT_EQ(f[0].instance_list[0].threads[0].lane, 9u);
        EXPECT_EQ(f[0].instance_list[0].pcs[1], 50u);
        EXPECT_EQ(f[1].instance_list[0].pcs[0], 10u); // the read, lane 0
        EXPECT_EQ(f[1].instance_list[0].pcs[1], 51u);
      });
}

// A line touched first by another layout takes no record; a later
// coalesced access there is checked as before.
TEST(LineRecords, ALineTouchedFirstByAnotherLayout) {
  both(
      [](GlobalRun &r) {
        // Every other word (lane l at 8 l): two lines, a granule per lane.
        r.access(AccessType::Write, 0, 0, ~0u, kBase, 100, 4, 1000, 8);
        r.access(AccessType::Write, 1, 0, ~0u, kBase + 4, 101, 4, 0, 8);
        r.access(AccessType::Read, 2, 0, ~0u, kBase, 12, 4);
      },
      [](const std::vector<Finding> &f) {
        ASSERT_EQ(f.size(), 2u) << render(f);
        EXPECT_EQ(f[0].instances + f[1].instances, 32u); // 16 words each
      });
}

// A warp's load then store of its own words (y = a * x + y): one record
// of the store; later reports name the store, with its bytes.
TEST(LineRecords, AWarpsLoadThenStoreOfTheSameWords) {
  both(
      [](GlobalRun &r) {
        r.access(AccessType::Read, 0, 0, ~0u, kBase, 10, 4);
        r.access(AccessType::Write, 0, 0, ~0u, kBase, 100, 4, 1000);
        r.access(AccessType::Read, 0, 0, ~0u, kBase, 11, 4); // keeps the store
        r.access(AccessType::Write, 1, 0, 1, kBase + 8, 101, 4, 1002);
        r.access(AccessType::Read, 0, 0, ~0u, kBase + 128, 13, 4);
        r.access(AccessType::Read, 0, 0, ~0u, kBase + 128, 14, 4); // merged
        r.access(AccessType::Write, 1, 0, 1, kBase + 132, 102, 4, 5);
      },
      [](const std::vector<Finding> &f) {
        ASSERT_EQ(f.size(), 3u) << render(f);
        bool benign = false, read = false, write_read = false;
        for (const Finding &x : f)
          for (const auto &i : x.instance_list) {
            benign |= x.kind == FindingKind::BenignRace && i.pcs[0] == 100 &&
                      i.threads[0].lane == 2;
            read |= i.pcs[0] == 11 && i.pcs[1] == 101;
            write_read |=
                i.pcs[0] == 14 && i.pcs[1] == 102 && i.threads[0].lane == 1;
          }
        EXPECT_TRUE(benign && read && write_read) << render(f);
      });
}

// A stream of records: a fraction of the 7x of granules.
TEST(LineRecords, RecordsTakeLessShadowThanGranules) {
  Launch r("race");
  std::array<uint64_t, 32> addr{};
  std::array<uint32_t, 32> values{};
  AccessEvent e;
  e.lanes = ~0u;
  e.space = StateSpace::Global;
  e.size = 4;
  e.addr = addr.data();
  constexpr uint64_t kBytes = 1 << 20;
  for (uint64_t b = 0; b < kBytes; b += 128) {
    for (uint32_t l = 0; l < 32; ++l)
      addr[l] = 0x1000000 + b + 4 * l;
    e.type = AccessType::Read;
    e.values = nullptr;
    r.checker->on_access(e);
    e.type = AccessType::Write;
    e.values = reinterpret_cast<const uint8_t *>(values.data());
    r.checker->on_access(e);
  }
  EXPECT_TRUE(r.end().empty());
  EXPECT_LT(r.checker->shadow_bytes(), kBytes * 2);
  EXPECT_GT(r.checker->shadow_bytes(), kBytes);
}

} // namespace line_records

// Read entries of word pairs (docs/checker.md "Read entries"): a warp's
// coalesced load of words in global memory, lanes 2j and 2j + 1 reading
// one granule, is one entry per granule. Each case runs twice: the warp's
// load as one event (entries) and lane by lane, one event per lane (lane
// cells), with the same findings both times.
namespace word_pairs {

constexpr uint64_t kA = 0x20000; // a 128-word-wide matrix of words

// Warp `warp` of CTA `cta` reads two rows of a 16-word tile (lanes 0-15
// row 0, lanes 16-31 row 1, 512 bytes on: A[row * n + t + tx] of a tiled
// matrix product): no line record (two rows), one pair of lanes per
// granule.
void read_rows(Launch &r, uint64_t cta, uint32_t warp, bool split) {
  std::array<uint64_t, 32> addr{};
  for (uint32_t l = 0; l < 32; ++l)
    addr[l] = kA + (l / 16) * 512 + 4 * (l % 16);
  AccessEvent e;
  e.pc = 10;
  e.cta = cta;
  e.owner = cta;
  e.warp = warp;
  e.space = StateSpace::Global;
  e.type = AccessType::Read;
  e.size = 4;
  e.addr = addr.data();
  for (uint32_t l = 0; l < 32; ++l)
    if (split || l == 0) {
      e.lanes = split ? 1u << l : ~0u;
      r.checker->on_access(e);
    }
}

// Runs `body` with the accesses as one event and lane by lane (in a grid
// of `grid` CTAs); the same findings both times, which `check` then
// examines.
template <class Body, class Check>
void both(Body body, Check check, uint32_t grid = 4) {
  std::string first;
  for (bool split : {false, true}) {
    Launch r("race", {grid, 1, 1});
    body(r, split);
    const auto &f = r.end();
    check(f);
    if (!split)
      first = line_records::render(f);
    else
      EXPECT_EQ(line_records::render(f), first);
  }
}

// Seeds 1 to 300: `steps(r, rnd, split)` makes a run of accesses from the
// seed's fixed sequence `rnd(n)` (0 to n - 1), as one event per warp and
// lane by lane (`split`); the two give the same findings.
template <class Steps> void random_runs(Steps steps) {
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    std::string out[2];
    for (bool split : {false, true}) {
      Launch r("race");
      uint32_t x = seed;
      auto rnd = [&x](uint32_t n) {
        x = x * 1103515245u + 12345u;
        return (x >> 16) % n;
      };
      steps(r, rnd, split);
      out[split] = line_records::render(r.end());
    }
    EXPECT_EQ(out[0], out[1]) << "seed " << seed;
  }
}

// The check of a write after the readers' barrier (`bar`: no finding) or
// without it: one race of `instances` instances, the first naming `lane`.
auto race_unless_barrier(bool bar, uint32_t instances, uint32_t lane) {
  return [=](const std::vector<Finding> &f) {
    if (bar) {
      EXPECT_TRUE(f.empty()) << line_records::render(f);
      return;
    }
    ASSERT_EQ(f.size(), 1u) << line_records::render(f);
    EXPECT_EQ(f[0].instances, instances);
    EXPECT_EQ(f[0].instance_list[0].threads[0].lane, lane);
  };
}

// Three CTAs read the tile (the entries of two go into the history), then
// a thread of a fourth writes the words of lanes 5 and 6 (row 0): each
// CTA's two reads race with it.
TEST(WordPairs, AWriteOfAnotherCtaRacesWithEveryCtasReads) {
  both(
      [](Launch &r, bool split) {
        for (uint64_t cta = 0; cta < 3; ++cta)
          read_rows(r, cta, 0, split);
        r.access(AccessType::Write, 1, 0b11, kA + 20, 100, false, 3,
                 StateSpace::Global);
      },
      [](const std::vector<Finding> &f) {
        ASSERT_EQ(f.size(), 1u) << line_records::render(f);
        EXPECT_EQ(f[0].kind, FindingKind::DataRace);
        EXPECT_EQ(f[0].instances, 6u);
        EXPECT_EQ(f[0].instance_list[0].threads[0].lane, 5u);
        EXPECT_EQ(f[0].instance_list[0].pcs[0], 10u);
        EXPECT_EQ(f[0].instance_list[0].pcs[1], 100u);
      });
}

// Three warps of one CTA read the tile, then a fourth writes the words of
// lanes 16 and 17 (row 1): without a barrier each warp's two reads race
// with it; after a barrier of the four warps nothing does.
TEST(WordPairs, AWriteAfterABarrierOfTheReadersDoesNotRace) {
  for (bool bar : {false, true})
    both(
        [bar](Launch &r, bool split) {
          for (uint32_t w = 0; w < 3; ++w)
            read_rows(r, 0, w, split);
          if (bar)
            r.barrier(0b1111);
          r.access(AccessType::Write, 3, 0b11, kA + 512, 100, false, 0,
                   StateSpace::Global);
        },
        race_unless_barrier(bar, 6, 16));
}

// A lane of the entry writes its own word afterwards: not a race with its
// own read; the other CTAs' reads of it are.
TEST(WordPairs, ALanesOwnReadDoesNotRaceWithItsWrite) {
  both(
      [](Launch &r, bool split) {
        for (uint64_t cta = 0; cta < 2; ++cta)
          read_rows(r, cta, 0, split);
        r.access(AccessType::Write, 0, 1u << 3, kA, 100, false, 1,
                 StateSpace::Global); // lane 3 of CTA 1: word 3
      },
      [](const std::vector<Finding> &f) {
        ASSERT_EQ(f.size(), 1u) << line_records::render(f);
        EXPECT_EQ(f[0].instances, 1u);
        EXPECT_EQ(f[0].instance_list[0].threads[0].cta_linear, 0u);
        EXPECT_EQ(f[0].instance_list[0].threads[0].lane, 3u);
      });
}

// A warp's loads of its neighbours' words (`v = a[t + 1]`, docs/checker.md
// "Read entries"): lanes 2j + 1 and 2j + 2 reading one granule are one read
// entry of it, lanes 0 and 31 are checked alone. The same runs with each
// lane's load an event of its own give the same findings.
void read_neighbours(Launch &r, uint64_t cta, uint32_t warp, bool split) {
  std::array<uint64_t, 32> addr{};
  for (uint32_t l = 0; l < 32; ++l)
    addr[l] = kA + 4 * (l + 1);
  AccessEvent e;
  e.pc = 10;
  e.cta = cta;
  e.owner = cta;
  e.warp = warp;
  e.space = StateSpace::Global;
  e.type = AccessType::Read;
  e.size = 4;
  e.addr = addr.data();
  for (uint32_t l = 0; l < 32; ++l)
    if (split || l == 0) {
      e.lanes = split ? 1u << l : ~0u;
      r.checker->on_access(e);
    }
}

// Three CTAs load their neighbours' words, then a thread of a fourth
// writes the words of lanes 5 and 6 (one entry per CTA, two in the
// history), another lane 0's word (read alone): every CTA's reads of them
// race with the writes.
TEST(ShiftedPairs, AWriteOfAnotherCtaRacesWithEveryCtasReads) {
  both(
      [](Launch &r, bool split) {
        for (uint64_t cta = 0; cta < 3; ++cta)
          read_neighbours(r, cta, 0, split);
        r.access(AccessType::Write, 1, 0b11, kA + 24, 100, false, 3,
                 StateSpace::Global);
        r.access(AccessType::Write, 2, 0b1, kA + 4, 101, false, 3,
                 StateSpace::Global);
      },
      [](const std::vector<Finding> &f) {
        ASSERT_EQ(f.size(), 2u) << line_records::render(f);
        EXPECT_EQ(f[0].kind, FindingKind::DataRace);
        EXPECT_EQ(f[0].instances, 6u);
        EXPECT_EQ(f[0].instance_list[0].threads[0].lane, 5u);
        EXPECT_EQ(f[0].instance_list[0].pcs[0], 10u);
        EXPECT_EQ(f[0].instance_list[0].pcs[1], 100u);
        EXPECT_EQ(f[1].instances, 3u);
        EXPECT_EQ(f[1].instance_list[0].threads[0].lane, 0u);
        EXPECT_EQ(f[1].instance_list[0].pcs[1], 101u);
      });
}

// The words the warp then loads, stored by its lanes (a[t + 1]) and
// ordered before the loads by a barrier of warps 0 and 1 (not fresh memory:
// no line records).
void store_neighbours(Launch &r) {
  r.access(AccessType::Write, 0, ~0u, kA + 4, 5, false, 0, StateSpace::Global);
  r.barrier(0b11);
}

// One warp loads its neighbours' words, then another writes the words of
// lanes 5 and 6: both race without a barrier, nothing after a barrier of
// the two warps.
TEST(ShiftedPairs, AWriteAfterABarrierOfTheReadersDoesNotRace) {
  for (bool bar : {false, true})
    both(
        [bar](Launch &r, bool split) {
          store_neighbours(r);
          read_neighbours(r, 0, 0, split);
          if (bar)
            r.barrier(0b11);
          r.access(AccessType::Write, 1, 0b11, kA + 24, 100, false, 0,
                   StateSpace::Global);
        },
        race_unless_barrier(bar, 2, 5));
}

// Lane 5 writes the word it loaded: not a race; lane 6 then writes the same
// word, which lane 5 loaded in the entry with lane 6's own load: a race.
TEST(ShiftedPairs, ALanesOwnReadDoesNotRaceWithItsWrite) {
  both(
      [](Launch &r, bool split) {
        store_neighbours(r);
        read_neighbours(r, 0, 0, split);
        r.access(AccessType::Write, 0, 1u << 5, kA + 4, 100, false, 0,
                 StateSpace::Global); // lane 5: kA + 24
        r.access(AccessType::Write, 0, 1u << 6, kA, 101, false, 0,
                 StateSpace::Global); // lane 6: kA + 24
      },
      [](const std::vector<Finding> &f) {
        ASSERT_EQ(f.size(), 1u) << line_records::render(f);
        EXPECT_EQ(f[0].instances, 1u);
        EXPECT_EQ(f[0].instance_list[0].pcs[1], 101u);
      });
}

// Stores of word pairs over dead records (docs/checker.md "Records that can
// never race again"): a warp's word stores to shared memory, lanes 2j and
// 2j + 1 in one granule whose records are all dead, are recorded per
// granule at once. The same runs with each lane's store an event of its
// own (lane by lane) give the same findings.
void store(Launch &r, uint32_t warp, uint32_t lanes, uint32_t pc,
           uint32_t value, bool split) {
  std::array<uint64_t, 32> addr{};
  std::array<uint32_t, 32> vals{};
  for (uint32_t l = 0; l < 32; ++l) {
    addr[l] = 4ull * l;
    vals[l] = value + l;
  }
  AccessEvent e;
  e.pc = pc;
  e.warp = warp;
  e.space = StateSpace::Shared;
  e.type = AccessType::Write;
  e.size = 4;
  e.addr = addr.data();
  e.values = reinterpret_cast<const uint8_t *>(vals.data());
  for (uint32_t l = 0; l < 32; ++l)
    if (lanes >> l & 1 && (split || l == uint32_t(std::countr_zero(lanes)))) {
      e.lanes = split ? 1u << l : lanes;
      r.checker->on_access(e);
    }
}

// A tile written, read by every warp after a barrier of the CTA, written
// again after the next: the rewrite races with nothing (every record
// before it is dead), and a read of another warp without a barrier races
// with the rewrite, as does another warp's store of other values (which
// races with that read too).
TEST(StorePairs, ATileRewrittenOverDeadRecordsRacesWithLaterAccesses) {
  both(
      [](Launch &r, bool split) {
        store(r, 0, ~0u, 100, 1000, split);
        r.barrier(0b1111);
        for (uint32_t w = 0; w < 4; ++w)
          r.read_row(w, 0);
        r.read(1, ~0u, 0, 11);
        r.barrier(0b1111);
        store(r, 2, ~0u, 101, 2000, split);
        r.read(3, 0xff, 0, 12);
        store(r, 1, 0b1100, 102, 3000, split);
      },
      [](const std::vector<Finding> &f) {
        ASSERT_EQ(f.size(), 3u) << line_records::render(f);
        EXPECT_EQ(f[0].instances, 8u); // warp 3's read of words 0-7
        EXPECT_EQ(f[0].instance_list[0].pcs[0], 101u);
        EXPECT_EQ(f[0].instance_list[0].pcs[1], 12u);
        EXPECT_EQ(f[1].instances, 2u); // words 2, 3 written by two warps
        EXPECT_EQ(f[1].instance_list[0].pcs[0], 101u);
        EXPECT_EQ(f[1].instance_list[0].pcs[1], 102u);
        EXPECT_NE(f[1].diag.message.find("different values"),
                  std::string::npos);
        EXPECT_EQ(f[2].instances, 2u); // and read by warp 3 before
        EXPECT_EQ(f[2].instance_list[0].pcs[0], 12u);
        EXPECT_EQ(f[2].instance_list[0].pcs[1], 102u);
      },
      1);
}

// After a barrier of some warps only, the reads of the warp that did not
// take part are not dead: the rewrite races with them.
TEST(StorePairs, AReadOutsideTheBarrierStillRacesWithTheRewrite) {
  for (uint32_t warps : {0b1111u, 0b0111u})
    both(
        [warps](Launch &r, bool split) {
          store(r, 0, ~0u, 100, 1000, split);
          r.barrier(0b1111);
          for (uint32_t w = 0; w < 4; ++w)
            r.read_row(w, 0);
          r.barrier(warps);
          store(r, 2, ~0u, 101, 2000, split);
        },
        [warps](const std::vector<Finding> &f) {
          if (warps == 0b1111u) {
            EXPECT_TRUE(f.empty()) << line_records::render(f);
            return;
          }
          ASSERT_EQ(f.size(), 1u) << line_records::render(f);
          EXPECT_EQ(f[0].instances, 32u); // warp 3's lanes, 16 words
          EXPECT_EQ(f[0].instance_list[0].threads[0].warp, 3u);
        },
        1);
}

// Random runs of word stores, tile reads, barriers of the CTA or of some
// warps and single-lane stores (a fixed sequence per seed): the stores in
// one event per warp and lane by lane give the same findings.
TEST(StorePairs, RandomRunsDecideAsLaneByLane) {
  random_runs([](Launch &r, auto &rnd, bool split) {
    for (int step = 0; step < 40; ++step) {
      const uint32_t w = rnd(4);
      switch (rnd(7)) {
      case 0:
      case 1: { // word stores by pairs of lanes, or the whole warp
        uint32_t lanes = ~0u;
        if (rnd(2))
          for (uint32_t j = 0; j < 32; j += 2)
            if (!rnd(4))
              lanes &= ~(3u << j);
        if (lanes)
          store(r, w, lanes, 100 + rnd(2), 1000 * rnd(2), split);
        break;
      }
      case 2:
        r.read_row(w, 64 * rnd(2), 10 + rnd(2));
        break;
      case 3:
        r.read(w, rnd(2) ? ~0u : 0xffffu << (16 * rnd(2)), 0, 12);
        break;
      case 4:
        r.barrier(rnd(4) ? 0b1111 : 0b0111);
        break;
      case 5:
        r.access(AccessType::Read, w, 1u << rnd(32), 4 * rnd(32), 13, true);
        break;
      case 6:
        r.access(AccessType::Write, w, 1u << rnd(32), 4 * rnd(32), 103, true);
        break;
      }
    }
  });
}

// Loads of word pairs from granules of dead records, and the stores of
// the same lanes over their own reads (docs/checker.md "Records that can
// never race again"): lanes 2j and 2j + 1 of a warp load (or store) the
// words at base + 4 * lane, as one event or lane by lane.
void pairs(Launch &r, AccessType t, uint32_t warp, uint32_t lanes,
           uint64_t base, uint32_t pc, uint32_t value, bool split) {
  std::array<uint64_t, 32> addr{};
  std::array<uint32_t, 32> vals{};
  for (uint32_t l = 0; l < 32; ++l) {
    addr[l] = base + 4ull * l;
    vals[l] = value + l;
  }
  AccessEvent e;
  e.pc = pc;
  e.warp = warp;
  e.space = StateSpace::Shared;
  e.type = t;
  e.size = 4;
  e.addr = addr.data();
  e.values = t == AccessType::Write
                 ? reinterpret_cast<const uint8_t *>(vals.data())
                 : nullptr;
  for (uint32_t l = 0; l < 32; ++l)
    if (lanes >> l & 1 && (split || l == uint32_t(std::countr_zero(lanes)))) {
      e.lanes = split ? 1u << l : lanes;
      r.checker->on_access(e);
    }
}

// `s[t] += s[t + stride]` by warp `w` (words of 4 bytes, t = 32 w + lane).
void reduce_round(Launch &r, uint32_t w, uint32_t stride, bool split) {
  pairs(r, AccessType::Read, w, ~0u, 128ull * w, 20, 0, split);
  pairs(r, AccessType::Read, w, ~0u, 128ull * w + 4 * stride, 21, 0, split);
  pairs(r, AccessType::Write, w, ~0u, 128ull * w, 120, 1000 * stride, split);
}

// A block reduction's rounds (128 words, strides 64 and 32) race with
// nothing; another warp's store without a barrier races with the loads of
// the last round, the even lane's (kept aside) and the odd lane's (in a
// cell), and another warp's load with its stores.
TEST(LoadPairs, AReductionsRoundsRaceOnlyWithUnorderedAccesses) {
  both(
      [](Launch &r, bool split) {
        for (uint32_t w = 0; w < 4; ++w)
          pairs(r, AccessType::Write, w, ~0u, 128ull * w, 110, 0, split);
        r.barrier(0b1111);
        for (uint32_t w = 0; w < 2; ++w)
          reduce_round(r, w, 64, split);
        r.barrier(0b1111);
        reduce_round(r, 0, 32, split);
        r.access(AccessType::Write, 3, 0b11u << 8, 128, 130); // words 40, 41
        r.read(2, 1u << 5, 0, 30);                            // word 5
      },
      [](const std::vector<Finding> &f) {
        ASSERT_EQ(f.size(), 2u) << line_records::render(f);
        EXPECT_EQ(f[0].instances, 2u); // lanes 8 and 9 of warp 0
        EXPECT_EQ(f[0].instance_list[0].pcs[0], 21u);
        EXPECT_EQ(f[0].instance_list[0].pcs[1], 130u);
        EXPECT_EQ(f[0].instance_list[0].threads[0].lane, 8u);
        EXPECT_EQ(f[1].instances, 1u); // warp 0's store of word 5
        EXPECT_EQ(f[1].instance_list[0].pcs[0], 120u);
        EXPECT_EQ(f[1].instance_list[0].pcs[1], 30u);
        EXPECT_EQ(f[1].instance_list[0].threads[0].lane, 5u);
      },
      1);
  // Without the barrier between the rounds, warp 1's stores race with
  // warp 0's loads of its words, and warp 0's stores with warp 1's loads.
  both(
      [](Launch &r, bool split) {
        for (uint32_t w = 0; w < 4; ++w)
          pairs(r, AccessType::Write, w, ~0u, 128ull * w, 110, 0, split);
        r.barrier(0b1111);
        reduce_round(r, 1, 64, split);
        reduce_round(r, 0, 32, split);
      },
      [](const std::vector<Finding> &f) {
        ASSERT_EQ(f.size(), 1u) << line_records::render(f);
        EXPECT_EQ(f[0].instances, 32u); // warp 1's 32 words
        EXPECT_EQ(f[0].instance_list[0].pcs[0], 120u);
        EXPECT_EQ(f[0].instance_list[0].pcs[1], 21u);
      },
      1);
}

// Another warp's read of a word between a pair's loads and its stores
// (without a barrier) leaves the granule as the stores do not expect: they
// are checked lane by lane and race with that read.
TEST(LoadPairs, AReadBetweenTheLoadsAndTheStoresRacesWithTheStore) {
  both(
      [](Launch &r, bool split) {
        pairs(r, AccessType::Write, 0, ~0u, 0, 110, 0, split);
        pairs(r, AccessType::Write, 1, ~0u, 128, 110, 0, split);
        r.barrier(0b1111);
        pairs(r, AccessType::Read, 0, ~0u, 0, 20, 0, split);
        pairs(r, AccessType::Read, 0, ~0u, 128, 21, 0, split);
        r.read(1, 0b11u << 6, 0, 30); // words 6, 7
        pairs(r, AccessType::Write, 0, ~0u, 0, 120, 5, split);
      },
      [](const std::vector<Finding> &f) {
        ASSERT_EQ(f.size(), 1u) << line_records::render(f);
        EXPECT_EQ(f[0].instances, 2u);
        EXPECT_EQ(f[0].instance_list[0].pcs[0], 30u);
        EXPECT_EQ(f[0].instance_list[0].pcs[1], 120u);
      },
      1);
}

// Random runs of pair loads and stores, barriers of the CTA or of some
// warps, tile reads and single-lane accesses (a fixed sequence per seed):
// as one event per warp and lane by lane, the same findings.
TEST(LoadPairs, RandomRunsDecideAsLaneByLane) {
  random_runs([](Launch &r, auto &rnd, bool split) {
    for (int step = 0; step < 60; ++step) {
      const uint32_t w = rnd(4);
      const uint64_t base = 64ull * rnd(3);
      uint32_t lanes = ~0u;
      if (rnd(3) == 0)
        for (uint32_t j = 0; j < 32; j += 2)
          if (!rnd(4))
            lanes &= ~(3u << j);
      switch (rnd(9)) {
      case 0:
      case 1:
      case 2:
        if (lanes)
          pairs(r, AccessType::Read, w, lanes, base, 20 + rnd(2), 0, split);
        break;
      case 3:
      case 4:
        if (lanes)
          pairs(r, AccessType::Write, w, lanes, base, 120 + rnd(2),
                1000 * rnd(2), split);
        break;
      case 5:
        r.barrier(rnd(4) ? 0b1111 : 0b0111);
        break;
      case 6:
        r.read_row(w, 64 * rnd(2), 10 + rnd(2));
        break;
      case 7:
        r.access(AccessType::Read, w, 1u << rnd(32), 4 * rnd(48), 13, true);
        break;
      case 8:
        r.access(AccessType::Write, w, 1u << rnd(32), 4 * rnd(48), 103, true);
        break;
      }
    }
  });
}
} // namespace word_pairs

namespace cta_floors {
using line_records::GlobalRun;
using line_records::kBase;
using line_records::render;

// After a barrier that the whole CTA waited at, a thread of the CTA knows
// the CTA's accesses from before it without a lookup in its knowledge
// (Accessor::knows, the CTA's floors), where that knowledge is a tree of
// several leaves (here: another CTA's warps, acquired through a flag). No
// race with them, in read entries of a warp's word pairs and lane by lane;
// an access of the CTA after the barrier, one ordered by a barrier of some
// warps only, and another CTA's access to the CTA's words still race.
TEST(CtaFloors, AWholeCtaBarrierOrdersTheCtasGlobalAccesses) {
  Launch r("race", {12, 1, 1});
  constexpr uint64_t kB = 0x10000, kFlag = 0x20000;
  auto access = [&](AccessType t, uint64_t cta, uint32_t warp, uint32_t lanes,
                    uint64_t at, uint32_t pc, MemOrder order = MemOrder::Weak) {
    r.access(t, warp, lanes, at, pc, false, cta, StateSpace::Global, order,
             order == MemOrder::Weak ? MemScope::None : MemScope::Gpu);
  };
  access(AccessType::Write, 0, 0, ~0u, kB, 100);
  r.barrier(0b1111, 0, 0, 0);
  access(AccessType::Write, 0, 0, 1, kFlag, 200, MemOrder::Release);
  access(AccessType::Write, 9, 0, ~0u, kB + 256, 101);
  access(AccessType::Read, 9, 0, 1, kFlag, 20, MemOrder::Acquire);
  r.barrier(0b1111, 0, 0, 9);
  access(AccessType::Read, 9, 1, ~0u, kB + 256, 10); // word pairs: ordered
  access(AccessType::Read, 9, 2, 1, kB + 260, 11);   // ordered
  access(AccessType::Read, 9, 2, 1, kB + 4, 12);     // CTA 0's: ordered
  // After the barrier: unordered with warp 3.
  access(AccessType::Write, 9, 0, 1, kB + 512, 102);
  access(AccessType::Read, 9, 3, 1, kB + 512, 13);
  // A barrier of warps 0 and 1 orders warp 2 with nothing.
  access(AccessType::Write, 9, 0, 1, kB + 768, 103);
  r.barrier(0b0011, 1, 64, 9);
  access(AccessType::Read, 9, 1, 1, kB + 768, 14); // ordered
  access(AccessType::Read, 9, 2, 1, kB + 768, 15);
  // CTA 9's words read by CTA 5.
  access(AccessType::Read, 5, 0, 1, kB + 264, 16);
  const auto &f = r.end();
  std::string got;
  for (const Finding &x : f) {
    EXPECT_EQ(x.kind, FindingKind::DataRace);
    for (const auto &i : x.instance_list)
      got += std::to_string(i.pcs[0]) + ":" + std::to_string(i.pcs[1]) + " ";
  }
  EXPECT_EQ(got, "102:13 103:15 101:16 ") << render(f);
}

// A warp's word-pair load, then its store of the same words: each lane's
// store meets its pair's read entry, in which no other lane read its bytes
// (check_entry asks no knowledge and takes its own lane out); another
// warp's store to a word of an entry still races with the lane that read
// it, and the warp's store then with that store.
TEST(CtaFloors, AStoreOfTheWordsAWarpLoadedMeetsOnlyItsOwnLane) {
  line_records::both(
      [](GlobalRun &r) {
        r.access(AccessType::Write, 0, 0, ~0u, kBase, 99, 4, 500);
        r.r.barrier(0b1111);
        r.access(AccessType::Read, 0, 0, ~0u, kBase, 10, 4);
        r.access(AccessType::Write, 0, 1, 1, kBase + 4, 101, 4, 7);
        r.access(AccessType::Write, 0, 0, ~0u, kBase, 100, 4, 1000);
        r.access(AccessType::Read, 1, 0, 0b100, kBase, 11, 4);
      },
      [](const std::vector<Finding> &f) {
        std::string got;
        for (const Finding &x : f)
          for (const auto &i : x.instance_list)
            got += std::to_string(i.pcs[0]) + ":" + std::to_string(i.pcs[1]) +
                   " t" + std::to_string(i.threads[0].warp) + "." +
                   std::to_string(i.threads[0].lane) + " ";
        EXPECT_EQ(got, "10:101 t0.1 101:100 t1.0 100:11 t0.2 ") << render(f);
      });
}
} // namespace cta_floors

} // namespace
} // namespace bcusim::check
