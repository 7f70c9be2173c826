// What wgmma.mma_async computes, bit for bit: one m64n16kK operation per
// case for every operand type pair sm_90a has (f16 with f16 and f32
// accumulators, bf16, tf32, e4m3/e5m2 in all four pairs with f16 and f32
// accumulators, s8/u8 in all four pairs, .satfinite), A from a
// shared-memory descriptor and, for one case per family, from registers;
// B from a descriptor; both K-major without swizzle. The accumulator starts
// at a nonzero C (scale-d 1). Each case runs on two data sets:
//   tame: small integers, whose products and sums every rounding rule gives
//         exactly; the program checks them against the host;
//   wild: deterministic pseudo-random bit patterns with zeros, denormals,
//         infinities, NaNs, every exponent, and rows whose second half of K
//         cancels the first; only printed.
// Every element of D is printed in hex, one line per row of D (16 columns).
// Register A and descriptor A must give the same bits.
// Build: nvcc -gencode=arch=compute_90a,code=[sm_90a,compute_90a]
// -cudart shared. No arguments.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "common.h"

constexpr int M = 64, N = 16, KB = 32; // K bytes of one operation

enum Type { F16, BF16, TF32, E4M3, E5M2, S8, U8 };
enum Acc { AF16, AF32, AS32 };

// Operation ids: the instruction each kernel instance issues.
enum Op {
  F16_F16,
  F16_F32,
  BF16_F32,
  TF32_F32,
  E4E4_F16,
  E4E5_F16,
  E5E4_F16,
  E5E5_F16,
  E4E4_F32,
  E4E5_F32,
  E5E4_F32,
  E5E5_F32,
  S8S8,
  S8U8,
  U8S8,
  U8U8,
  S8S8_SAT,
  R_F16_F16,
  R_F16_F32,
  R_BF16_F32,
  R_TF32_F32,
  R_E4E5_F32,
  R_E5E4_F16,
  R_S8U8,
  kOps
};

// Byte kb of row mn (of A, or column mn of B) in the K-major layout without
// swizzle: core matrices of 8 rows x 16 bytes, the two along K 128 bytes
// apart (leading byte offset), 8-row groups 256 bytes apart (stride byte
// offset).
__host__ __device__ inline int core_offset(int mn, int kb) {
  return (mn / 8) * 256 + (kb / 16) * 128 + (mn % 8) * 16 + kb % 16;
}

__device__ inline uint64_t descriptor(const void *p) {
  uint64_t a = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  return ((a & 0x3ffff) >> 4) | uint64_t(128 >> 4) << 16 |
         uint64_t(256 >> 4) << 32;
}

#define D8 "{%0, %1, %2, %3, %4, %5, %6, %7}"
#define D4 "{%0, %1, %2, %3}"
#define OUT8                                                                   \
  "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]),      \
      "+r"(d[6]), "+r"(d[7])
#define OUT4 "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
#define SCALE_D "{ .reg .pred p; setp.ne.b32 p, %10, 0;\n"
#define SCALE_D4 "{ .reg .pred p; setp.ne.b32 p, %6, 0;\n"
#define SCALE_DR8 "{ .reg .pred p; setp.ne.b32 p, %13, 0;\n"
#define SCALE_DR4 "{ .reg .pred p; setp.ne.b32 p, %9, 0;\n"
// A and B from descriptors; 8 or 4 accumulator registers.
#define WG8(SHAPE, TAIL)                                                       \
  asm volatile(SCALE_D "wgmma.mma_async.sync.aligned." SHAPE " " D8            \
                       ", %8, %9, p" TAIL "; }"                                \
               : OUT8                                                          \
               : "l"(da), "l"(db), "r"(1)                                      \
               : "memory")
#define WG4(SHAPE, TAIL)                                                       \
  asm volatile(SCALE_D4 "wgmma.mma_async.sync.aligned." SHAPE " " D4           \
                        ", %4, %5, p" TAIL "; }"                               \
               : OUT4                                                          \
               : "l"(da), "l"(db), "r"(1)                                      \
               : "memory")
