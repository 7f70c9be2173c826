// cudaGetDriverEntryPoint{,ByVersion}: the driver functions a program can
// ask the runtime for. bcusim provides the tensor-map encoders
// (docs/hopper.md "Tensor maps"); every other name is not found, as the
// runtime answers for a symbol its driver lacks, and bcusim names the
// function once (docs/exec.md "Precompiled GPU libraries").
#include <cuda_runtime_api.h>

#include "../tensormap_api.h"
#include "libraries.h"

namespace {

cudaError_t entry_point(const char *symbol, void **fn, unsigned version,
                        unsigned long long flags,
                        cudaDriverEntryPointQueryResult *status,
                        const void *caller) {
  if (!symbol || !fn || flags > 2 || version > 13000)
    return cudaErrorInvalidValue;
  unsigned introduced = 0;
  void *f = bcusim::runtime::tensor_map_entry_point(symbol, introduced);
  cudaDriverEntryPointQueryResult r = cudaDriverEntryPointSuccess;
  if (!f) {
    r = cudaDriverEntryPointSymbolNotFound;
    bcusim_cudart_missing_driver_function("cudaGetDriverEntryPoint", symbol,
                                          "cudaDriverEntryPointSymbolNotFound",
                                          caller);
  } else if (version < introduced)
    r = cudaDriverEntryPointVersionNotSufficent, f = nullptr;
  *fn = f;
  if (status)
    *status = r;
  return cudaSuccess;
}

} // namespace

extern "C" {

cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                    unsigned long long flags,
                                    cudaDriverEntryPointQueryResult *status) {
  return entry_point(symbol, funcPtr, 13000, flags, status,
                     __builtin_return_address(0));
}
cudaError_t
cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
                             unsigned long long flags,
                             cudaDriverEntryPointQueryResult *status) {
  return entry_point(symbol, funcPtr, 13000, flags, status,
                     __builtin_return_address(0));
}
cudaError_t cudaGetDriverEntryPointByVersion(
    const char *symbol, void **funcPtr, unsigned int cudaVersion,
    unsigned long long flags, cudaDriverEntryPointQueryResult *status) {
  return entry_point(symbol, funcPtr, cudaVersion, flags, status,
                     __builtin_return_address(0));
}
cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
    const char *symbol, void **funcPtr, unsigned int cudaVersion,
    unsigned long long flags, cudaDriverEntryPointQueryResult *status) {
  return entry_point(symbol, funcPtr, cudaVersion, flags, status,
                     __builtin_return_address(0));
}

} // extern "C"
