// Tensor maps: layout, encoders and their validation (docs/hopper.md
// "Tensor maps"). The rules are the driver's, as cuda.h documents them for
// cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col.
#include "bcusim/engine/tensormap.h"

#include <cstring>
#include <fmt/format.h>

namespace bcusim::engine {

namespace {

template <typename T> void put(uint8_t *b, size_t off, T v) {
  std::memcpy(b + off, &v, sizeof v);
}
template <typename T> T get(const uint8_t *b, size_t off) {
  T v;
  std::memcpy(&v, b + off, sizeof v);
  return v;
}

constexpr uint32_t kTypes = 16, kSwizzles = 7, kL2 = 4, kOob = 2,
                   kInterleaves = 3;

bool packed16(TmapType t) {
  return t == TmapType::U4x16Align16 || t == TmapType::U6x16Align16;
}

// The checks both encoders share: everything but the box (tile) or the
// pixel box (im2col). `inner_bytes` is the box's inner extent in bytes.
bool check_common(TensorMap &m, uint32_t type, uint32_t rank,
                  const void *address, const uint64_t *dims,
                  const uint64_t *strides, const uint32_t *estrides,
                  uint32_t interleave, uint32_t swizzle, uint32_t l2,
                  uint32_t oob, std::string &error) {
  if (type >= kTypes) {
    error = fmt::format("tensorDataType {} is not a CUtensorMapDataType", type);
    return false;
  }
  m.type = TmapType(type);
  if (interleave >= kInterleaves) {
    error =
        fmt::format("interleave {} is not a CUtensorMapInterleave", interleave);
    return false;
  }
  m.interleave = TmapInterleave(interleave);
  if (swizzle >= kSwizzles) {
    error = fmt::format("swizzle {} is not a CUtensorMapSwizzle", swizzle);
    return false;
  }
  m.swizzle = TmapSwizzle(swizzle);
  if (l2 >= kL2) {
    error = fmt::format("l2Promotion {} is not a CUtensorMapL2promotion", l2);
    return false;
  }
  m.l2 = TmapL2Promotion(l2);
  if (oob >= kOob) {
    error = fmt::format("oobFill {} is not a CUtensorMapFloatOOBfill", oob);
    return false;
  }
  m.oob = TmapOobFill(oob);
  if (m.oob == TmapOobFill::NanRequestZeroFma && !tmap_is_float(m.type)) {
    error = "oobFill NAN_REQUEST_ZERO_FMA needs a floating-point "
            "tensorDataType";
    return false;
  }
  if (rank == 0 || rank > 5) {
    error = fmt::format("tensorRank {} is not in 1..5", rank);
    return false;
  }
  if (m.interleave != TmapInterleave::None && rank < 3) {
    error =
        fmt::format("tensorRank {} with interleave must be at least 3", rank);
    return false;
  }
  m.rank = rank;
  uint64_t addr = reinterpret_cast<uint64_t>(address);
  uint32_t align =
      m.interleave == TmapInterleave::B32 || packed16(m.type) ? 32 : 16;
  if (addr % align) {
    error =
        fmt::format("globalAddress 0x{:x} is not {}-byte aligned", addr, align);
    return false;
  }
  m.address = addr;
  if (!dims || (rank > 1 && !strides) || !estrides) {
    error = "globalDim, globalStrides and elementStrides must not be null";
    return false;
  }
  for (uint32_t i = 0; i < rank; ++i) {
    if (dims[i] == 0 || dims[i] > (1ull << 32)) {
      error = fmt::format("globalDim[{}] = {} is not in 1..2^32", i, dims[i]);
      return false;
    }
    m.dims[i] = dims[i];
  }
  if (m.type == TmapType::U4x16Align8 && dims[0] % 2) {
    error = fmt::format("globalDim[0] = {} must be a multiple of 2 for "
                        "16U4_ALIGN8B",
                        dims[0]);
    return false;
  }
  if (packed16(m.type) && dims[0] % 128) {
    error = fmt::format("globalDim[0] = {} must be a multiple of 128 for "
                        "this packed type",
                        dims[0]);
    return false;
  }
  m.strides[0] = tmap_element_bytes(m.type);
  uint32_t smul =
      m.interleave == TmapInterleave::B32 || packed16(m.type) ? 32 : 16;
  for (uint32_t i = 0; i + 1 < rank; ++i) {
    uint64_t s = strides[i];
    if (s % smul || s >= (1ull << 40)) {
      error = fmt::format("globalStrides[{}] = {} must be a multiple of {} "
                          "and less than 2^40",
                          i, s, smul);
      return false;
    }
    m.strides[i + 1] = s;
  }
  for (uint32_t i = 0; i < rank; ++i) {
    if (estrides[i] == 0 || estrides[i] > 8) {
      error =
          fmt::format("elementStrides[{}] = {} is not in 1..8", i, estrides[i]);
      return false;
    }
    m.estrides[i] = estrides[i];
  }
  if (m.interleave == TmapInterleave::B32 && m.swizzle != TmapSwizzle::B32) {
    error = "interleave 32B requires swizzle 32B";
    return false;
  }
  if (m.type == TmapType::U6x16Align16 &&
      m.interleave != TmapInterleave::None) {
    error = "tensorDataType 16U6_ALIGN16B requires interleave NONE";
    return false;
  }
  return true;
}

bool check_inner(const TensorMap &m, uint64_t inner_bytes, const char *what,
                 std::string &error) {
  if (m.interleave != TmapInterleave::None)
    return true;
  if (inner_bytes % 16) {
    error = fmt::format("the box's inner dimension ({} x element size = {} "
                        "bytes) must be a multiple of 16 bytes",
                        what, inner_bytes);
    return false;
  }
  uint32_t span = tmap_swizzle_span(m.swizzle);
  if (span && inner_bytes > span) {
    error = fmt::format("the box's inner dimension ({} x element size = {} "
                        "bytes) exceeds the swizzle span of {} bytes",
                        what, inner_bytes, span);
    return false;
  }
  return true;
}

} // namespace

uint32_t tmap_element_bytes(TmapType t) {
  switch (t) {
  case TmapType::U8:
    return 1;
  case TmapType::U16:
  case TmapType::F16:
  case TmapType::BF16:
    return 2;
  case TmapType::U32:
  case TmapType::S32:
  case TmapType::F32:
  case TmapType::F32Ftz:
  case TmapType::TF32:
  case TmapType::TF32Ftz:
    return 4;
  case TmapType::U64:
  case TmapType::S64:
  case TmapType::F64:
    return 8;
  default:
    return 0;
  }
}

bool tmap_is_float(TmapType t) {
  switch (t) {
  case TmapType::F16:
  case TmapType::F32:
  case TmapType::F64:
  case TmapType::BF16:
  case TmapType::F32Ftz:
  case TmapType::TF32:
  case TmapType::TF32Ftz:
    return true;
  default:
    return false;
  }
}

uint32_t tmap_swizzle_span(TmapSwizzle s) {
  switch (s) {
  case TmapSwizzle::None:
    return 0;
  case TmapSwizzle::B32:
    return 32;
  case TmapSwizzle::B64:
    return 64;
  default:
    return 128;
  }
}

uint64_t tmap_row_bytes(const TensorMap &m) {
  const uint64_t eb = tmap_element_bytes(m.type);
  uint64_t n = m.channels;
  if (m.mode == TmapMode::Tile) {
    const uint32_t s0 =
        m.interleave == TmapInterleave::None ? 1 : m.estrides[0];
    n = (m.box[0] + s0 - 1) / s0;
  }
  const uint64_t slice = m.interleave == TmapInterleave::B16   ? 16
                         : m.interleave == TmapInterleave::B32 ? 32
                                                               : 1;
  return (n * eb + slice - 1) / slice * slice;
}

uint64_t tmap_swizzle(TmapSwizzle s, uint64_t off) {
  uint32_t bits = s == TmapSwizzle::B32    ? 1
                  : s == TmapSwizzle::B64  ? 2
                  : s == TmapSwizzle::B128 ? 3
                                           : 0;
  if (!bits)
    return off;
  uint64_t mask = (1ull << bits) - 1;
  return off ^ (((off >> 7) & mask) << 4);
}

std::array<uint8_t, 128> TensorMap::encode() const {
  std::array<uint8_t, 128> b{};
  uint8_t *p = b.data();
  put<uint32_t>(p, 0, kMagic);
  p[4] = uint8_t(type);
  p[5] = uint8_t(rank);
  p[6] = uint8_t(mode);
  p[7] = uint8_t(interleave);
  p[8] = uint8_t(swizzle);
  p[9] = uint8_t(l2);
  p[10] = uint8_t(oob);
  put<uint16_t>(p, 12, uint16_t(channels));
  put<uint16_t>(p, 14, uint16_t(pixels));
  put<uint64_t>(p, 16, address);
  for (int i = 0; i < 4; ++i)
    put<uint64_t>(p, 24 + 8 * i, strides[i + 1]);
  for (int i = 0; i < 5; ++i)
    put<uint32_t>(p, 56 + 4 * i, uint32_t(dims[i] - 1));
  for (int i = 0; i < 5; ++i)
    put<uint16_t>(p, 76 + 2 * i, uint16_t(mode == TmapMode::Tile ? box[i] : 0));
  for (int i = 0; i < 5; ++i)
    p[86 + i] = uint8_t(estrides[i]);
  for (int i = 0; i < 3; ++i) {
    put<int16_t>(p, 92 + 2 * i, int16_t(lower[i]));
    put<int16_t>(p, 98 + 2 * i, int16_t(upper[i]));
  }
  return b;
}

std::optional<TensorMap> TensorMap::decode(const uint8_t *p,
                                           std::string &error) {
  if (get<uint32_t>(p, 0) != kMagic) {
    error = fmt::format("the 128 bytes are not a tensor map encoded by "
                        "cuTensorMapEncodeTiled or cuTensorMapEncodeIm2col "
                        "(first word 0x{:08x})",
                        get<uint32_t>(p, 0));
    return std::nullopt;
  }
  TensorMap m;
  if (p[4] >= kTypes || p[5] < 1 || p[5] > 5 || p[6] > 1 ||
      p[7] >= kInterleaves || p[8] >= kSwizzles || p[9] >= kL2 ||
      p[10] >= kOob) {
    error = "the tensor map has a field out of its range (type, rank, mode, "
            "interleave, swizzle, L2 promotion or OOB fill)";
    return std::nullopt;
  }
  m.type = TmapType(p[4]);
  m.rank = p[5];
  m.mode = TmapMode(p[6]);
  m.interleave = TmapInterleave(p[7]);
  m.swizzle = TmapSwizzle(p[8]);
  m.l2 = TmapL2Promotion(p[9]);
  m.oob = TmapOobFill(p[10]);
  m.channels = get<uint16_t>(p, 12);
  m.pixels = get<uint16_t>(p, 14);
  m.address = get<uint64_t>(p, 16);
  m.strides[0] = tmap_element_bytes(m.type);
  for (int i = 0; i < 4; ++i)
    m.strides[i + 1] = get<uint64_t>(p, 24 + 8 * i);
  for (int i = 0; i < 5; ++i)
    m.dims[i] = uint64_t(get<uint32_t>(p, 56 + 4 * i)) + 1;
  for (int i = 0; i < 5; ++i) {
    m.box[i] = get<uint16_t>(p, 76 + 2 * i);
    m.estrides[i] = p[86 + i];
    if ((m.mode == TmapMode::Tile && (m.box[i] < 1 || m.box[i] > 256)) ||
        m.estrides[i] < 1 || m.estrides[i] > 8) {
      error = fmt::format("the tensor map's box or element stride of "
                          "dimension {} is out of range",
                          i);
      return std::nullopt;
    }
  }
  for (int i = 0; i < 3; ++i) {
    m.lower[i] = get<int16_t>(p, 92 + 2 * i);
    m.upper[i] = get<int16_t>(p, 98 + 2 * i);
  }
  if (m.strides[0] == 0) {
    error = "the tensor map's data type is a packed sub-byte type, which "
            "bcusim does not copy";
    return std::nullopt;
  }
  return m;
}

int tmap_encode_tiled(uint8_t *out, uint32_t type, uint32_t rank,
                      const void *address, const uint64_t *dims,
                      const uint64_t *strides, const uint32_t *box,
                      const uint32_t *estrides, uint32_t interleave,
                      uint32_t swizzle, uint32_t l2, uint32_t oob,
                      std::string &error) {
  if (!out || reinterpret_cast<uintptr_t>(out) % 64) {
    error = "tensorMap must be a non-null address aligned to 64 bytes";
    return 1;
  }
  TensorMap m;
  if (!check_common(m, type, rank, address, dims, strides, estrides, interleave,
                    swizzle, l2, oob, error))
    return 1;
  if (!box) {
    error = "boxDim must not be null";
    return 1;
  }
  for (uint32_t i = 0; i < rank; ++i) {
    if (box[i] == 0 || box[i] > 256) {
      error = fmt::format("boxDim[{}] = {} is not in 1..256", i, box[i]);
      return 1;
    }
    m.box[i] = box[i];
  }
  if (packed16(m.type) && box[0] != 128) {
    error = "boxDim[0] must be 128 for this packed type";
    return 1;
  }
  uint32_t eb = tmap_element_bytes(m.type);
  uint64_t inner = eb ? uint64_t(box[0]) * eb : uint64_t(box[0]) / 2;
  if (!check_inner(m, inner, "boxDim[0]", error))
    return 1;
  m.mode = TmapMode::Tile;
  auto bytes = m.encode();
  std::memcpy(out, bytes.data(), bytes.size());
  return 0;
}

int tmap_encode_im2col(uint8_t *out, uint32_t type, uint32_t rank,
                       const void *address, const uint64_t *dims,
                       const uint64_t *strides, const int *lower,
                       const int *upper, uint32_t channels, uint32_t pixels,
                       const uint32_t *estrides, uint32_t interleave,
                       uint32_t swizzle, uint32_t l2, uint32_t oob,
                       std::string &error) {
  if (!out || reinterpret_cast<uintptr_t>(out) % 64) {
    error = "tensorMap must be a non-null address aligned to 64 bytes";
    return 1;
  }
  if (rank < 3 || rank > 5) {
    error = fmt::format("tensorRank {} of an im2col tensor map must be 3, 4 "
                        "or 5",
                        rank);
    return 1;
  }
  TensorMap m;
  if (!check_common(m, type, rank, address, dims, strides, estrides, interleave,
                    swizzle, l2, oob, error))
    return 1;
  if (!lower || !upper) {
    error = "pixelBoxLowerCorner and pixelBoxUpperCorner must not be null";
    return 1;
  }
  uint32_t spatial = rank - 2;
  int32_t lim = rank == 3 ? 32768 : rank == 4 ? 128 : 16;
  for (uint32_t i = 0; i < spatial; ++i) {
    for (auto [v, name] : {std::pair{lower[i], "pixelBoxLowerCorner"},
                           std::pair{upper[i], "pixelBoxUpperCorner"}}) {
      if (v < -lim || v >= lim) {
        error = fmt::format("{}[{}] = {} is not in [{}, {}] for rank {}", name,
                            i, v, -lim, lim - 1, rank);
        return 1;
      }
    }
    m.lower[i] = lower[i];
    m.upper[i] = upper[i];
    // The pixel box spans dims + upper - lower positions along the
    // dimension (spatial dimension i is tensor dimension i + 1).
    if (int64_t(m.dims[i + 1]) + upper[i] - lower[i] <= 0) {
      error = fmt::format("the pixel box has no area along spatial "
                          "dimension {} (globalDim[{}] + upper {} - lower {} "
                          "<= 0)",
                          i, i + 1, upper[i], lower[i]);
      return 1;
    }
  }
  if (channels == 0 || channels > 256) {
    error = fmt::format("channelsPerPixel {} is not in 1..256", channels);
    return 1;
  }
  if (packed16(m.type) && channels != 128) {
    error = "channelsPerPixel must be 128 for this packed type";
    return 1;
  }
  if (pixels == 0 || pixels > 1024) {
    error = fmt::format("pixelsPerColumn {} is not in 1..1024", pixels);
    return 1;
  }
  m.channels = channels;
  m.pixels = pixels;
  uint32_t eb = tmap_element_bytes(m.type);
  uint64_t inner = eb ? uint64_t(channels) * eb : uint64_t(channels) / 2;
  if (!check_inner(m, inner, "channelsPerPixel", error))
    return 1;
  m.mode = TmapMode::Im2col;
  auto bytes = m.encode();
  std::memcpy(out, bytes.data(), bytes.size());
  return 0;
}

} // namespace bcusim::engine
