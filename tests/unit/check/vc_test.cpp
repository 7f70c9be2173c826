// The race checker's happens-before knowledge (src/check/vc.h).
#include <gtest/gtest.h>

#include "vc.h"

#include <map>
#include <random>

namespace bcusim::check::detail {
namespace {

Tid thread(uint32_t warp, uint32_t lane) { return warp * 32 + lane; }

TEST(Vc, EmptyKnowsNothing) {
  Vc v;
  EXPECT_FALSE(knows(v, thread(0, 0), 1));
}

TEST(Vc, ThreadEntriesCoverClocksUpToTheirValue) {
  VcBuilder b;
  b.thread(thread(1, 3), 5);
  Vc v = b.build();
  EXPECT_TRUE(knows(v, thread(1, 3), 5));
  EXPECT_TRUE(knows(v, thread(1, 3), 1));
  EXPECT_FALSE(knows(v, thread(1, 3), 6));
  EXPECT_FALSE(knows(v, thread(1, 4), 1)); // another lane
}

TEST(Vc, WarpFloorsCoverEveryLaneBelowTheirValue) {
  VcBuilder b;
  b.floor(7, 10); // warp 7: clocks < 10
  Vc v = b.build();
  for (uint32_t lane : {0u, 17u, 31u}) {
    EXPECT_TRUE(knows(v, thread(7, lane), 9));
    EXPECT_FALSE(knows(v, thread(7, lane), 10));
  }
  EXPECT_FALSE(knows(v, thread(6, 0), 1));
  EXPECT_FALSE(knows(v, thread(39, 0), 1)); // warp 7 + 32: another block
}

TEST(Vc, FloorsInSeveralBlocks) {
  VcBuilder b;
  b.floor(3, 4);
  b.floor(70, 8);
  b.floor(1000, 2);
  Vc v = b.build();
  EXPECT_TRUE(knows(v, thread(3, 1), 3));
  EXPECT_TRUE(knows(v, thread(70, 1), 7));
  EXPECT_TRUE(knows(v, thread(1000, 31), 1));
  EXPECT_FALSE(knows(v, thread(71, 0), 1));
  EXPECT_EQ(v->floor_of(70), 8u);
  EXPECT_EQ(v->floor_of(69), 0u);
}

TEST(Vc, AgentsAreKnownByTheirOwnEntriesOnly) {
  const Tid t = thread(2, 5);
  VcBuilder b;
  b.floor(2, 100); // the issuing thread's warp
  b.thread(kAgentCp | t, 3);
  Vc v = b.build();
  EXPECT_TRUE(knows(v, t, 50));
  EXPECT_TRUE(knows(v, kAgentCp | t, 3));
  EXPECT_FALSE(knows(v, kAgentCp | t, 4));
  EXPECT_FALSE(knows(v, kAgentBulk | t, 1)); // the bulk agent: unknown
}

TEST(Vc, JoinTakesTheMaximumOfEachEntry) {
  VcBuilder a, b;
  a.thread(thread(0, 1), 4);
  a.floor(1, 3);
  b.thread(thread(0, 1), 2);
  b.thread(thread(0, 2), 9);
  b.floor(1, 6);
  Vc j = join(a.build(), b.build());
  EXPECT_TRUE(knows(j, thread(0, 1), 4));
  EXPECT_TRUE(knows(j, thread(0, 2), 9));
  EXPECT_TRUE(knows(j, thread(1, 0), 5));
  EXPECT_FALSE(knows(j, thread(1, 0), 6));
}

TEST(Vc, JoinThatAddsNothingKeepsTheObject) {
  VcBuilder a, b;
  a.thread(thread(0, 1), 4);
  a.floor(1, 6);
  b.thread(thread(0, 1), 3);
  b.floor(1, 6);
  Vc va = a.build(), vb = b.build();
  EXPECT_EQ(join(va, vb), va); // no copy
  EXPECT_EQ(join(va, nullptr), va);
  EXPECT_EQ(join(nullptr, vb), vb);
  EXPECT_NE(join(vb, va), vb); // va adds the higher thread entry
}

TEST(Vc, JoinIntoChangesAnObjectHeldOnceInPlace) {
  VcBuilder b;
  b.thread(thread(1, 3), 5);
  Vc a = b.build();
  b.floor(2, 7);
  Vc other = b.build();
  const VcData *before = a.get();
  join_into(a, other);
  EXPECT_EQ(a.get(), before); // no copy: `a` was its only holder
  EXPECT_TRUE(knows(a, thread(1, 3), 5));
  EXPECT_TRUE(knows(a, thread(2, 9), 6));
  floor_into(a, 2, 9);
  EXPECT_EQ(a.get(), before);
  EXPECT_TRUE(knows(a, thread(2, 0), 8));
  EXPECT_FALSE(knows(a, thread(2, 0), 9));
}

TEST(Vc, JoinIntoCopiesASharedObject) {
  VcBuilder b;
  b.thread(thread(1, 3), 5);
  Vc a = b.build();
  Vc keep = a; // another holder: must not see the change
  b.floor(2, 7);
  join_into(a, b.build());
  EXPECT_NE(a.get(), keep.get());
  EXPECT_TRUE(knows(a, thread(2, 0), 6));
  EXPECT_FALSE(knows(keep, thread(2, 0), 6));
  Vc keep2 = a;
  floor_into(a, 4, 3);
  EXPECT_TRUE(knows(a, thread(4, 1), 2));
  EXPECT_FALSE(knows(keep2, thread(4, 1), 2));
  // Into nothing: shares the object joined (no copy).
  Vc empty;
  join_into(empty, keep);
  EXPECT_EQ(empty.get(), keep.get());
}

TEST(Vc, ReleasedIsKnowledgePlusAWarpFloor) {
  VcBuilder b;
  b.thread(thread(1, 3), 5);
  Released r{b.build(), 6, 4};
  Vc m = materialize(r);
  EXPECT_TRUE(knows(m, thread(1, 3), 5));
  EXPECT_TRUE(knows(m, thread(6, 31), 3));
  EXPECT_FALSE(knows(m, thread(6, 31), 4));
  EXPECT_FALSE(knows(r.vc, thread(6, 31), 3)); // r.vc itself unchanged
  Vc into;
  join_into(into, r);
  EXPECT_TRUE(knows(into, thread(6, 0), 3));
  EXPECT_FALSE(knows(r.vc, thread(6, 0), 3));
}

TEST(Vc, BuilderMergesRepeatedEntries) {
  VcBuilder b;
  b.thread(5, 1);
  b.thread(5, 7);
  b.thread(5, 3);
  b.floor(9, 2);
  b.floor(9, 4);
  Vc v = b.build();
  ASSERT_EQ(v->thread_entries().size(), 1u);
  EXPECT_EQ(v->thread_entries()[0].second, 7u);
  EXPECT_EQ(v->floor_of(9), 4u);
}

TEST(Vc, ThreadIntoAddsAnEntryCopyOnWrite) {
  Vc a;
  thread_into(a, thread(4, 2), 7);
  EXPECT_TRUE(knows(a, thread(4, 2), 7));
  EXPECT_FALSE(knows(a, thread(4, 2), 8));
  Vc held = a; // a second holder: the next change copies
  thread_into(a, thread(4, 3), 1);
  EXPECT_NE(a.get(), held.get());
  EXPECT_FALSE(knows(held, thread(4, 3), 1));
  EXPECT_TRUE(knows(a, thread(4, 3), 1));
  const VcData *before = a.get();
  thread_into(a, thread(4, 2), 3); // already known: unchanged
  EXPECT_EQ(a.get(), before);
}

// Every lane of a warp arriving on its own (an mbarrier arrive per thread)
// leaves one floor, not 32 entries, and the same answers.
TEST(Vc, ThreadIntoTurnsACompleteWarpIntoItsFloor) {
  Vc a;
  for (uint32_t lane = 0; lane < 32; ++lane)
    thread_into(a, thread(9, lane), lane == 5 ? 12u : 10u);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->floor_of(9), 11u);
  // lane 5's later clock stays an entry
  ASSERT_EQ(a->thread_entries().size(), 1u);
  EXPECT_EQ(a->thread_entries()[0], std::make_pair(thread(9, 5), 12u));
  for (uint32_t lane = 0; lane < 32; ++lane) {
    EXPECT_TRUE(knows(a, thread(9, lane), 10));
    EXPECT_EQ(knows(a, thread(9, lane), 11), lane == 5);
    EXPECT_EQ(knows(a, thread(9, lane), 12), lane == 5);
    EXPECT_FALSE(knows(a, thread(9, lane), 13));
  }
  EXPECT_FALSE(knows(a, thread(8, 0), 1));
  EXPECT_FALSE(knows(a, thread(10, 0), 1));
  // Agents are never folded into a warp's floor.
  Vc g;
  for (uint32_t lane = 0; lane < 32; ++lane)
    thread_into(g, kAgentCp | thread(3, lane), 4);
  EXPECT_EQ(g->thread_entries().size(), 32u);
  EXPECT_EQ(g->floor_of(3), 0u);
}

// The persistent map under knowledge objects against a plain map: raises,
// merges and dominance tests over keys of every height (warps of a large
// grid, agents' high bits), with copies that must not see later changes.
TEST(VcMap, AgreesWithAPlainMap) {
  std::mt19937 rng(20261128);
  const uint32_t ranges[] = {64, 4096, 1u << 20, 0xffffffffu};
  for (uint32_t range : ranges) {
    std::vector<VcMap> maps(6);
    std::vector<std::map<uint32_t, uint32_t>> ref(6);
    auto key = [&] {
      uint32_t k = uint32_t(rng() % range);
      return rng() % 4 == 0 ? k | kAgentCp : k;
    };
    for (int step = 0; step < 3000; ++step) {
      const size_t i = rng() % maps.size(), j = rng() % maps.size();
      switch (rng() % 4) {
      case 0: {
        const uint32_t k = key(), v = 1 + uint32_t(rng() % 100);
        const bool changed = ref[i][k] < v;
        ASSERT_EQ(maps[i].raise(k, v), changed);
        ref[i][k] = std::max(ref[i][k], v);
        break;
      }
      case 1: {
        bool dom = true;
        for (auto [k, v] : ref[j])
          dom &= ref[i].count(k) && ref[i][k] >= v;
        ASSERT_EQ(maps[i].dominates(maps[j]), dom);
        maps[i].merge(maps[j]);
        for (auto [k, v] : ref[j])
          ref[i][k] = std::max(ref[i][k], v);
        break;
      }
      case 2: // a copy, then changes to either side
        maps[i] = maps[j];
        ref[i] = ref[j];
        break;
      default:
        if (rng() % 8 == 0) {
          maps[i] = VcMap();
          ref[i].clear();
        }
        break;
      }
      for (size_t m = 0; m < maps.size() && step % 16 == 0; ++m) {
        std::vector<std::pair<uint32_t, uint32_t>> want;
        for (auto [k, v] : ref[m])
          if (v)
            want.push_back({k, v});
        ASSERT_EQ(maps[m].entries(), want) << "range " << range;
        for (auto [k, v] : want)
          ASSERT_EQ(maps[m].get(k), v);
        const uint32_t k = key();
        auto it = ref[m].find(k);
        ASSERT_EQ(maps[m].get(k), it == ref[m].end() ? 0u : it->second);
      }
    }
  }
}

// Knowledge objects made from one another share their trees: after a
// join, joining the same object again or a copy of it changes nothing.
TEST(Vc, JoinsOfObjectsSharingTheirTreesAgree) {
  Vc g;
  for (uint32_t w = 0; w < 4000; w += 8)
    floor_into(g, w, 5);
  Vc mine = with_floor(g, 17, 9);
  Vc other = with_floor(g, 3000, 7);
  Vc j = join(mine, other);
  EXPECT_TRUE(knows(j, thread(17, 0), 8));
  EXPECT_TRUE(knows(j, thread(3000, 0), 6));
  EXPECT_TRUE(knows(j, thread(3992, 0), 4));
  EXPECT_FALSE(knows(j, thread(3993, 0), 1));
  EXPECT_FALSE(knows(mine, thread(3000, 0), 6));
  EXPECT_FALSE(knows(g, thread(17, 0), 8));
  EXPECT_EQ(join(j, mine), j);
  EXPECT_EQ(join(j, g), j);
}

} // namespace
} // namespace bcusim::check::detail
