// References for tests/kernels/barrier/*.cu (PTX bar / barrier{.cta}).
// Each function reasons about the barrier phases by hand (see the kernel's
// comment) and computes the buffers the kernel must leave behind with
// plain sequential loops. Input buffers are `iota` (in[i] = i).
#include "ref_common.h"

namespace {

using u32 = std::uint32_t;

int arg(int argc, char **argv, int i) {
  return static_cast<int>(kref::arg_int(argc, argv, i));
}

// producer_consumer GRID ITERS: every CTA's consumer warp sees, in
// iteration k, exactly the values the producer stored in iteration k
// (bar.sync 0 waits for the producer's bar.arrive 0; the producer does not
// overwrite the buffer before the consumer's bar.arrive 1).
void producer_consumer(int argc, char **argv) {
  const int grid = arg(argc, argv, 2), iters = arg(argc, argv, 3);
  std::vector<int> out;
  for (int c = 0; c < grid; ++c)
    for (int lane = 0; lane < 32; ++lane) {
      int acc = 0;
      for (int k = 0; k < iters; ++k)
        acc += (k * 32 + (lane + k) % 32) * 3 * (k + 1);
      out.push_back(acc);
    }
  kref::print_buffer(out);
}

// producer_consumer_pairs GRID ITERS: two independent pairs per CTA.
void producer_consumer_pairs(int argc, char **argv) {
  const int grid = arg(argc, argv, 2), iters = arg(argc, argv, 3);
  std::vector<int> out;
  for (int c = 0; c < grid; ++c)
    for (int pair = 0; pair < 2; ++pair)
      for (int lane = 0; lane < 32; ++lane) {
        int acc = 0;
        for (int k = 0; k < iters; ++k)
          acc += (k * 32 + (lane + k) % 32 + 1000 * pair) * (k + 1);
        out.push_back(acc);
      }
  kref::print_buffer(out);
}

// sync_count GRID BLOCK: each reduction covers every thread of the CTA.
void sync_count(int argc, char **argv) {
  const int grid = arg(argc, argv, 2), n = arg(argc, argv, 3);
  std::vector<int> out;
  for (int c = 0; c < grid; ++c) {
    int count = 0, all = 1, any = 0;
    for (int tid = 0; tid < n; ++tid) {
      count += (tid + c) % 3 == 0;
      all &= tid < n - c;
      any |= c % 2 == 1 && tid == 2 * c + 1;
    }
    for (int tid = 0; tid < n; ++tid) {
      out.push_back(count);
      out.push_back(all);
      out.push_back(any);
    }
  }
  kref::print_buffer(out);
}

// cta_reduce GRID BLOCK
void cta_reduce(int argc, char **argv) {
  const int grid = arg(argc, argv, 2), n = arg(argc, argv, 3);
  std::vector<int> rev, sums;
  for (int c = 0; c < grid; ++c) {
    int sum = 0;
    for (int tid = 0; tid < n; ++tid) {
      rev.push_back(c * n + n - 1 - tid);
      sum += c * n + tid;
    }
    sums.push_back(sum);
  }
  kref::print_buffer(rev);
  kref::print_buffer(sums);
}

void named_subsets() {
  std::vector<int> out;
  auto s = [](int t) { return t * 5 + 1; };
  for (int tid = 0; tid < 256; ++tid) {
    const int warp = tid / 32;
    const int first = warp < 2 ? 0 : warp < 5 ? 64 : 160;
    const int size = warp < 2 ? 64 : 96;
    out.push_back(s(first + (tid - first + 32) % size));
    out.push_back(s((tid + 128) % 256));
  }
  kref::print_buffer(out);
}

// bar64_all4: 4 passes, 4 arrivals, and each warp saw >= 2 arrivals.
void bar64_all4() { kref::print_buffer(std::vector<int>{4, 4, 1, 1, 1, 1}); }

// bar64_phases: phase 1 = warps 0+1, phase 2 = warps 2+3; partners differ
// by 32 in tid.
void bar64_phases() {
  std::vector<int> out;
  for (int tid = 0; tid < 128; ++tid)
    out.push_back((tid ^ 32) * 3 + 7);
  kref::print_buffer(out);
}

void sixteen_barriers() {
  std::vector<int> out;
  for (int tid = 0; tid < 1024; ++tid) {
    int acc = 0;
    for (int it = 0; it < 4; ++it)
      acc += ((tid ^ 32) * (it + 1) + it) * (it + 1);
    out.push_back(acc);
  }
  kref::print_buffer(out);
}

// early_exit: live threads are tids 0..47 (warp 0, lanes 0-15 of warp 1)
// and 64..95 (warp 2); the second round only tids 0..47. Exited threads
// leave the buffer's fill value 7.
void early_exit() {
  int sum = 0, live = 0;
  for (int j = 0; j < 128; ++j)
    if (j < 48 || (j >= 64 && j < 96)) {
      sum += j + 1;
      ++live;
    }
  std::vector<int> out(128 * 3, 7);
  for (int tid = 0; tid < 96; ++tid) {
    if (tid >= 48 && tid < 64)
      continue;
    out[static_cast<std::size_t>(tid * 3)] = sum;
    out[static_cast<std::size_t>(tid * 3 + 1)] = live;
    if (tid < 48)
      out[static_cast<std::size_t>(tid * 3 + 2)] = (tid + 16) % 48 + 1 + 100;
  }
  kref::print_buffer(out);
}

void divergent_nonaligned() {
  auto s = [](int t) { return t % 32 < 16 ? 2 * t : 2 * t + 1; };
  std::vector<int> out;
  for (int tid = 0; tid < 128; ++tid)
    out.push_back(tid % 32 < 16 ? s((tid + 64) % 128)
                                : s((tid + 32) % 128) + 1000);
  kref::print_buffer(out);
}

// cg_block_sync GRID BLOCK
void cg_block_sync(int argc, char **argv) {
  const int grid = arg(argc, argv, 2), n = arg(argc, argv, 3);
  auto s = [](int t) { return t % 3 == 0 ? t : -t; };
  std::vector<int> out;
  for (int c = 0; c < grid; ++c)
    for (int tid = 0; tid < n; ++tid)
      out.push_back(tid % 3 == 0 ? s((tid + 1) % n) : s((tid + 2) % n) * 2);
  kref::print_buffer(out);
}

// red_ops: p = (tid % 5 == 0) over 128 threads.
void red_ops() {
  auto p = [](u32 t) { return t % 5 == 0; };
  auto popc = [&](u32 lo, u32 hi, bool negate) {
    u32 c = 0;
    for (u32 t = lo; t < hi; ++t)
      c += p(t) != negate;
    return c;
  };
  auto any_not_p = [&](u32 lo, u32 hi) { return popc(lo, hi, true) > 0; };
  auto all_not_p = [&](u32 lo, u32 hi) {
    return popc(lo, hi, true) == hi - lo;
  };
  bool all_le_200 = true;
  for (u32 t = 0; t < 128; ++t)
    all_le_200 = all_le_200 && !(t > 200);
  std::vector<u32> out;
  for (u32 tid = 0; tid < 128; ++tid) {
    const u32 warp = tid / 32;
    const u32 lo = warp < 2 ? 0 : 64, hi = lo + 64;
    const u32 row[7] = {
        popc(0, 128, false), popc(0, 128, true),
        all_not_p(0, 128),   any_not_p(0, 128),
        all_le_200,          warp < 2 ? popc(0, 64, false) : any_not_p(64, 128),
        popc(lo, hi, true)};
    out.insert(out.end(), row, row + 7);
  }
  kref::print_buffer(out);
}

// all_forms: p = (tid % 7 == 0) holds for 19 of 128 threads; the and forms
// reduce an all-true predicate, the or forms an all-false one, each
// possibly negated (see the kernel's table).
void all_forms() {
  unsigned popc_p = 0;
  for (unsigned t = 0; t < 128; ++t)
    popc_p += t % 7 == 0;
  const unsigned popc_not_p = 128 - popc_p;
  std::vector<unsigned> out;
  for (unsigned tid = 0; tid < 128; ++tid) {
    for (unsigned k = 0; k < 6; ++k)
      out.push_back(tid < 64 ? 0 : (tid - 64) * 10 + k);
    const unsigned reds[18] = {
        popc_p, popc_not_p, popc_p, popc_not_p, popc_not_p, popc_p, // popc
        1,      0,          0,      1,          1,          0,      // and
        1,      0,          0,      1,          1,          0};     // or
    out.insert(out.end(), reds, reds + 18);
  }
  kref::print_buffer(out);
}

} // namespace

int main(int argc, char **argv) {
  const std::string_view name = argc > 1 ? argv[1] : "";
  if (name == "producer_consumer")
    producer_consumer(argc, argv);
  else if (name == "producer_consumer_pairs")
    producer_consumer_pairs(argc, argv);
  else if (name == "sync_count")
    sync_count(argc, argv);
  else if (name == "cta_reduce")
    cta_reduce(argc, argv);
  else if (name == "named_subsets")
    named_subsets();
  else if (name == "bar64_all4")
    bar64_all4();
  else if (name == "bar64_phases")
    bar64_phases();
  else if (name == "sixteen_barriers")
    sixteen_barriers();
  else if (name == "early_exit")
    early_exit();
  else if (name == "divergent_nonaligned")
    divergent_nonaligned();
  else if (name == "cg_block_sync")
    cg_block_sync(argc, argv);
  else if (name == "red_ops")
    red_ops();
  else if (name == "all_forms")
    all_forms();
  else
    kref::unknown_case(name);
  return 0;
}
