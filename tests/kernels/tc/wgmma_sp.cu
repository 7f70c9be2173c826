// arch: sm_90a
// wgmma_sp: wgmma.mma_async.sp.sync.aligned.m64nNkK with a structured-sparse
// A (PTX ISA "Sparse matrix storage"): 2:4 for the 16- and 8-bit types, 1:2
// for tf32. A is given packed (64 x K/2), from registers (the dense fragment
// of the packed shape) or from a shared-memory matrix descriptor (the dense
// layout of the packed matrix), with the sparsity metadata in registers:
// each chunk of a row has a 4-bit nibble naming the positions of its packed
// elements (2:4: bits 1-0 the first, 3-2 the second; tf32: 0b0100 the first
// position, 0b1110 the second). Row r = 16 w + g + 8 h of warp w (g = lane
// group, h = 0 or 1) and chunk j take their nibble from
//   16-bit types and tf32: lane 4 g + 2 sel + j / 4, bits 16 h + 4 (j % 4)
//   8-bit types:           lane 4 g + 2 (j / 8) + h, bits 4 (j % 8)
// (sel, the sparsity selector: the lane pair of each four that gives it).
// The lanes the selector leaves out get metadata 0 (invalid nibbles): the
// instruction must not read them. One CTA of one warpgroup per kernel; each
// writes its 64 x N result D row-major, as f32, to out. The dense A is
// a(i, k) where the sparsity pattern keeps element k of row i, 0 elsewhere;
// inputs are small multiples of 1/4 and 1/2, so D = A B + C is exact.
// Launch: -g 1 -b 128 -k <kernel>, out = f32[64 * N].
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

__device__ float fa(int i, int k) { return ((i * 7 + k * 5) % 11 - 5) / 4.0f; }
__device__ float fb(int k, int j) { return ((k * 3 + j * 13) % 7 - 3) / 2.0f; }
__device__ float fc(int i, int j) { return float((i + 2 * j) % 5 - 2); }
__device__ int ua(int i, int k) { return (i * 7 + k * 5) % 200; }
__device__ int ib(int k, int j) { return (k * 3 + j * 13) % 7 - 3; }

enum Ty { F16, BF16, TF32, E4M3, U8, S8 };
__device__ int size_bits(Ty t) {
  return t == TF32 ? 32 : t == F16 || t == BF16 ? 16 : 8;
}
__device__ unsigned bits_of(Ty t, float v) {
  switch (t) {
  case F16:
    return __half_as_ushort(__float2half_rn(v));
  case BF16:
    return __bfloat16_as_ushort(__float2bfloat16_rn(v));
  case TF32:
    return __float_as_uint(v);
  case E4M3:
    return __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
  default:
    return unsigned(int(v)) & 0xff;
  }
}
__device__ float a_value(Ty t, int i, int k) {
  return t == U8 ? float(ua(i, k)) : fa(i, k);
}
__device__ float b_value(Ty t, int k, int j) {
  return t == S8 ? float(ib(k, j)) : fb(k, j);
}

// The sparsity pattern: the positions kept in chunk j of row i.
__device__ void kept(Ty t, int i, int j, int pos[2]) {
  if (t == TF32) { // 1:2
    pos[0] = (i + j) % 2;
    return;
  }
  const int pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  const int p = (3 * i + j) % 6;
  pos[0] = pairs[p][0];
  pos[1] = pairs[p][1];
}
// The metadata nibble of chunk j of row i.
__device__ unsigned nibble(Ty t, int i, int j) {
  int pos[2];
  kept(t, i, j, pos);
  if (t == TF32)
    return pos[0] ? 0xeu : 0x4u;
  return unsigned(pos[0] | pos[1] << 2);
}
// Packed element c of row i: the dense column it stands for.
__device__ int dense_col(Ty t, int i, int c) {
  int pos[2];
  if (t == TF32) {
    kept(t, i, c, pos);
    return 2 * c + pos[0];
  }
  kept(t, i, c / 2, pos);
  return 4 * (c / 2) + pos[c % 2];
}
__device__ unsigned packed_bits(Ty t, int i, int c) {
  return bits_of(t, a_value(t, i, dense_col(t, i, c)));
}
// This thread's metadata register.
__device__ unsigned metadata(Ty t, int sel) {
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32, g = lane / 4;
  unsigned m = 0;
  if (size_bits(t) == 8) {
    const int u = (lane % 4) / 2, h = lane % 2, r = 16 * w + g + 8 * h;
    for (int jj = 0; jj < 8; ++jj)
      m |= nibble(t, r, 8 * u + jj) << (4 * jj);
    return m;
  }
  if ((lane % 4) / 2 != sel)
    return 0; // not read: the selector names the other lane pair
  const int q = lane % 2;
  for (int h = 0; h < 2; ++h)
    for (int jj = 0; jj < 4; ++jj)
      m |= nibble(t, 16 * w + g + 8 * h, 4 * q + jj) << (16 * h + 4 * jj);
  return m;
}

