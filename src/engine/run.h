// The scheduler: runs a launch's CTAs (on one or more host threads), the
// warps of resident CTAs round-robin, and the divergent paths of a warp
// (independent thread scheduling). Internal to src/engine.
#pragma once

#include "exec.h"

namespace bcusim::engine::detail {

// Formats one lane's vprintf call into `out`; returns the number of
// arguments consumed, or -1 after setting a fault in `x`.
int format_printf(Exec &x, uint64_t fmt_addr, uint64_t args_addr, uint32_t lane,
                  std::string &out);

RunReport run_launch(GlobalMemory &mem, const Launch &launch,
                     const LaunchConfig &cfg);

} // namespace bcusim::engine::detail
