// 2-D and 3-D grids with tails: every in-range thread writes a value
// computed from its coordinates; out-of-range threads exit early.
__global__ void grid3d(unsigned *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz)
    return;
  out[(z * ny + y) * nx + x] = (unsigned)(x * 7 + y * 131 + z * 1031) ^ (blockIdx.x + blockIdx.y * 3 + blockIdx.z * 5);
}

__global__ void matmul(const float *a, const float *b, float *c, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n && col < n) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += a[row * n + k] * b[k * n + col];
    c[row * n + col] = s;
  }
}
