// Atomics from many CTAs.
__global__ void histogram(const unsigned *in, int n, unsigned *bins, int nbins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[in[i] % nbins], 1u);
}

__global__ void mixed(int *v, unsigned *u, float *f, double *d, unsigned long long *ull) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicMax(&v[0], t);
  atomicMin(&v[1], -t);
  atomicAdd(&v[2], t);
  atomicSub(&v[3], 1);
  atomicOr(&u[0], 1u << (t % 32));
  atomicAnd(&u[1], ~(1u << (t % 32)));
  atomicXor(&u[2], (unsigned)t);
  atomicInc(&u[3], 9u);
  atomicDec(&u[4], 6u);
  atomicAdd(&f[0], 0.5f);
  atomicAdd(&d[0], 0.25);
  atomicAdd(&ull[0], (unsigned long long)t << 20);
  // a lock-free counter with CAS
  int old = v[4], assumed;
  do {
    assumed = old;
    old = atomicCAS(&v[4], assumed, assumed + 2);
  } while (old != assumed);
  // ticket: each thread gets a unique slot
  unsigned slot = atomicAdd(&u[5], 1u);
  atomicExch(&u[6 + (slot % 4)], slot);
}
