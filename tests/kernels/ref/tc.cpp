// References for tests/kernels/tc/*.cu (docs/tensor-cores.md): matrix
// products computed on the host from the same inputs, by the documented
// arithmetic of the tensor-core instructions: each mma step adds the exact
// products of its k slice to the accumulator in double precision, in k
// order, and rounds once into the accumulator type (f64: an fma chain;
// integers: exact). The kernels' inputs make every product and sum exact,
// so the result does not depend on the accumulation order either.
#include "ref_common.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

namespace {

// A row-major M x K times K x N with k slices of `step`, the accumulator
// rounded to Acc after each slice.
template <class Acc, class FA, class FB>
std::vector<Acc> gemm(int M, int N, int K, int step, FA a, FB b) {
  std::vector<Acc> c(size_t(M) * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      Acc acc = 0;
      for (int k0 = 0; k0 < K; k0 += step) {
        if constexpr (std::is_integral_v<Acc>) {
          long long s = acc;
          for (int k = k0; k < k0 + step; ++k)
            s += static_cast<long long>(a(i, k)) *
                 static_cast<long long>(b(k, j));
          acc = static_cast<Acc>(s);
        } else {
          double s = static_cast<double>(acc);
          for (int k = k0; k < k0 + step; ++k)
            s += static_cast<double>(a(i, k)) * static_cast<double>(b(k, j));
          acc = static_cast<Acc>(s);
        }
      }
      c[size_t(i) * N + j] = acc;
    }
  return c;
}

template <class T>
std::vector<T> transpose(const std::vector<T> &c, int M, int N) {
  std::vector<T> t(c.size());
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      t[size_t(j) * M + i] = c[size_t(i) * N + j];
  return t;
}

double a64(int i, int k) { return ((131 * i + 71 * k) % 17 - 8) / 8.0; }
double b64(int k, int j) { return ((29 * k + 113 * j) % 13 - 6) / 4.0; }

void mma_gemm() {
  auto c = gemm<float>(64, 64, 64, 16, a64, b64);
  kref::print_buffer(c); // ldmatrix B from the [n][k] copy
  kref::print_buffer(c); // ldmatrix.trans B from the [k][n] tile
}

std::vector<double> read_f16(const char *path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)),
                          std::istreambuf_iterator<char>());
  std::vector<double> v(bytes.size() / 2);
  for (size_t i = 0; i < v.size(); ++i) {
    _Float16 h;
    std::memcpy(&h, bytes.data() + 2 * i, 2);
    v[i] = static_cast<double>(h);
  }
  return v;
}

void pipeline_gemm(int argc, char **argv) {
  if (argc < 4)
    kref::unknown_case("pipeline_gemm needs the A and B files");
  auto A = read_f16(argv[2]), B = read_f16(argv[3]);
  auto c = gemm<float>(
      64, 64, 64, 16, [&](int i, int k) { return A[size_t(i) * 64 + k]; },
      [&](int k, int j) { return B[size_t(k) * 64 + j]; });
  kref::print_buffer(c);
}

// wmma_gemm.cu: 32 x 32 x 32, A[i][k] = v(131 i + 71 k), B[k][j] =
// v(29 k + 113 j); C row-major, then column-major.
double vf(int x) { return (x % 9 - 4) / 4.0; }
template <class Acc, class V> void wmma_case(int step, V v) {
  auto c = gemm<Acc>(
      32, 32, 32, step, [&](int i, int k) { return v(131 * i + 71 * k); },
      [&](int k, int j) { return v(29 * k + 113 * j); });
  kref::print_buffer(c);
  kref::print_buffer(transpose(c, 32, 32));
}

void wmma_f16_f16() {
  // f16 accumulators, dumped as their bit patterns (u16).
  auto c = gemm<float>(
      32, 32, 32, 16, [](int i, int k) { return vf(131 * i + 71 * k); },
      [](int k, int j) { return vf(29 * k + 113 * j); });
  auto bits = [](const std::vector<float> &v) {
    std::vector<uint16_t> out;
    for (float x : v) {
      _Float16 h = static_cast<_Float16>(x); // exact (see wmma_gemm.cu)
      uint16_t b;
      std::memcpy(&b, &h, 2);
      out.push_back(b);
    }
    return out;
  };
  kref::print_buffer(bits(c));
  kref::print_buffer(bits(transpose(c, 32, 32)));
}

