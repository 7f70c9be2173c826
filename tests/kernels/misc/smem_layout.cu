// smem_layout: where shared memory lies in a CTA, as an NVIDIA H200 gives
// it (measured on an NVIDIA H200, driver 580.159.04, CUDA 13.0,
// 2026-11-28). The first 1 KiB of every CTA's shared memory is reserved:
// the static variables start at .shared address 1024 (a at 1024, b at
// 1040), the dynamic memory follows the 48 static bytes (1072).
// %total_smem_size is static + dynamic bytes in 128-byte units (48 + 100 ->
// 256), %dynamic_smem_size the launch's 100 bytes. The reserved bytes are
// ordinary memory: [0] reads 0 at kernel start, and a store of 77 there
// reads back. Launched with 4 threads and --shared-bytes 100.
// out = {&a, &b, &dyn, %total_smem_size, %dynamic_smem_size, [0] at start,
//        [0] after the store, 0}.
extern "C" __global__ void smem_layout(unsigned *out) {
  __shared__ int a[4];
  __shared__ int b[8];
  extern __shared__ int dyn[];
  unsigned first = 0, back = 0, tot, dsz;
  if (threadIdx.x == 0)
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(first) : "r"(0u));
  a[threadIdx.x] = 1;
  b[threadIdx.x] = 2;
  dyn[threadIdx.x] = 3;
  asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(tot));
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dsz));
  if (threadIdx.x == 0) {
    asm volatile("st.shared.u32 [%1], 77;\n\tld.shared.u32 %0, [%1];"
                 : "=r"(back)
                 : "r"(0u));
    out[0] = unsigned(__cvta_generic_to_shared(a));
    out[1] = unsigned(__cvta_generic_to_shared(b));
    out[2] = unsigned(__cvta_generic_to_shared(dyn));
    out[3] = tot;
    out[4] = dsz;
    out[5] = first;
    out[6] = back;
  }
}
