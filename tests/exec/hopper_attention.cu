// An attention-style Hopper kernel, written from the PTX ISA and the CUDA
// programming guide: O = softmax(Q K^T / sqrt(d)) V for one block of 64
// queries, d = 64, 128 keys in blocks of 16, with the online softmax
// (running row maximum and sum) between the two GEMMs.
//
// Warpgroup 0 produces (setmaxnreg.dec; one lane chosen by elect.sync):
// Q once, then per key block its K rows and V^T columns, with
// cp.async.bulk.tensor (32-byte swizzle) into a two-stage full/empty
// mbarrier pipeline. Warpgroup 1 consumes (setmaxnreg.inc): S = Q K^T with
// four wgmma m64n16k16 on shared-memory descriptors (one per 16 columns of
// d), the softmax update in registers, then O += P V with one wgmma
// m64n64k16 whose A operand is P in registers (the accumulator layout of S
// is the register layout of an A fragment), and releases the stage.
//
// Usage: hopper_attention [MODE]; MODE = ok (default) or a bug that
// `bcusim exec --check all` reports:
//   operand  the softmax reads S while its wgmma may still be in flight
//            (wgmma.wait_group 1 instead of 0 leaves the newest group, S)
//   release  the stage is released before the wgmma reading it retired
// The result is compared with a host reference in mode ok.
#include "common.h"
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <vector>

constexpr int SQ = 64, SKV = 128, D = 64, BKV = 16, STAGES = 2;
constexpr int NKV = SKV / BKV;
constexpr unsigned kStageBytes = (BKV * D + D * BKV) * 2;

enum Bug { None = 0, Operand = 1, EarlyRelease = 2 };

struct Smem {
  alignas(1024) __half q[D / 16][SQ * 16];          // 4 chunks of 64 x 16
  alignas(1024) __half k[STAGES][D / 16][BKV * 16]; // 4 chunks of 16 x 16
  alignas(1024) __half vt[STAGES][D * BKV];         // 64 x 16
  alignas(8) unsigned long long qbar, full[STAGES], empty[STAGES];
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

// K-major tile with rows of 16 f16 (32 bytes), 32-byte swizzle (PTX ISA,
// wgmma "Matrix Descriptor").
__device__ inline uint64_t descriptor(unsigned addr) {
  return uint64_t((addr & 0x3ffff) >> 4) | uint64_t(1) << 16 |
         uint64_t(256 >> 4) << 32 | uint64_t(3) << 62;
}

__device__ inline void load_tile(unsigned dst, const CUtensorMap *map, int c0,
                                 int c1, unsigned bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
               "l"(map), "r"(c0), "r"(c1), "r"(bar)
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

// S (64 x 16) (+)= Q chunk * K chunk^T.
__device__ inline void wgmma_s(float (&s)[8], uint64_t da, uint64_t db,
                               int accumulate) {
  asm volatile("{ .reg .pred p;\n"
               "  setp.ne.b32 p, %10, 0;\n"
               "  wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
               "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, 0, 0; }"
               : "+f"(s[0]), "+f"(s[1]), "+f"(s[2]), "+f"(s[3]), "+f"(s[4]),
                 "+f"(s[5]), "+f"(s[6]), "+f"(s[7])
               : "l"(da), "l"(db), "r"(accumulate)
               : "memory");
}

// O (64 x 64) += P (registers, 64 x 16) * V block (16 x 64, from V^T).
__device__ inline void wgmma_o(float (&o)[32], const unsigned (&p)[4],
                               uint64_t db) {
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
      "%15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
      "%29, %30, %31}, {%32, %33, %34, %35}, %36, 1, 1, 1, 0;"
      : "+f"(o[0]), "+f"(o[1]), "+f"(o[2]), "+f"(o[3]), "+f"(o[4]), "+f"(o[5]),
        "+f"(o[6]), "+f"(o[7]), "+f"(o[8]), "+f"(o[9]), "+f"(o[10]),
        "+f"(o[11]), "+f"(o[12]), "+f"(o[13]), "+f"(o[14]), "+f"(o[15]),
        "+f"(o[16]), "+f"(o[17]), "+f"(o[18]), "+f"(o[19]), "+f"(o[20]),
        "+f"(o[21]), "+f"(o[22]), "+f"(o[23]), "+f"(o[24]), "+f"(o[25]),
        "+f"(o[26]), "+f"(o[27]), "+f"(o[28]), "+f"(o[29]), "+f"(o[30]),
        "+f"(o[31])
      : "r"(p[0]), "r"(p[1]), "r"(p[2]), "r"(p[3]), "l"(db)
      : "memory");
}

__device__ inline float quad_max(float v) {
  v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, 1));
  return fmaxf(v, __shfl_xor_sync(0xffffffff, v, 2));
}
__device__ inline float quad_sum(float v) {
  v += __shfl_xor_sync(0xffffffff, v, 1);
  return v + __shfl_xor_sync(0xffffffff, v, 2);
}

