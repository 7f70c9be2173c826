// Tensor maps and TMA copies under bcusim exec: a 2-D tensor map encoded
// with cuTensorMapEncodeTiled obtained through cudaGetDriverEntryPoint
// (128-byte swizzle), tiles loaded with cp.async.bulk.tensor completing on
// an mbarrier, the swizzle undone by the kernel, partial tiles zero-filled;
// a second map encoded by calling cuTensorMapEncodeTiled directly (-lcuda)
// receives tiles written back with the tensor store. Invalid parameters
// return CUDA_ERROR_INVALID_VALUE.
#include <cstdint>
#include <cstring>
#include <cuda.h>
#include <vector>

#include "common.h"

constexpr int kRows = 48, kCols = 80, kBoxX = 32, kBoxY = 8;

__device__ uint32_t smem_addr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// The 128-byte swizzle: chunk c (16 bytes) of the row at byte offset o
// lies at chunk c ^ ((o >> 7) & 7); a tile row is 128 bytes here.
__device__ int swizzled(int r, int c) {
  return r * kBoxX + ((((c / 4) ^ (r & 7)) * 4) | (c & 3));
}

__global__ void load_tiles(const __grid_constant__ CUtensorMap tm, float *out,
                           int *nonzero_fill) {
  __shared__ alignas(1024) float tile[kBoxY * kBoxX];
  __shared__ alignas(8) uint64_t bar;
  int x0 = blockIdx.x * kBoxX, y0 = blockIdx.y * kBoxY;
  uint32_t b = smem_addr(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;");
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b),
        "r"(int(sizeof tile)));
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile"
        ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            smem_addr(tile)),
        "l"(&tm), "r"(x0), "r"(y0), "r"(b)
        : "memory");
  }
  __syncthreads();
  asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta"
               ".b64 p, [%0], 0;\n @!p bra W;\n}" ::"r"(b)
               : "memory");
  int r = threadIdx.x / kBoxX, c = threadIdx.x % kBoxX;
  float v = tile[swizzled(r, c)];
  if (y0 + r < kRows && x0 + c < kCols)
    out[(y0 + r) * kCols + x0 + c] = v;
  else if (v != 0.0f)
    atomicAdd(nonzero_fill, 1);
}

__global__ void store_tiles(const __grid_constant__ CUtensorMap tm,
                            const float *in) {
  __shared__ alignas(1024) float tile[kBoxY * kBoxX];
  int x0 = blockIdx.x * kBoxX, y0 = blockIdx.y * kBoxY;
  int r = threadIdx.x / kBoxX, c = threadIdx.x % kBoxX;
  bool inside = y0 + r < kRows && x0 + c < kCols;
  tile[swizzled(r, c)] = inside ? 2.0f * in[(y0 + r) * kCols + x0 + c] : -1.0f;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"
                 " [%0, {%1, %2}], [%3];" ::"l"(&tm),
                 "r"(x0), "r"(y0), "r"(smem_addr(tile))
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}

int main() {
  std::vector<float> h(kRows * kCols);
  for (int i = 0; i < kRows * kCols; ++i)
    h[i] = float(i % 997) + 0.5f;
  float *in, *out, *out2;
  int *bad;
  CHECK(cudaMalloc(&in, h.size() * 4));
  CHECK(cudaMalloc(&out, h.size() * 4));
  CHECK(cudaMalloc(&out2, h.size() * 4));
  CHECK(cudaMalloc(&bad, 4));
  CHECK(cudaMemcpy(in, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, h.size() * 4));
  CHECK(cudaMemset(out2, 0, h.size() * 4));
  CHECK(cudaMemset(bad, 0, 4));

  // The encoder through the runtime.
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                         cudaEnableDefault, &q));
  EXPECT(fn != nullptr && q == cudaDriverEntryPointSuccess);
  void *none = &q;
  CHECK(cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &none, 12000,
                                         cudaEnableDefault, &q));
  EXPECT(none == nullptr && q == cudaDriverEntryPointSymbolNotFound);
  auto encode = reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(fn);
  if (!encode)
    return finish("tma");

  alignas(64) CUtensorMap tm_in, tm_out;
  cuuint64_t dims[2] = {kCols, kRows}, strides[1] = {kCols * 4};
  cuuint32_t box[2] = {kBoxX, kBoxY}, estr[2] = {1, 1};
  EXPECT(encode(&tm_in, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, in, dims, strides,
                box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);
  // Invalid: a stride that is not a multiple of 16, a box wider than the
  // swizzle span, a misaligned address.
  cuuint64_t bad_strides[1] = {kCols * 4 + 4};
  cuuint32_t wide_box[2] = {64, kBoxY};
  alignas(64) CUtensorMap junk;
  EXPECT(encode(&junk, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, in, dims,
                bad_strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(encode(&junk, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, in, dims, strides,
                wide_box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(encode(&junk, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2,
                reinterpret_cast<char *>(in) + 4, dims, strides, box, estr,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_NONE,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_ERROR_INVALID_VALUE);
  // The driver's own entry point (-lcuda).
  EXPECT(cuTensorMapEncodeTiled(
             &tm_out, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, out2, dims, strides,
             box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);

  // The im2col encoder, both ways: an NHWC f32 tensor (C 8, W 10, H 6).
  void *fn2 = nullptr;
  CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeIm2col", &fn2,
                                cudaEnableDefault, &q));
  EXPECT(fn2 != nullptr && q == cudaDriverEntryPointSuccess);
  auto encode_im2col =
      reinterpret_cast<decltype(&cuTensorMapEncodeIm2col)>(fn2);
  cuuint64_t idims[4] = {8, 10, 6, 1}, istrides[3] = {32, 320, 1920};
  cuuint32_t iestr[4] = {1, 1, 1, 1};
  int lower[2] = {-1, -1}, upper[2] = {-1, -1};
  alignas(64) CUtensorMap tm_im2col;
  if (encode_im2col)
    EXPECT(encode_im2col(&tm_im2col, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, in,
                         idims, istrides, lower, upper, 8, 32, iestr,
                         CU_TENSOR_MAP_INTERLEAVE_NONE,
                         CU_TENSOR_MAP_SWIZZLE_NONE,
                         CU_TENSOR_MAP_L2_PROMOTION_NONE,
                         CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);
  EXPECT(cuTensorMapEncodeIm2col(
             &junk, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, in, idims, istrides,
             lower, upper, 8, 32, iestr, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_ERROR_INVALID_VALUE);

  dim3 grid((kCols + kBoxX - 1) / kBoxX, (kRows + kBoxY - 1) / kBoxY);
  load_tiles<<<grid, kBoxX * kBoxY>>>(tm_in, out, bad);
  CHECK(cudaGetLastError());
  store_tiles<<<grid, kBoxX * kBoxY>>>(tm_out, in);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  std::vector<float> o(h.size()), o2(h.size());
  int nbad = -1;
  CHECK(cudaMemcpy(o.data(), out, o.size() * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(o2.data(), out2, o2.size() * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&nbad, bad, 4, cudaMemcpyDeviceToHost));
  int wrong = 0, wrong2 = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    wrong += o[i] != h[i];
    wrong2 += o2[i] != 2.0f * h[i];
  }
  EXPECT(wrong == 0);
  EXPECT(wrong2 == 0);
  EXPECT(nbad == 0);
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(out2));
  CHECK(cudaFree(bad));
  return finish("tma");
}
