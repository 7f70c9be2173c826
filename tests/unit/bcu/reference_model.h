// A deliberately simple second model of the barrier unit, written from the
// text of seed 001 alone, for the differential test. It counts threads (not
// warps), keeps every participating thread's predicate and reduces at
// completion, and handles valid programs only (no exceptions, no state word).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "bcusim/bcu/barrier_unit.h"

namespace bcusim::bcu::test {

class ReferenceModel {
public:
  explicit ReferenceModel(unsigned threads);

  struct Step {
    bool blocked = false;
    bool executed = false;
    std::vector<unsigned> woken; // sorted warp ids
    std::optional<uint32_t> rd;  // BAR.RESULT: the first executing lane's Rd
    std::optional<bool> pu;
  };
  Step execute(unsigned warp, uint32_t active, const Instr &instr,
               const LaneValues &values);
  std::vector<unsigned> exit(unsigned warp);

  bool blocked(unsigned warp) const { return blocked_on_.count(warp) != 0; }
  bool exited(unsigned warp) const { return exited_[warp]; }
  bool arrived_this_phase(unsigned barrier, unsigned warp) const;
  unsigned count(unsigned barrier) const { return barriers_[barrier].count; }
  unsigned warps() const { return static_cast<unsigned>(exited_.size()); }

private:
  struct Barrier {
    unsigned count = 0;            // threads: +32 per arriving warp
    unsigned target = 0;           // SrcCnt of the phase
    std::vector<unsigned> arrived; // warps of this phase
    std::vector<bool> predicates;  // one per participating thread (BAR.RED)
    std::vector<unsigned> reducers;
    std::map<unsigned, RedOp> redops;
  };
  struct Copy {
    RedOp redop;
    unsigned popc;
    bool logical;
  };
  bool satisfied(const Barrier &b) const;
  std::vector<unsigned> finish(unsigned barrier);

  unsigned threads_;
  std::vector<bool> exited_;
  std::map<unsigned, unsigned> blocked_on_;
  std::vector<Barrier> barriers_;
  std::map<unsigned, Copy> copies_;
};

} // namespace bcusim::bcu::test
