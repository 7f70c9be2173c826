// The ld / st handlers' paths (exec_memory.cpp), shared by the plain
// handlers and their observed copies (exec_observed.cpp): the fast paths
// of a warp access, the per-lane paths, and exec_ld_impl / exec_st_impl,
// whose Obs instantiation reports the access to the observer. Included by
// those two files only; each gets its own (internal) copy.
#pragma once

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "observe.h"

namespace bcusim::engine::detail {

// The observed ld (Store false) or st of S, B bytes, address lanes A and
// value lanes V (exec_observed.cpp, one instantiation per handler).
template <MemSpace S, uint32_t B, class A, class V, bool Store>
void observed_ldst(Exec &x, const Inst &in, uint32_t m);

namespace {

template <MemSpace S>
inline uint8_t *xlate(Exec &x, uint64_t addr, uint32_t size, bool write,
                      uint32_t lane) {
  if constexpr (S == MemSpace::Global)
    return x.global(addr, size, write, lane);
  else if constexpr (S == MemSpace::Shared) {
    const uint64_t n = x.cta->shared.size(), off = addr - x.cta->shared_base;
    if (off < n && size <= n - off)
      return x.cta->shared.data() + off;
    return x.translate(S, addr, size, write, lane);
  } else
    return x.translate(S, addr, size, write, lane);
}

// ld: a[0] = address base slot, a[1..n] = destination slots, imm = offset.
// flags bit0 = sign-extend.
// Fast path of a warp access (any lanes, scalar or vector): when every
// executing lane's address is aligned and falls in one region — the CTA's
// own shared memory, or the last global allocation hit — one range check
// replaces the per-lane ones; lane l's bytes are then at hb + (base[l] +
// rel). Returns false to take the checked per-lane path. An observed access
// takes it too: its event is built for the whole warp at once
// (AccessBatch::add_space, the stored values from the
// registers), the same event the per-lane path would build.
template <MemSpace S, uint32_t B, class A>
[[gnu::always_inline]] inline bool
warp_fast(Exec &x, const A *base, int64_t imm, uint32_t m, uint32_t n,
          uint8_t *&hb, uint64_t &rel) {
  if constexpr (S != MemSpace::Global && S != MemSpace::Shared) {
    return false;
  } else {
    if (m == 0)
      return false;
    const uint64_t total = uint64_t(B) * n;
    if constexpr (S == MemSpace::Shared && sizeof(A) == 4) {
      // A 32-bit address register, the whole warp and an aligned offset:
      // the OR of the 32-bit lanes bounds every lane's address and gives
      // their alignment, without widening each lane to 64 bits. Else the
      // tests below.
      if (m == kFullMask && imm >= 0 && (uint64_t(imm) & (total - 1)) == 0 &&
          x.cta->shared_base == 0) {
        uint32_t or_base = 0;
        for (uint32_t l = 0; l < kWarpSize; ++l)
          or_base |= base[l];
        const uint64_t size = x.cta->shared.size();
        if ((or_base & (total - 1)) == 0 && total <= size &&
            uint64_t(or_base) + uint64_t(imm) <= size - total) {
          hb = x.cta->shared.data();
          rel = uint64_t(imm);
          return true;
        }
      }
    }
    // First test (vectorizable, no branch per lane): the OR of the lanes'
    // offsets from a region's start bounds each offset, so OR + total <=
    // size puts every access inside (always so when the size is a power of
    // two); the OR of the addresses gives their alignment. The regions: the
    // CTA's shared memory, or the two global allocations last hit.
    const uint64_t start =
        S == MemSpace::Shared ? x.cta->shared_base : x.g_base;
    const uint64_t start2 =
        S == MemSpace::Shared ? x.cta->shared_base : x.g_base2;
    uint64_t or_addr = 0, or_off = 0, or_off2 = 0;
    if (m == kFullMask) {
      for (uint32_t l = 0; l < kWarpSize; ++l) {
        const uint64_t a = uint64_t(base[l]) + uint64_t(imm);
        or_addr |= a;
        or_off |= a - start;
        or_off2 |= a - start2;
      }
    } else {
      for_lanes(m, [&](uint32_t l) {
        const uint64_t a = uint64_t(base[l]) + uint64_t(imm);
        or_addr |= a;
        or_off |= a - start;
        or_off2 |= a - start2;
      });
    }
    if (or_addr & (total - 1))
      return false;
    if constexpr (S == MemSpace::Shared) {
      const uint64_t size = x.cta->shared.size();
      if (total <= size && or_off <= size - total) {
        hb = x.cta->shared.data();
        rel = uint64_t(imm) - x.cta->shared_base;
        return true;
      }
    } else {
      if (total <= x.g_size && or_off <= x.g_size - total) {
        hb = x.g_data;
        rel = uint64_t(imm) - x.g_base;
        return true;
      }
      if (total <= x.g_size2 && or_off2 <= x.g_size2 - total) {
        std::swap(x.g_base, x.g_base2);
        std::swap(x.g_size, x.g_size2);
        std::swap(x.g_data, x.g_data2);
        hb = x.g_data;
        rel = uint64_t(imm) - x.g_base;
        return true;
      }
    }
    // Then the exact test: the lowest and highest address in one region.
    uint64_t lo = ~0ull, hi = 0;
    for_lanes(m, [&](uint32_t l) {
      const uint64_t a = uint64_t(base[l]) + uint64_t(imm);
      lo = a < lo ? a : lo;
      hi = a > hi ? a : hi;
    });
    if constexpr (S == MemSpace::Shared) {
      const uint64_t size = x.cta->shared.size(), sb = x.cta->shared_base;
      if (total > size || lo < sb || hi - sb > size - total)
        return false;
      hb = x.cta->shared.data();
      rel = uint64_t(imm) - sb;
      return true;
    } else {
      if (lo - x.g_base < x.g_size && total <= x.g_size &&
          hi - x.g_base <= x.g_size - total) {
        hb = x.g_data;
        rel = uint64_t(imm) - x.g_base;
        return true;
      }
      if (lo - x.g_base2 < x.g_size2 && total <= x.g_size2 &&
          hi - x.g_base2 <= x.g_size2 - total) {
        std::swap(x.g_base, x.g_base2);
        std::swap(x.g_size, x.g_size2);
        std::swap(x.g_data, x.g_data2);
        hb = x.g_data;
        rel = uint64_t(imm) - x.g_base;
        return true;
      }
      return false;
    }
  }
}

// The unsigned integer of B bytes.
template <uint32_t B> struct Word;
template <> struct Word<1> { using type = uint8_t; };
template <> struct Word<2> { using type = uint16_t; };
template <> struct Word<4> { using type = uint32_t; };
template <> struct Word<8> { using type = uint64_t; };
// A coalesced global access of `bytes` at `addr` (host pointer `p`) by the
// instruction at x.pc: when the warp's previous access at that pc was
// `step` bytes away (a loop striding through an array), the block
// kStrideAhead steps ahead (addr + kStrideAhead * step) is prefetched, so
// the warp's later iterations find their memory in the host's cache
// whatever the order in which warps run (the host's own prefetcher follows
// only sequential orders, such as the default schedule's; docs/engine.md
// "Fast paths"). Four steps ahead rather than one: an iteration's data is
// then asked for several iterations (or a turn) before it is used, which
// host memory's latency needs (docs/performance.md); the first time a
// step is seen the blocks 1 to kStrideAhead steps ahead are all asked for.
// A hint: no value, fault or event depends on it.
constexpr uint64_t kStrideAhead = 4;
// Warp::stream_pc[k]: the pc, with this bit once a step was seen there.
constexpr uint32_t kStreamSeen = 1u << 31;
[[gnu::always_inline]] inline void
prefetch_stride(Exec &x, uint64_t addr, const uint8_t *p, uint32_t bytes) {
  Warp &w = *x.warp;
  const uint32_t k = x.pc & 3;
  const uint32_t at = w.stream_pc[k];
  w.stream_pc[k] = x.pc;
  if ((at & ~kStreamSeen) == x.pc) {
    const uint64_t step = addr - w.stream_addr[k];
    constexpr uint64_t kReach = 1ull << 26;
    if (step != 0 && step + kReach < 2 * kReach) {
      for (uint64_t d = at & kStreamSeen ? kStrideAhead : 1; d <= kStrideAhead;
           ++d) {
        // Every cache line the block spans (its last byte's line too, when
        // the block does not start at a line).
        const uintptr_t q = reinterpret_cast<uintptr_t>(p) + d * step;
        for (uint32_t o = 0; o < bytes; o += 64)
          __builtin_prefetch(reinterpret_cast<const void *>(q + o));
        __builtin_prefetch(reinterpret_cast<const void *>(q + bytes - 1));
      }
      w.stream_pc[k] = x.pc | kStreamSeen;
    }
  }
  w.stream_addr[k] = addr;
}

// Whether lane l's address is the first lane's + l * B for every lane.
template <uint32_t B, class A>
[[gnu::always_inline]] inline bool contiguous(const A *base) {
  uint64_t dev = 0;
  for (uint32_t l = 0; l < kWarpSize; ++l)
    dev |= uint64_t(base[l]) - uint64_t(base[0]) - uint64_t(l) * B;
  return dev == 0;
}

// A whole-warp scalar access whose lane l is at the first lane's address +
// l * B (coalesced), aligned and inside one region: the region's host
// bytes `hb` and `rel` as warp_fast gives them (the same regions, tried in
// the same order), found from the first lane's address alone instead of a
// pass over the lanes' offsets. False: not such an access (the caller goes
// on to warp_fast).
template <MemSpace S, uint32_t B, class A>
[[gnu::always_inline]] inline bool coalesced_fast(Exec &x, const A *base,
                                                  int64_t imm, uint8_t *&hb,
                                                  uint64_t &rel) {
  if constexpr (S != MemSpace::Global && S != MemSpace::Shared) {
    return false;
  } else {
    constexpr uint64_t span = uint64_t(kWarpSize) * B;
    // The last lane first: a broadcast or a half-warp pattern fails here.
    if (uint64_t(base[kWarpSize - 1]) - uint64_t(base[0]) != span - B ||
        !contiguous<B>(base))
      return false;
    const uint64_t a = uint64_t(base[0]) + uint64_t(imm);
    if (a & (B - 1))
      return false;
    if constexpr (S == MemSpace::Shared) {
      const uint64_t size = x.cta->shared.size(), sb = x.cta->shared_base;
      if (size < span || a - sb > size - span)
        return false;
      hb = x.cta->shared.data();
      rel = uint64_t(imm) - sb;
      return true;
    } else {
      if (x.g_size >= span && a - x.g_base <= x.g_size - span) {
        hb = x.g_data;
        rel = uint64_t(imm) - x.g_base;
        return true;
      }
      if (x.g_size2 >= span && a - x.g_base2 <= x.g_size2 - span) {
        std::swap(x.g_base, x.g_base2);
        std::swap(x.g_size, x.g_size2);
        std::swap(x.g_data, x.g_data2);
        hb = x.g_data;
        rel = uint64_t(imm) - x.g_base;
        return true;
      }
      return false;
    }
  }
}

// The per-lane paths of ld and st (every space, vectors, partial warps),
// reporting each lane's access to `batch` (AccessBatch or NoBatch).
// Lane `l`'s address (`addr`) and host bytes for an access of `total`
// bytes, or nullptr once the warp has faulted, the address is misaligned
// (a fault) or it does not translate (xlate faults).
template <MemSpace S, class A>
inline uint8_t *lane_bytes(Exec &x, const Inst &in, const A *base, uint32_t l,
                           uint32_t total, bool write, uint64_t &addr) {
  if (x.faulted)
    return nullptr;
  addr = uint64_t(base[l]) + uint64_t(in.imm);
  if (addr & (total - 1)) {
    x.set_fault(FaultKind::Misaligned, S, addr, total, l, write);
    return nullptr;
  }
  return xlate<S>(x, addr, total, write, l);
}

template <MemSpace S, uint32_t B, class A, class V, class Batch>
inline void ld_lanes(Exec &x, const Inst &in, uint32_t m, Batch &batch) {
  const auto *base = x.lanes<A>(in.a[0]);
  const uint32_t n = in.n, total = B * n;
  for_lanes(m, [&](uint32_t l) {
    uint64_t addr = 0;
    uint8_t *p = lane_bytes<S>(x, in, base, l, total, false, addr);
    if (!p)
      return;
    batch.add(l, S, addr);
    for (uint32_t k = 0; k < n; ++k) {
      uint64_t v = 0;
      std::memcpy(&v, p + k * B, B);
      if ((in.flags & 1) && B < 8) {
        uint32_t sh = 64 - 8 * B;
        v = uint64_t(int64_t(v << sh) >> sh);
      }
      if (in.a[1 + k] != kNone)
        x.lanes<V>(in.a[1 + k])[l] = V(v);
    }
  });
}

template <MemSpace S, uint32_t B, class A, class V, class Batch>
inline void st_lanes(Exec &x, const Inst &in, uint32_t m, Batch &batch) {
  const auto *base = x.lanes<A>(in.a[0]);
  const uint32_t n = in.n, total = B * n;
  for_lanes(m, [&](uint32_t l) {
    uint64_t addr = 0;
    uint8_t *p = lane_bytes<S>(x, in, base, l, total, true, addr);
    if (!p)
      return;
    for (uint32_t k = 0; k < n; ++k) {
      uint64_t v = x.lanes<V>(in.a[1 + k])[l];
      std::memcpy(p + k * B, &v, B);
    }
    batch.add(l, S, addr, p);
  });
}

// The observed per-lane path and the event of a warp access that took a
// fast path (exec_observed.cpp).
template <MemSpace S, uint32_t B, class A, class V, bool Store>
void lanes_observed(Exec &x, const Inst &in, uint32_t m);
template <MemSpace S, uint32_t B, class A, class V, bool Store>
void observe_warp(Exec &x, const Inst &in, uint32_t m);
// Whether an observed access of Local, KParam or Const can take the warp
// path (exec_observed.cpp).
template <MemSpace S, class A>
bool lanes_inside(Exec &x, const A *base, int64_t imm, uint32_t m,
                  uint32_t total, bool write);

// An observed access that no warp-wide fast path took: local, parameter
// and constant accesses with every lane inside the space run the plain
// lane loop, then report the warp's event at once; the others go lane by
// lane.
template <MemSpace S, uint32_t B, class A, class V, bool Store>
[[gnu::always_inline]] inline void observed_lanes(Exec &x, const Inst &in,
                                                  uint32_t m) {
  if constexpr (S == MemSpace::Local || S == MemSpace::KParam ||
                S == MemSpace::Const) {
    if (lanes_inside<S>(x, x.lanes<A>(in.a[0]), in.imm, m, B * in.n, Store)) {
      NoBatch none;
      if constexpr (Store)
        st_lanes<S, B, A, V>(x, in, m, none);
      else
        ld_lanes<S, B, A, V>(x, in, m, none);
      observe_warp<S, B, A, V, Store>(x, in, m);
      return;
    }
  }
  lanes_observed<S, B, A, V, Store>(x, in, m);
}

template <MemSpace S, uint32_t B, class A, class V, bool Obs>
[[gnu::always_inline]] inline void exec_ld_impl(Exec &x, const Inst &in,
                                                uint32_t m) {
  const auto *base = x.lanes<A>(in.a[0]);
  const uint32_t n = in.n;
  uint8_t *hb = nullptr;
  uint64_t rel = 0;
  if (m == kFullMask && n == 1 &&
      coalesced_fast<S, B>(x, base, in.imm, hb, rel)) {
    // A coalesced access (lane l at the first lane's address + l * B): one
    // block of memory, widened lane by lane (a vector loop).
    const uint8_t *p = hb + (uint64_t(base[0]) + rel);
    if constexpr (S == MemSpace::Global)
      prefetch_stride(x, base[0], p, kWarpSize * B);
    auto *d = x.lanes<V>(in.a[1]);
    bool sext = false;
    if constexpr (B < 8)
      sext = in.flags & 1;
    if (sext) {
      using T = std::make_signed_t<typename Word<B>::type>;
      for (uint32_t l = 0; l < kWarpSize; ++l) {
        T v;
        std::memcpy(&v, p + l * B, B);
        d[l] = V(int64_t(v));
      }
    } else {
      for (uint32_t l = 0; l < kWarpSize; ++l) {
        typename Word<B>::type v;
        std::memcpy(&v, p + l * B, B);
        d[l] = v;
      }
    }
    if constexpr (Obs)
      observe_warp<S, B, A, V, false>(x, in, m);
    return;
  }
  if (warp_fast<S, B>(x, base, in.imm, m, n, hb, rel)) {
    const bool sext = (in.flags & 1) && B < 8;
    auto load = [&](const uint8_t *p) {
      uint64_t v = 0;
      std::memcpy(&v, p, B);
      if (sext) {
        constexpr uint32_t sh = 64 - 8 * B;
        v = uint64_t(int64_t(v << sh) >> sh);
      }
      return v;
    };
    if (m == kFullMask && n == 1) {
      // Not coalesced (coalesced_fast took those).
      auto *d = x.lanes<V>(in.a[1]);
      for (uint32_t l = 0; l < kWarpSize; ++l)
        d[l] = V(load(hb + (uint64_t(base[l]) + rel)));
    } else {
      for_lanes(m, [&](uint32_t l) {
        const uint8_t *p = hb + (uint64_t(base[l]) + rel);
        for (uint32_t k = 0; k < n; ++k) {
          uint64_t v = load(p + k * B);
          if (in.a[1 + k] != kNone)
            x.lanes<V>(in.a[1 + k])[l] = V(v);
        }
      });
    }
    if constexpr (Obs)
      observe_warp<S, B, A, V, false>(x, in, m);
    return;
  }
  if constexpr (Obs) {
    observed_lanes<S, B, A, V, false>(x, in, m);
    return;
  }
  NoBatch none;
  ld_lanes<S, B, A, V>(x, in, m, none);
}

template <MemSpace S, uint32_t B, class A, class V, bool Obs>
[[gnu::always_inline]] inline void exec_st_impl(Exec &x, const Inst &in,
                                                uint32_t m) {
  const auto *base = x.lanes<A>(in.a[0]);
  const uint32_t n = in.n;
  ++x.progress;
  uint8_t *hb = nullptr;
  uint64_t rel = 0;
  if (m == kFullMask && n == 1 &&
      coalesced_fast<S, B>(x, base, in.imm, hb, rel)) {
    const auto *v = x.lanes<V>(in.a[1]);
    uint8_t *p = hb + (uint64_t(base[0]) + rel);
    if constexpr (S == MemSpace::Global)
      prefetch_stride(x, base[0], p, kWarpSize * B);
    for (uint32_t l = 0; l < kWarpSize; ++l) {
      const auto w = typename Word<B>::type(v[l]);
      std::memcpy(p + l * B, &w, B);
    }
    if constexpr (Obs)
      observe_warp<S, B, A, V, true>(x, in, m);
    return;
  }
  if (warp_fast<S, B>(x, base, in.imm, m, n, hb, rel)) {
    const auto *v = x.lanes<V>(in.a[1]);
    if (m == kFullMask && n == 1) {
      // Not coalesced (coalesced_fast took those).
      for (uint32_t l = 0; l < kWarpSize; ++l)
        std::memcpy(hb + (uint64_t(base[l]) + rel), &v[l], B);
    } else {
      for_lanes(m, [&](uint32_t l) {
        uint8_t *p = hb + (uint64_t(base[l]) + rel);
        for (uint32_t k = 0; k < n; ++k)
          std::memcpy(p + k * B, &x.lanes<V>(in.a[1 + k])[l], B);
      });
    }
    if constexpr (Obs)
      observe_warp<S, B, A, V, true>(x, in, m);
    return;
  }
  if constexpr (Obs) {
    observed_lanes<S, B, A, V, true>(x, in, m);
    return;
  }
  NoBatch none;
  st_lanes<S, B, A, V>(x, in, m, none);
}

} // namespace

} // namespace bcusim::engine::detail
