// The CUDA driver API of the libcuda.so.1 stand-in (docs/exec.md "The
// driver API"): devices, contexts, modules loaded at run time (PTX from
// NVRTC or a file, fat binaries with PTX), launches, memory, streams and
// events, each a thin layer over the libcudart.so.13 stand-in, which
// runs them (a driver handle is the runtime's: CUdeviceptr a device
// address, CUstream a cudaStream_t, CUevent a cudaEvent_t, CUmodule a
// cudaLibrary_t, CUfunction a cudaKernel_t). A driver-only program does
// not load the runtime: the stand-in beside this library is loaded at the
// first call that needs it. Built with the toolkit's cuda.h, so every
// name carries the version suffix cuda.h gives it (cuMemAlloc_v2).
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "libcuda_api.h"

#define CU_API extern "C" __attribute__((visibility("default")))

// Deprecated functions programs still call (cuDeviceComputeCapability,
// in the CUDA samples' helpers) are provided too.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

// ---- the runtime stand-in -------------------------------------------------
// Whether the program had loaded the runtime stand-in itself when it first
// called the driver (then cudart made the device ready: no cuInit needed).
bool g_runtime_first = false;
bool g_init = false;

void *cudart_handle() {
  static void *h = [] {
    // Loaded by the program already?
    if (void *f = dlsym(RTLD_DEFAULT, "bcusim_cudart_library_load")) {
      Dl_info info{};
      if (dladdr(f, &info) && info.dli_fname)
        if (void *l = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD)) {
          g_runtime_first = true;
          return l;
        }
    }
    // The one beside this library.
    Dl_info self{};
    std::string path = "libcudart.so.13";
    if (dladdr(reinterpret_cast<void *>(&cudart_handle), &self) &&
        self.dli_fname) {
      std::string me = self.dli_fname;
      auto slash = me.rfind('/');
      if (slash != std::string::npos)
        path = me.substr(0, slash + 1) + path;
    }
    void *l = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!l) {
      std::fprintf(stderr,
                   "bcusim: error: the CUDA driver stand-in cannot load the "
                   "runtime stand-in '%s': %s\n",
                   path.c_str(), dlerror());
      std::abort();
    }
    return l;
  }();
  return h;
}

void *cudart_sym(const char *name) {
  void *f = dlsym(cudart_handle(), name);
  if (!f) {
    std::fprintf(stderr,
                 "bcusim: error: the runtime stand-in lacks '%s' (a "
                 "mismatched build?)\n",
                 name);
    std::abort();
  }
  return f;
}

// The runtime stand-in's function `name` with the type of `fn` (the
// per-thread-stream variants _ptsz/_ptds have their base's type).
#define CUDART_AS(fn, name)                                                    \
  ([] {                                                                        \
    static auto *f = reinterpret_cast<decltype(&::fn)>(cudart_sym(name));      \
    return f;                                                                  \
  }())
#define CUDART(fn) CUDART_AS(fn, #fn)
#define CUDART_PT(fn, per_thread, suffix)                                      \
  ((per_thread) ? CUDART_AS(fn, #fn suffix) : CUDART(fn))

// A runtime error as the driver's: the numbers are the same where both
// have the error; the runtime's own argument errors are the driver's
// invalid value, an unknown kernel handle an invalid handle.
CUresult cu(cudaError_t e) {
  switch (e) {
  case cudaErrorInvalidConfiguration:
  case cudaErrorInvalidDevicePointer:
  case cudaErrorInvalidMemcpyDirection:
  case cudaErrorInvalidPitchValue:
  case cudaErrorInvalidSymbol:
    return CUDA_ERROR_INVALID_VALUE;
  case cudaErrorInvalidDeviceFunction:
    return CUDA_ERROR_INVALID_HANDLE;
  case cudaErrorCudartUnloading:
    return CUDA_ERROR_DEINITIALIZED;
  default:
    return CUresult(int(e));
  }
}

// A CUfunction is a cudaKernel_t or a handle of cudaGetFuncBySymbol: the
// kernel it names, as the runtime stand-in's calls take it.
const void *kernel_of(CUfunction f) {
  using KernelOf = const void *(*)(const void *);
  static auto fn =
      reinterpret_cast<KernelOf>(cudart_sym("bcusim_cudart_kernel_of"));
  return fn(reinterpret_cast<const void *>(f));
}

// A call before cuInit fails as on a GPU, unless the program uses the
// runtime API (which initializes the driver itself).
bool ready() {
  cudart_handle();
  return g_init || g_runtime_first;
}
#define NEED_INIT                                                              \
  do {                                                                         \
    if (!ready())                                                              \
      return CUDA_ERROR_NOT_INITIALIZED;                                       \
  } while (0)

// ---- contexts ---------------------------------------------------------------
// One device; a context is a handle the program keeps current. Every
// context shares the device's memory, modules and streams (bcusim's one
// runtime); the primary context is one object.
struct Context {
  bool primary = false;
  bool destroyed = false;
  unsigned flags = 0;
};
std::mutex g_ctx_mutex;
Context g_primary{true};
int g_primary_refs = 0;
std::vector<std::unique_ptr<Context>> &contexts() {
  static auto *v = new std::vector<std::unique_ptr<Context>>;
  return *v;
}
thread_local std::vector<CUcontext> t_stack;
CUcontext handle(Context *c) { return reinterpret_cast<CUcontext>(c); }
Context *context_of(CUcontext h) {
  if (h == handle(&g_primary))
    return &g_primary;
  for (auto &c : contexts())
    if (handle(c.get()) == h)
      return c->destroyed ? nullptr : c.get();
  return nullptr;
}

CUresult create_context(CUcontext *pctx, unsigned flags, CUdevice dev) {
  NEED_INIT;
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard lock(g_ctx_mutex);
  auto c = std::make_unique<Context>();
  c->flags = flags;
  *pctx = handle(c.get());
  contexts().push_back(std::move(c));
  t_stack.push_back(*pctx);
  return CUDA_SUCCESS;
}

// ---- modules ----------------------------------------------------------------
using LoadFn = cudaError_t (*)(cudaLibrary_t *, const void *, const char *,
                               const char *);
CUresult load(CUmodule *module, const void *image, const char *file,
              const char *api) {
  NEED_INIT;
  if (!module)
    return CUDA_ERROR_INVALID_VALUE;
  static auto f =
      reinterpret_cast<LoadFn>(cudart_sym("bcusim_cudart_library_load"));
  cudaLibrary_t lib = nullptr;
  cudaError_t e = f(&lib, image, file, api);
  if (e == cudaSuccess)
    *module = reinterpret_cast<CUmodule>(lib);
  return cu(e);
}

// A use of a kernel (cuModuleGetFunction, cuKernelGetFunction): under lazy
// loading the kernel is loaded then (docs/exec.md "Lazy loading").
void kernel_use(const void *k) {
  using UseFn = cudaError_t (*)(const void *);
  static auto f =
      reinterpret_cast<UseFn>(cudart_sym("bcusim_cudart_kernel_use"));
  f(k);
}

// JIT option values of cuModuleLoadDataEx that return something: the log
// buffers get bcusim's words (the diagnostics themselves are on stderr).
void fill_logs(unsigned n, const CUjit_option *opts, void **vals,
               const char *error_log) {
  if (!opts || !vals)
    return;
  char *info = nullptr, *error = nullptr;
  size_t info_size = 0, error_size = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (opts[i] == CU_JIT_INFO_LOG_BUFFER)
      info = static_cast<char *>(vals[i]);
    else if (opts[i] == CU_JIT_ERROR_LOG_BUFFER)
      error = static_cast<char *>(vals[i]);
    else if (opts[i] == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES)
      info_size = reinterpret_cast<uintptr_t>(vals[i]);
    else if (opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      error_size = reinterpret_cast<uintptr_t>(vals[i]);
  }
  if (info && info_size)
    info[0] = '\0';
  if (error && error_size)
    std::snprintf(error, error_size, "%s", error_log);
  for (unsigned i = 0; i < n; ++i) // bytes written, without the NUL
    if (opts[i] == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES)
      vals[i] = nullptr;
    else if (opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES && error_size)
      vals[i] = reinterpret_cast<void *>(
          std::min(std::strlen(error_log), error_size - 1));
}

// ---- launches ---------------------------------------------------------------
// The argument pointers of a launch: `params`, or the packed buffer of
// `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE) cut at the kernel's
// parameter offsets. A buffer larger than the kernel's parameters is
// refused with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, a smaller one taken,
// the bytes it lacks zero (docs/exec.md "Measured on H200").
struct PackedArgs {
  std::vector<void *> ptrs;
  std::vector<char> bytes; // a short buffer's copy, zero-filled
};
CUresult launch_args(CUfunction f, void **params, void **extra, PackedArgs &out,
                     void ***args) {
  if (params || !extra) {
    *args = params;
    return CUDA_SUCCESS;
  }
  char *buffer = nullptr;
  size_t size = 0;
  bool has_size = false;
  for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
      buffer = static_cast<char *>(extra[i + 1]);
    else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
      size = *static_cast<size_t *>(extra[i + 1]);
      has_size = true;
    } else
      return CUDA_ERROR_INVALID_VALUE;
  }
  if (!buffer || !has_size)
    return CUDA_ERROR_INVALID_VALUE;
  auto info = CUDART(cudaFuncGetParamInfo);
  std::vector<size_t> offsets;
  size_t total = 0;
  for (size_t i = 0;; ++i) {
    size_t offset = 0, bytes = 0;
    const cudaError_t e = info(kernel_of(f), i, &offset, &bytes);
    if (e == cudaErrorInvalidValue)
      break; // past the last parameter
    if (e != cudaSuccess)
      return cu(e);
    offsets.push_back(offset);
    total = offset + bytes;
  }
  if (size > total)
    return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  if (size < total) {
    out.bytes.assign(total, 0);
    std::memcpy(out.bytes.data(), buffer, size);
    buffer = out.bytes.data();
  }
  for (size_t offset : offsets)
    out.ptrs.push_back(buffer + offset);
  *args = out.ptrs.data();
  return CUDA_SUCCESS;
}

