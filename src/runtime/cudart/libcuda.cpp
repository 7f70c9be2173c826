// libcuda.so.1 stand-in: the driver API functions bcusim provides to
// programs linked with -lcuda and run by `bcusim exec` (docs/exec.md "The
// driver API", docs/hopper.md "Tensor maps"): the tensor-map encoders and
// cuGetProcAddress here, the rest in libcuda_api.cpp. It lives in
// <build>/lib beside the libcudart.so.13 stand-in. `bcusim run --on-gpu`
// refuses it (it exports bcusim_standin_libcuda) and needs NVIDIA's driver.
//
// NVIDIA's precompiled libraries (cuBLAS, cuFFT, ...) load this library to
// run their machine code; when it is loaded, and when cuGetProcAddress is
// asked for a function it lacks, the libcudart.so.13 stand-in warns once
// (docs/exec.md "Precompiled GPU libraries"); without that stand-in this
// library warns itself.
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "../precompiled.h"
#include "../tensormap_api.h"
#include "libcuda_api.h"

namespace rt = bcusim::runtime;

namespace {

using ScanFn = void (*)();
using MissingFn = void (*)(const char *, const char *, const char *,
                           const void *);

template <class F> F cudart_entry(const char *name) {
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

// What this library warned about itself (no libcudart.so.13 stand-in).
std::mutex g_mutex;
std::set<std::string> &warned() {
  static auto *s = new std::set<std::string>;
  return *s;
}

void scan_libraries() {
  if (auto f = cudart_entry<ScanFn>("bcusim_cudart_scan_libraries"))
    return f();
  std::lock_guard lock(g_mutex);
  for (const auto &l : rt::loaded_precompiled_libraries())
    if (warned().insert(l.file).second)
      std::fputs(rt::precompiled_library_warning(l).c_str(), stderr);
}

void missing_function(const char *name, const void *caller) {
  const char *via = "cuGetProcAddress", *result = "CUDA_ERROR_NOT_FOUND";
  if (auto f = cudart_entry<MissingFn>("bcusim_cudart_missing_driver_function"))
    return f(via, name, result, caller);
  if (!rt::precompiled_library_at(caller).file.empty())
    return scan_libraries();
  std::lock_guard lock(g_mutex);
  if (warned().insert(std::string("function ") + name).second)
    std::fputs(rt::missing_driver_function_warning(via, name, result).c_str(),
               stderr);
}

__attribute__((constructor)) void on_load() { scan_libraries(); }

} // namespace

extern "C" {

__attribute__((visibility("default"))) int bcusim_standin_libcuda = 1;

__attribute__((visibility("default"))) int
cuTensorMapEncodeTiled(void *map, unsigned type, unsigned rank, void *address,
                       const uint64_t *dims, const uint64_t *strides,
                       const uint32_t *box, const uint32_t *estrides,
                       unsigned interleave, unsigned swizzle, unsigned l2,
                       unsigned oob) {
  return rt::tensor_map_encode_tiled(map, type, rank, address, dims, strides,
                                     box, estrides, interleave, swizzle, l2,
                                     oob);
}

__attribute__((visibility("default"))) int
cuTensorMapEncodeIm2col(void *map, unsigned type, unsigned rank, void *address,
                        const uint64_t *dims, const uint64_t *strides,
                        const int *lower, const int *upper, unsigned channels,
                        unsigned pixels, const uint32_t *estrides,
                        unsigned interleave, unsigned swizzle, unsigned l2,
                        unsigned oob) {
  return rt::tensor_map_encode_im2col(map, type, rank, address, dims, strides,
                                      lower, upper, channels, pixels, estrides,
                                      interleave, swizzle, l2, oob);
}

// cuGetProcAddress (CUDA 12's signature; cuda.h maps the name to _v2):
// the driver functions of this library; every other name is not found and
// named once (unless `caller` is in a precompiled library).
int proc_address(const char *symbol, void **pfn, int version, int *status,
                 const void *caller);

__attribute__((visibility("default"))) int
cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t,
                    int *status) {
  return proc_address(symbol, pfn, version, status,
                      __builtin_return_address(0));
}

// The name under nvcc --default-stream per-thread.
__attribute__((visibility("default"))) int
cuGetProcAddress_v2_ptsz(const char *symbol, void **pfn, int version, uint64_t,
                         int *status) {
  return proc_address(symbol, pfn, version, status,
                      __builtin_return_address(0));
}

// CUDA 11's signature, without the status.
__attribute__((visibility("default"))) int
cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t) {
  return proc_address(symbol, pfn, version, nullptr,
                      __builtin_return_address(0));
}

int proc_address(const char *symbol, void **pfn, int version, int *status,
                 const void *caller) {
  constexpr int kNotFound = 500, kFound = 0, kSymbolNotFound = 1,
                kVersionNotSufficient = 2;
  if (!symbol || !pfn)
    return 1;
  // A precompiled library's own lookups get only these: bcusim runs PTX,
  // so the library fails at once with its own status (docs/exec.md
  // "Precompiled GPU libraries") instead of loading machine code.
  const char *basic[] = {"cuInit", "cuDriverGetVersion", "cuGetErrorName",
                         "cuGetErrorString"};
  bool library = !rt::precompiled_library_at(caller).file.empty();
  void *f = nullptr;
  unsigned introduced = 0;
  if (std::strcmp(symbol, "cuGetProcAddress") == 0)
    f = reinterpret_cast<void *>(&cuGetProcAddress_v2);
  else if (!library ||
           std::any_of(std::begin(basic), std::end(basic), [&](const char *b) {
             return std::strcmp(b, symbol) == 0;
           }))
    f = rt::driver_function(symbol, version);
  if (!f)
    f = rt::tensor_map_entry_point(symbol, introduced);
  int r = kFound;
  if (!f) {
    r = kSymbolNotFound;
    missing_function(symbol, caller);
  } else if (version < int(introduced)) {
    r = kVersionNotSufficient;
    f = nullptr;
  }
  *pfn = f;
  if (status)
    *status = r;
  return r == kFound ? 0 : kNotFound;
}

} // extern "C"
