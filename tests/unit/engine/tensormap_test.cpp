// The tensor-map encoders (docs/hopper.md "Tensor maps"): the layout round
// trip, the swizzle function, and every parameter rule of
// cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col.
#include <gtest/gtest.h>

#include <cstring>

#include "bcusim/engine/tensormap.h"

namespace bcusim::engine {
namespace {

struct Tiled {
  alignas(64) uint8_t out[128] = {};
  uint32_t type = uint32_t(TmapType::F32), rank = 2;
  uintptr_t addr = 0x7000'0000'0000;
  uint64_t dims[5] = {64, 32, 1, 1, 1};
  uint64_t strides[4] = {256, 8192, 8192, 8192};
  uint32_t box[5] = {32, 8, 1, 1, 1};
  uint32_t estr[5] = {1, 1, 1, 1, 1};
  uint32_t interleave = 0, swizzle = 3, l2 = 0, oob = 0;
  std::string error;
  int run() {
    return tmap_encode_tiled(out, type, rank, reinterpret_cast<void *>(addr),
                             dims, strides, box, estr, interleave, swizzle, l2,
                             oob, error);
  }
};

TEST(TensorMap, EncodesAndDecodes) {
  Tiled t;
  ASSERT_EQ(t.run(), 0) << t.error;
  uint32_t magic;
  std::memcpy(&magic, t.out, 4);
  EXPECT_EQ(magic, TensorMap::kMagic);
  std::string err;
  auto m = TensorMap::decode(t.out, err);
  ASSERT_TRUE(m) << err;
  EXPECT_EQ(m->type, TmapType::F32);
  EXPECT_EQ(m->rank, 2u);
  EXPECT_EQ(m->address, t.addr);
  EXPECT_EQ(m->dims[0], 64u);
  EXPECT_EQ(m->dims[1], 32u);
  EXPECT_EQ(m->strides[0], 4u);
  EXPECT_EQ(m->strides[1], 256u);
  EXPECT_EQ(m->box[0], 32u);
  EXPECT_EQ(m->box[1], 8u);
  EXPECT_EQ(m->swizzle, TmapSwizzle::B128);
  EXPECT_EQ(m->mode, TmapMode::Tile);
  // The largest dimension (2^32) fits.
  t.dims[1] = 1ull << 32;
  ASSERT_EQ(t.run(), 0) << t.error;
  EXPECT_EQ(TensorMap::decode(t.out, err)->dims[1], 1ull << 32);
}

// Interleaved layouts (docs/hopper.md "Interleaved layouts"): the driver
// accepts a box whose inner extent is no multiple of 16 bytes and wider
// than the swizzle span, and each row takes whole slices in shared memory.
TEST(TensorMap, InterleavedRowsTakeWholeSlices) {
  Tiled t;
  t.type = uint32_t(TmapType::U16);
  t.rank = 3;
  t.dims[0] = 8;
  t.strides[0] = 16;
  t.strides[1] = 256;
  t.box[0] = 3; // 6 bytes
  t.box[1] = 4;
  t.box[2] = 1;
  t.interleave = 1;
  t.swizzle = 0;
  ASSERT_EQ(t.run(), 0) << t.error;
  std::string err;
  auto m = TensorMap::decode(t.out, err);
  ASSERT_TRUE(m) << err;
  EXPECT_EQ(tmap_row_bytes(*m), 16u);
  // elementStrides[0] is honoured with an interleaved layout: 2 of 3.
  t.estr[0] = 2;
  ASSERT_EQ(t.run(), 0) << t.error;
  m = TensorMap::decode(t.out, err);
  EXPECT_EQ(tmap_row_bytes(*m), 16u);
  // 32B interleave (with the 32B swizzle): 20 elements, 40 bytes -> 64.
  t.interleave = 2;
  t.swizzle = 1;
  t.estr[0] = 1;
  t.box[0] = 20;
  t.dims[0] = 32;
  t.strides[0] = 64;
  ASSERT_EQ(t.run(), 0) << t.error;
  m = TensorMap::decode(t.out, err);
  EXPECT_EQ(tmap_row_bytes(*m), 64u);
  // Without interleave the row is the elements, and the 6-byte box is
  // refused.
  t.interleave = 0;
  t.swizzle = 0;
  t.box[0] = 3;
  EXPECT_EQ(t.run(), 1);
  t.box[0] = 8;
  ASSERT_EQ(t.run(), 0) << t.error;
  m = TensorMap::decode(t.out, err);
  EXPECT_EQ(tmap_row_bytes(*m), 16u);
}

TEST(TensorMap, DecodeRefusesOtherBytes) {
  uint8_t zeros[128] = {};
  std::string err;
  EXPECT_FALSE(TensorMap::decode(zeros, err));
  EXPECT_NE(err.find("not a tensor map"), std::string::npos) << err;
}

TEST(TensorMap, Swizzle) {
  // 128B: chunk bits [4,7) ^= bits [7,10).
  EXPECT_EQ(tmap_swizzle(TmapSwizzle::B128, 0x000), 0x000u);
  EXPECT_EQ(tmap_swizzle(TmapSwizzle::B128, 0x080), 0x090u);
  EXPECT_EQ(tmap_swizzle(TmapSwizzle::B128, 0x3f4), 0x384u);
  // 64B: bits [4,6) ^= bits [7,9).
  EXPECT_EQ(tmap_swizzle(TmapSwizzle::B64, 0x180), 0x1b0u);
  EXPECT_EQ(tmap_swizzle(TmapSwizzle::B64, 0x200), 0x200u);
  // 32B: bit 4 ^= bit 7.
  EXPECT_EQ(tmap_swizzle(TmapSwizzle::B32, 0x080), 0x090u);
  EXPECT_EQ(tmap_swizzle(TmapSwizzle::B32, 0x100), 0x100u);
  EXPECT_EQ(tmap_swizzle(TmapSwizzle::None, 0x0b0), 0x0b0u);
}

// Each invalid field gives CUDA_ERROR_INVALID_VALUE (1) and a message that
// names it.
struct Bad {
  const char *name;
  void (*change)(Tiled &);
  const char *says;
};
const Bad kBad[] = {
    {"type", [](Tiled &t) { t.type = 16; }, "tensorDataType"},
    {"rank0", [](Tiled &t) { t.rank = 0; }, "tensorRank"},
    {"rank6", [](Tiled &t) { t.rank = 6; }, "tensorRank"},
    {"interleave_rank",
     [](Tiled &t) {
       t.interleave = 1;
       t.swizzle = 0;
     },
     "at least 3"},
    {"address", [](Tiled &t) { t.addr += 8; }, "globalAddress"},
    {"address_interleave32",
     [](Tiled &t) {
       t.rank = 3;
       t.interleave = 2;
       t.swizzle = 1;
       t.addr += 16;
     },
     "32-byte aligned"},
    {"dim0", [](Tiled &t) { t.dims[1] = 0; }, "globalDim[1]"},
    {"dim_big", [](Tiled &t) { t.dims[0] = (1ull << 32) + 1; }, "globalDim[0]"},
    {"stride16", [](Tiled &t) { t.strides[0] = 260; }, "globalStrides[0]"},
    {"stride40", [](Tiled &t) { t.strides[0] = 1ull << 40; }, "less than 2^40"},
    {"stride_interleave32",
     [](Tiled &t) {
       t.rank = 3;
       t.interleave = 2;
       t.swizzle = 1;
       t.strides[0] = 272;
     },
     "multiple of 32"},
    {"box0", [](Tiled &t) { t.box[1] = 0; }, "boxDim[1]"},
    {"box257", [](Tiled &t) { t.box[1] = 257; }, "boxDim[1]"},
    {"box_inner16",
     [](Tiled &t) {
       t.swizzle = 0;
       t.box[0] = 2;
     },
     "multiple of 16 bytes"},
    {"box_span128", [](Tiled &t) { t.box[0] = 64; }, "swizzle span of 128"},
    {"box_span64",
     [](Tiled &t) {
       t.swizzle = 2;
       t.box[0] = 32;
     },
     "swizzle span of 64"},
    {"box_span32",
     [](Tiled &t) {
       t.swizzle = 1;
       t.box[0] = 16;
     },
     "swizzle span of 32"},
    {"estride0", [](Tiled &t) { t.estr[1] = 0; }, "elementStrides[1]"},
    {"estride9", [](Tiled &t) { t.estr[0] = 9; }, "elementStrides[0]"},
    {"interleave_value", [](Tiled &t) { t.interleave = 3; }, "interleave"},
    {"interleave32_swizzle",
     [](Tiled &t) {
       t.rank = 3;
       t.interleave = 2;
       t.swizzle = 0;
     },
     "requires swizzle 32B"},
    {"swizzle_value", [](Tiled &t) { t.swizzle = 7; }, "swizzle"},
    {"l2", [](Tiled &t) { t.l2 = 4; }, "l2Promotion"},
    {"oob_value", [](Tiled &t) { t.oob = 2; }, "oobFill"},
    {"oob_nan_integer",
     [](Tiled &t) {
       t.type = uint32_t(TmapType::U32);
       t.oob = 1;
     },
     "floating-point"},
};

TEST(TensorMap, EveryInvalidFieldIsRefused) {
  for (const Bad &b : kBad) {
    Tiled t;
    b.change(t);
    EXPECT_EQ(t.run(), 1) << b.name;
    EXPECT_NE(t.error.find(b.says), std::string::npos)
        << b.name << ": " << t.error;
  }
}

TEST(TensorMap, MapItselfMustBe64ByteAligned) {
  Tiled t;
  alignas(64) uint8_t buf[192];
  EXPECT_EQ(tmap_encode_tiled(buf + 16, uint32_t(TmapType::F32), 2,
                              reinterpret_cast<void *>(t.addr), t.dims,
                              t.strides, t.box, t.estr, 0, 0, 0, 0, t.error),
            1);
  EXPECT_NE(t.error.find("aligned to 64"), std::string::npos) << t.error;
}

TEST(TensorMap, Im2col) {
  alignas(64) uint8_t out[128];
  uint64_t dims[4] = {8, 10, 10, 2};
  uint64_t strides[3] = {32, 320, 3200};
  uint32_t estr[4] = {1, 1, 1, 1};
  int lower[2] = {-1, -1}, upper[2] = {-1, -1};
  std::string err;
  auto enc = [&](uint32_t rank, uint32_t ch, uint32_t px) {
    return tmap_encode_im2col(out, uint32_t(TmapType::F32), rank,
                              reinterpret_cast<void *>(0x7000'0000'0000), dims,
                              strides, lower, upper, ch, px, estr, 0, 0, 0, 0,
                              err);
  };
  ASSERT_EQ(enc(4, 8, 64), 0) << err;
  auto m = TensorMap::decode(out, err);
  ASSERT_TRUE(m) << err;
  EXPECT_EQ(m->mode, TmapMode::Im2col);
  EXPECT_EQ(m->channels, 8u);
  EXPECT_EQ(m->pixels, 64u);
  EXPECT_EQ(m->lower[0], -1);
  EXPECT_EQ(m->upper[1], -1);
  EXPECT_EQ(enc(2, 8, 64), 1);
  EXPECT_NE(err.find("must be 3, 4 or 5"), std::string::npos) << err;
  EXPECT_EQ(enc(4, 0, 64), 1);
  EXPECT_NE(err.find("channelsPerPixel"), std::string::npos) << err;
  EXPECT_EQ(enc(4, 8, 1025), 1);
  EXPECT_NE(err.find("pixelsPerColumn"), std::string::npos) << err;
  EXPECT_EQ(enc(4, 2, 64), 1); // 8 bytes: not a multiple of 16
  EXPECT_NE(err.find("multiple of 16"), std::string::npos) << err;
  // With an interleaved layout the 8-byte pixel is allowed and takes one
  // 16-byte slice in shared memory (docs/hopper.md "Interleaved layouts").
  ASSERT_EQ(tmap_encode_im2col(out, uint32_t(TmapType::F32), 4,
                               reinterpret_cast<void *>(0x7000'0000'0000), dims,
                               strides, lower, upper, 2, 64, estr, 1, 0, 0, 0,
                               err),
            0)
      << err;
  m = TensorMap::decode(out, err);
  ASSERT_TRUE(m) << err;
  EXPECT_EQ(tmap_row_bytes(*m), 16u);
  lower[0] = -129; // rank 4: [-128, 127]
  EXPECT_EQ(enc(4, 8, 64), 1);
  EXPECT_NE(err.find("pixelBoxLowerCorner[0]"), std::string::npos) << err;
  lower[0] = 5;
  upper[0] = -5; // 10 - 5 - 5 = 0: no area
  EXPECT_EQ(enc(4, 8, 64), 1);
  EXPECT_NE(err.find("no area"), std::string::npos) << err;
}

} // namespace
} // namespace bcusim::engine
