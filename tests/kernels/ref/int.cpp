// References for tests/kernels/int/*.cu: integer arithmetic and bit
// operations, computed with plain sequential C++ per the PTX/CUDA rules
// (two's-complement wrap-around, division truncating toward zero, PTX
// clamping of shift amounts and bit-field positions).
#include "ref_common.h"

#include <algorithm>
#include <climits>
#include <cstring>

namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;
using s32 = std::int32_t;
using s64 = std::int64_t;

void int32_ops() {
  const s32 t[12] = {0,   1,       -1,      7,          -7,         13,
                     -13, INT_MAX, INT_MIN, 1000000007, -123456789, 65536};
  std::vector<s32> out;
  for (int i = 0; i < 144; ++i) {
    const s32 a = t[i % 12], b = t[i / 12];
    const u32 ua = static_cast<u32>(a), ub = static_cast<u32>(b);
    const bool div_ok = b != 0 && !(a == INT_MIN && b == -1);
    const s32 row[24] = {
        static_cast<s32>(ua + ub),
        static_cast<s32>(ua - ub),
        static_cast<s32>(ua * ub),
        static_cast<s32>((static_cast<s64>(a) * b) >> 32), // mul.hi.s32
        static_cast<s32>((static_cast<u64>(ua) * ub) >> 32),
        div_ok ? a / b : 0, // C++ also truncates toward zero
        div_ok ? a % b : 0,
        ub != 0 ? static_cast<s32>(ua / ub) : 0,
        ub != 0 ? static_cast<s32>(ua % ub) : 0,
        std::min(a, b),
        std::max(a, b),
        static_cast<s32>(std::min(ua, ub)),
        static_cast<s32>(std::max(ua, ub)),
        a != INT_MIN ? (a < 0 ? -a : a) : 0,
        static_cast<s32>(ua * 3u + ub),
        a >> (ub & 31u), // arithmetic shift (C++20 defines it)
        static_cast<s32>(ua >> (ub & 31u)),
        static_cast<s32>(ua << (ub & 31u)),
        a & b,
        a | b,
        a ^ b,
        ~a,
        a < b,
        ua < ub};
    out.insert(out.end(), row, row + 24);
  }
  kref::print_buffer(out);
}

// High 64 bits of a 128-bit product, signed and unsigned.
u64 umul64hi(u64 a, u64 b) {
  return static_cast<u64>((static_cast<unsigned __int128>(a) * b) >> 64);
}
s64 mul64hi(s64 a, s64 b) {
  return static_cast<s64>((static_cast<__int128>(a) * b) >> 64);
}

void int64_ops() {
  const s64 t[10] = {0,
                     1,
                     -1,
                     5,
                     -5,
                     LLONG_MAX,
                     LLONG_MIN,
                     4294967296LL,
                     -4294967297LL,
                     1234567890123456789LL};
  std::vector<s64> out;
  for (int i = 0; i < 100; ++i) {
    const s64 a = t[i % 10], b = t[i / 10];
    const u64 ua = static_cast<u64>(a), ub = static_cast<u64>(b);
    const bool div_ok = b != 0 && !(a == LLONG_MIN && b == -1);
    const s32 a32 = static_cast<s32>(static_cast<u32>(ua));
    const s32 b32 = static_cast<s32>(static_cast<u32>(ub));
    const s64 row[16] = {
        static_cast<s64>(a32) * b32,
        static_cast<s64>(static_cast<u64>(static_cast<u32>(ua)) *
                         static_cast<u32>(ub)),
        static_cast<s64>(ua + ub),
        static_cast<s64>(ua - ub),
        static_cast<s64>(ua * ub),
        mul64hi(a, b),
        static_cast<s64>(umul64hi(ua, ub)),
        div_ok ? a / b : 0,
        div_ok ? a % b : 0,
        ub != 0 ? static_cast<s64>(ua / ub) : 0,
        ub != 0 ? static_cast<s64>(ua % ub) : 0,
        std::min(a, b),
        static_cast<s64>(std::max(ua, ub)),
        a >> (ub & 63u),
        static_cast<s64>(ua << (ub & 63u)),
        (a < b) + 2 * (ua < ub)};
    out.insert(out.end(), row, row + 16);
  }
  kref::print_buffer(out);
}

u32 bit(u32 x, unsigned i) { return (x >> i) & 1u; }

