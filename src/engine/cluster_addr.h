// Resolution of a `.shared::cluster` address to the CTA of the cluster that
// owns it (docs/mbarrier.md "Remote operations"). This is the seam between
// the mbarrier / bulk-copy code (exec_mbarrier.cpp, exec_async.cpp) and the
// distributed shared memory of clusters: the implementation here only knows
// the executing CTA (an address of the executing CTA's own window), which is
// what a cluster of one CTA has; the cluster implementation replaces it.
#pragma once

#include "program.h"

namespace bcusim::engine::detail {

struct SharedTarget {
  Cta *cta = nullptr;
  uint64_t off = 0; // offset in that CTA's shared memory
};

// false when `addr` (a .shared::cluster address, i.e. an offset in the
// shared window) names no shared memory of a CTA of the cluster.
inline bool resolve_shared_cluster(Exec &x, uint64_t addr, SharedTarget &out) {
  if (addr < kSharedCtaWindow && addr < x.cta->shared.size()) {
    out.cta = x.cta;
    out.off = addr;
    return true;
  }
  return false;
}

} // namespace bcusim::engine::detail
