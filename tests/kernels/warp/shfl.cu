// shfl: __shfl_sync / _up / _down / _xor (shfl.sync.idx/up/down/bfly) with
// the full mask and sub-warp widths, and in divergent code with partial
// member masks whose source lanes are all members.
// v = tid * 10 + 3. Per thread, out[tid * 8 + k]:
//  0 idx (lane * 7) % 32     1 up 3          2 down 5, width 16
//  3 xor 9                   4 xor 2, width 8 5 idx 5, width 8
//  6 lanes % 3 == 0 only: idx from lane + 3 (lane 30 reads lane 0), others -1
//  7 odd lanes only: xor 2 (odd partner), even lanes -2
// Out-of-segment up/down sources return the caller's own value.
extern "C" __global__ void shfl(int *out) {
  const unsigned tid = threadIdx.x;
  const unsigned lane = tid % 32;
  const int v = static_cast<int>(tid) * 10 + 3;
  const unsigned full = 0xffffffffu;
  int *o = out + tid * 8;
  o[0] = __shfl_sync(full, v, (lane * 7) % 32);
  o[1] = __shfl_up_sync(full, v, 3);
  o[2] = __shfl_down_sync(full, v, 5, 16);
  o[3] = __shfl_xor_sync(full, v, 9);
  o[4] = __shfl_xor_sync(full, v, 2, 8);
  o[5] = __shfl_sync(full, v, 5, 8);
  if (lane % 3 == 0)
    o[6] = __shfl_sync(0x49249249u, v, lane == 30 ? 0 : lane + 3);
  else
    o[6] = -1;
  if (lane & 1)
    o[7] = __shfl_xor_sync(0xaaaaaaaau, v, 2);
  else
    o[7] = -2;
}
