// bit_ops: popc, clz, brev, ffs (32 and 64 bit), __byte_perm (prmt.b32
// default mode with 3-bit selectors), __funnelshift_l/r (wrap) and
// __funnelshift_lc/rc (clamp), and the PTX-only bfe.u32/bfe.s32/bfi.b32
// through inline asm (PTX: bfe/bfi take pos and len from the low 8 bits;
// bits past the msb read as the sign bit for .s32 and 0 for .u32).
// Thread i: x = X[i % 8], y = X[(i + 3) % 8], pos/len = P[i / 8].
// Launch: -g 1 -b 72, out = u32[72 * 18].

__constant__ unsigned kWords[8] = {0u,          1u,          0x80000000u,
                                   0xffffffffu, 0x12345678u, 0xdeadbeefu,
                                   0x00f0f000u, 0x7fffffffu};
__constant__ unsigned kPosLen[9][2] = {{0, 8},  {4, 12},  {28, 8},
                                       {31, 1}, {0, 32},  {16, 0},
                                       {40, 4}, {20, 20}, {264, 3}};
__constant__ unsigned kSelectors[8] = {0x3210u, 0x7654u, 0x0123u, 0x4567u,
                                       0x1111u, 0x7060u, 0x5432u, 0x0000u};

extern "C" __global__ void bit_ops(unsigned *out) {
  const int i = threadIdx.x;
  const unsigned x = kWords[i % 8];
  const unsigned y = kWords[(i + 3) % 8];
  const unsigned pos = kPosLen[i / 8][0];
  const unsigned len = kPosLen[i / 8][1];
  const unsigned long long xy = (static_cast<unsigned long long>(x) << 32) | y;
  unsigned *o = out + i * 18;
  o[0] = __popc(x);
  o[1] = __clz(static_cast<int>(x));
  o[2] = __brev(x);
  o[3] = __ffs(static_cast<int>(x));
  o[4] = __popcll(xy);
  o[5] = __clzll(static_cast<long long>(xy));
  o[6] = static_cast<unsigned>(__brevll(xy) >> 16);
  o[7] = __byte_perm(x, y, kSelectors[i % 8]);
  o[8] = __funnelshift_l(y, x, pos);
  o[9] = __funnelshift_r(y, x, pos);
  o[10] = __funnelshift_lc(y, x, pos);
  o[11] = __funnelshift_rc(y, x, pos);
  unsigned r;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(pos), "r"(len));
  o[12] = r;
  int s;
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(s) : "r"(x), "r"(pos), "r"(len));
  o[13] = static_cast<unsigned>(s);
  asm("bfi.b32 %0, %1, %2, %3, %4;"
      : "=r"(r)
      : "r"(x), "r"(y), "r"(pos), "r"(len));
  o[14] = r;
  // prmt with the sign-replicate bit (bit 3 of a selector nibble).
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(0x8e9cu));
  o[15] = r;
  // Shift amounts past the width clamp to the width (PTX shl/shr).
  asm("shl.b32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(pos));
  o[16] = r;
  asm("shr.s32 %0, %1, %2;" : "=r"(s) : "r"(x), "r"(pos));
  o[17] = static_cast<unsigned>(s);
}
