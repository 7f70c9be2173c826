// arch: sm_90
// cvt_corners: every float<->integer and float<->float form of PTX cvt over
// corner values (PTX ISA 9.0 cvt). Each conversion is one inline-PTX cvt, so
// the instruction under test is exactly the one written. Inputs
// (cvt_corners_inputs.h): signed zeros, the smallest and largest subnormals
// and normals of f32/f64/f16/bf16, infinities, quiet and signalling NaNs
// with payloads, ties and near-ties of every destination precision (f16,
// bf16, tf32, f32, integers), values just past each integer range and each
// format's overflow threshold, and integers that need rounding in f16,
// bf16, f32 and f64.
// What the results probe: float -> integer rounds per .rni/.rzi/.rmi/.rpi
// and clamps to the range; NaN gives 0, or 1 << (bits - 1) from .f64 or
// into a 64-bit integer. Float -> float rounds once, per .rn/.rz/.rm/.rp
// (.rna for tf32), with .ftz (f32 subnormal inputs and results), .sat
// ([0, 1], NaN -> 0), .relu, .satfinite; integer -> float rounds once.
// Thread i converts element i of each input; every result is stored as
// its bit pattern, zero-extended to 64 bits (8-bit integers masked to 8).
// Launch: -g 1 -b 64, out = u64[64 * 160].

#include "cvt_corners_inputs.h"

