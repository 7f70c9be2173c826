// Parser test input (sm_90): thread-block clusters, distributed shared
// memory, cluster.sync, mbarrier-based waits, elect, PDL.
#include <cooperative_groups.h>
#include <cuda/barrier>
namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) cluster_exchange(int *out) {
  __shared__ int mine[64];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  mine[threadIdx.x] = rank * 100 + threadIdx.x;
  cluster.sync();
  int *peer = cluster.map_shared_rank(mine, rank ^ 1);
  out[blockIdx.x * 64 + threadIdx.x] = peer[threadIdx.x];
  cluster.sync();
}

__global__ void cluster_histogram(const int *in, int *bins, int n, int nbins) {
  extern __shared__ int smem[];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned csize = cluster.num_blocks();
  for (int i = threadIdx.x; i < nbins / (int)csize; i += blockDim.x)
    smem[i] = 0;
  cluster.sync();
  int per = nbins / csize;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    int b = in[i] % nbins;
    int *dst = cluster.map_shared_rank(smem, b / per);
    atomicAdd(dst + b % per, 1);
  }
  cluster.sync();
  for (int i = threadIdx.x; i < per; i += blockDim.x)
    atomicAdd(&bins[cluster.block_rank() * per + i], smem[i]);
}

__global__ void __launch_bounds__(256, 2) elect_writer(int *out) {
  unsigned laneid;
  asm("mov.u32 %0, %%laneid;" : "=r"(laneid));
  unsigned is_leader;
  asm volatile("{\n\t.reg .pred p;\n\telect.sync _|p, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n\t}"
               : "=r"(is_leader));
  if (is_leader)
    out[threadIdx.x / 32] = laneid;
  __syncwarp(0xffff);
}

__global__ void pdl_producer(int *buf) {
  buf[threadIdx.x] = threadIdx.x;
  cudaTriggerProgrammaticLaunchCompletion();
}

__global__ void pdl_consumer(int *buf, int *out) {
  cudaGridDependencySynchronize();
  out[threadIdx.x] = buf[threadIdx.x] * 2;
}

__global__ void cluster_specials(unsigned *out) {
  unsigned r[8];
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r[0]));
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(r[1]));
  asm("mov.u32 %0, %%clusterid.x;" : "=r"(r[2]));
  asm("mov.u32 %0, %%nclusterid.y;" : "=r"(r[3]));
  asm("mov.u32 %0, %%cluster_ctaid.z;" : "=r"(r[4]));
  asm("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(r[5]));
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r[6]));
  asm("mov.u32 %0, %%total_smem_size;" : "=r"(r[7]));
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  unsigned e;
  asm("mov.u32 %0, %%envreg3;" : "=r"(e));
  unsigned ex;
  asm("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }" : "=r"(ex));
  for (int i = 0; i < 8; ++i)
    out[i] = r[i];
  out[8] = (unsigned)t + e + ex + clock() + (unsigned)clock64();
}
