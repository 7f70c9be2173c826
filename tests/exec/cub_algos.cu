// CUB's device-wide primitives (radix sort pairs and descending keys, scans,
// reductions and arg-min, segmented reduce and sort, histogram, select,
// unique, run-length encode) and block/warp primitives (BlockLoad/BlockStore
// with transposes, BlockRadixSort, BlockScan, WarpReduce, WarpScan), each
// checked against the same computation on the host. The first argument picks
// parts by name (all when absent), the second the element count.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cub/cub.cuh>
#include <numeric>
#include <vector>

struct MaxOp {
  __host__ __device__ int operator()(int a, int b) const {
    return a > b ? a : b;
  }
};
struct Pos {
  __host__ __device__ bool operator()(int x) const { return x > 0; }
};
#include "common.h"
#define CK CHECK

static Lcg rnd{777};

// Block primitives: load (transpose), radix sort, scan, store; warp
// reduce/scan.
constexpr int BT = 128, IPT = 4;
__global__ void block_kernel(const int *in, int *sorted, int *scanned,
                             int *warp_sums, int *warp_scans) {
  using Load = cub::BlockLoad<int, BT, IPT, cub::BLOCK_LOAD_TRANSPOSE>;
  using Store = cub::BlockStore<int, BT, IPT, cub::BLOCK_STORE_TRANSPOSE>;
  using Sort = cub::BlockRadixSort<int, BT, IPT>;
  using Scan = cub::BlockScan<int, BT>;
  using WR = cub::WarpReduce<int>;
  using WS = cub::WarpScan<int>;
  __shared__ union {
    typename Load::TempStorage l;
    typename Store::TempStorage s;
    typename Sort::TempStorage r;
    typename Scan::TempStorage c;
  } tmp;
  __shared__ typename WR::TempStorage wr[BT / 32];
  __shared__ typename WS::TempStorage ws[BT / 32];
  const int base = blockIdx.x * BT * IPT;
  int items[IPT];
  Load(tmp.l).Load(in + base, items);
  __syncthreads();
  Sort(tmp.r).Sort(items);
  __syncthreads();
  Store(tmp.s).Store(sorted + base, items);
  __syncthreads();
  Load(tmp.l).Load(in + base, items);
  __syncthreads();
  Scan(tmp.c).InclusiveSum(items, items);
  __syncthreads();
  Store(tmp.s).Store(scanned + base, items);
  int v = in[base + threadIdx.x];
  int w = threadIdx.x / 32;
  int s = WR(wr[w]).Sum(v);
  if (threadIdx.x % 32 == 0)
    warp_sums[blockIdx.x * (BT / 32) + w] = s;
  int x;
  WS(ws[w]).ExclusiveSum(v, x);
  warp_scans[blockIdx.x * BT + threadIdx.x] = x;
}

