// cudaGetDriverEntryPoint{,ByVersion}: the driver functions a program can
// ask the runtime for: the tensor-map encoders (docs/hopper.md "Tensor
// maps") and the driver API of the libcuda.so.1 stand-in beside this
// library (docs/exec.md "The driver API"); every other name is not found,
// as the runtime answers for a symbol its driver lacks, and bcusim names
// the function once (docs/exec.md "Precompiled GPU libraries").
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <string>

#include "../tensormap_api.h"
#include "libraries.h"

namespace {

// The libcuda.so.1 stand-in's function `name`: the one the program loaded,
// else the one beside this library.
void *driver_function(const char *name, unsigned version) {
  using Fn = void *(*)(const char *, int);
  static Fn fn = [] {
    void *f = dlsym(RTLD_DEFAULT, "bcusim_libcuda_driver_function");
    Dl_info self{};
    if (!f && dladdr(reinterpret_cast<void *>(&driver_function), &self) &&
        self.dli_fname) {
      std::string path = self.dli_fname;
      path = path.substr(0, path.rfind('/') + 1) + "libcuda.so.1";
      if (void *l = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL))
        f = dlsym(l, "bcusim_libcuda_driver_function");
    }
    return reinterpret_cast<Fn>(f);
  }();
  return fn ? fn(name, int(version)) : nullptr;
}

cudaError_t entry_point(const char *symbol, void **fn, unsigned version,
                        unsigned long long flags,
                        cudaDriverEntryPointQueryResult *status,
                        const void *caller) {
  if (!symbol || !fn || flags > 2 || version > 13000)
    return cudaErrorInvalidValue;
  unsigned introduced = 0;
  void *f = bcusim::runtime::tensor_map_entry_point(symbol, introduced);
  if (!f)
    f = driver_function(symbol, version);
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