// mma_shapes.cu: D = A B + C for each shape, from the kernel's formulas.
double fa(int i, int k) { return ((i * 7 + k * 5) % 11 - 5) / 4.0; }
double fb(int k, int j) { return ((k * 3 + j * 13) % 7 - 3) / 2.0; }
double fc(int i, int j) { return double((i + 2 * j) % 5 - 2); }
long long ia(int i, int k) { return (i * 37 + k * 11) % 255 - 127; }
long long ib(int k, int j) { return (k * 19 + j * 53) % 255 - 127; }
long long ua(int i, int k) { return (i * 37 + k * 11) % 256; }
long long ic(int i, int j) { return i * 1000 - j * 777; }

template <class T, class A, class B, class C>
void mma_ref(std::vector<T> &out, int M, int N, int K, A a, B b, C c,
             bool sat = false) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      if constexpr (std::is_integral_v<T>) {
        long long s = c(i, j);
        for (int k = 0; k < K; ++k)
          s += a(i, k) * b(k, j);
        if (sat)
          s = std::clamp<long long>(s, INT32_MIN, INT32_MAX);
        out.push_back(static_cast<T>(static_cast<uint32_t>(s)));
      } else {
        double s = c(i, j);
        for (int k = 0; k < K; ++k)
          s += a(i, k) * b(k, j);
        out.push_back(static_cast<T>(s));
      }
    }
}

void mma_shapes() {
  std::vector<float> f;
  for (int K : {16, 16, 8, 8, 4, 16}) // f16, bf16, f16 k8, tf32 k8, k4, f16 acc
    mma_ref(f, 16, 8, K, fa, fb, fc);
  std::vector<double> d;
  mma_ref(d, 8, 8, 4, fa, fb, fc);
  std::vector<int> n;
  mma_ref(n, 16, 8, 32, ia, ib, ic);
  mma_ref(n, 16, 8, 16, ua, ib, ic);
  mma_ref(n, 8, 8, 16, ia, ib, ic);
  mma_ref(
      n, 16, 8, 32, ia, ib,
      [](int i, int j) {
        return (j % 2 ? -2147483000LL : 2147483000LL) + ic(i, j) % 100;
      },
      true);
  kref::print_buffer(f);
  kref::print_buffer(d);
  kref::print_buffer(n);
}

// matrix_moves.cu: M_q[r][c] = 1000 q + 8 r + c; see the kernel for the
// order of the outputs.
// stmatrix_round_trip.cu: lane l's register i holds v = 256 + 8 l + 2 i +
// h in half h; the fragment's element (row l / 4, column 2 (l % 4) + h);
// .trans stores it at (column, row).
void stmatrix_round_trip() {
  std::vector<uint16_t> out;
  auto v = [](int lane, int reg, int half) {
    return uint16_t(256 + 8 * lane + 2 * reg + half);
  };
  for (int i = 0; i < 4; ++i) // .x4: matrix i, row r, column c
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 8; ++c)
        out.push_back(v(4 * r + c / 2, i, c % 2));
  for (int i = 0; i < 2; ++i) // .x2.trans: stored row R = fragment column
    for (int R = 0; R < 8; ++R)
      for (int C = 0; C < 8; ++C)
        out.push_back(v(4 * C + R / 2, i, R % 2));
  for (int l = 0; l < 32; ++l) // ldmatrix gives the registers back
    for (int i = 0; i < 6; ++i)
      for (int h = 0; h < 2; ++h)
        out.push_back(v(l, i < 4 ? i : i - 4, h));
  kref::print_buffer(out);
}

void matrix_moves() {
  std::vector<uint16_t> out;
  auto mat = [&](int q, bool trans) {
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 8; ++c)
        out.push_back(uint16_t(1000 * q + (trans ? 8 * c + r : 8 * r + c)));
  };
  mat(0, true);  // movmatrix.trans
  mat(0, false); // stmatrix.x1
  mat(0, true);  // stmatrix.x1.trans
  for (int q = 0; q < 4; ++q)
    mat(q, false); // stmatrix.x4
  for (int q = 0; q < 4; ++q)
    mat(q, true); // ldmatrix.x4.trans
  mat(0, false);  // ldmatrix.x2
  mat(1, false);
  kref::print_buffer(out);
}

