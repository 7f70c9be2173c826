// References for tests/kernels/atomic/*.cu. Every checked result is
// independent of the order in which the atomics happen, so a sequential
// loop over the threads in index order gives it.
#include "ref_common.h"

#include <algorithm>

namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;
using s32 = std::int32_t;

// atom.inc: (old >= limit) ? 0 : old + 1; atom.dec: (old == 0 || old >
// limit) ? limit : old - 1.
u32 inc(u32 old, u32 limit) { return old >= limit ? 0 : old + 1; }
u32 dec(u32 old, u32 limit) {
  return (old == 0 || old > limit) ? limit : old - 1;
}

// atomics_global GRID BLOCK
void atomics_global(int argc, char **argv) {
  const u32 n = static_cast<u32>(kref::arg_int(argc, argv, 2) *
                                 kref::arg_int(argc, argv, 3));
  std::vector<u32> acc(8, 0), ones(8, 0xffffffffu), tickets(n, 0);
  std::vector<s32> sgn(2, 0);
  std::vector<u64> wide(2, 0);
  float fsum = 0;
  double dsum = 0;
  for (u32 gid = 0; gid < n; ++gid) {
    acc[0] += 1;
    acc[1] += gid;
    acc[2] = std::max(acc[2], (gid * 2654435761u) >> 8);
    acc[3] = inc(acc[3], 17);
    acc[4] = dec(acc[4], 17);
    acc[5] |= 1u << (gid % 29);
    acc[6] ^= gid * 0x01010101u;
    tickets[acc[7]++] = 1;
    ones[0] &= ~(1u << (gid % 23));
    ones[1] = std::min(ones[1], (gid * 40503u) % 65521u + 7u);
    sgn[0] = std::min(sgn[0], static_cast<s32>(gid * 7919u % 1000u) - 500);
    sgn[1] = std::max(sgn[1], static_cast<s32>(gid * 104729u % 2000u) - 1000);
    wide[0] += static_cast<u64>(gid) << 33;
    wide[1] = std::max(wide[1], static_cast<u64>(gid) * u64{0x100000001});
    fsum += 0.5f; // every partial sum is exact
    dsum += 0.25;
  }
  kref::print_buffer(acc);
  kref::print_buffer(ones);
  kref::print_buffer(sgn);
  kref::print_buffer(wide);
  kref::print_value(fsum);
  kref::print_value(dsum);
  kref::print_buffer(tickets);
}

// atomics_shared GRID BLOCK
void atomics_shared(int argc, char **argv) {
  const u32 grid = static_cast<u32>(kref::arg_int(argc, argv, 2));
  const u32 block = static_cast<u32>(kref::arg_int(argc, argv, 3));
  std::vector<u32> hist(16, 0), per_cta;
  for (u32 c = 0; c < grid; ++c) {
    u32 s[7] = {0, 0xffffffffu, 0xffffffffu, 0, 0, 0, 0};
    for (u32 tid = 0; tid < block; ++tid) {
      const u32 v = (tid * 2246822519u + c * 977u) >> 7;
      hist[(tid * 7 + c) % 16] += 1;
      s[0] = std::max(s[0], v);
      s[1] = std::min(s[1], v);
      s[2] &= v | 0xff00ff00u;
      s[3] |= v & 0x00ff00ffu;
      s[4] ^= v;
      s[5] = inc(s[5], 9);
      s[6] += 3;
    }
    per_cta.insert(per_cta.end(), s, s + 7);
  }
  kref::print_buffer(hist);
  kref::print_buffer(per_cta);
}

// atomic_exch_cas BLOCK
void atomic_exch_cas(int argc, char **argv) {
  const u32 block = static_cast<u32>(kref::arg_int(argc, argv, 2));
  u32 tid_sum = 0, product = 1, maximum = 0;
  u64 big = 0;
  for (u32 tid = 0; tid < block; ++tid) {
    tid_sum += tid;
    product =
        static_cast<u32>(static_cast<u64>(product) * (tid + 2) % 1000003u);
    maximum = std::max(maximum, (tid * 3221225473u) ^ 0x5bd1e995u);
    big += (static_cast<u64>(tid) << 32) | 1;
  }
  kref::print_buffer(
      std::vector<u32>{1000 + tid_sum, product, maximum, 2000 + tid_sum});
  kref::print_value(big);
}

} // namespace

int main(int argc, char **argv) {
  const std::string_view name = argc > 1 ? argv[1] : "";
  if (name == "atomics_global")
    atomics_global(argc, argv);
  else if (name == "atomics_shared")
    atomics_shared(argc, argv);
  else if (name == "atomic_exch_cas")
    atomic_exch_cas(argc, argv);
  else
    kref::unknown_case(name);
  return 0;
}