// A from registers.
#define WGR8(SHAPE, TAIL)                                                      \
  asm volatile(SCALE_DR8 "wgmma.mma_async.sync.aligned." SHAPE " " D8          \
                         ", {%8, %9, %10, %11}, %12, p" TAIL "; }"             \
               : OUT8                                                          \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1)   \
               : "memory")
#define WGR4(SHAPE, TAIL)                                                      \
  asm volatile(SCALE_DR4 "wgmma.mma_async.sync.aligned." SHAPE " " D4          \
                         ", {%4, %5, %6, %7}, %8, p" TAIL "; }"                \
               : OUT4                                                          \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1)   \
               : "memory")

template <int OP>
__device__ inline void mma(uint32_t (&d)[8], uint64_t da, uint64_t db,
                           const uint32_t (&a)[4]) {
  if constexpr (OP == F16_F16)
    WG4("m64n16k16.f16.f16.f16", ", 1, 1, 0, 0");
  else if constexpr (OP == F16_F32)
    WG8("m64n16k16.f32.f16.f16", ", 1, 1, 0, 0");
  else if constexpr (OP == BF16_F32)
    WG8("m64n16k16.f32.bf16.bf16", ", 1, 1, 0, 0");
  else if constexpr (OP == TF32_F32)
    WG8("m64n16k8.f32.tf32.tf32", ", 1, 1");
  else if constexpr (OP == E4E4_F16)
    WG4("m64n16k32.f16.e4m3.e4m3", ", 1, 1");
  else if constexpr (OP == E4E5_F16)
    WG4("m64n16k32.f16.e4m3.e5m2", ", 1, 1");
  else if constexpr (OP == E5E4_F16)
    WG4("m64n16k32.f16.e5m2.e4m3", ", 1, 1");
  else if constexpr (OP == E5E5_F16)
    WG4("m64n16k32.f16.e5m2.e5m2", ", 1, 1");
  else if constexpr (OP == E4E4_F32)
    WG8("m64n16k32.f32.e4m3.e4m3", ", 1, 1");
  else if constexpr (OP == E4E5_F32)
    WG8("m64n16k32.f32.e4m3.e5m2", ", 1, 1");
  else if constexpr (OP == E5E4_F32)
    WG8("m64n16k32.f32.e5m2.e4m3", ", 1, 1");
  else if constexpr (OP == E5E5_F32)
    WG8("m64n16k32.f32.e5m2.e5m2", ", 1, 1");
  else if constexpr (OP == S8S8)
    WG8("m64n16k32.s32.s8.s8", "");
  else if constexpr (OP == S8U8)
    WG8("m64n16k32.s32.s8.u8", "");
  else if constexpr (OP == U8S8)
    WG8("m64n16k32.s32.u8.s8", "");
  else if constexpr (OP == U8U8)
    WG8("m64n16k32.s32.u8.u8", "");
  else if constexpr (OP == S8S8_SAT)
    WG8("m64n16k32.satfinite.s32.s8.s8", "");
  else if constexpr (OP == R_F16_F16)
    WGR4("m64n16k16.f16.f16.f16", ", 1, 1, 0");
  else if constexpr (OP == R_F16_F32)
    WGR8("m64n16k16.f32.f16.f16", ", 1, 1, 0");
  else if constexpr (OP == R_BF16_F32)
    WGR8("m64n16k16.f32.bf16.bf16", ", 1, 1, 0");
  else if constexpr (OP == R_TF32_F32)
    WGR8("m64n16k8.f32.tf32.tf32", ", 1, 1");
  else if constexpr (OP == R_E4E5_F32)
    WGR8("m64n16k32.f32.e4m3.e5m2", ", 1, 1");
  else if constexpr (OP == R_E5E4_F16)
    WGR4("m64n16k32.f16.e5m2.e4m3", ", 1, 1");
  else if constexpr (OP == R_S8U8)
    WGR8("m64n16k32.s32.s8.u8", "");
}

