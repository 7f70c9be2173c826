// Compile-time check of src/runtime/driver_api.h against the toolkit's
// cuda.h (built only where the toolkit's headers are present): the values,
// layouts and exported entry-point names bcusim declares itself are the
// driver's.
#include <cuda.h>

#include <cstddef>
#include <string_view>

#include "driver_api.h"

namespace d = bcusim::driver;

static_assert(d::kSuccess == CUDA_SUCCESS);
static_assert(d::kErrorInvalidValue == CUDA_ERROR_INVALID_VALUE);
static_assert(d::kErrorNoDevice == CUDA_ERROR_NO_DEVICE);
static_assert(d::kErrorInvalidPtx == CUDA_ERROR_INVALID_PTX);
static_assert(d::kErrorNotFound == CUDA_ERROR_NOT_FOUND);
static_assert(d::kErrorLaunchFailed == CUDA_ERROR_LAUNCH_FAILED);
static_assert(d::kJitInfoLogBuffer == CU_JIT_INFO_LOG_BUFFER);
static_assert(d::kJitInfoLogBufferSizeBytes ==
              CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
static_assert(d::kJitErrorLogBuffer == CU_JIT_ERROR_LOG_BUFFER);
static_assert(d::kJitErrorLogBufferSizeBytes ==
              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
static_assert(d::kFuncAttributeMaxDynamicSharedSizeBytes ==
              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
static_assert(d::kFuncAttributeNonPortableClusterSizeAllowed ==
              CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED);
static_assert(d::kLaunchAttributeCooperative ==
              CU_LAUNCH_ATTRIBUTE_COOPERATIVE);
static_assert(d::kLaunchAttributeClusterDimension ==
              CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);

static_assert(sizeof(CUresult) == sizeof(d::CUresult));
static_assert(sizeof(CUdevice) == sizeof(d::CUdevice));
static_assert(sizeof(CUdeviceptr) == sizeof(d::CUdeviceptr));
static_assert(sizeof(CUjit_option) == sizeof(int));
static_assert(sizeof(CUlaunchAttributeValue) ==
              sizeof(d::CUlaunchAttributeValue));
static_assert(sizeof(CUlaunchAttribute) == sizeof(d::CUlaunchAttribute));
static_assert(offsetof(CUlaunchAttribute, value) ==
              offsetof(d::CUlaunchAttribute, value));
static_assert(sizeof(CUlaunchConfig) == sizeof(d::CUlaunchConfig));
#define BCUSIM_SAME_OFFSET(f)                                                  \
  static_assert(offsetof(CUlaunchConfig, f) == offsetof(d::CUlaunchConfig, f));
BCUSIM_SAME_OFFSET(gridDimX)
BCUSIM_SAME_OFFSET(blockDimZ)
BCUSIM_SAME_OFFSET(sharedMemBytes)
BCUSIM_SAME_OFFSET(hStream)
BCUSIM_SAME_OFFSET(attrs)
BCUSIM_SAME_OFFSET(numAttrs)

// The names cuda.h maps its entry points to are the names bcusim looks up.
#define BCUSIM_STR2(x) #x
#define BCUSIM_STR(x) BCUSIM_STR2(x)
static_assert(std::string_view(BCUSIM_STR(cuMemAlloc)) == "cuMemAlloc_v2");
static_assert(std::string_view(BCUSIM_STR(cuMemFree)) == "cuMemFree_v2");
static_assert(std::string_view(BCUSIM_STR(cuMemcpyHtoD)) == "cuMemcpyHtoD_v2");
static_assert(std::string_view(BCUSIM_STR(cuMemcpyDtoH)) == "cuMemcpyDtoH_v2");
static_assert(std::string_view(BCUSIM_STR(cuDevicePrimaryCtxRelease)) ==
              "cuDevicePrimaryCtxRelease_v2");
static_assert(std::string_view(BCUSIM_STR(cuLaunchKernelEx)) ==
              "cuLaunchKernelEx");
static_assert(std::string_view(BCUSIM_STR(cuModuleLoadDataEx)) ==
              "cuModuleLoadDataEx");
static_assert(std::string_view(BCUSIM_STR(cuModuleGetFunction)) ==
              "cuModuleGetFunction");
static_assert(std::string_view(BCUSIM_STR(cuDevicePrimaryCtxRetain)) ==
              "cuDevicePrimaryCtxRetain");
static_assert(std::string_view(BCUSIM_STR(cuCtxSynchronize)) ==
              "cuCtxSynchronize");
