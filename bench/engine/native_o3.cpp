// Native baselines built at -O3 -march=native (native.h).
#include "native.h"

namespace bcusim::bench {

void native_compute_o3_loop(float *out, uint32_t threads, uint32_t block,
                            uint32_t iters) {
  for (uint32_t t = 0; t < threads; ++t) {
    float a = float(t % block) * 1e-3f, b = 0.999f, c = 0.25f;
    for (uint32_t k = 0; k < iters; ++k) {
      a = __builtin_fmaf(a, b, c);
      c = c * b - a * 1e-3f;
    }
    out[t] = a + c;
  }
}

void native_compute_o3_vec(float *out, uint32_t threads, uint32_t block,
                           uint32_t iters) {
  constexpr uint32_t kChunk = 256;
  for (uint32_t t0 = 0; t0 < threads; t0 += kChunk) {
    float a[kChunk], c[kChunk];
    const float b = 0.999f;
    for (uint32_t t = 0; t < kChunk; ++t) {
      a[t] = float((t0 + t) % block) * 1e-3f;
      c[t] = 0.25f;
    }
    for (uint32_t k = 0; k < iters; ++k)
      for (uint32_t t = 0; t < kChunk; ++t) {
        a[t] = __builtin_fmaf(a[t], b, c[t]);
        c[t] = c[t] * b - a[t] * 1e-3f;
      }
    for (uint32_t t = 0; t < kChunk && t0 + t < threads; ++t)
      out[t0 + t] = a[t] + c[t];
  }
}

} // namespace bcusim::bench
