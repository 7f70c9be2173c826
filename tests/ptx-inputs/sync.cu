#pragma nv_diag_suppress static_var_with_dynamic_init
// Parser test input: synchronization as nvcc emits it (cooperative groups,
// cuda::barrier, memcpy_async, grid sync, elect, fences, named barriers).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cuda/barrier>
#include <cuda/pipeline>

namespace cg = cooperative_groups;

__global__ void cg_block_and_tile(int *out) {
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<8>(block);
  int v = threadIdx.x;
  v += tile.shfl_down(v, 1);
  tile.sync();
  block.sync();
  out[threadIdx.x] = v + tile.thread_rank() + cg::reduce(tile, v, cg::plus<int>());
}

__global__ void cg_grid_sync(int *data, int n) {
  cg::grid_group grid = cg::this_grid();
  int i = grid.thread_rank();
  if (i < n)
    data[i] += 1;
  grid.sync();
  if (i < n)
    data[i] += data[(i + 1) % n];
}

__global__ void cuda_barrier_split(int *out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int buf[128];
  if (threadIdx.x == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  buf[threadIdx.x] = threadIdx.x * 2;
  auto token = bar.arrive();
  bar.wait(std::move(token));
  out[threadIdx.x] = buf[(threadIdx.x + 1) % blockDim.x];
  if (threadIdx.x % 2)
    bar.arrive_and_drop();
  else
    bar.arrive_and_wait();
}

__global__ void memcpy_async_barrier(const int *in, int *out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int tile[256];
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0)
    init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, in + blockIdx.x * 256, sizeof(tile), bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 256 + threadIdx.x] = tile[255 - threadIdx.x];
}

__global__ void pipeline_copy(const float *in, float *out) {
  __shared__ float tile[128];
  auto pipe = cuda::make_pipeline();
  pipe.producer_acquire();
  cuda::memcpy_async(&tile[threadIdx.x], &in[threadIdx.x], sizeof(float), pipe);
  pipe.producer_commit();
  pipe.consumer_wait();
  out[threadIdx.x] = tile[127 - threadIdx.x];
  pipe.consumer_release();
}

__global__ void last_block_done(const float *in, float *partial, float *result,
                                unsigned *count) {
  __shared__ bool is_last;
  float s = in[blockIdx.x * blockDim.x + threadIdx.x];
  s = __reduce_add_sync(0xffffffff, (unsigned)s);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = s;
    __threadfence();
    unsigned v = atomicInc(count, gridDim.x);
    is_last = (v == gridDim.x - 1);
  }
  __syncthreads();
  if (is_last && threadIdx.x == 0) {
    float t = 0;
    for (unsigned i = 0; i < gridDim.x; ++i)
      t += partial[i];
    *result = t;
    __threadfence_block();
    __threadfence_system();
  }
}

__global__ void named_barriers(int *out) {
  // Producer/consumer with two named barriers (seed 000 example shape).
  __shared__ int slot;
  if (threadIdx.x < 32) {
    slot = 42;
    asm volatile("bar.arrive 1, 64;" ::: "memory");
  } else if (threadIdx.x < 64) {
    asm volatile("bar.sync 1, 64;" ::: "memory");
    out[threadIdx.x] = slot;
  }
  unsigned n;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; barrier.red.popc.aligned.u32 %0, 2, p; }"
               : "=r"(n) : "r"(threadIdx.x & 1));
  out[threadIdx.x + 64] = n;
}