__device__ inline unsigned pack(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<unsigned *>(&h);
}

__global__ void __launch_bounds__(256, 1)
    attention(const __grid_constant__ CUtensorMap mq,
              const __grid_constant__ CUtensorMap mk,
              const __grid_constant__ CUtensorMap mvt, float *out, int bug) {
  extern __shared__ __align__(1024) unsigned char raw[];
  Smem &s = *reinterpret_cast<Smem *>(raw);
  const unsigned t = threadIdx.x;
  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&s.qbar))
                 : "memory");
    for (int i = 0; i < STAGES; ++i) {
      asm volatile(
          "mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&s.full[i]))
          : "memory");
      asm volatile(
          "mbarrier.init.shared::cta.b64 [%0], 4;" ::"r"(smem(&s.empty[i]))
          : "memory");
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (t < 128) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (t / 32 == 0 && elect_one()) {
      const unsigned qbar = smem(&s.qbar);
      asm volatile(
          "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(qbar),
          "r"(SQ * D * 2)
          : "memory");
      for (int c = 0; c < D / 16; ++c)
        load_tile(smem(s.q[c]), &mq, c * 16, 0, qbar);
#pragma unroll 1
      for (int j = 0; j < NKV; ++j) {
        const int st = j % STAGES;
        wait_parity(smem(&s.empty[st]), ((j / STAGES) & 1) ^ 1);
        const unsigned full = smem(&s.full[st]);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], "
                     "%1;" ::"r"(full),
                     "r"(kStageBytes)
                     : "memory");
        for (int c = 0; c < D / 16; ++c)
          load_tile(smem(s.k[st][c]), &mk, c * 16, j * BKV, full);
        load_tile(smem(s.vt[st]), &mvt, j * BKV, 0, full);
      }
    }
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  const unsigned w = (t - 128) / 32, l = t % 32;
  float o[32];
#pragma unroll
  for (int i = 0; i < 32; ++i)
    o[i] = 0.f;
  // Rows r0 = 16w + l/4 (registers with (i/2) % 2 == 0) and r0 + 8.
  float m[2] = {-INFINITY, -INFINITY}, sum[2] = {0.f, 0.f};
  const float scale = 0.125f; // 1 / sqrt(64)
  wait_parity(smem(&s.qbar), 0);
#pragma unroll 1
  for (int j = 0; j < NKV; ++j) {
    const int st = j % STAGES;
    wait_parity(smem(&s.full[st]), (j / STAGES) & 1);
    float sc[8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
      sc[i] = 0.f;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int c = 0; c < D / 16; ++c)
      wgmma_s(sc, descriptor(smem(s.q[c])), descriptor(smem(s.k[st][c])),
              c > 0);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    // Wait for S; with the bug, wait_group 1 leaves S itself in flight.
    if (bug == Operand)
      asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    else
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    // Online softmax: new row maxima, rescale of O and the sums.
    float corr[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float mx = m[h];
#pragma unroll
      for (int i = 0; i < 8; ++i)
        if ((i / 2) % 2 == h)
          mx = fmaxf(mx, sc[i] * scale);
      mx = quad_max(mx);
      corr[h] = expf(m[h] - mx);
      m[h] = mx;
      sum[h] *= corr[h];
    }
#pragma unroll
    for (int i = 0; i < 32; ++i)
      o[i] *= corr[(i / 2) % 2];
    float pr[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      pr[i] = expf(sc[i] * scale - m[(i / 2) % 2]);
      sum[(i / 2) % 2] += pr[i];
    }
    // The A fragment of P: a0 row r0 cols 0-7, a1 row r0+8, a2 row r0
    // cols 8-15, a3 row r0+8 (the S register layout).
    const unsigned p[4] = {pack(pr[0], pr[1]), pack(pr[2], pr[3]),
                           pack(pr[4], pr[5]), pack(pr[6], pr[7])};
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    wgmma_o(o, p, descriptor(smem(s.vt[st])));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    if (bug != EarlyRelease && bug != Operand)
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    __syncwarp();
    if (l == 0)
      asm volatile(
          "mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(&s.empty[st]))
          : "memory");
    if (bug == EarlyRelease)
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
  for (int h = 0; h < 2; ++h)
    sum[h] = quad_sum(sum[h]);
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    const unsigned row = 16 * w + l / 4 + 8 * ((i / 2) % 2);
    const unsigned col = 8 * (i / 4) + 2 * (l % 4) + i % 2;
    out[row * D + col] = o[i] / sum[(i / 2) % 2];
  }
}

static PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                         cudaEnableDefault, &q));
  EXPECT(q == cudaDriverEntryPointSuccess && fn);
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
}

