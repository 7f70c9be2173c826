// CUB's segmented sort (warp- and block-level sorts of small and medium
// segments), merge sorts (cub::DeviceMergeSort of keys with a comparator and
// thrust::stable_sort of records), cub::DeviceTransform through
// thrust::transform and thrust::tabulate, DeviceAdjacentDifference and
// DevicePartition, each checked against the same computation on the host.
// The first argument picks parts by name (all when absent), the second the
// element count.
#include "common.h"
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cub/cub.cuh>
#include <numeric>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/sort.h>
#include <thrust/tabulate.h>
#include <thrust/transform.h>
#include <vector>
#define CK CHECK
static Lcg rnd{4242};
struct Less {
  __host__ __device__ bool operator()(int a, int b) const { return a < b; }
};
struct Saxpy {
  float a;
  __host__ __device__ float operator()(float x, float y) const {
    return a * x + y;
  }
};
struct Neg {
  __host__ __device__ bool operator()(int x) const { return x < 0; }
};
struct Rec {
  int k;
  float v;
};
struct RecLess {
  __host__ __device__ bool operator()(const Rec &a, const Rec &b) const {
    return a.k < b.k;
  }
};
struct Sq {
  __host__ __device__ int operator()(int i) const {
    return (i * 37) % 1001 - 500;
  }
};
int main(int argc, char **argv) {
  Parts parts(argc, argv);
  auto want = [&](const char *s) { return parts.want(s); };
  int n = size_arg(argc, argv, 20000);
  std::vector<int> hi = random_ints(rnd, n);
  int *di = to_dev(hi), *dout, *dnum;
  CK(cudaMalloc(&dout, n * 8));
  CK(cudaMalloc(&dnum, 64));
  void *tmp = nullptr;
  size_t tb = 0;
  auto grow = [&](size_t b) {
    if (b > tb) {
      cudaFree(tmp);
      CK(cudaMalloc(&tmp, b));
      tb = b;
    }
  };
  if (want("segsort")) {
    int segs = 300;
    std::vector<int> off(segs + 1);
    for (int s = 0; s <= segs; ++s)
      off[s] = int((long long)n * s * s / (segs * segs));
    int *doff = to_dev(off);
    size_t b = 0;
    cub::DeviceSegmentedSort::SortKeys(nullptr, b, di, dout, n, segs, doff,
                                       doff + 1);
    grow(b);
    CK(cub::DeviceSegmentedSort::SortKeys(tmp, b, di, dout, n, segs, doff,
                                          doff + 1));
    auto r = hi;
    for (int s = 0; s < segs; ++s)
      std::sort(r.begin() + off[s], r.begin() + off[s + 1]);
    EXPECT(from_dev(dout, n) == r);
  }
  if (want("mergesort")) {
    std::vector<int> c = hi;
    int *dc = to_dev(c);
    size_t b = 0;
    cub::DeviceMergeSort::SortKeys(nullptr, b, dc, n, Less());
    grow(b);
    CK(cub::DeviceMergeSort::SortKeys(tmp, b, dc, n, Less()));
    auto r = hi;
    std::sort(r.begin(), r.end());
    EXPECT(from_dev(dc, n) == r);
    std::vector<Rec> rec(n);
    for (int i = 0; i < n; ++i)
      rec[i] = {hi[i] / 10, float(i)};
    thrust::device_vector<Rec> dr(rec.begin(), rec.end());
    thrust::stable_sort(dr.begin(), dr.end(), RecLess());
    thrust::host_vector<Rec> hr = dr;
    std::stable_sort(rec.begin(), rec.end(), RecLess());
    bool ok = true;
    for (int i = 0; i < n; ++i)
      ok &= hr[i].k == rec[i].k && hr[i].v == rec[i].v;
    EXPECT(ok);
  }
  if (want("transform")) {
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
      x[i] = float(i % 97);
      y[i] = float(i % 13);
    }
    thrust::device_vector<float> dx(x.begin(), x.end()), dy(y.begin(), y.end()),
        dz(n);
    thrust::transform(dx.begin(), dx.end(), dy.begin(), dz.begin(),
                      Saxpy{2.5f});
    thrust::host_vector<float> hz = dz;
    bool ok = true;
    for (int i = 0; i < n; ++i)
      ok &= hz[i] == 2.5f * x[i] + y[i];
    EXPECT(ok);
    thrust::device_vector<int> t(n);
    thrust::tabulate(t.begin(), t.end(), Sq());
    thrust::host_vector<int> ht = t;
    ok = true;
    for (int i = 0; i < n; ++i)
      ok &= ht[i] == Sq()(i);
    EXPECT(ok);
  }
  if (want("adjdiff")) {
    size_t b = 0;
    cub::DeviceAdjacentDifference::SubtractLeftCopy(nullptr, b, di, dout, n);
    grow(b);
    CK(cub::DeviceAdjacentDifference::SubtractLeftCopy(tmp, b, di, dout, n));
    std::vector<int> r(n);
    r[0] = hi[0];
    for (int i = 1; i < n; ++i)
      r[i] = hi[i] - hi[i - 1];
    EXPECT(from_dev(dout, n) == r);
  }
  if (want("partition")) {
    size_t b = 0;
    cub::DevicePartition::If(nullptr, b, di, dout, dnum, n, Neg());
    grow(b);
    CK(cub::DevicePartition::If(tmp, b, di, dout, dnum, n, Neg()));
    std::vector<int> sel, rej;
    for (int x : hi)
      (x < 0 ? sel : rej).push_back(x);
    int cnt = from_dev(dnum, 1)[0];
    EXPECT(cnt == (int)sel.size());
    auto h = from_dev(dout, n);
    EXPECT(std::equal(sel.begin(), sel.end(), h.begin()));
    EXPECT(std::equal(rej.rbegin(), rej.rend(), h.begin() + cnt));
  }
  EXPECT(parts.run > 0);
  return finish("cub_sort_transform");
}
