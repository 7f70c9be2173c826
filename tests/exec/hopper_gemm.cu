// A warp-specialized Hopper GEMM, written from the PTX ISA and the CUDA
// programming guide: C (M x N, f32) = A (M x K, f16, row-major) times
// B^T (B: N x K, f16, row-major), 64 x 64 tiles per CTA.
//
// Warpgroup 0 produces: it gives registers back (setmaxnreg.dec), one lane
// chosen by elect.sync waits for a free stage (empty mbarrier), announces
// the stage's bytes (mbarrier.arrive.expect_tx) and loads the A and B tiles
// with cp.async.bulk.tensor (32-byte swizzle). Warpgroup 1 consumes: it
// takes registers (setmaxnreg.inc), waits for a full stage, runs
// wgmma.mma_async m64n64k16 on shared-memory descriptors, waits for it
// (wgmma.wait_group) and releases the stage. The epilogue stores the tile
// to shared memory, fences the generic proxy against the async proxy
// (fence.proxy.async) and stores it with one cp.async.bulk.tensor.
//
// gemm_cluster: two CTAs of a cluster (along M) share the B tile: each
// loads one half with .multicast::cluster into both CTAs, and a stage is
// free only once the consumers of both CTAs released it (remote arrivals).
//
// Build: nvcc -cudart shared -gencode
// arch=compute_90a,code=[sm_90a,compute_90a] (bcusim runs the embedded
// compute_90a PTX). Usage: hopper_gemm [MODE]; MODE = ok (default), cluster, or
// a bug of the pipeline that `bcusim exec --check all` reports:
//   tx       expect_tx announces only the A tile's bytes
//   fence    no fence.proxy.async before the epilogue's tensor store
//   parity   the consumers wait for the wrong phase parity
//   release  the consumers release a stage before wgmma.wait_group
// The result is compared with a host reference in modes ok and cluster.
#include "common.h"
#include <cstdint>
#include <cstring>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <vector>

constexpr int M = 128, N = 128, K = 64;
constexpr int BM = 64, BN = 64, BK = 16, STAGES = 3;
constexpr int KT = K / BK;
constexpr unsigned kStageBytes = (BM + BN) * BK * 2;

enum Bug { None = 0, TxCount = 1, NoFence = 2, Parity = 3, EarlyRelease = 4 };

struct Smem {
  alignas(1024) __half a[STAGES][BM * BK];
  alignas(1024) __half b[STAGES][BN * BK];
  alignas(1024) float c[BM * BN];
  alignas(8) unsigned long long full[STAGES], empty[STAGES];
};

__device__ inline unsigned smem(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ inline void wait_parity(unsigned bar, unsigned parity) {
  asm volatile("{ .reg .pred done;\n"
               "wait_%=:\n"
               "  mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "  @!done bra wait_%=; }" ::"r"(bar),
               "r"(parity)
               : "memory");
}

// A shared-memory matrix descriptor (PTX ISA, wgmma "Matrix Descriptor"):
// start address, leading and stride byte offsets (>> 4), swizzle mode in
// bits 62-63 (1: 128 B, 2: 64 B, 3: 32 B). K-major tiles of 16 f16 per row
// (32 bytes) in 32-byte swizzle: 8-row groups 256 bytes apart.
__device__ inline uint64_t descriptor(unsigned addr) {
  uint64_t d = 0;
  d |= uint64_t((addr & 0x3ffff) >> 4);
  d |= uint64_t(1) << 16;        // leading byte offset (unused here)
  d |= uint64_t(256 >> 4) << 32; // stride byte offset
  d |= uint64_t(3) << 62;        // 32-byte swizzle
  return d;
}

__device__ inline void load_tile(unsigned dst, const CUtensorMap *map, int c0,
                                 int c1, unsigned bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
               "l"(map), "r"(c0), "r"(c1), "r"(bar)
               : "memory");
}

__device__ inline void load_tile_multicast(unsigned dst, const CUtensorMap *map,
                                           int c0, int c1, unsigned bar,
                                           unsigned short mask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
               "complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3}], "
               "[%4], %5;" ::"r"(dst),
               "l"(map), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
               : "memory");
}

// D (64 x 64, f32: 32 registers per thread) = A * B (+ D when `accumulate`).
__device__ inline void wgmma_64x64x16(float (&d)[32], uint64_t da, uint64_t db,
                                      int accumulate) {
  asm volatile(
      "{ .reg .pred p;\n"
      "  setp.ne.b32 p, %34, 0;\n"
      "  wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
      "%15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
      "%29, %30, %31}, %32, %33, p, 1, 1, 0, 0; }"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
        "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]),
        "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),
        "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),
        "+f"(d[31])
      : "l"(da), "l"(db), "r"(accumulate)
      : "memory");
}

__device__ inline bool elect_one() {
  unsigned pred = 0;
  asm volatile("{ .reg .pred p; .reg .b32 r;\n"
               "  elect.sync r|p, 0xffffffff;\n"
               "  selp.u32 %0, 1, 0, p; }"
               : "=r"(pred));
  return pred != 0;
}

