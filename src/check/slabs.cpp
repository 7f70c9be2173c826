// Global shadow memory (docs/checker.md "Shadow memory"): its pages of
// granules, carved past the first ones from 2 MiB slabs of transparent huge
// pages that a launch keeps for the next ones. (Apart from race.cpp: in
// it, they changed how GCC compiled its per-access paths.)
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include <sys/mman.h>

#include "state.h"

namespace bcusim::check::detail {

namespace {
// Slabs of shadow memory kept after a launch for the next ones (at most
// kKeptSlabs, for every thread together): a launch after another takes
// them instead of mapping new ones, which the kernel would fault in and
// zero again (a benchmark's or a program's launches one after another).
// Never destroyed: shadow memory may be cleared while statics are.
struct KeptSlabs {
  static constexpr size_t kKeptSlabs = 4;
  std::mutex m;
  std::vector<void *> slabs;
};
KeptSlabs &kept_slabs() {
  static KeptSlabs *k = new KeptSlabs;
  return *k;
}
} // namespace

void *GlobalShadow::alloc(size_t n) {
  if (small_bytes_ + n <= kSmallBytes) {
    bytes_ += n;
    small_bytes_ += n;
    small_.push_back(std::make_unique<char[]>(n)); // zeroed
    return small_.back().get();
  }
  void *p = slab_alloc(n);
  if (!slab_zeroed_)
    std::memset(p, 0, n);
  return p;
}

void *GlobalShadow::slab_alloc(size_t n) {
  bytes_ += n;
  if (size_t(slab_end_ - slab_next_) < n) {
    char *a = nullptr;
    {
      KeptSlabs &k = kept_slabs();
      std::lock_guard<std::mutex> lock(k.m);
      if (!k.slabs.empty()) {
        a = static_cast<char *>(k.slabs.back());
        k.slabs.pop_back();
      }
    }
    slab_zeroed_ = !a;
    if (!a) {
      // A 2 MiB-aligned slab: map twice its size and trim both ends.
      const size_t map = 2 * kSlabBytes;
      void *m = mmap(nullptr, map, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m == MAP_FAILED)
        throw std::bad_alloc();
      char *b = static_cast<char *>(m);
      a = reinterpret_cast<char *>(
          (reinterpret_cast<uintptr_t>(b) + kSlabBytes - 1) &
          ~(kSlabBytes - 1));
      if (a > b)
        munmap(b, size_t(a - b));
      if (a + kSlabBytes < b + map)
        munmap(a + kSlabBytes, size_t(b + map - (a + kSlabBytes)));
#ifdef MADV_HUGEPAGE
      madvise(a, kSlabBytes, MADV_HUGEPAGE);
#endif
    }
    slabs_.emplace_back(a, kSlabBytes);
    slab_next_ = a;
    slab_end_ = a + kSlabBytes;
  }
  void *p = slab_next_;
  slab_next_ += n;
  return p;
}

Granule *GlobalShadow::new_page() {
  if (small_bytes_ + kPageBytes <= kSmallBytes) {
    small_bytes_ += kPageBytes;
    bytes_ += kPageBytes;
    small_pages_.push_back(std::make_unique<Granule[]>(kPageGranules));
    return small_pages_.back().get();
  }
  Granule *p = static_cast<Granule *>(slab_alloc(kPageBytes));
  if (!slab_zeroed_) {
    // A kept slab: every granule written in one pass.
    std::uninitialized_fill_n(p, kPageGranules, Granule{});
    return p;
  }
  // Zeroed memory: an empty granule (an implicit-lifetime aggregate) but
  // for its cells' thread.
  for (size_t i = 0; i < kPageGranules; ++i)
    p[i].cell[0].tid = p[i].cell[1].tid = kNoTid;
  return p;
}

void GlobalShadow::clear() {
  pages_.clear();
  small_.clear();
  small_pages_.clear();
  if (!slabs_.empty()) {
    KeptSlabs &k = kept_slabs();
    std::lock_guard<std::mutex> lock(k.m);
    for (auto &[a, n] : slabs_) {
      if (k.slabs.size() < KeptSlabs::kKeptSlabs)
        k.slabs.push_back(a);
      else
        munmap(a, n);
    }
  }
  slabs_.clear();
  slab_next_ = slab_end_ = nullptr;
  last_page_ = ~0ull;
  last_ = nullptr;
  recent_.fill({});
  rec_page_ = {~0ull, ~0ull};
  rec_last_ = {};
  bytes_ = small_bytes_ = 0;
}

} // namespace bcusim::check::detail
