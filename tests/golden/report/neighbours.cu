// Kernels with one race each, for the report tests (tests/golden/report):
// a buffer argument, a __device__ variable, a structure argument.
struct Params {
  int *out;
  int n;
};

__device__ int tally_count[4];

// Each thread writes its element, then reads its neighbour's: no barrier.
__global__ void neighbours(int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    data[i] = i;
    int next = data[(i + 1) % n];
    data[i] += next;
  }
}

// Every thread increments one counter without an atomic.
__global__ void tally(int bins) {
  int b = threadIdx.x % bins;
  tally_count[b] = tally_count[b] + 1;
}

// The structure's buffer, written by every thread at one place.
__global__ void with_params(Params p) {
  int i = threadIdx.x;
  if (i < p.n)
    p.out[0] = i;
}
