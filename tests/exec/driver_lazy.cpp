// Lazy loading through the driver API (docs/exec.md "Lazy loading"):
// cuModuleGetFunction loads the kernel, so a consumer spinning on a flag
// that a producer launched later into another stream sets completes when
// both functions were got before the consumer's launch, under lazy loading
// (CUDA_MODULE_LOADING unset: CUDA's default) as under EAGER. Argument: the
// PTX file of concurrent.cu (its kernels `consume` and `produce`).
#include "common.h"
#include <cuda.h>

constexpr int kN = 64;

int main(int argc, char **argv) {
  const char *ptx_file = argc > 1 && argv[1][0] != '-' ? argv[1] : nullptr;
  EXPECT(ptx_file != nullptr);
  if (!ptx_file)
    return finish("driver_lazy");
  CUdevice dev;
  CUcontext ctx;
  CU_CHECK(cuInit(0));
  CU_CHECK(cuDeviceGet(&dev, 0));
  CU_CHECK(cuCtxCreate(&ctx, nullptr, 0, dev));
  CUmodule mod;
  CU_CHECK(cuModuleLoad(&mod, ptx_file));
  // Both kernels are loaded here, with nothing in flight.
  CUfunction consume, produce;
  CU_CHECK(cuModuleGetFunction(&consume, mod, "consume"));
  CU_CHECK(cuModuleGetFunction(&produce, mod, "produce"));
  CUdeviceptr flag, data, out;
  CU_CHECK(cuMemAlloc(&flag, sizeof(int)));
  CU_CHECK(cuMemAlloc(&data, kN * sizeof(int)));
  CU_CHECK(cuMemAlloc(&out, kN * sizeof(int)));
  CU_CHECK(cuMemsetD32(flag, 0, 1));
  CU_CHECK(cuCtxSynchronize());
  CUstream s1, s2;
  CU_CHECK(cuStreamCreate(&s1, CU_STREAM_DEFAULT));
  CU_CHECK(cuStreamCreate(&s2, CU_STREAM_DEFAULT));
  void *cargs[] = {&flag, &data, &out};
  CU_CHECK(cuLaunchKernel(consume, 1, 1, 1, kN, 1, 1, 0, s2, cargs, nullptr));
  int base = 5;
  void *pargs[] = {&flag, &data, &base};
  CU_CHECK(cuLaunchKernel(produce, 1, 1, 1, kN, 1, 1, 0, s1, pargs, nullptr));
  CU_CHECK(cuStreamSynchronize(s2));
  int h[kN];
  CU_CHECK(cuMemcpyDtoH(h, out, sizeof(h)));
  bool ok = true;
  for (int i = 0; i < kN; ++i)
    ok &= h[i] == 2 * (base + i);
  EXPECT(ok);
  CU_CHECK(cuStreamDestroy(s1));
  CU_CHECK(cuStreamDestroy(s2));
  CU_CHECK(cuMemFree(flag));
  CU_CHECK(cuMemFree(data));
  CU_CHECK(cuMemFree(out));
  CU_CHECK(cuModuleUnload(mod));
  CU_CHECK(cuCtxDestroy(ctx));
  return finish("driver_lazy");
}
