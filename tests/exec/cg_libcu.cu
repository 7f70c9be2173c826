// Cooperative groups (cg::reduce, cg::inclusive_scan, tiles of 32 and 8,
// binary and labeled partitions, tiles of 64 threads, cg::memcpy_async,
// grid sync) and libcu++ (cuda::barrier with cuda::memcpy_async, a two-stage
// cuda::pipeline, cuda::atomic_ref), each checked against the same
// computation on the host. The first argument picks parts by name (all when
// absent).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cstdio>
#include <cstring>
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <numeric>
#include <vector>

namespace cg = cooperative_groups;
#include "common.h"
#define CK CHECK

constexpr int B = 256;

// cg::reduce / inclusive_scan over tiles; labeled and binary partitions.
__global__ void tiles(const int *in, int *red, int *scan, int *part, int *lab) {
  cg::thread_block blk = cg::this_thread_block();
  auto t32 = cg::tiled_partition<32>(blk);
  auto t8 = cg::tiled_partition<8>(t32);
  int v = in[blockIdx.x * B + threadIdx.x];
  int r = cg::reduce(t32, v, cg::plus<int>());
  if (t32.thread_rank() == 0)
    red[blockIdx.x * (B / 32) + t32.meta_group_rank()] = r;
  scan[blockIdx.x * B + threadIdx.x] =
      cg::inclusive_scan(t8, v, cg::plus<int>());
  auto bp = cg::binary_partition(t32, v > 0);
  part[blockIdx.x * B + threadIdx.x] = cg::reduce(bp, 1, cg::plus<int>());
  auto lp = cg::labeled_partition(t32, (v & 3));
  lab[blockIdx.x * B + threadIdx.x] = cg::reduce(lp, v, cg::plus<int>());
}

// cg::memcpy_async of a tile into shared memory, then wait.
__global__ void cg_copy(const int *in, int *out) {
  __shared__ int s[B * 4];
  cg::thread_block blk = cg::this_thread_block();
  cg::memcpy_async(blk, s, in + blockIdx.x * B * 4, sizeof(int) * B * 4);
  cg::wait(blk);
  int x = 0;
  for (int i = 0; i < 4; ++i)
    x += s[threadIdx.x * 4 + i];
  out[blockIdx.x * B + threadIdx.x] = x;
}

// Grid sync: two phases across the whole grid.
__global__ void grid_two_phase(int *a, int *out, int n) {
  cg::grid_group g = cg::this_grid();
  for (int i = g.thread_rank(); i < n; i += g.size())
    a[i] = i * 3;
  g.sync();
  for (int i = g.thread_rank(); i < n; i += g.size())
    out[i] = a[n - 1 - i] + 1;
}

// cuda::barrier with cuda::memcpy_async, and a two-stage cuda::pipeline.
__global__ void barrier_copy(const int *in, int *out) {
  __shared__ int s[B];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto blk = cg::this_thread_block();
  if (blk.thread_rank() == 0)
    init(&bar, blk.size());
  blk.sync();
  cuda::memcpy_async(blk, s, in + blockIdx.x * B, sizeof(int) * B, bar);
  bar.arrive_and_wait();
  out[blockIdx.x * B + threadIdx.x] = s[B - 1 - threadIdx.x] * 2;
}

