// grid3d: 3-D grid of 3-D CTAs over a W x H x D domain with tails in all
// three dimensions. Each in-range thread writes its packed coordinates
// (ctaid.x | ctaid.y << 4 | ctaid.z << 8 | tid.x << 12 | tid.y << 16 |
// tid.z << 20) at its global (x, y, z); a thread counter (atomicAdd) counts
// all launched threads, in range or not.
extern "C" __global__ void grid3d(unsigned *out, unsigned *count, int W, int H,
                                  int D) {
  const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  const unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
  atomicAdd(count, 1u);
  if (x < W && y < H && z < D)
    out[(z * H + y) * W + x] = blockIdx.x | blockIdx.y << 4 | blockIdx.z << 8 |
                               threadIdx.x << 12 | threadIdx.y << 16 |
                               threadIdx.z << 20;
}
