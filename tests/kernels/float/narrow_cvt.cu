// arch: sm_90
// narrow_cvt: cvt into and out of the FP8 formats e4m3x2 and e5m2x2 (from
// f32 pairs and from f16x2, .satfinite, .relu; to f16x2, .relu).
// Inputs (cvt_corners_inputs.h and ramps): x = F32[i], x2 = F32[i + 1]
// (specials, NaN payloads, overflow), ramp = (i - 32) * 7.25,
// fine = (i - 32) * 2^-11 (ties and subnormals of the narrow formats),
// hp = two f16 inputs packed; the widening forms see every byte value in both halves
// (w_j = (4i + j) | (255 - 4i - j) << 8). Results are bit patterns.
// Launch: -g 1 -b 64, out = u32[64 * 25].

#include "cvt_corners_inputs.h"

extern "C" __global__ void narrow_cvt(unsigned *out) {
  const int i = threadIdx.x;
  const float x = __uint_as_float(kCvtF32[i]);
  const float x2 = __uint_as_float(kCvtF32[(i + 1) % 64]);
  const float ramp = (i - 32) * 7.25f, fine = (i - 32) * 0.00048828125f;
  const unsigned hp = kCvtF16[i] | unsigned(kCvtF16[(i + 1) % 64]) << 16;
  const unsigned short w0 = (4 * i) | (255 - 4 * i) << 8,
                       w1 = (4 * i + 1) | (254 - 4 * i) << 8,
                       w2 = (4 * i + 2) | (253 - 4 * i) << 8,
                       w3 = (4 * i + 3) | (252 - 4 * i) << 8;
  unsigned *o = out + i * 25;
  int k = 0;
  { unsigned short r; asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(x), "f"(x2)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(x), "f"(x2)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(r) : "f"(x), "f"(x2)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.satfinite.relu.e5m2x2.f32 %0, %1, %2;" : "=h"(r) : "f"(x), "f"(x2)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(ramp), "f"(fine)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(r) : "f"(ramp), "f"(fine)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(fine), "f"(ramp)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(r) : "r"(hp)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.satfinite.relu.e5m2x2.f16x2 %0, %1;" : "=h"(r) : "r"(hp)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(w0)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(w1)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(w2)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(w3)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.relu.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(w0)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.relu.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(w1)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.relu.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(w2)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.relu.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(w3)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(r) : "h"(w0)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(r) : "h"(w1)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(r) : "h"(w2)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(r) : "h"(w3)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.relu.f16x2.e5m2x2 %0, %1;" : "=r"(r) : "h"(w0)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.relu.f16x2.e5m2x2 %0, %1;" : "=r"(r) : "h"(w1)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.relu.f16x2.e5m2x2 %0, %1;" : "=r"(r) : "h"(w2)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.relu.f16x2.e5m2x2 %0, %1;" : "=r"(r) : "h"(w3)); o[k++] = r; }
}
