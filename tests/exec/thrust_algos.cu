// Thrust algorithms, each checked against the same computation on the host:
// radix sorts (int, float pairs, double descending, 64-bit key pairs; 1 Mi
// float pairs take the onesweep path), a merge sort with a comparator,
// reductions, scans (and by key), compaction, set operations and searches.
// The first argument picks algorithms by name (all when absent), the second
// the element count. Nothing here is built from committed PTX: the kernels
// are Thrust's and CUB's.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/extrema.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/set_operations.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>
#include <thrust/unique.h>
#include <vector>

#include "common.h"

static Lcg rnd{12345};

struct is_even {
  __host__ __device__ bool operator()(int x) const { return (x & 1) == 0; }
};
struct square {
  __host__ __device__ long long operator()(int x) const {
    return (long long)x * x;
  }
};
struct by_abs_desc {
  __host__ __device__ bool operator()(int a, int b) const {
    int x = a < 0 ? -a : a, y = b < 0 ? -b : b;
    return x > y;
  }
};

template <class T> std::vector<T> to_host(const thrust::device_vector<T> &d) {
  thrust::host_vector<T> h = d;
  return std::vector<T>(h.begin(), h.end());
}

int main(int argc, char **argv) {
  Parts parts(argc, argv);
  auto want = [&](const char *s) { return parts.want(s); };
  int n = size_arg(argc, argv, 20000);
  std::vector<int> hi = random_ints(rnd, n);
  std::vector<float> hf = random_floats(rnd, n);
  std::vector<double> hd(n);
  for (auto &x : hd)
    x = double(int(rnd() % 100000) - 50000) / 3.0;
  std::vector<unsigned long long> hu(n);
  for (auto &x : hu)
    x = (unsigned long long)rnd() << 32 | rnd();
  if (want("sort_int")) {
    thrust::device_vector<int> d(hi.begin(), hi.end());
    thrust::sort(d.begin(), d.end());
    auto r = hi;
    std::sort(r.begin(), r.end());
    EXPECT(to_host(d) == r);
  }
  if (want("sort_float")) {
    thrust::device_vector<float> k(hf.begin(), hf.end());
    thrust::device_vector<int> v(n);
    thrust::sequence(v.begin(), v.end());
    thrust::sort_by_key(k.begin(), k.end(), v.begin());
    auto hk = to_host(k);
    auto hv = to_host(v);
    EXPECT(std::is_sorted(hk.begin(), hk.end()));
    bool ok = true;
    for (int i = 0; i < n; ++i)
      ok &= hf[hv[i]] == hk[i];
    EXPECT(ok);
  }
  if (want("sort_double")) {
    thrust::device_vector<double> d(hd.begin(), hd.end());
    thrust::sort(d.begin(), d.end(), thrust::greater<double>());
    auto r = hd;
    std::sort(r.begin(), r.end(), std::greater<double>());
    EXPECT(to_host(d) == r);
  }
  if (want("sort_u64")) {
    thrust::device_vector<unsigned long long> k(hu.begin(), hu.end());
    thrust::device_vector<int> v(hi.begin(), hi.end());
    thrust::sort_by_key(k.begin(), k.end(), v.begin());
    std::vector<std::pair<unsigned long long, int>> p(n);
    for (int i = 0; i < n; ++i)
      p[i] = {hu[i], hi[i]};
    std::stable_sort(p.begin(), p.end(),
                     [](auto &a, auto &b) { return a.first < b.first; });
    auto hk = to_host(k);
    auto hv = to_host(v);
    bool ok = true;
    for (int i = 0; i < n; ++i)
      ok &= hk[i] == p[i].first && hv[i] == p[i].second;
    EXPECT(ok);
  }
  if (want("stable_sort")) {
    thrust::device_vector<int> d(hi.begin(), hi.end());
    thrust::stable_sort(d.begin(), d.end(), by_abs_desc());
    auto r = hi;
    std::stable_sort(r.begin(), r.end(), by_abs_desc());
    EXPECT(to_host(d) == r);
  }
  if (want("reduce")) {
    thrust::device_vector<int> d(hi.begin(), hi.end());
    EXPECT(thrust::reduce(d.begin(), d.end()) ==
           std::accumulate(hi.begin(), hi.end(), 0));
    long long sq = 0;
    for (int x : hi)
      sq += (long long)x * x;
    EXPECT(thrust::transform_reduce(d.begin(), d.end(), square(), 0LL,
                                    thrust::plus<long long>()) == sq);
    EXPECT(thrust::count_if(d.begin(), d.end(), is_even()) ==
           std::count_if(hi.begin(), hi.end(), is_even()));
    EXPECT(thrust::count(d.begin(), d.end(), 7) ==
           std::count(hi.begin(), hi.end(), 7));
    EXPECT(*thrust::min_element(d.begin(), d.end()) ==
           *std::min_element(hi.begin(), hi.end()));
    EXPECT(thrust::max_element(d.begin(), d.end()) - d.begin() ==
           std::max_element(hi.begin(), hi.end()) - hi.begin());
  }
  if (want("scan")) {
    thrust::device_vector<int> d(hi.begin(), hi.end()), o(n);
    thrust::inclusive_scan(d.begin(), d.end(), o.begin());
    std::vector<int> r(n);
    std::partial_sum(hi.begin(), hi.end(), r.begin());
    EXPECT(to_host(o) == r);
    thrust::exclusive_scan(d.begin(), d.end(), o.begin(), 5);
    int run = 5;
    for (int i = 0; i < n; ++i) {
      r[i] = run;
      run += hi[i];
    }
    EXPECT(to_host(o) == r);
    std::vector<int> keys(n);
    for (int i = 0; i < n; ++i)
      keys[i] = i / 37;
    thrust::device_vector<int> dk(keys.begin(), keys.end());
    thrust::inclusive_scan_by_key(dk.begin(), dk.end(), d.begin(), o.begin());
    for (int i = 0; i < n; ++i)
      r[i] = hi[i] + (i && keys[i] == keys[i - 1] ? r[i - 1] : 0);
    EXPECT(to_host(o) == r);
    thrust::exclusive_scan_by_key(dk.begin(), dk.end(), d.begin(), o.begin());
    for (int i = 0; i < n; ++i)
      r[i] = (i && keys[i] == keys[i - 1] ? r[i - 1] + hi[i - 1] : 0);
    EXPECT(to_host(o) == r);
    thrust::device_vector<int> ok(n), ov(n);
    auto e = thrust::reduce_by_key(dk.begin(), dk.end(), d.begin(), ok.begin(),
                                   ov.begin());
    std::map<int, int> m;
    for (int i = 0; i < n; ++i)
      m[keys[i]] += hi[i];
    EXPECT(e.first - ok.begin() == (long)m.size());
    auto hk = to_host(ok), hv = to_host(ov);
    bool good = true;
    int j = 0;
    for (auto &kv : m) {
      good &= hk[j] == kv.first && hv[j] == kv.second;
      ++j;
    }
    EXPECT(good);
  }
  if (want("select")) {
    thrust::device_vector<int> d(hi.begin(), hi.end()), o(n);
    auto e = thrust::copy_if(d.begin(), d.end(), o.begin(), is_even());
    std::vector<int> r;
    std::copy_if(hi.begin(), hi.end(), std::back_inserter(r), is_even());
    auto h = to_host(o);
    h.resize(e - o.begin());
    EXPECT(h == r);
    thrust::device_vector<int> d2 = d;
    auto e2 = thrust::remove_if(d2.begin(), d2.end(), is_even());
    r.clear();
    std::remove_copy_if(hi.begin(), hi.end(), std::back_inserter(r), is_even());
    h = to_host(d2);
    h.resize(e2 - d2.begin());
    EXPECT(h == r);
    thrust::device_vector<int> s = d;
    thrust::sort(s.begin(), s.end());
    auto e3 = thrust::unique(s.begin(), s.end());
    r = hi;
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    h = to_host(s);
    h.resize(e3 - s.begin());
    EXPECT(h == r);
    thrust::device_vector<int> p = d;
    auto mid = thrust::stable_partition(p.begin(), p.end(), is_even());
    r = hi;
    auto rm = std::stable_partition(r.begin(), r.end(), is_even());
    EXPECT(mid - p.begin() == rm - r.begin());
    EXPECT(to_host(p) == r);
  }
  if (want("sets")) {
    std::vector<int> a(hi.begin(), hi.begin() + n / 2),
        b(hi.begin() + n / 2, hi.end());
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    thrust::device_vector<int> da(a.begin(), a.end()), db(b.begin(), b.end()),
        o(n);
    std::vector<int> r;
    auto e = thrust::set_union(da.begin(), da.end(), db.begin(), db.end(),
                               o.begin());
    std::set_union(a.begin(), a.end(), b.begin(), b.end(),
                   std::back_inserter(r));
    auto h = to_host(o);
    h.resize(e - o.begin());
    EXPECT(h == r);
    r.clear();
    e = thrust::set_intersection(da.begin(), da.end(), db.begin(), db.end(),
                                 o.begin());
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(),
                          std::back_inserter(r));
    h = to_host(o);
    h.resize(e - o.begin());
    EXPECT(h == r);
    r.clear();
    e = thrust::set_difference(da.begin(), da.end(), db.begin(), db.end(),
                               o.begin());
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(),
                        std::back_inserter(r));
    h = to_host(o);
    h.resize(e - o.begin());
    EXPECT(h == r);
    r.clear();
    thrust::merge(da.begin(), da.end(), db.begin(), db.end(), o.begin());
    std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r));
    EXPECT(to_host(o) == r);
    thrust::device_vector<int> q(1000), pos(1000);
    thrust::sequence(q.begin(), q.end(), -1000, 2);
    thrust::lower_bound(da.begin(), da.end(), q.begin(), q.end(), pos.begin());
    auto hp = to_host(pos);
    bool ok = true;
    for (int i = 0; i < 1000; ++i)
      ok &= hp[i] ==
            std::lower_bound(a.begin(), a.end(), -1000 + 2 * i) - a.begin();
    EXPECT(ok);
    thrust::device_vector<bool> found(1000);
    thrust::binary_search(da.begin(), da.end(), q.begin(), q.end(),
                          found.begin());
    thrust::host_vector<bool> hb = found;
    ok = true;
    for (int i = 0; i < 1000; ++i)
      ok &= hb[i] == std::binary_search(a.begin(), a.end(), -1000 + 2 * i);
    EXPECT(ok);
  }
  if (want("sort_big")) {
    const int m = 1 << 20;
    std::vector<float> k(m);
    for (auto &x : k)
      x = float(int(rnd() % 2000000) - 1000000) / 3.0f;
    thrust::device_vector<float> dk(k.begin(), k.end());
    thrust::device_vector<int> dv(m);
    thrust::sequence(dv.begin(), dv.end());
    thrust::sort_by_key(dk.begin(), dk.end(), dv.begin());
    auto hk = to_host(dk);
    auto hv = to_host(dv);
    EXPECT(std::is_sorted(hk.begin(), hk.end()));
    bool ok = true;
    for (int i = 0; i < m; ++i)
      ok &= k[hv[i]] == hk[i];
    EXPECT(ok);
  }
  EXPECT(parts.run > 0);
  return finish("thrust_algos");
}
