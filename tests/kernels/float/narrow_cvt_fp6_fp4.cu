// arch: sm_100a
// narrow_cvt_fp6_fp4: cvt into and out of the FP6/FP4 formats e2m1x2,
// e2m3x2, e3m2x2 (from f32 pairs, .satfinite, .relu; to f16x2) and the
// scale format ue8m0x2 (from f32 pairs and bf16x2 with .rz/.rp,
// .satfinite; to bf16x2).
// Inputs (cvt_corners_inputs.h and ramps): x = F32[i], x2 = F32[i + 1]
// (specials, NaN payloads, overflow), ramp = (i - 32) * 7.25,
// fine = (i - 32) * 2^-11, ramp2 = (i - 32) * 0.25, fine2 = (i - 32) / 16
// (ties and subnormals of the narrow formats), bp = two bf16 inputs
// packed; the widening forms see every byte value in both halves
// (w_j = (4i + j) | (255 - 4i - j) << 8). Results are bit patterns.
// Launch: -g 1 -b 64, out = u32[64 * 39].

#include "cvt_corners_inputs.h"

extern "C" __global__ void narrow_cvt_fp6_fp4(unsigned *out) {
  const int i = threadIdx.x;
  const float x = __uint_as_float(kCvtF32[i]);
  const float x2 = __uint_as_float(kCvtF32[(i + 1) % 64]);
  const float ramp = (i - 32) * 7.25f, fine = (i - 32) * 0.00048828125f;
  const float ramp2 = (i - 32) * 0.25f, fine2 = (i - 32) * 0.0625f;
  const unsigned bp = kCvtBF16[i] | unsigned(kCvtBF16[(i + 1) % 64]) << 16;
  const unsigned short w0 = (4 * i) | (255 - 4 * i) << 8,
                       w1 = (4 * i + 1) | (254 - 4 * i) << 8,
                       w2 = (4 * i + 2) | (253 - 4 * i) << 8,
                       w3 = (4 * i + 3) | (252 - 4 * i) << 8;
  unsigned *o = out + i * 39;
  int k = 0;
  { unsigned short r; asm("{ .reg .b8 t; cvt.rn.satfinite.e2m1x2.f32 t, %1, %2; cvt.u16.u8 %0, t; }" : "=h"(r) : "f"(x), "f"(x2)); o[k++] = r; }
  { unsigned short r; asm("{ .reg .b8 t; cvt.rn.satfinite.e2m1x2.f32 t, %1, %2; cvt.u16.u8 %0, t; }" : "=h"(r) : "f"(ramp2), "f"(fine2)); o[k++] = r; }
  { unsigned short r; asm("{ .reg .b8 t; cvt.rn.satfinite.relu.e2m1x2.f32 t, %1, %2; cvt.u16.u8 %0, t; }" : "=h"(r) : "f"(fine2), "f"(ramp2)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.satfinite.e2m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(x), "f"(x2)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.satfinite.e2m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(ramp2), "f"(fine2)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.satfinite.relu.e2m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(fine2), "f"(ramp2)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.satfinite.e3m2x2.f32 %0, %1, %2;" : "=h"(r) : "f"(x), "f"(x2)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.satfinite.e3m2x2.f32 %0, %1, %2;" : "=h"(r) : "f"(ramp), "f"(ramp2)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.satfinite.relu.e3m2x2.f32 %0, %1, %2;" : "=h"(r) : "f"(ramp2), "f"(fine)); o[k++] = r; }
  { unsigned short r; asm("cvt.rz.ue8m0x2.f32 %0, %1, %2;" : "=h"(r) : "f"(x), "f"(x2)); o[k++] = r; }
  { unsigned short r; asm("cvt.rp.ue8m0x2.f32 %0, %1, %2;" : "=h"(r) : "f"(x), "f"(x2)); o[k++] = r; }
  { unsigned short r; asm("cvt.rz.satfinite.ue8m0x2.f32 %0, %1, %2;" : "=h"(r) : "f"(x), "f"(x2)); o[k++] = r; }
  { unsigned short r; asm("cvt.rp.satfinite.ue8m0x2.f32 %0, %1, %2;" : "=h"(r) : "f"(x), "f"(x2)); o[k++] = r; }
  { unsigned short r; asm("cvt.rz.ue8m0x2.bf16x2 %0, %1;" : "=h"(r) : "r"(bp)); o[k++] = r; }
  { unsigned short r; asm("cvt.rp.satfinite.ue8m0x2.bf16x2 %0, %1;" : "=h"(r) : "r"(bp)); o[k++] = r; }
  { unsigned r; asm("{ .reg .b8 t; cvt.u8.u16 t, %1; cvt.rn.f16x2.e2m1x2 %0, t; }" : "=r"(r) : "h"(w0)); o[k++] = r; }
  { unsigned r; asm("{ .reg .b8 t; cvt.u8.u16 t, %1; cvt.rn.f16x2.e2m1x2 %0, t; }" : "=r"(r) : "h"(w1)); o[k++] = r; }
  { unsigned r; asm("{ .reg .b8 t; cvt.u8.u16 t, %1; cvt.rn.f16x2.e2m1x2 %0, t; }" : "=r"(r) : "h"(w2)); o[k++] = r; }
  { unsigned r; asm("{ .reg .b8 t; cvt.u8.u16 t, %1; cvt.rn.f16x2.e2m1x2 %0, t; }" : "=r"(r) : "h"(w3)); o[k++] = r; }
  { unsigned r; asm("{ .reg .b8 t; cvt.u8.u16 t, %1; cvt.rn.relu.f16x2.e2m1x2 %0, t; }" : "=r"(r) : "h"(w0)); o[k++] = r; }
  { unsigned r; asm("{ .reg .b8 t; cvt.u8.u16 t, %1; cvt.rn.relu.f16x2.e2m1x2 %0, t; }" : "=r"(r) : "h"(w1)); o[k++] = r; }
  { unsigned r; asm("{ .reg .b8 t; cvt.u8.u16 t, %1; cvt.rn.relu.f16x2.e2m1x2 %0, t; }" : "=r"(r) : "h"(w2)); o[k++] = r; }
  { unsigned r; asm("{ .reg .b8 t; cvt.u8.u16 t, %1; cvt.rn.relu.f16x2.e2m1x2 %0, t; }" : "=r"(r) : "h"(w3)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.f16x2.e2m3x2 %0, %1;" : "=r"(r) : "h"(w0)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.f16x2.e2m3x2 %0, %1;" : "=r"(r) : "h"(w1)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.f16x2.e2m3x2 %0, %1;" : "=r"(r) : "h"(w2)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.f16x2.e2m3x2 %0, %1;" : "=r"(r) : "h"(w3)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.f16x2.e3m2x2 %0, %1;" : "=r"(r) : "h"(w0)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.f16x2.e3m2x2 %0, %1;" : "=r"(r) : "h"(w1)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.f16x2.e3m2x2 %0, %1;" : "=r"(r) : "h"(w2)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.f16x2.e3m2x2 %0, %1;" : "=r"(r) : "h"(w3)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.relu.f16x2.e3m2x2 %0, %1;" : "=r"(r) : "h"(w0)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.relu.f16x2.e3m2x2 %0, %1;" : "=r"(r) : "h"(w1)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.relu.f16x2.e3m2x2 %0, %1;" : "=r"(r) : "h"(w2)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.relu.f16x2.e3m2x2 %0, %1;" : "=r"(r) : "h"(w3)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.bf16x2.ue8m0x2 %0, %1;" : "=r"(r) : "h"(w0)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.bf16x2.ue8m0x2 %0, %1;" : "=r"(r) : "h"(w1)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.bf16x2.ue8m0x2 %0, %1;" : "=r"(r) : "h"(w2)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.bf16x2.ue8m0x2 %0, %1;" : "=r"(r) : "h"(w3)); o[k++] = r; }
}
