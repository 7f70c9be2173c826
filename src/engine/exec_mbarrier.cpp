// The mbarrier family (PTX ISA "Parallel Synchronization and Communication
// Instructions: mbarrier"; seed 002): init, inval, arrive (count,
// .noComplete, .expect_tx, remote .shared::cluster), arrive_drop,
// expect_tx, complete_tx, test_wait / try_wait (token or .parity, suspend
// hint), pending_count. The object's state lives in its 8 bytes of shared
// memory (layout in mbarrier_state.h and docs/mbarrier.md); misuse is a
// diagnostic naming the object and its state.
#include <algorithm>
#include <fmt/format.h>

#include "compile.h"
#include "mbarrier.h"
#include "observe.h"

namespace bcusim::engine::detail {

namespace {

// try_wait without a hint stays suspended for at most this many scheduler
// steps (warp-instructions of the worker); a hint (nanoseconds) counts one
// step per nanosecond, clamped to [1, kMaxBound]. A false test_wait
// deschedules its path for kTestWaitBackoff steps (docs/mbarrier.md).
constexpr uint64_t kTryWaitBound = 2048;
constexpr uint64_t kMaxBound = 1u << 20;
constexpr uint64_t kTestWaitBackoff = 64;
constexpr uint32_t kMaxCount = (1u << 20) - 1;

uint64_t load_word(const SharedTarget &t) {
  uint64_t s;
  std::memcpy(&s, t.cta->shared.data() + t.off, 8);
  return s;
}

// The object as the observer names it.
Resolved object_of(const SharedTarget &t) {
  return Resolved{StateSpace::Shared, t.cta->linear, t.off, false};
}

// An mbarrier synchronization event about object `t` by `lane` of the
// executing warp (or, for async arrivals, on behalf of `op`'s issuer).
MbarEvent mbar_event(const Exec &x, const SharedTarget &t, uint32_t lane) {
  MbarEvent e;
  e.pc = x.pc;
  e.cta = x.cta->linear;
  e.warp = x.warp ? x.warp->index : 0;
  e.lanes = 1u << lane;
  e.object_owner = t.cta->linear;
  e.object_offset = t.off;
  return e;
}

// The object's phase as a full count (the state word keeps it modulo 8):
// what the observer's events carry.
uint64_t &full_phase(const SharedTarget &t) {
  auto &v = t.cta->mbar.phases;
  if (v.size() < t.cta->shared.size() / 8 + 1)
    v.resize(t.cta->shared.size() / 8 + 1, 0);
  return v[t.off / 8];
}

void store_word(Exec &x, const SharedTarget &t, uint64_t s) {
  std::memcpy(t.cta->shared.data() + t.off, &s, 8);
  ++t.cta->mbar.events;
  ++x.progress;
}

uint8_t &init_slot(Cta &c, uint64_t off) {
  auto &v = c.mbar.init;
  if (v.size() < c.shared.size() / 8 + 1)
    v.resize(c.shared.size() / 8 + 1, MbarCtaState::Never);
  return v[off / 8];
}

std::string object_name(const Program &prog, const FuncInfo *kernel,
                        uint64_t off) {
  if (const auto *v = prog.shared_var_at(kernel, off)) {
    if (off == v->off)
      return fmt::format(" ('{}')", demangle(v->name));
    return fmt::format(" ('{}'+{})", demangle(v->name), off - v->off);
  }
  return "";
}

std::string state_text(uint64_t s) {
  return fmt::format("state {:#018x}: phase {} (mod 8), pending arrivals {} "
                     "of {}, tx-count {}",
                     s, mbar::phase(s), mbar::pending(s), mbar::expected(s),
                     mbar::tx(s));
}

// "the mbarrier at shared address 0x8 ('bar') of CTA (0,0,0) [state ...]"
std::string object_text(const Exec &x, const SharedTarget &t) {
  std::string who;
  if (t.cta != x.cta)
    who = fmt::format(" of CTA ({},{},{})", t.cta->id.x, t.cta->id.y,
                      t.cta->id.z);
  return fmt::format(
      "the mbarrier at shared address {:#x}{}{} [{}]",
      t.cta->shared_base + t.off,
      object_name(*x.prog, x.launch ? x.launch->kernel : nullptr, t.off), who,
      state_text(load_word(t)));
}

bool misuse(Exec &x, const SharedTarget &t, uint32_t lane,
            const std::string &what, const std::string &problem) {
  x.set_error(FaultKind::Mbarrier, lane,
              fmt::format("mbarrier misuse: '{}' {}: {}", what, problem,
                          object_text(x, t)));
  return false;
}

// Misuse the engine survives: under --warn-only a warning and the
// operation goes on (true); otherwise the misuse error (false).
bool survive(Exec &x, const SharedTarget &t, uint32_t lane,
             const std::string &what, const std::string &problem) {
  if (!x.launch->warn_only)
    return misuse(x, t, lane, what, problem);
  x.warn(lane, fmt::format("mbarrier misuse: '{}' {}: {}", what, problem,
                           object_text(x, t)));
  return true;
}

// The object must have been initialized by mbarrier.init in this CTA run.
bool check_live(Exec &x, const SharedTarget &t, uint32_t lane,
                const std::string &what) {
  uint8_t st = init_slot(*t.cta, t.off);
  if (st == MbarCtaState::Live)
    return true;
  return misuse(x, t, lane, what,
                st == MbarCtaState::Never
                    ? "uses an mbarrier object before its initialization "
                      "(no mbarrier.init on it in this CTA)"
                    : "uses an mbarrier object after mbarrier.inval "
                      "(re-initialize it with mbarrier.init first)");
}

// Stores `s`, completing the current phase first when no arrival and no
// transaction is left: the phase advances, the pending count reloads with
// the expected count (seed 002).
void settle_store(Exec &x, const SharedTarget &t, uint64_t s) {
  if (mbar::pending(s) == 0 && mbar::tx(s) == 0 && mbar::expected(s) != 0) {
    uint64_t &phase = full_phase(t);
    if (x.sync_obs) {
      MbarEvent e = mbar_event(x, t, 0);
      e.lanes = 0;
      e.phase = phase;
      x.sync_obs->on_mbar_phase_complete(e);
    }
    ++phase;
    s = mbar::make(mbar::phase(s) + 1, mbar::expected(s), mbar::expected(s), 0);
  }
  store_word(x, t, s);
}

std::string text_at(const Exec &x, const Inst &in) {
  return x.prog->code_text[size_t(&in - x.prog->code.data())];
}

uint64_t lane_addr(Exec &x, const Inst &in, uint32_t lane) {
  return (in.a[0] == kNone ? 0 : x.reg(in, 0)[lane]) + uint64_t(in.imm);
}

void exec_mbar(Exec &x, const Inst &in, uint32_t m) {
  const MbarOps &mo = x.prog->payload<MbarOps>(in);
  const auto op = MbarOp(mo.op);
  if (op == MbarOp::PendingCount) {
    const auto st = x.reg(in, 2);
    const auto d = x.reg(in, 1);
    for_lanes(m, [&](uint32_t l) { d.set(l, st[l] & mbar::kCountMask); });
    return;
  }
  std::string what = text_at(x, in);
  for_lanes(m, [&](uint32_t l) {
    if (x.faulted)
      return;
    SharedTarget t;
    if (!mbar_locate(x, lane_addr(x, in, l), mo.space, l, t))
      return;
    uint64_t arg = in.a[2] == kNone ? 1 : x.reg(in, 2)[l];
    observe_one(x, x.pc, x.cta->linear, x.warp->index, l, AccessType::Atomic, 8,
                object_of(t), AtomicOp::Mbarrier, order_of(in), scope_of(in));
    switch (op) {
    case MbarOp::Init: {
      uint8_t &slot = init_slot(*t.cta, t.off);
      uint32_t count = uint32_t(arg);
      if (count < 1 || count > kMaxCount || (arg >> 32) != 0) {
        misuse(x, t, l, what,
               fmt::format("has count {}, outside [1, {}]", int64_t(arg),
                           kMaxCount));
        return;
      }
      if (slot == MbarCtaState::Live) {
        uint64_t s = load_word(t);
        // The same count again before any arrival or transaction leaves
        // the object as it is (NVIDIA's samples let every thread
        // initialize): a warning. Anything else changes the state.
        bool same = full_phase(t) == 0 && mbar::phase(s) == 0 &&
                    mbar::pending(s) == count && mbar::expected(s) == count &&
                    mbar::tx(s) == 0;
        std::string problem =
            "re-initializes a live mbarrier object without mbarrier.inval "
            "(PTX: mbarrier.inval must precede re-initialization)";
        if (same) {
          x.warn(l, fmt::format("mbarrier misuse: '{}' {}; harmless here: the "
                                "object has the same count and no arrival "
                                "yet: {}",
                                what, problem, object_text(x, t)));
        } else if (!survive(x, t, l, what, problem)) {
          return;
        }
      }
      slot = MbarCtaState::Live;
      full_phase(t) = 0;
      if (x.sync_obs) {
        MbarEvent e = mbar_event(x, t, l);
        e.count = count;
        x.sync_obs->on_mbar_init(e);
      }
      store_word(x, t, mbar::make(0, count, count, 0));
      return;
    }
    case MbarOp::Inval:
      if (!check_live(x, t, l, what))
        return;
      init_slot(*t.cta, t.off) = MbarCtaState::Invalidated;
      ++t.cta->mbar.events;
      if (x.sync_obs)
        x.sync_obs->on_mbar_inval(mbar_event(x, t, l));
      return;
    case MbarOp::Arrive: {
      uint32_t count = 1;
      uint64_t tx = 0;
      if (mo.flags & kMbarExpectTx)
        tx = arg;
      else
        count = uint32_t(arg);
      if (arg > kMaxCount && !(mo.flags & kMbarExpectTx)) {
        misuse(x, t, l, what,
               fmt::format("has count {}, outside [1, {}]", int64_t(arg),
                           kMaxCount));
        return;
      }
      MbarArrival a;
      a.count = count;
      a.tx = tx;
      a.drop = mo.flags & kMbarDrop;
      a.no_complete = mo.flags & kMbarNoComplete;
      a.order = order_of(in);
      a.scope = scope_of(in);
      uint64_t token = 0;
      if (!mbar_arrive(x, t, a, l, what, &token))
        return;
      x.reg(in, 1).set(l, token);
      return;
    }
    case MbarOp::ExpectTx: {
      if (!check_live(x, t, l, what))
        return;
      uint64_t s = load_word(t);
      int64_t v = mbar::tx(s) + int64_t(arg);
      if (arg > uint64_t(mbar::kTxMax) || v > mbar::kTxMax) {
        misuse(x, t, l, what,
               fmt::format("raises the tx-count by {} beyond its limit {}", arg,
                           mbar::kTxMax));
        return;
      }
      if (x.sync_obs) {
        MbarEvent e = mbar_event(x, t, l);
        e.tx = int64_t(arg);
        e.phase = full_phase(t);
        x.sync_obs->on_mbar_expect_tx(e);
      }
      settle_store(
          x, t,
          mbar::make(mbar::phase(s), mbar::pending(s), mbar::expected(s), v));
      return;
    }
    case MbarOp::CompleteTx:
      mbar_complete_tx(x, t, arg, l, what, 0);
      return;
    default:
      return;
    }
  });
}

} // namespace

bool mbar_locate(Exec &x, uint64_t addr, uint8_t space, uint32_t lane,
                 SharedTarget &t) {
  bool ok = false;
  uint64_t shown = addr;
  MemSpace ms = space == kAddrGeneric ? MemSpace::Generic : MemSpace::Shared;
  if (space == kAddrSharedCta) {
    // The executing CTA's own memory (its slot of the address map).
    t.cta = x.cta;
    t.rank = x.cta->cluster_rank;
    t.off = addr - x.cta->shared_base;
    ok = t.off < x.cta->shared.size();
  } else {
    if (space == kAddrGeneric) {
      if (addr < kSharedWindow || addr - kSharedWindow >= kWindowSize) {
        x.set_error(FaultKind::Mbarrier, lane,
                    fmt::format("mbarrier misuse: the generic address {:#x} of "
                                "an mbarrier object is not in shared memory",
                                addr));
        return false;
      }
      addr -= kSharedWindow;
    }
    ok = resolve_shared_cluster(x, addr, t);
  }
  if (!ok || t.off + 8 > t.cta->shared.size()) {
    x.set_fault(FaultKind::OutOfBounds, ms, shown, 8, lane, true);
    x.fault.detail = "an mbarrier object must lie in shared memory";
    return false;
  }
  if (t.off % 8 != 0) {
    x.set_fault(FaultKind::Misaligned, ms, shown, 8, lane, true);
    x.fault.detail = "an mbarrier object is an 8-byte aligned .b64";
    return false;
  }
  return true;
}

bool mbar_arrive(Exec &x, const SharedTarget &t, const MbarArrival &a,
                 uint32_t lane, const std::string &what, uint64_t *token) {
  if (!check_live(x, t, lane, what))
    return false;
  uint64_t s = load_word(t);
  uint32_t pending = mbar::pending(s), expected = mbar::expected(s);
  int64_t txc = mbar::tx(s);
  uint32_t count = a.count;
  if (a.tx) {
    if (a.tx > uint64_t(mbar::kTxMax) || txc + int64_t(a.tx) > mbar::kTxMax)
      return misuse(x, t, lane, what,
                    fmt::format("raises the tx-count by {} beyond its limit {}",
                                a.tx, mbar::kTxMax));
    txc += int64_t(a.tx);
  }
  if (count == 0)
    return misuse(x, t, lane, what, "arrives with count 0 (must be >= 1)");
  if (count > pending) {
    std::string problem =
        fmt::format("arrives with count {} but only {} arrival{} pending in "
                    "the current phase (over-arrival)",
                    count, pending, pending == 1 ? " is" : "s are");
    // --warn-only: the arrival counts what is pending (the phase completes).
    if (pending == 0 || !survive(x, t, lane, what, problem))
      return pending == 0 ? misuse(x, t, lane, what, problem) : false;
    count = pending;
  }
  if (a.drop && count > expected)
    return misuse(
        x, t, lane, what,
        fmt::format("drops {} from an expected count of {}", count, expected));
  const uint32_t before = pending;
  pending -= count;
  if (a.drop)
    expected -= count;
  if (a.no_complete && pending == 0 && txc == 0 &&
      !survive(x, t, lane, what,
               "is a .noComplete arrival that completes the current phase "
               "(PTX: undefined behaviour)"))
    return false;
  // The token: the phase the arrival belongs to and the pending count prior
  // to it (PTX ISA 9.0 mbarrier.pending_count).
  if (token)
    *token = mbar::token(mbar::phase(s), before);
  if (x.sync_obs) {
    MbarEvent e;
    if (a.async) {
      e.pc = a.async->pc;
      e.cta = x.cta->linear;
      e.warp = a.async->warp;
      e.lanes = 1u << a.async->lane;
      e.object_owner = t.cta->linear;
      e.object_offset = t.off;
      e.async_id = a.async->async_id;
    } else {
      e = mbar_event(x, t, lane);
    }
    e.count = count;
    e.tx = int64_t(a.tx);
    e.order = a.order;
    e.scope = a.scope;
    e.phase = full_phase(t);
    x.sync_obs->on_mbar_arrive(e);
  }
  settle_store(x, t, mbar::make(mbar::phase(s), pending, expected, txc));
  return true;
}

bool mbar_complete_tx(Exec &x, const SharedTarget &t, uint64_t bytes,
                      uint32_t lane, const std::string &what,
                      const AsyncOp *async) {
  if (!check_live(x, t, lane, what))
    return false;
  uint64_t s = load_word(t);
  int64_t v = mbar::tx(s) - int64_t(bytes);
  // The tx-count is signed: a transfer may complete before its expect_tx
  // (docs/mbarrier.md "Decisions"); only its range is a rule.
  if (bytes > uint64_t(mbar::kTxMax) || v < -mbar::kTxMax)
    return misuse(x, t, lane, what,
                  fmt::format("completes {} bytes of transactions, which "
                              "takes the tx-count below its range ({} - {} "
                              "= {} < -{})",
                              bytes, mbar::tx(s), bytes,
                              mbar::tx(s) - int64_t(bytes), mbar::kTxMax));
  if (x.sync_obs) {
    MbarEvent e = mbar_event(x, t, lane);
    if (async) {
      e.pc = async->pc;
      e.warp = async->warp;
      e.lanes = 1u << async->lane;
      e.async_id = async->async_id;
    }
    e.tx = int64_t(bytes);
    e.phase = full_phase(t);
    x.sync_obs->on_mbar_complete_tx(e);
  }
  settle_store(
      x, t, mbar::make(mbar::phase(s), mbar::pending(s), mbar::expected(s), v));
  return true;
}

bool mbar_add_pending(Exec &x, const SharedTarget &t, uint32_t lane,
                      const std::string &what) {
  if (!check_live(x, t, lane, what))
    return false;
  uint64_t s = load_word(t);
  if (mbar::pending(s) >= kMaxCount)
    return misuse(x, t, lane, what, "overflows the pending arrival count");
  store_word(x, t,
             mbar::make(mbar::phase(s), mbar::pending(s) + 1, mbar::expected(s),
                        mbar::tx(s)));
  return true;
}

bool mbar_wait(Exec &x, const Inst &in, uint32_t m, Path &p, uint64_t &bound) {
  std::string what = text_at(x, in);
  const MbarOps &mo = x.prog->payload<MbarOps>(in);
  bool parity = mo.flags & kMbarParity;
  bool try_wait = MbarOp(mo.op) == MbarOp::TryWait;
  const auto arg = x.reg(in, 2);
  uint32_t done = 0;
  const uint8_t *word = nullptr;
  bool one_object = true;
  uint32_t seen_phase = 0;
  for_lanes(m, [&](uint32_t l) {
    if (x.faulted)
      return;
    SharedTarget t;
    if (!mbar_locate(x, lane_addr(x, in, l), mo.space, l, t))
      return;
    if (t.cta != x.cta) {
      // Seed 002: test_wait / try_wait act on .shared::cta objects only.
      misuse(x, t, l, what, "waits on an mbarrier of another CTA");
      return;
    }
    if (!check_live(x, t, l, what))
      return;
    uint64_t s = load_word(t);
    uint32_t cur = mbar::phase(s);
    bool complete;
    if (parity) {
      // Waits for the completion of the phase with this parity: the current
      // (incomplete) phase has it, or the one just completed did.
      complete = (cur & 1) != (arg[l] & 1);
    } else {
      uint32_t d = (cur - mbar::phase(arg[l])) & uint32_t(mbar::kPhaseMask);
      if (d > 1) {
        misuse(x, t, l, what,
               fmt::format("waits with the state token of phase {} (mod 8), "
                           "which is neither the current phase {} nor the "
                           "immediately preceding one",
                           mbar::phase(arg[l]), cur));
        return;
      }
      complete = d == 1;
    }
    observe_one(x, x.pc, x.cta->linear, x.warp->index, l, AccessType::Atomic, 8,
                object_of(t), AtomicOp::Mbarrier, order_of(in), scope_of(in));
    if (complete) {
      done |= 1u << l;
      if (x.sync_obs) {
        // The phase observed complete: the one before the current phase.
        MbarEvent e = mbar_event(x, t, l);
        e.phase = full_phase(t) - 1;
        e.order = order_of(in);
        e.scope = scope_of(in);
        x.sync_obs->on_mbar_wait_done(e);
      }
    }
    const uint8_t *wp = t.cta->shared.data() + t.off;
    if (word && word != wp)
      one_object = false;
    word = wp;
    seen_phase = cur;
  });
  if (x.faulted)
    return false;
  x.p[in.a[1]] = (x.p[in.a[1]] & ~m) | done;
  bool timed_out = p.wait_timed_out;
  p.wait_timed_out = false;
  if (done != 0 || !one_object || !word || m != p.mask ||
      (try_wait && timed_out))
    return false;
  p.wait_word = word;
  p.wait_phase = seen_phase;
  p.wait_pc = uint32_t(&in - x.prog->code.data());
  p.wait_retry = try_wait;
  if (!try_wait) {
    bound = kTestWaitBackoff;
  } else if (mo.flags & kMbarHint) {
    uint64_t h = x.reg(in, 3)[std::countr_zero(m)];
    bound = std::clamp<uint64_t>(h, 1, kMaxBound);
  } else {
    bound = kTryWaitBound;
  }
  return true;
}

std::string describe_mbar_wait(const Program &prog, const FuncInfo *kernel,
                               const Cta &c, const Path &p) {
  uint64_t off = uint64_t(p.wait_word - c.shared.data());
  uint64_t s = 0;
  if (off + 8 <= c.shared.size())
    std::memcpy(&s, p.wait_word, 8);
  return fmt::format("{} on the mbarrier at shared address {:#x}{} for the "
                     "completion of phase {} (mod 8); {}",
                     p.wait_retry ? "is suspended in mbarrier.try_wait"
                                  : "spins with mbarrier.test_wait",
                     c.shared_base + off, object_name(prog, kernel, off),
                     p.wait_phase, state_text(s));
}

// ---- compilation -------------------------------------------------------
bool compile_mbarrier(Compiler &c, const ptx::Instruction &in) {
  if (in.op != ptx::Op::mbarrier)
    return false;
  const auto &o = in.operands;
  using K = ptx::Operand::Kind;
  Mods mods(in);
  using ptx::Mod;
  const Mod what = mods.take_any(
      {Mod::init, Mod::inval, Mod::arrive, Mod::arrive_drop, Mod::test_wait,
       Mod::try_wait, Mod::pending_count, Mod::expect_tx, Mod::complete_tx});
  if (what == Mod::unknown) {
    c.unsupported("mbarrier operation");
    return true;
  }
  const std::string_view opname = ptx::name_of(what);
  MbarOp op = what == Mod::init            ? MbarOp::Init
              : what == Mod::inval         ? MbarOp::Inval
              : what == Mod::test_wait     ? MbarOp::TestWait
              : what == Mod::try_wait      ? MbarOp::TryWait
              : what == Mod::pending_count ? MbarOp::PendingCount
              : what == Mod::expect_tx     ? MbarOp::ExpectTx
              : what == Mod::complete_tx   ? MbarOp::CompleteTx
                                           : MbarOp::Arrive;
  uint8_t flags = 0;
  bool is_arrive = op == MbarOp::Arrive;
  bool is_wait = op == MbarOp::TestWait || op == MbarOp::TryWait;
  if (what == Mod::arrive_drop)
    flags |= kMbarDrop;
  if (is_arrive && mods.take(ptx::Mod::expect_tx))
    flags |= kMbarExpectTx;
  if (is_arrive && mods.take(ptx::Mod::noComplete))
    flags |= kMbarNoComplete;
  if (is_wait && mods.take(ptx::Mod::parity))
    flags |= kMbarParity;
  // Memory-ordering qualifiers (seed 002): arrive is .release and waits
  // are .acquire unless .relaxed; the scope is .cta unless .cluster.
  // Nothing to do for them in a sequentially consistent engine
  // (docs/memory-model.md); the observer's race checker uses them.
  MemOrder order = MemOrder::Relaxed;
  if (is_arrive)
    order = mods.take_any({ptx::Mod::release, ptx::Mod::relaxed}) ==
                    ptx::Mod::relaxed
                ? MemOrder::Relaxed
                : MemOrder::Release;
  else if (is_wait)
    order = mods.take_any({ptx::Mod::acquire, ptx::Mod::relaxed}) ==
                    ptx::Mod::relaxed
                ? MemOrder::Relaxed
                : MemOrder::Acquire;
  else if (op == MbarOp::ExpectTx || op == MbarOp::CompleteTx)
    mods.take(ptx::Mod::relaxed);
  MemScope scope = MemScope::Cta;
  if (is_arrive || is_wait || op == MbarOp::ExpectTx ||
      op == MbarOp::CompleteTx)
    if (mods.take_any({ptx::Mod::cta, ptx::Mod::cluster}) == ptx::Mod::cluster)
      scope = MemScope::Cluster;
  const ptx::Space sp = ptx::space_of(
      mods.take_any({Mod::shared, Mod::shared_cta, Mod::shared_cluster}));
  bool remote_ok =
      is_arrive || op == MbarOp::ExpectTx || op == MbarOp::CompleteTx;
  if (sp == ptx::Space::SharedCluster && !remote_ok) {
    c.error(in.loc, fmt::format("'{}': .shared::cluster is not allowed for "
                                "mbarrier.{} (only arrive, expect_tx and "
                                "complete_tx act on a remote mbarrier)",
                                c.text_of(in), opname));
    return true;
  }
  if (!mods.take(ptx::Mod::b64)) {
    c.error(in.loc, fmt::format("'{}' needs the .b64 type", c.text_of(in)));
    return true;
  }
  if (!c.finish(mods))
    return true;
  uint8_t space = sp == ptx::Space::None            ? kAddrGeneric
                  : sp == ptx::Space::SharedCluster ? kAddrSharedCluster
                                                    : kAddrSharedCta;
  MemSpace ms = space == kAddrGeneric ? MemSpace::Generic : MemSpace::Shared;

  if (op == MbarOp::PendingCount) {
    if (!c.expect_operands(2))
      return true;
    uint32_t st = c.src(o[1], Ty{Ty::B64});
    uint32_t d = c.dst(o[0]);
    Inst &i = c.emit_with(&exec_mbar, MbarOps{uint8_t(op)});
    i.a[1] = d;
    i.a[2] = st;
    return true;
  }
  // Operand shapes (seed 002): [addr] is o[addr_at].
  size_t addr_at = 0, min_ops = 1, max_ops = 1;
  switch (op) {
  case MbarOp::Init:
  case MbarOp::ExpectTx:
  case MbarOp::CompleteTx:
    min_ops = max_ops = 2;
    break;
  case MbarOp::Inval:
    break;
  case MbarOp::Arrive:
    addr_at = 1;
    min_ops = (flags & (kMbarExpectTx | kMbarNoComplete)) ? 3 : 2;
    max_ops = 3;
    break;
  case MbarOp::TestWait:
    addr_at = 1;
    min_ops = max_ops = 3;
    break;
  case MbarOp::TryWait:
    addr_at = 1;
    min_ops = 3;
    max_ops = 4;
    break;
  default:
    break;
  }
  if (o.size() < min_ops || o.size() > max_ops) {
    c.error(in.loc,
            fmt::format("'{}' expects {} operand{}, got {}", c.text_of(in),
                        min_ops == max_ops
                            ? fmt::format("{}", min_ops)
                            : fmt::format("{} to {}", min_ops, max_ops),
                        max_ops == 1 ? "" : "s", o.size()));
    return true;
  }
  Addr a;
  if (!c.address(o[addr_at], ms, a))
    return true;
  uint32_t arg = kNone, dst = kNone, hint = kNone;
  if (op == MbarOp::Init || op == MbarOp::ExpectTx ||
      op == MbarOp::CompleteTx) {
    if (o[1].kind == K::Imm && op == MbarOp::Init &&
        (o[1].ival < 1 || o[1].ival > int64_t(kMaxCount))) {
      c.error(o[1].loc, fmt::format("mbarrier.init count {} is outside [1, {}]",
                                    o[1].ival, kMaxCount));
      return true;
    }
    arg = c.src(o[1], Ty{Ty::U32});
  }
  if (is_arrive) {
    if (space == kAddrSharedCluster && o[0].kind != K::Sink) {
      c.error(o[0].loc, "a remote (.shared::cluster) mbarrier.arrive returns "
                        "no state: its destination must be the sink '_'");
      return true;
    }
    if (o.size() == 3) {
      if (o[2].kind == K::Imm && !(flags & kMbarExpectTx) &&
          (o[2].ival < 1 || o[2].ival > int64_t(kMaxCount))) {
        c.error(o[2].loc, fmt::format("arrival count {} is outside [1, {}]",
                                      o[2].ival, kMaxCount));
        return true;
      }
      arg = c.src(o[2], Ty{Ty::U32});
    }
    dst = c.dst(o[0]);
  }
  if (is_wait) {
    dst = c.pdst(o[0]);
    arg = c.src(o[2], Ty{(flags & kMbarParity) ? Ty::U32 : Ty::B64});
    if (o.size() == 4) {
      hint = c.src(o[3], Ty{Ty::U32});
      flags |= kMbarHint;
    }
  }
  Inst &i = c.emit_with(is_wait ? nullptr : &exec_mbar,
                        MbarOps{uint8_t(op), flags, space},
                        is_wait ? Kind::MbarWait : Kind::Plain);
  i.a[0] = a.base;
  i.imm = a.off;
  i.a[1] = dst;
  i.a[2] = arg;
  i.a[3] = hint;
  i.order = uint8_t(order);
  i.scope = uint8_t(scope);
  return true;
}

} // namespace bcusim::engine::detail
