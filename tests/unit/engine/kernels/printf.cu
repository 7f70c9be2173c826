#include <cstdio>
// printf from several threads and CTAs: output in CTA order, lanes in order.
__global__ void hello(int n, float x) {
  if (threadIdx.x % 16 == 0)
    printf("cta %d thread %d: n=%d x=%.3f %s %c %lld %u %x|%5d|%-5d|\n", blockIdx.x,
           threadIdx.x, n, x, "str", 'A' + threadIdx.x % 26, -1234567890123ll, 4000000000u,
           255, n, -n);
}
