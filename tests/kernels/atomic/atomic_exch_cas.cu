// atomic_exch_cas: atomicExch and atomicCAS whose combined outcome does not
// depend on the order the threads run in (one CTA).
// out[0]: every thread exchanges its tid into a shared slot that starts at
//         1000 and adds the old value it got to a sum; sum + final slot =
//         1000 + sum of all tids, whatever the order.
// out[1]: a CAS loop multiplying a global word by (tid + 2) modulo 1000003
//         (commutative, so the product is order-independent).
// out[2]: a CAS loop computing a max in global memory.
// out[3]: the exchange of out[0] done on a global word (scratch[0], starts
//         at 2000; old values summed in scratch[1]): slot + sum = 2000 +
//         sum of all tids.
// big[0]: a 64-bit CAS loop adding tid << 32 | 1.
extern "C" __global__ void
atomic_exch_cas(unsigned *out, unsigned long long *big, unsigned *scratch) {
  __shared__ unsigned slot, sum;
  const unsigned tid = threadIdx.x;
  if (tid == 0) {
    slot = 1000;
    sum = 0;
    out[1] = 1;
    scratch[0] = 2000;
  }
  __syncthreads();
  const unsigned old = atomicExch(&slot, tid);
  atomicAdd(&sum, old);
  atomicAdd(&scratch[1], atomicExch(&scratch[0], tid));

  // CAS loops start from a volatile (relaxed) read: no plain access races
  // with the other threads' atomics.
  volatile unsigned *vout = out;
  unsigned cur = vout[1], assumed;
  do {
    assumed = cur;
    const unsigned next = static_cast<unsigned>(
        static_cast<unsigned long long>(assumed) * (tid + 2) % 1000003u);
    cur = atomicCAS(&out[1], assumed, next);
  } while (cur != assumed);

  const unsigned v = (tid * 3221225473u) ^ 0x5bd1e995u;
  cur = vout[2];
  while (cur < v) {
    assumed = cur;
    cur = atomicCAS(&out[2], assumed, v);
    if (cur == assumed)
      break;
  }

  unsigned long long b = *static_cast<volatile unsigned long long *>(big),
                     bassumed;
  do {
    bassumed = b;
    b = atomicCAS(&big[0], bassumed,
                  bassumed +
                      ((static_cast<unsigned long long>(tid) << 32) | 1));
  } while (b != bassumed);
  __syncthreads();
  if (tid == 0) {
    out[0] = sum + slot;
    out[3] = atomicAdd(&scratch[0], 0) + atomicAdd(&scratch[1], 0);
  }
}