// Register A: the dense fragment of the packed 16 x K/2 rows of the warp
// (m16n8k16 for 16-bit types, m16n8k8 for tf32, m16n8k32 for 8-bit types).
__device__ void frag_a(Ty t, unsigned a[4]) {
  const int lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  const int r0 = 16 * (threadIdx.x / 32);
  for (int x = 0; x < 4; ++x)
    a[x] = 0;
  if (t == TF32) {
    for (int i = 0; i < 4; ++i)
      a[i] = packed_bits(t, r0 + g + 8 * (i & 1), q + 4 * (i >> 1));
  } else if (size_bits(t) == 16) {
    for (int i = 0; i < 8; ++i)
      a[i / 2] |= packed_bits(t, r0 + g + 8 * ((i >> 1) & 1),
                              2 * q + (i & 1) + 8 * (i >> 2))
                  << (16 * (i & 1));
  } else {
    for (int i = 0; i < 16; ++i)
      a[i / 4] |= packed_bits(t, r0 + g + 8 * ((i / 4) & 1),
                              4 * q + i % 4 + 16 * (i / 8))
                  << (8 * (i % 4));
  }
}

// Shared-memory layouts (as in wgmma.cu): K-major, no swizzle: core
// matrices of 8 rows x 16 bytes, LBO between them along K, SBO between
// 8-row groups; K-major, swizzle S: rows of S bytes, SBO = 8 S. MN-major,
// no swizzle: core matrices of 8 k x 16 bytes of M/N, LBO between 8-k
// groups, SBO between 16-byte groups of M/N.
struct Layout {
  int S;
  bool mn_major;
  unsigned lbo, sbo;
};
__device__ unsigned swizzle(unsigned addr, int S) {
  return S ? addr ^ (((addr >> 7) & (S / 16 - 1)) << 4) : addr;
}
__device__ unsigned offset(const Layout &L, int mn, int k, int ebits) {
  if (!L.mn_major) {
    const int kb = k * ebits / 8;
    if (!L.S)
      return (mn / 8) * L.sbo + (mn % 8) * 16 + (kb / 16) * L.lbo + kb % 16;
    return (mn / 8) * L.sbo + (mn % 8) * L.S + kb;
  }
  const int mb = mn * ebits / 8;
  return (mb / 16) * L.sbo + mb % 16 + (k % 8) * 16 + (k / 8) * L.lbo;
}
__device__ unsigned long long descriptor(unsigned addr, const Layout &L) {
  const unsigned long long mode = L.S == 128  ? 1
                                  : L.S == 64 ? 2
                                  : L.S == 32 ? 3
                                              : 0;
  return ((addr & 0x3ffff) >> 4) |
         (unsigned long long)((L.lbo >> 4) & 0x3fff) << 16 |
         (unsigned long long)((L.sbo >> 4) & 0x3fff) << 32 | mode << 62;
}
__device__ void put(unsigned char *base, const Layout &L, int mn, int k, int eb,
                    unsigned v) {
  const unsigned s = unsigned(__cvta_generic_to_shared(base));
  unsigned char *p = base + (swizzle(s + offset(L, mn, k, eb), L.S) - s);
  if (eb == 8)
    *p = (unsigned char)v;
  else if (eb == 16)
    *(unsigned short *)p = (unsigned short)v;
  else
    *(unsigned *)p = v;
}

