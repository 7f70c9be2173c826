// runaway: a loop that never ends (it spins until a flag that nobody sets
// becomes non-zero). With --max-steps the engine must stop and report the
// limit instead of hanging.
extern "C" __global__ void runaway(volatile int *flag, int *out) {
  int n = 0;
  while (*flag == 0)
    ++n;
  out[0] = n;
}