// mma_subbyte.cu: s4/u4 products and b1 popcounts, D row-major per form.
int sa4(int i, int k) { return (i * 5 + k * 3) % 16 - 8; }
int sb4(int k, int j) { return (k * 7 + j * 11) % 16 - 8; }
int su4(int i, int k) { return (i * 9 + k * 13) % 16; }
int sa1(int i, int k) { return (i * 7 + k * 3) % 5 < 2 ? 1 : 0; }
int sb1(int k, int j) { return (k * 5 + j * 3) % 7 < 3 ? 1 : 0; }
int scc(int i, int j) { return i * 100 - j * 7; }

// op: 0 multiply, 1 AND, 2 XOR (b1 .popc: the sum counts the bits).
template <class A, class B, class C>
void sub_ref(std::vector<int> &out, int M, int K, A a, B b, C c, int op) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < 8; ++j) {
      long long s = c(i, j);
      for (int k = 0; k < K; ++k) {
        int x = a(i, k), y = b(k, j);
        s += op == 0 ? x * y : op == 1 ? (x & y) : (x ^ y);
      }
      out.push_back(int(s));
    }
}

void mma_subbyte() {
  std::vector<int> out;
  sub_ref(out, 8, 32, sa4, sb4, scc, 0);
  sub_ref(out, 16, 32, su4, sb4, scc, 0);
  sub_ref(out, 16, 64, sa4, sb4, scc, 0);
  sub_ref(out, 8, 128, sa1, sb1, scc, 2);
  sub_ref(out, 16, 128, sa1, sb1, scc, 1);
  sub_ref(out, 16, 256, sa1, sb1, scc, 2);
  sub_ref(
      out, 8, 32, sa4, sb4, [](int, int) { return 5; }, 0);
  // wmma b1: C is the first 8 rows of the m16n8k128 result
  const std::vector<int> c128(out.begin() + 384, out.begin() + 448);
  sub_ref(
      out, 8, 128, sa1, sb1, [&](int i, int j) { return c128[i * 8 + j]; }, 2);
  kref::print_buffer(out);
}

// mma_fp8.cu: the formulas of mma_shapes, K = 32, three forms.
void mma_fp8() {
  std::vector<float> f;
  for (int form = 0; form < 3; ++form)
    mma_ref(f, 16, 8, 32, fa, fb, fc);
  kref::print_buffer(f);
}

