// printf_one: device printf (a call to vprintf with a packed argument
// buffer) from a single thread, with int, unsigned, hex, 64-bit, char,
// string, float/double (promoted to double) and %% conversions. The output
// must equal C printf's for the same format and values.
#include <cstdio>

extern "C" __global__ void printf_one(int *out) {
  const int neg = -42 - static_cast<int>(threadIdx.x);
  printf("int=%d neg=%d u=%u x=%x X=%08X\n", 7, neg, 4000000000u, 48879u,
         0xbeefu);
  printf("ll=%lld ull=%llu c=%c s=%s pct=%%\n", -1234567890123LL,
         18446744073709551615ULL, 'Z', "bcusim");
  printf("f=%f e=%.3e g=%g d=%.10f\n", 1.5f, 12345.678, 0.0001, 1.0 / 3.0);
  out[0] = neg;
}
