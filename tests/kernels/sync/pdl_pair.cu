// arch: sm_90
// pdl_pair: a producer and a consumer launched one after the other with
// programmatic dependent launch (`bcusim run ... -k pdl_producer ... --pdl
// --then -k pdl_consumer ...`). The producer lets its dependents start
// (cudaTriggerProgrammaticLaunchCompletion = griddepcontrol.launch_dependents)
// BEFORE it writes `mid`; the consumer does independent work, then
// cudaGridDependencySynchronize (griddepcontrol.wait), which waits until the
// producer grid completed and its writes are visible, and only then reads
// `mid`. Reading `mid` before the wait would be a race.
// mid[g] = in[g] * 2 + 1 (g = global thread index, n threads);
// out[g] = mid[(g + 1) % n] + g * 5.
extern "C" __global__ void pdl_producer(const int *in, int *mid) {
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  cudaTriggerProgrammaticLaunchCompletion();
  mid[g] = in[g] * 2 + 1;
}

extern "C" __global__ void pdl_consumer(const int *mid, int *out) {
  const unsigned n = gridDim.x * blockDim.x;
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  const int pre = static_cast<int>(g) * 5; // before the dependency
  cudaGridDependencySynchronize();
  out[g] = mid[(g + 1) % n] + pre;
}
