// cvt_ops: conversions between floating point and integers with every
// rounding mode, and between float widths.
// float -> int: __float2int_rn/rz/ru/rd (cvt.rni/rzi/rpi/rmi.s32.f32), the
// same to u32 and s64, and C casts (truncation, cvt.rzi). PTX clamps
// float-to-integer results to the destination range (".sat is redundant"),
// so (unsigned)(-1.5f) is 0 and 1e10f to s32 is INT_MAX.
// int -> float with .rn/.rz/.ru/.rd, f32 <-> f64 with rounding, f32 -> f16
// -> f32 (cvt.rn.f16.f32 and back).
// Thread i converts F[i] and I[i]. Launch: -g 1 -b 16,
// out32 = s32[16 * 10], out64 = s64[16 * 3], outf = f32[16 * 7],
// outd = f64[16 * 2].

#include <cuda_fp16.h>

__constant__ float kFloats[16] = {
    2.5f,    -2.5f,         3.5f,     -0.5f,         0.49999997f,    1e10f,
    -1e10f,  4294967040.0f, -1.5f,    2147483520.0f, -2147483904.0f, 1e-30f,
    -1e-30f, 7.9999995f,    65519.0f, 1e20f};
__constant__ int kInts[16] = {0,
                              1,
                              -1,
                              16777217,
                              -16777217,
                              2147483647,
                              (int)0x80000000,
                              16777219,
                              33554435,
                              -33554435,
                              123456789,
                              -5,
                              100000001,
                              7,
                              -8,
                              1073741825};

extern "C" __global__ void cvt_ops(int *out32, long long *out64, float *outf,
                                   double *outd) {
  const int i = threadIdx.x;
  const float f = kFloats[i];
  const int n = kInts[i];
  int *o = out32 + i * 10;
  o[0] = __float2int_rn(f);
  o[1] = __float2int_rz(f);
  o[2] = __float2int_ru(f);
  o[3] = __float2int_rd(f);
  o[4] = static_cast<int>(__float2uint_rn(f));
  o[5] = static_cast<int>(__float2uint_rd(f));
  o[6] = static_cast<int>(static_cast<unsigned>(f)); // cvt.rzi.u32.f32
  o[7] = static_cast<int>(f);                        // cvt.rzi.s32.f32
  o[8] = __double2int_rn(static_cast<double>(f) * 0.5);
  o[9] = static_cast<int>(__double2uint_ru(static_cast<double>(f)));
  long long *o64 = out64 + i * 3;
  o64[0] = __float2ll_rn(f);
  o64[1] = static_cast<long long>(f);
  o64[2] = static_cast<long long>(__float2ull_rz(f));
  float *of = outf + i * 7;
  of[0] = __int2float_rn(n);
  of[1] = __int2float_rz(n);
  of[2] = __int2float_ru(n);
  of[3] = __int2float_rd(n);
  of[4] = __uint2float_rn(static_cast<unsigned>(n));
  of[5] = __half2float(__float2half_rn(f));
  of[6] = __double2float_rz(static_cast<double>(n) / 3.0);
  double *od = outd + i * 2;
  od[0] = static_cast<double>(f);
  od[1] = __ll2double_rn(static_cast<long long>(n) * 1099511627777LL);
}
