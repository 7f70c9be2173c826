// Shared by the bcusim exec test programs: check a CUDA call, count
// failures, print PASS/FAIL at the end.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

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

static int size_arg(int argc, char **argv, int fallback) {
  return argc > 2 && argv[1][0] != '-' ? std::atoi(argv[2]) : fallback;
}

static int finish(const char *name) {
  std::printf("%s: %s\n", name, g_failures ? "FAIL" : "PASS");
  return g_failures ? 1 : 0;
}