__global__ void pipelined(const int *in, int *out, int chunks) {
  constexpr int stages = 2;
  __shared__ int s[stages][B];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> st;
  auto blk = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(blk, &st);
  int acc = 0;
  for (int fetch = 0, c = 0; c < chunks; ++c) {
    for (; fetch < chunks && fetch < c + stages; ++fetch) {
      pipe.producer_acquire();
      cuda::memcpy_async(blk, s[fetch % stages], in + fetch * B,
                         sizeof(int) * B, pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    acc += s[c % stages][(threadIdx.x + c) % B];
    pipe.consumer_release();
  }
  out[threadIdx.x] = acc;
}

__global__ void atomics(int *counters, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    cuda::atomic_ref<int, cuda::thread_scope_device> c(counters[in[i] & 15]);
    c.fetch_add(1, cuda::memory_order_relaxed);
    cuda::atomic_ref<int, cuda::thread_scope_device> m(counters[16]);
    m.fetch_max(in[i]);
  }
}

// Tiles of more than 32 threads keep their barrier in the reserved shared
// memory after the kernel's static and dynamic shared memory.
__global__ void wide_tiles(int *out) {
  __shared__ int s[B];
  extern __shared__ int dyn[];
  auto blk = cg::this_thread_block();
  auto t64 = cg::tiled_partition<64>(blk);
  s[threadIdx.x] = int(threadIdx.x);
  dyn[threadIdx.x] = 2 * int(threadIdx.x);
  t64.sync();
  int base = int(threadIdx.x - t64.thread_rank()), sum = 0;
  for (int i = 0; i < 64; ++i)
    sum += s[base + i] + dyn[base + i];
  out[blockIdx.x * B + threadIdx.x] = sum + 1000 * int(t64.meta_group_rank());
}

int main(int argc, char **argv) {
  Parts parts(argc, argv);
  auto want = [&](const char *s) { return parts.want(s); };
  const int blocks = 8, n = blocks * B * 4;
  std::vector<int> h(n);
  unsigned st = 99;
  for (auto &x : h) {
    st = st * 1664525u + 1013904223u;
    x = int(st >> 20) - 2048;
  }
  int *d, *o1, *o2, *o3, *o4;
  CK(cudaMalloc(&d, n * 4));
  CK(cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMalloc(&o1, n * 4));
  CK(cudaMalloc(&o2, n * 4));
  CK(cudaMalloc(&o3, n * 4));
  CK(cudaMalloc(&o4, n * 4));
  auto get = [&](int *p, int m) {
    std::vector<int> r(m);
    CK(cudaMemcpy(r.data(), p, m * 4, cudaMemcpyDeviceToHost));
    return r;
  };
  if (want("tiles")) {
    tiles<<<blocks, B>>>(d, o1, o2, o3, o4);
    CK(cudaDeviceSynchronize());
    auto red = get(o1, blocks * B / 32), sc = get(o2, blocks * B),
         pa = get(o3, blocks * B), la = get(o4, blocks * B);
    bool ok = true;
    for (int w = 0; w < blocks * B / 32; ++w) {
      int s = 0;
      for (int l = 0; l < 32; ++l)
        s += h[w * 32 + l];
      ok &= red[w] == s;
      for (int l = 0; l < 32; ++l) {
        int i = w * 32 + l, pc = 0, ls = 0;
        for (int k = 0; k < 32; ++k) {
          pc += (h[w * 32 + k] > 0) == (h[i] > 0);
          if ((h[w * 32 + k] & 3) == (h[i] & 3))
            ls += h[w * 32 + k];
        }
        ok &= pa[i] == pc && la[i] == ls;
        int ss = 0;
        for (int k = i - i % 8; k <= i; ++k)
          ss += h[k];
        ok &= sc[i] == ss;
      }
    }
    EXPECT(ok);
  }
  if (want("copy")) {
    cg_copy<<<blocks, B>>>(d, o1);
    CK(cudaDeviceSynchronize());
    auto r = get(o1, blocks * B);
    bool ok = true;
    for (int i = 0; i < blocks * B; ++i)
      ok &= r[i] == h[4 * i] + h[4 * i + 1] + h[4 * i + 2] + h[4 * i + 3];
    EXPECT(ok);
    barrier_copy<<<blocks, B>>>(d, o2);
    CK(cudaDeviceSynchronize());
    r = get(o2, blocks * B);
    ok = true;
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t < B; ++t)
        ok &= r[b * B + t] == 2 * h[b * B + B - 1 - t];
    EXPECT(ok);
    int chunks = 16;
    pipelined<<<1, B>>>(d, o3, chunks);
    CK(cudaDeviceSynchronize());
    r = get(o3, B);
    ok = true;
    for (int t = 0; t < B; ++t) {
      int a = 0;
      for (int c = 0; c < chunks; ++c)
        a += h[c * B + (t + c) % B];
      ok &= r[t] == a;
    }
    EXPECT(ok);
  }
  if (want("wide")) {
    wide_tiles<<<2, B, B * 4>>>(o1);
    CK(cudaDeviceSynchronize());
    auto r = get(o1, 2 * B);
    bool ok = true;
    for (int t = 0; t < 2 * B; ++t) {
      int base = t % B - t % 64;
      ok &= r[t] == 3 * (64 * base + 63 * 32) + 1000 * (t % B / 64);
    }
    EXPECT(ok);
  }
  if (want("grid")) {
    int m = 5000;
    void *args[] = {&o1, &o2, &m};
    CK(cudaLaunchCooperativeKernel((void *)grid_two_phase, dim3(4), dim3(128),
                                   args, 0, 0));
    CK(cudaDeviceSynchronize());
    auto r = get(o2, m);
    bool ok = true;
    for (int i = 0; i < m; ++i)
      ok &= r[i] == (m - 1 - i) * 3 + 1;
    EXPECT(ok);
  }
  if (want("atomic")) {
    CK(cudaMemset(o1, 0, 16 * 4));
    CK(cudaMemcpy(o1 + 16, &h[0], 4, cudaMemcpyHostToDevice));
    atomics<<<(n + 255) / 256, 256>>>(o1, d, n);
    CK(cudaDeviceSynchronize());
    auto r = get(o1, 17);
    std::vector<int> c(16);
    int mx = h[0];
    for (int x : h) {
      c[x & 15]++;
      mx = std::max(mx, x);
    }
    EXPECT(std::equal(c.begin(), c.end(), r.begin()));
    EXPECT(r[16] == mx);
  }
  EXPECT(parts.run > 0);
  return finish("cg_libcu");
}
