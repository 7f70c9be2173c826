// References for the fixed kernels of tests/kernels/check/*.cu (the
// checker's test kernels): what each race-free kernel must leave in its
// buffers, computed sequentially from the data flow its synchronization
// guarantees. The inputs are iota unless a case says otherwise.
#include <cstdint>
#include <string_view>
#include <vector>

#include "ref_common.h"

namespace {

int arg(int argc, char **argv, int i) {
  return static_cast<int>(kref::arg_int(argc, argv, i));
}

using Ints = std::vector<int>;

int at(const Ints &v, int i) { return v[static_cast<std::size_t>(i)]; }

Ints iota(int n) {
  Ints v;
  for (int i = 0; i < n; ++i)
    v.push_back(i);
  return v;
}

// shared_raw_fixed: 2 CTAs x 128; out = 3 * in[neighbour] + 1.
void shared_raw() {
  const Ints in = iota(256);
  Ints out;
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 128; ++t)
      out.push_back(3 * at(in, b * 128 + (t + 37) % 128) + 1);
  kref::print_buffer(out);
}

// shared_war_fixed, cp_async_fixed, pipeline_fixed GRID NTILES: each CTA
// walks NTILES tiles of 128 and accumulates (i + 1) * the neighbour's
// element of tile i.
void tiled_sum(int argc, char **argv) {
  const int grid = arg(argc, argv, 2), ntiles = arg(argc, argv, 3);
  const Ints in = iota(grid * ntiles * 128);
  Ints out;
  for (int b = 0; b < grid; ++b)
    for (int t = 0; t < 128; ++t) {
      int acc = 0;
      for (int i = 0; i < ntiles; ++i)
        acc += (i + 1) * at(in, (b * ntiles + i) * 128 + (t + 37) % 128);
      out.push_back(acc);
    }
  kref::print_buffer(out);
}

// shared_waw_fixed: slot t % 64 keeps the larger claimant, t % 64 + 64.
void shared_waw() {
  Ints out;
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 128; ++t)
      out.push_back(t % 64 + 64);
  kref::print_buffer(out);
}

// global_cta_fixed: out[i] = 2 * in[i] + 5 over 2 x 64 threads.
void global_cta() {
  Ints out;
  for (int i = 0; i < 128; ++i)
    out.push_back(2 * i + 5);
  kref::print_buffer(out);
}

// ticket_fixed GRID: the counter ends at GRID; every CTA of 64 iota values
// holds 32 odd ones, so every slot holds 32 whichever CTA took it.
void ticket(int argc, char **argv) {
  const int grid = arg(argc, argv, 2);
  kref::print_value(static_cast<unsigned>(grid));
  Ints list;
  for (int b = 0; b < grid; ++b) {
    int odd = 0;
    for (int t = 0; t < 64; ++t)
      odd += (b * 64 + t) & 1;
    list.push_back(odd);
  }
  kref::print_buffer(list);
}

// dsmem_fixed: clusters of 2 CTAs x 64; own s[t] + 1000 * peer's
// s[(t + 1) % 64], s = in + 7.
void dsmem() {
  const Ints in = iota(256);
  Ints out;
  for (int b = 0; b < 4; ++b)
    for (int t = 0; t < 64; ++t)
      out.push_back((at(in, b * 64 + t) + 7) +
                    1000 * (at(in, (b ^ 1) * 64 + (t + 1) % 64) + 7));
  kref::print_buffer(out);
}

// named_pc_fixed ROUNDS: consumer c (thread 64 + c) reads buf[63 - c] of
// every round, buf = 3 * in[r * 64 + ...].
void named_pc(int argc, char **argv) {
  const int rounds = arg(argc, argv, 2);
  const Ints in = iota(rounds * 64);
  Ints out;
  for (int c = 0; c < 64; ++c) {
    int acc = 0;
    for (int r = 0; r < rounds; ++r)
      acc += (r + 1) * 3 * at(in, r * 64 + 63 - c);
    out.push_back(acc);
  }
  kref::print_buffer(out);
}

// warp_scan_syncwarp / warp_scan_shfl: inclusive prefix sums per warp.
void warp_scan() {
  const Ints in = iota(64);
  Ints out;
  for (int t = 0; t < 64; ++t) {
    int s = 0;
    for (int j = t - t % 32; j <= t; ++j)
      s += at(in, j);
    out.push_back(s);
  }
  kref::print_buffer(out);
}

