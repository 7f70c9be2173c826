// The driver's tensor-map entry points as bcusim provides them
// (docs/hopper.md "Tensor maps"), shared by the libcudart.so.13 stand-in
// (cudaGetDriverEntryPoint) and the libcuda.so.1 stand-in (programs linked
// with -lcuda). Each returns a CUresult: 0 (CUDA_SUCCESS) or 1
// (CUDA_ERROR_INVALID_VALUE), printing why once per distinct message.
#pragma once

#include <cstdint>

namespace bcusim::runtime {

int tensor_map_encode_tiled(void *map, unsigned type, unsigned rank,
                            void *address, const uint64_t *dims,
                            const uint64_t *strides, const uint32_t *box,
                            const uint32_t *estrides, unsigned interleave,
                            unsigned swizzle, unsigned l2, unsigned oob);
int tensor_map_encode_im2col(void *map, unsigned type, unsigned rank,
                             void *address, const uint64_t *dims,
                             const uint64_t *strides, const int *lower,
                             const int *upper, unsigned channels,
                             unsigned pixels, const uint32_t *estrides,
                             unsigned interleave, unsigned swizzle, unsigned l2,
                             unsigned oob);

// The entry points by driver name ("cuTensorMapEncodeTiled"); nullptr for
// every other name. `introduced` receives the CUDA version that added it.
void *tensor_map_entry_point(const char *name, unsigned &introduced);

} // namespace bcusim::runtime