extern "C" __global__ void cvt_corners(unsigned long long *out) {
  const int i = threadIdx.x;
  const float x = __uint_as_float(kCvtF32[i]);
  const float x2 = __uint_as_float(kCvtF32[(i + 1) % 64]);
  const double y = __longlong_as_double(kCvtF64[i]);
  const unsigned short h = kCvtF16[i];
  const unsigned short b = kCvtBF16[i];
  const unsigned long long n = kCvtInt[i];
  const unsigned n32 = static_cast<unsigned>(n);
  const unsigned short n16 = static_cast<unsigned short>(n);
  unsigned long long *o = out + i * 160;
  int k = 0;
  { unsigned short r; asm("cvt.rni.s8.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r & 0xff; }
  { unsigned short r; asm("cvt.rzi.s8.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r & 0xff; }
  { unsigned short r; asm("cvt.rmi.s8.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r & 0xff; }
  { unsigned short r; asm("cvt.rpi.s8.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r & 0xff; }
  { unsigned short r; asm("cvt.rni.u8.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r & 0xff; }
  { unsigned short r; asm("cvt.rzi.u8.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r & 0xff; }
  { unsigned short r; asm("cvt.rmi.u8.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r & 0xff; }
  { unsigned short r; asm("cvt.rpi.u8.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r & 0xff; }
  { unsigned short r; asm("cvt.rni.s16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rzi.s16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rmi.s16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rpi.s16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rni.u16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rzi.u16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rmi.u16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rpi.u16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned r; asm("cvt.rni.s32.f32 %0, %1;" : "=r"(r) : "f"(x)); o[k++] = r; }
  { unsigned r; asm("cvt.rzi.s32.f32 %0, %1;" : "=r"(r) : "f"(x)); o[k++] = r; }
  { unsigned r; asm("cvt.rmi.s32.f32 %0, %1;" : "=r"(r) : "f"(x)); o[k++] = r; }
  { unsigned r; asm("cvt.rpi.s32.f32 %0, %1;" : "=r"(r) : "f"(x)); o[k++] = r; }
  { unsigned r; asm("cvt.rni.u32.f32 %0, %1;" : "=r"(r) : "f"(x)); o[k++] = r; }
  { unsigned r; asm("cvt.rzi.u32.f32 %0, %1;" : "=r"(r) : "f"(x)); o[k++] = r; }
  { unsigned r; asm("cvt.rmi.u32.f32 %0, %1;" : "=r"(r) : "f"(x)); o[k++] = r; }
  { unsigned r; asm("cvt.rpi.u32.f32 %0, %1;" : "=r"(r) : "f"(x)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rni.s64.f32 %0, %1;" : "=l"(r) : "f"(x)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rzi.s64.f32 %0, %1;" : "=l"(r) : "f"(x)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rmi.s64.f32 %0, %1;" : "=l"(r) : "f"(x)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rpi.s64.f32 %0, %1;" : "=l"(r) : "f"(x)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rni.u64.f32 %0, %1;" : "=l"(r) : "f"(x)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rzi.u64.f32 %0, %1;" : "=l"(r) : "f"(x)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rmi.u64.f32 %0, %1;" : "=l"(r) : "f"(x)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rpi.u64.f32 %0, %1;" : "=l"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rni.s8.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r & 0xff; }
  { unsigned short r; asm("cvt.rzi.s8.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r & 0xff; }
  { unsigned short r; asm("cvt.rmi.s8.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r & 0xff; }
  { unsigned short r; asm("cvt.rpi.s8.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r & 0xff; }
  { unsigned short r; asm("cvt.rni.u8.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r & 0xff; }
  { unsigned short r; asm("cvt.rzi.u8.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r & 0xff; }
  { unsigned short r; asm("cvt.rmi.u8.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r & 0xff; }
  { unsigned short r; asm("cvt.rpi.u8.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r & 0xff; }
  { unsigned short r; asm("cvt.rni.s16.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r; }
  { unsigned short r; asm("cvt.rzi.s16.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r; }
  { unsigned short r; asm("cvt.rmi.s16.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r; }
  { unsigned short r; asm("cvt.rpi.s16.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r; }
  { unsigned short r; asm("cvt.rni.u16.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r; }
  { unsigned short r; asm("cvt.rzi.u16.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r; }
  { unsigned short r; asm("cvt.rmi.u16.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r; }
  { unsigned short r; asm("cvt.rpi.u16.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r; }
  { unsigned r; asm("cvt.rni.s32.f64 %0, %1;" : "=r"(r) : "d"(y)); o[k++] = r; }
  { unsigned r; asm("cvt.rzi.s32.f64 %0, %1;" : "=r"(r) : "d"(y)); o[k++] = r; }
  { unsigned r; asm("cvt.rmi.s32.f64 %0, %1;" : "=r"(r) : "d"(y)); o[k++] = r; }
  { unsigned r; asm("cvt.rpi.s32.f64 %0, %1;" : "=r"(r) : "d"(y)); o[k++] = r; }
  { unsigned r; asm("cvt.rni.u32.f64 %0, %1;" : "=r"(r) : "d"(y)); o[k++] = r; }
  { unsigned r; asm("cvt.rzi.u32.f64 %0, %1;" : "=r"(r) : "d"(y)); o[k++] = r; }
  { unsigned r; asm("cvt.rmi.u32.f64 %0, %1;" : "=r"(r) : "d"(y)); o[k++] = r; }
  { unsigned r; asm("cvt.rpi.u32.f64 %0, %1;" : "=r"(r) : "d"(y)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rni.s64.f64 %0, %1;" : "=l"(r) : "d"(y)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rzi.s64.f64 %0, %1;" : "=l"(r) : "d"(y)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rmi.s64.f64 %0, %1;" : "=l"(r) : "d"(y)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rpi.s64.f64 %0, %1;" : "=l"(r) : "d"(y)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rni.u64.f64 %0, %1;" : "=l"(r) : "d"(y)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rzi.u64.f64 %0, %1;" : "=l"(r) : "d"(y)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rmi.u64.f64 %0, %1;" : "=l"(r) : "d"(y)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rpi.u64.f64 %0, %1;" : "=l"(r) : "d"(y)); o[k++] = r; }
  { unsigned r; asm("cvt.rni.s32.f16 %0, %1;" : "=r"(r) : "h"(h)); o[k++] = r; }
  { unsigned r; asm("cvt.rzi.s32.f16 %0, %1;" : "=r"(r) : "h"(h)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rmi.u64.f16 %0, %1;" : "=l"(r) : "h"(h)); o[k++] = r; }
  { unsigned short r; asm("cvt.rpi.s16.f16 %0, %1;" : "=h"(r) : "h"(h)); o[k++] = r; }
  { unsigned short r; asm("cvt.rzi.u8.f16 %0, %1;" : "=h"(r) : "h"(h)); o[k++] = r & 0xff; }
  { float r; asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h)); o[k++] = __float_as_uint(r); }
  { double r; asm("cvt.f64.f16 %0, %1;" : "=d"(r) : "h"(h)); o[k++] = __double_as_longlong(r); }
  { unsigned short r; asm("cvt.rni.f16.f16 %0, %1;" : "=h"(r) : "h"(h)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.bf16.f16 %0, %1;" : "=h"(r) : "h"(h)); o[k++] = r; }
  { float r; asm("cvt.ftz.f32.f16 %0, %1;" : "=f"(r) : "h"(h)); o[k++] = __float_as_uint(r); }
  { float r; asm("cvt.f32.bf16 %0, %1;" : "=f"(r) : "h"(b)); o[k++] = __float_as_uint(r); }
  { double r; asm("cvt.f64.bf16 %0, %1;" : "=d"(r) : "h"(b)); o[k++] = __double_as_longlong(r); }
  { unsigned r; asm("cvt.rni.s32.bf16 %0, %1;" : "=r"(r) : "h"(b)); o[k++] = r; }
  { unsigned long long r; asm("cvt.rzi.u64.bf16 %0, %1;" : "=l"(r) : "h"(b)); o[k++] = r; }
  { unsigned short r; asm("cvt.rni.bf16.bf16 %0, %1;" : "=h"(r) : "h"(b)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.f16.bf16 %0, %1;" : "=h"(r) : "h"(b)); o[k++] = r; }
  { unsigned short r; asm("cvt.rz.f16.bf16 %0, %1;" : "=h"(r) : "h"(b)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rz.f16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rm.f16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rp.f16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.relu.f16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.satfinite.f16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rz.satfinite.f16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rz.relu.satfinite.f16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.sat.f16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.ftz.f16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rm.ftz.f16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rz.bf16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rm.bf16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rp.bf16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.relu.bf16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.satfinite.bf16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned short r; asm("cvt.rz.relu.bf16.f32 %0, %1;" : "=h"(r) : "f"(x)); o[k++] = r; }
  { unsigned r; asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x)); o[k++] = r; }
  { unsigned r; asm("cvt.rna.satfinite.tf32.f32 %0, %1;" : "=r"(r) : "f"(x)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(r) : "f"(x)); o[k++] = r; }
  { unsigned r; asm("cvt.rz.tf32.f32 %0, %1;" : "=r"(r) : "f"(x)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.relu.tf32.f32 %0, %1;" : "=r"(r) : "f"(x)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(x), "f"(x2)); o[k++] = r; }
  { unsigned r; asm("cvt.rz.relu.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(x), "f"(x2)); o[k++] = r; }
  { unsigned r; asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(x), "f"(x2)); o[k++] = r; }
  { unsigned r; asm("cvt.rz.satfinite.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(x), "f"(x2)); o[k++] = r; }
  { float r; asm("cvt.rni.f32.f32 %0, %1;" : "=f"(r) : "f"(x)); o[k++] = __float_as_uint(r); }
  { float r; asm("cvt.rzi.f32.f32 %0, %1;" : "=f"(r) : "f"(x)); o[k++] = __float_as_uint(r); }
  { float r; asm("cvt.rmi.f32.f32 %0, %1;" : "=f"(r) : "f"(x)); o[k++] = __float_as_uint(r); }
  { float r; asm("cvt.rpi.f32.f32 %0, %1;" : "=f"(r) : "f"(x)); o[k++] = __float_as_uint(r); }
  { float r; asm("cvt.ftz.f32.f32 %0, %1;" : "=f"(r) : "f"(x)); o[k++] = __float_as_uint(r); }
  { float r; asm("cvt.sat.f32.f32 %0, %1;" : "=f"(r) : "f"(x)); o[k++] = __float_as_uint(r); }
  { float r; asm("cvt.rni.ftz.sat.f32.f32 %0, %1;" : "=f"(r) : "f"(x)); o[k++] = __float_as_uint(r); }
  { double r; asm("cvt.f64.f32 %0, %1;" : "=d"(r) : "f"(x)); o[k++] = __double_as_longlong(r); }
  { double r; asm("cvt.ftz.f64.f32 %0, %1;" : "=d"(r) : "f"(x)); o[k++] = __double_as_longlong(r); }
  { float r; asm("cvt.rn.f32.f64 %0, %1;" : "=f"(r) : "d"(y)); o[k++] = __float_as_uint(r); }
  { float r; asm("cvt.rz.f32.f64 %0, %1;" : "=f"(r) : "d"(y)); o[k++] = __float_as_uint(r); }
  { float r; asm("cvt.rm.f32.f64 %0, %1;" : "=f"(r) : "d"(y)); o[k++] = __float_as_uint(r); }
  { float r; asm("cvt.rp.f32.f64 %0, %1;" : "=f"(r) : "d"(y)); o[k++] = __float_as_uint(r); }
  { float r; asm("cvt.rn.ftz.f32.f64 %0, %1;" : "=f"(r) : "d"(y)); o[k++] = __float_as_uint(r); }
  { float r; asm("cvt.rz.sat.f32.f64 %0, %1;" : "=f"(r) : "d"(y)); o[k++] = __float_as_uint(r); }
  { float r; asm("cvt.rp.ftz.f32.f64 %0, %1;" : "=f"(r) : "d"(y)); o[k++] = __float_as_uint(r); }
  { unsigned short r; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r; }
  { unsigned short r; asm("cvt.rz.f16.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r; }
  { unsigned short r; asm("cvt.rm.f16.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r; }
  { unsigned short r; asm("cvt.rp.f16.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.bf16.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r; }
  { unsigned short r; asm("cvt.rz.bf16.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r; }
  { unsigned short r; asm("cvt.rm.bf16.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r; }
  { unsigned short r; asm("cvt.rp.bf16.f64 %0, %1;" : "=h"(r) : "d"(y)); o[k++] = r; }
  { double r; asm("cvt.rni.f64.f64 %0, %1;" : "=d"(r) : "d"(y)); o[k++] = __double_as_longlong(r); }
  { double r; asm("cvt.rzi.f64.f64 %0, %1;" : "=d"(r) : "d"(y)); o[k++] = __double_as_longlong(r); }
  { double r; asm("cvt.rmi.f64.f64 %0, %1;" : "=d"(r) : "d"(y)); o[k++] = __double_as_longlong(r); }
  { double r; asm("cvt.rpi.f64.f64 %0, %1;" : "=d"(r) : "d"(y)); o[k++] = __double_as_longlong(r); }
  { double r; asm("cvt.sat.f64.f64 %0, %1;" : "=d"(r) : "d"(y)); o[k++] = __double_as_longlong(r); }
  { float r; asm("cvt.rn.f32.s64 %0, %1;" : "=f"(r) : "l"(n)); o[k++] = __float_as_uint(r); }
  { float r; asm("cvt.rz.f32.s64 %0, %1;" : "=f"(r) : "l"(n)); o[k++] = __float_as_uint(r); }
  { float r; asm("cvt.rm.f32.s64 %0, %1;" : "=f"(r) : "l"(n)); o[k++] = __float_as_uint(r); }
  { float r; asm("cvt.rp.f32.s64 %0, %1;" : "=f"(r) : "l"(n)); o[k++] = __float_as_uint(r); }
  { double r; asm("cvt.rn.f64.u64 %0, %1;" : "=d"(r) : "l"(n)); o[k++] = __double_as_longlong(r); }
  { double r; asm("cvt.rz.f64.u64 %0, %1;" : "=d"(r) : "l"(n)); o[k++] = __double_as_longlong(r); }
  { double r; asm("cvt.rm.f64.u64 %0, %1;" : "=d"(r) : "l"(n)); o[k++] = __double_as_longlong(r); }
  { double r; asm("cvt.rp.f64.u64 %0, %1;" : "=d"(r) : "l"(n)); o[k++] = __double_as_longlong(r); }
  { double r; asm("cvt.rn.f64.s64 %0, %1;" : "=d"(r) : "l"(n)); o[k++] = __double_as_longlong(r); }
  { float r; asm("cvt.rn.f32.u64 %0, %1;" : "=f"(r) : "l"(n)); o[k++] = __float_as_uint(r); }
  { float r; asm("cvt.rp.f32.u64 %0, %1;" : "=f"(r) : "l"(n)); o[k++] = __float_as_uint(r); }
  { unsigned short r; asm("cvt.rn.f16.s32 %0, %1;" : "=h"(r) : "r"(n32)); o[k++] = r; }
  { unsigned short r; asm("cvt.rz.f16.s32 %0, %1;" : "=h"(r) : "r"(n32)); o[k++] = r; }
  { unsigned short r; asm("cvt.rm.f16.s32 %0, %1;" : "=h"(r) : "r"(n32)); o[k++] = r; }
  { unsigned short r; asm("cvt.rp.f16.s32 %0, %1;" : "=h"(r) : "r"(n32)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.f16.u16 %0, %1;" : "=h"(r) : "h"(n16)); o[k++] = r; }
  { unsigned short r; asm("cvt.rn.bf16.s64 %0, %1;" : "=h"(r) : "l"(n)); o[k++] = r; }
  { unsigned short r; asm("cvt.rz.bf16.s64 %0, %1;" : "=h"(r) : "l"(n)); o[k++] = r; }
  { unsigned short r; asm("cvt.rp.bf16.u32 %0, %1;" : "=h"(r) : "r"(n32)); o[k++] = r; }
  { float r; asm("cvt.rn.sat.f32.s32 %0, %1;" : "=f"(r) : "r"(n32)); o[k++] = __float_as_uint(r); }
  { unsigned short r; asm("cvt.rn.f16.s8 %0, %1;" : "=h"(r) : "h"(n16)); o[k++] = r; }
  { double r; asm("cvt.rn.f64.s32 %0, %1;" : "=d"(r) : "r"(n32)); o[k++] = __double_as_longlong(r); }
  { unsigned r; asm("cvt.rzi.ftz.s32.f32 %0, %1;" : "=r"(r) : "f"(x)); o[k++] = r; }
}
