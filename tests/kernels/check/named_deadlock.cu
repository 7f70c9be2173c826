// named_deadlock: threads waiting at different barriers. Warps 0-1
// (producers) and warps 2-3 (consumers) were meant to meet at named
// barrier 1 (128 threads), but the consumers use barrier 2: warps 0-1 wait
// at `bar.sync 1, 128` and warps 2-3 at `bar.sync 2, 128`; each barrier
// gets 64 of its 128 threads, and nobody else can arrive: a deadlock.
// Warps 4-5 take part in neither barrier (they copy their own elements and
// exit), so no barrier here is meant for the whole CTA: the bug is the
// deadlock only.
//   named_deadlock_buggy: the mismatched barrier ids.
//   named_deadlock_fixed: both groups use barrier 1 (clean).
// Launch: -g 1 -b 192; out = s32[192].
// Fixed result: out[t] = (127 - t) * 3 for t < 128, t for t >= 128.
extern "C" __global__ void named_deadlock_buggy(int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  if (t >= 128) {
    out[t] = t;
    return;
  }
  s[t] = t * 3;
  if (t < 64)
    asm volatile("bar.sync 1, 128;" ::: "memory");
  else
    asm volatile("bar.sync 2, 128;" ::: "memory");
  out[t] = s[127 - t];
}

extern "C" __global__ void named_deadlock_fixed(int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  if (t >= 128) {
    out[t] = t;
    return;
  }
  s[t] = t * 3;
  if (t < 64)
    asm volatile("bar.sync 1, 128;" ::: "memory");
  else
    asm volatile("bar.sync 1, 128;" ::: "memory");
  out[t] = s[127 - t];
}
