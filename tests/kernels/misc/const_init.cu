// const_init: module-scope data with initializers: __constant__ arrays of
// int, float and double, a __constant__ struct with mixed field sizes and
// padding, and a __device__ global array (initialized .global) that the
// kernel also updates. Thread i copies entry i of each.
struct Mixed {
  char c;
  short s;
  int i;
  double d;
};

__constant__ int kInts[5] = {-1, 2, -300000, 0x7fff0000, 12345};
__constant__ float kFloats[5] = {0.5f, -1.25f, 3.0e-5f, 1e30f, -0.0f};
__constant__ double kDoubles[5] = {0.1, -2.5e-300, 1e300, 3.0, -7.75};
__constant__ Mixed kMixed[2] = {{'A', -2, 100000, 0.25},
                                {'z', 30000, -7, -1e-5}};
__device__ int gCounters[5] = {10, 20, 30, 40, 50};

extern "C" __global__ void const_init(int *ints, float *floats, double *doubles,
                                      long long *mixed) {
  const int i = threadIdx.x;
  gCounters[i] += i;
  ints[i] = kInts[i] + gCounters[i] * 1000;
  floats[i] = kFloats[i];
  doubles[i] = kDoubles[i];
  if (i < 2) {
    mixed[i * 4 + 0] = kMixed[i].c;
    mixed[i * 4 + 1] = kMixed[i].s;
    mixed[i * 4 + 2] = kMixed[i].i;
    mixed[i * 4 + 3] = static_cast<long long>(kMixed[i].d * 1e6);
  }
}
