// The BCU barrier unit golden model. Rules cite seed 001 (sections
// BAR/__Semantics, BAR_RED/__Semantics, B2R, B2R_RESULT, R2B); the decisions
// the seed leaves open are in docs/bcu.md and cited by their heading.
#include "bcusim/bcu/barrier_unit.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include <fmt/format.h>

namespace bcusim::bcu {
namespace {

constexpr uint32_t kAllLanes = 0xffffffffu;
constexpr uint32_t kBarIdMask = 0xF;   // "只有最低的4bit是有效的"
constexpr uint32_t kCountMask = 0xFFF; // "只有最低的12bit是有效的"
constexpr uint32_t kPopcMask = 0x7FF;  // the state word's 11-bit field

uint32_t bit(unsigned warp) { return 1u << warp; }

uint32_t read_reg(const LaneValues &values, unsigned lane, unsigned reg) {
  return reg == kRZ ? 0u : values.reg(lane, reg);
}

uint32_t read_pred(const LaneValues &values, unsigned pred) {
  return pred == kPT ? kAllLanes : values.pred(pred);
}

// docs/bcu.md "Instruction operands": a barrier id or count held in a
// register is read from the first (lowest) executing lane.
uint32_t read_source(const Source &source, const LaneValues &values,
                     unsigned lane) {
  switch (source.kind) {
  case Source::Kind::None:
    return 0;
  case Source::Kind::Imm:
    return source.value;
  case Source::Kind::Reg:
    return read_reg(values, lane, source.value);
  }
  return 0;
}

BarrierKind kind_of(Op op) {
  return op == Op::Red ? BarrierKind::Red : BarrierKind::SyncArv;
}

std::string_view kind_text(BarrierKind kind) {
  switch (kind) {
  case BarrierKind::Idle:
    return "idle";
  case BarrierKind::SyncArv:
    return "BAR.SYNC/BAR.ARV";
  case BarrierKind::Red:
    return "BAR.RED";
  }
  return "?";
}

} // namespace

// --- LaneValueTable ---------------------------------------------------------

LaneValueTable::LaneValueTable() : regs_(256) {}

uint32_t LaneValueTable::reg(unsigned lane, unsigned reg) const {
  return reg < regs_.size() && lane < kWarpSize ? regs_[reg][lane] : 0;
}
uint32_t LaneValueTable::pred(unsigned pred) const {
  return pred < preds_.size() ? preds_[pred] : 0;
}
void LaneValueTable::set_reg(unsigned reg, uint32_t value) {
  if (reg < regs_.size())
    regs_[reg].fill(value);
}
void LaneValueTable::set_reg(unsigned reg, unsigned lane, uint32_t value) {
  if (reg < regs_.size() && lane < kWarpSize)
    regs_[reg][lane] = value;
}
void LaneValueTable::set_pred(unsigned pred, uint32_t lanes) {
  if (pred < preds_.size())
    preds_[pred] = lanes;
}

// --- BarrierUnit ------------------------------------------------------------

BarrierUnit::BarrierUnit(unsigned threads)
    : threads_(threads), warps_((threads + kWarpSize - 1) / kWarpSize) {
  if (threads == 0 || threads > kMaxThreads)
    throw std::invalid_argument(fmt::format(
        "CTA thread count {} is outside 1..{}", threads, kMaxThreads));
}

uint32_t BarrierUnit::lane_mask(unsigned warp) const {
  if (warp >= warps_)
    return 0;
  unsigned lanes = std::min(kWarpSize, threads_ - warp * kWarpSize);
  return lanes == kWarpSize ? kAllLanes : (1u << lanes) - 1;
}

void BarrierUnit::emit(Event event) {
  if (observer_)
    observer_(event);
  if (recording_)
    log_.push_back(std::move(event));
}

void BarrierUnit::raise(Outcome &outcome, ExceptionKind kind, int barrier,
                        uint32_t warps, std::optional<Op> op,
                        std::string message) {
  Event e;
  e.kind = EventKind::Exception;
  e.exception = kind;
  e.barrier = barrier;
  e.warps = warps;
  e.op = op;
  e.message = std::move(message);
  if (barrier >= 0)
    e.phase = barriers_[static_cast<unsigned>(barrier)].phase;
  ++outcome.exceptions;
  emit(std::move(e));
}

Outcome BarrierUnit::execute(unsigned warp, uint32_t active, const Instr &instr,
                             const LaneValues &values) {
  Outcome out;
  if (warp >= warps_) {
    raise(out, ExceptionKind::BadWarp, -1, 0, instr.op,
          fmt::format("warp {} does not exist in a CTA of {} threads ({} "
                      "warps); the instruction is ignored",
                      warp, threads_, warps_));
    out.status = Status::Ignored;
    return out;
  }
  Warp &ws = warp_state_[warp];
  if (ws.exited || ws.waiting_on) {
    bool exited = ws.exited;
    raise(out, exited ? ExceptionKind::ExitedWarp : ExceptionKind::BlockedWarp,
          exited ? -1 : static_cast<int>(*ws.waiting_on), bit(warp), instr.op,
          exited ? fmt::format("warp {} has exited and cannot issue {}; the "
                               "instruction is ignored",
                               warp, name(instr.op))
                 : fmt::format("warp {} is blocked on barrier {} and cannot "
                               "issue {}; the instruction is ignored",
                               warp, *ws.waiting_on, name(instr.op)));
    out.status = Status::Ignored;
    return out;
  }

  // Lanes that execute: active, existing and with a true guard. No lane
  // executing means no effect at all (docs/bcu.md "Guard").
  uint32_t guard = read_pred(values, instr.pg);
  if (instr.pg_not)
    guard = ~guard;
  out.executed = active & lane_mask(warp) & guard;
  if (out.executed == 0) {
    out.status = Status::Ignored;
    return out;
  }
  unsigned lane = static_cast<unsigned>(std::countr_zero(out.executed));

  auto write_rd = [&](uint32_t value) {
    if (instr.rd == kRZ)
      return;
    RegWrite w;
    w.reg = instr.rd;
    w.lanes = out.executed;
    for_each_bit(out.executed, [&](unsigned lane) { w.values[lane] = value; });
    out.rd = w;
  };

  switch (instr.op) {
  case Op::Sync:
  case Op::Arrive:
  case Op::Red:
    return arrive(warp, out.executed, instr, values);

  case Op::Result: {
    // B2R_RESULT/__Semantics: the warp's copy of its last reduction.
    StateWord copy = StateWord::unpack(ws.copy);
    uint32_t rd_value = 0;
    bool pu_value = false;
    if (!copy.valid) {
      raise(out, ExceptionKind::UndefinedResult, -1, bit(warp), instr.op,
            fmt::format("BAR.RESULT before warp {} took part in any "
                        "reduction: Rd and pu are undefined; the unit "
                        "writes 0 and false",
                        warp));
    } else {
      rd_value = copy.popc;
      pu_value = copy.logical_result();
      if (copy.redop != RedOp::Popc && instr.rd != kRZ)
        raise(out, ExceptionKind::UndefinedResult, -1, bit(warp), instr.op,
              fmt::format("the last reduction of warp {} was BAR.RED.{}: only "
                          "pu is defined; Rd gets the popcount {}",
                          warp, name(copy.redop), copy.popc));
      if (copy.redop == RedOp::Popc && instr.pu != kPT)
        raise(out, ExceptionKind::UndefinedResult, -1, bit(warp), instr.op,
              fmt::format("the last reduction of warp {} was BAR.RED.POPC: "
                          "only Rd is defined; pu gets popcount != 0 ({})",
                          warp, pu_value ? "true" : "false"));
    }
    write_rd(rd_value);
    if (instr.pu != kPT) {
      PredWrite p;
      p.pred = instr.pu;
      p.lanes = out.executed;
      p.values = pu_value ? out.executed : 0;
      out.pu = p;
    }
    return out;
  }

  case Op::B2RBar: {
    unsigned id = read_source(instr.barid, values, lane) & kBarIdMask;
    out.barrier = static_cast<int>(id);
    uint32_t word = bar_state(id);
    write_rd(word);
    Event e;
    e.kind = EventKind::Save;
    e.barrier = static_cast<int>(id);
    e.warps = bit(warp);
    e.state = word;
    e.phase = barriers_[id].phase;
    emit(std::move(e));
    return out;
  }

  case Op::B2RWarp: {
    if (!StateWord::unpack(ws.copy).valid)
      raise(out, ExceptionKind::UndefinedResult, -1, bit(warp), instr.op,
            fmt::format("B2R.WARP before warp {} took part in any reduction: "
                        "Rd is undefined; the unit writes the copy as it is "
                        "({:#010x})",
                        warp, ws.copy));
    write_rd(ws.copy);
    Event e;
    e.kind = EventKind::Save;
    e.warps = bit(warp);
    e.state = ws.copy;
    emit(std::move(e));
    return out;
  }

  case Op::R2BBar: {
    // R2B/__Semantics: setBarState. The counters and accumulators are
    // restored; completion is not evaluated here (docs/bcu.md "Save and
    // restore").
    unsigned id = read_source(instr.barid, values, lane) & kBarIdMask;
    out.barrier = static_cast<int>(id);
    StateWord s = StateWord::unpack(read_reg(values, lane, instr.ra));
    Barrier &bar = barriers_[id];
    bar.arrived = s.arrived;
    bar.expected = s.expected;
    bar.kind = s.kind;
    bar.redop = s.redop;
    bar.popc = s.popc;
    bar.any_false = s.any_false;
    bar.arrived_set = 0;
    bar.red_participants = 0;
    Event e;
    e.kind = EventKind::Restore;
    e.barrier = static_cast<int>(id);
    e.warps = bit(warp);
    e.state = bar_state(id);
    e.phase = bar.phase;
    emit(std::move(e));
    return out;
  }

  case Op::R2BWarp: {
    ws.copy = StateWord::unpack(read_reg(values, lane, instr.ra)).pack();
    Event e;
    e.kind = EventKind::Restore;
    e.warps = bit(warp);
    e.state = ws.copy;
    emit(std::move(e));
    return out;
  }
  }
  return out;
}

Outcome BarrierUnit::arrive(unsigned warp, uint32_t executed,
                            const Instr &instr, const LaneValues &values) {
  Outcome out;
  out.executed = executed;
  unsigned lane = static_cast<unsigned>(std::countr_zero(executed));

  // Operands, truncated to 4 and 12 bits (BAR/__OperandInfo); the packed
  // two-operand BAR.RED form holds both in one register (SPEC-NOTES 4).
  unsigned id = 0;
  unsigned count = 0;
  if (instr.packed) {
    uint32_t v = read_source(instr.barid, values, lane);
    id = v & kBarIdMask;
    count = (v >> 4) & kCountMask;
  } else {
    id = read_source(instr.barid, values, lane) & kBarIdMask;
    count = read_source(instr.count, values, lane) & kCountMask;
  }
  out.barrier = static_cast<int>(id);
  Barrier &bar = barriers_[id];
  Warp &ws = warp_state_[warp];

  // docs/bcu.md "Counts": multiples of 32 up to the CTA's 32 x warps; a
  // count that is not a multiple of 32 is rounded up after the exception.
  unsigned cta_threads = warps_ * kWarpSize;
  if (count % kWarpSize != 0)
    raise(out, ExceptionKind::BadCount, static_cast<int>(id), bit(warp),
          instr.op,
          fmt::format("count {} is not a multiple of 32; the unit rounds it "
                      "up to {} and the arrival counts",
                      count, (count + kWarpSize - 1) / kWarpSize * kWarpSize));
  if (count > cta_threads)
    raise(out, ExceptionKind::BadCount, static_cast<int>(id), bit(warp),
          instr.op,
          fmt::format("count {} exceeds the CTA's {} threads ({} warps x 32); "
                      "the arrival counts, and the barrier completes only if "
                      "that many arrivals come",
                      count, cta_threads, warps_));
  if (instr.op == Op::Arrive && count == 0)
    raise(out, ExceptionKind::BadCount, static_cast<int>(id), bit(warp),
          instr.op,
          "BAR.ARV requires a count > 0; the unit treats it as count 0 (all "
          "live warps) and the arrival counts");
  unsigned expected = std::min<unsigned>((count + kWarpSize - 1) / kWarpSize,
                                         StateWord::kMaxWarpCount);

  // PTX: "arrive followed by any other barrier instruction" to the same
  // barrier before it resets is undefined; the unit counts it anyway.
  if (bar.arrived_set & bit(warp))
    raise(out, ExceptionKind::DoubleArrival, static_cast<int>(id), bit(warp),
          instr.op,
          fmt::format("warp {} already arrived at barrier {} in phase {}; "
                      "the arrival counts again",
                      warp, id, bar.phase));

  BarrierKind kind = kind_of(instr.op);
  if (bar.kind != BarrierKind::Idle) {
    // BAR_RED/__Semantics 注意事项: BAR.RED must not share a barrier with
    // BAR.SYNC/BAR.ARV. The phase keeps its kind (docs/bcu.md "Exceptions").
    std::string_view op_name = instr.op == Op::Red ? "BAR.RED" : name(instr.op);
    if (kind != bar.kind)
      raise(out, ExceptionKind::RedMixed, static_cast<int>(id),
            bar.arrived_set | bit(warp), instr.op,
            fmt::format("{} on barrier {} while a {} phase is in progress; "
                        "the arrival counts and the phase stays {}",
                        op_name, id, kind_text(bar.kind), kind_text(bar.kind)));
    else if (bar.mixed)
      raise(out, ExceptionKind::RedMixed, static_cast<int>(id),
            bar.arrived_set | bit(warp), instr.op,
            fmt::format("{} on barrier {}, where BAR.RED and "
                        "BAR.SYNC/BAR.ARV already arrived in this phase; the "
                        "arrival counts",
                        op_name, id));
    bar.mixed = bar.mixed || kind != bar.kind;
    // BAR/__Semantics: cooperating warps must use the same count. The
    // latest count wins (docs/bcu.md "Exceptions").
    if (expected != bar.expected)
      raise(out, ExceptionKind::CountMismatch, static_cast<int>(id),
            bar.arrived_set | bit(warp), instr.op,
            fmt::format("count {} differs from count {} of the warps already "
                        "at barrier {}; the arrival counts and the barrier "
                        "now expects {}",
                        count, bar.expected * kWarpSize, id, count));
  } else {
    bar.kind = kind;
    bar.redop = instr.redop;
  }
  bar.expected = expected;

  // +32 per executing warp whatever its active mask (BAR/__Semantics,
  // BAR_RED "barrier计数规则"); the counter is a 12-bit thread count.
  bar.arrived = (bar.arrived + 1) & StateWord::kMaxWarpCount;
  bar.arrived_set |= bit(warp);
  if (instr.op == Op::Red) {
    // Only lanes that executed contribute their (possibly negated) pp.
    uint32_t preds = read_pred(values, instr.pp);
    if (instr.pp_not)
      preds = ~preds;
    bar.popc =
        (bar.popc + static_cast<unsigned>(std::popcount(preds & executed))) &
        kPopcMask;
    bar.any_false = bar.any_false || (executed & ~preds) != 0;
    bar.red_participants |= bit(warp);
    ws.pending_redop = instr.redop;
  }

  if (observed()) {
    Event e;
    e.kind = EventKind::Arrive;
    e.barrier = static_cast<int>(id);
    e.warps = bit(warp);
    e.op = instr.op;
    e.redop = instr.redop;
    e.arrived = bar.arrived * kWarpSize;
    e.expected = bar.expected * kWarpSize;
    e.phase = bar.phase;
    emit(std::move(e));
  }

  if (is_complete(bar)) {
    out.woken = complete(id); // the completing warp itself goes on
    out.status = Status::Continue;
  } else if (instr.op == Op::Arrive) {
    out.status = Status::Continue; // BAR.ARV never blocks
  } else {
    // BAR.SYNC/BAR.RED block the whole warp, even under divergence.
    bar.waiting |= bit(warp);
    ws.waiting_on = id;
    out.status = Status::Blocked;
  }
  return out;
}

bool BarrierUnit::is_complete(const Barrier &bar) const {
  // Count 0: count + 32 x exited warps = 32 x ceil(threads / 32) (the
  // partial last warp counts as 32, docs/bcu.md "Counts"). Count > 0:
  // count = expected. `>=` equals `=` for every program without exceptions.
  if (bar.expected == 0)
    return bar.arrived + exited_count_ >= warps_;
  return bar.arrived >= bar.expected;
}

uint32_t BarrierUnit::complete(unsigned id) {
  Barrier &bar = barriers_[id];
  if (observed()) {
    Event done;
    done.kind = EventKind::Complete;
    done.barrier = static_cast<int>(id);
    done.warps = bar.arrived_set;
    done.arrived = bar.arrived * kWarpSize;
    done.expected = bar.expected * kWarpSize;
    done.phase = bar.phase;
    emit(std::move(done));
  }

  // BAR_RED "归约计算": every participating warp gets its own copy.
  for_each_bit(bar.red_participants, [&](unsigned warp) {
    Warp &ws = warp_state_[warp];
    StateWord copy;
    copy.arrived = bar.arrived;
    copy.expected = bar.expected;
    copy.kind = BarrierKind::Red;
    copy.redop = ws.pending_redop;
    copy.popc = bar.popc;
    copy.any_false = bar.any_false;
    copy.valid = true;
    ws.copy = copy.pack();
  });

  uint32_t woken = bar.waiting;
  for_each_bit(woken,
               [&](unsigned warp) { warp_state_[warp].waiting_on.reset(); });
  if (woken != 0 && observed()) {
    Event wake;
    wake.kind = EventKind::Wake;
    wake.barrier = static_cast<int>(id);
    wake.warps = woken;
    wake.phase = bar.phase;
    emit(std::move(wake));
  }
  released_ |= woken;

  uint64_t next_phase = bar.phase + 1;
  bar = Barrier{};
  bar.phase = next_phase;
  return woken;
}

uint32_t BarrierUnit::warp_exited(unsigned warp) {
  Outcome ignored;
  if (warp >= warps_) {
    raise(ignored, ExceptionKind::BadWarp, -1, 0, std::nullopt,
          fmt::format("warp {} does not exist in a CTA of {} warps; the exit "
                      "is ignored",
                      warp, warps_));
    return 0;
  }
  Warp &ws = warp_state_[warp];
  if (ws.exited) {
    raise(ignored, ExceptionKind::ExitedWarp, -1, bit(warp), std::nullopt,
          fmt::format("warp {} has already exited; the exit is ignored", warp));
    return 0;
  }
  if (ws.waiting_on) {
    raise(ignored, ExceptionKind::BlockedWarp, static_cast<int>(*ws.waiting_on),
          bit(warp), std::nullopt,
          fmt::format("warp {} is blocked on barrier {} and cannot exit; the "
                      "exit is ignored",
                      warp, *ws.waiting_on));
    return 0;
  }
  ws.exited = true;
  ++exited_count_;
  Event e;
  e.kind = EventKind::Exit;
  e.warps = bit(warp);
  emit(std::move(e));

  // An exit adds 32 to every count-0 completion condition.
  uint32_t woken = 0;
  for (unsigned id = 0; id < kNumBarriers; ++id) {
    const Barrier &bar = barriers_[id];
    if (bar.kind != BarrierKind::Idle && bar.expected == 0 && is_complete(bar))
      woken |= complete(id);
  }
  return woken;
}

void BarrierUnit::resume_blocked(unsigned warp, unsigned barrier) {
  if (warp >= warps_ || barrier >= kNumBarriers)
    return;
  Barrier &bar = barriers_[barrier];
  Warp &ws = warp_state_[warp];
  ws.waiting_on = barrier;
  bar.waiting |= bit(warp);
  bar.arrived_set |= bit(warp);
  if (bar.kind == BarrierKind::Red) {
    bar.red_participants |= bit(warp);
    ws.pending_redop = bar.redop;
  }
}

bool BarrierUnit::is_exited(unsigned warp) const {
  return warp < warps_ && warp_state_[warp].exited;
}
bool BarrierUnit::is_blocked(unsigned warp) const {
  return warp < warps_ && warp_state_[warp].waiting_on.has_value();
}
std::optional<unsigned> BarrierUnit::waiting_on(unsigned warp) const {
  return warp < warps_ ? warp_state_[warp].waiting_on : std::nullopt;
}
uint32_t BarrierUnit::blocked_warps() const {
  uint32_t m = 0;
  for (unsigned w = 0; w < warps_; ++w)
    if (warp_state_[w].waiting_on)
      m |= bit(w);
  return m;
}
uint32_t BarrierUnit::exited_warps() const {
  uint32_t m = 0;
  for (unsigned w = 0; w < warps_; ++w)
    if (warp_state_[w].exited)
      m |= bit(w);
  return m;
}
uint32_t BarrierUnit::take_released() {
  uint32_t r = released_;
  released_ = 0;
  return r;
}

StateWord BarrierUnit::fields_of(const Barrier &bar) const {
  StateWord s;
  s.arrived = bar.arrived;
  s.expected = bar.expected;
  s.kind = bar.kind;
  s.redop = bar.kind == BarrierKind::Idle ? RedOp::And : bar.redop;
  s.popc = bar.popc;
  s.any_false = bar.any_false;
  return s;
}

uint32_t BarrierUnit::bar_state(unsigned barrier) const {
  return bar_state_fields(barrier).pack();
}
StateWord BarrierUnit::bar_state_fields(unsigned barrier) const {
  return barrier < kNumBarriers ? fields_of(barriers_[barrier]) : StateWord{};
}
uint32_t BarrierUnit::warp_state(unsigned warp) const {
  return warp < warps_ ? warp_state_[warp].copy : 0;
}
bool BarrierUnit::reduction_performed(unsigned warp) const {
  return StateWord::unpack(warp_state(warp)).valid;
}
uint64_t BarrierUnit::phase(unsigned barrier) const {
  return barrier < kNumBarriers ? barriers_[barrier].phase : 0;
}

BarrierStatus BarrierUnit::status(unsigned barrier) const {
  BarrierStatus s;
  if (barrier >= kNumBarriers)
    return s;
  const Barrier &bar = barriers_[barrier];
  s.barrier = barrier;
  s.kind = bar.kind;
  s.waiting = bar.waiting;
  s.arrived = bar.arrived_set;
  s.arrived_threads = bar.arrived * kWarpSize;
  s.all_live_warps = bar.expected == 0;
  unsigned target = s.all_live_warps ? warps_ - exited_count_ : bar.expected;
  s.expected_threads = target * kWarpSize;
  unsigned missing = target > bar.arrived ? target - bar.arrived : 0;
  s.missing_threads = missing * kWarpSize;
  uint32_t all = warps_ == 32 ? kAllLanes : (1u << warps_) - 1;
  s.candidates = all & ~exited_warps() & ~blocked_warps() & ~bar.arrived_set;
  // Optimistic: each candidate warp arrives (or, for count 0, exits) once.
  s.can_complete =
      bar.kind == BarrierKind::Idle ||
      missing <= static_cast<unsigned>(std::popcount(s.candidates));
  return s;
}

std::vector<BarrierStatus> BarrierUnit::liveness() const {
  std::vector<BarrierStatus> out;
  for (unsigned id = 0; id < kNumBarriers; ++id)
    if (barriers_[id].kind != BarrierKind::Idle || barriers_[id].arrived != 0)
      out.push_back(status(id));
  return out;
}

void BarrierUnit::set_observer(std::function<void(const Event &)> observer) {
  observer_ = std::move(observer);
}

std::vector<Event> BarrierUnit::take_events() {
  std::vector<Event> out;
  out.swap(log_);
  return out;
}

} // namespace bcusim::bcu
