// patterns: more small kernels of the kinds verification suites hold.
//   broadcast_buggy: thread 0 stores a value into shared memory that every
//     thread then reads, with no barrier (other warps, and the other lanes
//     of warp 0).
//   broadcast_fixed: __syncthreads() between (clean).
//   volatile_flag_buggy: thread 0 stores data, then sets a volatile shared
//     flag without a fence; thread 32 spins on the flag and reads the data:
//     the flag accesses are strong, but no release/acquire pattern orders
//     the data (a data race).
//   ldg_shift: out[i] = __ldg(&in[i + 1]) (ld.global.nc); clean with two
//     buffers, a race when in and out are the same buffer.
//   devvar_buggy: thread 0 of every CTA adds to a __device__ variable with a
//     plain load and store (across CTAs).
//   devvar_fixed: atomicAdd (clean).
//   generic_buggy: stores and loads of shared memory through a generic
//     pointer (shared or global, chosen at run time), no barrier between.
//   generic_fixed: a barrier between (clean).
//   shared_lock_fixed: lane 0 of every warp takes a lock in shared memory
//     (atomicCAS + __threadfence_block()), increments a plain shared
//     counter, and releases it (__threadfence_block() + atomicExch): clean.
//   struct_copy_fixed: a shared array of {char, int} records (3 padding
//     bytes each) is copied whole to global memory after a barrier: the
//     copy reads the padding, which nothing wrote (not a bug: clean).
//   chain_buggy: for k = 1..n-1 thread k sets a[k] = a[k - 1] + 1: thread k
//     reads what thread k - 1 wrote in the previous iteration, with nothing
//     between them (lanes of one warp, and across warps at k = 32, 64, 96).
//   chain_fixed: a __syncthreads() ends every iteration (clean).
//   uniform_barrier_fixed: a barrier inside `if (blockIdx.x == 0)`: every
//     thread of a CTA takes the same branch (clean).
//   half_warp_barrier_buggy: __syncthreads() inside `if (t % 2 == 0)`: half
//     of every warp reaches it (barrier divergence).
//   partial_syncwarp_fixed: lanes 0-15 store, __syncwarp(0xffff), and read
//     their neighbour's element among lanes 0-15 (clean).
// arch: sm_90

extern "C" __global__ void broadcast_buggy(const int *in, int *out) {
  __shared__ int value;
  const int t = threadIdx.x;
  if (t == 0)
    value = in[0] * 3;
  out[t] = value + t;
}

extern "C" __global__ void broadcast_fixed(const int *in, int *out) {
  __shared__ int value;
  const int t = threadIdx.x;
  if (t == 0)
    value = in[0] * 3;
  __syncthreads();
  out[t] = value + t;
}

extern "C" __global__ void volatile_flag_buggy(const int *in, int *out) {
  __shared__ int data;
  __shared__ volatile int flag;
  const int t = threadIdx.x;
  if (t == 0)
    flag = 0;
  __syncthreads();
  if (t == 0) {
    data = in[0] + 1;
    flag = 1;
  } else if (t == 32) {
    while (flag == 0) {
    }
    out[0] = data;
  }
}

extern "C" __global__ void ldg_shift(const int *__restrict__ in,
                                     int *__restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n)
    out[i] = __ldg(&in[i + 1]) * 2;
}

__device__ int total;

extern "C" __global__ void devvar_buggy(const int *in) {
  if (threadIdx.x == 0)
    total = total + in[blockIdx.x];
}

extern "C" __global__ void devvar_fixed(const int *in) {
  if (threadIdx.x == 0)
    atomicAdd(&total, in[blockIdx.x]);
}

extern "C" __global__ void generic_buggy(const int *in, int *out, int *spill,
                                         int use_spill) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  int *buf = use_spill ? spill : s;
  buf[t] = in[t] + 1;
  out[t] = buf[(t + 32) % 128];
}

extern "C" __global__ void generic_fixed(const int *in, int *out, int *spill,
                                         int use_spill) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  int *buf = use_spill ? spill : s;
  buf[t] = in[t] + 1;
  __syncthreads();
  out[t] = buf[(t + 32) % 128];
}

extern "C" __global__ void shared_lock_fixed(int *out) {
  __shared__ int lock;
  __shared__ int count;
  const int t = threadIdx.x;
  if (t == 0) {
    lock = 0;
    count = 0;
  }
  __syncthreads();
  if (t % 32 == 0) {
    while (atomicCAS(&lock, 0, 1) != 0) {
    }
    __threadfence_block();
    count = count + 1;
    __threadfence_block();
    atomicExch(&lock, 0);
  }
  __syncthreads();
  if (t == 0)
    out[0] = count;
}

struct Rec {
  char tag;
  int val;
};

extern "C" __global__ void struct_copy_fixed(const int *in, Rec *out) {
  __shared__ Rec r[128];
  const int t = threadIdx.x;
  r[t].tag = static_cast<char>(t);
  r[t].val = in[t];
  __syncthreads();
  out[t] = r[(t + 1) % 128];
}

extern "C" __global__ void chain_buggy(int *a, int n) {
  const int t = threadIdx.x;
#pragma unroll 1
  for (int k = 1; k < n; ++k) {
    if (t == k)
      a[k] = a[k - 1] + 1;
  }
}

extern "C" __global__ void chain_fixed(int *a, int n) {
  const int t = threadIdx.x;
#pragma unroll 1
  for (int k = 1; k < n; ++k) {
    if (t == k)
      a[k] = a[k - 1] + 1;
    __syncthreads();
  }
}

extern "C" __global__ void uniform_barrier_fixed(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  if (blockIdx.x == 0) {
    s[t] = in[t];
    __syncthreads();
    out[t] = s[(t + 32) % 128];
  }
}

extern "C" __global__ void half_warp_barrier_buggy(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[t];
  if (t % 2 == 0)
    __syncthreads();
  out[t] = s[t];
}

extern "C" __global__ void partial_syncwarp_fixed(const int *in, int *out) {
  __shared__ int s[32];
  const int t = threadIdx.x;
  if (t < 16) {
    s[t] = in[t] * 2;
    __syncwarp(0xffffu);
    out[t] = s[t ^ 1];
  }
}
