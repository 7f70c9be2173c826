// Which `add`/`sub` instructions the PTX assembler fuses with the `mul`
// that feeds them (docs/engine.md "Multiply-add contraction"). The rule was
// read off the machine code ptxas (CUDA 13.0) makes for sm_90 and checked
// against the results of an NVIDIA H200 (driver 580.159.04), whose JIT
// compiler contracts the same way.
#include "contract.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace bcusim::engine::detail {
namespace {

using ptx::Mod;
using ptx::Op;
using ptx::Operand;

// The shape of a plain floating-point add, sub, mul or neg: f32, f64, f16,
// bf16 or their pairs (not .f32x2, not measured), no rounding modifier (with
// one, PTX forbids contraction). Only an add or sub may have a guard (the
// assembler fuses into a predicated add; what it does with a predicated mul was
// not measured: not fused).
struct Plain {
  Mod type;
  bool ftz;
  bool sat;
};

std::optional<Plain> plain(const ptx::Instruction &in) {
  if (in.op != Op::add && in.op != Op::sub && in.op != Op::mul &&
      in.op != Op::neg)
    return std::nullopt;
  if ((in.guard && in.op != Op::add && in.op != Op::sub) ||
      in.has(Mod::f32x2) ||
      in.has_any({Mod::rn, Mod::rz, Mod::rm, Mod::rp, Mod::approx}))
    return std::nullopt;
  std::optional<Mod> type;
  for (Mod t :
       {Mod::f32, Mod::f64, Mod::f16, Mod::f16x2, Mod::bf16, Mod::bf16x2})
    if (in.has(t)) {
      if (type)
        return std::nullopt;
      type = t;
    }
  if (!type)
    return std::nullopt;
  const size_t want = in.op == Op::neg ? 2 : 3;
  if (in.operands.size() != want || in.operands[0].kind != Operand::Kind::Reg)
    return std::nullopt;
  return Plain{*type, in.has(Mod::ftz), in.has(Mod::sat)};
}

bool is_control(Op op) {
  return op == Op::bra || op == Op::brx || op == Op::call || op == Op::ret ||
         op == Op::exit || op == Op::trap;
}

void collect(const Operand &o, std::vector<uint32_t> &out) {
  if (o.kind == Operand::Kind::Reg)
    out.push_back(o.reg);
  for (const auto &e : o.elems)
    collect(e, out);
}

// The registers an instruction writes (its first operand: a register, or
// the registers of a vector, pair or return list) and reads (the rest, and
// the base of an address in first place).
void defs_and_uses(const ptx::Instruction &in, std::vector<uint32_t> &defs,
                   std::vector<uint32_t> &uses) {
  for (size_t k = 0; k < in.operands.size(); ++k) {
    const Operand &o = in.operands[k];
    if (k == 0 && o.kind != Operand::Kind::Address)
      collect(o, defs);
    else
      collect(o, uses);
  }
}

class Analysis {
public:
  explicit Analysis(const ptx::Function &f) : f_(f), block_(f.body.size()) {
    std::vector<bool> leader(f.body.size() + 1, false);
    for (const auto &[name, idx] : f.labels)
      if (idx < leader.size())
        leader[idx] = true;
    uint32_t b = 0;
    std::vector<uint32_t> d, u;
    for (size_t i = 0; i < f.body.size(); ++i) {
      if (i > 0 && (leader[i] || is_control(f.body[i - 1].op)))
        ++b;
      block_[i] = b;
      d.clear();
      u.clear();
      defs_and_uses(f.body[i], d, u);
      for (uint32_t r : d)
        defs_[r].push_back(uint32_t(i));
      for (uint32_t r : u)
        uses_[r].push_back(uint32_t(i));
    }
  }