int main(int argc, char **argv) {
  Parts parts(argc, argv);
  auto want = [&](const char *s) { return parts.want(s); };
  int n = size_arg(argc, argv, 20000);
  std::vector<int> hi = random_ints(rnd, n);
  std::vector<float> hf = random_floats(rnd, n);
  void *tmp = nullptr;
  size_t tmp_bytes = 0;
  auto grow = [&](size_t b) {
    if (b > tmp_bytes) {
      cudaFree(tmp);
      CK(cudaMalloc(&tmp, b));
      tmp_bytes = b;
    }
  };
  int *di = to_dev(hi);
  int *dout;
  CK(cudaMalloc(&dout, n * sizeof(int) * 2));
  int *dnum;
  CK(cudaMalloc(&dnum, 64));
  if (want("radix")) {
    float *kin = to_dev(hf), *kout;
    CK(cudaMalloc(&kout, n * 4));
    std::vector<int> iv(n);
    std::iota(iv.begin(), iv.end(), 0);
    int *vin = to_dev(iv), *vout;
    CK(cudaMalloc(&vout, n * 4));
    size_t b = 0;
    cub::DeviceRadixSort::SortPairs(nullptr, b, kin, kout, vin, vout, n);
    grow(b);
    CK(cub::DeviceRadixSort::SortPairs(tmp, b, kin, kout, vin, vout, n));
    auto hk = from_dev(kout, n);
    auto hv = from_dev(vout, n);
    std::vector<std::pair<float, int>> p(n);
    for (int i = 0; i < n; ++i)
      p[i] = {hf[i], i};
    std::stable_sort(p.begin(), p.end(),
                     [](auto &a, auto &c) { return a.first < c.first; });
    bool ok = true;
    for (int i = 0; i < n; ++i)
      ok &= hk[i] == p[i].first && hv[i] == p[i].second;
    EXPECT(ok);
    b = 0;
    cub::DeviceRadixSort::SortKeysDescending(nullptr, b, di, dout, n);
    grow(b);
    CK(cub::DeviceRadixSort::SortKeysDescending(tmp, b, di, dout, n));
    auto r = hi;
    std::sort(r.begin(), r.end(), std::greater<int>());
    EXPECT(from_dev(dout, n) == r);
  }
  if (want("scan")) {
    size_t b = 0;
    cub::DeviceScan::InclusiveSum(nullptr, b, di, dout, n);
    grow(b);
    CK(cub::DeviceScan::InclusiveSum(tmp, b, di, dout, n));
    std::vector<int> r(n);
    std::partial_sum(hi.begin(), hi.end(), r.begin());
    EXPECT(from_dev(dout, n) == r);
    b = 0;
    cub::DeviceScan::ExclusiveScan(nullptr, b, di, dout, MaxOp(), -5000, n);
    grow(b);
    CK(cub::DeviceScan::ExclusiveScan(tmp, b, di, dout, MaxOp(), -5000, n));
    int m = -5000;
    for (int i = 0; i < n; ++i) {
      r[i] = m;
      m = std::max(m, hi[i]);
    }
    EXPECT(from_dev(dout, n) == r);
  }
  if (want("reduce")) {
    size_t b = 0;
    cub::DeviceReduce::Sum(nullptr, b, di, dnum, n);
    grow(b);
    CK(cub::DeviceReduce::Sum(tmp, b, di, dnum, n));
    EXPECT(from_dev(dnum, 1)[0] == std::accumulate(hi.begin(), hi.end(), 0));
    cub::KeyValuePair<int, int> *kv;
    CK(cudaMalloc(&kv, sizeof(*kv)));
    b = 0;
    cub::DeviceReduce::ArgMin(nullptr, b, di, kv, n);
    grow(b);
    CK(cub::DeviceReduce::ArgMin(tmp, b, di, kv, n));
    auto hkv = from_dev(kv, 1)[0];
    auto it = std::min_element(hi.begin(), hi.end());
    EXPECT(hkv.key == it - hi.begin() && hkv.value == *it);
    // Segmented reduce and sort.
    int segs = 50;
    std::vector<int> off(segs + 1);
    for (int s = 0; s <= segs; ++s)
      off[s] = int((long long)n * s * s / (segs * segs));
    int *doff = to_dev(off);
    b = 0;
    cub::DeviceSegmentedReduce::Sum(nullptr, b, di, dout, segs, doff, doff + 1);
    grow(b);
    CK(cub::DeviceSegmentedReduce::Sum(tmp, b, di, dout, segs, doff, doff + 1));
    auto hs = from_dev(dout, segs);
    bool ok = true;
    for (int s = 0; s < segs; ++s)
      ok &= hs[s] ==
            std::accumulate(hi.begin() + off[s], hi.begin() + off[s + 1], 0);
    EXPECT(ok);
    b = 0;
    cub::DeviceSegmentedRadixSort::SortKeys(nullptr, b, di, dout, n, segs, doff,
                                            doff + 1);
    grow(b);
    CK(cub::DeviceSegmentedRadixSort::SortKeys(tmp, b, di, dout, n, segs, doff,
                                               doff + 1));
    auto r = hi;
    for (int s = 0; s < segs; ++s)
      std::sort(r.begin() + off[s], r.begin() + off[s + 1]);
    EXPECT(from_dev(dout, n) == r);
  }
  if (want("histogram")) {
    int bins = 64;
    int *dh;
    CK(cudaMalloc(&dh, bins * 4));
    size_t b = 0;
    cub::DeviceHistogram::HistogramEven(nullptr, b, di, dh, bins + 1, -1000,
                                        1001, n);
    grow(b);
    CK(cub::DeviceHistogram::HistogramEven(tmp, b, di, dh, bins + 1, -1000,
                                           1001, n));
    std::vector<int> r(bins);
    for (int x : hi)
      r[(long long)(x + 1000) * bins / 2001]++;
    EXPECT(from_dev(dh, bins) == r);
  }
  if (want("select")) {
    size_t b = 0;
    cub::DeviceSelect::If(nullptr, b, di, dout, dnum, n, Pos());
    grow(b);
    CK(cub::DeviceSelect::If(tmp, b, di, dout, dnum, n, Pos()));
    std::vector<int> r;
    for (int x : hi)
      if (x > 0)
        r.push_back(x);
    int cnt = from_dev(dnum, 1)[0];
    EXPECT(cnt == (int)r.size());
    EXPECT(from_dev(dout, r.size()) == r);
    std::vector<int> rl(n);
    for (int i = 0; i < n; ++i)
      rl[i] = hi[i / 9] / 100;
    int *drl = to_dev(rl);
    b = 0;
    cub::DeviceSelect::Unique(nullptr, b, drl, dout, dnum, n);
    grow(b);
    CK(cub::DeviceSelect::Unique(tmp, b, drl, dout, dnum, n));
    r = rl;
    r.erase(std::unique(r.begin(), r.end()), r.end());
    EXPECT(from_dev(dnum, 1)[0] == (int)r.size());
    EXPECT(from_dev(dout, r.size()) == r);
    int *dcnt;
    CK(cudaMalloc(&dcnt, n * 4));
    b = 0;
    cub::DeviceRunLengthEncode::Encode(nullptr, b, drl, dout, dcnt, dnum, n);
    grow(b);
    CK(cub::DeviceRunLengthEncode::Encode(tmp, b, drl, dout, dcnt, dnum, n));
    std::vector<int> uk, uc;
    for (int i = 0; i < n; ++i) {
      if (!i || rl[i] != rl[i - 1]) {
        uk.push_back(rl[i]);
        uc.push_back(0);
      }
      uc.back()++;
    }
    EXPECT(from_dev(dnum, 1)[0] == (int)uk.size());
    EXPECT(from_dev(dout, uk.size()) == uk);
    EXPECT(from_dev(dcnt, uc.size()) == uc);
  }
  if (want("block")) {
    int blocks = 8, m = blocks * BT * IPT;
    std::vector<int> in(hi.begin(), hi.begin() + m);
    int *din = to_dev(in);
    int *sorted, *scanned, *wsum, *wscan;
    CK(cudaMalloc(&sorted, m * 4));
    CK(cudaMalloc(&scanned, m * 4));
    CK(cudaMalloc(&wsum, blocks * 4 * 4));
    CK(cudaMalloc(&wscan, blocks * BT * 4));
    block_kernel<<<blocks, BT>>>(din, sorted, scanned, wsum, wscan);
    CK(cudaDeviceSynchronize());
    auto hs = from_dev(sorted, m), hc = from_dev(scanned, m),
         hw = from_dev(wsum, blocks * 4), hx = from_dev(wscan, blocks * BT);
    bool ok = true;
    for (int b = 0; b < blocks; ++b) {
      std::vector<int> t(in.begin() + b * BT * IPT,
                         in.begin() + (b + 1) * BT * IPT);
      std::vector<int> sc(t.size());
      std::partial_sum(t.begin(), t.end(), sc.begin());
      std::vector<int> st = t;
      std::sort(st.begin(), st.end());
      ok &= std::equal(st.begin(), st.end(), hs.begin() + b * BT * IPT);
      ok &= std::equal(sc.begin(), sc.end(), hc.begin() + b * BT * IPT);
      for (int w = 0; w < 4; ++w) {
        int s = 0;
        for (int l = 0; l < 32; ++l) {
          ok &= hx[b * BT + w * 32 + l] == s;
          s += in[b * BT * IPT + w * 32 + l];
        }
        ok &= hw[b * 4 + w] == s;
      }
    }
    EXPECT(ok);
  }
  EXPECT(parts.run > 0);
  return finish("cub_algos");
}