// A 2-D row-major f16 tensor (rows x cols) with a box of box_rows x 16 and
// 32-byte swizzle.
static CUtensorMap map2d(PFN_cuTensorMapEncodeTiled_v12000 encode, void *base,
                         uint64_t rows, uint64_t cols, uint32_t box_rows) {
  CUtensorMap m;
  std::memset(&m, 0, sizeof m);
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {cols * 2};
  const cuuint32_t box[2] = {16, box_rows};
  const cuuint32_t estr[2] = {1, 1};
  CUresult r = encode(
      &m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, base, dims, strides, box, estr,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_32B,
      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  EXPECT(r == CUDA_SUCCESS);
  return m;
}

int main(int argc, char **argv) {
  // (An argument starting with '-' is not a mode: the default.)
  const char *mode = argc > 1 && argv[1][0] != '-' ? argv[1] : "ok";
  int bug = None;
  if (!std::strcmp(mode, "operand"))
    bug = Operand;
  else if (!std::strcmp(mode, "release"))
    bug = EarlyRelease;
  else if (std::strcmp(mode, "ok")) {
    std::printf("unknown mode '%s'\n", mode);
    return 2;
  }
  std::vector<__half> q(SQ * D), k(SKV * D), vt(D * SKV);
  std::vector<float> fq(SQ * D), fk(SKV * D), fv(SKV * D), o(SQ * D);
  for (int i = 0; i < SQ * D; ++i) {
    q[i] = __float2half(float((i * 7) % 11 - 5) / 8);
    fq[i] = __half2float(q[i]);
  }
  for (int i = 0; i < SKV * D; ++i) {
    k[i] = __float2half(float((i * 5) % 13 - 6) / 8);
    fk[i] = __half2float(k[i]);
  }
  for (int kv = 0; kv < SKV; ++kv)
    for (int c = 0; c < D; ++c) {
      __half h = __float2half(float((kv * 3 + c * 5) % 17 - 8) / 4);
      vt[c * SKV + kv] = h;
      fv[kv * D + c] = __half2float(h);
    }
  __half *dq, *dk, *dvt;
  float *dout;
  CHECK(cudaMalloc(&dq, q.size() * 2));
  CHECK(cudaMalloc(&dk, k.size() * 2));
  CHECK(cudaMalloc(&dvt, vt.size() * 2));
  CHECK(cudaMalloc(&dout, o.size() * sizeof(float)));
  CHECK(cudaMemcpy(dq, q.data(), q.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dk, k.data(), k.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dvt, vt.data(), vt.size() * 2, cudaMemcpyHostToDevice));
  auto encode = encode_tiled();
  if (!encode)
    return finish("hopper_attention");
  CUtensorMap mq = map2d(encode, dq, SQ, D, SQ);
  CUtensorMap mk = map2d(encode, dk, SKV, D, BKV);
  CUtensorMap mvt = map2d(encode, dvt, D, SKV, D);
  const int bytes = int(sizeof(Smem));
  CHECK(cudaFuncSetAttribute(
      attention, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  attention<<<1, 256, bytes>>>(mq, mk, mvt, dout, bug);
  const cudaError_t launched = cudaGetLastError();
  const cudaError_t done = cudaDeviceSynchronize();
  if (bug != None) {
    std::printf("bug mode '%s': the launch ends with %s\n", mode,
                cudaGetErrorName(launched != cudaSuccess ? launched : done));
    return finish("hopper_attention");
  }
  CHECK(launched);
  CHECK(done);
  CHECK(cudaMemcpy(o.data(), dout, o.size() * sizeof(float),
                   cudaMemcpyDeviceToHost));
  {
    // Host reference in double; P is rounded to f16 on the device, so the
    // comparison allows 1% of the output's range.
    int bad = 0;
    for (int i = 0; i < SQ; ++i) {
      std::vector<double> sc(SKV);
      double mx = -1e30, sum = 0;
      for (int j = 0; j < SKV; ++j) {
        double a = 0;
        for (int c = 0; c < D; ++c)
          a += double(fq[i * D + c]) * fk[j * D + c];
        sc[j] = a * 0.125;
        mx = std::fmax(mx, sc[j]);
      }
      for (int j = 0; j < SKV; ++j)
        sum += (sc[j] = std::exp(sc[j] - mx));
      for (int c = 0; c < D; ++c) {
        double a = 0;
        for (int j = 0; j < SKV; ++j)
          a += sc[j] * fv[j * D + c];
        a /= sum;
        if (std::fabs(a - o[i * D + c]) > 0.02 && bad++ < 5)
          std::printf("O[%d][%d] = %g, expected %g\n", i, c, o[i * D + c], a);
      }
    }
    EXPECT(bad == 0);
  }
  CHECK(cudaFree(dq));
  CHECK(cudaFree(dk));
  CHECK(cudaFree(dvt));
  CHECK(cudaFree(dout));
  return finish("hopper_attention");
}
