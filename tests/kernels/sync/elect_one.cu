// arch: sm_90
// elect_one: elect.sync chooses exactly one leader among the member lanes;
// every member gets the same leader lane id (d) and only the leader gets
// p = true. Which lane leads is the engine's documented choice, so only
// properties independent of that choice are checked. 2 CTAs x 128 threads:
// full warps (mask 0xffffffff), then the lanes with lane % 4 == 1 (mask
// 0x22222222) in a divergent branch. The elected thread of each election
// writes its warp's slot; every thread counts leaders with atomicAdd.
// out per warp (gwarp * 6): { leaders (1), leader id agreed by all lanes,
//   leader in mask, writer slot = 100 + gwarp, partial leaders (1),
//   partial leader in 0x22222222 }.
extern "C" __global__ void elect_one(unsigned *out) {
  __shared__ unsigned leaders[4], agree[4], partial[4];
  const unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const unsigned gwarp = blockIdx.x * 4 + warp;
  if (tid < 4) {
    leaders[tid] = 0;
    agree[tid] = 0;
    partial[tid] = 0;
  }
  __syncthreads();
  unsigned leader, is_leader;
  asm volatile("{ .reg .pred p; elect.sync %0|p, 0xffffffff;\n"
               "  selp.u32 %1, 1, 0, p; }"
               : "=r"(leader), "=r"(is_leader));
  atomicAdd(&leaders[warp], is_leader);
  // All lanes see the same leader id, and the leader is the lane with p.
  const unsigned lane0_leader = __shfl_sync(0xffffffffu, leader, 0);
  atomicAdd(&agree[warp],
            (leader == lane0_leader && (is_leader != 0) == (lane == leader)));
  if (is_leader)
    out[gwarp * 6 + 3] = 100 + gwarp;
  if (lane % 4 == 1) {
    unsigned pl, pp;
    asm volatile("{ .reg .pred p; elect.sync %0|p, 0x22222222;\n"
                 "  selp.u32 %1, 1, 0, p; }"
                 : "=r"(pl), "=r"(pp));
    atomicAdd(&partial[warp], pp);
    if (pp)
      out[gwarp * 6 + 5] = (0x22222222u >> pl) & 1u;
  }
  __syncthreads();
  if (lane == 0) {
    out[gwarp * 6 + 0] = leaders[warp];
    out[gwarp * 6 + 1] = agree[warp] == 32;
    out[gwarp * 6 + 2] = leader < 32;
    out[gwarp * 6 + 4] = partial[warp];
  }
}
