// The Tensor Memory Accelerator's instructions (docs/hopper.md "TMA
// copies"):
// - cp.async.bulk.tensor.{1d..5d}.shared::cluster.global{.tile,.im2col}
//   .mbarrier::complete_tx::bytes{.multicast::cluster}{.L2::cache_hint};
// - cp.async.bulk.tensor.{1d..5d}.global.shared::cta{.tile,.im2col_no_offs}
//   .bulk_group{.L2::cache_hint} (store);
// - cp.reduce.async.bulk.tensor.{1d..5d}.global.shared::cta.{add,min,max,
//   inc,dec,and,or,xor}{.tile,.im2col_no_offs}.bulk_group;
// - cp.async.bulk.prefetch.tensor.{1d..5d}.L2.global{.tile,.im2col} and
//   cp.async.bulk.prefetch.L2.global (no effect once checked);
// - tensormap.replace.tile.<field>.{global,shared::cta}.b1024.<type>.
// A copy is planned when it is issued (tensor map decoded, every address
// checked, the box laid out in runs of bytes); the plan is performed by the
// deferred-copy machinery of exec_async.cpp like a cp.async.bulk copy.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>

#include "bcusim/engine/tensormap.h"
#include "compile.h"
#include "float_format.h"
#include "mbarrier.h"
#include "observe.h"

