// arch: sm_90
// diag_cluster_arrive_twice (expect-fail: arriv): every thread of a 2-CTA
// cluster executes barrier.cluster.arrive twice before waiting. PTX: each
// thread arrives exactly once per phase (bcusim reports a second arrival).
extern "C" __global__ void __cluster_dims__(2, 1, 1)
    diag_cluster_arrive_twice(int *out) {
  asm volatile("barrier.cluster.arrive.aligned;" ::: "memory");
  asm volatile("barrier.cluster.arrive.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}
