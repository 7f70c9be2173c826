// Barrier unit throughput: warp arrivals per second, and a full 32-warp
// BAR.SYNC round (31 blocking arrivals, the completing one, the wake).
#include <benchmark/benchmark.h>

#include "bcusim/bcu/barrier_unit.h"

namespace {

using namespace bcusim::bcu;

Instr make(Op op, unsigned id, unsigned count) {
  Instr in;
  in.op = op;
  in.barid = Source::imm(id);
  in.count = Source::imm(count);
  return in;
}

// BAR.ARV on 16 barriers round robin, count = the whole CTA: arrivals that
// complete a phase every 32 arrivals per barrier.
void BM_WarpArrivals(benchmark::State &state) {
  BarrierUnit unit(1024);
  unit.set_recording(false);
  LaneValueTable values;
  std::array<Instr, kNumBarriers> arv;
  for (unsigned b = 0; b < kNumBarriers; ++b)
    arv[b] = make(Op::Arrive, b, 1024);
  unsigned warp = 0, bar = 0;
  for (auto _ : state) {
    Outcome o = unit.execute(warp, ~0u, arv[bar], values);
    benchmark::DoNotOptimize(o);
    if (++bar == kNumBarriers) {
      bar = 0;
      warp = (warp + 1) % 32;
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WarpArrivals);

// One round: 32 warps BAR.SYNC 0 (count 0); the last completes and wakes 31.
void BM_FullSyncRound32Warps(benchmark::State &state) {
  BarrierUnit unit(1024);
  unit.set_recording(false);
  LaneValueTable values;
  Instr sync = make(Op::Sync, 0, 0);
  for (auto _ : state) {
    for (unsigned w = 0; w < 32; ++w) {
      Outcome o = unit.execute(w, ~0u, sync, values);
      benchmark::DoNotOptimize(o);
    }
    benchmark::DoNotOptimize(unit.take_released());
  }
  state.SetItemsProcessed(state.iterations() * 32);
  state.counters["rounds/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FullSyncRound32Warps);

// The same round with BAR.RED.POPC (accumulation and 32 copies).
void BM_FullRedRound32Warps(benchmark::State &state) {
  BarrierUnit unit(1024);
  unit.set_recording(false);
  LaneValueTable values;
  values.set_pred(0, 0x5555AAAAu);
  Instr red = make(Op::Red, 1, 0);
  red.redop = RedOp::Popc;
  red.pp = 0;
  for (auto _ : state) {
    for (unsigned w = 0; w < 32; ++w) {
      Outcome o = unit.execute(w, ~0u, red, values);
      benchmark::DoNotOptimize(o);
    }
  }
  state.SetItemsProcessed(state.iterations() * 32);
}
BENCHMARK(BM_FullRedRound32Warps);

} // namespace