  Contraction at(uint32_t i) const {
    const auto &in = f_.body[i];
    if (in.op != Op::add && in.op != Op::sub)
      return {};
    const auto shape = plain(in);
    if (!shape)
      return {};
    const Operand &x = in.operands[1], &y = in.operands[2];
    if (x.kind == Operand::Kind::Reg && y.kind == Operand::Kind::Reg &&
        x.reg == y.reg)
      return {};
    // With two products to choose from, the first operand's is fused.
    for (uint8_t k = 1; k <= 2; ++k)
      if (auto c = fuse(i, *shape, k))
        return *c;
    return {};
  }

private:
  // The last definition of `reg` before `i` in `i`'s block.
  std::optional<uint32_t> def_before(uint32_t reg, uint32_t i) const {
    auto it = defs_.find(reg);
    if (it == defs_.end())
      return std::nullopt;
    std::optional<uint32_t> best;
    for (uint32_t j : it->second)
      if (j < i && block_[j] == block_[i])
        best = j;
    return best;
  }
  bool redefined_between(uint32_t reg, uint32_t lo, uint32_t hi) const {
    auto it = defs_.find(reg);
    if (it == defs_.end())
      return false;
    return std::any_of(it->second.begin(), it->second.end(),
                       [&](uint32_t j) { return j > lo && j < hi; });
  }
  static bool same(const Plain &a, const Plain &b) {
    return a.type == b.type && a.ftz == b.ftz;
  }
  // Whether every instruction that reads the value `reg` gets at `j` is an
  // add or sub of `shape` (or, when `negs`, a neg of `shape` whose value
  // only such adds read). The value must not leave the block: when no later
  // instruction of the block redefines `reg`, every read of `reg` in the
  // function must come after `j` in the block.
  bool consumers_ok(uint32_t reg, uint32_t j, const Plain &shape,
                    bool negs) const {
    uint32_t end = ~0u; // the redefinition that ends the value's life
    if (auto it = defs_.find(reg); it != defs_.end())
      for (uint32_t k : it->second)
        if (k > j && block_[k] == block_[j]) {
          end = k;
          break;
        }
    auto it = uses_.find(reg);
    if (it == uses_.end())
      return false; // nothing to fuse into
    bool any = false;
    for (uint32_t u : it->second) {
      const bool inside = u > j && block_[u] == block_[j] && u <= end;
      if (!inside) {
        if (end == ~0u)
          return false; // may be read after the block, or before `j`
        continue;       // reads another definition
      }
      const auto &in = f_.body[u];
      const auto s = plain(in);
      if (!s || !same(*s, shape))
        return false;
      if (in.op == Op::add || in.op == Op::sub) {
        const Operand &a = in.operands[1], &b = in.operands[2];
        const bool ra = a.kind == Operand::Kind::Reg && a.reg == reg;
        const bool rb = b.kind == Operand::Kind::Reg && b.reg == reg;
        if (ra == rb)
          return false;
      } else if (in.op == Op::neg && negs) {
        if (!consumers_ok(in.operands[0].reg, u, shape, false))
          return false;
      } else {
        return false;
      }
      any = true;
    }
    return any;
  }

  std::optional<Contraction> fuse(uint32_t i, const Plain &shape,
                                  uint8_t k) const {
    const auto &in = f_.body[i];
    const Operand &o = in.operands[k];
    if (o.kind != Operand::Kind::Reg)
      return std::nullopt;
    auto j = def_before(o.reg, i);
    if (!j)
      return std::nullopt;
    Contraction c;
    uint32_t m = *j;
    const auto &x = f_.body[m];
    auto sx = plain(x);
    if (!sx || !same(*sx, shape))
      return std::nullopt;
    if (x.op == Op::neg) {
      // add(neg(mul(a, b)), c): the product's sign flips.
      if (x.operands[1].kind != Operand::Kind::Reg ||
          !consumers_ok(o.reg, m, shape, false))
        return std::nullopt;
      auto jm = def_before(x.operands[1].reg, m);
      if (!jm)
        return std::nullopt;
      c.neg_product = true;
      m = *jm;
      sx = plain(f_.body[m]);
      if (!sx || !same(*sx, shape))
        return std::nullopt;
    }
    const auto &mul = f_.body[m];
    if (mul.op != Op::mul || sx->sat ||
        !consumers_ok(mul.operands[0].reg, m, shape, true))
      return std::nullopt;
    // The product's sources must still hold their values at the add.
    for (size_t s = 1; s <= 2; ++s) {
      const Operand &src = mul.operands[s];
      if (src.kind == Operand::Kind::Reg &&
          (src.reg == mul.operands[0].reg || redefined_between(src.reg, m, i)))
        return std::nullopt;
      if (src.kind != Operand::Kind::Reg && src.kind != Operand::Kind::Imm &&
          src.kind != Operand::Kind::FImm)
        return std::nullopt;
    }
    c.mul = m;
    c.addend = uint8_t(3 - k);
    if (in.op == Op::sub) {
      if (k == 1)
        c.neg_addend = true; // p - c
      else
        c.neg_product = !c.neg_product; // c - p
    }
    return c;
  }

  const ptx::Function &f_;
  std::vector<uint32_t> block_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> defs_, uses_;
};

} // namespace

std::vector<Contraction> find_contractions(const ptx::Function &f) {
  std::vector<Contraction> out(f.body.size());
  bool any = false;
  for (const auto &in : f.body)
    if (in.op == Op::mul && !in.has(Mod::rn)) {
      any = true;
      break;
    }
  if (!any)
    return out;
  Analysis a(f);
  for (size_t i = 0; i < f.body.size(); ++i)
    out[i] = a.at(uint32_t(i));
  return out;
}

} // namespace bcusim::engine::detail
