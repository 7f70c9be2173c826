// setmaxnreg (docs/hopper.md "setmaxnreg"): nvcc -ptx -arch=sm_90a
// setmaxnreg.cu, one kernel per golden test.
//
// specialized: a producer warpgroup gives registers back, a consumer
// warpgroup takes more (the kernel starts at 128 per thread).
extern "C" __global__ void __maxnreg__(128) specialized(int *out) {
  if (threadIdx.x / 128 == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    out[threadIdx.x] = 40;
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    out[threadIdx.x] = 232;
  }
}

// wrong_direction: .inc to fewer registers than the warp has.
extern "C" __global__ void __maxnreg__(128) wrong_direction(int *out) {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 64;");
  out[threadIdx.x] = 64;
}

// split_warpgroup: the warps of one warpgroup execute different setmaxnreg.
extern "C" __global__ void __maxnreg__(128) split_warpgroup(int *out) {
  if (threadIdx.x < 64)
    asm volatile("setmaxnreg.dec.sync.aligned.u32 96;");
  else
    asm volatile("setmaxnreg.dec.sync.aligned.u32 64;");
  out[threadIdx.x] = 1;
}