// The pipeline of one CTA; `rank` / `peers` describe its cluster (1 CTA:
// rank 0, peers 1).
__device__ void pipeline(Smem &s, const CUtensorMap *ma, const CUtensorMap *mb,
                         const CUtensorMap *mc, int m0, int n0, unsigned rank,
                         unsigned peers, int bug) {
  const unsigned t = threadIdx.x;
  const unsigned warpgroup = t / 128;
  if (warpgroup == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (t / 32 == 0 && elect_one()) {
#pragma unroll 1
      for (int kt = 0; kt < KT; ++kt) {
        const int st = kt % STAGES;
        // A fresh mbarrier's phase "before phase 0" counts as complete:
        // the first round of stages is free.
        wait_parity(smem(&s.empty[st]), ((kt / STAGES) & 1) ^ 1);
        const unsigned full = smem(&s.full[st]);
        const unsigned bytes = bug == TxCount ? BM * BK * 2 : kStageBytes;
        asm volatile(
            "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                full),
            "r"(bytes)
            : "memory");
        load_tile(smem(s.a[st]), ma, kt * BK, m0, full);
        if (peers == 1)
          load_tile(smem(s.b[st]), mb, kt * BK, n0, full);
        else // my half of B, into every CTA of the cluster
          load_tile_multicast(smem(s.b[st]) + rank * (BN / 2) * BK * 2, mb,
                              kt * BK, n0 + int(rank) * BN / 2, full, 0x3);
      }
    }
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  float d[32];
#pragma unroll
  for (int i = 0; i < 32; ++i)
    d[i] = 0.f;
#pragma unroll 1
  for (int kt = 0; kt < KT; ++kt) {
    const int st = kt % STAGES;
    wait_parity(smem(&s.full[st]),
                ((kt / STAGES) & 1) ^ (bug == Parity ? 1 : 0));
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    wgmma_64x64x16(d, descriptor(smem(s.a[st])), descriptor(smem(s.b[st])),
                   kt > 0);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    if (bug != EarlyRelease)
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    // One arrival per consumer warp on every CTA's empty barrier.
    __syncwarp();
    if (t % 32 == 0) {
      for (unsigned r = 0; r < peers; ++r) {
        unsigned remote;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                     : "=r"(remote)
                     : "r"(smem(&s.empty[st])), "r"(r));
        asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, "
                     "[%0];" ::"r"(remote)
                     : "memory");
      }
    }
    if (bug == EarlyRelease)
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  }
  // Epilogue: the accumulator fragment (PTX ISA, wgmma D layout for
  // m64nNk16: register i of lane l in warp w holds row 16w + l/4 + 8*(i/2
  // % 2), column 8*(i/4) + 2*(l%4) + i%2) into the shared tile.
  const unsigned w = (t % 128) / 32, l = t % 32;
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    const unsigned row = 16 * w + l / 4 + 8 * ((i / 2) % 2);
    const unsigned col = 8 * (i / 4) + 2 * (l % 4) + i % 2;
    s.c[row * BN + col] = d[i];
  }
  if (bug != NoFence)
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("bar.sync 1, 128;" ::: "memory");
  if (t == 128) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group "
                 "[%0, {%1, %2}], [%3];" ::"l"(mc),
                 "r"(n0), "r"(m0), "r"(smem(s.c))
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}

__device__ void init_barriers(Smem &s, unsigned peers) {
  if (threadIdx.x == 0) {
    for (int i = 0; i < STAGES; ++i) {
      asm volatile(
          "mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&s.full[i]))
          : "memory");
      asm volatile(
          "mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(&s.empty[i])),
          "r"(4 * peers)
          : "memory");
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
}

__global__ void __launch_bounds__(256, 1)
    gemm(const __grid_constant__ CUtensorMap ma,
         const __grid_constant__ CUtensorMap mb,
         const __grid_constant__ CUtensorMap mc, int bug) {
  extern __shared__ __align__(1024) unsigned char raw[];
  Smem &s = *reinterpret_cast<Smem *>(raw);
  init_barriers(s, 1);
  __syncthreads();
  pipeline(s, &ma, &mb, &mc, blockIdx.x * BM, blockIdx.y * BN, 0, 1, bug);
}

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(256, 1)
    gemm_cluster(const __grid_constant__ CUtensorMap ma,
                 const __grid_constant__ CUtensorMap mb_half,
                 const __grid_constant__ CUtensorMap mc) {
  extern __shared__ __align__(1024) unsigned char raw[];
  Smem &s = *reinterpret_cast<Smem *>(raw);
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  init_barriers(s, 2);
  // Both CTAs' barriers are initialized before any copy or remote arrival.
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
  pipeline(s, &ma, &mb_half, &mc, blockIdx.x * BM, blockIdx.y * BN, rank, 2,
           None);
  // No CTA leaves while the other may still write into its shared memory
  // (not .aligned: the elected producer lane and the storing thread arrive
  // on their own paths).
  asm volatile("barrier.cluster.arrive.release;\n"
               "barrier.cluster.wait.acquire;" ::
                   : "memory");
}

static PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                         cudaEnableDefault, &q));
  EXPECT(q == cudaDriverEntryPointSuccess && fn);
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
}