namespace bcusim::engine::detail {

namespace {

enum class TmaKind : uint32_t { Load, Store, Reduce, Prefetch };
enum class RedOp : uint32_t { Add, Min, Max, Inc, Dec, And, Or, Xor };

uint64_t addr_of(Exec &x, uint32_t base, uint32_t off, uint32_t l) {
  return (base == kNone ? 0 : x.reg(base)[l]) + x.reg(off)[l];
}

std::string text_at(const Exec &x, const Inst &in) {
  return x.prog->code_text[size_t(&in - x.prog->code.data())];
}

// Reads and decodes the tensor map at generic address `a` (a value below
// the size of one window is a .param address, as `mov` of a kernel
// parameter gives).
std::optional<TensorMap> read_map(Exec &x, uint64_t a, uint32_t l,
                                  const std::string &what) {
  MemSpace sp = a < kWindowSize ? MemSpace::KParam : MemSpace::Generic;
  if (a % 64) {
    x.set_fault(FaultKind::Misaligned, sp, a, 64, l, false);
    x.fault.detail = "a tensor map must be 64-byte aligned";
    return std::nullopt;
  }
  const uint8_t *p = x.translate(sp, a, 128, false, l);
  if (!p)
    return std::nullopt;
  std::string err;
  auto m = TensorMap::decode(p, err);
  if (!m)
    x.set_error(FaultKind::Mbarrier, l, fmt::format("'{}': {}", what, err));
  return m;
}

// The fill of an out-of-bounds element (docs/hopper.md): zero, or with
// the NaN fill on a floating-point type the H100's NaN: 0x7ff7 in every
// 16-bit half of the element (0x7ff7, 0x7ff77ff7, 0x7ff77ff77ff77ff7).
uint64_t oob_value(const TensorMap &m) {
  if (m.oob != TmapOobFill::NanRequestZeroFma)
    return 0;
  const uint32_t bytes = tmap_element_bytes(m.type);
  return bytes >= 8 ? 0x7ff77ff77ff77ff7ull
                    : 0x7ff77ff77ff77ff7ull & ((1ull << (8 * bytes)) - 1);
}

// The dimension-0 starts the H100 refuses with an illegal-instruction
// error (docs/hopper.md "Hardware conformance"): a tile-mode load whose
// start (coordinate x element size) is not a multiple of 16 bytes, a
// tensor store or reduction that starts at a negative coordinate. Returns
// the message, or "" when the start is accepted.
std::string illegal_start(const TensorMap &m, TmaKind kind, int32_t x0,
                          const std::string &what) {
  const int64_t start = int64_t(x0) * tmap_element_bytes(m.type);
  if (kind == TmaKind::Load && m.mode == TmapMode::Tile && start % 16 != 0)
    return fmt::format("illegal instruction: '{}' starts dimension 0 at "
                       "coordinate {} ({} bytes); a tile-mode tensor load "
                       "must start at a multiple of 16 bytes",
                       what, x0, start);
  if ((kind == TmaKind::Store || kind == TmaKind::Reduce) && x0 < 0)
    return fmt::format("illegal instruction: '{}' starts dimension 0 at "
                       "coordinate {}; a tensor store or reduction must not "
                       "start below 0",
                       what, x0);
  return {};
}

// Lays out the box of `m` at `coords` (im2col: at the pixel `coords` with
// `offsets`): calls f(global address or ~0 when out of bounds, byte offset
// in the box) for every element, in shared-memory order.
template <class F>
void walk_box(const TensorMap &m, const int32_t *coords, const int16_t *offsets,
              F &&f) {
  const uint32_t eb = tmap_element_bytes(m.type);
  auto elem_addr = [&](const int64_t *pos) -> uint64_t {
    uint64_t a = m.address;
    for (uint32_t d = 0; d < m.rank; ++d) {
      if (pos[d] < 0 || uint64_t(pos[d]) >= m.dims[d])
        return ~0ull;
      a += uint64_t(pos[d]) * (d == 0 ? eb : m.strides[d]);
    }
    return a;
  };
  // A row (the elements along dimension 0) takes row_bytes in shared
  // memory: with an interleaved layout, whole 16- or 32-byte slices.
  const uint64_t row_bytes = tmap_row_bytes(m);
  if (m.mode == TmapMode::Tile) {
    // Dimension 0 has a traversal stride only with an interleaved layout
    // (the driver ignores it otherwise).
    const uint32_t s0 =
        m.interleave == TmapInterleave::None ? 1 : m.estrides[0];
    uint32_t n[5] = {1, 1, 1, 1, 1};
    for (uint32_t d = 0; d < m.rank; ++d)
      n[d] = (m.box[d] + (d == 0 ? s0 : m.estrides[d]) - 1) /
             (d == 0 ? s0 : m.estrides[d]);
    uint64_t row = 0;
    int64_t pos[5] = {};
    for (uint32_t i4 = 0; i4 < n[4]; ++i4)
      for (uint32_t i3 = 0; i3 < n[3]; ++i3)
        for (uint32_t i2 = 0; i2 < n[2]; ++i2)
          for (uint32_t i1 = 0; i1 < n[1]; ++i1, ++row)
            for (uint32_t i0 = 0; i0 < n[0]; ++i0) {
              uint32_t idx[5] = {i0, i1, i2, i3, i4};
              for (uint32_t d = 0; d < m.rank; ++d)
                pos[d] = int64_t(coords[d]) +
                         int64_t(idx[d]) * (d == 0 ? s0 : m.estrides[d]);
              f(elem_addr(pos), row * row_bytes + uint64_t(i0) * eb);
            }
    return;
  }
  // im2col: dimension 0 is C, 1 .. rank-2 the spatial W, H, D, rank-1 N.
  // Pixels are visited W fastest inside the pixel box [lower, dim - 1 +
  // upper] of each spatial dimension (stepping by its element stride),
  // then the next image; each pixel loads `channels` elements of C from
  // the pixel plus the offsets.
  const uint32_t sp = m.rank - 2;
  int64_t pix[5] = {};
  for (uint32_t d = 1; d < m.rank; ++d)
    pix[d] = coords[d];
  for (uint32_t p = 0; p < m.pixels; ++p) {
    int64_t pos[5];
    pos[m.rank - 1] = pix[m.rank - 1];
    for (uint32_t s = 0; s < sp; ++s)
      pos[s + 1] = pix[s + 1] + offsets[s];
    for (uint32_t ch = 0; ch < m.channels; ++ch) {
      pos[0] = int64_t(coords[0]) + ch;
      f(elem_addr(pos), p * row_bytes + uint64_t(ch) * eb);
    }
    // next pixel
    for (uint32_t s = 0; s <= sp; ++s) {
      uint32_t d = s + 1;
      if (s == sp) {
        ++pix[d]; // next image
        break;
      }
      pix[d] += m.estrides[d];
      int64_t hi = int64_t(m.dims[d]) - 1 + m.upper[s];
      if (pix[d] <= hi)
        break;
      pix[d] = m.lower[s];
    }
  }
}

uint64_t box_bytes(const TensorMap &m) {
  uint64_t n = m.mode == TmapMode::Im2col ? uint64_t(m.pixels) : 1;
  if (m.mode == TmapMode::Tile)
    for (uint32_t d = 1; d < m.rank; ++d)
      n *= (m.box[d] + m.estrides[d] - 1) / m.estrides[d];
  return n * tmap_row_bytes(m);
}

int64_t sext(uint64_t v, uint32_t bytes) {
  if (bytes == 8)
    return int64_t(v);
  uint32_t sh = 64 - 8 * bytes;
  return int64_t(v << sh) >> sh;
}

// One element of a reduction into global memory (`g` the global element,
// `s` the shared one). False when the type does not take the operation.
bool reduce_elem(TmapType t, RedOp op, uint8_t *g, const uint8_t *s) {
  uint32_t eb = tmap_element_bytes(t);
  uint64_t a = 0, b = 0;
  std::memcpy(&a, g, eb);
  std::memcpy(&b, s, eb);
  uint64_t r = a;
  uint64_t mask = eb == 8 ? ~0ull : (1ull << (8 * eb)) - 1;
  bool is_signed = t == TmapType::S32 || t == TmapType::S64;
  if (tmap_is_float(t)) {
    const FloatFormat &f = t == TmapType::F16    ? kF16
                           : t == TmapType::BF16 ? kBF16
                           : t == TmapType::F64  ? kF64
                                                 : kF32;
    double x = decode(f, a), y = decode(f, b);
    double v;
    switch (op) {
    case RedOp::Add:
      v = x + y;
      break;
    case RedOp::Min:
      v = std::isnan(x) ? y : std::isnan(y) ? x : std::fmin(x, y);
      break;
    case RedOp::Max:
      v = std::isnan(x) ? y : std::isnan(y) ? x : std::fmax(x, y);
      break;
    default:
      return false;
    }
    r = encode_double(f, v, EncodeOpts{});
  } else {
    switch (op) {
    case RedOp::Add:
      r = a + b;
      break;
    case RedOp::Min:
      r = is_signed ? (sext(a, eb) < sext(b, eb) ? a : b) : std::min(a, b);
      break;
    case RedOp::Max:
      r = is_signed ? (sext(a, eb) > sext(b, eb) ? a : b) : std::max(a, b);
      break;
    case RedOp::Inc: // PTX atom.inc: (a >= b) ? 0 : a + 1
      if (t != TmapType::U32)
        return false;
      r = a >= b ? 0 : a + 1;
      break;
    case RedOp::Dec: // (a == 0 || a > b) ? b : a - 1
      if (t != TmapType::U32)
        return false;
      r = (a == 0 || a > b) ? b : a - 1;
      break;
    case RedOp::And:
      r = a & b;
      break;
    case RedOp::Or:
      r = a | b;
      break;
    case RedOp::Xor:
      r = a ^ b;
      break;
    }
  }
  r &= mask;
  std::memcpy(g, &r, eb);
  return true;
}

// cp.async.bulk.tensor / cp.reduce.async.bulk.tensor /
// cp.async.bulk.prefetch.tensor (TmaOps).
void exec_tma(Exec &x, const Inst &in, uint32_t m) {
  Cta &c = *x.cta;
  const TmaOps &p = x.prog->payload<TmaOps>(in);
  const TmaKind kind = TmaKind(p.kind);
  const std::string what = text_at(x, in);
  for_lanes(m, [&](uint32_t l) {
    if (x.faulted)
      return;
    auto map = read_map(x, addr_of(x, p.map, p.map_off, l), l, what);
    if (!map)
      return;
    const TensorMap &tm = *map;
    if (tm.rank != p.rank) {
      x.set_error(FaultKind::Mbarrier, l,
                  fmt::format("'{}' is a {}-D copy but the tensor map has "
                              "rank {}",
                              what, uint32_t(p.rank), tm.rank));
      return;
    }
    bool want_im2col = p.im2col;
    if (want_im2col != (tm.mode == TmapMode::Im2col)) {
      x.set_error(FaultKind::Mbarrier, l,
                  fmt::format("'{}' is a {} copy but the tensor map was "
                              "encoded for {} mode",
                              what, want_im2col ? "im2col" : "tile",
                              tm.mode == TmapMode::Im2col ? "im2col" : "tile"));
      return;
    }
    if (tm.swizzle != TmapSwizzle::None && tm.swizzle != TmapSwizzle::B32 &&
        tm.swizzle != TmapSwizzle::B64 && tm.swizzle != TmapSwizzle::B128) {
      x.set_error(
          FaultKind::Unsupported, l,
          fmt::format("'{}': the 128B atom swizzles are not modelled", what));
      return;
    }
    int32_t coords[5] = {};
    for (uint32_t d = 0; d < tm.rank; ++d)
      coords[d] = int32_t(x.reg(p.coord[d])[l]);
    int16_t offs[3] = {};
    for (uint32_t s = 0; s < 3; ++s)
      if (p.im2col_off[s] != kNone)
        offs[s] = int16_t(x.reg(p.im2col_off[s])[l]);
    if (kind == TmaKind::Prefetch)
      return; // an L2 hint: nothing to perform once the map is valid
    if (std::string bad = illegal_start(tm, kind, coords[0], what);
        !bad.empty()) {
      x.set_error(FaultKind::IllegalInstruction, l, std::move(bad));
      return;
    }
    if (kind == TmaKind::Reduce) {
      uint8_t g[8] = {}, s[8] = {};
      if (!reduce_elem(tm.type, RedOp(p.red_op), g, s)) {
        x.set_error(FaultKind::Mbarrier, l,
                    fmt::format("'{}': the reduction does not take the "
                                "tensor map's data type (type {})",
                                what, uint32_t(tm.type)));
        return;
      }
    }
    const uint64_t box = box_bytes(tm);
    const uint32_t bytes = uint32_t(std::min<uint64_t>(box, 1ull << 31));
    const uint32_t eb = tmap_element_bytes(tm.type);
    const bool load = kind == TmaKind::Load;
    // The shared side: its (.shared::cluster for loads) address, 128-byte
    // aligned.
    uint64_t sh = addr_of(x, p.sh, p.sh_off, l);
    if (sh % 128) {
      x.set_fault(FaultKind::Misaligned, MemSpace::Shared, sh, 128, l, load);
      x.fault.detail = "the shared-memory address of a tensor copy must be "
                       "128-byte aligned";
      return;
    }
    SharedTarget st{x.cta, sh - x.cta->shared_base};
    if (load && !resolve_shared_cluster(x, sh, st)) {
      x.set_fault(FaultKind::OutOfBounds, MemSpace::Shared, sh, bytes, l, true);
      return;
    }
    // The box must fit the shared memory (checked before it is walked: a
    // map may describe up to 256^5 elements). A swizzle moves chunks inside
    // their 128-byte row, so the rows the box touches must fit.
    const uint64_t need =
        tm.swizzle == TmapSwizzle::None
            ? box
            : ((st.off + box + 127) & ~uint64_t(127)) - st.off;
    if (st.off >= st.cta->shared.size() ||
        need > st.cta->shared.size() - st.off) {
      x.set_fault(FaultKind::OutOfBounds, MemSpace::Shared, sh, bytes, l, load);
      if (need != box)
        x.fault.detail = fmt::format("the swizzled box's 128-byte rows ({} "
                                     "bytes) do not fit",
                                     need);
      return;
    }
    // Plan: runs of bytes (global address or out of bounds, box offset).
    auto plan = std::make_shared<TmaPlan>();
    plan->elem = eb;
    plan->fill = oob_value(tm);
    plan->swizzle = uint8_t(tm.swizzle);
    plan->kind = uint8_t(kind);
    plan->op = p.red_op;
    plan->type = uint8_t(tm.type);
    plan->sh_off = st.off;
    plan->bytes = bytes;
    bool bad = false;
    walk_box(tm, coords, offs, [&](uint64_t g, uint64_t k) {
      if (bad)
        return;
      uint8_t *gp = nullptr;
      if (g != ~0ull) {
        gp = x.global(g, eb, !load, l);
        if (!gp) {
          bad = true;
          return;
        }
      }
      auto &r = plan->runs;
      // Runs stop at 16-byte chunks when swizzled (chunks move).
      if (!r.empty() && ((r.back().g == nullptr) == (gp == nullptr)) &&
          r.back().off + r.back().bytes == k &&
          (!gp || r.back().g + r.back().bytes == gp) &&
          (tm.swizzle == TmapSwizzle::None || k % 16 != 0)) {
        r.back().bytes += eb;
        return;
      }
      r.push_back(TmaRun{gp, g, uint32_t(k), eb});
    });
    if (bad)
      return;
    // The destination CTAs (multicast: every rank in ctaMask).
    std::vector<Cta *> dsts{st.cta};
    if (p.multicast) {
      dsts.clear();
      uint32_t mask = uint32_t(x.reg(p.cta_mask)[l]) & 0xffff;
      auto &ctas = c.cluster->ctas;
      for (uint32_t r = 0; r < 16; ++r) {
        if (!((mask >> r) & 1))
          continue;
        if (r >= ctas.size() || !ctas[r] || ctas[r]->live_warps == 0) {
          x.set_error(FaultKind::Mbarrier, l,
                      fmt::format("'{}': ctaMask 0x{:x} names CTA rank {}, "
                                  "which is {} the cluster",
                                  what, mask, r,
                                  r >= ctas.size() ? "not in"
                                                   : "no longer running in"));
          return;
        }
        if (st.off + need > ctas[r]->shared.size()) {
          x.set_fault(FaultKind::OutOfBounds, MemSpace::Shared,
                      shared_cluster_base(r) + st.off, bytes, l, true);
          return;
        }
        dsts.push_back(ctas[r]);
      }
    }
    uint64_t mb = 0;
    SharedTarget mt;
    if (load) {
      mb = addr_of(x, p.mbar, p.mbar_off, l);
      if (!mbar_locate(x, mb, kAddrSharedCluster, l, mt))
        return;
    }
    for (Cta *d : dsts) {
      AsyncOp op;
      op.tma = plan;
      op.size = op.copy_bytes = bytes;
      op.thread = x.thread_of(l);
      op.pc = uint32_t(&in - x.prog->code.data());
      op.warp = x.warp->index;
      op.lane = l;
      op.dst = d->shared.data();
      op.src = op.dst;
      if (load) {
        op.what = AsyncOp::What::BulkTx;
        op.mbar_cta = p.multicast ? d : mt.cta;
        op.mbar_off = uint32_t(mt.off);
        op.dst_space = 1;
        op.dst_owner = d->linear;
        op.dst_addr = st.off;
        op.src_space = 0;
        op.src_addr = tm.address;
      } else {
        op.what = AsyncOp::What::BulkGroup;
        op.group = async_bulk_group(c, op.thread);
        op.src_space = 1;
        op.src_owner = d->linear;
        op.src_addr = st.off;
        op.dst_space = 0;
        op.dst_addr = tm.address;
      }
      op.async_id = async_next_id(c, op.thread);
      async_issued(x, op,
                   load ? AsyncKind::BulkMbarrierTx : AsyncKind::BulkGroupCopy);
      c.mbar.pending.push_back(op);
    }
  });
}

// cp.async.bulk.prefetch.L2.global [a], size: checks the range
// (BulkPrefetchOps).
void exec_bulk_prefetch(Exec &x, const Inst &in, uint32_t m) {
  const BulkPrefetchOps &p = x.prog->payload<BulkPrefetchOps>(in);
  for_lanes(m, [&](uint32_t l) {
    if (x.faulted)
      return;
    uint64_t a = addr_of(x, p.addr, p.addr_off, l);
    uint64_t size = x.reg(p.size)[l];
    if (size % 16 || size >= (1ull << 32)) {
      x.set_error(FaultKind::Mbarrier, l,
                  fmt::format("'{}': the size {} is not a multiple of 16",
                              text_at(x, in), size));
      return;
    }
    if (a % 16) {
      x.set_fault(FaultKind::Misaligned, MemSpace::Global, a, 16, l, false);
      return;
    }
    if (size)
      x.global(a, uint32_t(size), false, l);
  });
}

// tensormap.replace.tile.<field>.<space>.b1024.<type> [addr], {ord,} value
// (TensormapReplaceOps).
enum class MapField : uint32_t {
  GlobalAddress,
  Rank,
  BoxDim,
  GlobalDim,
  GlobalStride,
  ElementStride,
  ElemType,
  Interleave,
  Swizzle,
  SwizzleAtomicity,
  FillMode,
};

void exec_tensormap_replace(Exec &x, const Inst &in, uint32_t m) {
  const TensormapReplaceOps &op = x.prog->payload<TensormapReplaceOps>(in);
  const std::string what = text_at(x, in);
  for_lanes(m, [&](uint32_t l) {
    if (x.faulted)
      return;
    uint64_t a = addr_of(x, op.addr, op.addr_off, l);
    MemSpace sp = op.shared ? MemSpace::Shared : MemSpace::Global;
    if (a % 128) {
      x.set_fault(FaultKind::Misaligned, sp, a, 128, l, true);
      x.fault.detail = "a tensor map being modified must be 128-byte aligned";
      return;
    }
    uint8_t *p = x.translate(sp, a, 128, true, l);
    if (!p)
      return;
    std::string err;
    auto tm = TensorMap::decode(p, err);
    if (!tm) {
      x.set_error(FaultKind::Mbarrier, l, fmt::format("'{}': {}", what, err));
      return;
    }
    uint64_t v = x.reg(op.value)[l];
    uint32_t ord = op.ordinal == kNone ? 0 : uint32_t(x.reg(op.ordinal)[l]);
    auto bad = [&](const char *field) {
      x.set_error(FaultKind::Mbarrier, l,
                  fmt::format("'{}': {} value {} (ordinal {}) is out of range",
                              what, field, v, ord));
    };
    if (ord > 4) {
      bad("the dimension ordinal");
      return;
    }
    switch (MapField(op.field)) {
    case MapField::GlobalAddress:
      if (v % 16)
        return bad("global_address");
      tm->address = v;
      break;
    case MapField::Rank:
      if (v < 1 || v > 5)
        return bad("rank");
      tm->rank = uint32_t(v);
      break;
    case MapField::BoxDim:
      if (v < 1 || v > 256)
        return bad("box_dim");
      tm->box[ord] = uint32_t(v);
      break;
    case MapField::GlobalDim:
      if (v < 1 || v > (1ull << 32))
        return bad("global_dim");
      tm->dims[ord] = v;
      break;
    case MapField::GlobalStride: // ordinal i: stride of dimension i + 1
      if (v % 16 || v >= (1ull << 40) || ord > 3)
        return bad("global_stride");
      tm->strides[ord + 1] = v;
      break;
    case MapField::ElementStride:
      if (v < 1 || v > 8)
        return bad("element_stride");
      tm->estrides[ord] = uint32_t(v);
      break;
    case MapField::ElemType:
      if (v > 12)
        return bad("elemtype");
      tm->type = TmapType(v);
      tm->strides[0] = tmap_element_bytes(tm->type);
      break;
    case MapField::Interleave:
      if (v > 2)
        return bad("interleave_layout");
      tm->interleave = TmapInterleave(v);
      break;
    case MapField::Swizzle:
      if (v > 3)
        return bad("swizzle_mode");
      tm->swizzle = TmapSwizzle(v);
      break;
    case MapField::SwizzleAtomicity:
      if (v != 0)
        return bad("swizzle_atomicity"); // 16B only on sm_90a
      break;
    case MapField::FillMode:
      if (v > 1)
        return bad("fill_mode");
      tm->oob = TmapOobFill(v);
      break;
    }
    auto bytes = tm->encode();
    std::memcpy(p, bytes.data(), bytes.size());
    ++x.progress;
  });
}

// cp.reduce.async.bulk (non-tensor; BulkReduceOps).
void exec_bulk_reduce(Exec &x, const Inst &in, uint32_t m) {
  Cta &c = *x.cta;
  const BulkReduceOps &p = x.prog->payload<BulkReduceOps>(in);
  const std::string what = text_at(x, in);
  const bool to_shared = p.dst_cluster;
  for_lanes(m, [&](uint32_t l) {
    if (x.faulted)
      return;
    uint64_t dst = addr_of(x, p.dst, p.dst_off, l);
    uint64_t src = addr_of(x, p.src, p.src_off, l);
    uint64_t size = x.reg(p.size)[l];
    if (size % 16 || size >= (1ull << 32)) {
      x.set_error(
          FaultKind::Mbarrier, l,
          fmt::format("'{}': the size {} is not a multiple of 16", what, size));
      return;
    }
    MemSpace dsp = to_shared ? MemSpace::Shared : MemSpace::Global;
    if (dst % 16) {
      x.set_fault(FaultKind::Misaligned, dsp, dst, 16, l, true);
      return;
    }
    if (src % 16) {
      x.set_fault(FaultKind::Misaligned, MemSpace::Shared, src, 16, l, false);
      return;
    }
    uint32_t n = uint32_t(size);
    // The source: the executing CTA's own shared memory.
    const uint64_t src_addr = src;
    src -= c.shared_base;
    if (src >= c.shared.size() || n > c.shared.size() - src) {
      x.set_fault(FaultKind::OutOfBounds, MemSpace::Shared, src_addr, n, l,
                  false);
      return;
    }
    auto plan = std::make_shared<TmaPlan>();
    plan->kind = uint8_t(TmaKind::Reduce);
    plan->op = p.op;
    plan->type = p.type;
    plan->elem = tmap_element_bytes(TmapType(p.type));
    plan->bytes = n;
    plan->sh_off = src;
    SharedTarget dt{x.cta, dst};
    uint8_t *d = nullptr;
    if (to_shared) {
      if (!resolve_shared_cluster(x, dst, dt)) {
        x.set_fault(FaultKind::OutOfBounds, MemSpace::Shared, dst, n, l, true);
        return;
      }
      if (dt.off >= dt.cta->shared.size() ||
          n > dt.cta->shared.size() - dt.off) {
        x.set_fault(FaultKind::OutOfBounds, MemSpace::Shared, dst, n, l, true);
        return;
      }
      d = dt.cta->shared.data() + dt.off;
      plan->g_space = 1;
      plan->g_owner = dt.cta->linear;
    } else if (n && !(d = x.global(dst, n, true, l))) {
      return;
    }
    if (n)
      plan->runs.push_back(TmaRun{d, to_shared ? dt.off : dst, 0, n});
    AsyncOp op;
    op.tma = plan;
    op.size = op.copy_bytes = n;
    op.thread = x.thread_of(l);
    op.pc = uint32_t(&in - x.prog->code.data());
    op.warp = x.warp->index;
    op.lane = l;
    op.dst = c.shared.data();
    op.src = op.dst;
    op.src_space = 1;
    op.src_owner = c.linear;
    op.src_addr = src;
    op.dst_space = to_shared ? 1 : 0;
    op.dst_owner = to_shared ? dt.cta->linear : 0;
    op.dst_addr = to_shared ? dt.off : dst;
    if (p.mbar != kNone) {
      SharedTarget mt;
      if (!mbar_locate(x, x.reg(p.mbar)[l], kAddrSharedCluster, l, mt))
        return;
      op.what = AsyncOp::What::BulkTx;
      op.mbar_cta = mt.cta;
      op.mbar_off = uint32_t(mt.off);
    } else {
      op.what = AsyncOp::What::BulkGroup;
      op.group = async_bulk_group(c, op.thread);
    }
    op.async_id = async_next_id(c, op.thread);
    async_issued(x, op,
                 op.what == AsyncOp::What::BulkTx ? AsyncKind::BulkMbarrierTx
                                                  : AsyncKind::BulkGroupCopy);
    c.mbar.pending.push_back(op);
  });
}

bool compile_bulk_reduce(Compiler &c, const ptx::Instruction &in, Mods &mods,
                         uint32_t opi, bool dst_global, bool src_shared,
                         bool group, bool hint) {
  const auto &o = in.operands;
  bool dst_cluster = mods.take(ptx::Mod::shared_cluster);
  bool tx = mods.take(ptx::Mod::mbarrier_complete_tx_bytes);
  mods.take(ptx::Mod::noftz);
  using ptx::Mod;
  const Mod ty =
      mods.take_any({Mod::b32, Mod::u32, Mod::s32, Mod::b64, Mod::u64, Mod::s64,
                     Mod::f16, Mod::bf16, Mod::f32, Mod::f64});
  if (!c.finish(mods))
    return true;
  bool ok =
      opi < 8 && src_shared && ty != Mod::unknown &&
      ((dst_global && group && !tx) || (dst_cluster && tx && !group && !hint));
  if (!ok) {
    c.error(in.loc, fmt::format("'{}' needs .global.shared::cta.bulk_group or "
                                ".shared::cluster.shared::cta.mbarrier::"
                                "complete_tx::bytes, a reduction operation and "
                                "a type",
                                c.text_of(in)));
    return true;
  }
  TmapType t = ty == Mod::s32                     ? TmapType::S32
               : ty == Mod::b64 || ty == Mod::u64 ? TmapType::U64
               : ty == Mod::s64                   ? TmapType::S64
               : ty == Mod::f16                   ? TmapType::F16
               : ty == Mod::bf16                  ? TmapType::BF16
               : ty == Mod::f32                   ? TmapType::F32
               : ty == Mod::f64                   ? TmapType::F64
                                                  : TmapType::U32;
  uint8_t g[8] = {}, s[8] = {};
  if (!reduce_elem(t, RedOp(opi), g, s)) {
    c.error(in.loc, fmt::format("'{}': the reduction does not take .{}",
                                c.text_of(in), ptx::name_of(ty)));
    return true;
  }
  if (!c.expect_operands(tx ? 4 : (hint ? 4 : 3)))
    return true;
  Addr d, sa;
  if (!c.address(o[0], dst_global ? MemSpace::Global : MemSpace::Shared, d) ||
      !c.address(o[1], MemSpace::Shared, sa))
    return true;
  uint32_t size = c.src(o[2], Ty{Ty::U32});
  uint32_t mb = kNone;
  if (tx) {
    Addr ma;
    if (!c.address(o[3], MemSpace::Shared, ma))
      return true;
    if (ma.base == kNone) {
      mb = c.const_slot(uint64_t(ma.off));
    } else if (ma.base == c.cta_shared_slot(0)) {
      mb = c.cta_shared_slot(uint64_t(ma.off)); // a shared variable
    } else {
      // base + offset folded at run time: emit the sum into a slot
      mb = ma.base;
      if (ma.off) {
        c.unsupported("an offset on the mbarrier register of "
                      "cp.reduce.async.bulk");
        return true;
      }
    }
  }
  BulkReduceOps p;
  p.dst = d.base;
  p.dst_off = c.const_slot(uint64_t(d.off));
  p.src = sa.base;
  p.src_off = c.const_slot(uint64_t(sa.off));
  p.size = size;
  p.mbar = mb;
  p.op = uint8_t(opi);
  p.type = uint8_t(t);
  p.dst_cluster = dst_cluster;
  c.emit_with(&exec_bulk_reduce, p);
  return true;
}

uint32_t tma_rank(Mods &mods) {
  switch (mods.take_any(
      {ptx::Mod::d1, ptx::Mod::d2, ptx::Mod::d3, ptx::Mod::d4, ptx::Mod::d5})) {
  case ptx::Mod::d1:
    return 1;
  case ptx::Mod::d2:
    return 2;
  case ptx::Mod::d3:
    return 3;
  case ptx::Mod::d4:
    return 4;
  case ptx::Mod::d5:
    return 5;
  default:
    return 0;
  }
}

} // namespace

void tma_perform(Exec &x, const Cta &c, const AsyncOp &op) {
  const TmaPlan &p = *op.tma;
  uint8_t *sh = op.dst; // the destination / source CTA's shared memory
  const bool load = TmaKind(p.kind) == TmaKind::Load;
  ++x.progress;
  for (const TmaRun &r : p.runs) {
    for (uint32_t b = 0; b < r.bytes; b += 16 - (r.off + b) % 16) {
      // chunk-wise: the swizzle moves 16-byte chunks
      uint32_t n = std::min<uint32_t>(r.bytes - b, 16 - (r.off + b) % 16);
      uint64_t s = tmap_swizzle(TmapSwizzle(p.swizzle), p.sh_off + r.off + b);
      if (load) {
        if (r.g)
          std::memcpy(sh + s, r.g + b, n);
        else
          for (uint32_t e = 0; e < n; e += p.elem)
            std::memcpy(sh + s + e, &p.fill, p.elem);
      } else if (r.g) {
        if (TmaKind(p.kind) == TmaKind::Store)
          std::memcpy(r.g + b, sh + s, n);
        else
          for (uint32_t e = 0; e < n; e += p.elem)
            reduce_elem(TmapType(p.type), RedOp(p.op), r.g + b + e, sh + s + e);
      }
      if (x.obs) {
        Resolved shr{StateSpace::Shared, load ? op.dst_owner : op.src_owner, s,
                     false};
        if (load)
          observe_one(x, op.pc, c.linear, op.warp, op.lane, AccessType::Write,
                      n, shr, AtomicOp::None, MemOrder::Weak, MemScope::None,
                      AccessOrigin::BulkCopy, op.async_id);
        else
          observe_one(x, op.pc, c.linear, op.warp, op.lane, AccessType::Read, n,
                      shr, AtomicOp::None, MemOrder::Weak, MemScope::None,
                      AccessOrigin::BulkCopy, op.async_id);
        if (r.g) {
          Resolved gr{p.g_space ? StateSpace::Shared : StateSpace::Global,
                      p.g_owner, r.gaddr + b, false};
          observe_one(x, op.pc, c.linear, op.warp, op.lane,
                      load ? AccessType::Read : AccessType::Write, n, gr,
                      AtomicOp::None, MemOrder::Weak, MemScope::None,
                      AccessOrigin::BulkCopy, op.async_id);
        }
      }
    }
  }
}

bool compile_tma(Compiler &c, const ptx::Instruction &in) {
  const auto &o = in.operands;
  Mods mods(in);
  bool reduce = mods.take(ptx::Mod::reduce);
  mods.take(ptx::Mod::async);
  mods.take(ptx::Mod::bulk);
  bool prefetch = mods.take(ptx::Mod::prefetch);
  bool tensor = mods.take(ptx::Mod::tensor);
  uint32_t rank = tensor ? tma_rank(mods) : 0;
  if (tensor && !rank) {
    c.error(in.loc,
            fmt::format("'{}' needs a dimension (.1d ... .5d)", c.text_of(in)));
    return true;
  }
  TmaOps list;
  list.rank = uint8_t(rank);
  auto tensor_operand = [&](const ptx::Operand &t) {
    using K = ptx::Operand::Kind;
    if (t.kind != K::Address || t.elems.size() != 2 ||
        t.elems[1].kind != K::Vector || t.elems[1].elems.size() != rank) {
      c.error(t.loc, fmt::format("'{}' expects [tensorMap, {{{} coordinates}}]",
                                 c.text_of(in), rank));
      return false;
    }
    ptx::Operand base = t;
    base.elems.resize(1);
    Addr a;
    if (!c.address(base, MemSpace::Generic, a))
      return false;
    list.map = a.base;
    list.map_off = c.const_slot(uint64_t(a.off));
    for (uint32_t d = 0; d < rank; ++d)
      list.coord[d] = c.src(t.elems[1].elems[d], Ty{Ty::S32});
    return true;
  };
  auto shared_operand = [&](const ptx::Operand &s, uint32_t &base,
                            uint32_t &off) {
    Addr a;
    if (!c.address(s, MemSpace::Shared, a))
      return false;
    base = a.base;
    off = c.const_slot(uint64_t(a.off));
    return true;
  };
  auto offsets_operand = [&](const ptx::Operand &v) {
    if (v.kind != ptx::Operand::Kind::Vector || v.elems.size() != rank - 2) {
      c.error(v.loc, fmt::format("'{}' expects {} im2col offsets",
                                 c.text_of(in), rank - 2));
      return false;
    }
    for (uint32_t s = 0; s + 2 < rank; ++s)
      list.im2col_off[s] = c.src(v.elems[s], Ty{Ty::U16});
    return true;
  };
  if (prefetch) {
    mods.take(ptx::Mod::L2);
    mods.take(ptx::Mod::global);
    const ptx::Mod mode =
        tensor ? mods.take_any({ptx::Mod::tile, ptx::Mod::im2col})
               : ptx::Mod::unknown;
    bool hint = mods.take(ptx::Mod::L2_cache_hint);
    if (!c.finish(mods))
      return true;
    if (!tensor) {
      if (!c.expect_operands(hint ? 3 : 2))
        return true;
      Addr a;
      if (!c.address(o[0], MemSpace::Global, a))
        return true;
      BulkPrefetchOps p;
      p.addr = a.base;
      p.addr_off = c.const_slot(uint64_t(a.off));
      p.size = c.src(o[1], Ty{Ty::U32});
      c.emit_with(&exec_bulk_prefetch, p);
      return true;
    }
    bool im2col = mode == ptx::Mod::im2col;
    if (im2col && rank < 3) {
      c.error(in.loc,
              fmt::format("'{}': .im2col needs .3d to .5d", c.text_of(in)));
      return true;
    }
    if (!c.expect_operands(1 + (im2col ? 1 : 0) + (hint ? 1 : 0)) ||
        !tensor_operand(o[0]) || (im2col && !offsets_operand(o[1])))
      return true;
    list.kind = uint8_t(TmaKind::Prefetch);
    list.im2col = im2col;
  } else if (reduce) {
    // In the order of RedOp.
    static constexpr ptx::Mod kOps[] = {
        ptx::Mod::add, ptx::Mod::min,  ptx::Mod::max, ptx::Mod::inc,
        ptx::Mod::dec, ptx::Mod::and_, ptx::Mod::or_, ptx::Mod::xor_};
    const ptx::Mod op = mods.take_any({kOps[0], kOps[1], kOps[2], kOps[3],
                                       kOps[4], kOps[5], kOps[6], kOps[7]});
    uint32_t opi = 0;
    while (opi < 8 && op != kOps[opi])
      ++opi;
    bool dst_global = mods.take(ptx::Mod::global);
    bool src_shared = mods.take(ptx::Mod::shared_cta);
    const ptx::Mod mode =
        mods.take_any({ptx::Mod::tile, ptx::Mod::im2col_no_offs});
    bool group = mods.take(ptx::Mod::bulk_group);
    bool hint = mods.take(ptx::Mod::L2_cache_hint);
    if (!tensor)
      return compile_bulk_reduce(c, in, mods, opi, dst_global, src_shared,
                                 group, hint);
    if (!c.finish(mods))
      return true;
    if (op == ptx::Mod::unknown || !dst_global || !src_shared || !group) {
      c.error(in.loc, fmt::format("'{}' needs .global.shared::cta, a "
                                  "reduction operation and .bulk_group",
                                  c.text_of(in)));
      return true;
    }
    if (!c.expect_operands(hint ? 3 : 2) || !tensor_operand(o[0]) ||
        !shared_operand(o[1], list.sh, list.sh_off))
      return true;
    list.kind = uint8_t(TmaKind::Reduce);
    list.red_op = uint8_t(opi);
    list.im2col = mode == ptx::Mod::im2col_no_offs;
  } else {
    if (!tensor) {
      c.unsupported("cp.async.bulk form");
      return true;
    }
    using ptx::Mod;
    const Mod dsp = mods.take_any({Mod::shared_cluster, Mod::global});
    const Mod ssp = mods.take_any({Mod::global, Mod::shared_cta});
    const Mod mode =
        mods.take_any({Mod::tile, Mod::im2col, Mod::im2col_no_offs});
    bool tx = mods.take(ptx::Mod::mbarrier_complete_tx_bytes);
    bool group = mods.take(ptx::Mod::bulk_group);
    bool multicast = mods.take(ptx::Mod::multicast_cluster);
    bool hint = mods.take(ptx::Mod::L2_cache_hint);
    if (!c.finish(mods))
      return true;
    bool load = dsp == Mod::shared_cluster && ssp == Mod::global && tx &&
                mode != Mod::im2col_no_offs;
    bool store = dsp == Mod::global && ssp == Mod::shared_cta && group &&
                 !multicast && mode != Mod::im2col;
    if (!load && !store) {
      c.unsupported("cp.async.bulk.tensor combination of state spaces, "
                    "load mode and completion mechanism");
      return true;
    }
    bool im2col = mode == Mod::im2col || mode == Mod::im2col_no_offs;
    if (im2col && rank < 3) {
      c.error(in.loc,
              fmt::format("'{}': im2col needs .3d to .5d", c.text_of(in)));
      return true;
    }
    list.im2col = im2col;
    if (load) {
      size_t n = 3 + (im2col ? 1 : 0) + (multicast ? 1 : 0) + (hint ? 1 : 0);
      if (!c.expect_operands(n) ||
          !shared_operand(o[0], list.sh, list.sh_off) ||
          !tensor_operand(o[1]) ||
          !shared_operand(o[2], list.mbar, list.mbar_off))
        return true;
      size_t k = 3;
      if (im2col && !offsets_operand(o[k++]))
        return true;
      if (multicast) {
        list.multicast = true;
        list.cta_mask = c.src(o[k++], Ty{Ty::U16});
      }
      list.kind = uint8_t(TmaKind::Load);
    } else {
      if (!c.expect_operands(hint ? 3 : 2) || !tensor_operand(o[0]) ||
          !shared_operand(o[1], list.sh, list.sh_off))
        return true;
      list.kind = uint8_t(TmaKind::Store);
    }
  }
  c.emit_with(&exec_tma, list);
  return true;
}

bool compile_tensormap(Compiler &c, const ptx::Instruction &in) {
  const auto &o = in.operands;
  Mods mods(in);
  using ptx::Mod;
  if (!mods.take(Mod::replace) || !mods.take(Mod::tile)) {
    c.unsupported("tensormap form");
    return true;
  }
  // In the order of MapField.
  static constexpr Mod kFields[] = {Mod::global_address, Mod::rank,
                                    Mod::box_dim,        Mod::global_dim,
                                    Mod::global_stride,  Mod::element_stride,
                                    Mod::elemtype,       Mod::interleave_layout,
                                    Mod::swizzle_mode,   Mod::swizzle_atomicity,
                                    Mod::fill_mode};
  const Mod field = mods.take_any(
      {kFields[0], kFields[1], kFields[2], kFields[3], kFields[4], kFields[5],
       kFields[6], kFields[7], kFields[8], kFields[9], kFields[10]});
  uint32_t fi = 0;
  while (fi < 11 && field != kFields[fi])
    ++fi;
  const Mod sp = mods.take_any({Mod::global, Mod::shared_cta});
  bool b1024 = mods.take(Mod::b1024);
  const Mod ty = mods.take_any({Mod::b32, Mod::b64});
  if (!c.finish(mods))
    return true;
  if (field == Mod::unknown || sp == Mod::unknown || !b1024 ||
      ty == Mod::unknown) {
    c.error(in.loc, fmt::format("'{}' needs a field, .global or .shared::cta, "
                                ".b1024 and .b32 or .b64",
                                c.text_of(in)));
    return true;
  }
  bool ordinal = MapField(fi) == MapField::BoxDim ||
                 MapField(fi) == MapField::GlobalDim ||
                 MapField(fi) == MapField::GlobalStride ||
                 MapField(fi) == MapField::ElementStride;
  if (!c.expect_operands(ordinal ? 3 : 2))
    return true;
  Addr a;
  if (!c.address(o[0], sp == Mod::global ? MemSpace::Global : MemSpace::Shared,
                 a))
    return true;
  uint32_t ord = ordinal ? c.src(o[1], Ty{Ty::U32}) : kNone;
  uint32_t v =
      c.src(o[ordinal ? 2 : 1], Ty{ty == Mod::b64 ? Ty::U64 : Ty::U32});
  TensormapReplaceOps p;
  p.addr = a.base;
  p.addr_off = c.const_slot(uint64_t(a.off));
  p.ordinal = ord;
  p.value = v;
  p.field = uint8_t(fi);
  p.shared = sp != Mod::global;
  c.emit_with(&exec_tensormap_replace, p);
  return true;
}

} // namespace bcusim::engine::detail
