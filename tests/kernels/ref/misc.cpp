// References for tests/kernels/misc/*.cu: printf, local arrays, dynamic
// shared memory, initialized module data, kernel and device-function
// parameters. Plain sequential C++ per the CUDA semantics.
#include "ref_common.h"

#include <cstring>

namespace {

void printf_one() {
  // Same formats and values as the kernel (thread 0): C printf output.
  const int neg = -42;
  std::printf("int=%d neg=%d u=%u x=%x X=%08X\n", 7, neg, 4000000000u, 48879u,
              0xbeefu);
  std::printf("ll=%lld ull=%llu c=%c s=%s pct=%%\n", -1234567890123LL,
              18446744073709551615ULL, 'Z', "bcusim");
  std::printf("f=%f e=%.3e g=%g d=%.10f\n", 1.5, 12345.678, 0.0001, 1.0 / 3.0);
  std::fflush(stdout);
  kref::print_value(neg);
}

// printf_threads GRID BLOCK: lines in ascending (ctaid, tid) order.
void printf_threads(int argc, char **argv) {
  const int grid = static_cast<int>(kref::arg_int(argc, argv, 2));
  const int block = static_cast<int>(kref::arg_int(argc, argv, 3));
  for (int c = 0; c < grid; ++c)
    for (int t = 0; t < block; ++t)
      std::printf("cta %d tid %d value %d\n", c, t, c * 100 + t * t);
  std::fflush(stdout);
}

// local_array BLOCK START
void local_array(int argc, char **argv) {
  const int block = static_cast<int>(kref::arg_int(argc, argv, 2));
  const int start = static_cast<int>(kref::arg_int(argc, argv, 3));
  std::vector<int> out;
  std::vector<float> fout;
  for (int tid = 0; tid < block; ++tid) {
    int arr[32];
    float f[16];
    for (int i = 0; i < 32; ++i)
      arr[(i * 7 + tid) % 32] = i * i + tid;
    for (int i = 0; i < 16; ++i)
      f[(i + start) % 16] =
          0.5f * static_cast<float>(i) + static_cast<float>(tid);
    int sum = 0;
    for (int j = 0; j < 32; ++j)
      sum += arr[(j * 5 + tid * 3) % 32] * (j + 1);
    float fs = 0;
    for (int j = 15; j >= 0; --j)
      fs = fs * 0.5f + f[(j + tid) % 16];
    out.push_back(sum);
    fout.push_back(fs);
  }
  kref::print_buffer(out);
  kref::print_buffer(fout);
}

// dyn_shared GRID BLOCK
void dyn_shared(int argc, char **argv) {
  const int grid = static_cast<int>(kref::arg_int(argc, argv, 2));
  const int n = static_cast<int>(kref::arg_int(argc, argv, 3));
  std::vector<int> out;
  for (int c = 0; c < grid; ++c)
    for (int tid = 0; tid < n; ++tid) {
      const int next = (tid + 1) % n, mirror = n - 1 - tid;
      out.push_back(next * next + c + 3 * mirror + 1000 * (tid % 8 + 1));
    }
  kref::print_buffer(out);
}

// smem_layout: the numbers an NVIDIA H200 printed for the same kernel
// (driver 580.159.04, CUDA 13.0, 2026-11-28): a at 1024, b at 1040, the
// dynamic array at 1072, %total_smem_size 256 (48 + 100 bytes in 128-byte
// units), %dynamic_smem_size 100, [0] reads 0 at kernel start and 77 after
// a store of 77 (the reserved 1 KiB is ordinary memory).
void smem_layout() {
  kref::print_buffer(
      std::vector<unsigned>{1024, 1040, 1072, 256, 100, 0, 77, 0});
}

void const_init() {
  const int ints[5] = {-1, 2, -300000, 0x7fff0000, 12345};
  const float floats[5] = {0.5f, -1.25f, 3.0e-5f, 1e30f, -0.0f};
  const double doubles[5] = {0.1, -2.5e-300, 1e300, 3.0, -7.75};
  const int counters[5] = {10, 20, 30, 40, 50};
  std::vector<int> oi;
  for (int i = 0; i < 5; ++i)
    oi.push_back(ints[i] + (counters[i] + i) * 1000);
  kref::print_buffer(oi);
  kref::print_buffer(std::vector<float>(floats, floats + 5));
  kref::print_buffer(std::vector<double>(doubles, doubles + 5));
  volatile double d0 = 0.25, d1 = -1e-5;
  kref::print_buffer(
      std::vector<long long>{'A', -2, 100000, static_cast<long long>(d0 * 1e6),
                             'z', 30000, -7, static_cast<long long>(d1 * 1e6)});
}

// params A B C D E F G H (the kernel's scalar arguments, in order)
void params(int argc, char **argv) {
  const auto a = static_cast<std::uint8_t>(kref::arg_int(argc, argv, 2));
  const auto b = static_cast<std::uint16_t>(kref::arg_int(argc, argv, 3));
  const auto c = static_cast<std::uint32_t>(kref::arg_int(argc, argv, 4));
  const auto d = std::strtoull(argv[5], nullptr, 0);
  const auto e = static_cast<std::int32_t>(kref::arg_int(argc, argv, 6));
  const auto f = static_cast<std::int64_t>(kref::arg_int(argc, argv, 7));
  const float g = std::strtof(argv[8], nullptr);
  volatile double h = std::strtod(argv[9], nullptr);
  const signed char tag = static_cast<signed char>(a);
  const short delta = static_cast<short>(b);
  kref::print_buffer(std::vector<long long>{
      a, b, c, static_cast<long long>(d), e, f,
      static_cast<signed char>(tag + 1), e + 3, static_cast<short>(delta - 3)});
  kref::print_buffer(std::vector<double>{g, h, h * 3});
}

// file_input INTS FLOATS: the kernel's inputs come from these raw files.
template <typename T> std::vector<T> read_raw(const char *path, std::size_t n) {
  std::vector<T> v(n);
  std::FILE *f = std::fopen(path, "rb");
  if (!f || std::fread(v.data(), sizeof(T), n, f) != n) {
    std::fprintf(stderr, "cannot read %zu elements from %s\n", n, path);
    std::exit(2);
  }
  std::fclose(f);
  return v;
}

void file_input(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: kref_misc file_input INTS.bin FLOATS.bin\n");
    std::exit(2);
  }
  const auto ints = read_raw<std::int32_t>(argv[2], 16);
  const auto floats = read_raw<float>(argv[3], 8);
  std::vector<std::int32_t> out;
  for (const std::int32_t x : ints)
    out.push_back(
        static_cast<std::int32_t>(static_cast<std::uint32_t>(x) * 3u - 7u));
  std::vector<float> fout;
  for (const float x : floats)
    fout.push_back(x * 0.5f);
  kref::print_buffer(ints);
  kref::print_buffer(floats);
  kref::print_buffer(out);
  kref::print_buffer(fout);
}

} // namespace

