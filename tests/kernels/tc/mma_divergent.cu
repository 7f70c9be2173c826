// mma_divergent: only lanes 0..15 of the warp execute an
// mma.sync.aligned; the other lanes go on and exit. bcusim must report the
// instruction, the warp and the missing lanes (a .sync.aligned instruction
// needs all 32 lanes), not compute with half a warp.
// Launch: -g 1 -b 32, out = f32[128].
extern "C" __global__ void mma_divergent(float *out) {
  const int lane = threadIdx.x;
  float c[4] = {0, 0, 0, 0};
  if (lane < 16) {
    unsigned a = 0x3c003c00u, b = 0x3c003c00u;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a), "r"(a), "r"(b));
  }
  for (int i = 0; i < 4; ++i)
    out[lane * 4 + i] = c[i];
}
