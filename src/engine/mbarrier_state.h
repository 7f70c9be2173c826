// Per-CTA bookkeeping of mbarrier objects and asynchronous copies
// (docs/mbarrier.md). The mbarrier state itself lives in the object's 8
// bytes of shared memory; this only records what shared memory cannot: which
// objects were initialised by mbarrier.init in this CTA run, the copies that
// are in flight, and the cp.async groups of each thread. Internal to
// src/engine; kept free of state.h so that state.h can embed it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace bcusim::engine::detail {

struct Cta;

// docs/mbarrier.md "State layout": the 64-bit state word.
namespace mbar {
constexpr uint64_t kCountMask = (1ull << 20) - 1; // 20-bit counts
constexpr unsigned kPendingShift = 0;
constexpr unsigned kExpectedShift = 20;
constexpr unsigned kTxShift = 40; // 21-bit two's complement tx-count
constexpr uint64_t kTxMask = (1ull << 21) - 1;
constexpr unsigned kPhaseShift = 61; // 3-bit phase number (bit 61 = parity)
constexpr uint64_t kPhaseMask = 7;
constexpr int64_t kTxMax = (1ll << 20) - 1;

inline uint32_t pending(uint64_t s) {
  return uint32_t((s >> kPendingShift) & kCountMask);
}
inline uint32_t expected(uint64_t s) {
  return uint32_t((s >> kExpectedShift) & kCountMask);
}
inline int64_t tx(uint64_t s) {
  int64_t v = int64_t((s >> kTxShift) & kTxMask);
  return v >= (1ll << 20) ? v - (1ll << 21) : v;
}
inline uint32_t phase(uint64_t s) {
  return uint32_t((s >> kPhaseShift) & kPhaseMask);
}
inline uint64_t make(uint32_t phase, uint32_t pending, uint32_t expected,
                     int64_t tx) {
  return (uint64_t(phase) & kPhaseMask) << kPhaseShift |
         (uint64_t(tx) & kTxMask) << kTxShift |
         (uint64_t(expected) & kCountMask) << kExpectedShift |
         (uint64_t(pending) & kCountMask) << kPendingShift;
}
// The opaque token an arrive returns: the phase the arrival belonged to and
// the pending count left in that phase after it.
inline uint64_t token(uint32_t phase, uint32_t pending_after) {
  return (uint64_t(phase) & kPhaseMask) << kPhaseShift |
         (uint64_t(pending_after) & kCountMask);
}
} // namespace mbar

// A tensor copy (exec_tma.cpp) planned when it is issued: the box in runs
// of bytes, each with its global address (nullptr: out of bounds) and its
// offset in the box before swizzling.
struct TmaRun {
  uint8_t *g = nullptr;
  uint64_t gaddr = 0;
  uint32_t off = 0, bytes = 0;
};
struct TmaPlan {
  std::vector<TmaRun> runs;
  uint64_t sh_off = 0; // the box's shared-memory offset in each CTA
  uint64_t fill = 0;   // an out-of-bounds element's bytes (loads)
  uint32_t elem = 0, bytes = 0;
  uint8_t swizzle = 0, kind = 0, op = 0, type = 0;
  // Where the runs' `g` point (the non-tensor cp.reduce.async.bulk may
  // reduce into a CTA's shared memory): 0 global, 1 shared of CTA g_owner.
  uint8_t g_space = 0;
  uint64_t g_owner = 0;
};

// An asynchronous operation waiting for the next scheduling point.
struct AsyncOp {
  enum class What : uint8_t {
    Copy,      // cp.async: copy (and zero-fill), tracked by groups
    ArriveOn,  // cp.async.mbarrier.arrive: arrive-on after prior copies
    BulkTx,    // cp.async.bulk ... complete_tx::bytes: copy, then complete_tx
    BulkGroup, // cp.async.bulk ... bulk_group: copy, tracked by bulk groups
  };
  What what = What::Copy;
  uint8_t *dst = nullptr;
  const uint8_t *src = nullptr;
  uint32_t size = 0, copy_bytes = 0; // copy_bytes < size: zero-fill the rest
  uint32_t thread = 0, group = 0;
  Cta *mbar_cta = nullptr; // mbarrier owner (ArriveOn, BulkTx)
  uint32_t mbar_off = 0;
  uint32_t pc = 0, warp = 0, lane = 0; // the issuing instruction
  // For the observer: the issuing thread's number for this operation (in
  // issue order) and where the copy reads and writes (observer.h terms:
  // space 0 global / 1 shared, owner CTA, address in the space).
  uint64_t async_id = 0;
  uint8_t src_space = 0, dst_space = 0;
  uint64_t src_owner = 0, dst_owner = 0, src_addr = 0, dst_addr = 0;
  // A tensor copy: dst = src = the shared memory of the CTA it writes to
  // (loads) or reads from (stores, reductions).
  std::shared_ptr<const TmaPlan> tma;
};

struct MbarCtaState {
  // Per 8-byte slot of the CTA's shared memory (allocated on first use).
  enum : uint8_t { Never = 0, Live = 1, Invalidated = 2 };
  std::vector<uint8_t> init;
  std::vector<AsyncOp> pending; // in issue order
  // Per thread: cp.async groups committed, bulk groups committed (allocated
  // on first use).
  std::vector<uint32_t> cp_groups, bulk_groups;
  // Per thread: asynchronous operations issued (AsyncOp::async_id).
  std::vector<uint64_t> async_seq;
  // Per 8-byte slot: the full phase number of an mbarrier object (its
  // state word keeps it modulo 8); the observer's events carry it.
  std::vector<uint64_t> phases;
  // Counts every mbarrier state change, so that the scheduler can tell a
  // wait that can still complete from one that cannot (scheduler.cpp).
  uint64_t events = 0;
  // Rounds in which the scheduler woke suspended waits because nothing else
  // could run, since `events` last changed (scheduler.cpp wake_mbar_waits).
  uint64_t idle_events = ~0ull;
  uint32_t idle_rounds = 0;

  void reset() {
    init.clear();
    pending.clear();
    cp_groups.clear();
    bulk_groups.clear();
    async_seq.clear();
    phases.clear();
    events = 0;
    idle_events = ~0ull;
    idle_rounds = 0;
  }
};

} // namespace bcusim::engine::detail
