// pipeline: a two-stage cuda::pipeline shared by the whole CTA
// (cuda::make_pipeline(block, &shared_state)): the CTA keeps up to two
// tiles in flight (producer_acquire, cuda::memcpy_async, producer_commit),
// and consumes them in order (consumer_wait, read, consumer_release).
// consumer_wait returns once every thread's copies of the oldest stage
// have completed (the stage's mbarrier phase), which orders them before
// the loads; consumer_release lets a later producer_acquire reuse the
// stage (write-after-read ordered the same way).
//   pipeline_fixed: as described (clean).
//   pipeline_buggy: the load of a stage is above consumer_wait() (hoisted
//     to overlap it with the copy): the wait does not cover it, and the
//     load races with the asynchronous copy of that tile. (Every phase is
//     still waited for, so the pipeline's mbarriers are used correctly.)
// The copies are 16-byte aligned (cuda::aligned_size_t<16>): each of the
// first 32 threads copies 16 bytes with one cp.async.
// Launch: -g 1 -b 128; in = s32[512] (iota), out = s32[128], ntiles = 4.
// Fixed result: out[t] = sum over i < ntiles of
//   (i + 1) * in[i * 128 + (t + 37) % 128].
#include <cooperative_groups.h>
#include <cuda/pipeline>

#pragma nv_diag_suppress static_var_with_dynamic_init

namespace cg = cooperative_groups;
constexpr int kStages = 2;
using shared_state =
    cuda::pipeline_shared_state<cuda::thread_scope_block, kStages>;

extern "C" __global__ void pipeline_fixed(const int *in, int *out, int ntiles) {
  __shared__ alignas(16) int stage[kStages][128];
  __shared__ shared_state state;
  const cg::thread_block block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  const int t = threadIdx.x;
  int acc = 0;
  int fetched = 0;
#pragma unroll 1
  for (int i = 0; i < ntiles; ++i) {
#pragma unroll 1
    for (; fetched < ntiles && fetched < i + kStages; ++fetched) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, stage[fetched % kStages], in + fetched * 128,
                         cuda::aligned_size_t<16>(sizeof(int) * 128), pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    acc += (i + 1) * stage[i % kStages][(t + 37) % 128];
    pipe.consumer_release();
  }
  out[t] = acc;
}

extern "C" __global__ void pipeline_buggy(const int *in, int *out, int ntiles) {
  __shared__ alignas(16) int stage[kStages][128];
  __shared__ shared_state state;
  const cg::thread_block block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  const int t = threadIdx.x;
  int acc = 0;
  int fetched = 0;
#pragma unroll 1
  for (int i = 0; i < ntiles; ++i) {
#pragma unroll 1
    for (; fetched < ntiles && fetched < i + kStages; ++fetched) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, stage[fetched % kStages], in + fetched * 128,
                         cuda::aligned_size_t<16>(sizeof(int) * 128), pipe);
      pipe.producer_commit();
    }
    const int v = stage[i % kStages][(t + 37) % 128];
    pipe.consumer_wait();
    acc += (i + 1) * v;
    pipe.consumer_release();
  }
  out[t] = acc;
}
