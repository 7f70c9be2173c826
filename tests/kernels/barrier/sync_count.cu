// sync_count: __syncthreads_count / _and / _or (bar.red.popc.u32 /
// bar.red.and.pred / bar.red.or.pred on barrier 0 over the whole CTA). Every
// thread receives the reduction over all threads of its CTA. Run with CTA
// sizes that are and are not multiples of 32 (1, 33, 100, 256, 1024).
// Per thread, out[gtid * 3 ...] = { count((tid + ctaid) % 3 == 0),
//   and(tid < ntid - ctaid), or(ctaid odd && tid == 2 * ctaid + 1) }
extern "C" __global__ void sync_count(int *out) {
  const int tid = threadIdx.x, c = blockIdx.x, n = blockDim.x;
  const int count = __syncthreads_count((tid + c) % 3 == 0);
  const int all = __syncthreads_and(tid < n - c);
  const int any = __syncthreads_or(c % 2 == 1 && tid == 2 * c + 1);
  int *o = out + (c * n + tid) * 3;
  o[0] = count;
  o[1] = all != 0;
  o[2] = any != 0;
}