template <bool PT>
CUresult launch_kernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                       unsigned bx, unsigned by, unsigned bz, unsigned shared,
                       CUstream stream, void **params, void **extra) {
  NEED_INIT;
  if (!f)
    return CUDA_ERROR_INVALID_HANDLE;
  PackedArgs packed;
  void **args = nullptr;
  if (CUresult r = launch_args(f, params, extra, packed, &args))
    return r;
  return cu(CUDART_PT(cudaLaunchKernel, PT, "_ptsz")(
      kernel_of(f), dim3(gx, gy, gz), dim3(bx, by, bz), args, shared,
      reinterpret_cast<cudaStream_t>(stream)));
}

static_assert(sizeof(CUlaunchAttribute) == sizeof(cudaLaunchAttribute));
static_assert(int(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) ==
              int(cudaLaunchAttributeClusterDimension));
static_assert(int(CU_LAUNCH_ATTRIBUTE_COOPERATIVE) ==
              int(cudaLaunchAttributeCooperative));
static_assert(int(CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION) ==
              int(cudaLaunchAttributeProgrammaticStreamSerialization));

template <bool PT>
CUresult launch_kernel_ex(const CUlaunchConfig *config, CUfunction f,
                          void **params, void **extra) {
  NEED_INIT;
  if (!config)
    return CUDA_ERROR_INVALID_VALUE;
  if (!f)
    return CUDA_ERROR_INVALID_HANDLE;
  PackedArgs packed;
  void **args = nullptr;
  if (CUresult r = launch_args(f, params, extra, packed, &args))
    return r;
  cudaLaunchConfig_t c{};
  c.gridDim = dim3(config->gridDimX, config->gridDimY, config->gridDimZ);
  c.blockDim = dim3(config->blockDimX, config->blockDimY, config->blockDimZ);
  c.dynamicSmemBytes = config->sharedMemBytes;
  c.stream = reinterpret_cast<cudaStream_t>(config->hStream);
  c.attrs = reinterpret_cast<cudaLaunchAttribute *>(config->attrs);
  c.numAttrs = config->numAttrs;
  return cu(
      CUDART_PT(cudaLaunchKernelExC, PT, "_ptsz")(&c, kernel_of(f), args));
}

// ---- memory -----------------------------------------------------------------
void *dev(CUdeviceptr p) { return reinterpret_cast<void *>(p); }

// An out parameter of a driver call (invalid value when it is null).
template <class T, class V> CUresult put(T *out, V value) {
  if (!ready())
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!out)
    return CUDA_ERROR_INVALID_VALUE;
  *out = T(value);
  return CUDA_SUCCESS;
}

// A runtime call that returns a device pointer (`call(void **)`), as a
// driver call that returns a CUdeviceptr.
template <class F> CUresult device_pointer(CUdeviceptr *dptr, F call) {
  if (!ready())
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!dptr)
    return CUDA_ERROR_INVALID_VALUE;
  void *p = nullptr;
  cudaError_t e = call(&p);
  *dptr = reinterpret_cast<CUdeviceptr>(p);
  return cu(e);
}

