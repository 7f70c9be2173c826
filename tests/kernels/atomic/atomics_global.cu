// atomics_global: global-memory atomics from every thread of many CTAs,
// checked only through order-independent results (atom.global.*).
//   acc (u32[8], zeros): add 1, add gid, max, inc(17), dec(17), or, xor,
//                        and the number of tickets handed out
//   ones (u32[8], fill:4294967295): and, min (unsigned)
//   sgn (s32[2], zeros): signed min and max
//   wide (u64[2], zeros): 64-bit add, 64-bit max
//   fsum (f32[1]), dsum (f64[1]): float adds whose partial sums are exact
//   tickets (u32[N], zeros): every thread takes a unique ticket t with
//                            atomicAdd and sets tickets[t] = 1
// atomicInc(p, L) stores old >= L ? 0 : old + 1; atomicDec(p, L) stores
// (old == 0 || old > L) ? L : old - 1 (atom.inc / atom.dec).
extern "C" __global__ void atomics_global(unsigned *acc, unsigned *ones,
                                          int *sgn, unsigned long long *wide,
                                          float *fsum, double *dsum,
                                          unsigned *tickets) {
  const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&acc[0], 1u);
  atomicAdd(&acc[1], gid);
  atomicMax(&acc[2], (gid * 2654435761u) >> 8);
  atomicInc(&acc[3], 17u);
  atomicDec(&acc[4], 17u);
  atomicOr(&acc[5], 1u << (gid % 29));
  atomicXor(&acc[6], gid * 0x01010101u);
  const unsigned t = atomicAdd(&acc[7], 1u);
  tickets[t] = 1;
  atomicAnd(&ones[0], ~(1u << (gid % 23)));
  atomicMin(&ones[1], (gid * 40503u) % 65521u + 7u);
  atomicMin(&sgn[0], static_cast<int>(gid * 7919u % 1000u) - 500);
  atomicMax(&sgn[1], static_cast<int>(gid * 104729u % 2000u) - 1000);
  atomicAdd(&wide[0], static_cast<unsigned long long>(gid) << 33);
  atomicMax(&wide[1], static_cast<unsigned long long>(gid) * 0x100000001ull);
  atomicAdd(fsum, 0.5f);
  atomicAdd(dsum, 0.25);
}
