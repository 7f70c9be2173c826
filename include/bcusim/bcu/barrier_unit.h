// The golden model of the BCU barrier unit of one CTA (seed 001: BAR.SYNC,
// BAR.ARV, BAR.RED, BAR.RESULT, B2R, R2B). Every decision the seed leaves
// open is written down once, in docs/bcu.md; comments here cite it.
//
// The unit is driven by a warp scheduler (the engine, the replayer, tests):
// `execute` runs one instruction for one warp and says whether the warp
// continues or is blocked; warps blocked on a barrier are released when it
// completes (`take_released`, Wake events). `warp_exited` tells the unit a
// warp has fully exited (count-0 barriers are re-evaluated).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "bcusim/bcu/event.h"
#include "bcusim/bcu/instr.h"
#include "bcusim/bcu/state_word.h"

namespace bcusim::bcu {

// Per-lane register and predicate values of the executing warp. The unit
// never asks for RZ (reads 0) or PT (reads true).
class LaneValues {
public:
  virtual ~LaneValues() = default;
  virtual uint32_t reg(unsigned lane, unsigned reg) const = 0;
  // Bit l = the value of predicate `pred` in lane l.
  virtual uint32_t pred(unsigned pred) const = 0;
};

// A plain table of lane values (tests, the replayer). Unset values are 0 /
// false.
class LaneValueTable final : public LaneValues {
public:
  LaneValueTable();
  uint32_t reg(unsigned lane, unsigned reg) const override;
  uint32_t pred(unsigned pred) const override;
  void set_reg(unsigned reg, uint32_t value); // every lane
  void set_reg(unsigned reg, unsigned lane, uint32_t value);
  void set_pred(unsigned pred, uint32_t lanes);

private:
  std::vector<std::array<uint32_t, kWarpSize>> regs_; // 256 registers
  std::array<uint32_t, 8> preds_{};
};

enum class Status : uint8_t {
  Continue, // the warp goes on with its next instruction
  Blocked,  // the warp waits on `Outcome::barrier`
  Ignored,  // no lane executed (guard false everywhere), or the warp may
            // not issue (exited, blocked, out of range: an exception event)
};

struct RegWrite {
  unsigned reg = kRZ;
  uint32_t lanes = 0; // lanes written (the executing lanes)
  std::array<uint32_t, kWarpSize> values{};
};

struct PredWrite {
  unsigned pred = kPT;
  uint32_t lanes = 0; // lanes written
  uint32_t values = 0;
};

struct Outcome {
  Status status = Status::Continue;
  int barrier = -1;            // the barrier the instruction used, if any
  uint32_t executed = 0;       // lanes that executed (active & guard)
  uint32_t woken = 0;          // warps released by this instruction
  unsigned exceptions = 0;     // exception events raised by this instruction
  std::optional<RegWrite> rd;  // absent when Rd is RZ or nothing executed
  std::optional<PredWrite> pu; // absent when pu is PT or nothing executed
};

// What the liveness query reports about one barrier.
struct BarrierStatus {
  unsigned barrier = 0;
  BarrierKind kind = BarrierKind::Idle;
  uint32_t waiting = 0;          // warps blocked on it
  uint32_t arrived = 0;          // warps known to have arrived in this phase
  unsigned arrived_threads = 0;  // the count (arrivals x 32)
  unsigned expected_threads = 0; // the count it completes at (count 0:
                                 // 32 x (warps - exited warps))
  bool all_live_warps = false;   // count 0 form
  unsigned missing_threads = 0;  // expected - arrived (0 if not below)
  uint32_t candidates = 0; // live warps that may still arrive (or exit, for
                           // count 0): not exited, not blocked, not arrived
  bool can_complete = false;
};

class BarrierUnit {
public:
  // `threads`: the CTA's thread count, 1..1024. Throws std::invalid_argument
  // outside that range (callers validate user input first).
  explicit BarrierUnit(unsigned threads);

