// NVIDIA's precompiled GPU libraries (cuBLAS, cuFFT, cuDNN, ...) in a
// program that `bcusim exec` runs (docs/exec.md "Precompiled GPU
// libraries"): their kernels are GPU machine code that they load and launch
// through the CUDA driver API, and bcusim runs PTX, so their calls fail. Shared by the libcudart.so.13 and libcuda.so.1 stand-ins,
// which say so once per library and name each driver function asked for
// that bcusim lacks.
#pragma once

#include <string>
#include <vector>

namespace bcusim::runtime {

struct PrecompiledLibrary {
  std::string file;    // "libcublasLt.so.13"
  std::string product; // "NVIDIA cuBLASLt"
};

// The product a shared object's path names ("NVIDIA cuBLAS" for
// ".../libcublas.so.13"); empty when it is none of those libraries.
std::string precompiled_product(const std::string &path);

// The precompiled libraries loaded in this process now, in load order.
std::vector<PrecompiledLibrary> loaded_precompiled_libraries();

// The precompiled library whose code holds `address` (a caller's return
// address); file empty when none does.
PrecompiledLibrary precompiled_library_at(const void *address);

// "bcusim: warning: the program loaded libcublasLt.so.13 (NVIDIA
// cuBLASLt): ..." (with a newline).
std::string precompiled_library_warning(const PrecompiledLibrary &lib);

// "bcusim: warning: cuGetProcAddress: the CUDA driver function 'cuFoo' ..."
// (with a newline); `result` is what the caller gets.
std::string missing_driver_function_warning(const std::string &via,
                                            const std::string &name,
                                            const std::string &result);

} // namespace bcusim::runtime
