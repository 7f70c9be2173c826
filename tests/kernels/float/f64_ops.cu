// f64_ops: double-precision arithmetic with IEEE-exact results: add/sub/mul
// /div/fma/sqrt/rcp in round-to-nearest-even, directed roundings of add,
// mul, div, fma and sqrt, subnormals, overflow, min/max, copysign.
// Thread i uses a = T[i % 8], b = T[i / 8], c = T[(i + 5) % 8].
// Launch: -g 1 -b 64, out = f64[64 * 16].

__constant__ double kValues[8] = {1.0,
                                  -2.5,
                                  0.1,
                                  3.0,
                                  4.9e-320,
                                  -1e300,
                                  2.2250738585072014e-308,
                                  -0.333333333333333};

extern "C" __global__ void f64_ops(double *out) {
  const int i = threadIdx.x;
  const double a = kValues[i % 8];
  const double b = kValues[i / 8];
  const double c = kValues[(i + 5) % 8];
  double *o = out + i * 16;
  o[0] = __dadd_rn(a, b);
  o[1] = __dsub_rn(a, b);
  o[2] = __dmul_rn(a, b);
  o[3] = a / b;
  o[4] = __fma_rn(a, b, c);
  o[5] = sqrt(fabs(a));
  o[6] = __drcp_rn(b);
  o[7] = __dadd_rz(a, b);
  o[8] = __dmul_ru(a, b);
  o[9] = __ddiv_rd(a, b);
  o[10] = __fma_ru(a, b, c);
  o[11] = __dsqrt_rz(fabs(b));
  o[12] = fmin(a, b);
  o[13] = fmax(a, b);
  o[14] = copysign(a, b);
  o[15] = __dadd_ru(a, c);
}