// cuMemsetD16/D32: a fill of 2- or 4-byte values; bytes that are all the
// same are a memset, others a copy of the filled values.
template <class T, bool PT>
CUresult fill(CUdeviceptr dst, T value, size_t n, CUstream stream, bool async) {
  NEED_INIT;
  uint8_t b[sizeof(T)];
  std::memcpy(b, &value, sizeof(T));
  bool same = true;
  for (size_t i = 1; i < sizeof(T); ++i)
    same &= b[i] == b[0];
  auto s = reinterpret_cast<cudaStream_t>(stream);
  if (same)
    return async ? cu(CUDART_PT(cudaMemsetAsync, PT, "_ptsz")(dev(dst), b[0],
                                                              n * sizeof(T), s))
                 : cu(CUDART_PT(cudaMemset, PT, "_ptds")(dev(dst), b[0],
                                                         n * sizeof(T)));
  if (!async) {
    std::vector<T> values(n, value);
    return cu(CUDART_PT(cudaMemcpy, PT, "_ptds")(
        dev(dst), values.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  // The values live until the copy ran: freed by a host function after it
  // in the stream, or kept for good when a graph captures the copy (the
  // graph may run it again).
  auto *values = new std::vector<T>(n, value);
  cudaError_t e = CUDART_PT(cudaMemcpyAsync, PT, "_ptsz")(
      dev(dst), values->data(), n * sizeof(T), cudaMemcpyHostToDevice, s);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  CUDART_PT(cudaStreamIsCapturing, PT, "_ptsz")(s, &capture);
  if (e != cudaSuccess)
    delete values;
  else if (capture == cudaStreamCaptureStatusNone)
    CUDART_PT(cudaLaunchHostFunc, PT, "_ptsz")
  (
      s, [](void *p) { delete static_cast<std::vector<T> *>(p); }, values);
  return cu(e);
}

template <bool PT>
CUresult copy(void *dst, const void *src, size_t n, cudaMemcpyKind kind) {
  NEED_INIT;
  return cu(CUDART_PT(cudaMemcpy, PT, "_ptds")(dst, src, n, kind));
}
template <bool PT>
CUresult copy_async(void *dst, const void *src, size_t n, cudaMemcpyKind kind,
                    CUstream s) {
  NEED_INIT;
  return cu(CUDART_PT(cudaMemcpyAsync, PT, "_ptsz")(
      dst, src, n, kind, reinterpret_cast<cudaStream_t>(s)));
}

struct ErrorName {
  int code;
  const char *name;
};
constexpr ErrorName kErrorNames[] = {
    {0, "CUDA_SUCCESS"},
    {1, "CUDA_ERROR_INVALID_VALUE"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "CUDA_ERROR_NOT_INITIALIZED"},
    {4, "CUDA_ERROR_DEINITIALIZED"},
    {5, "CUDA_ERROR_PROFILER_DISABLED"},
    {6, "CUDA_ERROR_PROFILER_NOT_INITIALIZED"},
    {7, "CUDA_ERROR_PROFILER_ALREADY_STARTED"},
    {8, "CUDA_ERROR_PROFILER_ALREADY_STOPPED"},
    {34, "CUDA_ERROR_STUB_LIBRARY"},
    {36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
    {100, "CUDA_ERROR_NO_DEVICE"},
    {101, "CUDA_ERROR_INVALID_DEVICE"},
    {102, "CUDA_ERROR_DEVICE_NOT_LICENSED"},
    {200, "CUDA_ERROR_INVALID_IMAGE"},
    {201, "CUDA_ERROR_INVALID_CONTEXT"},
    {202, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT"},
    {205, "CUDA_ERROR_MAP_FAILED"},
    {206, "CUDA_ERROR_UNMAP_FAILED"},
    {207, "CUDA_ERROR_ARRAY_IS_MAPPED"},
    {208, "CUDA_ERROR_ALREADY_MAPPED"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
    {210, "CUDA_ERROR_ALREADY_ACQUIRED"},
    {211, "CUDA_ERROR_NOT_MAPPED"},
    {212, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY"},
    {213, "CUDA_ERROR_NOT_MAPPED_AS_POINTER"},
    {214, "CUDA_ERROR_ECC_UNCORRECTABLE"},
    {215, "CUDA_ERROR_UNSUPPORTED_LIMIT"},
    {216, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE"},
    {217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED"},
    {218, "CUDA_ERROR_INVALID_PTX"},
    {219, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT"},
    {220, "CUDA_ERROR_NVLINK_UNCORRECTABLE"},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
    {223, "CUDA_ERROR_JIT_COMPILATION_DISABLED"},
    {224, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY"},
    {225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC"},
    {226, "CUDA_ERROR_CONTAINED"},
    {300, "CUDA_ERROR_INVALID_SOURCE"},
    {301, "CUDA_ERROR_FILE_NOT_FOUND"},
    {302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND"},
    {303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED"},
    {304, "CUDA_ERROR_OPERATING_SYSTEM"},
    {400, "CUDA_ERROR_INVALID_HANDLE"},
    {401, "CUDA_ERROR_ILLEGAL_STATE"},
    {402, "CUDA_ERROR_LOSSY_QUERY"},
    {500, "CUDA_ERROR_NOT_FOUND"},
    {600, "CUDA_ERROR_NOT_READY"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
    {703, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING"},
    {704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED"},
    {705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED"},
    {708, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE"},
    {709, "CUDA_ERROR_CONTEXT_IS_DESTROYED"},
    {710, "CUDA_ERROR_ASSERT"},
    {711, "CUDA_ERROR_TOO_MANY_PEERS"},
    {712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"},
    {713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"},
    {714, "CUDA_ERROR_HARDWARE_STACK_ERROR"},
    {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS"},
    {717, "CUDA_ERROR_INVALID_ADDRESS_SPACE"},
    {718, "CUDA_ERROR_INVALID_PC"},
    {719, "CUDA_ERROR_LAUNCH_FAILED"},
    {720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"},
    {721, "CUDA_ERROR_TENSOR_MEMORY_LEAK"},
    {800, "CUDA_ERROR_NOT_PERMITTED"},
    {801, "CUDA_ERROR_NOT_SUPPORTED"},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
    {805, "CUDA_ERROR_MPS_CONNECTION_FAILED"},
    {806, "CUDA_ERROR_MPS_RPC_FAILURE"},
    {807, "CUDA_ERROR_MPS_SERVER_NOT_READY"},
    {808, "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED"},
    {809, "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED"},
    {810, "CUDA_ERROR_MPS_CLIENT_TERMINATED"},
    {811, "CUDA_ERROR_CDP_NOT_SUPPORTED"},
    {812, "CUDA_ERROR_CDP_VERSION_MISMATCH"},
    {900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"},
    {901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"},
    {902, "CUDA_ERROR_STREAM_CAPTURE_MERGE"},
    {903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED"},
    {904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED"},
    {905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION"},
    {906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT"},
    {907, "CUDA_ERROR_CAPTURED_EVENT"},
    {908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD"},
    {909, "CUDA_ERROR_TIMEOUT"},
    {910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE"},
    {911, "CUDA_ERROR_EXTERNAL_DEVICE"},
    {912, "CUDA_ERROR_INVALID_CLUSTER_SIZE"},
    {913, "CUDA_ERROR_FUNCTION_NOT_LOADED"},
    {914, "CUDA_ERROR_INVALID_RESOURCE_TYPE"},
    {915, "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION"},
    {916, "CUDA_ERROR_KEY_ROTATION"},
    {999, "CUDA_ERROR_UNKNOWN"},
};

} // namespace

// ---- initialization, versions, errors -------------------------------------
CU_API CUresult cuInit(unsigned flags) {
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  cudart_handle();
  g_init = true;
  return CUDA_SUCCESS;
}

CU_API CUresult cuDriverGetVersion(int *version) {
  if (!version)
    return CUDA_ERROR_INVALID_VALUE;
  *version = 13000;
  return CUDA_SUCCESS;
}

CU_API CUresult cuGetErrorName(CUresult e, const char **s) {
  if (!s)
    return CUDA_ERROR_INVALID_VALUE;
  for (const auto &n : kErrorNames)
    if (n.code == int(e)) {
      *s = n.name;
      return CUDA_SUCCESS;
    }
  *s = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

// The runtime's words for the same number (the two share their errors'
// descriptions).
CU_API CUresult cuGetErrorString(CUresult e, const char **s) {
  if (!s)
    return CUDA_ERROR_INVALID_VALUE;
  const char *name = nullptr;
  if (cuGetErrorName(e, &name) != CUDA_SUCCESS) {
    *s = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
  *s = CUDART(cudaGetErrorString)(cudaError_t(int(e)));
  return CUDA_SUCCESS;
}

// ---- devices ---------------------------------------------------------------
CU_API CUresult cuDeviceGetCount(int *count) {
  NEED_INIT;
  return cu(CUDART(cudaGetDeviceCount)(count));
}

CU_API CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  NEED_INIT;
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

CU_API CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
  NEED_INIT;
  if (!name || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp p{};
  if (cudaError_t e = CUDART(cudaGetDeviceProperties)(&p, d))
    return cu(e);
  std::snprintf(name, size_t(len), "%s", p.name);
  return CUDA_SUCCESS;
}

// The attributes are numbered alike in both APIs.
static_assert(int(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) ==
              int(cudaDevAttrMultiProcessorCount));
static_assert(int(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) ==
              int(cudaDevAttrComputeCapabilityMajor));
CU_API CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attr,
                                     CUdevice d) {
  NEED_INIT;
  return cu(
      CUDART(cudaDeviceGetAttribute)(value, cudaDeviceAttr(int(attr)), d));
}

CU_API CUresult cuDeviceTotalMem(size_t *bytes, CUdevice d) {
  NEED_INIT;
  if (!bytes)
    return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp p{};
  if (cudaError_t e = CUDART(cudaGetDeviceProperties)(&p, d))
    return cu(e);
  *bytes = p.totalGlobalMem;
  return CUDA_SUCCESS;
}

CU_API CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice d) {
  NEED_INIT;
  if (!major || !minor)
    return CUDA_ERROR_INVALID_VALUE;
  if (cudaError_t e = CUDART(cudaDeviceGetAttribute)(
          major, cudaDevAttrComputeCapabilityMajor, d))
    return cu(e);
  return cu(CUDART(cudaDeviceGetAttribute)(
      minor, cudaDevAttrComputeCapabilityMinor, d));
}

// ---- contexts --------------------------------------------------------------
CU_API CUresult cuCtxCreate(CUcontext *pctx, CUctxCreateParams *,
                            unsigned flags, CUdevice d) {
  return create_context(pctx, flags, d);
}
CU_API CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned flags, CUdevice d) {
  return create_context(pctx, flags, d);
}

CU_API CUresult cuCtxDestroy(CUcontext ctx) {
  NEED_INIT;
  std::lock_guard lock(g_ctx_mutex);
  Context *c = context_of(ctx);
  if (!c || c->primary)
    return CUDA_ERROR_INVALID_CONTEXT;
  // Its work ends first.
  CUDART(cudaDeviceSynchronize)();
  c->destroyed = true;
  std::erase(t_stack, ctx);
  return CUDA_SUCCESS;
}

CU_API CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice d) {
  NEED_INIT;
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  if (d != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard lock(g_ctx_mutex);
  ++g_primary_refs;
  *pctx = handle(&g_primary);
  return CUDA_SUCCESS;
}
CU_API CUresult cuDevicePrimaryCtxRelease(CUdevice d) {
  NEED_INIT;
  if (d != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard lock(g_ctx_mutex);
  if (g_primary_refs == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  --g_primary_refs;
  return CUDA_SUCCESS;
}
CU_API CUresult cuDevicePrimaryCtxGetState(CUdevice d, unsigned *flags,
                                           int *active) {
  NEED_INIT;
  if (!flags || !active)
    return CUDA_ERROR_INVALID_VALUE;
  if (d != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard lock(g_ctx_mutex);
  *flags = g_primary.flags;
  *active = g_primary_refs > 0 || g_runtime_first;
  return CUDA_SUCCESS;
}
CU_API CUresult cuDevicePrimaryCtxSetFlags(CUdevice d, unsigned flags) {
  NEED_INIT;
  if (d != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard lock(g_ctx_mutex);
  g_primary.flags = flags;
  return CUDA_SUCCESS;
}

CU_API CUresult cuCtxGetCurrent(CUcontext *pctx) {
  return put(pctx, t_stack.empty() ? nullptr : t_stack.back());
}
CU_API CUresult cuCtxSetCurrent(CUcontext ctx) {
  NEED_INIT;
  std::lock_guard lock(g_ctx_mutex);
  if (ctx && !context_of(ctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!ctx) {
    if (!t_stack.empty())
      t_stack.pop_back();
  } else if (t_stack.empty())
    t_stack.push_back(ctx);
  else
    t_stack.back() = ctx;
  return CUDA_SUCCESS;
}
CU_API CUresult cuCtxPushCurrent(CUcontext ctx) {
  NEED_INIT;
  std::lock_guard lock(g_ctx_mutex);
  if (!context_of(ctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  t_stack.push_back(ctx);
  return CUDA_SUCCESS;
}
CU_API CUresult cuCtxPopCurrent(CUcontext *pctx) {
  NEED_INIT;
  if (t_stack.empty())
    return CUDA_ERROR_INVALID_CONTEXT;
  if (pctx)
    *pctx = t_stack.back();
  t_stack.pop_back();
  return CUDA_SUCCESS;
}
CU_API CUresult cuCtxGetDevice(CUdevice *d) { return put(d, 0); }
CU_API CUresult cuCtxSynchronize() {
  NEED_INIT;
  return cu(CUDART(cudaDeviceSynchronize)());
}
// The limits are numbered alike in both APIs.
static_assert(int(CU_LIMIT_STACK_SIZE) == int(cudaLimitStackSize));
static_assert(int(CU_LIMIT_MALLOC_HEAP_SIZE) == int(cudaLimitMallocHeapSize));
CU_API CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
  NEED_INIT;
  return cu(CUDART(cudaDeviceSetLimit)(cudaLimit(int(limit)), value));
}
CU_API CUresult cuCtxGetLimit(size_t *value, CUlimit limit) {
  NEED_INIT;
  return cu(CUDART(cudaDeviceGetLimit)(value, cudaLimit(int(limit))));
}

// ---- modules and libraries -------------------------------------------------
CU_API CUresult cuModuleLoad(CUmodule *module, const char *fname) {
  if (!fname)
    return CUDA_ERROR_INVALID_VALUE;
  return load(module, nullptr, fname, "cuModuleLoad");
}
CU_API CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  return load(module, image, nullptr, "cuModuleLoadData");
}
CU_API CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                                   unsigned n, CUjit_option *options,
                                   void **values) {
  CUresult r = load(module, image, nullptr, "cuModuleLoadDataEx");
  fill_logs(n, options, values,
            r == CUDA_SUCCESS ? ""
                              : "bcusim: the module did not load; its "
                                "diagnostics are on stderr");
  return r;
}
CU_API CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatbin) {
  return load(module, fatbin, nullptr, "cuModuleLoadFatBinary");
}
CU_API CUresult cuModuleUnload(CUmodule module) {
  NEED_INIT;
  return cu(CUDART(cudaLibraryUnload)(reinterpret_cast<cudaLibrary_t>(module)));
}
CU_API CUresult cuModuleGetFunction(CUfunction *f, CUmodule module,
                                    const char *name) {
  NEED_INIT;
  cudaKernel_t k = nullptr;
  cudaError_t e = CUDART(cudaLibraryGetKernel)(
      &k, reinterpret_cast<cudaLibrary_t>(module), name);
  if (e == cudaSuccess && f) {
    *f = reinterpret_cast<CUfunction>(k);
    kernel_use(k); // the function is loaded (lazy loading)
  }
  return e == cudaErrorSymbolNotFound ? CUDA_ERROR_NOT_FOUND : cu(e);
}
CU_API CUresult cuModuleGetFunctionCount(unsigned *count, CUmodule module) {
  NEED_INIT;
  return cu(CUDART(cudaLibraryGetKernelCount)(
      count, reinterpret_cast<cudaLibrary_t>(module)));
}
CU_API CUresult cuModuleEnumerateFunctions(CUfunction *functions, unsigned n,
                                           CUmodule module) {
  NEED_INIT;
  return cu(CUDART(cudaLibraryEnumerateKernels)(
      reinterpret_cast<cudaKernel_t *>(functions), n,
      reinterpret_cast<cudaLibrary_t>(module)));
}
CU_API CUresult cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes,
                                  CUmodule module, const char *name) {
  NEED_INIT;
  void *p = nullptr;
  cudaError_t e = CUDART(cudaLibraryGetGlobal)(
      &p, bytes, reinterpret_cast<cudaLibrary_t>(module), name);
  if (e == cudaSuccess && dptr)
    *dptr = reinterpret_cast<CUdeviceptr>(p);
  return e == cudaErrorSymbolNotFound ? CUDA_ERROR_NOT_FOUND : cu(e);
}

// A library is a module; a kernel is its function.
CU_API CUresult cuLibraryLoadData(CUlibrary *library, const void *code,
                                  CUjit_option *, void **, unsigned,
                                  CUlibraryOption *, void **, unsigned) {
  return load(reinterpret_cast<CUmodule *>(library), code, nullptr,
              "cuLibraryLoadData");
}
CU_API CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *file,
                                      CUjit_option *, void **, unsigned,
                                      CUlibraryOption *, void **, unsigned) {
  if (!file)
    return CUDA_ERROR_INVALID_VALUE;
  return load(reinterpret_cast<CUmodule *>(library), nullptr, file,
              "cuLibraryLoadFromFile");
}
CU_API CUresult cuLibraryUnload(CUlibrary library) {
  return cuModuleUnload(reinterpret_cast<CUmodule>(library));
}
CU_API CUresult cuLibraryGetKernel(CUkernel *k, CUlibrary library,
                                   const char *name) {
  return cuModuleGetFunction(reinterpret_cast<CUfunction *>(k),
                             reinterpret_cast<CUmodule>(library), name);
}
CU_API CUresult cuLibraryGetModule(CUmodule *m, CUlibrary library) {
  return put(m, reinterpret_cast<CUmodule>(library));
}
CU_API CUresult cuKernelGetFunction(CUfunction *f, CUkernel k) {
  if (f && k)
    kernel_use(k); // the function is loaded in the context (lazy loading)
  return put(f, reinterpret_cast<CUfunction>(k));
}
CU_API CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes,
                                   CUlibrary library, const char *name) {
  return cuModuleGetGlobal(dptr, bytes, reinterpret_cast<CUmodule>(library),
                           name);
}

// ---- functions -------------------------------------------------------------
CU_API CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attr,
                                   CUfunction f) {
  NEED_INIT;
  if (!value)
    return CUDA_ERROR_INVALID_VALUE;
  cudaFuncAttributes a{};
  if (cudaError_t e = CUDART(cudaFuncGetAttributes)(&a, kernel_of(f)))
    return cu(e);
  switch (attr) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *value = a.maxThreadsPerBlock;
    break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    *value = int(a.sharedSizeBytes);
    break;
  case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
    *value = int(a.constSizeBytes);
    break;
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
    *value = int(a.localSizeBytes);
    break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *value = a.numRegs;
    break;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    *value = a.ptxVersion;
    break;
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
    *value = a.binaryVersion;
    break;
  case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
    *value = a.cacheModeCA;
    break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *value = a.maxDynamicSharedSizeBytes;
    break;
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    *value = a.preferredShmemCarveout;
    break;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
    *value = a.clusterDimMustBeSet;
    break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    *value = a.requiredClusterWidth;
    break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    *value = a.requiredClusterHeight;
    break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    *value = a.requiredClusterDepth;
    break;
  case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    *value = a.nonPortableClusterSizeAllowed;
    break;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
    *value = a.clusterSchedulingPolicyPreference;
    break;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

// The settable attributes are numbered alike in both APIs.
static_assert(int(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) ==
              int(cudaFuncAttributeMaxDynamicSharedMemorySize));
static_assert(int(CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE) ==
              int(cudaFuncAttributeClusterSchedulingPolicyPreference));
CU_API CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute attr,
                                   int value) {
  NEED_INIT;
  return cu(CUDART(cudaFuncSetAttribute)(kernel_of(f),
                                         cudaFuncAttribute(int(attr)), value));
}
CU_API CUresult cuFuncSetCacheConfig(CUfunction f, CUfunc_cache) {
  NEED_INIT;
  return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
CU_API CUresult cuFuncGetName(const char **name, CUfunction f) {
  NEED_INIT;
  if (!name)
    return CUDA_ERROR_INVALID_VALUE;
  return cu(CUDART(cudaFuncGetName)(name, kernel_of(f)));
}

// ---- launches --------------------------------------------------------------
CU_API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy,
                               unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned shared, CUstream s,
                               void **params, void **extra) {
  return launch_kernel<false>(f, gx, gy, gz, bx, by, bz, shared, s, params,
                              extra);
}
CU_API CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy,
                                    unsigned gz, unsigned bx, unsigned by,
                                    unsigned bz, unsigned shared, CUstream s,
                                    void **params, void **extra) {
  return launch_kernel<true>(f, gx, gy, gz, bx, by, bz, shared, s, params,
                             extra);
}
CU_API CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                                 void **params, void **extra) {
  return launch_kernel_ex<false>(config, f, params, extra);
}
CU_API CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config,
                                      CUfunction f, void **params,
                                      void **extra) {
  return launch_kernel_ex<true>(config, f, params, extra);
}
template <bool PT>
static CUresult cooperative(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                            unsigned bx, unsigned by, unsigned bz,
                            unsigned shared, CUstream s, void **params) {
  NEED_INIT;
  return cu(CUDART_PT(cudaLaunchCooperativeKernel, PT, "_ptsz")(
      kernel_of(f), dim3(gx, gy, gz), dim3(bx, by, bz), params, shared,
      reinterpret_cast<cudaStream_t>(s)));
}
CU_API CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx,
                                          unsigned gy, unsigned gz, unsigned bx,
                                          unsigned by, unsigned bz,
                                          unsigned shared, CUstream s,
                                          void **params) {
  return cooperative<false>(f, gx, gy, gz, bx, by, bz, shared, s, params);
}
CU_API CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx,
                                               unsigned gy, unsigned gz,
                                               unsigned bx, unsigned by,
                                               unsigned bz, unsigned shared,
                                               CUstream s, void **params) {
  return cooperative<true>(f, gx, gy, gz, bx, by, bz, shared, s, params);
}
CU_API CUresult cuLaunchHostFunc(CUstream s, CUhostFn fn, void *data) {
  NEED_INIT;
  return cu(
      CUDART(cudaLaunchHostFunc)(reinterpret_cast<cudaStream_t>(s), fn, data));
}
CU_API CUresult cuLaunchHostFunc_ptsz(CUstream s, CUhostFn fn, void *data) {
  NEED_INIT;
  return cu(CUDART_AS(cudaLaunchHostFunc, "cudaLaunchHostFunc_ptsz")(
      reinterpret_cast<cudaStream_t>(s), fn, data));
}

// ---- memory ----------------------------------------------------------------
CU_API CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytes) {
  return device_pointer(dptr,
                        [&](void **p) { return CUDART(cudaMalloc)(p, bytes); });
}
CU_API CUresult cuMemAllocPitch(CUdeviceptr *dptr, size_t *pitch, size_t width,
                                size_t height, unsigned) {
  return device_pointer(dptr, [&](void **p) {
    return CUDART(cudaMallocPitch)(p, pitch, width, height);
  });
}
CU_API CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes,
                                  unsigned flags) {
  return device_pointer(dptr, [&](void **p) {
    return CUDART(cudaMallocManaged)(p, bytes, flags);
  });
}
CU_API CUresult cuMemFree(CUdeviceptr p) {
  NEED_INIT;
  return cu(CUDART(cudaFree)(dev(p)));
}
CU_API CUresult cuMemAllocHost(void **p, size_t bytes) {
  NEED_INIT;
  return cu(CUDART(cudaMallocHost)(p, bytes));
}
CU_API CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned flags) {
  NEED_INIT;
  return cu(CUDART(cudaHostAlloc)(p, bytes, flags));
}
CU_API CUresult cuMemFreeHost(void *p) {
  NEED_INIT;
  return cu(CUDART(cudaFreeHost)(p));
}
CU_API CUresult cuMemHostGetDevicePointer(CUdeviceptr *dptr, void *p,
                                          unsigned flags) {
  return device_pointer(dptr, [&](void **d) {
    return CUDART(cudaHostGetDevicePointer)(d, p, flags);
  });
}
CU_API CUresult cuMemGetInfo(size_t *free, size_t *total) {
  NEED_INIT;
  return cu(CUDART(cudaMemGetInfo)(free, total));
}

CU_API CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n) {
  return copy<false>(dev(dst), src, n, cudaMemcpyHostToDevice);
}
CU_API CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n) {
  return copy<false>(dst, dev(src), n, cudaMemcpyDeviceToHost);
}
CU_API CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return copy<false>(dev(dst), dev(src), n, cudaMemcpyDeviceToDevice);
}
CU_API CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return copy<false>(dev(dst), dev(src), n, cudaMemcpyDefault);
}
CU_API CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void *src,
                                     size_t n) {
  return copy<true>(dev(dst), src, n, cudaMemcpyHostToDevice);
}
CU_API CUresult cuMemcpyDtoH_v2_ptds(void *dst, CUdeviceptr src, size_t n) {
  return copy<true>(dst, dev(src), n, cudaMemcpyDeviceToHost);
}
CU_API CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dst, CUdeviceptr src,
                                     size_t n) {
  return copy<true>(dev(dst), dev(src), n, cudaMemcpyDeviceToDevice);
}
CU_API CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return copy<true>(dev(dst), dev(src), n, cudaMemcpyDefault);
}
CU_API CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n,
                                  CUstream s) {
  return copy_async<false>(dev(dst), src, n, cudaMemcpyHostToDevice, s);
}
CU_API CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n,
                                  CUstream s) {
  return copy_async<false>(dst, dev(src), n, cudaMemcpyDeviceToHost, s);
}
CU_API CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n,
                                  CUstream s) {
  return copy_async<false>(dev(dst), dev(src), n, cudaMemcpyDeviceToDevice, s);
}
CU_API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n,
                              CUstream s) {
  return copy_async<false>(dev(dst), dev(src), n, cudaMemcpyDefault, s);
}
CU_API CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void *src,
                                          size_t n, CUstream s) {
  return copy_async<true>(dev(dst), src, n, cudaMemcpyHostToDevice, s);
}
CU_API CUresult cuMemcpyDtoHAsync_v2_ptsz(void *dst, CUdeviceptr src, size_t n,
                                          CUstream s) {
  return copy_async<true>(dst, dev(src), n, cudaMemcpyDeviceToHost, s);
}
CU_API CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dst, CUdeviceptr src,
                                          size_t n, CUstream s) {
  return copy_async<true>(dev(dst), dev(src), n, cudaMemcpyDeviceToDevice, s);
}
CU_API CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n,
                                   CUstream s) {
  return copy_async<true>(dev(dst), dev(src), n, cudaMemcpyDefault, s);
}

CU_API CUresult cuMemsetD8(CUdeviceptr dst, unsigned char v, size_t n) {
  return fill<uint8_t, false>(dst, v, n, nullptr, false);
}
CU_API CUresult cuMemsetD16(CUdeviceptr dst, unsigned short v, size_t n) {
  return fill<uint16_t, false>(dst, v, n, nullptr, false);
}
CU_API CUresult cuMemsetD32(CUdeviceptr dst, unsigned v, size_t n) {
  return fill<uint32_t, false>(dst, v, n, nullptr, false);
}
CU_API CUresult cuMemsetD8_v2_ptds(CUdeviceptr dst, unsigned char v, size_t n) {
  return fill<uint8_t, true>(dst, v, n, nullptr, false);
}
CU_API CUresult cuMemsetD16_v2_ptds(CUdeviceptr dst, unsigned short v,
                                    size_t n) {
  return fill<uint16_t, true>(dst, v, n, nullptr, false);
}
CU_API CUresult cuMemsetD32_v2_ptds(CUdeviceptr dst, unsigned v, size_t n) {
  return fill<uint32_t, true>(dst, v, n, nullptr, false);
}
CU_API CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n,
                                CUstream s) {
  return fill<uint8_t, false>(dst, v, n, s, true);
}
CU_API CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n,
                                 CUstream s) {
  return fill<uint16_t, false>(dst, v, n, s, true);
}
CU_API CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned v, size_t n,
                                 CUstream s) {
  return fill<uint32_t, false>(dst, v, n, s, true);
}
CU_API CUresult cuMemsetD8Async_ptsz(CUdeviceptr dst, unsigned char v, size_t n,
                                     CUstream s) {
  return fill<uint8_t, true>(dst, v, n, s, true);
}
CU_API CUresult cuMemsetD16Async_ptsz(CUdeviceptr dst, unsigned short v,
                                      size_t n, CUstream s) {
  return fill<uint16_t, true>(dst, v, n, s, true);
}
CU_API CUresult cuMemsetD32Async_ptsz(CUdeviceptr dst, unsigned v, size_t n,
                                      CUstream s) {
  return fill<uint32_t, true>(dst, v, n, s, true);
}

namespace {

// A 2-D copy's side: its address at (X in bytes, Y) and its pitch. CUDA
// arrays are not provided here (nullptr).
const char *copy_side(CUmemorytype type, const void *host, CUdeviceptr device,
                      size_t x, size_t y, size_t pitch) {
  const char *base =
      type == CU_MEMORYTYPE_HOST ? static_cast<const char *>(host)
      : type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_UNIFIED
          ? static_cast<const char *>(dev(device))
          : nullptr;
  return base ? base + y * pitch + x : nullptr;
}
template <bool PT>
CUresult copy_2d(const CUDA_MEMCPY2D *c, CUstream s, bool async) {
  NEED_INIT;
  if (!c)
    return CUDA_ERROR_INVALID_VALUE;
  const char *src = copy_side(c->srcMemoryType, c->srcHost, c->srcDevice,
                              c->srcXInBytes, c->srcY, c->srcPitch);
  const char *dst = copy_side(c->dstMemoryType, c->dstHost, c->dstDevice,
                              c->dstXInBytes, c->dstY, c->dstPitch);
  if (!src || !dst)
    return c->srcMemoryType == CU_MEMORYTYPE_ARRAY ||
                   c->dstMemoryType == CU_MEMORYTYPE_ARRAY
               ? CUDA_ERROR_NOT_SUPPORTED
               : CUDA_ERROR_INVALID_VALUE;
  void *d = const_cast<char *>(dst);
  return async
             ? cu(CUDART_PT(cudaMemcpy2DAsync, PT, "_ptsz")(
                   d, c->dstPitch, src, c->srcPitch, c->WidthInBytes, c->Height,
                   cudaMemcpyDefault, reinterpret_cast<cudaStream_t>(s)))
             : cu(CUDART_PT(cudaMemcpy2D, PT, "_ptds")(
                   d, c->dstPitch, src, c->srcPitch, c->WidthInBytes, c->Height,
                   cudaMemcpyDefault));
}

} // namespace

CU_API CUresult cuMemcpy2D(const CUDA_MEMCPY2D *c) {
  return copy_2d<false>(c, nullptr, false);
}
CU_API CUresult cuMemcpy2DUnaligned(const CUDA_MEMCPY2D *c) {
  return copy_2d<false>(c, nullptr, false);
}
CU_API CUresult cuMemcpy2DAsync(const CUDA_MEMCPY2D *c, CUstream s) {
  return copy_2d<false>(c, s, true);
}
CU_API CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *c) {
  return copy_2d<true>(c, nullptr, false);
}
CU_API CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *c, CUstream s) {
  return copy_2d<true>(c, s, true);
}

// What a pointer is: cudaPointerGetAttributes, as the driver reports it.
CU_API CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attr,
                                      CUdeviceptr ptr) {
  NEED_INIT;
  if (!data)
    return CUDA_ERROR_INVALID_VALUE;
  cudaPointerAttributes a{};
  if (cudaError_t e = CUDART(cudaPointerGetAttributes)(&a, dev(ptr)))
    return cu(e);
  switch (attr) {
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    if (a.type == cudaMemoryTypeUnregistered)
      return CUDA_ERROR_INVALID_VALUE; // not memory the driver knows
    *static_cast<unsigned *>(data) = a.type == cudaMemoryTypeHost
                                         ? CU_MEMORYTYPE_HOST
                                         : CU_MEMORYTYPE_DEVICE;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
    *static_cast<CUdeviceptr *>(data) =
        reinterpret_cast<CUdeviceptr>(a.devicePointer);
    return a.devicePointer ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  case CU_POINTER_ATTRIBUTE_HOST_POINTER:
    *static_cast<void **>(data) = a.hostPointer;
    return a.hostPointer ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  case CU_POINTER_ATTRIBUTE_IS_MANAGED:
    *static_cast<unsigned *>(data) = a.type == cudaMemoryTypeManaged;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
    *static_cast<int *>(data) = a.device;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_NOT_SUPPORTED;
  }
}

