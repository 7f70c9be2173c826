// int64_ops: 64-bit integer arithmetic and mul.wide on edge-value pairs.
// Checks mul.wide.s32/u32 (full 64-bit product of 32-bit operands), 64-bit
// add/sub/mul.lo/mul.hi (s64,u64), div/rem s64/u64 with negative operands
// (truncation toward zero), min/max, shifts, and compares.
// Thread i uses (T[i % 10], T[i / 10]). Launch: -g 1 -b 100,
// out = s64[100 * 16].
#include <climits>

__constant__ long long kValues[10] = {0,
                                      1,
                                      -1,
                                      5,
                                      -5,
                                      LLONG_MAX,
                                      LLONG_MIN,
                                      4294967296LL,
                                      -4294967297LL,
                                      1234567890123456789LL};

extern "C" __global__ void int64_ops(long long *out) {
  const int i = threadIdx.x;
  const long long a = kValues[i % 10];
  const long long b = kValues[i / 10];
  const unsigned long long ua = static_cast<unsigned long long>(a);
  const unsigned long long ub = static_cast<unsigned long long>(b);
  long long *o = out + i * 16;
  // mul.wide: the low 32 bits of each operand, widened.
  o[0] = static_cast<long long>(static_cast<int>(a)) * static_cast<int>(b);
  o[1] = static_cast<long long>(
      static_cast<unsigned long long>(static_cast<unsigned>(ua)) *
      static_cast<unsigned>(ub));
  o[2] = static_cast<long long>(ua + ub);
  o[3] = static_cast<long long>(ua - ub);
  o[4] = static_cast<long long>(ua * ub);
  o[5] = __mul64hi(a, b);
  o[6] = static_cast<long long>(__umul64hi(ua, ub));
  const bool div_ok = b != 0 && !(a == LLONG_MIN && b == -1);
  o[7] = div_ok ? a / b : 0;
  o[8] = div_ok ? a % b : 0;
  o[9] = ub != 0 ? static_cast<long long>(ua / ub) : 0;
  o[10] = ub != 0 ? static_cast<long long>(ua % ub) : 0;
  o[11] = min(a, b);
  o[12] = static_cast<long long>(max(ua, ub));
  o[13] = a >> (ub & 63u);
  o[14] = static_cast<long long>(ua << (ub & 63u));
  o[15] = (a < b) + 2 * (ua < ub);
}
