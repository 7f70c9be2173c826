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

} // namespace

int main(int argc, char **argv) {
  const std::string_view name = argc > 1 ? argv[1] : "";
  if (name == "mma_gemm")
    mma_gemm();
  else if (name == "mma_shapes")
    mma_shapes();
  else if (name == "matrix_moves")
    matrix_moves();
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
