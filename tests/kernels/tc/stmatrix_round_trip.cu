// arch: sm_90
// stmatrix_round_trip: stmatrix.x4 / .x2.trans of four and two 8 x 8
// matrices of 16-bit elements, read back from shared memory as an array
// and with ldmatrix of the same shape and transposition. Lane l holds in
// register i the elements v(l, i, 0) (low half) and v(l, i, 1) (high), v =
// 256 + 8 l + 2 i + h. Matrix i's row r starts at the address lane 8 i + r
// gives: row r + 8 i of a 32 x 8 array (.x4) or, from 256 elements on, of
// a 16 x 8 array (.x2.trans).
// Outputs (u16[768]): 0..255 the .x4 image, 256..383 the .x2.trans image,
// then each lane's registers after ldmatrix (4 + 2 per lane, as 2 halves each:
// 384..767).
// Launch: -g 1 -b 32, out = u16[768].
__global__ void stmatrix_round_trip(unsigned short *out) {
  __shared__ __align__(16) unsigned short s[384];
  const unsigned l = threadIdx.x;
  unsigned r[4];
  for (int i = 0; i < 4; ++i)
    r[i] = (256 + 8 * l + 2 * i) | (256 + 8 * l + 2 * i + 1) << 16;
  const unsigned a4 = unsigned(__cvta_generic_to_shared(s + 8 * l));
  const unsigned a2 =
      unsigned(__cvta_generic_to_shared(s + 256 + 8 * (l % 16)));
  asm volatile(
      "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(
          a4),
      "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
      : "memory");
  asm volatile(
      "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(
          a2),
      "r"(r[0]), "r"(r[1])
      : "memory");
  __syncwarp();
  for (int i = l; i < 384; i += 32)
    out[i] = s[i];
  unsigned q[6];
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
      : "=r"(q[0]), "=r"(q[1]), "=r"(q[2]), "=r"(q[3])
      : "r"(a4));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
               : "=r"(q[4]), "=r"(q[5])
               : "r"(a2));
  for (int i = 0; i < 6; ++i) {
    out[384 + 12 * l + 2 * i] = q[i] & 0xffff;
    out[384 + 12 * l + 2 * i + 1] = q[i] >> 16;
  }
}
