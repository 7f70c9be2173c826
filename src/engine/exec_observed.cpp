// The observed copies of the ld / st handlers (ldst.h): an access with an
// observer attached runs here, out of line, and reports its event; the
// plain handlers (exec_memory.cpp) are compiled apart from these.
#include "compile.h"
#include "ldst.h"

namespace bcusim::engine::detail {

namespace {

template <MemSpace S, uint32_t B, class A, class V, bool Store>
[[gnu::noinline]] void lanes_observed(Exec &x, const Inst &in, uint32_t m) {
  AccessBatch batch(x, in, Store ? AccessType::Write : AccessType::Read,
                    B * in.n);
  if constexpr (Store)
    st_lanes<S, B, A, V>(x, in, m, batch);
  else
    ld_lanes<S, B, A, V>(x, in, m, batch);
  batch.emit();
}

// The event of a warp access that took a fast path (every lane of `m` at
// its address, in the CTA's shared memory, in global memory, or inside
// the local frame, the kernel parameters or the constant bank:
// lanes_inside); a store gives the values from its registers, B bytes per
// lane copied with a size known at compile time (one block for a whole
// warp whose value registers are B bytes wide). The same event the
// per-lane path (lanes_observed) builds.
template <MemSpace S, uint32_t B, class A, class V, bool Store>
void observe_warp(Exec &x, const Inst &in, uint32_t m) {
  AccessBatch batch(x, in, Store ? AccessType::Write : AccessType::Read,
                    B * in.n);
  const auto *base = x.lanes<A>(in.a[0]);
  batch.add_space<S>(m, base, in.imm);
  if constexpr (Store) {
    if (in.n == 1) {
      batch.add_values<B>(m, x.lanes<V>(in.a[1]));
    } else {
      const Lane<V> *v[4] = {};
      const uint32_t n = std::min<uint32_t>(in.n, 4);
      for (uint32_t k = 0; k < n; ++k)
        v[k] = x.lanes<V>(in.a[1 + k]);
      batch.add_vector_values<B>(m, v, n);
    }
  }
  batch.emit();
}

// Whether every lane of `m` of an observed access to the thread's local
// frame, the kernel parameters or the constant bank is aligned and inside
// the space (a write: local memory only), so that the plain per-lane path
// neither faults nor stops early and the event can be built for the warp
// at once (observe_warp): the per-lane path with nothing to report per
// lane. False for the other spaces, and where in doubt.
template <MemSpace S, class A>
bool lanes_inside(Exec &x, const A *base, int64_t imm, uint32_t m,
                  uint32_t total, bool write) {
  uint64_t n = 0;
  if constexpr (S == MemSpace::Local)
    n = x.launch->local_bytes;
  else if constexpr (S == MemSpace::KParam)
    n = write ? 0 : x.launch->kparams.size();
  else if constexpr (S == MemSpace::Const)
    n = write ? 0 : x.prog->const_image.size();
  if (m == 0 || total > n)
    return false;
  // The OR of the addresses gives their alignment and bounds each (it is
  // the address itself when the lanes agree, as they mostly do here); a
  // false answer only means the per-lane path.
  uint64_t any = 0;
  for_lanes(m, [&](uint32_t l) { any |= uint64_t(base[l]) + uint64_t(imm); });
  return (any & (total - 1)) == 0 && any <= n - total;
}

template <MemSpace S, uint32_t B, class A, class V, bool Store>
void observed_impl(Exec &x, const Inst &in, uint32_t m) {
  if constexpr (Store)
    exec_st_impl<S, B, A, V, true>(x, in, m);
  else
    exec_ld_impl<S, B, A, V, true>(x, in, m);
}
// The copy compiled for AVX2, every call inlined (as the plain handlers'
// with_avx2): the lane loops of the fast paths and of the event in
// 256-bit vectors (shared and global memory).
template <MemSpace S, uint32_t B, class A, class V, bool Store>
[[gnu::noinline, gnu::flatten]] __attribute__((target("avx2"))) void
observed_avx2(Exec &x, const Inst &in, uint32_t m) {
  observed_impl<S, B, A, V, Store>(x, in, m);
}

} // namespace

template <MemSpace S, uint32_t B, class A, class V, bool Store>
void observed_ldst(Exec &x, const Inst &in, uint32_t m) {
  // The fast paths with vector loops: shared and global memory.
  if constexpr (S == MemSpace::Global || S == MemSpace::Shared) {
    if (host_has_avx2()) {
      observed_avx2<S, B, A, V, Store>(x, in, m);
      return;
    }
  }
  observed_impl<S, B, A, V, Store>(x, in, m);
}

// Every handler pick_ldst (exec_memory.cpp) can choose.
#define BCUSIM_OBSERVED(S, B, A, V)                                            \
  template void observed_ldst<MemSpace::S, B, A, V, false>(                    \
      Exec &, const Inst &, uint32_t);                                         \
  template void observed_ldst<MemSpace::S, B, A, V, true>(                     \
      Exec &, const Inst &, uint32_t);
#define BCUSIM_OBSERVED_B(S, B)                                                \
  BCUSIM_OBSERVED(S, B, uint32_t, uint32_t)                                    \
  BCUSIM_OBSERVED(S, B, uint32_t, uint64_t)                                    \
  BCUSIM_OBSERVED(S, B, uint64_t, uint32_t)                                    \
  BCUSIM_OBSERVED(S, B, uint64_t, uint64_t)
#define BCUSIM_OBSERVED_S(S)                                                   \
  BCUSIM_OBSERVED_B(S, 1)                                                      \
  BCUSIM_OBSERVED_B(S, 2) BCUSIM_OBSERVED_B(S, 4) BCUSIM_OBSERVED_B(S, 8)
BCUSIM_OBSERVED_S(Global)
BCUSIM_OBSERVED_S(Shared)
BCUSIM_OBSERVED_S(Local)
BCUSIM_OBSERVED_S(KParam)
BCUSIM_OBSERVED_S(Const)
BCUSIM_OBSERVED_S(Generic)
#undef BCUSIM_OBSERVED_S
#undef BCUSIM_OBSERVED_B
#undef BCUSIM_OBSERVED

} // namespace bcusim::engine::detail
