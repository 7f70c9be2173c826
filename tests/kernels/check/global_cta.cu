// global_cta: two CTAs write the same global words. Each thread scales its
// element; the buggy kernel indexes the output with threadIdx.x only (the
// blockIdx.x offset is missing), so thread t of CTA 0 and thread t of CTA 1
// store the same word, with nothing ordering two CTAs of one launch.
//   global_cta_buggy: out[threadIdx.x] = ... (write-write race across CTAs).
//   global_cta_fixed: out[blockIdx.x * blockDim.x + threadIdx.x] = ...
// Launch: -g 2 -b 64; in = s32[128] (iota), out = s32[128].
// Fixed result: out[i] = 2 * in[i] + 5.
extern "C" __global__ void global_cta_buggy(const int *in, int *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[threadIdx.x] = 2 * in[i] + 5;
}

extern "C" __global__ void global_cta_fixed(const int *in, int *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = 2 * in[i] + 5;
}
