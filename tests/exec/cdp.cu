// Dynamic parallelism (CDP2): a recursive quicksort whose kernels launch
// kernels for each partition, tail launches that run after their parent
// grid, fire-and-forget launches, deep nesting and the pending-launch limit.
#include "common.h"

#include <vector>

// Sorts [lo, hi] of a: one thread partitions (Lomuto), then launches a
// child grid per side; small ranges are sorted in place.
__global__ void quicksort(int *a, int lo, int hi, int depth) {
  if (hi - lo < 16 || depth >= 16) {
    for (int i = lo + 1; i <= hi; ++i) {
      int v = a[i], j = i - 1;
      while (j >= lo && a[j] > v) {
        a[j + 1] = a[j];
        --j;
      }
      a[j + 1] = v;
    }
    return;
  }
  int pivot = a[hi], store = lo;
  for (int i = lo; i < hi; ++i)
    if (a[i] < pivot) {
      int t = a[i];
      a[i] = a[store];
      a[store] = t;
      ++store;
    }
  a[hi] = a[store];
  a[store] = pivot;
  // The children see everything this grid wrote before the launch.
  quicksort<<<1, 1>>>(a, lo, store - 1, depth + 1);
  quicksort<<<1, 1, 0, cudaStreamFireAndForget>>>(a, store + 1, hi, depth + 1);
}

__global__ void child_write(int *p, int v) { p[threadIdx.x] = v; }

// A tail launch runs after this grid (and its other children) completed:
// it sees the value the grid writes after launching it.
__global__ void check_tail(const int *p, int *out) {
  out[threadIdx.x] = p[threadIdx.x] + 1;
}
__global__ void parent(int *p, int *out) {
  if (threadIdx.x == 0) {
    child_write<<<1, 32>>>(p, 7);
    check_tail<<<1, 32, 0, cudaStreamTailLaunch>>>(p, out);
  }
}

__global__ void count(int *n) { atomicAdd(n, 1); }
__global__ void launch_many(int *n, int k) {
  for (int i = 0; i < k; ++i)
    count<<<1, 1>>>(n);
}

// Launches itself `levels` deep; ran[d] is set by the grid at depth d.
__global__ void nest(int *ran, int d, int levels) {
  ran[d] = 1;
  if (d + 1 < levels)
    nest<<<1, 1>>>(ran, d + 1, levels);
}

int main() {
  const int n = 2000;
  std::vector<int> h(n);
  unsigned s = 12345;
  for (int i = 0; i < n; ++i) {
    s = s * 1103515245u + 12345u;
    h[i] = int(s >> 8) % 10000;
  }
  int *a;
  CHECK(cudaMalloc(&a, n * sizeof(int)));
  CHECK(cudaMemcpy(a, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  quicksort<<<1, 1>>>(a, 0, n - 1, 0);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> out(n);
  CHECK(cudaMemcpy(out.data(), a, n * sizeof(int), cudaMemcpyDeviceToHost));
  bool sorted = true;
  long long sum_in = 0, sum_out = 0;
  for (int i = 0; i < n; ++i) {
    sum_in += h[i];
    sum_out += out[i];
    if (i && out[i - 1] > out[i])
      sorted = false;
  }
  EXPECT(sorted);
  EXPECT(sum_in == sum_out);

  int *p, *q;
  CHECK(cudaMalloc(&p, 32 * sizeof(int)));
  CHECK(cudaMalloc(&q, 32 * sizeof(int)));
  parent<<<1, 32>>>(p, q);
  CHECK(cudaDeviceSynchronize());
  int hq[32];
  CHECK(cudaMemcpy(hq, q, sizeof(hq), cudaMemcpyDeviceToHost));
  EXPECT(hq[0] == 8 && hq[31] == 8);

  // Grids nest deeper than the 24 levels CUDA documents: 30 levels run.
  int *ran;
  CHECK(cudaMalloc(&ran, 32 * sizeof(int)));
  CHECK(cudaMemset(ran, 0, 32 * sizeof(int)));
  nest<<<1, 1>>>(ran, 0, 30);
  CHECK(cudaDeviceSynchronize());
  int hr[32];
  CHECK(cudaMemcpy(hr, ran, sizeof(hr), cudaMemcpyDeviceToHost));
  EXPECT(hr[0] == 1 && hr[24] == 1 && hr[29] == 1);
  EXPECT(hr[30] == 0);

  // cudaLimitDevRuntimePendingLaunchCount is at least 32, and launches
  // beyond it are not refused (the device runtime grows its pool).
  CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 4));
  size_t limit = 0;
  CHECK(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimePendingLaunchCount));
  EXPECT(limit == 32);
  CHECK(cudaMemset(ran, 0, sizeof(int)));
  launch_many<<<1, 1>>>(ran, 100);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(hr, ran, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(hr[0] == 100);
  CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 2048));

  CHECK(cudaFree(a));
  CHECK(cudaFree(p));
  CHECK(cudaFree(q));
  CHECK(cudaFree(ran));
  return finish("cdp");
}
