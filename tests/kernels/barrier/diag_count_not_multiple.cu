// diag_count_not_multiple (expect-fail: multiple): the thread count of
// bar.sync comes from a register (a kernel parameter, 48) and is not a
// multiple of the warp size. PTX: "the value must be a multiple of the
// warp size"; the engine must report it at run time.
extern "C" __global__ void diag_count_not_multiple(int *out, unsigned count) {
  asm volatile("bar.sync 1, %0;" ::"r"(count) : "memory");
  out[threadIdx.x] = 1;
}