// A: 64 rows of 32 bytes, B: 16 columns of 32 bytes (K fastest); C and D:
// 8 words per thread in register order.
template <int OP>
__global__ void wg(const uint8_t *A, const uint8_t *B, const uint32_t *C,
                   uint32_t *D) {
  __shared__ alignas(1024) uint8_t sa[M * KB];
  __shared__ alignas(1024) uint8_t sb[N * KB];
  const int t = threadIdx.x;
  for (int i = t; i < M * KB; i += blockDim.x)
    sa[core_offset(i / KB, i % KB)] = A[i];
  for (int i = t; i < N * KB; i += blockDim.x)
    sb[core_offset(i / KB, i % KB)] = B[i];
  uint32_t d[8], a[4];
  for (int j = 0; j < 8; ++j)
    d[j] = C[t * 8 + j];
  // The A fragment: register r holds 4 bytes of row 16w + g + 8 (r % 2) at
  // byte 16 (r / 2) + 4 q of K (w the warp, g = lane / 4, q = lane % 4).
  const int w = t / 32, g = (t % 32) / 4, q = t % 4;
  for (int r = 0; r < 4; ++r) {
    const uint8_t *p =
        A + (16 * w + g + 8 * (r % 2)) * KB + 16 * (r / 2) + 4 * q;
    a[r] = p[0] | p[1] << 8 | p[2] << 16 | uint32_t(p[3]) << 24;
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  uint64_t da = descriptor(sa), db = descriptor(sb);
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  mma<OP>(d, da, db, a);
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int j = 0; j < 8; ++j)
    D[t * 8 + j] = d[j];
}

using Kernel = void (*)(const uint8_t *, const uint8_t *, const uint32_t *,
                        uint32_t *);
template <int... I>
constexpr auto kernel_table(std::integer_sequence<int, I...>) {
  return std::array<Kernel, sizeof...(I)>{wg<I>...};
}

struct Case {
  const char *name;
  int op;
  Type a, b;
  Acc acc;
  int reg_of; // -1, or the descriptor-A case this register-A case repeats
};

const Case kCases[] = {
    {"f16.f16.f16", F16_F16, F16, F16, AF16, -1},
    {"f32.f16.f16", F16_F32, F16, F16, AF32, -1},
    {"f32.bf16.bf16", BF16_F32, BF16, BF16, AF32, -1},
    {"f32.tf32.tf32", TF32_F32, TF32, TF32, AF32, -1},
    {"f16.e4m3.e4m3", E4E4_F16, E4M3, E4M3, AF16, -1},
    {"f16.e4m3.e5m2", E4E5_F16, E4M3, E5M2, AF16, -1},
    {"f16.e5m2.e4m3", E5E4_F16, E5M2, E4M3, AF16, -1},
    {"f16.e5m2.e5m2", E5E5_F16, E5M2, E5M2, AF16, -1},
    {"f32.e4m3.e4m3", E4E4_F32, E4M3, E4M3, AF32, -1},
    {"f32.e4m3.e5m2", E4E5_F32, E4M3, E5M2, AF32, -1},
    {"f32.e5m2.e4m3", E5E4_F32, E5M2, E4M3, AF32, -1},
    {"f32.e5m2.e5m2", E5E5_F32, E5M2, E5M2, AF32, -1},
    {"s32.s8.s8", S8S8, S8, S8, AS32, -1},
    {"s32.s8.u8", S8U8, S8, U8, AS32, -1},
    {"s32.u8.s8", U8S8, U8, S8, AS32, -1},
    {"s32.u8.u8", U8U8, U8, U8, AS32, -1},
    {"satfinite.s32.s8.s8", S8S8_SAT, S8, S8, AS32, -1},
    {"f16.f16.f16.regA", R_F16_F16, F16, F16, AF16, F16_F16},
    {"f32.f16.f16.regA", R_F16_F32, F16, F16, AF32, F16_F32},
    {"f32.bf16.bf16.regA", R_BF16_F32, BF16, BF16, AF32, BF16_F32},
    {"f32.tf32.tf32.regA", R_TF32_F32, TF32, TF32, AF32, TF32_F32},
    {"f32.e4m3.e5m2.regA", R_E4E5_F32, E4M3, E5M2, AF32, E4E5_F32},
    {"f16.e5m2.e4m3.regA", R_E5E4_F16, E5M2, E4M3, AF16, E5E4_F16},
    {"s32.s8.u8.regA", R_S8U8, S8, U8, AS32, S8U8},
};

