// Kernels for the report tests of the engine's own diagnostics and of
// device-heap memory (tests/golden/report): each stops, or races, at one
// CUDA line.

// Writes one element past the end of its buffer (out-of-bounds store).
__global__ void past_end(int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i + n] = i;
}

// Half of the warps wait at a barrier the other half never reaches.
__global__ void half_barrier(int *data) {
  if (threadIdx.x < 32) {
    __syncthreads();
    data[threadIdx.x] = 1;
  } else {
    while (data[0] == 0) {
    }
  }
}

// The odd and even lanes of each warp wait at two different barrier
// instructions (barrier divergence).
__global__ void split_barrier(int *data) {
  if (threadIdx.x % 2) {
    data[threadIdx.x] = 1;
    __syncthreads();
  } else {
    data[threadIdx.x] = 2;
    __syncthreads();
  }
}

// Never ends (a step limit stops it).
__global__ void forever(volatile int *flag) {
  while (flag[0] == 0) {
    flag[1] = flag[1] + 1;
  }
}

// A block of the device heap, written by one warp and read by another
// without a barrier between them.
__global__ void heap_race(int *out) {
  __shared__ int *block;
  if (threadIdx.x == 0)
    block = static_cast<int *>(malloc(16 * sizeof(int)));
  __syncthreads();
  if (threadIdx.x == 0)
    block[1] = 7;
  if (threadIdx.x == 32)
    out[0] = block[1];
  __syncthreads();
  if (threadIdx.x == 0)
    free(block);
}
