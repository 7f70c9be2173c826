// Shared by the bcusim exec test programs: check a CUDA call, count
// failures, print PASS/FAIL at the end.
#pragma once
#include <cstdio>
#include <cstdlib>
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

static int finish(const char *name) {
  std::printf("%s: %s\n", name, g_failures ? "FAIL" : "PASS");
  return g_failures ? 1 : 0;
}