// ---- streams and events ----------------------------------------------------
// Flags are numbered alike in both APIs.
static_assert(int(CU_STREAM_NON_BLOCKING) == int(cudaStreamNonBlocking));
static_assert(int(CU_EVENT_DISABLE_TIMING) == int(cudaEventDisableTiming));
CU_API CUresult cuStreamCreate(CUstream *s, unsigned flags) {
  NEED_INIT;
  return cu(CUDART(cudaStreamCreateWithFlags)(
      reinterpret_cast<cudaStream_t *>(s), flags));
}
CU_API CUresult cuStreamCreateWithPriority(CUstream *s, unsigned flags,
                                           int priority) {
  NEED_INIT;
  return cu(CUDART(cudaStreamCreateWithPriority)(
      reinterpret_cast<cudaStream_t *>(s), flags, priority));
}
CU_API CUresult cuStreamDestroy(CUstream s) {
  NEED_INIT;
  return cu(CUDART(cudaStreamDestroy)(reinterpret_cast<cudaStream_t>(s)));
}
template <bool PT> static CUresult stream_sync(CUstream s) {
  NEED_INIT;
  return cu(CUDART_PT(cudaStreamSynchronize, PT,
                      "_ptsz")(reinterpret_cast<cudaStream_t>(s)));
}
CU_API CUresult cuStreamSynchronize(CUstream s) {
  return stream_sync<false>(s);
}
CU_API CUresult cuStreamSynchronize_ptsz(CUstream s) {
  return stream_sync<true>(s);
}
template <bool PT> static CUresult stream_query(CUstream s) {
  NEED_INIT;
  return cu(CUDART_PT(cudaStreamQuery, PT,
                      "_ptsz")(reinterpret_cast<cudaStream_t>(s)));
}
CU_API CUresult cuStreamQuery(CUstream s) { return stream_query<false>(s); }
CU_API CUresult cuStreamQuery_ptsz(CUstream s) { return stream_query<true>(s); }
template <bool PT>
static CUresult stream_wait(CUstream s, CUevent e, unsigned flags) {
  NEED_INIT;
  return cu(CUDART_PT(cudaStreamWaitEvent, PT,
                      "_ptsz")(reinterpret_cast<cudaStream_t>(s),
                               reinterpret_cast<cudaEvent_t>(e), flags));
}
CU_API CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags) {
  return stream_wait<false>(s, e, flags);
}
CU_API CUresult cuStreamWaitEvent_ptsz(CUstream s, CUevent e, unsigned flags) {
  return stream_wait<true>(s, e, flags);
}

