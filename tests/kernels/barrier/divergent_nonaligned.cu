// divergent_nonaligned: barrier.sync without .aligned reached by the two
// halves of every warp through different instructions in divergent code.
// PTX (sm_70+): each thread waits for the non-exited threads of its warp,
// then the warp counts as one arrival at the barrier; the barrier id, not
// the instruction, is what the threads meet at.
// out[tid] = lanes < 16: s[(tid + 64) % 128]; others: s[(tid + 32) % 128]
//            + 1000, where s[t] = 2t for lanes < 16 and 2t + 1 otherwise.
extern "C" __global__ void divergent_nonaligned(int *out) {
  __shared__ int s[128];
  const int tid = threadIdx.x, lane = tid % 32;
  int r;
  if (lane < 16) {
    s[tid] = tid * 2;
    asm volatile("barrier.sync 0;" ::: "memory");
    r = s[(tid + 64) % 128];
  } else {
    s[tid] = tid * 2 + 1;
    asm volatile("barrier.cta.sync 0;" ::: "memory");
    r = s[(tid + 32) % 128] + 1000;
  }
  out[tid] = r;
}
