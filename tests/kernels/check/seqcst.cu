// seqcst: a persistent kernel whose every memory access is a seq_cst
// cuda::atomic_ref<int, cuda::thread_scope_system> (load, store, fetch_add
// with the default memory order): each access is a .sys fence.sc plus a
// strong access. Threads take work items from a shared counter until none
// is left; each item's input is loaded, its result stored, and a total
// accumulated.
//   seqcst_persistent: race-free (atomics do not race with each other);
//     the checker must stay within a small factor of the plain run on it
//     (bench/check BM_SeqCstPersistent).
// Launch: -g 4 -b 128 -a s32[N]=iota (work) -a s32[1] (next) -a s32[N+1]
// (out, out[N] = the total) -a s32:N.
#include <cuda/atomic>

using sys_atomic = cuda::atomic_ref<int, cuda::thread_scope_system>;

extern "C" __global__ void seqcst_persistent(int *work, int *next, int *out,
                                             int n) {
  sys_atomic counter(*next);
  sys_atomic total(out[n]);
  for (;;) {
    const int i = counter.fetch_add(1);
    if (i >= n)
      break;
    const int v = sys_atomic(work[i]).load();
    sys_atomic(out[i]).store(2 * v);
    total.fetch_add(v);
  }
}
