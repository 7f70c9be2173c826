// Basic blocks and immediate post-dominators of a compiled function
// (docs/engine.md "Reconvergence"). Internal to src/engine.
#pragma once

#include <cstdint>
#include <vector>

#include "code.h"

namespace bcusim::engine::detail {

// The control-flow graph of the function at [begin, end) of a program's
// code. Blocks are numbered in pc order; block n (= the number of blocks)
// is the virtual exit that every exit, ret and trap leads to.
struct FunctionCfg {
  std::vector<uint32_t> start; // first pc of each block, increasing
  // Per block: the blocks control may go to next (the virtual exit
  // included).
  std::vector<std::vector<uint32_t>> succ;
  // Per block: its immediate post-dominator (a block, the virtual exit),
  // or kNone when no exit can be reached from it (an endless loop).
  std::vector<uint32_t> ipdom;
  uint32_t exit() const { return uint32_t(start.size()); }
  // The block holding pc.
  uint32_t block_of(uint32_t pc) const;
};

// Splits [begin, end) into basic blocks (a block ends at a branch, exit,
// ret or trap, and before a branch target) and computes each block's
// immediate post-dominator on the reverse graph (Cooper, Harvey and
// Kennedy's iterative algorithm, from the virtual exit).
FunctionCfg build_cfg(const std::vector<Inst> &code, uint32_t begin,
                      uint32_t end);

// Program::reconv for the function at [begin, end): per branch, the first
// pc of the immediate post-dominator of its block (kNone when that is the
// function's exit or there is none).
void record_reconvergence(Program &prog, uint32_t begin, uint32_t end);

} // namespace bcusim::engine::detail