__shared__ __align__(1024) unsigned char smem_a[8192];
__shared__ __align__(1024) unsigned char smem_b[16384];

// A packed (64 x K/2) into shared memory; returns its descriptor.
__device__ unsigned long long fill_a(Ty t, int K, const Layout &L) {
  const int P = K / 2, eb = size_bits(t);
  for (int e = threadIdx.x; e < 64 * P; e += blockDim.x)
    put(smem_a, L, e / P, e % P, eb, packed_bits(t, e / P, e % P));
  return descriptor(unsigned(__cvta_generic_to_shared(smem_a)), L);
}
// B (K x N, stored as N rows of K, or MN-major as K rows of N).
__device__ unsigned long long fill_b(Ty t, int N, int K, const Layout &L) {
  for (int e = threadIdx.x; e < N * K; e += blockDim.x)
    put(smem_b, L, e / K, e % K, size_bits(t),
        bits_of(t, b_value(t, e % K, e / K)));
  return descriptor(unsigned(__cvta_generic_to_shared(smem_b)), L);
}

__device__ int drow(int i) {
  return 16 * (threadIdx.x / 32) + (threadIdx.x % 32) / 4 + 8 * ((i >> 1) & 1);
}
__device__ int dcol(int i) {
  return 8 * (i >> 2) + 2 * (threadIdx.x % 4) + (i & 1);
}

#define WG_BEGIN                                                               \
  asm volatile("fence.proxy.async.shared::cta;");                              \
  __syncthreads();                                                             \
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory")
#define WG_END                                                                 \
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");               \
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory")

// wgmma_sp_f16_reg_n16: f16 x f16 -> f32, N = 16, A from registers, sel 0,
// B K-major without swizzle (LBO 128, SBO 512: four core matrices along K).
extern "C" __global__ void wgmma_sp_f16_reg_n16(float *out) {
  unsigned a[4];
  frag_a(F16, a);
  const unsigned meta = metadata(F16, 0);
  const unsigned long long db = fill_b(F16, 16, 32, Layout{0, false, 128, 512});
  float d[8];
  for (int i = 0; i < 8; ++i)
    d[i] = fc(drow(i), dcol(i));
  WG_BEGIN;
  asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 "
               "{%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, %13, 0, 1, "
               "1, 1, 0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
                 "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db),
                 "r"(meta));
  WG_END;
  for (int i = 0; i < 8; ++i)
    out[drow(i) * 16 + dcol(i)] = d[i];
}

// wgmma_sp_bf16_desc_n8: bf16 x bf16 -> f32, N = 8, A from a descriptor
// (packed rows of 32 bytes, no swizzle: LBO 128, SBO 256), sel 1, B
// K-major with the 128-byte swizzle (SBO 1024), scale-d 1.
extern "C" __global__ void wgmma_sp_bf16_desc_n8(float *out) {
  const unsigned long long da = fill_a(BF16, 32, Layout{0, false, 128, 256});
  const unsigned meta = metadata(BF16, 1);
  const unsigned long long db =
      fill_b(BF16, 8, 32, Layout{128, false, 16, 1024});
  float d[4];
  for (int i = 0; i < 4; ++i)
    d[i] = fc(drow(i), dcol(i));
  WG_BEGIN;
  asm volatile("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.bf16.bf16 "
               "{%0,%1,%2,%3}, %4, %5, %6, 1, 1, 1, 1, 0, 0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "l"(da), "l"(db), "r"(meta));
  WG_END;
  for (int i = 0; i < 4; ++i)
    out[drow(i) * 8 + dcol(i)] = d[i];
}

// wgmma_sp_f16_trans_n16: f16 x f16 -> f16, N = 16, A from a descriptor
// MN-major (imm-trans-a 1: LBO 128 between 8-k groups, SBO 256 between 16
// bytes of M), B MN-major (imm-trans-b 1: LBO 128, SBO 512), sel 0.
extern "C" __global__ void wgmma_sp_f16_trans_n16(float *out) {
  const unsigned long long da = fill_a(F16, 32, Layout{0, true, 128, 256});
  const unsigned meta = metadata(F16, 0);
  const unsigned long long db = fill_b(F16, 16, 32, Layout{0, true, 128, 512});
  unsigned d[4];
  for (int i = 0; i < 4; ++i)
    d[i] = __half_as_ushort(__float2half_rn(fc(drow(2 * i), dcol(2 * i)))) |
           unsigned(__half_as_ushort(
               __float2half_rn(fc(drow(2 * i + 1), dcol(2 * i + 1)))))
               << 16;
  WG_BEGIN;
  asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k32.f16.f16.f16 "
               "{%0,%1,%2,%3}, %4, %5, %6, 0, 1, 1, 1, 1, 1;"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "l"(da), "l"(db), "r"(meta));
  WG_END;
  for (int i = 0; i < 8; ++i)
    out[drow(i) * 16 + dcol(i)] = __half2float(
        __ushort_as_half((unsigned short)(d[i / 2] >> (16 * (i & 1)))));
}

