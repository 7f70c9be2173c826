// Warp-level instructions: shfl.sync (up/down/bfly/idx with the clamp and
// segment mask of operand c), vote.sync (all/any/uni/ballot), match.sync
// (any/all), redux.sync, elect.sync, activemask. The scheduler runs a
// warp-synchronous instruction only once every non-exited lane of its member
// mask has reached it (Kind::WarpSync); the lanes that take part are then
// the executing lanes of the member mask. On sm_70 and later they may have
// reached different instructions with the same qualifiers
// (docs/clusters.md "Different instructions"): each collective runs over
// parts, one per instruction, and each lane uses its own instruction's
// operands.
#include <algorithm>
#include <fmt/format.h>

#include "compile.h"

namespace bcusim::engine::detail {

namespace {

using Parts = std::span<const CollectivePart>;

// Operand `k` of every lane: each lane's value from the register its own
// instruction names (lanes outside the parts: the first part's register),
// whose lanes are L.
template <class L>
void gather_as(Exec &x, Parts parts, uint32_t k, uint64_t (&v)[kWarpSize]) {
  const auto *a0 = x.lanes<L>(parts[0].in->a[k]);
  for (uint32_t l = 0; l < kWarpSize; ++l)
    v[l] = a0[l];
  for (const auto &pt : parts.subspan(1)) {
    const auto *a = x.lanes<L>(pt.in->a[k]);
    for_lanes(pt.lanes, [&](uint32_t l) { v[l] = a[l]; });
  }
}
// wide: 64-bit registers (match.sync.b64), else 32-bit.
void gather(Exec &x, Parts parts, uint32_t k, uint64_t (&v)[kWarpSize],
            bool wide) {
  if (wide)
    gather_as<uint64_t>(x, parts, k, v);
  else
    gather_as<uint32_t>(x, parts, k, v);
}

// Predicate operand `k` of the parts' lanes, one bit per lane.
uint32_t gather_pred(Exec &x, Parts parts, uint32_t k) {
  uint32_t v = 0;
  for (const auto &pt : parts)
    v |= x.p[pt.in->a[k]] & pt.lanes;
  return v;
}

// Writes predicate bits `v` of each part's lanes to its operand `k` (when
// the instruction has one).
void scatter_pred(Exec &x, Parts parts, uint32_t k, uint32_t v) {
  for (const auto &pt : parts)
    if (pt.in->a[k] != kNone)
      x.p[pt.in->a[k]] = (x.p[pt.in->a[k]] & ~pt.lanes) | (v & pt.lanes);
}

uint32_t all_lanes(Parts parts) {
  uint32_t m = 0;
  for (const auto &pt : parts)
    m |= pt.lanes;
  return m;
}

// The lanes that take part: the executing lanes of the member mask.
uint32_t member_mask(Exec &x, Parts parts) {
  uint32_t m = all_lanes(parts);
  for (const auto &pt : parts)
    if (pt.lanes && pt.in->member != kNone)
      return uint32_t(
                 x.lanes<uint32_t>(pt.in->member)[std::countr_zero(pt.lanes)]) &
             m;
  return m;
}

// The member mask as the instruction names it (all lanes without one).
uint32_t member_bits(Exec &x, Parts parts) {
  for (const auto &pt : parts)
    if (pt.lanes && pt.in->member != kNone)
      return uint32_t(
          x.lanes<uint32_t>(pt.in->member)[std::countr_zero(pt.lanes)]);
  return ~0u;
}

// shfl.sync: a[0] = d, a[1] = p (kNone), a[2] = a, a[3] = b, a[4] = c;
// WarpOps::mode (0 up, 1 down, 2 bfly, 3 idx). PTX ISA "shfl.sync".
void shfl(Exec &x, Parts parts) {
  uint64_t src[kWarpSize];
  gather(x, parts, 2, src, false);
  uint32_t pv = 0;
  // A source lane that does not take part (outside the member mask, or a
  // member that exited) has no defined value for the reader (CUDA
  // Programming Guide: "If the target thread is inactive, the retrieved
  // value is undefined"); lanes that do not exist (a partial last warp)
  // never run and are not named. The engine returns the lane's register and
  // warns once per instruction.
  const uint32_t part = member_mask(x, parts);
  const uint32_t absent = x.warp->valid & ~part;
  int32_t bad_reader = -1, bad_source = -1;
  for (const auto &pt : parts) {
    const Inst &in = *pt.in;
    const uint8_t mode = x.prog->payload<WarpOps>(in).mode;
    const auto *b = x.lanes<uint32_t>(in.a[3]), *c = x.lanes<uint32_t>(in.a[4]);
    auto *d = x.lanes<uint32_t>(in.a[0]);
    for_lanes(pt.lanes, [&](uint32_t lane) {
      uint32_t cv = uint32_t(c[lane]);
      // b[4:0] in every mode (PTX ISA; measured on H100: shfl.sync.up by
      // 33 reads lane - 1)
      uint32_t bval = uint32_t(b[lane]) & 0x1f;
      int32_t clamp = int32_t(cv & 0x1f), seg = int32_t((cv >> 8) & 0x1f);
      int32_t ln = int32_t(lane);
      int32_t max_lane = (ln & seg) | (clamp & ~seg);
      int32_t min_lane = ln & seg;
      int64_t j = ln;
      bool ok = false;
      switch (mode) {
      case 0:
        j = int64_t(ln) - int64_t(bval);
        ok = j >= max_lane;
        break;
      case 1:
        j = int64_t(ln) + int64_t(bval);
        ok = j <= max_lane;
        break;
      case 2:
        j = int64_t(uint32_t(ln) ^ bval);
        ok = j <= max_lane;
        break;
      default:
        j = min_lane | (int32_t(bval) & ~seg);
        ok = j <= max_lane;
        break;
      }
      if (!ok || j < 0 || j > 31)
        j = ln;
      else if (bad_reader < 0 && ((absent >> j) & 1))
        bad_reader = ln, bad_source = int32_t(j);
      d[lane] = src[j] & 0xffffffffu;
      pv |= uint32_t(ok) << lane;
    });
  }
  scatter_pred(x, parts, 1, pv);
  if (bad_reader >= 0) {
    const uint32_t mask = member_bits(x, parts);
    x.warn(uint32_t(bad_reader),
           fmt::format("'shfl.sync' reads a lane that does not take part: "
                       "lane {} reads lane {}, which {} (member mask {:#010x}"
                       "): the value is undefined",
                       bad_reader, bad_source,
                       (mask >> bad_source) & 1 ? "has exited"
                                                : "is not in the member mask",
                       mask));
  }
}

// vote.sync: a[0] = d (pred or slot), a[1] = a (pred); WarpOps::mode = 0
// all, 1 any, 2 uni, 3 ballot.
void vote(Exec &x, Parts parts) {
  const uint8_t mode = x.prog->payload<WarpOps>(*parts[0].in).mode;
  uint32_t part = member_mask(x, parts);
  uint32_t a = gather_pred(x, parts, 1) & part;
  if (mode == 3) {
    for (const auto &pt : parts) {
      auto *d = x.lanes<uint32_t>(pt.in->a[0]);
      for_lanes(pt.lanes, [&](uint32_t l) { d[l] = a; });
    }
    return;
  }
  bool r = mode == 0 ? a == part : mode == 1 ? a != 0 : (a == 0 || a == part);
  scatter_pred(x, parts, 0, r ? ~0u : 0u);
}

// match.sync: a[0] = d, a[1] = p (kNone), a[2] = a; WarpOps::mode = 0 any,
// 1 all; WarpOps::wide: 64-bit.
void match(Exec &x, Parts parts) {
  const WarpOps &ops = x.prog->payload<WarpOps>(*parts[0].in);
  uint32_t part = member_mask(x, parts);
  uint64_t a[kWarpSize];
  gather(x, parts, 2, a, ops.wide);
  uint64_t vmask = ops.wide ? ~0ull : 0xffffffffull;
  if (ops.mode == 0) {
    for (const auto &pt : parts) {
      auto *d = x.lanes<uint32_t>(pt.in->a[0]);
      for_lanes(pt.lanes, [&](uint32_t l) {
        uint32_t r = 0;
        for_lanes(part, [&](uint32_t k) {
          if (((a[k] ^ a[l]) & vmask) == 0)
            r |= 1u << k;
        });
        d[l] = r;
      });
    }
    return;
  }
  bool all = true;
  uint32_t first = part ? uint32_t(std::countr_zero(part)) : 0;
  for_lanes(part, [&](uint32_t k) { all &= ((a[k] ^ a[first]) & vmask) == 0; });
  for (const auto &pt : parts) {
    auto *d = x.lanes<uint32_t>(pt.in->a[0]);
    for_lanes(pt.lanes, [&](uint32_t l) { d[l] = all ? part : 0; });
  }
  scatter_pred(x, parts, 1, all ? ~0u : 0u);
}

// redux.sync: WarpOps::mode = 0 add, 1 min, 2 max, 3 and, 4 or, 5 xor;
// WarpOps::is_signed.
void redux(Exec &x, Parts parts) {
  const WarpOps &ops = x.prog->payload<WarpOps>(*parts[0].in);
  uint32_t part = member_mask(x, parts);
  uint64_t a[kWarpSize];
  gather(x, parts, 1, a, false);
  bool sgn = ops.is_signed;
  uint32_t acc = 0;
  bool first = true;
  for_lanes(part, [&](uint32_t k) {
    uint32_t v = uint32_t(a[k]);
    if (first) {
      acc = v;
      first = false;
      return;
    }
    switch (ops.mode) {
    case 0:
      acc += v;
      break;
    case 1:
      acc =
          sgn ? uint32_t(std::min(int32_t(acc), int32_t(v))) : std::min(acc, v);
      break;
    case 2:
      acc =
          sgn ? uint32_t(std::max(int32_t(acc), int32_t(v))) : std::max(acc, v);
      break;
    case 3:
      acc &= v;
      break;
    case 4:
      acc |= v;
      break;
    default:
      acc ^= v;
      break;
    }
  });
  for (const auto &pt : parts) {
    auto *d = x.lanes<uint32_t>(pt.in->a[0]);
    for_lanes(pt.lanes, [&](uint32_t l) { d[l] = acc; });
  }
}

// elect.sync d|p, membermask: a[0] = d (kNone for `_`), a[1] = p (kNone
// for `_`). The leader is the lowest-numbered lane among the executing
// member lanes (docs/clusters.md "elect.sync"): PTX only requires the choice
// to be deterministic for a given membermask.
void elect(Exec &x, Parts parts) {
  uint32_t part = member_mask(x, parts);
  if (part == 0)
    return; // unreachable: the scheduler checks membership first
  uint32_t leader = uint32_t(std::countr_zero(part));
  for (const auto &pt : parts)
    if (pt.in->a[0] != kNone) {
      auto *d = x.lanes<uint32_t>(pt.in->a[0]);
      for_lanes(pt.lanes, [&](uint32_t l) { d[l] = leader; });
    }
  scatter_pred(x, parts, 1, 1u << leader);
}

// The handlers of one instruction (the scheduler's usual case).
template <void (*F)(Exec &, Parts)>
void exec_one(Exec &x, const Inst &in, uint32_t m) {
  CollectivePart pt{&in, m};
  F(x, Parts(&pt, 1));
}
constexpr ExecFn exec_shfl = &exec_one<shfl>;
constexpr ExecFn exec_vote = &exec_one<vote>;
constexpr ExecFn exec_match = &exec_one<match>;
constexpr ExecFn exec_redux = &exec_one<redux>;
constexpr ExecFn exec_elect = &exec_one<elect>;

void exec_activemask(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<uint32_t>(in.a[0]);
  uint32_t active = x.warp->paths[x.warp->cur].mask;
  for_lanes(m, [&](uint32_t l) { d[l] = active; });
}

} // namespace

void exec_collective(Exec &x, std::span<const CollectivePart> parts) {
  if (parts.empty())
    return;
  const ExecFn fn = parts[0].in->fn;
  if (parts.size() == 1)
    fn(x, *parts[0].in, parts[0].lanes);
  else if (fn == exec_shfl)
    shfl(x, parts);
  else if (fn == exec_vote)
    vote(x, parts);
  else if (fn == exec_match)
    match(x, parts);
  else if (fn == exec_redux)
    redux(x, parts);
  else if (fn == exec_elect)
    elect(x, parts);
  else // no exchange (bar.warp.sync): each part on its own
    for (const auto &pt : parts)
      if (pt.lanes)
        fn(x, *pt.in, pt.lanes);
}

bool meets_elsewhere(const Inst &in) {
  return in.kind == Kind::WarpSyncMember || in.fn == exec_shfl ||
         in.fn == exec_vote || in.fn == exec_match || in.fn == exec_redux;
}

bool is_elect(const Inst &in) { return in.fn == exec_elect; }

bool same_collective(const Program &P, const Inst &a, const Inst &b) {
  if (!meets_elsewhere(a) || a.fn != b.fn || a.kind != b.kind)
    return false;
  // bar.warp.sync and elect.sync have no qualifiers of their own.
  return a.kind == Kind::WarpSyncMember ||
         P.payload<WarpOps>(a) == P.payload<WarpOps>(b);
}

bool compile_warp(Compiler &c, const ptx::Instruction &in) {
  const ptx::Op op = in.op;
  const auto &o = in.operands;
  using K = ptx::Operand::Kind;
  if (op == ptx::Op::activemask) {
    Mods mods(in);
    mods.take(ptx::Mod::b32);
    if (!c.expect_operands(1) || !c.finish(mods))
      return true;
    uint32_t d = c.dst(o[0]);
    c.emit(&exec_activemask).a[0] = d;
    return true;
  }
  if (op == ptx::Op::elect) {
    // elect.sync d|p, membermask (seed 002 "elect.sync").
    Mods mods(in);
    if (!mods.take(ptx::Mod::sync)) {
      c.unsupported("form of elect (only elect.sync)");
      return true;
    }
    if (!c.finish(mods) || !c.expect_operands(2))
      return true;
    if (o[0].kind != K::Pair || o[0].elems.size() != 2) {
      c.error(o[0].loc, "elect.sync needs a destination pair d|p");
      return true;
    }
    uint32_t mem = c.src(o[1], Ty{Ty::B32});
    const auto &dop = o[0].elems[0], &pop = o[0].elems[1];
    uint32_t d = dop.kind == K::Sink ? kNone : c.dst(dop);
    uint32_t p = pop.kind == K::Sink ? kNone : c.pdst(pop);
    Inst &i = c.emit(exec_elect, Kind::WarpSyncMember);
    i.a[0] = d;
    i.a[1] = p;
    i.member = mem;
    return true;
  }
  if (op != ptx::Op::shfl && op != ptx::Op::vote && op != ptx::Op::match &&
      op != ptx::Op::redux)
    return false;
  Mods mods(in);
  if (!mods.take(ptx::Mod::sync)) {
    c.unsupported(
        fmt::format("non-.sync {} (removed for sm_70 and later)", in.opcode));
    return true;
  }
  if (op == ptx::Op::shfl) {
    const ptx::Mod mode = mods.take_any(
        {ptx::Mod::up, ptx::Mod::down, ptx::Mod::bfly, ptx::Mod::idx});
    mods.take(ptx::Mod::b32);
    if (mode == ptx::Mod::unknown) {
      c.unsupported("shfl mode");
      return true;
    }
    if (!c.expect_operands(5) || !c.finish(mods))
      return true;
    Ty t{Ty::B32};
    uint32_t a = c.src(o[1], t), b = c.src(o[2], t), cc = c.src(o[3], t),
             mem = c.src(o[4], t);
    uint32_t d, p = kNone;
    if (o[0].kind == K::Pair) {
      d = c.dst(o[0].elems[0]);
      p = c.pdst(o[0].elems[1]);
    } else {
      d = c.dst(o[0]);
    }
    WarpOps ops;
    ops.mode = mode == ptx::Mod::up     ? 0
               : mode == ptx::Mod::down ? 1
               : mode == ptx::Mod::bfly ? 2
                                        : 3;
    Inst &i = c.emit_with(exec_shfl, ops, Kind::WarpSync);
    i.a[0] = d;
    i.a[1] = p;
    i.a[2] = a;
    i.a[3] = b;
    i.a[4] = cc;
    i.member = mem;
    return true;
  }
  if (op == ptx::Op::vote) {
    const ptx::Mod mode = mods.take_any(
        {ptx::Mod::all, ptx::Mod::any, ptx::Mod::uni, ptx::Mod::ballot});
    auto t = mods.take_type();
    if (mode == ptx::Mod::unknown || !t ||
        (mode == ptx::Mod::ballot) != (t->code == Ty::B32)) {
      c.unsupported("form of vote.sync");
      return true;
    }
    if (!c.expect_operands(3) || !c.finish(mods))
      return true;
    uint32_t a = c.psrc(o[1]);
    uint32_t mem = c.src(o[2], Ty{Ty::B32});
    uint32_t d = mode == ptx::Mod::ballot ? c.dst(o[0]) : c.pdst(o[0]);
    WarpOps ops;
    ops.mode = mode == ptx::Mod::all   ? 0
               : mode == ptx::Mod::any ? 1
               : mode == ptx::Mod::uni ? 2
                                       : 3;
    Inst &i = c.emit_with(exec_vote, ops, Kind::WarpSync);
    i.a[0] = d;
    i.a[1] = a;
    i.member = mem;
    return true;
  }
  if (op == ptx::Op::match) {
    const ptx::Mod mode = mods.take_any({ptx::Mod::any, ptx::Mod::all});
    auto t = mods.take_type();
    if (mode == ptx::Mod::unknown || !t ||
        (t->bits() != 32 && t->bits() != 64)) {
      c.unsupported("form of match.sync");
      return true;
    }
    if (!c.expect_operands(3) || !c.finish(mods))
      return true;
    uint32_t a = c.src(o[1], *t);
    uint32_t mem = c.src(o[2], Ty{Ty::B32});
    uint32_t d, p = kNone;
    if (o[0].kind == K::Pair) {
      d = c.dst(o[0].elems[0]);
      p = c.pdst(o[0].elems[1]);
    } else {
      d = c.dst(o[0]);
    }
    WarpOps ops;
    ops.mode = mode == ptx::Mod::any ? 0 : 1;
    ops.wide = t->bits() == 64;
    Inst &i = c.emit_with(exec_match, ops, Kind::WarpSync);
    i.a[0] = d;
    i.a[1] = p;
    i.a[2] = a;
    i.member = mem;
    return true;
  }
  // redux
  const ptx::Mod rop =
      mods.take_any({ptx::Mod::add, ptx::Mod::min, ptx::Mod::max,
                     ptx::Mod::and_, ptx::Mod::or_, ptx::Mod::xor_});
  auto t = mods.take_type();
  if (rop == ptx::Mod::unknown || !t || t->bits() != 32 || t->is_float()) {
    c.unsupported("form of redux.sync");
    return true;
  }
  if (!c.expect_operands(3) || !c.finish(mods))
    return true;
  uint32_t a = c.src(o[1], *t);
  uint32_t mem = c.src(o[2], Ty{Ty::B32});
  uint32_t d = c.dst(o[0]);
  static constexpr ptx::Mod names[] = {ptx::Mod::add, ptx::Mod::min,
                                       ptx::Mod::max, ptx::Mod::and_,
                                       ptx::Mod::or_, ptx::Mod::xor_};
  WarpOps ops;
  for (uint8_t k = 0; k < 6; ++k)
    if (rop == names[k])
      ops.mode = k;
  ops.is_signed = t->is_signed();
  Inst &i = c.emit_with(exec_redux, ops, Kind::WarpSync);
  i.a[0] = d;
  i.a[1] = a;
  i.member = mem;
  return true;
}

} // namespace bcusim::engine::detail
