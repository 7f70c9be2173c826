// f32_ops: single-precision arithmetic whose results IEEE 754 fixes exactly.
// Checks add/sub/mul/div/fma/sqrt/rcp in round-to-nearest-even (add.rn,
// mul.rn, div.rn, fma.rn, sqrt.rn, rcp.rn), the directed roundings of
// add/mul/div/fma/sqrt (.rz/.ru/.rd), subnormal operands and results (no
// flush-to-zero without .ftz), overflow to infinity, min/max and copysign.
// Thread i uses a = T[i % 10], b = T[i / 10], c = T[(i + 3) % 10].
// Launch: -g 1 -b 100, out = f32[100 * 20].

__constant__ float kValues[10] = {
    1.0f,     -2.5f,           0.1f,        3.0f,        1e-40f,
    -7.0e20f, 1.17549435e-38f, 16777216.0f, -0.3333333f, 123456.789f};

extern "C" __global__ void f32_ops(float *out) {
  const int i = threadIdx.x;
  const float a = kValues[i % 10];
  const float b = kValues[i / 10];
  const float c = kValues[(i + 3) % 10];
  float *o = out + i * 20;
  o[0] = __fadd_rn(a, b);
  o[1] = __fsub_rn(a, b);
  o[2] = __fmul_rn(a, b);
  o[3] = a / b; // IEEE division (div.rn.f32) without -use_fast_math
  o[4] = __fmaf_rn(a, b, c);
  o[5] = sqrtf(fabsf(a)); // sqrt.rn.f32
  o[6] = __frcp_rn(b);
  o[7] = __fadd_rz(a, b);
  o[8] = __fadd_ru(a, b);
  o[9] = __fadd_rd(a, b);
  o[10] = __fmul_rz(a, b);
  o[11] = __fmul_ru(a, b);
  o[12] = __fdiv_rd(a, b);
  o[13] = __fdiv_ru(a, b);
  o[14] = __fmaf_rz(a, b, c);
  o[15] = __fsqrt_rd(fabsf(b));
  o[16] = fminf(a, b);
  o[17] = fmaxf(a, b);
  o[18] = copysignf(a, b);
  o[19] = -a;
}
