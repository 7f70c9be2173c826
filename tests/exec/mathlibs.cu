// A program that uses NVIDIA's precompiled libraries (cuBLAS, cuFFT, and
// cuRAND loaded late with dlopen) and the driver's entry-point queries.
// Under bcusim exec the libraries' calls fail (their kernels are GPU
// machine code; docs/exec.md "Precompiled GPU libraries"): bcusim warns
// once per library and once per missing driver function, and the
// program's own error handling runs (it sums with a kernel of its own).
#include <cublas_v2.h>
#include <cuda.h>
#include <cufft.h>
#include <dlfcn.h>

#include <cmath>
#include <cstring>

#include "common.h"

__global__ void sum(const float *x, int n, float *out) {
  float s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[i];
  atomicAdd(out, s);
}

int main() {
  const int n = 64;
  float host[n];
  for (int i = 0; i < n; ++i)
    host[i] = float(i % 7) - 3.0f; // |x| sums to 111, x to -3
  float abs_sum = 0;
  for (int i = 0; i < n; ++i)
    abs_sum += std::fabs(host[i]);
  float *x = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&out, sizeof(float)));
  CHECK(cudaMemcpy(x, host, sizeof(host), cudaMemcpyHostToDevice));

  // cuBLAS: on a GPU this sums |x|; here cublasCreate fails and the
  // program falls back to its own kernel (the sum of x).
  cublasHandle_t h = nullptr;
  cublasStatus_t s = cublasCreate(&h);
  float result = 0;
  if (s == CUBLAS_STATUS_SUCCESS) {
    EXPECT(cublasSasum(h, n, x, 1, &result) == CUBLAS_STATUS_SUCCESS);
    EXPECT(result == abs_sum);
    cublasDestroy(h);
  } else {
    std::printf("cublasCreate failed (status %d): summing with our kernel\n",
                int(s));
    CHECK(cudaMemset(out, 0, sizeof(float)));
    sum<<<1, 32>>>(x, n, out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&result, out, sizeof(float), cudaMemcpyDeviceToHost));
    EXPECT(result == -3.0f);
  }

  // cuFFT: the plan fails the same way; the program reports it.
  cufftHandle plan = 0;
  cufftResult f = cufftPlan1d(&plan, n, CUFFT_C2C, 1);
  if (f == CUFFT_SUCCESS)
    cufftDestroy(plan);
  else
    std::printf("cufftPlan1d failed (status %d)\n", int(f));

  // Driver functions bcusim does not provide: not found, twice each (the
  // warning names each once). A GPU's driver has them.
  const bool bcusim = under_bcusim();
  for (int i = 0; bcusim && i < 2; ++i) {
    void *fn = &fn;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSuccess;
    CHECK(cudaGetDriverEntryPointByVersion("cuLinkCreate", &fn, 12000,
                                           cudaEnableDefault, &q));
    EXPECT(fn == nullptr && q == cudaDriverEntryPointSymbolNotFound);
    fn = &fn;
    CUdriverProcAddressQueryResult dq = CU_GET_PROC_ADDRESS_SUCCESS;
    EXPECT(cuGetProcAddress("cuGraphicsGLRegisterBuffer", &fn, 12000,
                            CU_GET_PROC_ADDRESS_DEFAULT,
                            &dq) == CUDA_ERROR_NOT_FOUND);
    EXPECT(fn == nullptr && dq == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  }
  // Ones the driver stand-in has, asked for by the program itself (the
  // libraries' own requests for module functions stay unanswered).
  for (const char *name : {"cuInit", "cuModuleLoadData", "cuLaunchKernel"}) {
    void *f = nullptr;
    CUdriverProcAddressQueryResult dq = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    EXPECT(cuGetProcAddress(name, &f, 12000, CU_GET_PROC_ADDRESS_DEFAULT,
                            &dq) == CUDA_SUCCESS);
    EXPECT(f != nullptr && dq == CU_GET_PROC_ADDRESS_SUCCESS);
  }
  void *launch = nullptr;
  cudaDriverEntryPointQueryResult lq = cudaDriverEntryPointSymbolNotFound;
  CHECK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &launch, 12000,
                                         cudaEnableDefault, &lq));
  EXPECT(launch != nullptr && lq == cudaDriverEntryPointSuccess);

  // A library loaded after the program's CUDA calls (named at exit).
  void *curand = dlopen("libcurand.so.10", RTLD_NOW);
  EXPECT(curand != nullptr);

  CHECK(cudaFree(x));
  CHECK(cudaFree(out));
  return finish("mathlibs");
}
