// Shared helpers for the kernel-suite reference programs.
//
// A reference program prints exactly what `bcusim run ... --dump I` prints
// for each dumped buffer, in order: one element per line, integers in
// decimal, floats in shortest round-trip form (std::to_chars without a
// precision), f32 printed as float and f64 as double. printf output of a
// kernel (cases with the `stdout` option) is printed before the dumps.
//
// The references are plain sequential C++: they compute what the CUDA/PTX
// semantics say the buffers must contain, never by running a simulator.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kref {

template <typename T> void print_value(T v) {
  char buf[64];
  std::to_chars_result r;
  if constexpr (std::is_floating_point_v<T>) {
    r = std::to_chars(buf, buf + sizeof buf, v); // shortest round trip
  } else if constexpr (sizeof(T) == 1) {
    // u8 / s8 elements are numbers, not characters.
    r = std::to_chars(
        buf, buf + sizeof buf,
        static_cast<std::conditional_t<std::is_signed_v<T>, int, unsigned>>(v));
  } else {
    r = std::to_chars(buf, buf + sizeof buf, v);
  }
  std::fwrite(buf, 1, static_cast<std::size_t>(r.ptr - buf), stdout);
  std::fputc('\n', stdout);
}

template <typename T> void print_buffer(const std::vector<T> &v) {
  for (const T &x : v)
    print_value(x);
}

// Integer command-line argument (decimal), exits on bad input.
inline long long arg_int(int argc, char **argv, int i) {
  if (i >= argc) {
    std::fprintf(stderr, "missing argument %d\n", i);
    std::exit(2);
  }
  return std::strtoll(argv[i], nullptr, 0);
}

[[noreturn]] inline void unknown_case(std::string_view name) {
  std::fprintf(stderr, "unknown case '%.*s'\n", static_cast<int>(name.size()),
               name.data());
  std::exit(2);
}

} // namespace kref
