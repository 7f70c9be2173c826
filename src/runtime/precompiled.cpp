#include "precompiled.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>

#include <fmt/format.h>

namespace bcusim::runtime {

namespace {

// File name stems (before ".so") and what they are; a trailing '*' matches
// any continuation (cuDNN and NPP ship several libraries).
struct Known {
  const char *stem;
  const char *product;
};
constexpr Known kKnown[] = {
    {"libcublas", "NVIDIA cuBLAS"},      {"libcublasLt", "NVIDIA cuBLASLt"},
    {"libnvblas", "NVIDIA NVBLAS"},      {"libcufft", "NVIDIA cuFFT"},
    {"libcufftw", "NVIDIA cuFFTW"},      {"libcurand", "NVIDIA cuRAND"},
    {"libcusparse", "NVIDIA cuSPARSE"},  {"libcusparseLt", "NVIDIA cuSPARSELt"},
    {"libcusolver", "NVIDIA cuSOLVER"},  {"libcusolverMg", "NVIDIA cuSOLVERMg"},
    {"libnvjpeg", "NVIDIA nvJPEG"},      {"libnccl", "NVIDIA NCCL"},
    {"libcudnn*", "NVIDIA cuDNN"},       {"libnpp*", "NVIDIA NPP"},
    {"libcutensor*", "NVIDIA cuTENSOR"},
};

std::string base_name(const std::string &path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

std::string precompiled_product(const std::string &path) {
  const std::string file = base_name(path);
  const auto so = file.find(".so");
  if (so == std::string::npos)
    return {};
  const std::string stem = file.substr(0, so);
  for (const auto &k : kKnown) {
    const size_t n = std::strlen(k.stem);
    if (k.stem[n - 1] == '*' ? stem.compare(0, n - 1, k.stem, n - 1) == 0
                             : stem == k.stem)
      return k.product;
  }
  return {};
}

std::vector<PrecompiledLibrary> loaded_precompiled_libraries() {
  std::vector<PrecompiledLibrary> out;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        auto &libs = *static_cast<std::vector<PrecompiledLibrary> *>(data);
        const std::string path = info->dlpi_name ? info->dlpi_name : "";
        std::string product = precompiled_product(path);
        if (!product.empty())
          libs.push_back({base_name(path), std::move(product)});
        return 0;
      },
      &out);
  return out;
}

PrecompiledLibrary precompiled_library_at(const void *address) {
  Dl_info info{};
  if (!address || !dladdr(address, &info) || !info.dli_fname)
    return {};
  std::string product = precompiled_product(info.dli_fname);
  if (product.empty())
    return {};
  return {base_name(info.dli_fname), std::move(product)};
}

std::string precompiled_library_warning(const PrecompiledLibrary &lib) {
  return fmt::format(
      "bcusim: warning: the program loaded {} ({}): its kernels are GPU "
      "machine code that it loads and launches through the CUDA driver "
      "API, and bcusim runs PTX, not machine code, so its calls that use "
      "the GPU fail with the library's own error status\n",
      lib.file, lib.product);
}

std::string missing_driver_function_warning(const std::string &via,
                                            const std::string &name,
                                            const std::string &result) {
  return fmt::format("bcusim: warning: {}: the CUDA driver function '{}' is "
                     "not provided by bcusim; the caller gets a null pointer "
                     "({})\n",
                     via, name, result);
}

} // namespace bcusim::runtime
