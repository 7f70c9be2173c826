// Shared by the bcusim exec test programs: check a CUDA call, count
// failures, print PASS/FAIL at the end.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
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

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
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

// A driver API call (programs that include <cuda.h>).
#define CU_CHECK(call)                                                         \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char *n_ = nullptr;                                                \
      cuGetErrorName(r_, &n_);                                                 \
      std::printf("%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,         \
                  n_ ? n_ : "?");                                              \
      ++g_failures;                                                            \
    }                                                                          \
  } while (0)

// Whether the program runs under bcusim (its device's name says so): for
// the checks only bcusim can answer (what a GPU leaves open or bcusim
// refuses on purpose).
inline bool under_bcusim() {
  cudaDeviceProp prop;
  return cudaGetDeviceProperties(&prop, 0) == cudaSuccess &&
         std::strstr(prop.name, "(bcusim)") != nullptr;
}

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
