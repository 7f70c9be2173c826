// mma_subbyte: the sub-byte forms. mma.sync with s4/u4 (m8n8k32,
// m16n8k32, m16n8k64) and b1 (m8n8k128 .xor.popc, m16n8k128 .and.popc,
// m16n8k256 .xor.popc), fragments built element by element from the PTX
// ISA layouts (P elements per register: 8 for 4-bit, 32 for b1; m16n8: a_i
// row g + 8 ((i / P) % 2), col P t + i % P + 4 P (i / 2P); b_i row P t +
// i % P + 4 P (i / P), col g; m8n8: a_i row g, col P t + i; b_i row P t +
// i, col g); and wmma with s4 (m8n8k32) and b1 (m8n8k128 .xor.popc)
// through CUDA's wmma::experimental API from shared memory.
// A(i, k) and B(k, j) are small formulas; D = C + sum_k A B, or for b1
// C + popc(row op column). Outputs: s32, row-major D of each form:
// 64 + 128 + 128 + 64 + 128 + 128 + 64 + 64 = 768.
// Launch: -g 1 -b 32, out = s32[768].
#include <mma.h>

using namespace nvcuda;

__device__ int a4(int i, int k) { return (i * 5 + k * 3) % 16 - 8; }  // s4
__device__ int b4(int k, int j) { return (k * 7 + j * 11) % 16 - 8; } // s4
__device__ int u4(int i, int k) { return (i * 9 + k * 13) % 16; }     // u4
__device__ int a1(int i, int k) { return ((i * 7 + k * 3) % 5) < 2; } // b1
__device__ int b1(int k, int j) { return ((k * 5 + j * 3) % 7) < 3; } // b1
__device__ int cc(int i, int j) { return i * 100 - j * 7; }

// A fragment element value for (row, col) of A or B, packed P per register.
template <class F>
__device__ unsigned pack(int P, int first, F value) {
  unsigned r = 0;
  const int w = 32 / P;
  for (int e = 0; e < P; ++e)
    r |= (unsigned(value(first + e)) & ((1u << w) - 1u)) << (w * e);
  return r;
}

__device__ int crow(int lane, int i) { return lane / 4 + 8 * (i / 2); }
__device__ int ccol(int lane, int i) { return 2 * (lane % 4) + i % 2; }

