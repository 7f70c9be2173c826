// oob_store: thread 0 stores one element past the end of a 32-element
// buffer (the others store inside it). The engine must report the faulting
// access (out of bounds) and exit non-zero.
extern "C" __global__ void oob_store(int *buf, int n) {
  const int i = threadIdx.x;
  buf[i == 0 ? n : i] = i;
}