  unsigned threads() const { return threads_; }
  unsigned warps() const { return warps_; }
  // Lanes of warp `w` that exist (the last warp may be partial).
  uint32_t lane_mask(unsigned warp) const;

  // Executes `instr` for warp `warp`. `active`: the lanes executing the
  // instruction (before the guard). Operand values come from `values`.
  Outcome execute(unsigned warp, uint32_t active, const Instr &instr,
                  const LaneValues &values);
  // Warp `warp` has fully exited; count-0 barriers are re-evaluated.
  // Returns the warps released by it.
  uint32_t warp_exited(unsigned warp);

  // Context restore (docs/bcu.md, "Save and restore"): marks `warp` as
  // blocked on `barrier` whose restored count already holds its arrival.
  // Counts nothing and checks nothing else.
  void resume_blocked(unsigned warp, unsigned barrier);

  // --- Queries -----------------------------------------------------------
  bool is_exited(unsigned warp) const;
  bool is_blocked(unsigned warp) const;
  std::optional<unsigned> waiting_on(unsigned warp) const;
  uint32_t blocked_warps() const;
  uint32_t exited_warps() const;
  // Warps released since the last call (and clears the set).
  uint32_t take_released();
  // getBarState(b): the barrier's state word.
  uint32_t bar_state(unsigned barrier) const;
  StateWord bar_state_fields(unsigned barrier) const;
  // The warp's copy of its last reduction (WarpBARState).
  uint32_t warp_state(unsigned warp) const;
  bool reduction_performed(unsigned warp) const;
  uint64_t phase(unsigned barrier) const;
  // Liveness: one barrier, or every barrier that is not idle.
  BarrierStatus status(unsigned barrier) const;
  std::vector<BarrierStatus> liveness() const;

  // --- Events --------------------------------------------------------------
  // Every event goes to the observer (if set) and, while recording is on
  // (the default), to the log.
  void set_observer(std::function<void(const Event &)> observer);
  void set_recording(bool on) { recording_ = on; }
  const std::vector<Event> &events() const { return log_; }
  std::vector<Event> take_events();

private:
  struct Barrier {
    unsigned arrived = 0;  // warps, modulo 128 (a 12-bit thread counter)
    unsigned expected = 0; // warps; 0 = all live warps
    BarrierKind kind = BarrierKind::Idle;
    RedOp redop = RedOp::And;
    unsigned popc = 0;
    bool any_false = false;
    uint32_t waiting = 0;
    uint32_t arrived_set = 0;      // warps arrived in this phase (if known)
    uint32_t red_participants = 0; // warps that arrived with BAR.RED
    bool mixed = false; // BAR.RED and BAR.SYNC/ARV both arrived this phase
    uint64_t phase = 0;
  };
  struct Warp {
    std::optional<unsigned> waiting_on;
    bool exited = false;
    uint32_t copy = 0; // WarpBARState (bit 31: reduction performed)
    RedOp pending_redop = RedOp::And; // redop of its BAR.RED in flight
  };

  Outcome arrive(unsigned warp, uint32_t executed, const Instr &instr,
                 const LaneValues &values);
  bool is_complete(const Barrier &bar) const;
  uint32_t complete(unsigned barrier);
  void emit(Event event);
  // Whether anyone consumes events (the hot path skips building them).
  bool observed() const { return recording_ || observer_ != nullptr; }
  void raise(Outcome &outcome, ExceptionKind kind, int barrier, uint32_t warps,
             std::optional<Op> op, std::string message);
  StateWord fields_of(const Barrier &bar) const;

  unsigned threads_;
  unsigned warps_;
  unsigned exited_count_ = 0;
  std::array<Barrier, kNumBarriers> barriers_{};
  std::array<Warp, kMaxWarps> warp_state_{};
  uint32_t released_ = 0;
  bool recording_ = true;
  std::vector<Event> log_;
  std::function<void(const Event &)> observer_;
};

} // namespace bcusim::bcu
