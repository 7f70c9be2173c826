// Simulated time: a kernel that spins until clock64() has advanced by N
// cycles ends (it is not a deadlock), %globaltimer advances with the
// simulated work across launches, and cudaEventElapsedTime reports the
// simulated time of the work between two events (1.98 GHz).
#include "common.h"

__device__ unsigned long long read_globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin(long long cycles, long long *elapsed,
                     unsigned long long *timer) {
  const bool first = blockIdx.x == 0 && threadIdx.x == 0;
  if (first)
    timer[0] = read_globaltimer();
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
  long long t1 = clock64();
  if (first) {
    elapsed[0] = t1 - t0;
    timer[1] = read_globaltimer();
  }
  unsigned c0 = clock();
  unsigned c1 = clock();
  if (first)
    elapsed[1] = (long long)(c1 - c0);
}

int main() {
  long long *elapsed;
  unsigned long long *timer;
  CHECK(cudaMalloc(&elapsed, 2 * sizeof(long long)));
  CHECK(cudaMalloc(&timer, 2 * sizeof(unsigned long long)));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));

  // The first launch of a module loads it (CUDA's lazy loading), which a
  // GPU's events would time too: a launch before the timed one.
  spin<<<1, 32>>>(1000, elapsed, timer);
  CHECK(cudaDeviceSynchronize());

  // About 1 ms of spinning at 1.98 GHz.
  const long long cycles = 2'000'000;
  CHECK(cudaEventRecord(start));
  spin<<<2, 64>>>(cycles, elapsed, timer);
  CHECK(cudaEventRecord(stop));
  CHECK(cudaGetLastError());
  CHECK(cudaEventSynchronize(stop));
  long long he[2];
  unsigned long long ht[2];
  CHECK(cudaMemcpy(he, elapsed, sizeof(he), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(ht, timer, sizeof(ht), cudaMemcpyDeviceToHost));
  EXPECT(he[0] >= cycles);
  EXPECT(he[0] < cycles + cycles / 10);
  EXPECT(he[1] > 0); // clock() advances between two reads
  EXPECT(ht[1] > ht[0]);
  // The spin took at least cycles / 1.98 GHz of %globaltimer nanoseconds.
  EXPECT(ht[1] - ht[0] >= (unsigned long long)(cycles / 1.98));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  EXPECT(ms >= cycles / 1.98e6f);
  EXPECT(ms < 2 * cycles / 1.98e6f);

  // %globaltimer is the device's time: a later launch starts after it.
  spin<<<1, 32>>>(1000, elapsed, timer);
  unsigned long long later[2];
  CHECK(cudaMemcpy(later, timer, sizeof(later), cudaMemcpyDeviceToHost));
  EXPECT(later[0] >= ht[1]);

  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaFree(elapsed));
  CHECK(cudaFree(timer));
  return finish("clock");
}
