// Recursive device functions that nvcc keeps as real recursive `call`s:
// each activation has its own frame (__local_depot, .param) and registers.
// Compiled with `nvcc -ptx -arch=sm_80`.

// Factorial (modulo a prime, so that nvcc cannot turn it into a loop) and
// Fibonacci with per-lane different depths (the lanes of one warp recurse
// to different depths at the same time).
__device__ __noinline__ unsigned long long fact(int n) {
  if (n <= 1)
    return 1;
  return (unsigned long long)n * fact(n - 1) % 1000000007ull;
}

__device__ __noinline__ int fib(int n) {
  if (n < 2)
    return n;
  return fib(n - 1) + fib(n - 2);
}

__global__ void fact_fib(const int *n, unsigned long long *f, int *g) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  f[t] = fact(n[t]);
  g[t] = fib(n[t] % 16);
}

// A binary tree in an array (children of i: left[i], right[i], -1 none);
// each thread sums the subtree rooted at its node.
__device__ __noinline__ int tree_sum(const int *val, const int *left,
                                     const int *right, int i) {
  if (i < 0)
    return 0;
  return val[i] + tree_sum(val, left, right, left[i]) +
         tree_sum(val, left, right, right[i]);
}

__global__ void tree(const int *val, const int *left, const int *right,
                     int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n)
    out[t] = tree_sum(val, left, right, t);
}

// Mutual recursion through two functions.
__device__ __noinline__ bool is_odd(unsigned n);
__device__ __noinline__ bool is_even(unsigned n) {
  return n == 0 ? true : is_odd(n - 1);
}
__device__ __noinline__ bool is_odd(unsigned n) {
  return n == 0 ? false : is_even(n - 1);
}

__global__ void parity(const unsigned *n, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = is_even(n[t]) ? 2 : (is_odd(n[t]) ? 1 : 0);
}

// Recursion through a function pointer: the callee calls back through the
// table, so the static call graph has no cycle.
typedef int (*step_t)(int, int);
__device__ int down(int n, int acc);
__device__ int half(int n, int acc);
__device__ step_t steps[2] = {down, half};

__device__ __noinline__ int down(int n, int acc) {
  if (n <= 0)
    return acc;
  return steps[n & 1](n - 1, acc * 3 + n);
}
__device__ __noinline__ int half(int n, int acc) {
  if (n <= 0)
    return acc;
  int r = steps[(n >> 1) & 1](n / 2, acc + 7);
  return r ^ n;
}

__global__ void fnptr(const int *n, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = steps[t & 1](n[t], t);
}

// A local array at every depth: each activation fills its own copy, the
// recursive call gets a pointer to the caller's, and the caller reads its
// own copy back after the call (it must not have been overwritten).
__device__ __noinline__ int depot(int n, int *parent, int k) {
  int a[12];
  for (int i = 0; i < 12; ++i)
    a[i] = n * 100 + i + (parent ? parent[(i + k) % 12] : 0);
  int r = 0;
  if (n > 0)
    r = depot(n - 1, a, k + 1);
  for (int i = 0; i < 12; ++i)
    r += a[(i * 5 + k) % 12] * (i + 1);
  return r;
}

__global__ void locals(const int *n, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = depot(n[t], nullptr, t & 3);
}

// Recursion that works on shared memory: each warp's lanes fill their own
// elements at every depth (no barrier needed), then the CTA sums.
__device__ __noinline__ void paint(int *s, int t, int d) {
  if (d == 0)
    return;
  paint(s, t, d - 1);
  s[t * 4 + (d & 3)] = s[t * 4 + (d & 3)] * 3 + d * (t + 1);
}

__global__ void shared_paint(const int *depth, int *out) {
  __shared__ int s[128 * 4];
  int t = threadIdx.x;
  for (int i = 0; i < 4; ++i)
    s[t * 4 + i] = 0;
  paint(s, t, depth[t]);
  __syncthreads();
  out[t] =
      s[t * 4] + 10 * s[t * 4 + 1] + 100 * s[t * 4 + 2] + 1000 * s[t * 4 + 3];
}

// Runaway recursion: never stops for a negative argument.
__device__ __noinline__ int runaway(int n, volatile int *sink) {
  int a[8];
  for (int i = 0; i < 8; ++i)
    a[i] = n + i;
  sink[n & 7] = a[n & 7];
  if (n == 0)
    return 0;
  return 1 + runaway(n - 1, sink) + a[(n * 3) & 7];
}

__global__ void deep(const int *n, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = runaway(n[t], out + 64);
}