// A 2-D row-major tensor (rows x cols of `elem` bytes) with a box of
// box_rows x box_cols.
static CUtensorMap map2d(PFN_cuTensorMapEncodeTiled_v12000 encode, void *base,
                         CUtensorMapDataType type, unsigned elem, uint64_t rows,
                         uint64_t cols, uint32_t box_rows, uint32_t box_cols,
                         CUtensorMapSwizzle swizzle) {
  CUtensorMap m;
  std::memset(&m, 0, sizeof m);
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {cols * elem};
  const cuuint32_t box[2] = {box_cols, box_rows};
  const cuuint32_t estr[2] = {1, 1};
  CUresult r = encode(&m, type, 2, base, dims, strides, box, estr,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                      CU_TENSOR_MAP_L2_PROMOTION_NONE,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  EXPECT(r == CUDA_SUCCESS);
  return m;
}

int main(int argc, char **argv) {
  // (An argument starting with '-' is not a mode: the default.)
  const char *mode = argc > 1 && argv[1][0] != '-' ? argv[1] : "ok";
  int bug = None;
  bool cluster = false;
  if (!std::strcmp(mode, "tx"))
    bug = TxCount;
  else if (!std::strcmp(mode, "fence"))
    bug = NoFence;
  else if (!std::strcmp(mode, "parity"))
    bug = Parity;
  else if (!std::strcmp(mode, "release"))
    bug = EarlyRelease;
  else if (!std::strcmp(mode, "cluster"))
    cluster = true;
  else if (std::strcmp(mode, "ok")) {
    std::printf("unknown mode '%s'\n", mode);
    return 2;
  }
  std::vector<__half> a(M * K), b(N * K);
  std::vector<float> fa(M * K), fb(N * K), ref(M * N), c(M * N);
  // Small integers: every product and sum is exact in f32.
  for (int i = 0; i < M * K; ++i) {
    fa[i] = float((i * 7) % 9 - 4);
    a[i] = __float2half(fa[i]);
  }
  for (int i = 0; i < N * K; ++i) {
    fb[i] = float((i * 5) % 7 - 3);
    b[i] = __float2half(fb[i]);
  }
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float acc = 0;
      for (int k = 0; k < K; ++k)
        acc += fa[i * K + k] * fb[j * K + k];
      ref[i * N + j] = acc;
    }
  __half *da, *db;
  float *dc;
  CHECK(cudaMalloc(&da, a.size() * sizeof(__half)));
  CHECK(cudaMalloc(&db, b.size() * sizeof(__half)));
  CHECK(cudaMalloc(&dc, c.size() * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(__half),
                   cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(__half),
                   cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dc, 0, c.size() * sizeof(float)));
  auto encode = encode_tiled();
  if (!encode)
    return finish("hopper_gemm");
  CUtensorMap ma = map2d(encode, da, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, M, K,
                         BM, BK, CU_TENSOR_MAP_SWIZZLE_32B);
  CUtensorMap mb = map2d(encode, db, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, N, K,
                         cluster ? BN / 2 : BN, BK, CU_TENSOR_MAP_SWIZZLE_32B);
  CUtensorMap mc = map2d(encode, dc, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, M, N,
                         BM, BN, CU_TENSOR_MAP_SWIZZLE_NONE);
  const int bytes = int(sizeof(Smem));
  dim3 grid(M / BM, N / BN);
  if (cluster) {
    CHECK(cudaFuncSetAttribute(
        gemm_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    gemm_cluster<<<grid, 256, bytes>>>(ma, mb, mc);
  } else {
    CHECK(cudaFuncSetAttribute(
        gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    gemm<<<grid, 256, bytes>>>(ma, mb, mc, bug);
  }
  const cudaError_t launched = cudaGetLastError();
  const cudaError_t done = cudaDeviceSynchronize();
  if (bug != None) {
    // The checker's report is what a bug mode shows; a deadlocked launch
    // fails.
    std::printf("bug mode '%s': the launch ends with %s\n", mode,
                cudaGetErrorName(launched != cudaSuccess ? launched : done));
    return finish("hopper_gemm");
  }
  CHECK(launched);
  CHECK(done);
  CHECK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float),
                   cudaMemcpyDeviceToHost));
  {
    int bad = 0;
    for (int i = 0; i < M * N; ++i)
      if (c[i] != ref[i] && bad++ < 5)
        std::printf("C[%d][%d] = %g, expected %g\n", i / N, i % N, c[i],
                    ref[i]);
    EXPECT(bad == 0);
  }
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  if (cluster)
    std::printf("2-CTA cluster with multicast\n");
  return finish("hopper_gemm");
}