// wgmma.cu: D (64 x N, row-major) = s A B + C of each kernel, s = -1 for
// imm-scale-a -1, C = 0 for scale-d 0 (3 fc for s32). The kernels' layouts
// and fragments only move elements, so the product of the formulas is what
// every correct kernel prints.
struct WgmmaCase {
  const char *name;
  int n, k;
  char family; // 'f' float (fa, fb), 'i' s8 x s8, 'u' u8 x s8, 'b' b1
  bool scale_d;
  int scale_a;
  char sparse = 0; // wgmma_sp.cu: '2' 2:4, 't' tf32 1:2
};
// wgmma_sp.cu's sparsity pattern: whether element k of row i is kept (the
// others are the zeros of the structured-sparse A).
bool sparse_kept(char sparse, int i, int k) {
  if (sparse == 't')
    return k % 2 == (i + k / 2) % 2;
  static const int kPairs[6][2] = {{0, 1}, {0, 2}, {0, 3},
                                   {1, 2}, {1, 3}, {2, 3}};
  const int *p = kPairs[(3 * i + k / 4) % 6];
  return k % 4 == p[0] || k % 4 == p[1];
}
const WgmmaCase kWgmma[] = {
    {"wgmma_f16_reg_n8", 8, 16, 'f', true, 1},
    {"wgmma_f16_sw128_n64", 64, 16, 'f', true, 1},
    {"wgmma_bf16_sw64_n256", 256, 16, 'f', true, 1},
    {"wgmma_f16_trans_sw32", 64, 16, 'f', true, 1},
    {"wgmma_f16_trans_none", 16, 16, 'f', false, 1},
    {"wgmma_f16_regtb_sw128", 32, 16, 'f', true, 1},
    {"wgmma_tf32_reg_n32", 32, 8, 'f', true, -1},
    {"wgmma_fp8_none_n24", 24, 32, 'f', true, 1},
    {"wgmma_fp8_f16_sw32", 16, 32, 'f', true, 1},
    {"wgmma_s8_sw64_n48", 48, 32, 'i', true, 1},
    {"wgmma_u8_reg_n16", 16, 32, 'u', true, 1},
    {"wgmma_b1_none_n16", 16, 256, 'b', true, 1},
    {"wgmma_sp_f16_reg_n16", 16, 32, 'f', true, 1, '2'},
    {"wgmma_sp_bf16_desc_n8", 8, 32, 'f', true, 1, '2'},
    {"wgmma_sp_f16_trans_n16", 16, 32, 'f', true, 1, '2'},
    {"wgmma_sp_tf32_reg_n8", 8, 16, 'f', false, -1, 't'},
    {"wgmma_sp_e4m3_desc_n16", 16, 64, 'f', true, 1, '2'},
    {"wgmma_sp_u8_reg_n24", 24, 64, 'u', true, 1, '2'},
};
bool wgmma_case(std::string_view name) {
  for (const auto &w : kWgmma) {
    if (name != w.name)
      continue;
    auto a = [&](int i, int k) -> double {
      if (w.sparse && !sparse_kept(w.sparse, i, k))
        return 0;
      switch (w.family) {
      case 'f':
        return fa(i, k);
      case 'i':
        return (i * 7 + k * 5) % 11 - 5;
      case 'u':
        return (i * 7 + k * 5) % 200;
      default:
        return (i * 7 + k * 5) % 3 == 0;
      }
    };
    auto b = [&](int k, int j) -> double {
      if (w.family == 'f')
        return fb(k, j);
      if (w.family == 'b')
        return (k * 3 + j * 13) % 5 < 2;
      return (k * 3 + j * 13) % 7 - 3;
    };
    std::vector<float> out;
    for (int i = 0; i < 64; ++i)
      for (int j = 0; j < w.n; ++j) {
        double d = 0;
        if (w.scale_d)
          d = w.family == 'f' ? fc(i, j) : 3 * fc(i, j);
        for (int k = 0; k < w.k; ++k)
          d += w.scale_a * a(i, k) * b(k, j);
        out.push_back(float(d));
      }
    kref::print_buffer(out);
    return true;
  }
  return false;
}

// mma_rounding.cu on the H100 (conformance launch `mma_rounding`,
// ../shared/hardware/conformance/h100-outputs.tar.gz, mma_rounding.out):
// what the hardware printed, and the accumulation rule of
// docs/tensor-cores.md "Arithmetic", computed here independently, which
// must reproduce it (the reference fails otherwise).
const float kMmaRoundingH100[128] = {
    1055.7194f, 1068.2178f, 1059.3467f, 1097.8895f, 1092.7698f, 1068.7861f,
    1083.4409f, 1072.4669f, 1056.4618f, 1093.9368f, 1091.5657f, 1066.8276f,
    1082.0675f, 1069.7567f, 1113.3634f, 1110.9434f, 1085.7659f, 1065.8224f,
    1085.4332f, 1068.0902f, 1112.2454f, 1105.3553f, 1079.7714f, 1102.709f,
    1079.8231f, 1068.6654f, 1121.1324f, 1102.0725f, 1084.6074f, 1097.0391f,
    1083.224f,  1144.2766f, 1111.7814f, 1103.5447f, 1110.5594f, 1096.6276f,
    1095.81f,   1134.5435f, 1125.4415f, 1131.0643f, 1099.5162f, 1106.4817f,
    1152.043f,  1135.9052f, 1151.5845f, 1118.6792f, 1127.4553f, 1179.5189f,
    1124.6584f, 1126.2931f, 1133.7266f, 1112.4121f, 1116.5616f, 1147.6622f,
    1150.604f,  1159.2083f, 1087.1661f, 1102.5768f, 1091.6783f, 1138.53f,
    1132.8799f, 1102.8572f, 1120.9418f, 1107.4742f, 1087.3527f, 1132.7522f,
    1130.375f,  1099.6527f, 1118.3434f, 1103.2986f, 1156.1245f, 1153.8048f,
    1122.3551f, 1097.6443f, 1121.4895f, 1100.4635f, 1153.7473f, 1145.9476f,
    1114.2892f, 1142.1935f, 1113.8215f, 1100.3558f, 1163.3864f, 1140.9894f,
    1119.2538f, 1134.3678f, 1117.7084f, 1191.0491f, 1151.1107f, 1141.7576f,
    1149.3566f, 1132.9877f, 1131.8749f, 1178.195f,  1167.9438f, 1173.703f,
    1135.1112f, 1143.8159f, 1197.733f,  1178.811f,  1197.9093f, 1157.7227f,
    1168.6923f, 1230.2941f, 1163.837f,  1166.4094f, 1175.4171f, 1149.4387f,
    1154.7211f, 1190.8807f, 1195.1486f, 1205.6136f, 1118.6128f, 1136.9358f,
    1124.01f,   1179.1703f, 1172.99f,   1136.9281f, 1158.4427f, 1142.4813f,
    1118.2434f, 1171.5675f, 1169.1842f, 1132.4777f, 1154.6191f, 1136.8402f,
    1198.8855f, 1196.6661f};

