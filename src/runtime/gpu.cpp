// runtime::Gpu: the CUDA driver API loaded at run time (include/bcusim/
// runtime/gpu.h, docs/engine.md "Checking against your GPU").
#include "bcusim/runtime/gpu.h"

#include <dlfcn.h>
#include <filesystem>

#include <cstdlib>
#include <cstring>
#include <type_traits>

#include <fmt/format.h>

#include "driver_api.h"

namespace bcusim::runtime {

using namespace driver;

struct Gpu::Api {
  void *lib = nullptr;
  std::string path;
  CUdevice device = 0;
  CUcontext context = nullptr;
#define BCUSIM_DECLARE(name, type) std::type_identity_t<type> name = nullptr;
  BCUSIM_DRIVER_ENTRY_POINTS(BCUSIM_DECLARE)
#undef BCUSIM_DECLARE

  // "CUDA_ERROR_X (what the driver says)".
  std::string describe(CUresult r) const {
    const char *name = nullptr, *text = nullptr;
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &text);
    std::string s = name ? name : fmt::format("CUDA error {}", r);
    if (text && *text)
      s += fmt::format(" ({})", text);
    return s;
  }
  bool ok(CUresult r, const std::string &what, std::string &error) const {
    if (r == kSuccess)
      return true;
    error = fmt::format("{}: {}", what, describe(r));
    return false;
  }
};

struct Gpu::Module {
  CUmodule handle = nullptr;
  bool cooperative = false; // reads %envreg1/%envreg2 (grid.sync)
  Api *api = nullptr;
  ~Module() {
    if (handle)
      api->cuModuleUnload(handle);
  }
};

