// diag_red_mixed (expect-fail: red): warp 0 executes bar.red.popc on
// barrier 1 (count 64) while warp 1 executes bar.sync on the same barrier
// with the same count. PTX: barrier.red should not be intermixed with
// barrier.sync or barrier.arrive on the same active barrier.
extern "C" __global__ void diag_red_mixed(unsigned *out) {
  const unsigned warp = threadIdx.x / 32;
  unsigned r = 0;
  if (warp == 0)
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0;\n"
                 "  bar.red.popc.u32 %0, 1, 64, p; }"
                 : "=r"(r)
                 : "r"(threadIdx.x & 1u)
                 : "memory");
  else
    asm volatile("bar.sync 1, 64;" ::: "memory");
  out[threadIdx.x] = r;
}
