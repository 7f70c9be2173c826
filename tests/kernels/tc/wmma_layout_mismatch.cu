// wmma_layout_mismatch: matrix A is loaded with wmma.load.a...col but
// wmma.mma declares it .row (PTX: undefined). bcusim must reject the kernel
// at the wmma.mma, naming the load, instead of computing something.
// Launch: -g 1 -b 32, A = u16[256], B = u16[256], C = f32[256].
extern "C" __global__ void wmma_layout_mismatch(const unsigned short *A,
                                                const unsigned short *B,
                                                float *C) {
  unsigned a[8], b[8];
  float c[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  asm volatile("wmma.load.a.sync.aligned.col.m16n16k16.global.f16 "
               "{%0,%1,%2,%3,%4,%5,%6,%7}, [%8];"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]), "=r"(a[4]),
                 "=r"(a[5]), "=r"(a[6]), "=r"(a[7])
               : "l"(A));
  asm volatile("wmma.load.b.sync.aligned.col.m16n16k16.global.f16 "
               "{%0,%1,%2,%3,%4,%5,%6,%7}, [%8];"
               : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3]), "=r"(b[4]),
                 "=r"(b[5]), "=r"(b[6]), "=r"(b[7])
               : "l"(B));
  asm volatile("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 "
               "{%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11,%12,%13,%14,%15}, "
               "{%16,%17,%18,%19,%20,%21,%22,%23}, "
               "{%0,%1,%2,%3,%4,%5,%6,%7};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]), "+f"(c[4]),
                 "+f"(c[5]), "+f"(c[6]), "+f"(c[7])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(a[4]),
                 "r"(a[5]), "r"(a[6]), "r"(a[7]), "r"(b[0]), "r"(b[1]),
                 "r"(b[2]), "r"(b[3]), "r"(b[4]), "r"(b[5]), "r"(b[6]),
                 "r"(b[7]));
  asm volatile("wmma.store.d.sync.aligned.row.m16n16k16.global.f32 "
               "[%0], {%1,%2,%3,%4,%5,%6,%7,%8};" ::"l"(C),
               "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]), "f"(c[4]),
               "f"(c[5]), "f"(c[6]), "f"(c[7])
               : "memory");
}
