// References for tests/kernels/warp/*.cu: warp-wide shuffles, votes,
// matches and reductions computed lane by lane from the CUDA definitions
// (__shfl*_sync, __ballot_sync, __any/__all_sync, __match_*_sync,
// __reduce_*_sync) over each warp's 32 lanes.
#include "ref_common.h"

#include <algorithm>

namespace {

using u32 = std::uint32_t;

void shfl() {
  const int n = 64;
  std::vector<int> out;
  auto val = [](int t) { return t * 10 + 3; };
  for (int tid = 0; tid < n; ++tid) {
    const int lane = tid % 32, base = tid - lane;
    auto at = [&](int l) { return val(base + l); };
    // __shfl_sync with width w: lane (lane & ~(w-1)) + src % w.
    auto idx = [&](int src, int w) { return at((lane & ~(w - 1)) + src % w); };
    const int row[8] = {idx((lane * 7) % 32, 32),
                        lane < 3 ? val(tid) : at(lane - 3), // up 3
                        (lane % 16) + 5 < 16 ? at(lane + 5)
                                             : val(tid), // down 5, width 16
                        at(lane ^ 9),
                        at(lane ^ 2), // xor 2 stays inside each group of 8
                        idx(5, 8),
                        lane % 3 == 0 ? at(lane == 30 ? 0 : lane + 3) : -1,
                        (lane & 1) ? at(lane ^ 2) : -2};
    out.insert(out.end(), row, row + 8);
  }
  kref::print_buffer(out);
}

unsigned popc(u32 x) {
  unsigned c = 0;
  for (; x; x >>= 1)
    c += x & 1;
  return c;
}

void vote_match_reduce() {
  const u32 grid = 2, block = 64;
  std::vector<u32> out;
  for (u32 cta = 0; cta < grid; ++cta)
    for (u32 tid = 0; tid < block; ++tid) {
      const u32 lane = tid % 32, warp = tid / 32, base = tid - lane;
      auto v = [&](u32 t) { return (t * 37u + cta * 11u) % 101u; };
      u32 ballot = 0, all_ne5 = 1, max_v = 0, same_group = 0;
      for (u32 l = 0; l < 32; ++l) {
        ballot |= static_cast<u32>(v(base + l) % 3 == 0) << l;
        all_ne5 &= (base + l) != 5;
        max_v = std::max(max_v, v(base + l));
        same_group |= static_cast<u32>(l / 5 == lane / 5) << l;
      }
      u32 divergent_ballot = 0;
      if (lane < 20) {
        for (u32 l = 0; l < 20; ++l)
          divergent_ballot |= (l & 1u) << l;
      } else {
        for (u32 l = 20; l < 32; ++l)
          divergent_ballot |= static_cast<u32>(l % 4 == 0) << l;
      }
      u32 partial = 0;
      if (lane >= 8)
        for (u32 l = 8; l < 32; ++l)
          partial += l;
      else
        for (u32 l = 0; l < 8; ++l)
          partial |= l;
      const u32 row[12] = {ballot,
                           warp == 1 ? 1u : 0u, // lane 17 of warp 1 votes
                           all_ne5,
                           divergent_ballot,
                           popc(0xffffffffu),
                           same_group,
                           0xffffffffu, // every lane holds 7
                           1,
                           0, // lanes hold different values
                           496,
                           max_v,
                           partial};
      out.insert(out.end(), row, row + 12);
    }
  kref::print_buffer(out);
}

// activemask BLOCK
void activemask(int argc, char **argv) {
  const u32 block = static_cast<u32>(kref::arg_int(argc, argv, 2));
  std::vector<u32> out;
  for (u32 tid = 0; tid < block; ++tid) {
    const u32 warp_base = tid - tid % 32;
    const u32 lanes = std::min(32u, block - warp_base); // existing lanes
    const u32 exists = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
    out.push_back(exists);
    out.push_back(tid % 32 < 10 ? (exists & 0x3ffu) : 0);
  }
  kref::print_buffer(out);
}

} // namespace

// Cooperative-groups partitions (warp/cg_partitions.cu): each group's
// collective over exactly its members, from the group definitions.
void cg_partitions(int argc, char **argv) {
  const int block = kref::arg_int(argc, argv, 2);
  auto v = [](int t) { return (t * 7 + 3) % 23; };
  std::vector<int> out;
  for (int t = 0; t < block; ++t) {
    const int lane = t % 32, base = t - lane;
    const int warp_n = std::min(32, block - base);
    int sum3 = 0, size3 = 0, rank4 = 0, max_odd = -1, sum_t4 = 0, scan8 = 0,
        any16 = 0, even = 0;
    for (int l = 0; l < warp_n; ++l) {
      const int u = base + l, vu = v(u);
      if (l % 3 == lane % 3) {
        sum3 += vu;
        ++size3;
      }
      if (vu % 4 == v(t) % 4 && l < lane)
        ++rank4;
      if (vu % 2)
        max_odd = std::max(max_odd, vu);
      if (l / 4 == lane / 4)
        sum_t4 += vu;
      if (l / 8 == lane / 8 && l <= lane)
        scan8 += vu;
      if (l / 16 == lane / 16 && vu > 20)
        any16 = 1;
      even += vu % 2 == 0;
    }
    const int row[8] = {sum3,   size3, rank4, v(t) % 2 ? max_odd : -1,
                        sum_t4, scan8, any16, even};
    out.insert(out.end(), row, row + 8);
  }
  kref::print_buffer(out);
}

// big_tiles BLOCK: in = iota; tiles of 64 (sum) and 128 (max) threads.
void big_tiles(int argc, char **argv) {
  const int block = static_cast<int>(kref::arg_int(argc, argv, 2));
  std::vector<int> out64, out128;
  for (int k = 0; k < block / 64; ++k) {
    int s = 0;
    for (int t = 64 * k; t < 64 * k + 64; ++t)
      s += t;
    out64.push_back(s);
  }
  for (int k = 0; k < block / 128; ++k)
    out128.push_back(128 * k + 127);
  kref::print_buffer(out64);
  kref::print_buffer(out128);
}

int main(int argc, char **argv) {
  const std::string_view name = argc > 1 ? argv[1] : "";
  if (name == "shfl")
    shfl();
  else if (name == "cg_partitions")
    cg_partitions(argc, argv);
  else if (name == "vote_match_reduce")
    vote_match_reduce();
  else if (name == "big_tiles")
    big_tiles(argc, argv);
  else if (name == "activemask")
    activemask(argc, argv);
  else
    kref::unknown_case(name);
  return 0;
}
