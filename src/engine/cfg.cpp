// Basic blocks and immediate post-dominators (docs/engine.md
// "Reconvergence").
#include "cfg.h"

#include <algorithm>

namespace bcusim::engine::detail {

namespace {

bool ends_block(Kind k) {
  return k == Kind::Branch || k == Kind::Exit || k == Kind::Ret ||
         k == Kind::Trap;
}

} // namespace

uint32_t FunctionCfg::block_of(uint32_t pc) const {
  auto it = std::upper_bound(start.begin(), start.end(), pc);
  return uint32_t(it - start.begin()) - 1;
}

FunctionCfg build_cfg(const std::vector<Inst> &code, uint32_t begin,
                      uint32_t end) {
  FunctionCfg g;
  if (begin >= end)
    return g;
  // Leaders: the entry, branch targets, and the instruction after a block
  // end.
  std::vector<uint8_t> leader(end - begin + 1, 0);
  leader[0] = 1;
  for (uint32_t pc = begin; pc < end; ++pc) {
    const Inst &in = code[pc];
    if (in.kind == Kind::Branch && in.target >= begin && in.target < end)
      leader[in.target - begin] = 1;
    if (ends_block(in.kind))
      leader[pc + 1 - begin] = 1;
  }
  for (uint32_t pc = begin; pc < end; ++pc)
    if (leader[pc - begin])
      g.start.push_back(pc);
  const uint32_t n = uint32_t(g.start.size()), exit = n;
  g.succ.resize(n);
  for (uint32_t b = 0; b < n; ++b) {
    const uint32_t last = (b + 1 < n ? g.start[b + 1] : end) - 1;
    const Inst &in = code[last];
    auto add = [&](uint32_t s) {
      if (std::find(g.succ[b].begin(), g.succ[b].end(), s) == g.succ[b].end())
        g.succ[b].push_back(s);
    };
    // Lanes whose guard is false go on to the next instruction.
    const bool falls = !ends_block(in.kind) || in.guard != kNone;
    if (in.kind == Kind::Branch)
      add(in.target >= begin && in.target < end ? g.block_of(in.target) : exit);
    else if (in.kind != Kind::Plain && ends_block(in.kind))
      add(exit);
    if (falls)
      add(last + 1 < end ? b + 1 : exit);
  }
  // Post-dominators: dominators of the reverse graph, rooted at the exit.
  std::vector<std::vector<uint32_t>> pred(n + 1); // reverse-graph successors
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t s : g.succ[b])
      pred[s].push_back(b);
  // Postorder of the reverse graph from the exit (iterative DFS).
  std::vector<uint32_t> order, number(n + 1, kNone);
  std::vector<uint8_t> seen(n + 1, 0);
  std::vector<std::pair<uint32_t, size_t>> stack{{exit, 0}};
  seen[exit] = 1;
  while (!stack.empty()) {
    auto &[v, i] = stack.back();
    if (i < pred[v].size()) {
      const uint32_t u = pred[v][i++];
      if (!seen[u]) {
        seen[u] = 1;
        stack.push_back({u, 0});
      }
    } else {
      number[v] = uint32_t(order.size());
      order.push_back(v);
      stack.pop_back();
    }
  }
  std::vector<uint32_t> idom(n + 1, kNone);
  idom[exit] = exit;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (number[a] < number[b])
        a = idom[a];
      while (number[b] < number[a])
        b = idom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    // Reverse postorder, the root excluded.
    for (size_t k = order.size() - 1; k-- > 0;) {
      const uint32_t v = order[k];
      uint32_t nd = kNone;
      for (uint32_t s : g.succ[v]) // the reverse graph's predecessors
        if (idom[s] != kNone)
          nd = nd == kNone ? s : intersect(s, nd);
      if (nd != idom[v]) {
        idom[v] = nd;
        changed = true;
      }
    }
  }
  g.ipdom.assign(idom.begin(), idom.begin() + n);
  return g;
}

void record_reconvergence(Program &prog, uint32_t begin, uint32_t end) {
  if (prog.reconv.size() < prog.code.size())
    prog.reconv.resize(prog.code.size(), kNone);
  const FunctionCfg g = build_cfg(prog.code, begin, end);
  for (uint32_t b = 0; b < g.start.size(); ++b) {
    const uint32_t last = (b + 1 < g.start.size() ? g.start[b + 1] : end) - 1;
    if (prog.code[last].kind != Kind::Branch)
      continue;
    const uint32_t d = g.ipdom[b];
    prog.reconv[last] = d == kNone || d == g.exit() ? kNone : g.start[d];
  }
}

} // namespace bcusim::engine::detail
