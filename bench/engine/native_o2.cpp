// Native baselines built at -O2 (native.h).
#include "native.h"

namespace bcusim::bench {

void native_matmul_o2(const float *A, const float *B, float *C, int n) {
  for (int row = 0; row < n; ++row)
    for (int col = 0; col < n; ++col) {
      float acc = 0.0f;
      for (int k = 0; k < n; ++k)
        acc += A[row * n + k] * B[k * n + col];
      C[row * n + col] = acc;
    }
}

void native_copy_o2(const float *x, float *y, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    y[i] = x[i];
}

void native_stream_o2(float a, const float *x, float *y, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}

} // namespace bcusim::bench
