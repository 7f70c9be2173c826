// arch: sm_90
// matrix_moves: movmatrix, stmatrix and ldmatrix on 8 x 8 matrices of
// 16-bit elements. Each lane holds the fragment the PTX ISA assigns it
// (row lane / 4, columns 2 (lane % 4) and 2 (lane % 4) + 1) of matrix q:
// M_q[r][c] = 1000 q + 8 r + c. Outputs (u16, 64 elements per matrix):
//   0: movmatrix.trans of M_0, gathered from the fragments (= M_0^T)
//   1: stmatrix.x1 of M_0 into shared memory, copied out (= M_0)
//   2: stmatrix.x1.trans of M_0 (= M_0^T)
//   3..6: stmatrix.x4 of M_0..M_3 (row addresses from all 32 lanes)
//   7..10: ldmatrix.x4.trans of those, gathered (= M_q^T)
//   11..12: ldmatrix.x2 of M_0, M_1 from rows 8..15 given by lanes 8..15
// Launch: -g 1 -b 32, out = u16[832].

__device__ unsigned frag(int q, int lane) {
  const int r = lane / 4, c = 2 * (lane % 4);
  return (1000 * q + 8 * r + c) | unsigned(1000 * q + 8 * r + c + 1) << 16;
}
__device__ void put(unsigned short *o, int lane, unsigned v) {
  const int r = lane / 4, c = 2 * (lane % 4);
  o[8 * r + c] = (unsigned short)v;
  o[8 * r + c + 1] = (unsigned short)(v >> 16);
}
__device__ unsigned sa(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

extern "C" __global__ void matrix_moves(unsigned short *out) {
  __shared__ __align__(16) unsigned short S[4][8][8];
  const int lane = threadIdx.x;
  unsigned d;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;"
               : "=r"(d)
               : "r"(frag(0, lane)));
  put(out + 0 * 64, lane, d);

  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(
                   sa(&S[0][lane % 8][0])),
               "r"(frag(0, lane))
               : "memory");
  __syncwarp();
  for (int e = lane; e < 64; e += 32)
    out[1 * 64 + e] = S[0][e / 8][e % 8];
  __syncwarp();
  asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(
                   sa(&S[0][lane % 8][0])),
               "r"(frag(0, lane))
               : "memory");
  __syncwarp();
  for (int e = lane; e < 64; e += 32)
    out[2 * 64 + e] = S[0][e / 8][e % 8];
  __syncwarp();
  asm volatile(
      "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(
          sa(&S[lane / 8][lane % 8][0])),
      "r"(frag(0, lane)), "r"(frag(1, lane)), "r"(frag(2, lane)),
      "r"(frag(3, lane))
      : "memory");
  __syncwarp();
  for (int e = lane; e < 256; e += 32)
    out[3 * 64 + e] = S[e / 64][(e / 8) % 8][e % 8];
  __syncwarp();
  unsigned r[4];
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
      : "r"(sa(&S[lane / 8][lane % 8][0])));
  for (int q = 0; q < 4; ++q)
    put(out + (7 + q) * 64, lane, r[q]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(sa(&S[(lane / 8) % 2][lane % 8][0])));
  for (int q = 0; q < 2; ++q)
    put(out + (11 + q) * 64, lane, r[q]);
}