// wgmma_sp_tf32_reg_n8: tf32 x tf32 -> f32 (1:2), N = 8, A from registers,
// sel 1, imm-scale-a -1, scale-d 0 (D = -A B), B K-major without swizzle.
extern "C" __global__ void wgmma_sp_tf32_reg_n8(float *out) {
  unsigned a[4];
  frag_a(TF32, a);
  const unsigned meta = metadata(TF32, 1);
  const unsigned long long db = fill_b(TF32, 8, 16, Layout{0, false, 128, 512});
  float d[4] = {7, 7, 7, 7};
  WG_BEGIN;
  asm volatile("wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, %9, 1, 0, -1, 1;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db),
                 "r"(meta));
  WG_END;
  for (int i = 0; i < 4; ++i)
    out[drow(i) * 8 + dcol(i)] = d[i];
}

// wgmma_sp_e4m3_desc_n16: e4m3 x e4m3 -> f32, N = 16, A from a descriptor
// (packed rows of 32 bytes, 32-byte swizzle: SBO 256), B K-major with the
// 64-byte swizzle (SBO 512), sel 0 (every lane gives metadata).
extern "C" __global__ void wgmma_sp_e4m3_desc_n16(float *out) {
  const unsigned long long da = fill_a(E4M3, 64, Layout{32, false, 16, 256});
  const unsigned meta = metadata(E4M3, 0);
  const unsigned long long db =
      fill_b(E4M3, 16, 64, Layout{64, false, 16, 512});
  float d[8];
  for (int i = 0; i < 8; ++i)
    d[i] = fc(drow(i), dcol(i));
  WG_BEGIN;
  asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k64.f32.e4m3.e4m3 "
               "{%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, %10, 0, 1, 1, 1;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
                 "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
               : "l"(da), "l"(db), "r"(meta));
  WG_END;
  for (int i = 0; i < 8; ++i)
    out[drow(i) * 16 + dcol(i)] = d[i];
}

// wgmma_sp_u8_reg_n24: u8 x s8 -> s32, N = 24, A from registers, B K-major
// without swizzle (LBO 128, SBO 512), scale-d 1 (C = 3 fc).
extern "C" __global__ void wgmma_sp_u8_reg_n24(float *out) {
  unsigned a[4];
  frag_a(U8, a);
  const unsigned meta = metadata(U8, 0);
  const unsigned long long db = fill_b(S8, 24, 64, Layout{0, false, 128, 512});
  unsigned d[12];
  for (int i = 0; i < 12; ++i)
    d[i] = unsigned(3 * (int)fc(drow(i), dcol(i)));
  WG_BEGIN;
  asm volatile(
      "wgmma.mma_async.sp.sync.aligned.m64n24k64.s32.u8.s8 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, "
      "%16, %17, 0, 1;"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]),
        "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(meta));
  WG_END;
  for (int i = 0; i < 12; ++i)
    out[drow(i) * 24 + dcol(i)] = float(int(d[i]));
}
