// wmma_gemm: C = A * B with the CUDA wmma API (wmma.load / wmma.mma /
// wmma.store), one kernel per element type: f16 with f32 and with f16
// accumulators (m16n16k16; also m32n8k16 and m8n32k16 for f16/f32), bf16
// (m16n16k16), tf32 (m16n16k8), f64 (m8n8k4), s8 and u8 (m16n16k16, s32).
// M = N = K = 32; one warp per output tile. Tiles go through shared
// memory: A row-major, B column-major (a [n][k] copy), C stored twice:
// row-major (C) and column-major (Ct). Inputs: A[i][k] = v(131 i + 71 k),
// B[k][j] = v(29 k + 113 j) with v(x) = (x % 9 - 4) / 4 for the float
// types (products and sums exact in every accumulator type), x % 255 - 127
// for s8, x % 256 for u8.
// Launch: -g 32/TN,32/TM -b 32, C = T[1024], Ct = T[1024].
#include <mma.h>

using namespace nvcuda;
constexpr int kS = 32; // M = N = K

template <class T> __device__ T val(int x);
template <> __device__ half val<half>(int x) {
  return __float2half_rn((x % 9 - 4) / 4.0f);
}
template <> __device__ __nv_bfloat16 val<__nv_bfloat16>(int x) {
  return __float2bfloat16_rn((x % 9 - 4) / 4.0f);
}
template <> __device__ float val<float>(int x) { return (x % 9 - 4) / 4.0f; }
template <> __device__ double val<double>(int x) { return (x % 9 - 4) / 4.0; }
template <> __device__ signed char val<signed char>(int x) {
  return static_cast<signed char>(x % 255 - 127);
}
template <> __device__ unsigned char val<unsigned char>(int x) {
  return static_cast<unsigned char>(x % 256);
}

// In: the element type in memory; Frag: the wmma fragment element type.
template <int M, int N, int K, class In, class Frag, class Acc>
__device__ void gemm(Acc *C, Acc *Ct) {
  __shared__ __align__(32) In As[M * K];
  __shared__ __align__(32) In Bs[N * K]; // column-major: [n][k]
  const int m0 = blockIdx.y * M, n0 = blockIdx.x * N;
  wmma::fragment<wmma::matrix_a, M, N, K, Frag, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, M, N, K, Frag, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, M, N, K, Acc> c;
  wmma::fill_fragment(c, Acc(0));
  for (int k0 = 0; k0 < kS; k0 += K) {
    for (int e = threadIdx.x; e < M * K; e += 32)
      As[e] = val<In>(131 * (m0 + e / K) + 71 * (k0 + e % K));
    for (int e = threadIdx.x; e < N * K; e += 32)
      Bs[e] = val<In>(29 * (k0 + e % K) + 113 * (n0 + e / K));
    __syncwarp();
    wmma::load_matrix_sync(a, As, K);
    wmma::load_matrix_sync(b, Bs, K);
    wmma::mma_sync(c, a, b, c);
    __syncwarp();
  }
  wmma::store_matrix_sync(C + m0 * kS + n0, c, kS, wmma::mem_row_major);
  wmma::store_matrix_sync(Ct + n0 * kS + m0, c, kS, wmma::mem_col_major);
}

extern "C" __global__ void wmma_f16_f32(float *C, float *Ct) {
  gemm<16, 16, 16, half, half, float>(C, Ct);
}
extern "C" __global__ void wmma_f16_f16(half *C, half *Ct) {
  gemm<16, 16, 16, half, half, half>(C, Ct);
}
extern "C" __global__ void wmma_f16_m32n8(float *C, float *Ct) {
  gemm<32, 8, 16, half, half, float>(C, Ct);
}
extern "C" __global__ void wmma_f16_m8n32(float *C, float *Ct) {
  gemm<8, 32, 16, half, half, float>(C, Ct);
}
extern "C" __global__ void wmma_bf16(float *C, float *Ct) {
  gemm<16, 16, 16, __nv_bfloat16, __nv_bfloat16, float>(C, Ct);
}
extern "C" __global__ void wmma_tf32(float *C, float *Ct) {
  gemm<16, 16, 8, float, wmma::precision::tf32, float>(C, Ct);
}
extern "C" __global__ void wmma_f64(double *C, double *Ct) {
  gemm<8, 8, 4, double, double, double>(C, Ct);
}
extern "C" __global__ void wmma_s8(int *C, int *Ct) {
  gemm<16, 16, 16, signed char, signed char, int>(C, Ct);
}
extern "C" __global__ void wmma_u8(int *C, int *Ct) {
  gemm<16, 16, 16, unsigned char, unsigned char, int>(C, Ct);
}
