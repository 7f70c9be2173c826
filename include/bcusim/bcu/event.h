// The barrier unit's event stream: what checkers and trace viewers consume.
// Each event has a stable textual rendering (docs/bcu.md, "Event stream").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bcusim/bcu/instr.h"

namespace bcusim::bcu {

enum class EventKind : uint8_t {
  Arrive,    // a warp arrived at a barrier (BAR.SYNC/ARV/RED)
  Complete,  // a barrier completed a phase (count reset to 0)
  Wake,      // warps blocked on the barrier were released
  Exception, // a run-time exception (a rule of the spec was broken)
  Save,      // B2R read a barrier's state or a warp's copy
  Restore,   // R2B wrote a barrier's state or a warp's copy
  Exit,      // a warp exited
};

// Stable names of the run-time exceptions (docs/bcu.md, "Exceptions").
enum class ExceptionKind : uint8_t {
  CountMismatch,   // "count-mismatch": cooperating warps, different counts
  RedMixed,        // "red-mixed": BAR.RED with BAR.SYNC/ARV on one barrier
  BadCount,        // "bad-count": count % 32 != 0, > CTA, or BAR.ARV with 0
  DoubleArrival,   // "double-arrival": arrived again in the same phase
  UndefinedResult, // "undefined-result": B2R.WARP/BAR.RESULT value undefined
  ExitedWarp,      // "exited-warp": an exited warp issued an instruction
  BlockedWarp,     // "blocked-warp": a blocked warp issued or exited
  BadWarp,         // "bad-warp": warp id outside the CTA
};

std::string_view name(EventKind kind);
std::string_view name(ExceptionKind kind);
std::optional<ExceptionKind> exception_kind_from_name(std::string_view name);

struct Event {
  EventKind kind = EventKind::Arrive;
  int barrier = -1;   // -1: none (warp copies, exits)
  uint32_t warps = 0; // bit w = warp w (a CTA has at most 32 warps)
  // Arrive: the operation. Exception: the instruction's operation when the
  // exception came from one.
  std::optional<Op> op;
  RedOp redop = RedOp::And;
  unsigned arrived = 0;  // threads (arrivals x 32), after the arrival
  unsigned expected = 0; // threads; 0 = all live warps
  uint64_t phase = 0;    // the barrier's phase (completions so far)
  uint32_t state = 0;    // Save/Restore: the state word
  ExceptionKind exception = ExceptionKind::CountMismatch;
  std::string message; // Exception: the rule broken and what happens next
};

// One line, e.g. "arrive bar=1 warp=3 op=BAR.SYNC arrived=64 expected=128".
std::string render(const Event &event);
// "{0,3,5}"
std::string render_warps(uint32_t warps);

} // namespace bcusim::bcu
