// grid2d: 2-D grid and 2-D CTAs whose extent overhangs the W x H domain.
// Checks %ctaid.x/y, %tid.x/y, %ntid.x/y and %nctaid.x/y, and the usual
// bounds-check tail: only threads with x < W and y < H write, so every
// element is written exactly once by the thread whose global index it is.
// out[y * W + x] = (ctaid.y * nctaid.x + ctaid.x) * 1000
//                  + tid.y * ntid.x + tid.x
// dims (written by thread (0,0) of CTA (0,0)) = nctaid.xyz, ntid.xyz.
extern "C" __global__ void grid2d(int *out, int *dims, int W, int H) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < W && y < H)
    out[y * W + x] = (blockIdx.y * gridDim.x + blockIdx.x) * 1000 +
                     threadIdx.y * blockDim.x + threadIdx.x;
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 &&
      threadIdx.y == 0) {
    dims[0] = gridDim.x;
    dims[1] = gridDim.y;
    dims[2] = gridDim.z;
    dims[3] = blockDim.x;
    dims[4] = blockDim.y;
    dims[5] = blockDim.z;
  }
}
