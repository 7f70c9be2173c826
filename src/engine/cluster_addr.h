// Clusters at run time (docs/clusters.md): the state a cluster's CTAs
// share (the barrier.cluster phase) and the distributed-shared-memory
// address map. Internal to src/engine.
//
// DSMEM address map (as measured on an NVIDIA H200, driver 580.159.04,
// CUDA 13.0, 2026-11-28). The .shared::cluster state space is a window of
// kSharedCtaWindow-byte slots: [r * kSharedCtaWindow, +kSharedCtaWindow)
// is the shared memory of the CTA with %cluster_ctarank r, byte `off` of
// Cta::shared at r * kSharedCtaWindow + off. A CTA's .shared::cta addresses
// are the addresses of its own slot (they carry its rank: rank 1's first
// variable is at 0x1000400); the engine does not distinguish .shared::cta
// from .shared::cluster accesses, so any address reaches the slot it names.
// Generic addresses add kSharedWindow (the shared window of the generic
// space), so a generic pointer from `mapa.u64` reaches a peer CTA too.
#pragma once

#include <cstdint>
#include <vector>

#include "exec.h"

namespace bcusim::engine::detail {

// Start of CTA rank `rank`'s slot in the .shared::cluster window: the
// address of byte 0 of its shared memory (Cta::shared_base). The one place
// where a shared-memory offset becomes a program's address.
constexpr uint64_t shared_cluster_base(uint32_t rank) {
  return kSharedCtaWindow * uint64_t(rank);
}

// What the CTAs of one cluster (one scheduling unit, run by one host
// worker) share: the CTAs by rank and the barrier.cluster state.
struct ClusterState {
  std::vector<Cta *> ctas; // by %cluster_ctarank
  uint32_t phase = 0;      // completed phases of barrier.cluster
  uint32_t arrived = 0;    // threads that arrived in the current phase
  uint32_t live = 0;       // non-exited threads of all CTAs
  uint32_t pending = 0;    // non-exited threads that have not arrived
  // per rank, per thread: kArrived = arrived in the current phase;
  // kWaitDue = arrived in a phase that has completed, not yet waited.
  static constexpr uint8_t kArrived = 1, kWaitDue = 2;
  std::vector<std::vector<uint8_t>> has_arrived;

  const Program *prog = nullptr;
  void reset(const Program &program, uint32_t nctas, uint32_t threads_per_cta);
};

// Where a .shared::cluster address (an offset in the .shared::cluster
// window, not a generic address) points, seen from `self`.
struct SharedTarget {
  Cta *cta = nullptr; // the CTA whose shared memory it is
  uint64_t off = 0;   // offset in that CTA's shared memory
  uint32_t rank = 0;  // its %cluster_ctarank
};

// Resolves `addr` for a CTA of a cluster (the one place where a shared
// address becomes an offset in a CTA's shared memory). False when the
// address lies in no CTA's slot (its rank is not in the cluster); then
// `out.rank` holds the rank the address names. The target may have exited
// (`cta->live_warps == 0`): its shared memory stays alive until the whole
// cluster finishes, and the caller reports the access.
bool resolve_shared_cluster(const Cta &self, uint64_t addr, SharedTarget &out);

// The form the mbarrier and bulk-copy code uses (docs/mbarrier.md "Remote
// operations"): resolves from the executing CTA; false also when the target
// CTA has exited (its mbarriers can no longer be operated on).
inline bool resolve_shared_cluster(Exec &x, uint64_t addr, SharedTarget &out) {
  return resolve_shared_cluster(*x.cta, addr, out) && out.cta &&
         (out.cta == x.cta || out.cta->live_warps != 0);
}

// Thread exits and the cluster barrier: `lanes` of warp `w` of CTA `c` have
// exited. They no longer count towards barrier.cluster; when they were the
// last ones missing, the phase completes (the waiting paths of the cluster
// become ready). Called by the scheduler wherever threads exit.
void cluster_threads_exited(Cta &c, const Warp &w, uint32_t lanes,
                            Observer *obs);

// Completes the current barrier.cluster phase: waiters of every CTA of the
// cluster move past their wait.
void cluster_complete_phase(ClusterState &cl, Observer *obs);

} // namespace bcusim::engine::detail
