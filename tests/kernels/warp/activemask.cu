// activemask: __activemask() (activemask.b32) of a full warp, of the
// partial last warp of a 48-thread CTA (lanes 0..15 exist), and inside a
// branch taken by lanes 0..9 only. out[tid * 2 + 0] at kernel entry,
// out[tid * 2 + 1] inside the branch (lanes >= 10 write 0).
// The in-branch value assumes the lanes that took the branch execute it
// together (the usual behaviour; CUDA does not guarantee it).
extern "C" __global__ void activemask(unsigned *out) {
  const unsigned tid = threadIdx.x;
  out[tid * 2] = __activemask();
  if (tid % 32 < 10)
    out[tid * 2 + 1] = __activemask();
  else
    out[tid * 2 + 1] = 0;
}
