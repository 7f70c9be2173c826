// local_array: a per-thread array indexed with run-time values, so it lives
// in .local memory (ld.local/st.local), with a float array beside it.
// arr[(i * 7 + tid) % 32] = i * i + tid for i < 32 (a permutation), then
// out[tid] = sum over j of arr[(j * 5 + tid * 3) % 32] * (j + 1) and
// fout[tid] = a float array filled and read backwards from a run-time
// start.
extern "C" __global__ void local_array(int *out, float *fout, int start) {
  int arr[32];
  float f[16];
  const int tid = threadIdx.x;
  for (int i = 0; i < 32; ++i)
    arr[(i * 7 + tid) % 32] = i * i + tid;
  for (int i = 0; i < 16; ++i)
    f[(i + start) % 16] = 0.5f * i + tid;
  int sum = 0;
  for (int j = 0; j < 32; ++j)
    sum += arr[(j * 5 + tid * 3) % 32] * (j + 1);
  float fs = 0;
  for (int j = 15; j >= 0; --j)
    fs = fs * 0.5f + f[(j + tid) % 16];
  out[tid] = sum;
  fout[tid] = fs;
}
