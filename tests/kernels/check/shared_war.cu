// shared_war: write-after-read on shared memory in a tiled loop. Each
// iteration stores one tile to shared memory, synchronizes, and reads a
// neighbour's element (another warp's, as in shared_raw).
//   shared_war_buggy: the second __syncthreads() of the loop is missing:
//     the store of iteration i+1 (thread t) can overwrite tile[t] before
//     thread (t + 91) % 128 has read it in iteration i. The store and the
//     read of one iteration are ordered by the first barrier, so the only
//     hazard is the read against the next iteration's store.
//   shared_war_fixed: __syncthreads() at the end of every iteration.
// `#pragma unroll 1` keeps one instruction per access (one site each).
// Launch: -g 2 -b 128; in = s32[1024] (iota), out = s32[256], ntiles = 4.
// Fixed result: out[b*128 + t] = sum over i < ntiles of
//   (i + 1) * in[(b * ntiles + i) * 128 + (t + 37) % 128].
extern "C" __global__ void shared_war_buggy(const int *in, int *out,
                                            int ntiles) {
  __shared__ int tile[128];
  const int t = threadIdx.x;
  const int *src = in + blockIdx.x * ntiles * 128;
  int acc = 0;
#pragma unroll 1
  for (int i = 0; i < ntiles; ++i) {
    tile[t] = src[i * 128 + t];
    __syncthreads();
    acc += (i + 1) * tile[(t + 37) % 128];
  }
  out[blockIdx.x * 128 + t] = acc;
}

extern "C" __global__ void shared_war_fixed(const int *in, int *out,
                                            int ntiles) {
  __shared__ int tile[128];
  const int t = threadIdx.x;
  const int *src = in + blockIdx.x * ntiles * 128;
  int acc = 0;
#pragma unroll 1
  for (int i = 0; i < ntiles; ++i) {
    tile[t] = src[i * 128 + t];
    __syncthreads();
    acc += (i + 1) * tile[(t + 37) % 128];
    __syncthreads();
  }
  out[blockIdx.x * 128 + t] = acc;
}
