// pipeline_gemm: C = A * B (64 x 64 x 64, f16 in global memory, f32
// accumulators) by a double-buffered cp.async pipeline feeding
// ldmatrix + mma.sync.m16n8k16: while the warps multiply stage s, the
// 16-byte cp.async copies of stage s + 1 are in flight; each thread waits
// for its own copies with cp.async.wait_group, then __syncthreads makes
// every thread's copies visible to the CTA before ldmatrix reads them, and
// a second __syncthreads keeps a buffer from being refilled while another
// warp still reads it. One CTA (2 warps) per 16 x 16 tile of C; each warp
// computes 16 x 8. A and B: data/gemm_{a,b}_f16.bin (row-major; the values
// of mma_gemm, exact in f32).
// Launch: -g 4,4 -b 64, A = u16[4096], B = u16[4096], C = f32[4096].

constexpr int kN = 64, kK = 64, kStage = 16;

__device__ void cp_async16(void *smem, const void *gmem) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem));
}

extern "C" __global__ void pipeline_gemm(const unsigned short *A,
                                         const unsigned short *B, float *C) {
  // As[buf][row][k], Bs[buf][k][n] (row-major tiles, 16 x 16 f16 each)
  __shared__ __align__(16) unsigned short As[2][16][16];
  __shared__ __align__(16) unsigned short Bs[2][16][16];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int m0 = blockIdx.y * 16, n0 = blockIdx.x * 16;
  // Thread tid copies 16 bytes: threads 0..31 of A (row tid / 2, half
  // tid % 2), threads 32..63 of B.
  auto load_stage = [&](int buf, int k0) {
    const int r = (tid % 32) / 2, h = (tid % 2) * 8;
    if (tid < 32)
      cp_async16(&As[buf][r][h], A + (m0 + r) * kK + k0 + h);
    else
      cp_async16(&Bs[buf][r][h], B + (k0 + r) * kN + n0 + h);
    asm volatile("cp.async.commit_group;");
  };
  float c[4] = {0, 0, 0, 0};
  load_stage(0, 0);
  for (int s = 0; s < kK / kStage; ++s) {
    const int buf = s % 2;
    if (s + 1 < kK / kStage) {
      load_stage(buf ^ 1, (s + 1) * kStage);
      asm volatile("cp.async.wait_group 1;");
    } else {
      asm volatile("cp.async.wait_group 0;");
    }
    __syncthreads();
    unsigned a[4], b[2];
    unsigned pa = static_cast<unsigned>(
        __cvta_generic_to_shared(&As[buf][lane % 16][(lane / 16) * 8]));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                 : "r"(pa));
    unsigned pb = static_cast<unsigned>(
        __cvta_generic_to_shared(&Bs[buf][lane % 16][warp * 8]));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(b[0]), "=r"(b[1])
                 : "r"(pb));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),
                   "r"(b[1]));
    __syncthreads();
  }
  const int g = lane / 4, t = lane % 4;
  for (int i = 0; i < 4; ++i)
    C[(m0 + g + 8 * (i / 2)) * kN + n0 + warp * 8 + 2 * t + (i % 2)] = c[i];
}
