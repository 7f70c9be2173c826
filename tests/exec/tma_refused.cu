// Tensor copies the H100 refuses (docs/hopper.md "TMA copies"): a tile-mode
// load whose dimension-0 start is not a multiple of 16 bytes (`load`: an
// f32 box at x = 2) and a tensor store starting at a negative dimension-0
// coordinate (`store`: x = -4). On the H100 the launch fails with
// cudaErrorIllegalInstruction; so it must under bcusim. The argument picks
// the copy (the error is sticky: one per process); `load 0` and
// `store 0` start at x = 0 and must succeed.
// Build: nvcc -arch=sm_90a -cudart shared -lcuda. Arguments: load|store [X].
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda.h>

#include "common.h"

constexpr int W = 32, H = 8, BX = 8, BY = 4;

__device__ uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void load(const __grid_constant__ CUtensorMap tm, int x,
                     float *out) {
  __shared__ alignas(128) float box[BX * BY];
  __shared__ alignas(8) uint64_t bar;
  const uint32_t b = smem(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b),
        "r"(unsigned(sizeof box))
        : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile"
        ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            smem(box)),
        "l"(&tm), "r"(x), "r"(0), "r"(b)
        : "memory");
  }
  __syncthreads();
  uint32_t done = 0;
  while (!done)
    asm volatile("{ .reg .pred p;\n"
                 "  mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
                 "  selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(b)
                 : "memory");
  for (int i = threadIdx.x; i < BX * BY; i += blockDim.x)
    out[i] = box[i];
}

__global__ void store(const __grid_constant__ CUtensorMap tm, int x) {
  __shared__ alignas(128) float box[BX * BY];
  for (int i = threadIdx.x; i < BX * BY; i += blockDim.x)
    box[i] = float(i);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"
                 " [%0, {%1, %2}], [%3];" ::"l"(&tm),
                 "r"(x), "r"(0), "r"(smem(box))
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

int main(int argc, char **argv) {
  const bool is_load = argc > 1 && std::strcmp(argv[1], "load") == 0;
  const int x = argc > 2 ? std::atoi(argv[2]) : is_load ? 2 : -4;
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                         cudaEnableDefault, &q));
  auto encode = reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(fn);
  EXPECT(encode);
  if (!encode)
    return finish("tma_refused");
  float *tensor, *out;
  CHECK(cudaMalloc(&tensor, W * H * 4));
  CHECK(cudaMalloc(&out, BX * BY * 4));
  CHECK(cudaMemset(tensor, 0, W * H * 4));
  cuuint64_t dims[2] = {W, H}, strides[1] = {W * 4};
  cuuint32_t box[2] = {BX, BY}, estrides[2] = {1, 1};
  alignas(64) CUtensorMap tm;
  CUresult r = encode(
      &tm, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, tensor, dims, strides, box,
      estrides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  EXPECT(r == CUDA_SUCCESS);
  if (is_load)
    load<<<1, 32>>>(tm, x, out);
  else
    store<<<1, 32>>>(tm, x);
  cudaError_t e = cudaDeviceSynchronize();
  const bool refused = is_load ? (x * 4) % 16 != 0 : x < 0;
  std::printf("%s at x = %d: %s\n", is_load ? "load" : "store", x,
              cudaGetErrorName(e));
  EXPECT(e == (refused ? cudaErrorIllegalInstruction : cudaSuccess));
  return finish("tma_refused");
}
