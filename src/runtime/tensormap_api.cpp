// The tensor-map entry points (tensormap_api.h): the engine's encoders
// (bcusim/engine/tensormap.h) with the driver's error reporting.
#include "tensormap_api.h"

#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <mutex>
#include <set>
#include <string>

#include "bcusim/engine/tensormap.h"

namespace bcusim::runtime {

namespace {

int report(const char *fn, int rc, const std::string &error) {
  if (rc == 0)
    return 0;
  static std::mutex m;
  static std::set<std::string> seen;
  std::string line = fmt::format("bcusim: {}: {}; it returns "
                                 "CUDA_ERROR_INVALID_VALUE\n",
                                 fn, error);
  std::lock_guard lock(m);
  if (seen.insert(line).second)
    std::fputs(line.c_str(), stderr);
  return rc;
}

int bcusim_entry_encode_tiled(void *map, unsigned type, unsigned rank,
                              void *address, const uint64_t *dims,
                              const uint64_t *strides, const uint32_t *box,
                              const uint32_t *estrides, unsigned interleave,
                              unsigned swizzle, unsigned l2, unsigned oob) {
  return tensor_map_encode_tiled(map, type, rank, address, dims, strides, box,
                                 estrides, interleave, swizzle, l2, oob);
}

int bcusim_entry_encode_im2col(void *map, unsigned type, unsigned rank,
                               void *address, const uint64_t *dims,
                               const uint64_t *strides, const int *lower,
                               const int *upper, unsigned channels,
                               unsigned pixels, const uint32_t *estrides,
                               unsigned interleave, unsigned swizzle,
                               unsigned l2, unsigned oob) {
  return tensor_map_encode_im2col(map, type, rank, address, dims, strides,
                                  lower, upper, channels, pixels, estrides,
                                  interleave, swizzle, l2, oob);
}

} // namespace

int tensor_map_encode_tiled(void *map, unsigned type, unsigned rank,
                            void *address, const uint64_t *dims,
                            const uint64_t *strides, const uint32_t *box,
                            const uint32_t *estrides, unsigned interleave,
                            unsigned swizzle, unsigned l2, unsigned oob) {
  std::string error;
  int rc = engine::tmap_encode_tiled(static_cast<uint8_t *>(map), type, rank,
                                     address, dims, strides, box, estrides,
                                     interleave, swizzle, l2, oob, error);
  return report("cuTensorMapEncodeTiled", rc, error);
}

int tensor_map_encode_im2col(void *map, unsigned type, unsigned rank,
                             void *address, const uint64_t *dims,
                             const uint64_t *strides, const int *lower,
                             const int *upper, unsigned channels,
                             unsigned pixels, const uint32_t *estrides,
                             unsigned interleave, unsigned swizzle, unsigned l2,
                             unsigned oob) {
  std::string error;
  int rc = engine::tmap_encode_im2col(
      static_cast<uint8_t *>(map), type, rank, address, dims, strides, lower,
      upper, channels, pixels, estrides, interleave, swizzle, l2, oob, error);
  return report("cuTensorMapEncodeIm2col", rc, error);
}

void *tensor_map_entry_point(const char *name, unsigned &introduced) {
  introduced = 12000;
  if (name && std::strcmp(name, "cuTensorMapEncodeTiled") == 0)
    return reinterpret_cast<void *>(&bcusim_entry_encode_tiled);
  if (name && std::strcmp(name, "cuTensorMapEncodeIm2col") == 0)
    return reinterpret_cast<void *>(&bcusim_entry_encode_im2col);
  return nullptr;
}

} // namespace bcusim::runtime
