// CUDA's own math library (full-precision sinf/cosf with Payne-Hanek
// reduction through local memory, expf, logf, powf, tanhf, erff, double
// exp/log/sin) compiled by nvcc: exercises long integer/float sequences,
// local arrays and predicated code.
__global__ void libm(const float *x, float *out, double *dout) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[t];
  float *o = out + t * 8;
  o[0] = sinf(v);
  o[1] = cosf(v);
  o[2] = expf(v * 0.01f);
  o[3] = logf(fabsf(v) + 1.0f);
  o[4] = powf(fabsf(v) + 0.5f, 1.7f);
  o[5] = tanhf(v * 0.001f);
  o[6] = erff(v * 0.0001f);
  o[7] = atan2f(v, 3.0f);
  double d = v;
  dout[t * 3 + 0] = exp(d * 0.001);
  dout[t * 3 + 1] = log(fabs(d) + 1.0);
  dout[t * 3 + 2] = sin(d);
}