std::unique_ptr<Gpu> Gpu::open(std::string &error) {
  auto api = std::make_unique<Api>();
  const char *env = std::getenv(kLibcudaEnv);
  api->path = env && *env ? env : "libcuda.so.1";
  api->lib = dlopen(api->path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!api->lib) {
    error = fmt::format("no CUDA driver: cannot load {} ({}); --on-gpu and "
                        "--compare-gpu need an NVIDIA GPU and its driver",
                        api->path, dlerror());
    return nullptr;
  }
  if (dlsym(api->lib, "bcusim_standin_libcuda")) {
    // bcusim exec's libcuda.so.1 stand-in (on LD_LIBRARY_PATH): it runs
    // nothing on a GPU.
    error = fmt::format(
        "no CUDA driver: the {} loaded is bcusim exec's stand-in "
        "(tensor-map encoders only), not NVIDIA's driver; --on-gpu and "
        "--compare-gpu need an NVIDIA GPU and its driver",
        std::filesystem::path(api->path).filename().string());
    dlclose(api->lib);
    return nullptr;
  }
  std::string missing;
#define BCUSIM_RESOLVE(name, type)                                             \
  api->name = reinterpret_cast<type>(dlsym(api->lib, #name));                  \
  if (!api->name && missing.empty())                                           \
    missing = #name;
  BCUSIM_DRIVER_ENTRY_POINTS(BCUSIM_RESOLVE)
#undef BCUSIM_RESOLVE
  if (!missing.empty()) {
    error = fmt::format("{} is not a usable CUDA driver: it has no {}",
                        api->path, missing);
    dlclose(api->lib);
    return nullptr;
  }
  std::unique_ptr<Gpu> gpu(new Gpu);
  Api &a = *api;
  gpu->api_ = std::move(api);
  CUresult r = a.cuInit(0);
  if (r != kSuccess) {
    error = fmt::format("no usable GPU: cuInit: {}", a.describe(r));
    return nullptr;
  }
  if (!a.ok(a.cuDeviceGet(&a.device, 0), "no usable GPU: cuDeviceGet", error) ||
      !a.ok(a.cuDevicePrimaryCtxRetain(&a.context, a.device),
            "cuDevicePrimaryCtxRetain", error) ||
      !a.ok(a.cuCtxSetCurrent(a.context), "cuCtxSetCurrent", error))
    return nullptr;
  return gpu;
}

Gpu::~Gpu() {
  if (!api_)
    return;
  if (api_->context) {
    for (uint64_t p : allocations_)
      api_->cuMemFree_v2(p);
    api_->cuDevicePrimaryCtxRelease_v2(api_->device);
  }
  // The driver library stays loaded: its threads may outlive this object.
}

std::string Gpu::description() const {
  char name[256] = {};
  api_->cuDeviceGetName(name, sizeof name - 1, api_->device);
  int version = 0;
  api_->cuDriverGetVersion(&version);
  return fmt::format("{} (CUDA driver {}.{})", name, version / 1000,
                     version % 1000 / 10);
}

std::shared_ptr<Gpu::Module> Gpu::load(const std::string &ptx,
                                       std::string &error) {
  auto m = std::make_shared<Module>();
  m->api = api_.get();
  m->cooperative = ptx.find("%envreg1") != std::string::npos ||
                   ptx.find("%envreg2") != std::string::npos;
  std::string elog(1 << 16, '\0');
  int opt[] = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes};
  void *val[] = {elog.data(), reinterpret_cast<void *>(elog.size())};
  CUresult r = api_->cuModuleLoadDataEx(&m->handle, ptx.c_str(), 2, opt, val);
  if (r != kSuccess) {
    m->handle = nullptr;
    elog.resize(std::strlen(elog.c_str()));
    while (!elog.empty() && elog.back() == '\n')
      elog.pop_back();
    error = fmt::format("the driver does not load the PTX: {}{}{}",
                        api_->describe(r), elog.empty() ? "" : "\n", elog);
    return nullptr;
  }
  return m;
}

std::optional<uint64_t> Gpu::alloc(uint64_t bytes, std::string &error) {
  CUdeviceptr p = 0;
  if (!api_->ok(api_->cuMemAlloc_v2(&p, bytes ? bytes : 1), "cuMemAlloc",
                error))
    return std::nullopt;
  allocations_.push_back(p);
  return p;
}

bool Gpu::write(uint64_t dst, const void *src, uint64_t bytes,
                std::string &error) {
  return bytes == 0 || api_->ok(api_->cuMemcpyHtoD_v2(dst, src, bytes),
                                "cuMemcpyHtoD", error);
}

bool Gpu::read(uint64_t src, void *dst, uint64_t bytes, std::string &error) {
  return bytes == 0 || api_->ok(api_->cuMemcpyDtoH_v2(dst, src, bytes),
                                "cuMemcpyDtoH", error);
}

bool Gpu::launch(Module &module, const std::string &kernel,
                 const engine::LaunchConfig &cfg,
                 const std::vector<engine::KernelArg> &args,
                 const std::vector<uint32_t> &param_sizes, std::string &error) {
  if (args.size() != param_sizes.size()) {
    error = fmt::format("kernel '{}' takes {} parameter{}; {} argument{} given",
                        kernel, param_sizes.size(),
                        param_sizes.size() == 1 ? "" : "s", args.size(),
                        args.size() == 1 ? "" : "s");
    return false;
  }
  // Each argument in its parameter's size (engine::Device::launch's rule).
  std::vector<std::vector<uint8_t>> bytes(args.size());
  std::vector<void *> params(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const engine::KernelArg &a = args[i];
    const uint32_t size = param_sizes[i];
    if (a.bytes.size() == size) {
      bytes[i] = a.bytes;
    } else if (!a.is_float && !a.is_aggregate && size <= 8 &&
               a.bytes.size() <= 8) {
      uint64_t v = 0;
      std::memcpy(&v, a.bytes.data(), a.bytes.size());
      if (a.is_signed && a.bytes.size() < 8) {
        uint32_t sh = 64 - 8 * uint32_t(a.bytes.size());
        v = uint64_t(int64_t(v << sh) >> sh);
      }
      bytes[i].assign(size, 0);
      std::memcpy(bytes[i].data(), &v, size);
    } else {
      error = fmt::format("argument {} has {} bytes; parameter {} of kernel "
                          "'{}' has {}",
                          i, a.bytes.size(), i, kernel, size);
      return false;
    }
    params[i] = bytes[i].data();
  }
  CUfunction fn = nullptr;
  if (!api_->ok(api_->cuModuleGetFunction(&fn, module.handle, kernel.c_str()),
                fmt::format("cuModuleGetFunction '{}'", kernel), error))
    return false;
  if (cfg.shared_bytes > 48 * 1024 &&
      !api_->ok(
          api_->cuFuncSetAttribute(fn, kFuncAttributeMaxDynamicSharedSizeBytes,
                                   int(cfg.shared_bytes)),
          fmt::format("--shared-bytes {}", cfg.shared_bytes), error))
    return false;
  const bool cluster = cfg.cluster.count() > 0;
  if (cluster && cfg.cluster.count() > 8 &&
      !api_->ok(api_->cuFuncSetAttribute(
                    fn, kFuncAttributeNonPortableClusterSizeAllowed, 1),
                "a cluster of more than 8 CTAs", error))
    return false;
  CUlaunchAttribute attrs[2] = {};
  unsigned n = 0;
  if (cluster) {
    attrs[n].id = kLaunchAttributeClusterDimension;
    attrs[n].value.clusterDim.x = cfg.cluster.x;
    attrs[n].value.clusterDim.y = cfg.cluster.y;
    attrs[n++].value.clusterDim.z = cfg.cluster.z;
  }
  if (module.cooperative) {
    attrs[n].id = kLaunchAttributeCooperative;
    attrs[n++].value.cooperative = 1;
  }
  CUlaunchConfig lc{};
  lc.gridDimX = cfg.grid.x;
  lc.gridDimY = cfg.grid.y;
  lc.gridDimZ = cfg.grid.z;
  lc.blockDimX = cfg.block.x;
  lc.blockDimY = cfg.block.y;
  lc.blockDimZ = cfg.block.z;
  lc.sharedMemBytes = cfg.shared_bytes;
  lc.attrs = n ? attrs : nullptr;
  lc.numAttrs = n;
  if (!api_->ok(api_->cuLaunchKernelEx(
                    &lc, fn, params.empty() ? nullptr : params.data(), nullptr),
                "the launch was refused", error))
    return false;
  return api_->ok(api_->cuCtxSynchronize(), "the kernel failed", error);
}

} // namespace bcusim::runtime
