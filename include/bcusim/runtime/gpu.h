// A real NVIDIA GPU through the CUDA driver API, for `bcusim run --on-gpu`
// and `--compare-gpu` (docs/engine.md "Checking against your GPU").
//
// The driver library is loaded at run time with dlopen: bcusim neither
// links against it nor needs the toolkit's headers to build. The library is
// `libcuda.so.1` from the loader's search path, or the file named by the
// environment variable BCUSIM_LIBCUDA (a stand-in driver in the tests).
//
//   std::string err;
//   auto gpu = runtime::Gpu::open(err);          // nullptr + err: no driver
//   auto m = gpu->load(ptx_text, err);           // err: the JIT log
//   auto p = gpu->alloc(bytes, err);
//   gpu->write(p, data, bytes, err);
//   gpu->launch(*m, "kern", cfg, args, param_sizes, err);
//   gpu->read(p, out, bytes, err);
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bcusim/engine/engine.h"

namespace bcusim::runtime {

inline constexpr const char *kLibcudaEnv = "BCUSIM_LIBCUDA";

class Gpu {
public:
  // Loads the driver, initializes it and makes device 0's primary context
  // current. nullptr and `error` (one sentence) when there is no driver or
  // no device.
  static std::unique_ptr<Gpu> open(std::string &error);
  ~Gpu();
  Gpu(const Gpu &) = delete;
  Gpu &operator=(const Gpu &) = delete;

  // The device's name and the driver's version, e.g. "NVIDIA H100 80GB HBM3
  // (driver API 13000)".
  std::string description() const;

  struct Module;
  // JIT-compiles PTX text for the device. nullopt and `error` (the driver's
  // error and its JIT log) when the driver refuses it.
  std::shared_ptr<Module> load(const std::string &ptx, std::string &error);

  std::optional<uint64_t> alloc(uint64_t bytes, std::string &error);
  bool write(uint64_t dst, const void *src, uint64_t bytes, std::string &error);
  bool read(uint64_t src, void *dst, uint64_t bytes, std::string &error);

  // Launches a kernel and waits for it. `param_sizes` are the kernel's
  // parameter sizes (engine::Module::kernel_param_sizes): arguments are
  // converted as engine::Device::launch converts them. A module that reads
  // %envreg1/%envreg2 (grid.sync) is launched cooperatively; a cluster
  // dimension is set when cfg.cluster is not 0,0,0.
  bool launch(Module &module, const std::string &kernel,
              const engine::LaunchConfig &cfg,
              const std::vector<engine::KernelArg> &args,
              const std::vector<uint32_t> &param_sizes, std::string &error);

  struct Api;

private:
  Gpu() = default;
  std::unique_ptr<Api> api_;
  std::vector<uint64_t> allocations_;
};

} // namespace bcusim::runtime