// The two callback types differ only in their handle and status types.
CU_API CUresult cuStreamAddCallback(CUstream s, CUstreamCallback fn, void *data,
                                    unsigned flags) {
  NEED_INIT;
  return cu(CUDART(cudaStreamAddCallback)(
      reinterpret_cast<cudaStream_t>(s),
      reinterpret_cast<cudaStreamCallback_t>(fn), data, flags));
}
CU_API CUresult cuStreamAddCallback_ptsz(CUstream s, CUstreamCallback fn,
                                         void *data, unsigned flags) {
  NEED_INIT;
  return cu(CUDART_AS(cudaStreamAddCallback, "cudaStreamAddCallback_ptsz")(
      reinterpret_cast<cudaStream_t>(s),
      reinterpret_cast<cudaStreamCallback_t>(fn), data, flags));
}

CU_API CUresult cuEventCreate(CUevent *e, unsigned flags) {
  NEED_INIT;
  return cu(CUDART(cudaEventCreateWithFlags)(reinterpret_cast<cudaEvent_t *>(e),
                                             flags));
}
CU_API CUresult cuEventDestroy(CUevent e) {
  NEED_INIT;
  return cu(CUDART(cudaEventDestroy)(reinterpret_cast<cudaEvent_t>(e)));
}
template <bool PT> static CUresult event_record(CUevent e, CUstream s) {
  NEED_INIT;
  return cu(CUDART_PT(cudaEventRecord, PT, "_ptsz")(
      reinterpret_cast<cudaEvent_t>(e), reinterpret_cast<cudaStream_t>(s)));
}
CU_API CUresult cuEventRecord(CUevent e, CUstream s) {
  return event_record<false>(e, s);
}
CU_API CUresult cuEventRecord_ptsz(CUevent e, CUstream s) {
  return event_record<true>(e, s);
}
CU_API CUresult cuEventSynchronize(CUevent e) {
  NEED_INIT;
  return cu(CUDART(cudaEventSynchronize)(reinterpret_cast<cudaEvent_t>(e)));
}
CU_API CUresult cuEventQuery(CUevent e) {
  NEED_INIT;
  return cu(CUDART(cudaEventQuery)(reinterpret_cast<cudaEvent_t>(e)));
}
CU_API CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  NEED_INIT;
  return cu(CUDART(cudaEventElapsedTime)(ms,
                                         reinterpret_cast<cudaEvent_t>(start),
                                         reinterpret_cast<cudaEvent_t>(end)));
}
// CUDA 12's name (cuda.h 13 maps cuEventElapsedTime to _v2).
CU_API CUresult cuEventElapsedTime_v1(
    float *ms, CUevent start, CUevent end) __asm__("cuEventElapsedTime");
