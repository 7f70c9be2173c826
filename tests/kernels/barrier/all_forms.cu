// all_forms: every spelling of the seeds' bar / barrier{.cta} syntax table
// in one 128-thread CTA (4 warps), each with a checkable effect:
// * .sync forms (barriers 0-3, all warps): bar.sync, bar.cta.sync,
//   barrier.sync{.aligned}, barrier.cta.sync{.aligned}, with and without
//   a thread count;
// * .arrive forms (barriers 4-9, count 128): warps 0-1 store d[k][tid] and
//   arrive with bar.arrive, bar.cta.arrive, barrier.arrive{.aligned},
//   barrier.cta.arrive{.aligned}; warps 2-3 wait with a .sync form and read
//   d[k][tid - 64];
// * .red forms (barriers 10-15, only .red there): popc.u32 / and.pred /
//   or.pred in the bar, bar.cta, barrier, barrier.cta spellings, with and
//   without .aligned, a count of 128 and a negated predicate.
// Predicates: p = (tid % 7 == 0) for popc (19 of 128), all-true t for and,
// all-false z for or: popc(p) = 19, popc(!p) = 109, and(t) = 1,
// and(!t) = 0, or(z) = 0, or(!z) = 1.
// out[tid * 24 + k]: k 0-5 arrive/sync data (warps 2-3; 0 for warps 0-1),
// k 6-23 the 18 reductions in program order.
#define SYNC(s) asm volatile(s ";" ::: "memory")
#define RED_POPC(form, pred)                                                   \
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0;\n " form " %0, " pred    \
               "; }"                                                           \
               : "=r"(r)                                                       \
               : "r"(pv)                                                       \
               : "memory")
#define RED_PRED(form, value, pred)                                            \
  asm volatile("{ .reg .pred p, q; setp.ne.u32 p, %1, 0;\n " form " q, " pred  \
               "; selp.u32 %0, 1, 0, q; }"                                     \
               : "=r"(r)                                                       \
               : "r"(value)                                                    \
               : "memory")

extern "C" __global__ void all_forms(unsigned *out) {
  __shared__ unsigned d[6][64];
  const unsigned tid = threadIdx.x, warp = tid / 32;
  unsigned *o = out + tid * 24;
  SYNC("bar.sync 0");
  SYNC("bar.cta.sync 0");
  SYNC("bar.sync 1, 128");
  SYNC("bar.cta.sync 1, 128");
  SYNC("barrier.sync 2");
  SYNC("barrier.sync.aligned 2");
  SYNC("barrier.cta.sync 3, 128");
  SYNC("barrier.cta.sync.aligned 3, 128");
  if (warp < 2) {
    for (unsigned k = 0; k < 6; ++k)
      d[k][tid] = tid * 10 + k;
    SYNC("bar.arrive 4, 128");
    SYNC("bar.cta.arrive 5, 128");
    SYNC("barrier.arrive 6, 128");
    SYNC("barrier.arrive.aligned 7, 128");
    SYNC("barrier.cta.arrive 8, 128");
    SYNC("barrier.cta.arrive.aligned 9, 128");
    for (unsigned k = 0; k < 6; ++k)
      o[k] = 0;
  } else {
    SYNC("bar.sync 4, 128");
    o[0] = d[0][tid - 64];
    SYNC("bar.cta.sync 5, 128");
    o[1] = d[1][tid - 64];
    SYNC("barrier.sync 6, 128");
    o[2] = d[2][tid - 64];
    SYNC("barrier.sync.aligned 7, 128");
    o[3] = d[3][tid - 64];
    SYNC("barrier.cta.sync 8, 128");
    o[4] = d[4][tid - 64];
    SYNC("barrier.cta.sync.aligned 9, 128");
    o[5] = d[5][tid - 64];
  }
  const unsigned pv = tid % 7 == 0, all_true = 1, all_false = 0;
  unsigned r;
  RED_POPC("bar.red.popc.u32", "10, p");
  o[6] = r;
  RED_POPC("bar.cta.red.popc.u32", "11, 128, !p");
  o[7] = r;
  RED_POPC("barrier.red.popc.u32", "12, p");
  o[8] = r;
  RED_POPC("barrier.red.popc.aligned.u32", "13, 128, !p");
  o[9] = r;
  RED_POPC("barrier.cta.red.popc.u32", "14, !p");
  o[10] = r;
  RED_POPC("barrier.cta.red.popc.aligned.u32", "15, 128, p");
  o[11] = r;
  RED_PRED("bar.red.and.pred", all_true, "10, 128, p");
  o[12] = r;
  RED_PRED("bar.cta.red.and.pred", all_true, "11, !p");
  o[13] = r;
  RED_PRED("barrier.red.and.pred", all_true, "12, 128, !p");
  o[14] = r;
  RED_PRED("barrier.red.and.aligned.pred", all_true, "13, p");
  o[15] = r;
  RED_PRED("barrier.cta.red.and.pred", all_true, "14, 128, p");
  o[16] = r;
  RED_PRED("barrier.cta.red.and.aligned.pred", all_true, "15, !p");
  o[17] = r;
  RED_PRED("bar.red.or.pred", all_false, "10, !p");
  o[18] = r;
  RED_PRED("bar.cta.red.or.pred", all_false, "11, 128, p");
  o[19] = r;
  RED_PRED("barrier.red.or.pred", all_false, "12, p");
  o[20] = r;
  RED_PRED("barrier.red.or.aligned.pred", all_false, "13, 128, !p");
  o[21] = r;
  RED_PRED("barrier.cta.red.or.pred", all_false, "14, !p");
  o[22] = r;
  RED_PRED("barrier.cta.red.or.aligned.pred", all_false, "15, 128, p");
  o[23] = r;
}
