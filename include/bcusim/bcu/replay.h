// `bcusim replay FILE`: co-simulation trace replay through the barrier unit.
// The format is documented in docs/bcu.md ("Replay format").
#pragma once

#include <ostream>

#include "bcusim/support/diagnostics.h"

namespace bcusim::bcu {

// Replays `trace`: prints each event's effect to `out`, checks every
// expectation, and stops at the first parse error or failed expectation
// (reported into `sink` as `file:line:col: error:`). Returns true when the
// whole trace was replayed and every expectation held.
bool replay(const SourceFile &trace, std::ostream &out, DiagnosticSink &sink);

} // namespace bcusim::bcu
