// The global shadow's pages (src/check/state.h GlobalShadow): every page,
// made singly or carved from a slab, starts with empty granules and keeps
// its records while the launch lasts.
#include <gtest/gtest.h>

#include "state.h"

#include <cstring>
#include <set>
#include <utility>

namespace bcusim::check::detail {
namespace {

constexpr uint64_t kBase = 0x700000000000ull;
// Past the single pages and across more than two slabs.
constexpr uint64_t kPages =
    GlobalShadow::kSmallPages +
    3 * (GlobalShadow::kSlabBytes / GlobalShadow::kPageBytes) + 5;

bool empty_granule(const Granule &g) {
  for (const Cell &c : g.cell)
    if (!c.empty() || c.clock || c.pc || c.mask || c.flags || c.size || c.value)
      return false;
  return g.spill == 0 && g.sync == 0;
}

TEST(GlobalShadow, NewPagesHoldEmptyGranulesAndKeepTheirRecords) {
  GlobalShadow s;
  std::set<Granule *> seen;
  // Every granule of every page (pages touched out of order: two streams).
  for (uint64_t p = 0; p < kPages; ++p)
    for (uint64_t base : {kBase, kBase + (uint64_t(1) << 30)})
      for (uint64_t i = 0; i < GlobalShadow::kPageGranules; ++i) {
        const uint64_t addr = base + p * 4096 + i * 8;
        Granule *g = s.granule(addr + (i & 7));
        ASSERT_TRUE(empty_granule(*g)) << "page " << p << " granule " << i;
        ASSERT_TRUE(seen.insert(g).second);
        g->cell[1].tid = Tid(p);
        g->cell[1].value = addr;
      }
  EXPECT_EQ(s.bytes(), 2 * kPages * GlobalShadow::kPageBytes);
  GlobalShadow t = std::move(s);
  EXPECT_EQ(s.bytes(), 0u);
  for (uint64_t p = 0; p < kPages; ++p)
    for (uint64_t base : {kBase, kBase + (uint64_t(1) << 30)})
      for (uint64_t i = 0; i < GlobalShadow::kPageGranules; i += 37) {
        const uint64_t addr = base + p * 4096 + i * 8;
        const Granule *g = t.granule(addr);
        EXPECT_EQ(g->cell[1].tid, Tid(p));
        EXPECT_EQ(g->cell[1].value, addr);
        EXPECT_TRUE(g->cell[0].empty());
      }
  t.clear();
  EXPECT_EQ(t.bytes(), 0u);
  EXPECT_TRUE(empty_granule(*t.granule(kBase + 4096 * (kPages - 1))));
}

// A line record (race.cpp "Line records") becomes, when a granule of its
// page is asked for, the cells its lanes would have taken one by one: in
// lane order, the first free cell of each granule.
TEST(GlobalShadow, ALineRecordExpandsIntoTheCellsOfItsLanes) {
  GlobalShadow s;
  const uint64_t line = kBase + 3 * 128;
  uint8_t *bytes = nullptr;
  LineRecord *r = s.line_record(line, true, bytes);
  ASSERT_NE(r, nullptr);
  ASSERT_NE(bytes, nullptr);
  EXPECT_EQ(r->lanes, 0u); // untouched
  // Lanes 2-31 of a warp storing 4 bytes each from line + 4 to line + 123
  // (lane 0 would be at line - 4): lane l's word is l * 1000.
  r->lanes = ~3u;
  r->tid0 = 64;
  r->clock = 5;
  r->pc = 77;
  r->first = -4;
  r->size = uint16_t(4 | kValued);
  r->flags = kWrite;
  for (uint32_t l = 2; l < 32; ++l) {
    const uint32_t v = l * 1000;
    std::memcpy(bytes + 4 * l - 4, &v, 4);
  }
  EXPECT_EQ(s.bytes(), 32 * sizeof(LineRecord) + 4096);
  const Granule *g = s.granule(line + 8);                // lanes 3 and 4
  EXPECT_EQ(s.line_record(line, false, bytes), nullptr); // granules now
  for (uint32_t k = 0; k < 16; ++k) {
    const Granule &x = s.granule(line)[k];
    // Granule k holds the words of lanes 2k + 1 (bytes 0-3: line + 8k is
    // lane 2k + 1's) and 2k + 2; lane 1 is not in the record.
    const uint32_t lo = 2 * k + 1, hi = 2 * k + 2;
    const Cell &c0 = x.cell[0], &c1 = x.cell[1];
    if (k == 0 || k == 15) { // one lane: 2 (bytes 4-7), 31 (bytes 0-3)
      EXPECT_EQ(c0.tid, 64u + (k ? lo : hi));
      EXPECT_EQ(c0.mask, k ? 0x0f : 0xf0);
      EXPECT_TRUE(c1.empty());
      continue;
    }
    EXPECT_EQ(c0.tid, 64u + lo) << k;
    EXPECT_EQ(c0.mask, 0x0f);
    EXPECT_EQ(c0.value, uint64_t(lo * 1000));
    EXPECT_EQ(c0.flags, kWrite);
    EXPECT_EQ(c1.tid, 64u + hi);
    EXPECT_EQ(c1.mask, 0xf0);
    EXPECT_EQ(c1.value, uint64_t(hi * 1000) << 32);
    EXPECT_EQ(c1.flags, kWrite | 0x80); // the newer cell
    for (const Cell &c : x.cell) {
      EXPECT_EQ(c.clock, 5u);
      EXPECT_EQ(c.pc, 77u);
      EXPECT_EQ(c.size, 4 | kValued);
    }
  }
  EXPECT_EQ(g, s.granule(line) + 1);
  // The other lines of the page: empty granules.
  EXPECT_TRUE(empty_granule(*s.granule(line - 8)));
  EXPECT_TRUE(empty_granule(*s.granule(line + 128)));
  EXPECT_EQ(s.bytes(),
            32 * sizeof(LineRecord) + 4096 + GlobalShadow::kPageBytes);
}

} // namespace
} // namespace bcusim::check::detail
