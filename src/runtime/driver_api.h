// The few types and entry points of the CUDA driver API that `bcusim run
// --on-gpu` uses, declared here so that bcusim builds without the toolkit
// (values and layouts as in the driver API's cuda.h; the entry points'
// exported names carry their _v2 suffixes where the header maps them).
// Shared by runtime::Gpu and the stand-in driver of the tests.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bcusim::driver {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;

inline constexpr CUresult kSuccess = 0;
inline constexpr CUresult kErrorInvalidValue = 1;
inline constexpr CUresult kErrorNoDevice = 100;
inline constexpr CUresult kErrorInvalidPtx = 218;
inline constexpr CUresult kErrorNotFound = 500;
inline constexpr CUresult kErrorLaunchFailed = 719;

// CUjit_option
inline constexpr int kJitInfoLogBuffer = 3;
inline constexpr int kJitInfoLogBufferSizeBytes = 4;
inline constexpr int kJitErrorLogBuffer = 5;
inline constexpr int kJitErrorLogBufferSizeBytes = 6;
// CUfunction_attribute
inline constexpr int kFuncAttributeMaxDynamicSharedSizeBytes = 8;
inline constexpr int kFuncAttributeNonPortableClusterSizeAllowed = 14;
// CUlaunchAttributeID
inline constexpr int kLaunchAttributeCooperative = 2;
inline constexpr int kLaunchAttributeClusterDimension = 4;

union CUlaunchAttributeValue {
  char pad[64];
  int cooperative;
  struct {
    unsigned int x, y, z;
  } clusterDim;
};
struct CUlaunchAttribute {
  int id;
  char pad[4];
  CUlaunchAttributeValue value;
};
struct CUlaunchConfig {
  unsigned int gridDimX, gridDimY, gridDimZ;
  unsigned int blockDimX, blockDimY, blockDimZ;
  unsigned int sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned int numAttrs;
};
static_assert(sizeof(CUlaunchAttribute) == 72);
static_assert(sizeof(CUlaunchConfig) == 56);

// The entry points, by their exported names.
#define BCUSIM_DRIVER_ENTRY_POINTS(X)                                          \
  X(cuInit, CUresult (*)(unsigned int))                                        \
  X(cuDriverGetVersion, CUresult (*)(int *))                                   \
  X(cuDeviceGet, CUresult (*)(CUdevice *, int))                                \
  X(cuDeviceGetName, CUresult (*)(char *, int, CUdevice))                      \
  X(cuDevicePrimaryCtxRetain, CUresult (*)(CUcontext *, CUdevice))             \
  X(cuDevicePrimaryCtxRelease_v2, CUresult (*)(CUdevice))                      \
  X(cuCtxSetCurrent, CUresult (*)(CUcontext))                                  \
  X(cuCtxSynchronize, CUresult (*)())                                          \
  X(cuModuleLoadDataEx,                                                        \
    CUresult (*)(CUmodule *, const void *, unsigned int, int *, void **))      \
  X(cuModuleUnload, CUresult (*)(CUmodule))                                    \
  X(cuModuleGetFunction, CUresult (*)(CUfunction *, CUmodule, const char *))   \
  X(cuFuncSetAttribute, CUresult (*)(CUfunction, int, int))                    \
  X(cuMemAlloc_v2, CUresult (*)(CUdeviceptr *, size_t))                        \
  X(cuMemFree_v2, CUresult (*)(CUdeviceptr))                                   \
  X(cuMemcpyHtoD_v2, CUresult (*)(CUdeviceptr, const void *, size_t))          \
  X(cuMemcpyDtoH_v2, CUresult (*)(void *, CUdeviceptr, size_t))                \
  X(cuLaunchKernelEx,                                                          \
    CUresult (*)(const CUlaunchConfig *, CUfunction, void **, void **))        \
  X(cuGetErrorName, CUresult (*)(CUresult, const char **))                     \
  X(cuGetErrorString, CUresult (*)(CUresult, const char **))

} // namespace bcusim::driver