static int type_size(Type t) {
  return t == F16 || t == BF16 ? 2 : t == TF32 ? 4 : 1;
}

// Exponent and mantissa bits of the floating-point types (tf32 as f32).
static void format(Type t, int &e, int &m) {
  switch (t) {
  case F16:
    e = 5, m = 10;
    break;
  case BF16:
    e = 8, m = 7;
    break;
  case E4M3:
    e = 4, m = 3;
    break;
  case E5M2:
    e = 5, m = 2;
    break;
  default:
    e = 8, m = 23;
  }
}

// The bits of a small integer (|v| <= 16) in a format of e exponent and m
// mantissa bits.
static uint32_t encode_int(int v, int e, int m) {
  if (v == 0)
    return 0;
  uint32_t sign = v < 0 ? 1u << (e + m) : 0;
  int a = v < 0 ? -v : v, x = 0;
  while ((a >> (x + 1)) != 0)
    ++x;
  uint32_t man = (uint32_t(a) << m >> x) - (1u << m);
  uint32_t bias = (1u << (e - 1)) - 1;
  return sign | (bias + x) << m | man;
}

struct Rng {
  uint64_t s;
  uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(s >> 33);
  }
  int range(int lo, int hi) { return lo + int(next() % uint32_t(hi - lo + 1)); }
};

// Bits of a format with e exponent and m mantissa bits: zeros, denormals,
// exponents near 1 and spread widely, and (`specials`) infinities, NaNs and
// any exponent.
static uint32_t wild_bits(Rng &r, int e, int m, bool specials) {
  uint32_t sign = r.next() & 1, cat = r.next() % 32;
  uint32_t emax = (1u << e) - 1, bias = emax >> 1;
  uint32_t man = m >= 32 ? r.next() : r.next() & ((1u << m) - 1), ex;
  uint32_t spread = emax / 4 > 12 ? 12 : emax / 4;
  if (!specials && (cat == 4 || cat == 5))
    cat = 6;
  switch (cat) {
  case 0:
    ex = 0, man = 0;
    break;
  case 1:
    ex = 0, man = man ? man : 1;
    break;
  case 2:
  case 3:
    ex = specials ? 1 + r.next() % (emax - 1)
                  : bias - emax / 4 + r.next() % (emax / 2 + 1);
    break;
  case 4:
    ex = emax, man = 0;
    break;
  case 5:
    ex = emax, man = man ? man : 1;
    break;
  case 6:
  case 7:
  case 8:
  case 9:
  case 10:
  case 11:
    ex = bias - spread + r.next() % (2 * spread + 1);
    break;
  default:
    ex = bias - 3 + r.next() % 7;
  }
  return sign << (e + m) | ex << m | man;
}

static void put(std::vector<uint8_t> &v, size_t at, uint32_t bits, int size) {
  for (int i = 0; i < size; ++i)
    v[at + i] = uint8_t(bits >> (8 * i));
}

// f16 bits to float (every value, for the checks).
static float half_to_float(uint32_t h) {
  uint32_t s = h >> 15 & 1, e = h >> 10 & 31, m = h & 1023;
  float v = e == 0    ? std::ldexp(float(m), -24)
            : e == 31 ? (m ? NAN : INFINITY)
                      : std::ldexp(float(1024 + m), int(e) - 25);
  return s ? -v : v;
}

// The (row, column) of accumulator word j of thread t; `half` 0 or 1 for
// the f16 accumulator's two values of a word.
static void position(Acc acc, int t, int j, int half, int &row, int &col) {
  int w = t / 32, g = (t % 32) / 4, q = t % 4;
  if (acc == AF16) {
    row = 16 * w + g + 8 * (j % 2);
    col = 8 * (j / 2) + 2 * q + half;
  } else {
    row = 16 * w + g + 8 * (j % 4 / 2);
    col = 8 * (j / 4) + 2 * q + j % 2;
  }
}