// diverged_syncwarp: each lane gets the value its mirror lane (31 - lane)
// of the same warp stored: t * 3 in the low half, t + 1000 in the high half.
void diverged_syncwarp() {
  Ints out;
  for (int t = 0; t < 64; ++t) {
    const int mirror = t - t % 32 + 31 - t % 32;
    out.push_back(mirror % 32 < 16 ? mirror * 3 : mirror + 1000);
  }
  kref::print_buffer(out);
}

// warp_agg_fixed: per-CTA sums of 128 values and their total.
void warp_agg() {
  const Ints in = iota(256);
  Ints part(2, 0);
  int total = 0;
  for (int i = 0; i < 256; ++i) {
    part[static_cast<std::size_t>(i / 128)] += at(in, i);
    total += at(in, i);
  }
  kref::print_buffer(part);
  kref::print_value(total);
}

// atomic_scope_fixed: histogram of in % 8 over 256 values.
void atomic_scope() {
  std::vector<unsigned> hist(8, 0);
  for (int i = 0; i < 256; ++i)
    ++hist[static_cast<std::size_t>(i % 8)];
  kref::print_buffer(hist);
}

// flag_release_acquire / flag_fence_relaxed: data, flag, out.
void flags() {
  kref::print_value(42);
  kref::print_value(1);
  kref::print_value(42);
}

// tag_fixed: table (u8[20]) and mark (u8[128]); tags = iota bytes.
void tag() {
  std::vector<uint8_t> table(20, 0);
  for (int i = 0; i < 16; ++i)
    table[static_cast<std::size_t>(i)] =
        static_cast<uint8_t>(5 * (i / 4) + i % 4);
  kref::print_buffer(table);
  std::vector<uint8_t> mark;
  for (int t = 0; t < 128; ++t)
    mark.push_back(static_cast<uint8_t>(t * 7 + 3));
  kref::print_buffer(mark);
}

// cp_async_src_fixed: data is cleared after the copy; out = 2 * the copied
// neighbour.
void cp_async_src() {
  const Ints data = iota(128);
  kref::print_buffer(Ints(128, 0));
  Ints out;
  for (int t = 0; t < 128; ++t)
    out.push_back(2 * at(data, (t + 37) % 128));
  kref::print_buffer(out);
}

// bulk_fixed: 2 CTAs x 256; 2 * own + mirrored element of the tile.
void bulk() {
  const Ints in = iota(512);
  Ints out;
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 256; ++t)
      out.push_back(2 * at(in, b * 256 + t) + at(in, b * 256 + 255 - t));
  kref::print_buffer(out);
}

// cuda_barrier_fixed: out = neighbour - 1; aux (iota) tripled.
void cuda_barrier() {
  const Ints in = iota(256);
  Ints out, aux;
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 128; ++t)
      out.push_back(at(in, b * 128 + (t + 37) % 128) - 1);
  for (int i = 0; i < 256; ++i)
    aux.push_back(3 * i);
  kref::print_buffer(out);
  kref::print_buffer(aux);
}

// mbar_pc_fixed: the consumers copy buf[i] = 5 * i + 1 for i < 64.
void mbar_pc() {
  Ints out;
  for (int i = 0; i < 64; ++i)
    out.push_back(5 * i + 1);
  kref::print_buffer(out);
}

// syncthreads_div_fixed: threads t < 64 read 2 * in[63 - t]; the others
// leave out untouched (zeros).
void syncthreads_div() {
  Ints out;
  for (int t = 0; t < 128; ++t)
    out.push_back(t < 64 ? 2 * (63 - t) : 0);
  kref::print_buffer(out);
}

// named_deadlock_fixed: 192 threads; t < 128 read s[127 - t] = 3 *
// (127 - t), the others store t.
void named_deadlock() {
  Ints out;
  for (int t = 0; t < 192; ++t)
    out.push_back(t < 128 ? 3 * (127 - t) : t);
  kref::print_buffer(out);
}

// grid_sync_fixed: 4 CTAs x 64; a[g] = 3g + 1; b[g] = a[(g + 64) % 256]
// except CTA 0, which leaves b untouched.
void grid_sync() {
  Ints a, b;
  for (int g = 0; g < 256; ++g)
    a.push_back(3 * g + 1);
  for (int g = 0; g < 256; ++g)
    b.push_back(g < 64 ? 0 : at(a, (g + 64) % 256));
  kref::print_buffer(a);
  kref::print_buffer(b);
}

