// References for tests/kernels/sync/*.cu: mbarrier-based cuda::barrier,
// memcpy_async, __syncwarp, elect.sync, clusters, grid sync, fences and
// bulk copies. Each kernel's synchronization makes its result
// unique; these loops compute that result sequentially. in = iota.
#include "ref_common.h"

namespace {

int arg(int argc, char **argv, int i) {
  return static_cast<int>(kref::arg_int(argc, argv, i));
}

// cuda_barrier_drop GRID: threads >= 96 leave after two phases.
void cuda_barrier_drop(int argc, char **argv) {
  const int grid = arg(argc, argv, 2);
  std::vector<int> out;
  for (int c = 0; c < grid; ++c)
    for (int tid = 0; tid < 128; ++tid) {
      int acc = 0;
      for (int it = 0; it < 4; ++it) {
        if (tid >= 96 && it == 2)
          break;
        const int m = it < 2 ? 128 : 96;
        const int partner = (tid + 32) % m;
        acc += partner * (it + 1) + 5;
      }
      out.push_back(acc);
    }
  kref::print_buffer(out);
}

// memcpy_async GRID and bulk_copy_tx GRID: CTA c's 256-int slice of iota.
void slice_mix(int argc, char **argv, int self_weight, int mirror_weight) {
  const int grid = arg(argc, argv, 2);
  std::vector<int> out;
  for (int c = 0; c < grid; ++c)
    for (int tid = 0; tid < 256; ++tid)
      out.push_back(self_weight * (c * 256 + tid) +
                    mirror_weight * (c * 256 + 255 - tid));
  kref::print_buffer(out);
}

void syncwarp_partial() {
  std::vector<int> s(128);
  for (int t = 0; t < 128; ++t)
    s[static_cast<std::size_t>(t)] = t % 32 < 16 ? t * 3 : -t;
  std::vector<int> a(128);
  for (int t = 0; t < 128; ++t) {
    const int lane = t % 32, base = t - lane;
    a[static_cast<std::size_t>(t)] =
        lane < 16
            ? s[static_cast<std::size_t>(base + (lane + 5) % 16)]
            : s[static_cast<std::size_t>(base + 16 + (lane - 16 + 3) % 16)];
  }
  for (int t = 0; t < 128; ++t)
    if (t % 2 == 1)
      s[static_cast<std::size_t>(t)] += 1000;
  std::vector<int> out;
  for (int t = 0; t < 128; ++t) {
    out.push_back(a[static_cast<std::size_t>(t)]);
    out.push_back(t % 2 == 1 ? s[static_cast<std::size_t>(t ^ 2)] : 0);
    out.push_back(s[static_cast<std::size_t>(t ^ 16)]);
  }
  kref::print_buffer(out);
}

// syncwarp_diverged: the two half-warps exchange through shared memory and
// shuffles from different __syncwarp() / __shfl_xor_sync() call sites.
void syncwarp_diverged() {
  std::vector<int> s(128);
  for (int t = 0; t < 128; ++t)
    s[static_cast<std::size_t>(t)] = t % 32 < 16 ? t * 7 : -t - 5;
  std::vector<int> out;
  for (int t = 0; t < 128; ++t) {
    const int lane = t % 32, base = t - lane, partner = t ^ 16;
    const int mirror = s[static_cast<std::size_t>(base + 31 - lane)];
    if (lane < 16) {
      out.push_back(mirror);
      out.push_back(-partner);
    } else {
      out.push_back(mirror * 2);
      out.push_back(partner * 7 + 1);
    }
    out.push_back(s[static_cast<std::size_t>(t ^ 1)]);
  }
  kref::print_buffer(out);
}

// elect_one GRID: one leader per election, agreed on by all members.
void elect_one(int argc, char **argv) {
  const unsigned warps = static_cast<unsigned>(arg(argc, argv, 2)) * 4;
  std::vector<unsigned> out;
  for (unsigned w = 0; w < warps; ++w) {
    const unsigned row[6] = {1, 1, 1, 100 + w, 1, 1};
    out.insert(out.end(), row, row + 6);
  }
  kref::print_buffer(out);
}

// cluster_dsmem GRID: clusters of 2, peer = ctaid ^ 1.
void cluster_dsmem(int argc, char **argv) {
  const int grid = arg(argc, argv, 2);
  std::vector<int> out, info;
  for (int b = 0; b < grid; ++b) {
    const int peer = b ^ 1;
    for (int tid = 0; tid < 64; ++tid)
      out.push_back(peer * 10000 + (peer % 2) * 1000 + (tid + 1) % 64);
    info.push_back(b % 2);
    info.push_back(2);
    info.push_back(b / 2);
  }
  kref::print_buffer(out);
  kref::print_buffer(info);
}

// smem_cluster_addr: the numbers an NVIDIA H200 printed for the same
// kernel (driver 580.159.04, CUDA 13.0, 2026-11-28). Rank r's .shared::cta
// address of `a` is r * 16 MiB + 1024; mapa to the other rank gives that
// rank's address; each CTA reads its peer's rank.
void smem_cluster_addr() {
  kref::print_buffer(
      std::vector<unsigned>{0x400, 0x1000400, 1, 0, 0x1000400, 0x400, 0, 0});
}

// cluster_hist GRID BLOCK CLUSTER
void cluster_hist(int argc, char **argv) {
  const unsigned grid = static_cast<unsigned>(arg(argc, argv, 2));
  const unsigned block = static_cast<unsigned>(arg(argc, argv, 3));
  const unsigned cluster = static_cast<unsigned>(arg(argc, argv, 4));
  std::vector<unsigned> out(grid / cluster * 32, 0);
  for (unsigned g = 0; g < grid * block; ++g) {
    const unsigned cid = g / block / cluster;
    out[cid * 32 + (g * 7 + g / 13) % 32] += 1;
  }
  kref::print_buffer(out);
}

// grid_sync GRID BLOCK
void grid_sync(int argc, char **argv) {
  const unsigned n =
      static_cast<unsigned>(arg(argc, argv, 2) * arg(argc, argv, 3));
  std::vector<int> a(n), b(n), c(n);
  for (unsigned g = 0; g < n; ++g)
    a[g] = static_cast<int>(g) * 3 + 1;
  for (unsigned g = 0; g < n; ++g)
    b[g] = a[(g + 37) % n] + a[n - 1 - g];
  for (unsigned g = 0; g < n; ++g)
    c[g] = b[(g * 5) % n];
  kref::print_buffer(a);
  kref::print_buffer(b);
  kref::print_buffer(c);
}

// last_block GRID: partials, total, counter reset to 0.
void last_block(int argc, char **argv) {
  const int grid = arg(argc, argv, 2);
  std::vector<int> partial;
  int total = 0;
  for (int c = 0; c < grid; ++c) {
    int sum = 0;
    for (int t = 0; t < 128; ++t)
      sum += c * 128 + t;
    partial.push_back(sum);
    total += sum;
  }
  kref::print_buffer(partial);
  kref::print_value(total);
  kref::print_value(0u);
}

void mbarrier_tx() {
  std::vector<int> out;
  for (int tid = 0; tid < 64; ++tid)
    for (int k = 0; k < 3; ++k)
      out.push_back((k + 1) * 100 + (tid * 7 + k) % 64);
  kref::print_buffer(out);
}

// pdl_pair N: the producer/consumer pair of launches (PDL), in = iota over
// N threads; dumps mid then out.
void pdl_pair(int argc, char **argv) {
  const unsigned n = static_cast<unsigned>(arg(argc, argv, 2));
  std::vector<int> mid(n), out(n);
  for (unsigned g = 0; g < n; ++g)
    mid[g] = static_cast<int>(g) * 2 + 1;
  for (unsigned g = 0; g < n; ++g)
    out[g] = mid[(g + 1) % n] + static_cast<int>(g) * 5;
  kref::print_buffer(mid);
  kref::print_buffer(out);
}

} // namespace

int main(int argc, char **argv) {
  const std::string_view name = argc > 1 ? argv[1] : "";
  if (name == "cuda_barrier_drop")
    cuda_barrier_drop(argc, argv);
  else if (name == "memcpy_async")
    slice_mix(argc, argv, 1, 2);
  else if (name == "bulk_copy_tx")
    slice_mix(argc, argv, 2, 1);
  else if (name == "syncwarp_partial")
    syncwarp_partial();
  else if (name == "syncwarp_diverged")
    syncwarp_diverged();
  else if (name == "elect_one")
    elect_one(argc, argv);
  else if (name == "cluster_dsmem")
    cluster_dsmem(argc, argv);
  else if (name == "cluster_hist")
    cluster_hist(argc, argv);
  else if (name == "smem_cluster_addr")
    smem_cluster_addr();
  else if (name == "grid_sync")
    grid_sync(argc, argv);
  else if (name == "last_block")
    last_block(argc, argv);
  else if (name == "mbarrier_tx")
    mbarrier_tx();
  else if (name == "pdl_pair")
    pdl_pair(argc, argv);
  else
    kref::unknown_case(name);
  return 0;
}
