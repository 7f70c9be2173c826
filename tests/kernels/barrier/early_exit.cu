// early_exit: threads that exited are not waited for (PTX: a barrier waits
// for the "non-exited threads"). 128 threads: warp 3 exits at once, lanes
// 16-31 of warp 1 exit at once; the remaining 80 threads store, then
// __syncthreads, read each other's entries, and __syncthreads_count(1)
// counts 80. Then warp 2 exits and the other 48 threads meet again at
// __syncthreads. Exited threads leave their out entries untouched (fill 7).
// out[tid * 3] = sum of s over the 80 live threads, out[tid * 3 + 1] = 80,
// out[tid * 3 + 2] = s[(tid + 16) % 48] after the second round (+100).
extern "C" __global__ void early_exit(int *out) {
  __shared__ int s[128];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  if (warp == 3)
    return;
  if (warp == 1 && lane >= 16)
    return;
  s[tid] = tid + 1;
  __syncthreads();
  int sum = 0;
  for (int j = 0; j < 96; ++j)
    if (j < 48 || j >= 64)
      sum += s[j];
  const int live = __syncthreads_count(1);
  out[tid * 3] = sum;
  out[tid * 3 + 1] = live;
  if (warp == 2)
    return;
  s[tid] += 100;
  __syncthreads();
  out[tid * 3 + 2] = s[(tid + 16) % 48];
}
