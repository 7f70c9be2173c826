// memcpy_async: cuda::memcpy_async of a CTA's 256-int slice from global to
// shared memory, completed through a cuda::barrier (cp.async with
// cp.async.mbarrier.arrive on sm_80), then arrive_and_wait; the copy must
// be complete and visible to every thread once the barrier phase is done.
// out[gtid] = buf[tid] + 2 * buf[255 - tid] (in = iota, 256 threads/CTA).
#include <cooperative_groups.h>
#include <cuda/barrier>

// The barrier object is initialized with init() by one thread, not by a
// constructor.
#pragma nv_diag_suppress static_var_with_dynamic_init

namespace cg = cooperative_groups;

extern "C" __global__ void memcpy_async(const int *in, int *out) {
  using barrier_t = cuda::barrier<cuda::thread_scope_block>;
  __shared__ barrier_t bar;
  __shared__ alignas(16) int buf[256];
  const cg::thread_block block = cg::this_thread_block();
  if (block.thread_rank() == 0)
    init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, buf, in + blockIdx.x * 256, sizeof(int) * 256, bar);
  bar.arrive_and_wait();
  const int tid = threadIdx.x;
  out[blockIdx.x * 256 + tid] = buf[tid] + 2 * buf[255 - tid];
}
