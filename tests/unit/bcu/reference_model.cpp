#include "reference_model.h"

#include <algorithm>

namespace bcusim::bcu::test {

ReferenceModel::ReferenceModel(unsigned threads)
    : threads_(threads), exited_((threads + 31) / 32, false), barriers_(16) {}

bool ReferenceModel::arrived_this_phase(unsigned barrier, unsigned warp) const {
  const auto &a = barriers_[barrier].arrived;
  return std::find(a.begin(), a.end(), warp) != a.end();
}

// "cnt = 0，完成条件是：barrier计数 + 已经完全退出的warp数 * 32 =
// CTA内线程总数", with the CTA's thread count taken as a whole number of warps.
bool ReferenceModel::satisfied(const Barrier &b) const {
  if (b.target == 0) {
    unsigned exited =
        static_cast<unsigned>(std::count(exited_.begin(), exited_.end(), true));
    return b.count + exited * 32 == 32 * exited_.size();
  }
  return b.count == b.target;
}

std::vector<unsigned> ReferenceModel::finish(unsigned barrier) {
  Barrier &b = barriers_[barrier];
  unsigned popc = static_cast<unsigned>(
      std::count(b.predicates.begin(), b.predicates.end(), true));
  bool all = popc == b.predicates.size();
  for (unsigned w : b.reducers) {
    RedOp op = b.redops[w];
    copies_[w] = Copy{op, popc, op == RedOp::And ? all : popc > 0};
  }
  std::vector<unsigned> woken;
  for (auto it = blocked_on_.begin(); it != blocked_on_.end();) {
    if (it->second == barrier) {
      woken.push_back(it->first);
      it = blocked_on_.erase(it);
    } else {
      ++it;
    }
  }
  b = Barrier{};
  return woken;
}

ReferenceModel::Step ReferenceModel::execute(unsigned warp, uint32_t active,
                                             const Instr &in,
                                             const LaneValues &v) {
  Step step;
  // Which threads execute: active, existing in the CTA, guard true.
  std::vector<unsigned> lanes;
  for (unsigned l = 0; l < 32; ++l) {
    unsigned thread = warp * 32 + l;
    if (!(active >> l & 1) || thread >= threads_)
      continue;
    bool guard = in.pg == kPT ? true : (v.pred(in.pg) >> l & 1) != 0;
    if (in.pg_not)
      guard = !guard;
    if (guard)
      lanes.push_back(l);
  }
  if (lanes.empty())
    return step;
  step.executed = true;
  auto reg = [&](unsigned r) {
    return r == kRZ ? 0u : v.reg(lanes.front(), r);
  };
  auto value = [&](const Source &s) {
    return s.kind == Source::Kind::Imm   ? s.value
           : s.kind == Source::Kind::Reg ? reg(s.value)
                                         : 0u;
  };

  if (in.op == Op::Result) {
    const Copy &c = copies_.at(warp);
    step.rd = c.popc;
    step.pu = c.logical;
    return step;
  }

  unsigned id, cnt;
  if (in.packed) {
    uint32_t r = value(in.barid);
    id = r % 16;
    cnt = (r / 16) % 4096;
  } else {
    id = value(in.barid) % 16;
    cnt = value(in.count) % 4096;
  }
  Barrier &b = barriers_[id];
  b.target = cnt;
  b.count += 32; // one warp, whatever its active mask
  b.arrived.push_back(warp);
  if (in.op == Op::Red) {
    for (unsigned l : lanes) {
      bool p = in.pp == kPT ? true : (v.pred(in.pp) >> l & 1) != 0;
      b.predicates.push_back(in.pp_not ? !p : p);
    }
    b.reducers.push_back(warp);
    b.redops[warp] = in.redop;
  }
  if (satisfied(b)) {
    step.woken = finish(id);
  } else if (in.op != Op::Arrive) {
    blocked_on_[warp] = id;
    step.blocked = true;
  }
  std::sort(step.woken.begin(), step.woken.end());
  return step;
}

std::vector<unsigned> ReferenceModel::exit(unsigned warp) {
  exited_[warp] = true;
  std::vector<unsigned> woken;
  for (unsigned id = 0; id < 16; ++id)
    if (!barriers_[id].arrived.empty() && barriers_[id].target == 0 &&
        satisfied(barriers_[id])) {
      auto w = finish(id);
      woken.insert(woken.end(), w.begin(), w.end());
    }
  std::sort(woken.begin(), woken.end());
  return woken;
}

} // namespace bcusim::bcu::test
