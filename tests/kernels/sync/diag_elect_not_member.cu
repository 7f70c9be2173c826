// arch: sm_90
// diag_elect_not_member (expect-fail: membermask): every lane executes
// elect.sync with a member mask (a parameter, 0xfffffffe) that leaves out
// lane 0. PTX: the executing thread must be in membermask. (The `_` sink
// for d is legal.)
extern "C" __global__ void diag_elect_not_member(unsigned *out, unsigned mask) {
  unsigned is_leader;
  asm volatile("{ .reg .pred p; elect.sync _|p, %1;\n"
               "  selp.u32 %0, 1, 0, p; }"
               : "=r"(is_leader)
               : "r"(mask));
  out[threadIdx.x] = is_leader;
}
