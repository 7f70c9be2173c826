// mma_shapes: one mma.sync of every supported shape and type, with the
// fragments built element by element from the PTX ISA's layout formulas
// ("Matrix fragments for mma.mMnNkK": groupID = lane / 4, t = lane % 4) and
// D written back to row-major memory by the same formulas. A, B, C are
// functions of (row, col) whose products and sums are exact, so D = A B + C
// exactly; a misplaced element changes D.
// Outputs (row-major D): f32: m16n8k16 f16, m16n8k16 bf16, m16n8k8 f16,
// m16n8k8 tf32, m16n8k4 tf32, m16n8k16 f16 with f16 accumulators (as f32)
// — 6 x 128; f64: m8n8k4 — 64; s32: m16n8k32 s8, m16n8k16 u8.s8,
// m8n8k16 s8, m16n8k32 s8 .satfinite with C near the s32 limits —
// 128 + 128 + 64 + 128.
// Launch: -g 1 -b 32, f32[768], f64[64], s32[448].
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ float fa(int i, int k) { return ((i * 7 + k * 5) % 11 - 5) / 4.0f; }
__device__ float fb(int k, int j) { return ((k * 3 + j * 13) % 7 - 3) / 2.0f; }
__device__ float fc(int i, int j) { return float((i + 2 * j) % 5 - 2); }
__device__ int ia(int i, int k) { return (i * 37 + k * 11) % 255 - 127; }
__device__ int ib(int k, int j) { return (k * 19 + j * 53) % 255 - 127; }
__device__ int ua(int i, int k) { return (i * 37 + k * 11) % 256; }
__device__ int ic(int i, int j) { return (i * 1000 - j * 777); }

__device__ unsigned h2(float lo, float hi) {
  return __half_as_ushort(__float2half_rn(lo)) |
         unsigned(__half_as_ushort(__float2half_rn(hi))) << 16;
}
__device__ unsigned b2(float lo, float hi) {
  return __bfloat16_as_ushort(__float2bfloat16_rn(lo)) |
         unsigned(__bfloat16_as_ushort(__float2bfloat16_rn(hi))) << 16;
}
__device__ unsigned i4(int a, int b, int c, int d) {
  return (a & 0xff) | (b & 0xff) << 8 | (c & 0xff) << 16 | unsigned(d & 0xff) << 24;
}

// m16n8 accumulators: c_i at row g + 8 (i / 2), col 2 t + i % 2.
__device__ int crow(int lane, int i) { return lane / 4 + 8 * (i / 2); }
__device__ int ccol(int lane, int i) { return 2 * (lane % 4) + i % 2; }

