// `bcusim exec`: run an unmodified CUDA program (built with nvcc -cudart
// shared) with bcusim's libcudart.so.13 (docs/exec.md).
#pragma once

#include <string>
#include <vector>

#include "bcusim/runtime/options.h"

namespace bcusim::runtime {

// The folder holding bcusim's libcudart.so.13 for the bcusim binary at
// `self` (its lib/ folder, or BCUSIM_CUDART_DIR); empty when absent.
std::string cudart_dir(const std::string &self);

// Why `program` cannot run under bcusim (not found; links the CUDA
// runtime statically); empty when it looks fine.
std::string check_program(const std::string &program);

// Validates the options, sets LD_LIBRARY_PATH and BCUSIM_OPTIONS and
// replaces the process with argv[0] (searched in PATH). Returns only on
// failure, with the exit status to use (2: bad options, 127: cannot run).
int exec_program(const RunOptions &options,
                 const std::vector<std::string> &argv,
                 const std::string &lib_dir);

} // namespace bcusim::runtime