// The rule for one f16 x f16 + f32 block of 16 products: every term (C and
// the products) truncated toward zero to a multiple of 2^(E - 25), E the
// largest exponent (C's, or the sum of a product's factors' exponents) of
// the nonzero terms; the exact sum of the truncated terms truncated to f32.
float block_fma(float c, const double *a, const double *b) {
  int e = c != 0 ? std::ilogb(c) : INT_MIN;
  for (int k = 0; k < 16; ++k)
    if (a[k] != 0 && b[k] != 0)
      e = std::max(e, std::ilogb(a[k]) + std::ilogb(b[k]));
  const int q = e - 25;
  long long sum = (long long)std::trunc(std::ldexp(double(c), -q));
  for (int k = 0; k < 16; ++k)
    sum += (long long)std::trunc(std::ldexp(a[k] * b[k], -q));
  // |sum| < 2^31: exact in a double; toward zero into f32 by hand.
  const double v = std::ldexp(double(sum), q);
  float f = float(v);
  if (std::fabs(double(f)) > std::fabs(v))
    f = std::nextafter(f, 0.0f);
  return f;
}

void mma_rounding() {
  auto a = [](int i, int k) {
    return std::ldexp(1.0 + ((37 * i + 11 * k) % 1024) / 1024.0,
                      (i + k) % 7 - 3);
  };
  auto b = [](int k, int j) {
    return std::ldexp(1.0 + ((29 * k + 53 * j) % 1024) / 1024.0,
                      (k + 2 * j) % 5 - 2);
  };
  std::vector<float> out;
  int differ = 0;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      volatile float c = 1000.0f + float(i * 8 + j) / 3.0f;
      double ra[16], rb[16];
      for (int k = 0; k < 16; ++k) {
        ra[k] = a(i, k);
        rb[k] = b(k, j);
      }
      const float d = block_fma(c, ra, rb), hw = kMmaRoundingH100[i * 8 + j];
      if (d != hw) {
        std::fprintf(stderr, "mma_rounding: D[%d][%d]: rule %.9g, H100 %.9g\n",
                     i, j, double(d), double(hw));
        ++differ;
      }
      out.push_back(hw);
    }
  if (differ)
    std::exit(1);
  kref::print_buffer(out);
}

} // namespace

int main(int argc, char **argv) {
  const std::string_view name = argc > 1 ? argv[1] : "";
  if (name == "mma_gemm")
    mma_gemm();
  else if (name == "mma_shapes")
    mma_shapes();
  else if (name == "matrix_moves")
    matrix_moves();
  else if (name == "stmatrix_round_trip")
    stmatrix_round_trip();
  else if (name == "mma_subbyte")
    mma_subbyte();
  else if (name == "mma_fp8")
    mma_fp8();
  else if (wgmma_case(name))
    ;
  else if (name == "mma_rounding")
    mma_rounding();
  else if (name == "pipeline_gemm")
    pipeline_gemm(argc, argv);
  else if (name == "wmma_f16_f32" || name == "wmma_f16_m32n8" ||
           name == "wmma_f16_m8n32" || name == "wmma_bf16")
    wmma_case<float>(16, vf);
  else if (name == "wmma_tf32")
    wmma_case<float>(8, vf);
  else if (name == "wmma_f64")
    wmma_case<double>(4, vf);
  else if (name == "wmma_f16_f16")
    wmma_f16_f16();
  else if (name == "wmma_s8")
    wmma_case<int>(16, [](int x) { return x % 255 - 127; });
  else if (name == "wmma_u8")
    wmma_case<int>(16, [](int x) { return x % 256; });
  else
    kref::unknown_case(name);
  return 0;
}
