// warp_size: `warpSize` (the PTX predefined identifier WARP_SZ) in loop
// bounds and arithmetic. Each thread sums its warp's lane range through a
// loop of warpSize iterations and records which warp and lane it is:
//   out[3*t]   = sum over k < warpSize of (t / warpSize * warpSize + k)
//   out[3*t+1] = t % warpSize,  out[3*t+2] = warpSize
extern "C" __global__ void warp_size(int *out) {
  const int t = threadIdx.x;
  const int base = t / warpSize * warpSize;
  int sum = 0;
  for (int k = 0; k < warpSize; ++k)
    sum += base + k;
  out[3 * t] = sum;
  out[3 * t + 1] = t % warpSize;
  out[3 * t + 2] = warpSize;
}
