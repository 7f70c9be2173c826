// fn_pointers: calls through function pointers and virtual functions
// (indirect `call` with a .callprototype). Each thread picks an operation
// from a __device__ table by (tid + ctaid) % 4, so the lanes of one warp call
// four different functions; a second output goes through a virtual call on
// one of two shapes chosen by the lane's parity.
//   out[i]  = op[(tid + ctaid) % 4](a[i], b[i]) with ops add, mul, sub, xor3
//   area[i] = i odd ? Tri.area(a[i]) = a*a/2 : Square.area(a[i]) = a*a,
//             plus the number of sides (3 or 4) through a second virtual.
typedef int (*binop)(int, int);
__device__ __noinline__ int op_add(int x, int y) { return x + y; }
__device__ __noinline__ int op_mul(int x, int y) { return x * y; }
__device__ __noinline__ int op_sub(int x, int y) { return x - y; }
__device__ __noinline__ int op_xor3(int x, int y) { return (x ^ y) * 3; }
__device__ binop ops[4] = {op_add, op_mul, op_sub, op_xor3};

struct Shape {
  __device__ virtual int area(int s) const = 0;
  __device__ virtual int sides() const = 0;
};
struct Square : Shape {
  __device__ int area(int s) const override { return s * s; }
  __device__ int sides() const override { return 4; }
};
struct Tri : Shape {
  __device__ int area(int s) const override { return s * s / 2; }
  __device__ int sides() const override { return 3; }
};

extern "C" __global__ void fn_pointers(const int *a, const int *b, int *out,
                                       int *area, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  binop f = ops[(threadIdx.x + blockIdx.x) % 4];
  out[i] = f(a[i], b[i]);
  Square sq;
  Tri tr;
  const Shape *s = (i & 1) ? static_cast<const Shape *>(&tr)
                           : static_cast<const Shape *>(&sq);
  area[i] = s->area(a[i]) + s->sides();
}
