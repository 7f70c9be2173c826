// cg_block_sync: cooperative_groups::this_thread_block().sync() called from
// divergent branches (threads with tid % 3 == 0 and the others reach two
// different call sites). nvcc emits the non-aligned barrier.sync 0 for it,
// which makes it legal in divergent code on sm_70+.
// out[tid] = tid % 3 == 0 ? s[(tid + 1) % n] : s[(tid + 2) % n] * 2, with
// s[t] = t % 3 == 0 ? t : -t.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void cg_block_sync(int *out) {
  __shared__ int s[1024];
  const cg::thread_block block = cg::this_thread_block();
  const int tid = threadIdx.x, n = blockDim.x;
  int r;
  if (tid % 3 == 0) {
    s[tid] = tid;
    block.sync();
    r = s[(tid + 1) % n];
  } else {
    s[tid] = -tid;
    block.sync();
    r = s[(tid + 2) % n] * 2;
  }
  out[blockIdx.x * n + tid] = r;
}
