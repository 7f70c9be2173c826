// cuda_barrier: cuda::memcpy_async of a CTA's tile from global to shared
// memory, completed through a cuda::barrier (on sm_80: cp.async per
// element and cp.async.mbarrier.arrive on the barrier's mbarrier). The
// copies complete before the phase does, so a successful wait on the
// phase orders them before the waiting thread's loads.
//   cuda_barrier_fixed: bar.arrive() returns a token; the thread does some
//     unrelated work (scales its own global element) and then
//     bar.wait(token) before it reads the tile (clean).
//   cuda_barrier_buggy: the tile element is read between arrive() and
//     wait(): the load races with the asynchronous copy of that element.
// Launch: -g 2 -b 128; in = s32[256] (iota), out = s32[256], aux = s32[256]
// (iota).
// Fixed result: out[b*128 + t] = in[b*128 + (t + 37) % 128] - 1;
// aux[i] = 3 * aux_before[i].
#include <cooperative_groups.h>
#include <cuda/barrier>

// The barrier is initialized by one thread with init(), not by a
// constructor.
#pragma nv_diag_suppress static_var_with_dynamic_init

namespace cg = cooperative_groups;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

extern "C" __global__ void cuda_barrier_fixed(const int *in, int *out,
                                              int *aux) {
  __shared__ block_barrier bar;
  __shared__ alignas(16) int tile[128];
  const cg::thread_block block = cg::this_thread_block();
  const int t = threadIdx.x;
  if (block.thread_rank() == 0)
    init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, in + blockIdx.x * 128, sizeof(int) * 128,
                     bar);
  block_barrier::arrival_token token = bar.arrive();
  aux[blockIdx.x * 128 + t] *= 3;
  bar.wait(std::move(token));
  out[blockIdx.x * 128 + t] = tile[(t + 37) % 128] - 1;
}

extern "C" __global__ void cuda_barrier_buggy(const int *in, int *out,
                                              int *aux) {
  __shared__ block_barrier bar;
  __shared__ alignas(16) int tile[128];
  const cg::thread_block block = cg::this_thread_block();
  const int t = threadIdx.x;
  if (block.thread_rank() == 0)
    init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, in + blockIdx.x * 128, sizeof(int) * 128,
                     bar);
  block_barrier::arrival_token token = bar.arrive();
  aux[blockIdx.x * 128 + t] *= 3;
  const int v = tile[(t + 37) % 128];
  bar.wait(std::move(token));
  out[blockIdx.x * 128 + t] = v - 1;
}