extern "C" __global__ void mma_subbyte(int *out) {
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  // m8n8k32 s4
  {
    unsigned a = pack(8, 0, [&](int i) { return a4(g, 8 * t + i); });
    unsigned b = pack(8, 0, [&](int i) { return b4(8 * t + i, g); });
    int c0 = cc(g, 2 * t), c1 = cc(g, 2 * t + 1);
    asm volatile("mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32 {%0,%1}, {%2}, {%3}, {%0,%1};"
                 : "+r"(c0), "+r"(c1) : "r"(a), "r"(b));
    out[g * 8 + 2 * t] = c0;
    out[g * 8 + 2 * t + 1] = c1;
  }
  // m16n8k32 u4 x s4 and m16n8k64 s4
  for (int big = 0; big < 2; ++big) {
    const int P = 8, na = big ? 4 : 2, nb = big ? 2 : 1;
    unsigned a[4], b[2];
    for (int r = 0; r < na; ++r)
      a[r] = pack(P, r * P, [&](int i) {
        int row = g + 8 * ((i / P) % 2), col = P * t + i % P + 4 * P * (i / (2 * P));
        return big ? a4(row, col) : u4(row, col);
      });
    for (int r = 0; r < nb; ++r)
      b[r] = pack(P, r * P, [&](int i) {
        return b4(P * t + i % P + 4 * P * (i / P), g);
      });
    int c[4];
    for (int i = 0; i < 4; ++i)
      c[i] = cc(crow(lane, i), ccol(lane, i));
    if (big)
      asm volatile("mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 "
                   "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
      asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u4.s4.s32 "
                   "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                   : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                   : "r"(a[0]), "r"(a[1]), "r"(b[0]));
    for (int i = 0; i < 4; ++i)
      out[64 + big * 128 + crow(lane, i) * 8 + ccol(lane, i)] = c[i];
  }
  // m8n8k128 b1 .xor.popc
  {
    unsigned a = pack(32, 0, [&](int i) { return a1(g, 32 * t + i); });
    unsigned b = pack(32, 0, [&](int i) { return b1(32 * t + i, g); });
    int c0 = cc(g, 2 * t), c1 = cc(g, 2 * t + 1);
    asm volatile("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%0,%1}, {%2}, {%3}, {%0,%1};"
                 : "+r"(c0), "+r"(c1) : "r"(a), "r"(b));
    out[320 + g * 8 + 2 * t] = c0;
    out[320 + g * 8 + 2 * t + 1] = c1;
  }
  // m16n8k128 b1 .and.popc and m16n8k256 b1 .xor.popc
  for (int big = 0; big < 2; ++big) {
    const int P = 32, na = big ? 4 : 2, nb = big ? 2 : 1;
    unsigned a[4], b[2];
    for (int r = 0; r < na; ++r)
      a[r] = pack(P, r * P, [&](int i) {
        return a1(g + 8 * ((i / P) % 2), P * t + i % P + 4 * P * (i / (2 * P)));
      });
    for (int r = 0; r < nb; ++r)
      b[r] = pack(P, r * P, [&](int i) {
        return b1(P * t + i % P + 4 * P * (i / P), g);
      });
    int c[4];
    for (int i = 0; i < 4; ++i)
      c[i] = cc(crow(lane, i), ccol(lane, i));
    if (big)
      asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc "
                   "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
      asm volatile("mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc "
                   "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                   : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                   : "r"(a[0]), "r"(a[1]), "r"(b[0]));
    for (int i = 0; i < 4; ++i)
      out[384 + big * 128 + crow(lane, i) * 8 + ccol(lane, i)] = c[i];
  }
  // wmma s4 m8n8k32 and b1 m8n8k128 from shared memory (A row-major, B
  // column-major, elements packed from the low bits of each byte up).
  __shared__ unsigned As[8 * 128 / 32], Bs[8 * 128 / 32];
  for (int form = 0; form < 2; ++form) {
    const int K = form ? 128 : 32, bits = form ? 1 : 4;
    const int words = 8 * K * bits / 32;
    for (int w = lane; w < words; w += 32) {
      unsigned ra = 0, rb = 0;
      for (int e = 0; e < 32 / bits; ++e) {
        const int pos = w * (32 / bits) + e, r = pos / K, k = pos % K;
        ra |= (unsigned(form ? a1(r, k) : a4(r, k)) & ((1u << bits) - 1u)) << (bits * e);
        rb |= (unsigned(form ? b1(k, r) : b4(k, r)) & ((1u << bits) - 1u)) << (bits * e);
      }
      As[w] = ra;
      Bs[w] = rb;
    }
    __syncwarp();
    wmma::fragment<wmma::accumulator, 8, 8, 32, int> c4;
    wmma::fragment<wmma::accumulator, 8, 8, 128, int> c1;
    if (form) {
      wmma::fragment<wmma::matrix_a, 8, 8, 128, wmma::experimental::precision::b1, wmma::row_major> a;
      wmma::fragment<wmma::matrix_b, 8, 8, 128, wmma::experimental::precision::b1, wmma::col_major> b;
      wmma::load_matrix_sync(a, As, 128);
      wmma::load_matrix_sync(b, Bs, 128);
      wmma::load_matrix_sync(c1, out + 384, 8, wmma::mem_row_major); // C: first rows of k128
      wmma::bmma_sync(c1, a, b, c1, wmma::experimental::bmmaBitOpXOR);
      wmma::store_matrix_sync(out + 704, c1, 8, wmma::mem_row_major);
    } else {
      wmma::fragment<wmma::matrix_a, 8, 8, 32, wmma::experimental::precision::s4, wmma::row_major> a;
      wmma::fragment<wmma::matrix_b, 8, 8, 32, wmma::experimental::precision::s4, wmma::col_major> b;
      wmma::load_matrix_sync(a, As, 32);
      wmma::load_matrix_sync(b, Bs, 32);
      wmma::fill_fragment(c4, 5);
      wmma::mma_sync(c4, a, b, c4);
      wmma::store_matrix_sync(out + 640, c4, 8, wmma::mem_row_major);
    }
    __syncwarp();
  }
}