// cluster_wait_fixed: one cluster of 2 CTAs x 128; the peer's
// s[(t + 1) % 128] = 1000 * peer rank + (t + 1) % 128.
void cluster_wait() {
  Ints out;
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 128; ++t)
      out.push_back(1000 * (b ^ 1) + (t + 1) % 128);
  kref::print_buffer(out);
}

// mbar_next_phase_fixed: in = iota(2); out = (in[0] + 10) + (in[1] + 20).
void mbar_next_phase() {
  const Ints in = iota(2);
  kref::print_buffer(Ints(64, (at(in, 0) + 10) + (at(in, 1) + 20)));
}

// mbar_stale_wait_fixed: the phase of the last token has completed.
void mbar_stale_wait() { kref::print_buffer(std::vector<unsigned>(64, 1u)); }

// mbar_init_fixed: out = 4 * neighbour index.
void mbar_init() {
  Ints out;
  for (int t = 0; t < 128; ++t)
    out.push_back(4 * ((t + 37) % 128));
  kref::print_buffer(out);
}

// reduce_uninit_fixed GRID N: sums of N consecutive iota values per CTA.
void reduce(int argc, char **argv) {
  const int grid = arg(argc, argv, 2), n = arg(argc, argv, 3);
  Ints out;
  for (int b = 0; b < grid; ++b) {
    int s = 0;
    for (int i = 0; i < n; ++i)
      s += b * n + i;
    out.push_back(s);
  }
  kref::print_buffer(out);
}

// local_hist_fixed THREADS N: how many of thread t's N values share the
// first one's bin (value % 8).
void local_hist(int argc, char **argv) {
  const int threads = arg(argc, argv, 2), n = arg(argc, argv, 3);
  const Ints in = iota(threads * n);
  Ints out;
  for (int t = 0; t < threads; ++t) {
    int count = 0;
    for (int i = 0; i < n; ++i)
      count += at(in, t * n + i) % 8 == at(in, t * n) % 8;
    out.push_back(count);
  }
  kref::print_buffer(out);
}

} // namespace

int main(int argc, char **argv) {
  const std::string_view name = argc > 1 ? argv[1] : "";
  if (name == "shared_raw_fixed")
    shared_raw();
  else if (name == "shared_war_fixed" || name == "cp_async_fixed" ||
           name == "pipeline_fixed")
    tiled_sum(argc, argv);
  else if (name == "shared_waw_fixed")
    shared_waw();
  else if (name == "global_cta_fixed")
    global_cta();
  else if (name == "ticket_fixed")
    ticket(argc, argv);
  else if (name == "dsmem_fixed")
    dsmem();
  else if (name == "named_pc_fixed")
    named_pc(argc, argv);
  else if (name == "warp_scan_syncwarp" || name == "warp_scan_shfl")
    warp_scan();
  else if (name == "diverged_syncwarp")
    diverged_syncwarp();
  else if (name == "warp_agg_fixed")
    warp_agg();
  else if (name == "atomic_scope_fixed")
    atomic_scope();
  else if (name == "flag_release_acquire" || name == "flag_fence_relaxed")
    flags();
  else if (name == "tag_fixed")
    tag();
  else if (name == "cp_async_src_fixed")
    cp_async_src();
  else if (name == "bulk_fixed")
    bulk();
  else if (name == "cuda_barrier_fixed")
    cuda_barrier();
  else if (name == "mbar_pc_fixed")
    mbar_pc();
  else if (name == "syncthreads_div_fixed")
    syncthreads_div();
  else if (name == "named_deadlock_fixed")
    named_deadlock();
  else if (name == "grid_sync_fixed")
    grid_sync();
  else if (name == "cluster_wait_fixed")
    cluster_wait();
  else if (name == "mbar_next_phase_fixed")
    mbar_next_phase();
  else if (name == "mbar_stale_wait_fixed")
    mbar_stale_wait();
  else if (name == "mbar_init_fixed")
    mbar_init();
  else if (name == "reduce_uninit_fixed")
    reduce(argc, argv);
  else if (name == "local_hist_fixed")
    local_hist(argc, argv);
  else
    kref::unknown_case(name);
  return 0;
}