// The data of one case: A, B (bytes), C (register order) and the host's
// value of D for the tame set.
struct Data {
  std::vector<uint8_t> a = std::vector<uint8_t>(M * KB),
                       b = std::vector<uint8_t>(N * KB);
  std::vector<uint32_t> c = std::vector<uint32_t>(128 * 8);
  std::vector<double> want = std::vector<double>(M * N);
};

static Data make(const Case &cs, bool tame, uint64_t seed) {
  Data d;
  Rng r{seed};
  int sa = type_size(cs.a), sb = type_size(cs.b);
  int K = KB / sa;
  std::vector<int> ia(M * K), ib(N * K), ic(M * N);
  auto fill = [&](std::vector<uint8_t> &v, std::vector<int> &iv, Type t,
                  int rows) {
    int size = type_size(t), e, m;
    format(t, e, m);
    bool integer = t == S8 || t == U8;
    for (int row = 0; row < rows; ++row)
      for (int k = 0; k < K; ++k) {
        uint32_t bits;
        int x = 0;
        if (integer) {
          bits = r.next() & 0xff;
          if (r.next() % 8 == 0)
            bits = r.next() & 1 ? 0x80 : 0x7f;
          x = t == S8 ? int(int8_t(bits)) : int(bits);
        } else if (tame) {
          int lim = (t == E4M3 || t == E5M2) ? 4 : 8;
          x = r.range(-lim, lim);
          bits = encode_int(x, e, m);
        } else {
          // Infinities and NaNs in the first 4 rows of A and the first
          // column of B only; tf32 has its 13 low bits random too.
          bits = wild_bits(r, e, m, row < rows / 16);
        }
        iv[row * K + k] = x;
        put(v, size_t(row) * KB + size_t(k) * size, bits, size);
      }
  };
  fill(d.a, ia, cs.a, M);
  fill(d.b, ib, cs.b, N);
  // Cancellation (wild floating-point data): in every 4th row of A the
  // second half of K is the first half negated; in even columns of B the
  // second half repeats the first.
  if (!tame && cs.a != S8 && cs.a != U8) {
    int half = KB / 2;
    int sign_byte = sa - 1;
    for (int row = 3; row < M; row += 4)
      for (int i = 0; i < half; ++i) {
        d.a[row * KB + half + i] = d.a[row * KB + i];
        if (i % sa == sign_byte)
          d.a[row * KB + half + i] ^= 0x80;
      }
    for (int col = 0; col < N; col += 2)
      for (int i = 0; i < half; ++i)
        d.b[col * KB + half + i] = d.b[col * KB + i];
  }
  // C: in register order.
  for (int t = 0; t < 128; ++t)
    for (int j = 0; j < 8; ++j) {
      uint32_t word = 0;
      int halves = cs.acc == AF16 ? 2 : 1;
      if (cs.acc == AF16 && j >= 4)
        break;
      for (int h = 0; h < halves; ++h) {
        int row, col;
        position(cs.acc, t, j, h, row, col);
        uint32_t bits;
        int x = tame ? r.range(-64, 64) : 0;
        if (cs.acc == AS32) {
          // Tame: small enough that no sum overflows.
          bits = tame ? uint32_t(r.range(-(1 << 20), 1 << 20)) : r.next();
          if (!tame && r.next() % 4 == 0)
            bits = 0x7fffffffu - (r.next() % 4096);
          if (tame)
            x = int(bits);
        } else if (cs.acc == AF16) {
          bits = tame ? encode_int(x / 4, 5, 10)
                      : wild_bits(r, 5, 10, row >= 4 && row < 8);
          x /= 4;
        } else {
          bits = tame ? encode_int(x / 4, 8, 23)
                      : wild_bits(r, 8, 23, row >= 4 && row < 8);
          x /= 4;
        }
        ic[row * N + col] = x;
        word |= cs.acc == AF16 ? (bits & 0xffff) << (16 * h) : bits;
      }
      d.c[t * 8 + j] = word;
    }
  if (tame) {
    for (int row = 0; row < M; ++row)
      for (int col = 0; col < N; ++col) {
        double s = ic[row * N + col];
        for (int k = 0; k < K; ++k)
          s += double(ia[row * K + k]) * ib[col * K + k];
        d.want[row * N + col] = s;
      }
  }
  return d;
}