CU_API CUresult cuEventElapsedTime_v1(float *ms, CUevent start, CUevent end) {
  return cuEventElapsedTime(ms, start, end);
}

// ---- the table cuGetProcAddress answers from -------------------------------
void *bcusim::runtime::driver_function(const char *name, int version) {
  struct Entry {
    const char *name;
    void *fn;
  };
#define E(n)                                                                   \
  { #n, reinterpret_cast < void *>(&n) }
  static const Entry entries[] = {
      E(cuInit),
      E(cuDriverGetVersion),
      E(cuGetErrorName),
      E(cuGetErrorString),
      E(cuDeviceGetCount),
      E(cuDeviceGet),
      E(cuDeviceGetName),
      E(cuDeviceGetAttribute),
      E(cuDeviceTotalMem),
      E(cuDeviceComputeCapability),
      E(cuCtxCreate),
      E(cuCtxDestroy),
      E(cuDevicePrimaryCtxRetain),
      E(cuDevicePrimaryCtxRelease),
      E(cuDevicePrimaryCtxGetState),
      E(cuDevicePrimaryCtxSetFlags),
      E(cuCtxGetCurrent),
      E(cuCtxSetCurrent),
      E(cuCtxPushCurrent),
      E(cuCtxPopCurrent),
      E(cuCtxGetDevice),
      E(cuCtxSynchronize),
      E(cuCtxSetLimit),
      E(cuCtxGetLimit),
      E(cuModuleLoad),
      E(cuModuleLoadData),
      E(cuModuleLoadDataEx),
      E(cuModuleLoadFatBinary),
      E(cuModuleUnload),
      E(cuModuleGetFunction),
      E(cuModuleGetFunctionCount),
      E(cuModuleEnumerateFunctions),
      E(cuModuleGetGlobal),
      E(cuLibraryLoadData),
      E(cuLibraryLoadFromFile),
      E(cuLibraryUnload),
      E(cuLibraryGetKernel),
      E(cuLibraryGetModule),
      E(cuKernelGetFunction),
      E(cuLibraryGetGlobal),
      E(cuFuncGetAttribute),
      E(cuFuncSetAttribute),
      E(cuFuncSetCacheConfig),
      E(cuFuncGetName),
      E(cuLaunchKernel),
      E(cuLaunchKernelEx),
      E(cuLaunchCooperativeKernel),
      E(cuLaunchHostFunc),
      E(cuMemAlloc),
      E(cuMemAllocPitch),
      E(cuMemAllocManaged),
      E(cuMemFree),
      E(cuMemAllocHost),
      E(cuMemHostAlloc),
      E(cuMemFreeHost),
      E(cuMemHostGetDevicePointer),
      E(cuMemGetInfo),
      E(cuMemcpyHtoD),
      E(cuMemcpyDtoH),
      E(cuMemcpyDtoD),
      E(cuMemcpy),
      E(cuMemcpyHtoDAsync),
      E(cuMemcpyDtoHAsync),
      E(cuMemcpyDtoDAsync),
      E(cuMemcpyAsync),
      E(cuMemsetD8),
      E(cuMemsetD16),
      E(cuMemsetD32),
      E(cuMemsetD8Async),
      E(cuMemsetD16Async),
      E(cuMemsetD32Async),
      E(cuStreamCreate),
      E(cuStreamCreateWithPriority),
      E(cuStreamDestroy),
      E(cuStreamSynchronize),
      E(cuStreamQuery),
      E(cuStreamWaitEvent),
      E(cuEventCreate),
      E(cuEventDestroy),
      E(cuEventRecord),
      E(cuEventSynchronize),
      E(cuEventQuery),
      E(cuEventElapsedTime),
  };
#undef E
  // By the name without its version suffix; the version picks the ABI.
  if (std::strcmp(name, "cuCtxCreate") == 0 && version < 13000)
    return reinterpret_cast<void *>(&cuCtxCreate_v2);
  for (const auto &e : entries)
    if (std::strcmp(e.name, name) == 0)
      return e.fn;
  return nullptr;
}

// NVIDIA's private tables (NVRTC asks for them after cuInit): bcusim has
// none, and says so (a missing symbol would be called anyway).
CU_API CUresult cuGetExportTable(const void **table, const CUuuid *) {
  if (table)
    *table = nullptr;
  return CUDA_ERROR_NOT_FOUND;
}

// The runtime stand-in's cudaGetDriverEntryPoint asks here.
CU_API void *bcusim_libcuda_driver_function(const char *name, int version) {
  return bcusim::runtime::driver_function(name, version);
}
