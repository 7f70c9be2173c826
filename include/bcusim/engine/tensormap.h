// Tensor maps (docs/hopper.md "Tensor maps"): bcusim's layout of the
// 128-byte opaque CUtensorMap, the encoders that stand in for the driver's
// cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col (every parameter
// validated as the driver documents), and the decoder the engine's TMA
// instructions use.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace bcusim::engine {

// The driver's enumerations, with the driver's values.
enum class TmapType : uint8_t {
  U8 = 0,
  U16,
  U32,
  S32,
  U64,
  S64,
  F16,
  F32,
  F64,
  BF16,
  F32Ftz,
  TF32,
  TF32Ftz,
  U4x16Align8,  // 16U4_ALIGN8B (packed; not modelled by the copies)
  U4x16Align16, // 16U4_ALIGN16B
  U6x16Align16, // 16U6_ALIGN16B
};
enum class TmapInterleave : uint8_t { None = 0, B16, B32 };
enum class TmapSwizzle : uint8_t {
  None = 0,
  B32,
  B64,
  B128,
  B128Atom32,
  B128Atom32Flip8,
  B128Atom64,
};
enum class TmapL2Promotion : uint8_t { None = 0, B64, B128, B256 };
enum class TmapOobFill : uint8_t { None = 0, NanRequestZeroFma };
enum class TmapMode : uint8_t { Tile = 0, Im2col = 1 };

// The decoded tensor map. The 128 bytes (little-endian):
//
//   offset  size  field
//   0       4     magic 0x50414d54 ("TMAP"): written by the encoders
//   4       1     data type (TmapType)
//   5       1     rank 1..5
//   6       1     mode (TmapMode)
//   7       1     interleave (TmapInterleave)
//   8       1     swizzle (TmapSwizzle)
//   9       1     L2 promotion (TmapL2Promotion)
//   10      1     OOB fill (TmapOobFill)
//   11      1     0
//   12      2     im2col: channels per pixel (0 in tile mode)
//   14      2     im2col: pixels per column
//   16      8     global address
//   24      8x4   byte strides of dimensions 1..4 (dimension 0: the element)
//   56      4x5   dimension sizes - 1 (dims <= 2^32)
//   76      2x5   box sizes 1..256 (tile mode; im2col: 0)
//   86      1x5   element strides 1..8
//   91      1     0
//   92      2x3   im2col: pixel-box lower corner, signed (W, H, D)
//   98      2x3   im2col: pixel-box upper corner, signed (W, H, D)
//   104     24    0
struct TensorMap {
  static constexpr uint32_t kMagic = 0x50414d54;
  TmapType type = TmapType::F32;
  uint32_t rank = 1;
  TmapMode mode = TmapMode::Tile;
  TmapInterleave interleave = TmapInterleave::None;
  TmapSwizzle swizzle = TmapSwizzle::None;
  TmapL2Promotion l2 = TmapL2Promotion::None;
  TmapOobFill oob = TmapOobFill::None;
  uint64_t address = 0;
  std::array<uint64_t, 5> dims{1, 1, 1, 1, 1};
  std::array<uint64_t, 5> strides{}; // bytes; strides[0] = element size
  std::array<uint32_t, 5> box{1, 1, 1, 1, 1};
  std::array<uint32_t, 5> estrides{1, 1, 1, 1, 1};
  uint32_t channels = 0, pixels = 0; // im2col
  std::array<int32_t, 3> lower{}, upper{};

  std::array<uint8_t, 128> encode() const;
  // nullopt when the bytes do not carry the magic or are out of range.
  static std::optional<TensorMap> decode(const uint8_t *bytes,
                                         std::string &error);
};

// Element size in bytes (0 for the packed sub-byte types).
uint32_t tmap_element_bytes(TmapType t);
bool tmap_is_float(TmapType t);
// The swizzle span in bytes (0: none).
uint32_t tmap_swizzle_span(TmapSwizzle s);
// The bytes one row of the box (the elements along dimension 0; im2col:
// the channels of one pixel) takes in shared memory: its elements, with an
// interleaved layout rounded up to whole 16- or 32-byte slices
// (docs/hopper.md "Interleaved layouts").
uint64_t tmap_row_bytes(const TensorMap &m);
// The byte offset inside shared memory after swizzling `off` (an offset
// from the start of the CTA's shared memory): 16-byte chunk bits [4, 4+b)
// XOR bits [7, 7+b), b = 1/2/3 for 32/64/128 B.
uint64_t tmap_swizzle(TmapSwizzle s, uint64_t off);

// The encoders: 0 (CUDA_SUCCESS) or 1 (CUDA_ERROR_INVALID_VALUE) with
// `error` naming the parameter and the rule it breaks. The arrays are the
// driver's (globalStrides has rank - 1 entries).
int tmap_encode_tiled(uint8_t *out128, uint32_t type, uint32_t rank,
                      const void *address, const uint64_t *dims,
                      const uint64_t *strides, const uint32_t *box,
                      const uint32_t *estrides, uint32_t interleave,
                      uint32_t swizzle, uint32_t l2, uint32_t oob,
                      std::string &error);
int tmap_encode_im2col(uint8_t *out128, uint32_t type, uint32_t rank,
                       const void *address, const uint64_t *dims,
                       const uint64_t *strides, const int *lower,
                       const int *upper, uint32_t channels, uint32_t pixels,
                       const uint32_t *estrides, uint32_t interleave,
                       uint32_t swizzle, uint32_t l2, uint32_t oob,
                       std::string &error);

} // namespace bcusim::engine
