// A 3-D extent or index (grid, block, cluster, CTA and thread ids).
#pragma once

#include <cstdint>

namespace bcusim::engine {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
  bool operator==(const Dim3 &) const = default;
};

} // namespace bcusim::engine
