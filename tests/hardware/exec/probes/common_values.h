// tests/exec/common.h with an EXPECT that also prints both sides of a failed
// comparison (`[probe] lhs=... == rhs=...`, error codes with their names):
// the tests/exec programs that failed natively were rebuilt with it on the
// GPU to see what the hardware returned (h200-checks.tar.gz).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <type_traits>
#include <vector>

static int g_failures = 0;

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,         \
                  cudaGetErrorName(e_));                                       \
      ++g_failures;                                                            \
    }                                                                          \
  } while (0)

namespace probe {
static int unbuffered = (std::setvbuf(stdout, nullptr, _IONBF, 0), 0);
template <class T> void show(const T &v) {
  if constexpr (std::is_same_v<T, cudaError_t>)
    std::printf("%d(%s)", int(v), cudaGetErrorName(v));
  else if constexpr (std::is_pointer_v<T>)
    std::printf("%p", (const void *)v);
  else if constexpr (std::is_floating_point_v<T>)
    std::printf("%.9g", (double)v);
  else if constexpr (std::is_enum_v<T> || std::is_integral_v<T>)
    std::printf("%lld", (long long)v);
  else
    std::printf("?");
}
template <class T> struct Lhs {
  const T &v;
  template <class U> bool cmp(const U &u, bool r, const char *op) const {
    if (!r) {
      std::printf("  [probe] lhs=");
      show(v);
      std::printf(" %s rhs=", op);
      show(u);
      std::printf("\n");
    }
    return r;
  }
  template <class U> bool operator==(const U &u) const {
    return cmp(u, v == u, "==");
  }
  template <class U> bool operator!=(const U &u) const {
    return cmp(u, v != u, "!=");
  }
  template <class U> bool operator<(const U &u) const {
    return cmp(u, v < u, "<");
  }
  template <class U> bool operator>(const U &u) const {
    return cmp(u, v > u, ">");
  }
  template <class U> bool operator<=(const U &u) const {
    return cmp(u, v <= u, "<=");
  }
  template <class U> bool operator>=(const U &u) const {
    return cmp(u, v >= u, ">=");
  }
  operator bool() const { return bool(v); }
};
struct Dec {
  template <class T> Lhs<T> operator<=(const T &v) const { return {v}; }
};
} // namespace probe
#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(probe::Dec() <= cond)) {                                             \
      std::printf("%s:%d: expected %s\n", __FILE__, __LINE__, #cond);          \
      ++g_failures;                                                            \
    }                                                                          \
  } while (0)

// Programs made of parts: the first argument, when it is not an option,
// names the parts to run (any part whose name it contains); without it, or
// with an option (run_exec.py passes --program-arg), every part runs. The
// second argument, when the first names parts, is a size (`size_arg`).
struct Parts {
  const char *only;
  int run = 0; // parts selected so far
  Parts(int argc, char **argv)
      : only(argc > 1 && argv[1][0] != '-' ? argv[1] : "") {}
  bool want(const char *name) {
    const bool w = !*only || std::strstr(only, name);
    run += w;
    return w;
  }
};

static int size_arg(int argc, char **argv, int fallback) {
  return argc > 2 && argv[1][0] != '-' ? std::atoi(argv[2]) : fallback;
}

// A deterministic pseudo-random sequence (a linear congruential
// generator) and inputs drawn from it.
struct Lcg {
  unsigned state;
  unsigned operator()() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  }
};
static std::vector<int> random_ints(Lcg &rnd, int n) { // in [-1000, 1000]
  std::vector<int> v(n);
  for (auto &x : v)
    x = int(rnd() % 2001) - 1000;
  return v;
}
static std::vector<float> random_floats(Lcg &rnd, int n) { // sevenths
  std::vector<float> v(n);
  for (auto &x : v)
    x = float(int(rnd() % 100000) - 50000) / 7.0f;
  return v;
}

// A device copy of `h` (16 bytes of slack: library kernels may load whole
// vectors at the end), and a host copy of n elements at `d`.
template <class T> T *to_dev(const std::vector<T> &h) {
  T *d;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T) + 16));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <class T> std::vector<T> from_dev(const T *d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

static int finish(const char *name) {
  std::printf("%s: %s\n", name, g_failures ? "FAIL" : "PASS");
  return g_failures ? 1 : 0;
}