extern "C" __global__ void mma_shapes(float *of, double *od, int *oi) {
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  // ---- m16n8k16 f16 / bf16 -> f32: a_i row g + 8 ((i / 2) % 2), col 2t +
  // i % 2 + 8 (i / 4); b_i row 2t + i % 2 + 8 (i / 2), col g.
  for (int bf = 0; bf < 2; ++bf) {
    unsigned a[4], b[2];
    for (int r = 0; r < 4; ++r) {
      int i0 = 2 * r, i1 = 2 * r + 1;
      int row0 = g + 8 * ((i0 / 2) % 2), col0 = 2 * t + i0 % 2 + 8 * (i0 / 4);
      int row1 = g + 8 * ((i1 / 2) % 2), col1 = 2 * t + i1 % 2 + 8 * (i1 / 4);
      a[r] = bf ? b2(fa(row0, col0), fa(row1, col1))
                : h2(fa(row0, col0), fa(row1, col1));
    }
    for (int r = 0; r < 2; ++r) {
      int k0 = 2 * t + 8 * r, k1 = 2 * t + 1 + 8 * r;
      b[r] = bf ? b2(fb(k0, g), fb(k1, g)) : h2(fb(k0, g), fb(k1, g));
    }
    float c[4];
    for (int i = 0; i < 4; ++i)
      c[i] = fc(crow(lane, i), ccol(lane, i));
    if (bf)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                   "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                   "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    for (int i = 0; i < 4; ++i)
      of[bf * 128 + crow(lane, i) * 8 + ccol(lane, i)] = c[i];
  }
  // ---- m16n8k8 f16: a_i row g + 8 (i / 2), col 2t + i % 2; b_i row 2t + i.
  {
    unsigned a[2], b;
    for (int r = 0; r < 2; ++r)
      a[r] = h2(fa(g + 8 * r, 2 * t), fa(g + 8 * r, 2 * t + 1));
    b = h2(fb(2 * t, g), fb(2 * t + 1, g));
    float c[4];
    for (int i = 0; i < 4; ++i)
      c[i] = fc(crow(lane, i), ccol(lane, i));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b));
    for (int i = 0; i < 4; ++i)
      of[256 + crow(lane, i) * 8 + ccol(lane, i)] = c[i];
  }
  // ---- m16n8k8 tf32: a_i row g + 8 (i % 2), col t + 4 (i / 2); b_i row
  // t + 4 i, col g.
  {
    unsigned a[4], b[2];
    for (int i = 0; i < 4; ++i)
      a[i] = __float_as_uint(fa(g + 8 * (i % 2), t + 4 * (i / 2)));
    for (int i = 0; i < 2; ++i)
      b[i] = __float_as_uint(fb(t + 4 * i, g));
    float c[4];
    for (int i = 0; i < 4; ++i)
      c[i] = fc(crow(lane, i), ccol(lane, i));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    for (int i = 0; i < 4; ++i)
      of[384 + crow(lane, i) * 8 + ccol(lane, i)] = c[i];
  }
  // ---- m16n8k4 tf32: a_i row g + 8 i, col t; b row t, col g.
  {
    unsigned a0 = __float_as_uint(fa(g, t)), a1 = __float_as_uint(fa(g + 8, t));
    unsigned b = __float_as_uint(fb(t, g));
    float c[4];
    for (int i = 0; i < 4; ++i)
      c[i] = fc(crow(lane, i), ccol(lane, i));
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 "
                 "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a0), "r"(a1), "r"(b));
    for (int i = 0; i < 4; ++i)
      of[512 + crow(lane, i) * 8 + ccol(lane, i)] = c[i];
  }
  // ---- m16n8k16 f16 with f16 accumulators: c in two f16x2 registers.
  {
    unsigned a[4], b[2];
    for (int r = 0; r < 4; ++r) {
      int i0 = 2 * r;
      int row = g + 8 * ((i0 / 2) % 2), col = 2 * t + 8 * (i0 / 4);
      a[r] = h2(fa(row, col), fa(row, col + 1));
    }
    for (int r = 0; r < 2; ++r)
      b[r] = h2(fb(2 * t + 8 * r, g), fb(2 * t + 1 + 8 * r, g));
    unsigned c[2];
    for (int r = 0; r < 2; ++r)
      c[r] = h2(fc(crow(lane, 2 * r), ccol(lane, 2 * r)),
                fc(crow(lane, 2 * r + 1), ccol(lane, 2 * r + 1)));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
                 "{%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
                 : "+r"(c[0]), "+r"(c[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    for (int i = 0; i < 4; ++i)
      of[640 + crow(lane, i) * 8 + ccol(lane, i)] =
          __half2float(__ushort_as_half((unsigned short)(c[i / 2] >> (16 * (i % 2)))));
  }
  // ---- m8n8k4 f64: a row g, col t; b row t, col g; c_i row g, col 2t + i.
  {
    double a = fa(g, t), b = fb(t, g);
    double c0 = fc(g, 2 * t), c1 = fc(g, 2 * t + 1);
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 "
                 "{%0,%1}, {%2}, {%3}, {%0,%1};"
                 : "+d"(c0), "+d"(c1)
                 : "d"(a), "d"(b));
    od[g * 8 + 2 * t] = c0;
    od[g * 8 + 2 * t + 1] = c1;
  }
  // ---- m16n8k32 s8: a_i row g + 8 ((i / 4) % 2), col 4t + i % 4 + 16 (i /
  // 8); b_i row 4t + i % 4 + 16 (i / 4), col g. Also .satfinite with C near
  // the s32 limits.
  for (int sat = 0; sat < 2; ++sat) {
    unsigned a[4], b[2];
    for (int r = 0; r < 4; ++r) {
      int v[4];
      for (int e = 0; e < 4; ++e) {
        int i = 4 * r + e;
        v[e] = ia(g + 8 * ((i / 4) % 2), 4 * t + i % 4 + 16 * (i / 8));
      }
      a[r] = i4(v[0], v[1], v[2], v[3]);
    }
    for (int r = 0; r < 2; ++r) {
      int v[4];
      for (int e = 0; e < 4; ++e) {
        int i = 4 * r + e;
        v[e] = ib(4 * t + i % 4 + 16 * (i / 4), g);
      }
      b[r] = i4(v[0], v[1], v[2], v[3]);
    }
    int c[4];
    for (int i = 0; i < 4; ++i) {
      c[i] = ic(crow(lane, i), ccol(lane, i));
      if (sat)
        c[i] = (i % 2 ? -2147483000 : 2147483000) + c[i] % 100;
    }
    if (sat)
      asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 "
                   "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
      asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                   "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    for (int i = 0; i < 4; ++i)
      oi[(sat ? 320 : 0) + crow(lane, i) * 8 + ccol(lane, i)] = c[i];
  }
  // ---- m16n8k16 u8 x s8: a_i row g + 8 (i / 4), col 4t + i % 4; b_i row
  // 4t + i, col g.
  {
    unsigned a[2], b;
    for (int r = 0; r < 2; ++r)
      a[r] = i4(ua(g + 8 * r, 4 * t), ua(g + 8 * r, 4 * t + 1),
                ua(g + 8 * r, 4 * t + 2), ua(g + 8 * r, 4 * t + 3));
    b = i4(ib(4 * t, g), ib(4 * t + 1, g), ib(4 * t + 2, g), ib(4 * t + 3, g));
    int c[4];
    for (int i = 0; i < 4; ++i)
      c[i] = ic(crow(lane, i), ccol(lane, i));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 "
                 "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                 : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b));
    for (int i = 0; i < 4; ++i)
      oi[128 + crow(lane, i) * 8 + ccol(lane, i)] = c[i];
  }
  // ---- m8n8k16 s8: a row g, col 4t + i; b row 4t + i, col g; c_i row g,
  // col 2t + i.
  {
    unsigned a = i4(ia(g, 4 * t), ia(g, 4 * t + 1), ia(g, 4 * t + 2), ia(g, 4 * t + 3));
    unsigned b = i4(ib(4 * t, g), ib(4 * t + 1, g), ib(4 * t + 2, g), ib(4 * t + 3, g));
    int c0 = ic(g, 2 * t), c1 = ic(g, 2 * t + 1);
    asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 "
                 "{%0,%1}, {%2}, {%3}, {%0,%1};"
                 : "+r"(c0), "+r"(c1)
                 : "r"(a), "r"(b));
    oi[256 + g * 8 + 2 * t] = c0;
    oi[256 + g * 8 + 2 * t + 1] = c1;
  }
}
