// The scheduler's parts, one by one (src/engine/worker.h): warp paths and
// their selection, grouping of per-lane member masks, fault messages.
#include <gtest/gtest.h>

#include "worker.h"

namespace bcusim::engine::detail {
namespace {

// A program of `n` plain instructions (enough for path selection).
Program program(uint32_t n) {
  Program p;
  p.code.resize(n);
  return p;
}

Warp warp_with(std::initializer_list<std::pair<uint32_t, uint32_t>> paths) {
  Warp w;
  w.valid = kFullMask;
  for (auto [pc, mask] : paths) {
    Path p;
    p.pc = pc;
    p.mask = mask;
    w.paths.push_back(p);
  }
  return w;
}

TEST(Paths, TheLowestPcRunsFirst) {
  Program P = program(16);
  Warp w = warp_with({{7, 0x0000ffff}, {3, 0xffff0000}});
  ASSERT_TRUE(select_path(P, w, {}, 0));
  EXPECT_EQ(w.paths[w.cur].pc, 3u);
}

// A diverged path runs plain instructions up to the next pc of another
// path (where select_path could merge them), and not at all while a path at
// or below its pc could run or one waits on an mbarrier.
TEST(Paths, RunAheadStopsWhereAnotherPathWaits) {
  Warp w = warp_with({{3, 0x0000ffff}, {9, 0x00ff0000}, {7, 0xff000000}});
  EXPECT_EQ(run_ahead_limit(w, w.paths[0]), 7u);
  // A path below that only a barrier releases does not stop it.
  w.paths[1].pc = 1;
  w.paths[1].state = PathState::BlockedCta;
  EXPECT_EQ(run_ahead_limit(w, w.paths[0]), 7u);
  // One below that may run does.
  w.paths[1].state = PathState::WaitWarp;
  EXPECT_EQ(run_ahead_limit(w, w.paths[0]), 3u);
  w.paths[1].state = PathState::Ready;
  EXPECT_EQ(run_ahead_limit(w, w.paths[0]), 3u);
  // A path waiting on an mbarrier anywhere stops it.
  w.paths[1].pc = 20;
  w.paths[1].state = PathState::BlockedMbar;
  EXPECT_EQ(run_ahead_limit(w, w.paths[0]), 3u);
}

TEST(Paths, PathsThatMeetMerge) {
  Program P = program(16);
  Warp w = warp_with({{5, 0x0000000f}, {5, 0x000000f0}, {9, 0xffffff00}});
  ASSERT_TRUE(select_path(P, w, {}, 0));
  ASSERT_EQ(w.paths.size(), 2u);
  EXPECT_EQ(w.paths[w.cur].pc, 5u);
  EXPECT_EQ(w.paths[w.cur].mask, 0xffu);
}

TEST(Paths, APathThatRanLongEnoughYieldsToTheNextPc) {
  Program P = program(16);
  Warp w = warp_with({{2, 0x1}, {6, 0x2}, {10, 0x4}});
  w.cur = 0;
  w.path_steps = kPathQuantum; // the anti-starvation turn
  ASSERT_TRUE(select_path(P, w, {}, 0));
  EXPECT_EQ(w.paths[w.cur].pc, 6u);
  EXPECT_EQ(w.path_steps, 0u);
}

TEST(Paths, BlockedPathsAreNotChosen) {
  Program P = program(16);
  Warp w = warp_with({{2, 0x1}, {6, 0x2}});
  w.paths[0].state = PathState::BlockedCta;
  ASSERT_TRUE(select_path(P, w, {}, 0));
  EXPECT_EQ(w.paths[w.cur].pc, 6u);
  w.paths[1].state = PathState::BlockedCluster;
  EXPECT_FALSE(select_path(P, w, {}, 0));
}

TEST(Paths, RandomPolicyIsReproducible) {
  Program P = program(64);
  auto pick = [&](uint64_t seed) {
    std::vector<uint32_t> seq;
    SplitMix64 rng(seed);
    PathPolicy pol{true, &rng};
    Warp w = warp_with({{1, 0x1}, {11, 0x2}, {21, 0x4}, {31, 0x8}});
    for (int k = 0; k < 8; ++k) {
      EXPECT_TRUE(select_path(P, w, pol, 0));
      seq.push_back(w.paths[w.cur].pc);
    }
    return seq;
  };
  EXPECT_EQ(pick(42), pick(42));
}

TEST(Paths, SplittingGuardedLanesLeavesThemAtTheNextPc) {
  Warp w = warp_with({{4, 0xff}});
  w.cur = 0;
  Path *p = split_guarded(w, 0x0f);
  EXPECT_EQ(p->mask, 0x0fu);
  EXPECT_EQ(p->pc, 4u);
  ASSERT_EQ(w.paths.size(), 2u);
  EXPECT_EQ(w.paths[1].mask, 0xf0u);
  EXPECT_EQ(w.paths[1].pc, 5u);
}

TEST(SyncGroups, LanesNamingOneMaskFormOneGroup) {
  Lane<uint32_t> mem[32];
  for (uint32_t l = 0; l < 32; ++l)
    mem[l] = l < 8 ? 0xffu : l < 16 ? 0xff00u : 0xffff0000u;
  SyncGroups g = group_by_mask(mem, 0xffffffffu);
  ASSERT_EQ(g.n, 3u);
  EXPECT_EQ(g.mask[0], 0xffu);
  EXPECT_EQ(g.lanes[0], 0xffu);
  EXPECT_EQ(g.lanes[1], 0xff00u);
  EXPECT_EQ(g.lanes[2], 0xffff0000u);
  SyncGroups some = group_by_mask(mem, 0x00010001u);
  ASSERT_EQ(some.n, 2u);
  EXPECT_EQ(some.lanes[0], 0x1u);
  EXPECT_EQ(some.lanes[1], 0x10000u);
}

TEST(SyncGroups, ExitedMembersAreNotWaitedForByShflButByWarpSync) {
  Inst shfl, warpsync;
  shfl.kind = Kind::WarpSync;
  warpsync.kind = Kind::WarpSyncMember;
  Warp w;
  w.valid = 0xffffu; // a partial warp of 16 lanes
  w.exited = 0x3u;
  EXPECT_EQ(warp_sync_required(shfl, 0xffffffffu, w), 0xfffcu);
  EXPECT_EQ(warp_sync_required(warpsync, 0xffffffffu, w), 0xffffu);
}

TEST(Reports, FaultMessagesNameTheAccess) {
  Fault f;
  f.kind = FaultKind::OutOfBounds;
  f.space = MemSpace::Shared;
  f.write = true;
  f.size = 4;
  f.addr = 0x400;
  EXPECT_EQ(fault_message(f),
            "out-of-bounds .shared store of 4 bytes at address 0x400");
  f.kind = FaultKind::Misaligned;
  f.write = false;
  f.size = 8;
  f.addr = 0x3;
  EXPECT_EQ(fault_message(f), "misaligned .shared load of 8 bytes at address "
                              "0x3 (must be a multiple of 8)");
  f.kind = FaultKind::Mbarrier;
  f.detail = "mbarrier misuse: ...";
  EXPECT_EQ(fault_message(f), "mbarrier misuse: ...");
}

} // namespace
} // namespace bcusim::engine::detail
