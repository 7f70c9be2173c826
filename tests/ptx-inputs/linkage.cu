// Linkage and kernel attributes as nvcc -rdc=true emits them (built with
// `nvcc -ptx -rdc=true -arch=sm_90`): .weak variables and functions
// (inline variables, templates), .extern variables, managed memory,
// __grid_constant__ parameters, launch bounds, cluster dimensions,
// __maxnreg__, and the device runtime's launch entry points.
template <typename T> __device__ T holder_value = T(7);
extern __device__ int ext_var;
__device__ inline int inl_var = 5;
__device__ __managed__ int managed_v;
template <typename T> __device__ __noinline__ T twice(T x) { return x + x; }
struct Big {
  int a[8];
};
extern "C" __global__ void gc(const __grid_constant__ Big b, int *out) {
  out[threadIdx.x] = twice(b.a[threadIdx.x % 8]) + holder_value<int> +
                     inl_var + ext_var + managed_v;
}
extern "C" __global__ void __launch_bounds__(128, 2, 1) lb(int *out) {
  out[threadIdx.x] = 1;
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) cd(int *out) {
  out[threadIdx.x] = 2;
}
extern "C" __global__ void __maxnreg__(40) mr(int *out) {
  out[threadIdx.x] = twice<long>(3);
}
extern "C" __global__ void child(int *p) { p[threadIdx.x] = 1; }
extern "C" __global__ void parent(int *p) {
  if (threadIdx.x == 0)
    child<<<1, 32>>>(p);
}
