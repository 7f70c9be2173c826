// Benchmark kernels for bench/check (nvcc -ptx -lineinfo -arch=sm_80
// check_kernels.cu -o check_kernels.ptx): the workloads whose checked
// runs are measured against plain runs (docs/performance.md "Checker").
// matmul: C = A * B (n x n floats) with 16x16 shared-memory tiles.
// reduce: per CTA, a shared-memory tree reduction of 256 values, then a
// warp-shuffle tail; out[blockIdx.x] = the CTA's sum.
// mma_matmul: the same C = A * B (n x n) on tensor cores: f16 A and B
// (row-major), f32 C, 16x16 tiles per CTA as in matmul, two warps each
// computing 16x8 with ldmatrix + mma.sync.m16n8k16 per 16-wide k step.
#define TILE 16

extern "C" __global__ void matmul(const float *A, const float *B, float *C,
                                  int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    As[ty][tx] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

extern "C" __global__ void reduce(const int *in, int *out) {
  __shared__ int s[256];
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (int stride = 128; stride >= 32; stride /= 2) {
    if (t < stride)
      s[t] += s[t + stride];
    __syncthreads();
  }
  if (t < 32) {
    int v = s[t];
    for (int off = 16; off > 0; off /= 2)
      v += __shfl_down_sync(0xffffffffu, v, off);
    if (t == 0)
      out[blockIdx.x] = v;
  }
}

extern "C" __global__ void mma_matmul(const unsigned short *A,
                                      const unsigned short *B, float *C,
                                      int n) {
  __shared__ __align__(16) unsigned short As[TILE][TILE];
  __shared__ __align__(16) unsigned short Bs[TILE][TILE];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int m0 = blockIdx.y * TILE, n0 = blockIdx.x * TILE;
  float c[4] = {0, 0, 0, 0};
  for (int t = 0; t < n; t += TILE) {
    // 64 threads, 4 halves of A and 4 of B each (8-byte loads)
    const int r = tid / 4, q = (tid % 4) * 4;
    *reinterpret_cast<uint2 *>(&As[r][q]) =
        *reinterpret_cast<const uint2 *>(&A[(m0 + r) * n + t + q]);
    *reinterpret_cast<uint2 *>(&Bs[r][q]) =
        *reinterpret_cast<const uint2 *>(&B[(t + r) * n + n0 + q]);
    __syncthreads();
    unsigned a[4], b[2];
    unsigned pa = static_cast<unsigned>(
        __cvta_generic_to_shared(&As[lane % 16][(lane / 16) * 8]));
    asm volatile(
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
        : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
        : "r"(pa));
    unsigned pb = static_cast<unsigned>(
        __cvta_generic_to_shared(&Bs[lane % 16][warp * 8]));
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
  const int g = lane / 4, q = lane % 4;
  for (int i = 0; i < 4; ++i)
    C[(m0 + g + 8 * (i / 2)) * n + n0 + warp * 8 + 2 * q + (i % 2)] = c[i];
}
