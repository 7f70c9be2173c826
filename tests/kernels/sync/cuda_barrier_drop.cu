// cuda_barrier_drop: cuda::barrier<thread_scope_block> (an mbarrier in
// shared memory: mbarrier.init / arrive / test_wait / arrive_drop) with
// split arrive and wait, reused over 4 phases, and threads leaving with
// arrive_and_drop. 128 threads; in iteration 2 the threads with tid >= 96
// call arrive_and_drop (their arrival completes phase 2 and the expected
// count drops to 96 for later phases) and leave the loop.
// Iteration it: s[it & 1][tid] = tid * (it + 1) + 5; token = arrive();
// (work) wait(token); acc += s[it & 1][(tid + 32) % m], m = 128 for it < 2,
// 96 after. out[gtid] = acc (threads >= 96: acc of iterations 0-1).
#include <cuda/barrier>

// The barrier object is initialized with init() by one thread, not by a
// constructor.
#pragma nv_diag_suppress static_var_with_dynamic_init

extern "C" __global__ void cuda_barrier_drop(int *out) {
  using barrier_t = cuda::barrier<cuda::thread_scope_block>;
  __shared__ barrier_t bar;
  __shared__ int s[2][128];
  const int tid = threadIdx.x;
  if (tid == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  int acc = 0;
  for (int it = 0; it < 4; ++it) {
    if (tid >= 96 && it == 2) {
      bar.arrive_and_drop();
      break;
    }
    s[it & 1][tid] = tid * (it + 1) + 5;
    barrier_t::arrival_token token = bar.arrive();
    const int m = it < 2 ? 128 : 96;
    const int partner = (tid + 32) % m; // computed between arrive and wait
    bar.wait(std::move(token));
    acc += s[it & 1][partner];
  }
  out[blockIdx.x * blockDim.x + tid] = acc;
}
