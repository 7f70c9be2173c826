// arch: sm_90
// diverged_syncwarp: the two half-warps exchange through shared memory
// inside the two branches of an `if`: each half stores its element, then
// reads the mirrored element of the other half (lane 31 - lane).
//   diverged_buggy: no __syncwarp(): the lanes of one warp race. nvcc
//     if-converts the branches into one store (23) and one load (26).
//   diverged_syncwarp: a __syncwarp() in each branch (36, 40). On sm_70+
//     the lanes of a mask may meet at different bar.warp.sync instructions:
//     the two halves synchronize with each other, which orders each store
//     before the other half's load (clean).
// Launch: -g 1 -b 64; out = s32[64]. Fixed result: out[t] = the value
// stored by lane 31 - lane of the same warp (t * 3 for a low lane,
// t + 1000 for a high lane).
extern "C" __global__ void diverged_buggy(int *out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  const int lane = t % 32, base = t - lane;
  int v;
  if (lane < 16) {
    s[t] = t * 3;
    v = s[base + 31 - lane];
  } else {
    s[t] = t + 1000;
    v = s[base + 31 - lane];
  }
  out[t] = v;
}

extern "C" __global__ void diverged_syncwarp(int *out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  const int lane = t % 32, base = t - lane;
  int v;
  if (lane < 16) {
    s[t] = t * 3;
    __syncwarp();
    v = s[base + 31 - lane];
  } else {
    s[t] = t + 1000;
    __syncwarp();
    v = s[base + 31 - lane];
  }
  out[t] = v;
}
