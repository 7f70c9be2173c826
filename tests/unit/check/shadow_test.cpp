// The global shadow's pages (src/check/state.h GlobalShadow): every page,
// made singly or carved from a slab, starts with empty granules and keeps
// its records while the launch lasts.
#include <gtest/gtest.h>

#include "state.h"

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

} // namespace
} // namespace bcusim::check::detail
