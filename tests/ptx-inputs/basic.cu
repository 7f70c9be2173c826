// Parser test input: common nvcc output shapes (printf, local arrays, structs
// by value, shared / extern shared, constant memory, atomics, warp intrinsics).
#include <cstdio>

struct Pair {
  int a;
  float b;
  double c;
};

__constant__ float coeffs[4] = {1.0f, 2.0f, 0.5f, -3.25f};
__device__ int counter = 7;
__device__ unsigned table[3] = {1u, 2u, 3u};

__device__ __noinline__ float helper(float x, int k) {
  return x * coeffs[k & 3] + 1.5f;
}

__global__ void kernel_printf(int n, Pair p) {
  printf("tid %d n %d a %d b %f c %f\n", threadIdx.x, n, p.a, p.b, p.c);
}

__global__ void kernel_local(const int *in, int *out, int n) {
  int buf[16];
  for (int i = 0; i < 16; ++i)
    buf[i] = in[(threadIdx.x + i) % n];
  int idx = in[threadIdx.x] & 15;
  out[threadIdx.x] = buf[idx];
}

__global__ void kernel_shared(float *data, int n) {
  __shared__ float tile[256];
  extern __shared__ float dyn[];
  int t = threadIdx.x;
  tile[t] = data[t];
  dyn[t] = helper(tile[t], t);
  __syncthreads();
  if (t < n)
    data[t] = tile[255 - t] + dyn[t];
}

__global__ void kernel_atomics(int *acc, unsigned *uacc, float *facc,
                               double *dacc) {
  atomicAdd(acc, 1);
  atomicMax(acc + 1, (int)threadIdx.x);
  atomicMin(acc + 2, -(int)threadIdx.x);
  atomicCAS(acc + 3, 0, 5);
  atomicExch(acc + 4, 9);
  atomicInc(uacc, 100u);
  atomicDec(uacc + 1, 100u);
  atomicAnd(acc + 5, 0xF0);
  atomicOr(acc + 6, 0x0F);
  atomicXor(acc + 7, 0xFF);
  atomicAdd(facc, 1.5f);
  atomicAdd(dacc, 2.25);
  atomicAdd(&counter, 1);
  atomicAdd(&table[1], 1u);
}

__global__ void kernel_warp(int *out) {
  int v = threadIdx.x;
  int s = __shfl_sync(0xffffffff, v, 3);
  s += __shfl_down_sync(0xffffffff, v, 1);
  s += __shfl_up_sync(0xffffffff, v, 2);
  s += __shfl_xor_sync(0xffffffff, v, 4);
  unsigned b = __ballot_sync(0xffffffff, v & 1);
  int any = __any_sync(0xffffffff, v > 5);
  int all = __all_sync(0xffffffff, v < 40);
  unsigned m = __match_any_sync(0xffffffff, v >> 2);
  int r = __reduce_add_sync(0xffffffff, v);
  unsigned act = __activemask();
  __syncwarp(0x0000ffff);
  int cnt = __syncthreads_count(v & 1);
  int an = __syncthreads_and(v < 1000);
  int orr = __syncthreads_or(v == 3);
  out[threadIdx.x] = s + b + any + all + m + r + act + cnt + an + orr +
                     __popc(b) + __clz(v) + __brev(v) + __ffs(v);
  __nanosleep(10);
}

__global__ void kernel_math(const double *in, double *out, float *fout) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double x = in[i];
  out[i] = sqrt(x) + 1.0 / x + x * 0.1;
  float f = (float)x;
  fout[i] = sinf(f) + __expf(f) + rsqrtf(f) + fminf(f, 2.0f) + (f > 1e30f ? 1.0f/0.0f : f);
  uint4 v = reinterpret_cast<const uint4 *>(in)[i];
  reinterpret_cast<uint4 *>(out)[i + 1] = v;
}
