// Warp intrinsics, also in divergent code.
__global__ void warp_ops(const int *in, int *out) {
  int t = threadIdx.x;
  int lane = t % 32;
  int v = in[blockIdx.x * blockDim.x + t];
  int base = (blockIdx.x * blockDim.x + t) * 8;
  // full-warp reduction
  int s = v;
  for (int o = 16; o > 0; o >>= 1)
    s += __shfl_down_sync(0xffffffffu, s, o);
  out[base + 0] = __shfl_sync(0xffffffffu, s, 0);
  // divergent: lower half and upper half reduce separately
  int h = v;
  if (lane < 16) {
    for (int o = 8; o > 0; o >>= 1)
      h += __shfl_xor_sync(0x0000ffffu, h, o);
  } else {
    for (int o = 8; o > 0; o >>= 1)
      h += __shfl_xor_sync(0xffff0000u, h, o);
  }
  out[base + 1] = h;
  out[base + 2] = (int)__ballot_sync(0xffffffffu, v & 1);
  out[base + 3] = __any_sync(0xffffffffu, v == 7) + 2 * __all_sync(0xffffffffu, v >= 0);
  out[base + 4] = (int)__match_any_sync(0xffffffffu, v % 3);
  out[base + 5] = __reduce_add_sync(0xffffffffu, v) ^ __reduce_max_sync(0xffffffffu, v);
  unsigned am = 0;
  if (v % 2 == 0)
    am = __activemask();
  out[base + 6] = (int)am;
  out[base + 7] = __shfl_up_sync(0xffffffffu, v, 3, 8);
}
