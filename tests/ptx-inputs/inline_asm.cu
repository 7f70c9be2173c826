// Parser test input (sm_90): the seeds' synchronization instructions through
// inline asm, as CUDA libraries write them. Each asm block opens a `{ }`
// scope that redeclares the same registers and labels; inlining the helpers
// several times repeats them in one function.
#include <cstdint>

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}
__device__ __forceinline__ uint64_t mbar_arrive(uint32_t bar) {
  uint64_t state;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(bar) : "memory");
  return state;
}
__device__ __forceinline__ void mbar_arrive_tx(uint32_t bar, uint32_t tx) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(tx) : "memory");
}
__device__ __forceinline__ void mbar_wait_parity(uint32_t bar, uint32_t parity) {
  asm volatile("{\n\t"
               ".reg .pred P1;\n"
               "LAB_WAIT:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1, 10000000;\n\t"
               "@P1 bra DONE;\n\t"
               "bra LAB_WAIT;\n"
               "DONE:\n\t"
               "}" ::"r"(bar), "r"(parity) : "memory");
}
__device__ __forceinline__ bool mbar_test(uint32_t bar, uint64_t state) {
  uint32_t ok;
  asm volatile("{\n\t.reg .pred p;\n\t"
               "mbarrier.test_wait.shared::cta.b64 p, [%1], %2;\n\t"
               "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(ok) : "r"(bar), "l"(state) : "memory");
  return ok;
}
__device__ __forceinline__ uint32_t smem_addr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void mbarrier_pipeline(const int *in, int *out) {
  __shared__ alignas(8) uint64_t full[2];
  __shared__ alignas(16) int buf[2][64];
  uint32_t b0 = smem_addr(&full[0]), b1 = smem_addr(&full[1]);
  if (threadIdx.x == 0) {
    mbar_init(b0, 1);
    mbar_init(b1, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_tx(b0, 256);
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 256, [%2];"
                 ::"r"(smem_addr(buf[0])), "l"(in), "r"(b0) : "memory");
    mbar_arrive_tx(b1, 256);
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 256, [%2];"
                 ::"r"(smem_addr(buf[1])), "l"(in + 64), "r"(b1) : "memory");
  }
  mbar_wait_parity(b0, 0);
  mbar_wait_parity(b1, 0);
  out[threadIdx.x] = buf[0][threadIdx.x] + buf[1][threadIdx.x];
  uint64_t st = mbar_arrive(b0);
  uint32_t pending;
  asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pending) : "l"(st));
  out[64 + threadIdx.x] = pending + mbar_test(b0, st);
  asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], 0;" ::"r"(b0) : "memory");
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], 0;" ::"r"(b1) : "memory");
  asm volatile("mbarrier.arrive_drop.shared::cta.b64 _, [%0];" ::"r"(b1) : "memory");
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(b1) : "memory");
}

__global__ void cta_barrier_forms(int *out) {
  int t = threadIdx.x;
  unsigned cnt, id = 1, n = 64;
  asm volatile("bar.sync 0;");
  asm volatile("bar.cta.sync %0, %1;" ::"r"(id), "r"(n));
  asm volatile("barrier.sync.aligned 0;");
  asm volatile("barrier.arrive 2, 64;");
  asm volatile("barrier.cta.arrive.aligned %0, %1;" ::"r"(id + 2), "r"(n));
  asm volatile("{ .reg .pred p; setp.ne.s32 p, %1, 0; bar.red.popc.u32 %0, 0, p; }" : "=r"(cnt) : "r"(t & 1));
  unsigned a, o;
  asm volatile("{ .reg .pred p, q; setp.ne.s32 p, %1, 0; barrier.red.and.pred q, 0, !p; selp.u32 %0, 1, 0, q; }" : "=r"(a) : "r"(t & 1));
  asm volatile("{ .reg .pred p, q; setp.ne.s32 p, %1, 0; bar.cta.red.or.pred q, 0, 128, p; selp.u32 %0, 1, 0, q; }" : "=r"(o) : "r"(t & 1));
  asm volatile("bar.warp.sync %0;" ::"r"(0xffffffffu));
  unsigned lane;
  asm volatile("{ .reg .pred p; .reg .b32 r; elect.sync r|p, 0xffffffff; selp.u32 %0, r, 99, p; }" : "=r"(lane));
  asm volatile("membar.gl; fence.sc.cta; fence.acq_rel.gpu; fence.proxy.alias;" ::: "memory");
  out[t] = cnt + a + o + lane;
}

__global__ void __cluster_dims__(2, 1, 1) cluster_forms(int *out) {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
  asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
  asm volatile("barrier.cluster.wait;" ::: "memory");
  asm volatile("fence.acquire.sync_restrict::shared::cluster.cluster;" ::: "memory");
  asm volatile("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;");
  out[threadIdx.x] = 1;
}