int main() {
  const auto kernels = kernel_table(std::make_integer_sequence<int, kOps>());
  uint8_t *dA, *dB;
  uint32_t *dC, *dD;
  CHECK(cudaMalloc(&dA, M * KB));
  CHECK(cudaMalloc(&dB, N * KB));
  CHECK(cudaMalloc(&dC, 128 * 8 * 4));
  CHECK(cudaMalloc(&dD, 128 * 8 * 4));
  // D of each descriptor-A case per data set, for the register-A cases.
  std::vector<std::vector<uint32_t>> results[2];
  results[0].resize(kOps);
  results[1].resize(kOps);
  for (const Case &cs : kCases)
    for (int set = 0; set < 2; ++set) {
      bool tame = set == 0;
      // The register-A case repeats its descriptor-A case's data.
      int data_op = cs.reg_of >= 0 ? cs.reg_of : cs.op;
      Data d = make(cs, tame, 0x9e3779b97f4a7c15ull * (data_op + 1) + set);
      CHECK(cudaMemcpy(dA, d.a.data(), d.a.size(), cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(dB, d.b.data(), d.b.size(), cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(dC, d.c.data(), d.c.size() * 4, cudaMemcpyHostToDevice));
      CHECK(cudaMemset(dD, 0, 128 * 8 * 4));
      kernels[cs.op]<<<1, 128>>>(dA, dB, dC, dD);
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      std::vector<uint32_t> out(128 * 8);
      CHECK(cudaMemcpy(out.data(), dD, out.size() * 4, cudaMemcpyDeviceToHost));
      results[set][cs.op] = out;
      // D by row and column.
      std::vector<uint32_t> dm(M * N);
      for (int t = 0; t < 128; ++t)
        for (int j = 0; j < 8; ++j)
          for (int h = 0; h < (cs.acc == AF16 ? 2 : 1); ++h) {
            if (cs.acc == AF16 && j >= 4)
              continue;
            int row, col;
            position(cs.acc, t, j, h, row, col);
            dm[row * N + col] = cs.acc == AF16
                                    ? out[t * 8 + j] >> (16 * h) & 0xffff
                                    : out[t * 8 + j];
          }
      std::printf("%s %s:\n", cs.name, tame ? "tame" : "wild");
      for (int row = 0; row < M; ++row) {
        std::printf("%02d:", row);
        for (int col = 0; col < N; ++col)
          std::printf(cs.acc == AF16 ? " %04x" : " %08x", dm[row * N + col]);
        std::printf("\n");
      }
      std::fflush(stdout);
      int wrong = 0;
      if (tame)
        for (int i = 0; i < M * N; ++i) {
          double got;
          if (cs.acc == AS32) {
            double w = d.want[i];
            // s32 wraps; .satfinite clamps.
            if (cs.op == S8S8_SAT)
              w = w > 2147483647.0    ? 2147483647.0
                  : w < -2147483648.0 ? -2147483648.0
                                      : w;
            else
              w = double(int32_t(uint32_t(int64_t(w))));
            got = double(int32_t(dm[i]));
            wrong += got != w;
            continue;
          }
          if (cs.acc == AF16)
            got = half_to_float(dm[i]);
          else {
            float f;
            std::memcpy(&f, &dm[i], 4);
            got = f;
          }
          wrong += got != d.want[i];
        }
      if (cs.reg_of >= 0 && out != results[set][cs.reg_of]) {
        std::printf("%s %s: register A differs from descriptor A\n", cs.name,
                    tame ? "tame" : "wild");
        ++wrong;
      }
      if (wrong)
        std::printf("%s %s: %d elements differ from the host\n", cs.name,
                    tame ? "tame" : "wild", wrong);
      EXPECT(wrong == 0);
    }
  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dC));
  CHECK(cudaFree(dD));
  return finish("wgmma_numerics");
}
