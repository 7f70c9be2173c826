// libcuda.so.1 stand-in: the driver API functions bcusim provides to
// programs linked with -lcuda and run by `bcusim exec` (docs/exec.md,
// docs/hopper.md "Tensor maps"): the tensor-map encoders and the few
// queries programs make around them. It lives in <build>/lib beside the
// libcudart.so.13 stand-in. `bcusim run --on-gpu` refuses it (it exports
// bcusim_standin_libcuda) and needs NVIDIA's driver.
#include <cstdint>
#include <cstring>

#include "../tensormap_api.h"

namespace rt = bcusim::runtime;

extern "C" {

__attribute__((visibility("default"))) int bcusim_standin_libcuda = 1;

__attribute__((visibility("default"))) int
cuTensorMapEncodeTiled(void *map, unsigned type, unsigned rank, void *address,
                       const uint64_t *dims, const uint64_t *strides,
                       const uint32_t *box, const uint32_t *estrides,
                       unsigned interleave, unsigned swizzle, unsigned l2,
                       unsigned oob) {
  return rt::tensor_map_encode_tiled(map, type, rank, address, dims, strides,
                                     box, estrides, interleave, swizzle, l2,
                                     oob);
}

__attribute__((visibility("default"))) int
cuTensorMapEncodeIm2col(void *map, unsigned type, unsigned rank, void *address,
                        const uint64_t *dims, const uint64_t *strides,
                        const int *lower, const int *upper, unsigned channels,
                        unsigned pixels, const uint32_t *estrides,
                        unsigned interleave, unsigned swizzle, unsigned l2,
                        unsigned oob) {
  return rt::tensor_map_encode_im2col(map, type, rank, address, dims, strides,
                                      lower, upper, channels, pixels, estrides,
                                      interleave, swizzle, l2, oob);
}

__attribute__((visibility("default"))) int cuInit(unsigned flags) {
  return flags == 0 ? 0 : 1;
}

__attribute__((visibility("default"))) int cuDriverGetVersion(int *v) {
  if (!v)
    return 1;
  *v = 13000;
  return 0;
}

__attribute__((visibility("default"))) int cuGetErrorName(int e,
                                                          const char **s) {
  if (!s)
    return 1;
  *s = e == 0 ? "CUDA_SUCCESS" : e == 1 ? "CUDA_ERROR_INVALID_VALUE" : nullptr;
  return *s ? 0 : 1;
}

__attribute__((visibility("default"))) int cuGetErrorString(int e,
                                                            const char **s) {
  if (!s)
    return 1;
  *s = e == 0 ? "no error" : e == 1 ? "invalid argument" : nullptr;
  return *s ? 0 : 1;
}

} // extern "C"
