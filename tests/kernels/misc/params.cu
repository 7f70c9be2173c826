// params: kernel parameters of every scalar type the CLI passes (u8, u16,
// u32, u64, s32, s64, f32, f64), and a struct passed by value to and
// returned from a non-inlined device function (.func with .param .b8
// aggregates, call with by-value arguments).
struct Packet {
  signed char tag;
  double weight;
  int count;
  short delta;
};

__device__ __noinline__ Packet scale(Packet p, int k) {
  Packet r = p;
  r.weight = p.weight * k;
  r.count = p.count + k;
  r.delta = static_cast<short>(p.delta - k);
  r.tag = static_cast<signed char>(p.tag + 1);
  return r;
}

extern "C" __global__ void params(long long *ints, double *reals,
                                  unsigned char a, unsigned short b, unsigned c,
                                  unsigned long long d, int e, long long f,
                                  float g, double h) {
  ints[0] = a;
  ints[1] = b;
  ints[2] = c;
  ints[3] = static_cast<long long>(d);
  ints[4] = e;
  ints[5] = f;
  reals[0] = g;
  reals[1] = h;
  Packet p{static_cast<signed char>(a), h, e, static_cast<short>(b)};
  const Packet q = scale(p, 3);
  ints[6] = q.tag;
  ints[7] = q.count;
  ints[8] = q.delta;
  reals[2] = q.weight;
}
