// Special registers (PTX "Special Registers"): %tid %ntid %ctaid %nctaid
// %laneid %warpid %nwarpid %smid %nsmid %gridid %lanemask_* %clock
// %clock_hi %clock64 %globaltimer* %envreg<N> %pm<N> the cluster registers
// and the shared-memory size registers. Values that a real GPU does not fix
// are deterministic here (docs/engine.md "Special registers").
#include <algorithm>
#include <fmt/format.h>
#include <string_view>

#include "compile.h"

namespace bcusim::engine::detail {

namespace {

enum Sreg : uint32_t {
  TidX,
  TidY,
  TidZ,
  NtidX,
  NtidY,
  NtidZ,
  CtaidX,
  CtaidY,
  CtaidZ,
  NctaidX,
  NctaidY,
  NctaidZ,
  LaneId,
  WarpId,
  NWarpId,
  SmId,
  NSmId,
  GridId,
  LanemaskEq,
  LanemaskLe,
  LanemaskLt,
  LanemaskGe,
  LanemaskGt,
  Clock,
  ClockHi,
  Clock64,
  GlobalTimer,
  GlobalTimerLo,
  GlobalTimerHi,
  EnvReg,
  Pm,
  ClusterIdX,
  ClusterIdY,
  ClusterIdZ,
  NClusterIdX,
  NClusterIdY,
  NClusterIdZ,
  ClusterCtaidX,
  ClusterCtaidY,
  ClusterCtaidZ,
  ClusterNctaidX,
  ClusterNctaidY,
  ClusterNctaidZ,
  ClusterCtarank,
  ClusterNctarank,
  IsExplicitCluster,
  DynamicSmem,
  TotalSmem,
  AggrSmem,
  ReservedBegin,
  ReservedEnd,
  ReservedCap,
  ReservedN,
  Pm64,
  CurrentGraphExec,
  WarpSz,
};

// Deterministic clock (docs/engine.md "Simulated time"): the
// warp-instructions the CTA has issued so far, this one included (one
// cycle each); %globaltimer is the device's simulated time in nanoseconds:
// the launches before this one, then this CTA's cycles at the modelled
// clock rate.
uint64_t clock_of(const Exec &x) { return x.cta->steps + x.turn_steps; }
uint64_t timer_of(const Exec &x) {
  return x.launch->timer_base_ns + cycles_to_ns(clock_of(x));
}

template <class D> void exec_sreg(Exec &x, const Inst &in, uint32_t m) {
  auto *d = x.lanes<D>(in.a[0]);
  const Launch &L = *x.launch;
  const Dim3 &b = L.block;
  const Cta &c = *x.cta;
  auto uniform = [&](uint64_t v) {
    for_lanes(m, [&](uint32_t l) { d[l] = v; });
  };
  uint32_t id = in.aux & 0xffff;
  switch (id) {
  case TidX:
    for_lanes(m, [&](uint32_t l) { d[l] = x.thread_of(l) % b.x; });
    return;
  case TidY:
    for_lanes(m, [&](uint32_t l) { d[l] = x.thread_of(l) / b.x % b.y; });
    return;
  case TidZ:
    for_lanes(m, [&](uint32_t l) { d[l] = x.thread_of(l) / (b.x * b.y); });
    return;
  case NtidX:
    return uniform(b.x);
  case NtidY:
    return uniform(b.y);
  case NtidZ:
    return uniform(b.z);
  case CtaidX:
    return uniform(c.id.x);
  case CtaidY:
    return uniform(c.id.y);
  case CtaidZ:
    return uniform(c.id.z);
  case NctaidX:
    return uniform(L.grid.x);
  case NctaidY:
    return uniform(L.grid.y);
  case NctaidZ:
    return uniform(L.grid.z);
  case LaneId:
    for_lanes(m, [&](uint32_t l) { d[l] = l; });
    return;
  case WarpId:
    return uniform(x.warp->index);
  case NWarpId:
    return uniform(64);
  case SmId:
    return uniform(0);
  case NSmId:
    return uniform(1);
  case GridId:
    return uniform(0);
  case LanemaskEq:
    for_lanes(m, [&](uint32_t l) { d[l] = 1u << l; });
    return;
  case LanemaskLe:
    for_lanes(m, [&](uint32_t l) { d[l] = uint32_t((2ull << l) - 1); });
    return;
  case LanemaskLt:
    for_lanes(m, [&](uint32_t l) { d[l] = (1u << l) - 1; });
    return;
  case LanemaskGe:
    for_lanes(m, [&](uint32_t l) { d[l] = ~((1u << l) - 1); });
    return;
  case LanemaskGt:
    for_lanes(m, [&](uint32_t l) { d[l] = uint32_t(~((2ull << l) - 1)); });
    return;
  case Clock:
    return uniform(clock_of(x) & 0xffffffffu);
  case ClockHi:
    return uniform(clock_of(x) >> 32);
  case Clock64:
    return uniform(clock_of(x));
  case GlobalTimer:
    return uniform(timer_of(x));
  case GlobalTimerLo:
    return uniform(timer_of(x) & 0xffffffffu);
  case GlobalTimerHi:
    return uniform(timer_of(x) >> 32);
  case EnvReg:
    // %envreg1:%envreg2 = the grid workspace of cooperative groups
    // (docs/clusters.md "grid.sync"); every other environment register 0.
    return uniform((in.aux >> 16) == 1   ? L.grid_workspace >> 32
                   : (in.aux >> 16) == 2 ? L.grid_workspace & 0xffffffffu
                                         : 0);
  case Pm:
    return uniform(0);
  case ClusterIdX:
    return uniform(c.cluster_id.x);
  case ClusterIdY:
    return uniform(c.cluster_id.y);
  case ClusterIdZ:
    return uniform(c.cluster_id.z);
  case NClusterIdX:
    return uniform(L.grid.x / L.cluster.x);
  case NClusterIdY:
    return uniform(L.grid.y / L.cluster.y);
  case NClusterIdZ:
    return uniform(L.grid.z / L.cluster.z);
  case ClusterCtaidX:
    return uniform(c.cluster_ctaid.x);
  case ClusterCtaidY:
    return uniform(c.cluster_ctaid.y);
  case ClusterCtaidZ:
    return uniform(c.cluster_ctaid.z);
  case ClusterNctaidX:
    return uniform(L.cluster.x);
  case ClusterNctaidY:
    return uniform(L.cluster.y);
  case ClusterNctaidZ:
    return uniform(L.cluster.z);
  case ClusterCtarank:
    return uniform(c.cluster_rank);
  case ClusterNctarank:
    return uniform(L.cluster.count());
  case IsExplicitCluster:
    return uniform(L.has_cluster ? 1 : 0);
  case DynamicSmem:
    return uniform(L.dyn_shared);
  case TotalSmem:
    return uniform(L.total_smem);
  case AggrSmem:
    // The whole allocation: the reserved region and %total_smem_size.
    return uniform(L.reserved_smem + L.total_smem);
  // The reserved region's bounds are .shared::cta addresses of the CTA
  // (with its cluster rank, like its variables' addresses).
  case ReservedBegin:
    return uniform(c.shared_base + L.reserved_smem_off);
  case ReservedEnd:
    return uniform(c.shared_base + L.reserved_smem_off + L.reserved_smem);
  case ReservedCap:
    return uniform(L.reserved_smem);
  case ReservedN:
    // %reserved_smem_offset_0 / _1: the two halves of the region.
    return uniform(c.shared_base + L.reserved_smem_off +
                   (in.aux >> 16) * (kReservedSmemBytes / 2));
  case Pm64:
  case CurrentGraphExec:
    return uniform(0);
  case WarpSz:
    return uniform(kWarpSize);
  }
}

} // namespace

ExecFn special_reader(const std::string &name, uint32_t &aux, uint8_t width) {
  const ExecFn f = width == 8 ? &exec_sreg<uint64_t> : &exec_sreg<uint32_t>;
  static const std::pair<std::string_view, Sreg> table[] = {
      {"%tid.x", TidX},
      {"%tid.y", TidY},
      {"%tid.z", TidZ},
      {"%ntid.x", NtidX},
      {"%ntid.y", NtidY},
      {"%ntid.z", NtidZ},
      {"%ctaid.x", CtaidX},
      {"%ctaid.y", CtaidY},
      {"%ctaid.z", CtaidZ},
      {"%nctaid.x", NctaidX},
      {"%nctaid.y", NctaidY},
      {"%nctaid.z", NctaidZ},
      {"%laneid", LaneId},
      {"%warpid", WarpId},
      {"%nwarpid", NWarpId},
      {"%smid", SmId},
      {"%nsmid", NSmId},
      {"%gridid", GridId},
      {"%lanemask_eq", LanemaskEq},
      {"%lanemask_le", LanemaskLe},
      {"%lanemask_lt", LanemaskLt},
      {"%lanemask_ge", LanemaskGe},
      {"%lanemask_gt", LanemaskGt},
      {"%clock", Clock},
      {"%clock_hi", ClockHi},
      {"%clock64", Clock64},
      {"%globaltimer", GlobalTimer},
      {"%globaltimer_lo", GlobalTimerLo},
      {"%globaltimer_hi", GlobalTimerHi},
      {"%clusterid.x", ClusterIdX},
      {"%clusterid.y", ClusterIdY},
      {"%clusterid.z", ClusterIdZ},
      {"%nclusterid.x", NClusterIdX},
      {"%nclusterid.y", NClusterIdY},
      {"%nclusterid.z", NClusterIdZ},
      {"%cluster_ctaid.x", ClusterCtaidX},
      {"%cluster_ctaid.y", ClusterCtaidY},
      {"%cluster_ctaid.z", ClusterCtaidZ},
      {"%cluster_nctaid.x", ClusterNctaidX},
      {"%cluster_nctaid.y", ClusterNctaidY},
      {"%cluster_nctaid.z", ClusterNctaidZ},
      {"%cluster_ctarank", ClusterCtarank},
      {"%cluster_nctarank", ClusterNctarank},
      {"%is_explicit_cluster", IsExplicitCluster},
      {"%dynamic_smem_size", DynamicSmem},
      {"%total_smem_size", TotalSmem},
      {"%aggr_smem_size", AggrSmem},
      {"%reserved_smem_offset_begin", ReservedBegin},
      {"%reserved_smem_offset_end", ReservedEnd},
      {"%reserved_smem_offset_cap", ReservedCap},
      {"%pm0_64", Pm64},
      {"%pm1_64", Pm64},
      {"%pm2_64", Pm64},
      {"%pm3_64", Pm64},
      {"%pm4_64", Pm64},
      {"%pm5_64", Pm64},
      {"%pm6_64", Pm64},
      {"%pm7_64", Pm64},
      {"%current_graph_exec", CurrentGraphExec},
      {"WARP_SZ", WarpSz},
  };
  for (auto &[n, id] : table)
    if (name == n) {
      aux = id;
      return f;
    }
  auto numbered = [&](std::string_view prefix, uint32_t limit, Sreg id) {
    if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size())
      return false;
    uint32_t n = 0;
    for (size_t i = prefix.size(); i < name.size(); ++i) {
      if (name[i] < '0' || name[i] > '9')
        return false;
      n = n * 10 + uint32_t(name[i] - '0');
    }
    if (n >= limit)
      return false;
    aux = id | (n << 16);
    return true;
  };
  if (numbered("%envreg", 32, EnvReg) || numbered("%pm", 8, Pm) ||
      numbered("%reserved_smem_offset_", 2, ReservedN))
    return f;
  return nullptr;
}

bool reads_grid_workspace(const Inst &in) {
  return (in.fn == &exec_sreg<uint32_t> ||
          in.fn == &exec_sreg<uint64_t>)&&(in.aux & 0xffff) == EnvReg &&
         ((in.aux >> 16) == 1 || (in.aux >> 16) == 2);
}

} // namespace bcusim::engine::detail
