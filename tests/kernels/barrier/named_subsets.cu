// named_subsets: named barriers with thread counts used by disjoint subsets
// of warps at the same time (256 threads = 8 warps):
//   warps 0-1: bar.sync 1, 64      warps 2-4: bar.cta.sync 2, 96
//   warps 5-7: barrier.sync.aligned 3, 96
// then every thread meets at __syncthreads (barrier 0, all threads).
// Each thread stores s[tid] = tid * 5 + 1 and, after its group's barrier,
// reads the entry 32 threads further on inside its group (another warp of
// the group); after barrier 0 it reads s[(tid + 128) % 256].
// out[tid * 2] = group read, out[tid * 2 + 1] = CTA-wide read.
extern "C" __global__ void named_subsets(int *out) {
  __shared__ int s[256];
  const int tid = threadIdx.x, warp = tid / 32;
  s[tid] = tid * 5 + 1;
  int first, size;
  if (warp < 2) {
    asm volatile("bar.sync 1, 64;" ::: "memory");
    first = 0;
    size = 64;
  } else if (warp < 5) {
    asm volatile("bar.cta.sync 2, 96;" ::: "memory");
    first = 64;
    size = 96;
  } else {
    asm volatile("barrier.sync.aligned 3, 96;" ::: "memory");
    first = 160;
    size = 96;
  }
  out[tid * 2] = s[first + (tid - first + 32) % size];
  __syncthreads();
  out[tid * 2 + 1] = s[(tid + 128) % 256];
}
