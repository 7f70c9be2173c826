// 3-D memory: cudaMalloc3D, cudaMemcpy3D[Async] (and the Peer forms on the
// one device) between host and pitched device memory (whole boxes and
// boxes at an offset) and into and out of a 2-D CUDA array,
// cudaMemset3D[Async]. The first argument picks the case:
//   (none) the checks (PASS)
//   race   a cudaMemcpy3DAsync in stream 1 writes the memory a kernel in
//          stream 2 reads, nothing orders them (a race)
#include <cstring>

#include "common.h"

constexpr int W = 37, H = 5, D = 4; // ints per row, rows, slices

__global__ void bump(cudaPitchedPtr p) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  char *slice = static_cast<char *>(p.ptr) + z * p.pitch * p.ysize;
  int *row = reinterpret_cast<int *>(slice + y * p.pitch);
  row[x] += 1;
}

static int value(int x, int y, int z) { return z * 1000 + y * 100 + x; }

static int race() {
  static int host[D][H][W];
  cudaPitchedPtr dev;
  CHECK(cudaMalloc3D(&dev, make_cudaExtent(W * sizeof(int), H, D)));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  cudaMemcpy3DParms p;
  std::memset(&p, 0, sizeof(p));
  p.srcPtr = make_cudaPitchedPtr(host, W * sizeof(int), W * sizeof(int), H);
  p.dstPtr = dev;
  p.extent = make_cudaExtent(W * sizeof(int), H, D);
  p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3DAsync(&p, s1));
  bump<<<dim3(H, D), W, 0, s2>>>(dev);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(dev.ptr));
  return finish("memory3d");
}

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "race") == 0)
    return race();
  static int host[D][H][W], back[D][H][W];
  for (int z = 0; z < D; ++z)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x)
        host[z][y][x] = value(x, y, z);
  const cudaExtent whole = make_cudaExtent(W * sizeof(int), H, D);
  cudaPitchedPtr dev;
  CHECK(cudaMalloc3D(&dev, whole));
  EXPECT(dev.ptr != nullptr && dev.pitch >= W * sizeof(int));
  EXPECT(dev.xsize == W * sizeof(int) && dev.ysize == H);

  CHECK(cudaMemset3D(dev, 0, whole));
  cudaMemcpy3DParms p;
  std::memset(&p, 0, sizeof(p));
  p.srcPtr = make_cudaPitchedPtr(host, W * sizeof(int), W * sizeof(int), H);
  p.dstPtr = dev;
  p.extent = whole;
  p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p));
  bump<<<dim3(H, D), W>>>(dev);
  // Slice 1, the first two ints of each row, to 0xff bytes.
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaPitchedPtr slice1 = dev;
  slice1.ptr = static_cast<char *>(dev.ptr) + dev.pitch * H;
  CHECK(cudaStreamSynchronize(0));
  CHECK(cudaMemset3DAsync(slice1, 0xff, make_cudaExtent(2 * sizeof(int), H, 1),
                          s));

  // A box at an offset: ints x 1..2, rows 1..2, slices 2..3.
  int box[2][2][2];
  std::memset(box, 0, sizeof(box));
  cudaMemcpy3DParms q;
  std::memset(&q, 0, sizeof(q));
  q.srcPtr = dev;
  q.srcPos = make_cudaPos(sizeof(int), 1, 2);
  q.dstPtr = make_cudaPitchedPtr(box, 2 * sizeof(int), 2 * sizeof(int), 2);
  q.extent = make_cudaExtent(2 * sizeof(int), 2, 2);
  q.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3DAsync(&q, s));
  CHECK(cudaStreamSynchronize(s));
  bool ok = true;
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x)
        ok = ok && box[z][y][x] == value(x + 1, y + 1, z + 2) + 1;
  EXPECT(ok);

  // Everything back.
  std::swap(p.srcPtr, p.dstPtr);
  p.dstPtr.ptr = back;
  p.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&p));
  ok = true;
  for (int z = 0; z < D; ++z)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x)
        ok = ok && back[z][y][x] == (z == 1 && x < 2 ? -1 : value(x, y, z) + 1);
  EXPECT(ok);

  // A peer copy on the one device: the box at an offset again, into device
  // memory (host memory is refused: a peer copy is between devices).
  cudaMemcpy3DPeerParms pp;
  std::memset(&pp, 0, sizeof(pp));
  pp.srcPtr = dev;
  pp.srcPos = make_cudaPos(sizeof(int), 1, 2);
  pp.dstPtr = make_cudaPitchedPtr(box, 2 * sizeof(int), 2 * sizeof(int), 2);
  pp.extent = make_cudaExtent(2 * sizeof(int), 2, 2);
  EXPECT(cudaMemcpy3DPeer(&pp) == cudaErrorInvalidValue);
  cudaGetLastError();
  int *dbox;
  CHECK(cudaMalloc(&dbox, sizeof(box)));
  pp.dstPtr = make_cudaPitchedPtr(dbox, 2 * sizeof(int), 2 * sizeof(int), 2);
  CHECK(cudaMemcpy3DPeer(&pp));
  std::memset(box, 0, sizeof(box));
  CHECK(cudaMemcpy(box, dbox, sizeof(box), cudaMemcpyDeviceToHost));
  ok = true;
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x)
        ok = ok && box[z][y][x] == value(x + 1, y + 1, z + 2) + 1;
  EXPECT(ok);
  pp.dstDevice = 1;
  EXPECT(cudaMemcpy3DPeerAsync(&pp, s) == cudaErrorInvalidDevice);
  cudaGetLastError();
  CHECK(cudaFree(dbox));

  // A 2-D CUDA array: positions and widths in elements on its side.
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<int>();
  cudaArray_t arr;
  CHECK(cudaMallocArray(&arr, &desc, 16, 4));
  int zeros[4][16], rows[4][16];
  std::memset(zeros, 0, sizeof(zeros));
  CHECK(cudaMemcpy2DToArray(arr, 0, 0, zeros, sizeof(zeros[0]),
                            sizeof(zeros[0]), 4, cudaMemcpyHostToDevice));
  cudaMemcpy3DParms r;
  std::memset(&r, 0, sizeof(r));
  r.srcPtr = make_cudaPitchedPtr(host, W * sizeof(int), W * sizeof(int), H);
  r.srcPos = make_cudaPos(0, 0, 3); // slice 3 of host
  r.dstArray = arr;
  r.dstPos = make_cudaPos(2, 1, 0);    // element 2 of row 1
  r.extent = make_cudaExtent(8, 3, 1); // 8 elements, 3 rows
  r.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&r));
  CHECK(cudaMemcpy2DFromArray(rows, sizeof(rows[0]), arr, 0, 0, sizeof(rows[0]),
                              4, cudaMemcpyDeviceToHost));
  ok = true;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 16; ++x) {
      const bool in = y >= 1 && y < 4 && x >= 2 && x < 10;
      ok = ok && rows[y][x] == (in ? value(x - 2, y - 1, 3) : 0);
    }
  EXPECT(ok);
  // And out of it again.
  int out[3][8];
  cudaMemcpy3DParms o;
  std::memset(&o, 0, sizeof(o));
  o.srcArray = arr;
  o.srcPos = make_cudaPos(2, 1, 0);
  o.dstPtr = make_cudaPitchedPtr(out, sizeof(out[0]), sizeof(out[0]), 3);
  o.extent = make_cudaExtent(8, 3, 1);
  o.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&o));
  ok = true;
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 8; ++x)
      ok = ok && out[y][x] == value(x, y, 3);
  EXPECT(ok);
  // Past the array's end.
  r.dstPos = make_cudaPos(10, 0, 0);
  EXPECT(cudaMemcpy3D(&r) == cudaErrorInvalidValue);
  cudaGetLastError();

  CHECK(cudaFreeArray(arr));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(dev.ptr));
  return finish("memory3d");
}
