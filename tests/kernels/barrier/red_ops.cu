// red_ops: bar.red / barrier.red with negated predicates (!p), explicit
// thread counts and register operands. 128 threads, p = (tid % 5 == 0).
// Whole CTA on barrier 0 (26 of 128 threads have p):
//   0 bar.red.popc.u32 d, 0, p              = 26
//   1 bar.red.popc.u32 d, 0, !p             = 102
//   2 bar.red.and.pred q, 0, !p             = 0 (some p are true)
//   3 bar.red.or.pred  q, 0, !p             = 1
//   4 barrier.red.and.aligned.pred q, 0, !(tid > 200) = 1
// Subsets with a count of 64:
//   5 warps 0-1: barrier.cta.red.popc.u32 d, 3, 64, p (13 of tids 0..63)
//     warps 2-3: bar.red.or.pred q, 4, 64, !p  (1)
//   6 register id/count: bar.red.popc.u32 d, %id, %cnt, !p with id = 5 +
//     warp / 2, cnt = 64: warps 0-1: 51, warps 2-3: 51
// out[tid * 7 + k].
extern "C" __global__ void red_ops(unsigned *out, unsigned count) {
  const unsigned tid = threadIdx.x, warp = tid / 32;
  const unsigned p = tid % 5 == 0;
  unsigned *o = out + tid * 7;
  unsigned r;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0;\n"
               "  bar.red.popc.u32 %0, 0, p; }"
               : "=r"(r)
               : "r"(p)
               : "memory");
  o[0] = r;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0;\n"
               "  bar.red.popc.u32 %0, 0, !p; }"
               : "=r"(r)
               : "r"(p)
               : "memory");
  o[1] = r;
  asm volatile("{ .reg .pred p, q; setp.ne.u32 p, %1, 0;\n"
               "  bar.red.and.pred q, 0, !p; selp.u32 %0, 1, 0, q; }"
               : "=r"(r)
               : "r"(p)
               : "memory");
  o[2] = r;
  asm volatile("{ .reg .pred p, q; setp.ne.u32 p, %1, 0;\n"
               "  bar.red.or.pred q, 0, !p; selp.u32 %0, 1, 0, q; }"
               : "=r"(r)
               : "r"(p)
               : "memory");
  o[3] = r;
  asm volatile(
      "{ .reg .pred p, q; setp.gt.u32 p, %1, 200;\n"
      "  barrier.red.and.aligned.pred q, 0, !p; selp.u32 %0, 1, 0, q; }"
      : "=r"(r)
      : "r"(tid)
      : "memory");
  o[4] = r;
  if (warp < 2) {
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0;\n"
                 "  barrier.cta.red.popc.u32 %0, 3, 64, p; }"
                 : "=r"(r)
                 : "r"(p)
                 : "memory");
  } else {
    asm volatile("{ .reg .pred p, q; setp.ne.u32 p, %1, 0;\n"
                 "  bar.red.or.pred q, 4, 64, !p; selp.u32 %0, 1, 0, q; }"
                 : "=r"(r)
                 : "r"(p)
                 : "memory");
  }
  o[5] = r;
  const unsigned id = 5 + warp / 2;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0;\n"
               "  bar.red.popc.u32 %0, %2, %3, !p; }"
               : "=r"(r)
               : "r"(p), "r"(id), "r"(count)
               : "memory");
  o[6] = r;
}
