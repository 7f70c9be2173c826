// The driver functions of the libcuda.so.1 stand-in (libcuda_api.cpp), by
// the name cuGetProcAddress takes (no version suffix) and the CUDA version
// whose ABI the caller expects; nullptr when it has none.
#pragma once

namespace bcusim::runtime {
void *driver_function(const char *name, int version);
} // namespace bcusim::runtime
