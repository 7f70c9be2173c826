// int32_ops: 32-bit integer arithmetic on every pair of edge values.
// Checks add/sub/mul.lo/mul.hi (s32,u32)/mad.lo (wrap-around), div/rem with
// negative operands (truncation toward zero, remainder takes the dividend's
// sign: PTX div.s32/rem.s32), unsigned div/rem, min/max (s32,u32), abs,
// shifts with in-range amounts (shr.s32 is arithmetic), and/or/xor/not, and
// signed vs unsigned compares. Operand pairs come from a __constant__ table
// so each thread i checks (T[i % 12], T[i / 12]).
// Launch: -g 1 -b 144, out = s32[144 * 24].
#include <climits>

__constant__ int kValues[12] = {
    0, 1, -1, 7, -7, 13, -13, INT_MAX, INT_MIN, 1000000007, -123456789, 65536};

extern "C" __global__ void int32_ops(int *out) {
  const int i = threadIdx.x;
  const int a = kValues[i % 12];
  const int b = kValues[i / 12];
  const unsigned ua = static_cast<unsigned>(a);
  const unsigned ub = static_cast<unsigned>(b);
  int *o = out + i * 24;
  o[0] = static_cast<int>(ua + ub);
  o[1] = static_cast<int>(ua - ub);
  o[2] = static_cast<int>(ua * ub);
  o[3] = __mulhi(a, b);
  o[4] = static_cast<int>(__umulhi(ua, ub));
  const bool div_ok = b != 0 && !(a == INT_MIN && b == -1);
  o[5] = div_ok ? a / b : 0;
  o[6] = div_ok ? a % b : 0;
  o[7] = ub != 0 ? static_cast<int>(ua / ub) : 0;
  o[8] = ub != 0 ? static_cast<int>(ua % ub) : 0;
  o[9] = min(a, b);
  o[10] = max(a, b);
  o[11] = static_cast<int>(min(ua, ub));
  o[12] = static_cast<int>(max(ua, ub));
  o[13] = a != INT_MIN ? abs(a) : 0;
  o[14] = static_cast<int>(ua * 3u + ub);
  o[15] = a >> (ub & 31u);
  o[16] = static_cast<int>(ua >> (ub & 31u));
  o[17] = static_cast<int>(ua << (ub & 31u));
  o[18] = a & b;
  o[19] = a | b;
  o[20] = a ^ b;
  o[21] = ~a;
  o[22] = a < b;
  o[23] = ua < ub;
}
