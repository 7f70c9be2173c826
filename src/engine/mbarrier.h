// mbarrier operations shared by the mbarrier instructions
// (exec_mbarrier.cpp), the asynchronous copies that arrive on or complete
// transactions of an mbarrier (exec_async.cpp) and the scheduler
// (warp_step.cpp, scheduler.cpp).
// docs/mbarrier.md describes the state machine and its diagnostics.
#pragma once

#include <string>

#include "cluster_addr.h"
#include "exec.h"

namespace bcusim::engine::detail {

// The operation codes of MbarOps::op (code.h) for mbarrier instructions.
enum class MbarOp : uint32_t {
  Init,
  Inval,
  Arrive, // also arrive_drop / .expect_tx / .noComplete (flags)
  ExpectTx,
  CompleteTx,
  TestWait,
  TryWait,
  PendingCount,
};
// MbarOps::flags bits.
constexpr uint8_t kMbarNoComplete = 1, kMbarParity = 2, kMbarDrop = 4,
                  kMbarExpectTx = 8, kMbarHint = 16;
// MbarOps::space, CpMbarArriveOps::space: how the address operand is
// interpreted.
enum : uint8_t { kAddrSharedCta = 0, kAddrGeneric = 1, kAddrSharedCluster = 2 };

// Resolves lane `lane`'s mbarrier address `addr`, read as `space` (kAddr*),
// to its owner CTA and offset; false with a fault set in `x` when it is not
// an 8-byte aligned object inside a CTA's shared memory.
bool mbar_locate(Exec &x, uint64_t addr, uint8_t space, uint32_t lane,
                 SharedTarget &t);

// One arrive-on (mbarrier.arrive and its forms, or the arrive-on of a
// cp.async.mbarrier.arrive performed by the async proxy: `async`).
struct MbarArrival {
  uint32_t count = 1;
  uint64_t tx = 0; // .expect_tx: tx-count += tx first
  bool drop = false, no_complete = false;
  MemOrder order = MemOrder::Release;
  MemScope scope = MemScope::Cta;
  const AsyncOp *async = nullptr;
};
// An arrive-on of `a` on the object at `t` by lane `lane`. `what` names the
// instruction in diagnostics. Returns false (fault set in `x`) on misuse;
// `token` receives the state token.
bool mbar_arrive(Exec &x, const SharedTarget &t, const MbarArrival &a,
                 uint32_t lane, const std::string &what, uint64_t *token);
// tx-count -= bytes (complete_tx, or the completion of the bulk copy
// `async`); the phase completes when nothing is left.
bool mbar_complete_tx(Exec &x, const SharedTarget &t, uint64_t bytes,
                      uint32_t lane, const std::string &what,
                      const AsyncOp *async);
// pending count += 1 (cp.async.mbarrier.arrive without .noinc).
bool mbar_add_pending(Exec &x, const SharedTarget &t, uint32_t lane,
                      const std::string &what);

// mbarrier.test_wait / try_wait on the lanes `m` of path `p` (Kind::MbarWait).
// Writes the predicate; returns true when the path should be suspended
// (every lane found its phase incomplete on one object): then the wait
// fields of `p` are filled in, except wait_until, which the scheduler sets
// from `bound`. A fault is set in `x` on misuse.
bool mbar_wait(Exec &x, const Inst &in, uint32_t m, Path &p, uint64_t &bound);

// "waits on the mbarrier at shared address 0x8 ('bar') for phase 1: ..."
std::string describe_mbar_wait(const Program &prog, const FuncInfo *kernel,
                               const Cta &c, const Path &p);

// Performs the asynchronous operations of CTA `c` that are still in flight
// (docs/mbarrier.md "Asynchronous copies"). Returns false with a fault set
// in `x` (x.cta == &c) and the issuing warp and pc in `warp` / `pc`.
bool flush_async(Exec &x, Cta &c, uint32_t &warp, uint32_t &pc);

// Shared by the copies of exec_async.cpp and exec_tma.cpp: the next
// AsyncOp::async_id of thread `t`, its current bulk group, and the
// observer's issue event of `op`.
uint64_t async_next_id(Cta &c, uint32_t t);
uint32_t async_bulk_group(Cta &c, uint32_t t);
void async_issued(Exec &x, const AsyncOp &op, AsyncKind kind);
// Performs a planned tensor copy (exec_tma.cpp).
void tma_perform(Exec &x, const Cta &c, const AsyncOp &op);

} // namespace bcusim::engine::detail
