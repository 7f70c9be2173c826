// A stand-in for the CUDA driver library (libcuda.so.1) that implements the
// entry points `bcusim run --on-gpu` uses (src/runtime/driver_api.h) on
// bcusim's own engine, so that the GPU path is tested where there is no GPU
// (BCUSIM_LIBCUDA=path/to/libcuda-standin.so). Environment:
//   STANDIN_CUDA_CORRUPT_BYTE=N  every copy from the device of more than N
//                                bytes has byte N inverted (a "GPU" that
//                                computes something else, for
//                                --compare-gpu).
//   STANDIN_CUDA_NO_DEVICE=1     cuInit fails with CUDA_ERROR_NO_DEVICE.
//   STANDIN_CUDA_JIT_LOG=TEXT    every module is refused, TEXT its JIT log.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bcusim/engine/engine.h"
#include "driver_api.h"

using namespace bcusim;
using namespace bcusim::driver;

// The driver's opaque handles.
namespace bcusim::driver {
struct CUmod_st {
  std::unique_ptr<engine::Module> module;
};
struct CUfunc_st {
  engine::Module *module = nullptr;
  std::string name;
};
} // namespace bcusim::driver

namespace {

engine::Device &device() {
  static engine::Device d;
  return d;
}
std::vector<std::unique_ptr<CUfunc_st>> &functions() {
  static std::vector<std::unique_ptr<CUfunc_st>> f;
  return f;
}
// A kernel's failure, reported (and kept, as the driver's errors are) by
// the next synchronization.
CUresult &sticky_error() {
  static CUresult e = kSuccess;
  return e;
}
CUctx_st *const kContext = reinterpret_cast<CUctx_st *>(uintptr_t(0x1000));

} // namespace

extern "C" {

CUresult cuInit(unsigned int) {
  const char *e = std::getenv("STANDIN_CUDA_NO_DEVICE");
  return e && *e == '1' ? kErrorNoDevice : kSuccess;
}
CUresult cuDriverGetVersion(int *v) {
  *v = 13000;
  return kSuccess;
}
CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  if (ordinal != 0)
    return kErrorInvalidValue;
  *d = 0;
  return kSuccess;
}
CUresult cuDeviceGetName(char *name, int len, CUdevice) {
  std::snprintf(name, size_t(len), "%s", "bcusim stand-in GPU");
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice) {
  *c = kContext;
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) { return kSuccess; }
CUresult cuCtxSetCurrent(CUcontext) { return kSuccess; }
CUresult cuCtxSynchronize() { return sticky_error(); }

CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned int n,
                            int *options, void **values) {
  DiagnosticSink sink;
  const char *refuse = std::getenv("STANDIN_CUDA_JIT_LOG");
  auto module = refuse
                    ? nullptr
                    : engine::Module::load_string(
                          "module.ptx", static_cast<const char *>(image), sink);
  if (!module) {
    char *log = nullptr;
    size_t size = 0;
    for (unsigned i = 0; i < n; ++i) {
      if (options[i] == kJitErrorLogBuffer)
        log = static_cast<char *>(values[i]);
      if (options[i] == kJitErrorLogBufferSizeBytes)
        size = reinterpret_cast<size_t>(values[i]);
    }
    if (log && size)
      std::snprintf(log, size, "%s",
                    refuse ? refuse : sink.render_all().c_str());
    return kErrorInvalidPtx;
  }
  *m = new CUmod_st{std::move(module)};
  return kSuccess;
}
CUresult cuModuleUnload(CUmodule m) {
  delete m;
  return kSuccess;
}
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  if (!m->module->kernel_param_sizes(name))
    return kErrorNotFound;
  functions().push_back(
      std::make_unique<CUfunc_st>(CUfunc_st{m->module.get(), name}));
  *f = functions().back().get();
  return kSuccess;
}
CUresult cuFuncSetAttribute(CUfunction, int, int) { return kSuccess; }

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  *p = device().alloc(bytes);
  return kSuccess;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  return device().free(p) ? kSuccess : kErrorInvalidValue;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  return device().write(dst, src, bytes) ? kSuccess : kErrorInvalidValue;
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  if (!device().read(src, dst, bytes))
    return kErrorInvalidValue;
  if (const char *e = std::getenv("STANDIN_CUDA_CORRUPT_BYTE")) {
    size_t n = std::strtoull(e, nullptr, 10);
    if (n < bytes)
      static_cast<uint8_t *>(dst)[n] ^= 0xff;
  }
  return kSuccess;
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **params,
                          void **extra) {
  if (extra)
    return kErrorInvalidValue;
  engine::LaunchConfig cfg;
  cfg.grid = {c->gridDimX, c->gridDimY, c->gridDimZ};
  cfg.block = {c->blockDimX, c->blockDimY, c->blockDimZ};
  cfg.shared_bytes = c->sharedMemBytes;
  for (unsigned i = 0; i < c->numAttrs; ++i)
    if (c->attrs[i].id == kLaunchAttributeClusterDimension) {
      const auto &d = c->attrs[i].value.clusterDim;
      cfg.cluster = {d.x, d.y, d.z};
    }
  std::vector<engine::KernelArg> args;
  const auto sizes = f->module->kernel_param_sizes(f->name);
  for (uint32_t size : *sizes)
    args.push_back(engine::KernelArg::raw(params[args.size()], size));
  auto r = device().launch(*f->module, f->name, cfg, args);
  std::fwrite(r.printf_output.data(), 1, r.printf_output.size(), stdout);
  if (!r.ok())
    sticky_error() = kErrorLaunchFailed;
  return kSuccess;
}

CUresult cuGetErrorName(CUresult r, const char **s) {
  switch (r) {
  case kSuccess:
    *s = "CUDA_SUCCESS";
    return kSuccess;
  case kErrorInvalidValue:
    *s = "CUDA_ERROR_INVALID_VALUE";
    return kSuccess;
  case kErrorNoDevice:
    *s = "CUDA_ERROR_NO_DEVICE";
    return kSuccess;
  case kErrorInvalidPtx:
    *s = "CUDA_ERROR_INVALID_PTX";
    return kSuccess;
  case kErrorNotFound:
    *s = "CUDA_ERROR_NOT_FOUND";
    return kSuccess;
  case kErrorLaunchFailed:
    *s = "CUDA_ERROR_LAUNCH_FAILED";
    return kSuccess;
  }
  *s = nullptr;
  return kErrorInvalidValue;
}
CUresult cuGetErrorString(CUresult r, const char **s) {
  switch (r) {
  case kErrorNoDevice:
    *s = "no CUDA-capable device is detected";
    return kSuccess;
  case kErrorInvalidPtx:
    *s = "a PTX JIT compilation failed";
    return kSuccess;
  case kErrorLaunchFailed:
    *s = "unspecified launch failure";
    return kSuccess;
  }
  *s = nullptr;
  return kErrorInvalidValue;
}

} // extern "C"
