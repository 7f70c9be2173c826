// file_input: buffers initialized from files (-a TYPE[N]=file:PATH, raw
// little-endian bytes). out[i] = in[i] * 3 - 7 (wrapping), fout[i] =
// fin[i] * 0.5f (exact: halving never rounds here), and the input buffers
// themselves are dumped too, to check they were loaded byte for byte.
extern "C" __global__ void file_input(const int *in, const float *fin, int *out,
                                      float *fout) {
  const int i = threadIdx.x;
  out[i] = static_cast<int>(static_cast<unsigned>(in[i]) * 3u - 7u);
  if (i < 8)
    fout[i] = fin[i] * 0.5f;
}
