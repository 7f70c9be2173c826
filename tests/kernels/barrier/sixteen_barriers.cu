// sixteen_barriers: a 1024-thread CTA (32 warps) with all 16 barriers in
// flight at once: warps 2b and 2b+1 use barrier b (0..15) with a count of
// 64, both from registers (barrier.sync %id, %cnt), reused 4 times in a
// loop over a double buffer. Checks barrier ids 0..15 are independent,
// register operands, and reuse after each completion.
// out[tid] = sum over it < 4 of ((tid ^ 32) * (it + 1) + it) * (it + 1)
extern "C" __global__ void sixteen_barriers(int *out, unsigned count) {
  __shared__ int s[2][1024];
  const unsigned tid = threadIdx.x;
  const unsigned id = tid / 64;
  int acc = 0;
  for (int it = 0; it < 4; ++it) {
    s[it & 1][tid] = static_cast<int>(tid) * (it + 1) + it;
    asm volatile("barrier.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
    acc += s[it & 1][tid ^ 32] * (it + 1);
  }
  out[tid] = acc;
}