// fn_pointers GRID BLOCK N SIZE: a = iota, b = fill:5; out and area have
// SIZE elements, those at i >= N stay 0.
void fn_pointers(int argc, char **argv) {
  const int grid = static_cast<int>(kref::arg_int(argc, argv, 2));
  const int block = static_cast<int>(kref::arg_int(argc, argv, 3));
  const int n = static_cast<int>(kref::arg_int(argc, argv, 4));
  const int size = static_cast<int>(kref::arg_int(argc, argv, 5));
  std::vector<int> out(static_cast<size_t>(size), 0);
  std::vector<int> area(static_cast<size_t>(size), 0);
  for (int c = 0; c < grid; ++c)
    for (int t = 0; t < block; ++t) {
      const int i = c * block + t;
      if (i >= n)
        continue;
      const int a = i, b = 5;
      const int ops[4] = {a + b, a * b, a - b, (a ^ b) * 3};
      out[static_cast<size_t>(i)] = ops[(t + c) % 4];
      area[static_cast<size_t>(i)] = (i & 1) ? a * a / 2 + 3 : a * a + 4;
    }
  kref::print_buffer(out);
  kref::print_buffer(area);
}

// warp_size BLOCK: warps of 32 lanes.
void warp_size(int argc, char **argv) {
  const int block = static_cast<int>(kref::arg_int(argc, argv, 2));
  std::vector<int> out;
  for (int t = 0; t < block; ++t) {
    const int base = t / 32 * 32;
    out.push_back(32 * base + 31 * 32 / 2);
    out.push_back(t % 32);
    out.push_back(32);
  }
  kref::print_buffer(out);
}

int main(int argc, char **argv) {
  const std::string_view name = argc > 1 ? argv[1] : "";
  if (name == "printf_one")
    printf_one();
  else if (name == "printf_threads")
    printf_threads(argc, argv);
  else if (name == "local_array")
    local_array(argc, argv);
  else if (name == "dyn_shared")
    dyn_shared(argc, argv);
  else if (name == "smem_layout")
    smem_layout();
  else if (name == "fn_pointers")
    fn_pointers(argc, argv);
  else if (name == "warp_size")
    warp_size(argc, argv);
  else if (name == "const_init")
    const_init();
  else if (name == "params")
    params(argc, argv);
  else if (name == "file_input")
    file_input(argc, argv);
  else
    kref::unknown_case(name);
  return 0;
}
