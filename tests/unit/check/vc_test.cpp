// The race checker's happens-before knowledge (src/check/vc.h).
#include <gtest/gtest.h>

#include "vc.h"

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

TEST(Vc, BuilderMergesRepeatedEntries) {
  VcBuilder b;
  b.thread(5, 1);
  b.thread(5, 7);
  b.thread(5, 3);
  b.floor(9, 2);
  b.floor(9, 4);
  Vc v = b.build();
  ASSERT_EQ(v->threads.size(), 1u);
  EXPECT_EQ(v->threads[0].second, 7u);
  EXPECT_EQ(v->floor_of(9), 4u);
}

} // namespace
} // namespace bcusim::check::detail