// PTX bfe: pos = b[7:0], len = c[7:0]; bit i of the result is bit pos+i of
// a while i < len and pos+i <= 31, otherwise the sign bit (s32: bit
// min(pos+len-1, 31) of a, 0 when len == 0) or 0 (u32).
u32 bfe(u32 a, u32 b, u32 c, bool is_signed) {
  const unsigned pos = b & 0xff, len = c & 0xff;
  u32 sbit = 0;
  if (is_signed && len != 0)
    sbit = bit(a, std::min(pos + len - 1, 31u));
  u32 d = 0;
  for (unsigned i = 0; i < 32; ++i) {
    const u32 v = (i < len && pos + i <= 31) ? bit(a, pos + i) : sbit;
    d |= v << i;
  }
  return d;
}

// PTX bfi: insert the low len bits of a into b at pos (bits past 31 dropped).
u32 bfi(u32 a, u32 b, u32 c, u32 e) {
  const unsigned pos = c & 0xff, len = e & 0xff;
  u32 d = b;
  for (unsigned i = 0; i < len && pos + i <= 31; ++i)
    d = (d & ~(1u << (pos + i))) | (bit(a, i) << (pos + i));
  return d;
}

// PTX prmt default mode: bytes 0-3 from a, 4-7 from b; selector nibble n
// picks result byte n; nibble bit 3 replicates the msb of the picked byte.
u32 prmt(u32 a, u32 b, u32 c) {
  const u64 bytes = (static_cast<u64>(b) << 32) | a;
  u32 d = 0;
  for (unsigned n = 0; n < 4; ++n) {
    const unsigned sel = (c >> (4 * n)) & 0xf;
    u32 byte = static_cast<u32>((bytes >> (8 * (sel & 7))) & 0xff);
    if (sel & 8)
      byte = (byte & 0x80) ? 0xff : 0x00;
    d |= byte << (8 * n);
  }
  return d;
}

unsigned popc(u64 x) {
  unsigned n = 0;
  for (; x; x >>= 1)
    n += x & 1;
  return n;
}
unsigned clz(u64 x, unsigned width) {
  unsigned n = 0;
  for (int i = static_cast<int>(width) - 1; i >= 0 && !((x >> i) & 1); --i)
    ++n;
  return n;
}
u64 brev(u64 x, unsigned width) {
  u64 r = 0;
  for (unsigned i = 0; i < width; ++i)
    r |= ((x >> i) & 1) << (width - 1 - i);
  return r;
}

void bit_ops() {
  const u32 words[8] = {0u,          1u,          0x80000000u, 0xffffffffu,
                        0x12345678u, 0xdeadbeefu, 0x00f0f000u, 0x7fffffffu};
  const u32 poslen[9][2] = {{0, 8},  {4, 12}, {28, 8},  {31, 1}, {0, 32},
                            {16, 0}, {40, 4}, {20, 20}, {264, 3}};
  const u32 selectors[8] = {0x3210u, 0x7654u, 0x0123u, 0x4567u,
                            0x1111u, 0x7060u, 0x5432u, 0x0000u};
  std::vector<u32> out;
  for (int i = 0; i < 72; ++i) {
    const u32 x = words[i % 8], y = words[(i + 3) % 8];
    const u32 pos = poslen[i / 8][0], len = poslen[i / 8][1];
    const u64 xy = (static_cast<u64>(x) << 32) | y; // hi:lo = x:y
    unsigned ffs = 0;
    for (unsigned b = 0; b < 32; ++b)
      if (bit(x, b)) {
        ffs = b + 1;
        break;
      }
    const unsigned sw = pos & 31u, sc = std::min(pos, 32u);
    const u32 row[18] = {
        popc(x),
        clz(x, 32),
        static_cast<u32>(brev(x, 32)),
        ffs,
        popc(xy),
        clz(xy, 64),
        static_cast<u32>(brev(xy, 64) >> 16),
        prmt(x, y, selectors[i % 8]),
        static_cast<u32>((xy << sw) >> 32),                // funnelshift_l
        static_cast<u32>(xy >> sw),                        // funnelshift_r
        static_cast<u32>(sc == 32 ? y : (xy << sc) >> 32), // _lc
        static_cast<u32>(sc == 32 ? x : xy >> sc),         // _rc
        bfe(x, pos, len, false),
        bfe(x, pos, len, true),
        bfi(x, y, pos, len),
        prmt(x, y, 0x8e9cu),
        pos >= 32 ? 0u : x << pos, // shl clamps
        static_cast<u32>(static_cast<s32>(x) >> std::min(pos, 31u))}; // shr.s32
    out.insert(out.end(), row, row + 18);
  }
  kref::print_buffer(out);
}

} // namespace

int main(int argc, char **argv) {
  const std::string_view name = argc > 1 ? argv[1] : "";
  if (name == "int32_ops")
    int32_ops();
  else if (name == "int64_ops")
    int64_ops();
  else if (name == "bit_ops")
    bit_ops();
  else
    kref::unknown_case(name);
  return 0;
}
