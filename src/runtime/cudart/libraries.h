// Precompiled GPU libraries and missing driver functions as the
// libcudart.so.13 stand-in reports them (docs/exec.md "Precompiled GPU
// libraries"): each warned about once per process, whichever stand-in
// (libcudart.so.13 or libcuda.so.1) notices it first.
#pragma once

#include <string>
#include <vector>

extern "C" {
// Warns about each precompiled library loaded now that has not been warned
// about yet. Called at the program's first CUDA call, when the libcuda.so.1
// stand-in is loaded, and at exit.
void bcusim_cudart_scan_libraries();
// A driver function that `via` (cuGetProcAddress, cudaGetDriverEntryPoint)
// was asked for and bcusim lacks: warned about once per name, unless
// `caller` is in a precompiled library (whose own warning covers it).
void bcusim_cudart_missing_driver_function(const char *via, const char *name,
                                           const char *result,
                                           const void *caller);
}

namespace bcusim::cudart {
// What was warned about so far: library files, driver function names.
std::vector<std::string> precompiled_libraries_seen();
std::vector<std::string> missing_driver_functions_seen();
} // namespace bcusim::cudart
