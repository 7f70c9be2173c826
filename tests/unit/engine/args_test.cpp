// The `bcusim run` argument language (docs/engine.md "bcusim run").
#include <cmath>
#include <cstring>
#include <fstream>

#include "bcusim/engine/args.h"
#include "bcusim/engine/tensormap.h"
#include "test_util.h"

namespace bcusim::engine::test {
namespace {

TEST(Args, Dims) {
  std::string err;
  auto d = parse_dims("4", err);
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, (Dim3{4, 1, 1}));
  EXPECT_EQ(*parse_dims("2,3", err), (Dim3{2, 3, 1}));
  EXPECT_EQ(*parse_dims("2,3,0x4", err), (Dim3{2, 3, 4}));
  EXPECT_FALSE(parse_dims("0", err));
  EXPECT_FALSE(parse_dims("1,2,3,4", err));
  EXPECT_FALSE(parse_dims("a", err));
  EXPECT_FALSE(parse_dims("1,,2", err));
  EXPECT_NE(err.find("X[,Y[,Z]]"), std::string::npos);
}

TEST(Args, Scalars) {
  std::string err;
  auto a = parse_arg("u32:4000000000", err);
  ASSERT_TRUE(a);
  EXPECT_FALSE(a->is_buffer);
  uint32_t u;
  std::memcpy(&u, a->scalar.data(), 4);
  EXPECT_EQ(u, 4000000000u);
  a = parse_arg("s32:-5", err);
  int32_t s;
  std::memcpy(&s, a->scalar.data(), 4);
  EXPECT_EQ(s, -5);
  a = parse_arg("f32:1.5", err);
  float f;
  std::memcpy(&f, a->scalar.data(), 4);
  EXPECT_EQ(f, 1.5f);
  a = parse_arg("f64:-inf", err);
  double dd;
  std::memcpy(&dd, a->scalar.data(), 8);
  EXPECT_EQ(dd, -INFINITY);
  a = parse_arg("u64:0xffffffffffffffff", err);
  ASSERT_TRUE(a);
  EXPECT_FALSE(parse_arg("u8:256", err));
  EXPECT_NE(err.find("out of range"), std::string::npos);
  EXPECT_FALSE(parse_arg("u32:-1", err));
  EXPECT_FALSE(parse_arg("s32:2147483648", err));
  EXPECT_TRUE(parse_arg("s32:-2147483648", err));
  EXPECT_FALSE(parse_arg("i32:1", err));
  EXPECT_NE(err.find("unknown type 'i32'"), std::string::npos);
  EXPECT_FALSE(parse_arg("f32:abc", err));
  EXPECT_FALSE(parse_arg("u32", err));
}

TEST(Args, Buffers) {
  std::string err;
  auto a = parse_arg("f32[5]=iota", err);
  ASSERT_TRUE(a);
  auto bytes = buffer_contents(*a, err);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(format_elements(ScalarType::F32, bytes->data(), 5),
            "0\n1\n2\n3\n4\n");
  a = parse_arg("u8[300]=iota", err);
  bytes = buffer_contents(*a, err);
  EXPECT_EQ((*bytes)[299], 299 % 256); // iota wraps modulo the type's range
  a = parse_arg("s16[3]=fill:-7", err);
  bytes = buffer_contents(*a, err);
  EXPECT_EQ(format_elements(ScalarType::S16, bytes->data(), 3), "-7\n-7\n-7\n");
  a = parse_arg("u32[4]", err);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->init, ArgSpec::Init::Zeros);
  a = parse_arg("f64[1000]=rand:42", err);
  bytes = buffer_contents(*a, err);
  for (int i = 0; i < 1000; ++i) {
    double v;
    std::memcpy(&v, bytes->data() + 8 * i, 8);
    EXPECT_GE(v, 0.0);
    EXPECT_LT(v, 1.0);
  }
  // rand:SEED is splitmix64 from SEED (documented): the first u64 of seed 0.
  a = parse_arg("u64[1]=rand:0", err);
  bytes = buffer_contents(*a, err);
  uint64_t first;
  std::memcpy(&first, bytes->data(), 8);
  EXPECT_EQ(first, 0xE220A8397B1DCDAFull);
  EXPECT_FALSE(parse_arg("u32[4]=ones", err));
  EXPECT_FALSE(parse_arg("u32[x]", err));
  EXPECT_FALSE(parse_arg("u32[4", err));
  EXPECT_FALSE(parse_arg("u32[4]=fill:x", err));
}

// {FIELD,...}: a structure by value in C layout.
TEST(Args, Structures) {
  std::string err;
  auto a = parse_arg("{u8:1, f64:2, s16:-1, @3, u32[4]=iota, pad:3}", err);
  ASSERT_TRUE(a) << err;
  EXPECT_TRUE(a->is_aggregate);
  EXPECT_FALSE(a->is_buffer);
  // u8 at 0, f64 at 8, s16 at 16, @3 at 24, own buffer at 32, pad 40..42,
  // the whole rounded up to 8.
  ASSERT_EQ(a->scalar.size(), 48u);
  EXPECT_EQ(a->scalar[0], 1);
  double d = 0;
  std::memcpy(&d, a->scalar.data() + 8, 8);
  EXPECT_EQ(d, 2.0);
  EXPECT_EQ(a->scalar[16], 0xff);
  EXPECT_EQ(a->scalar[17], 0xff);
  ASSERT_EQ(a->refs.size(), 2u);
  EXPECT_EQ(a->refs[0].offset, 24u);
  EXPECT_EQ(a->refs[0].number, 3u);
  EXPECT_FALSE(a->refs[0].own);
  EXPECT_EQ(a->refs[1].offset, 32u);
  EXPECT_TRUE(a->refs[1].own);
  ASSERT_EQ(a->buffers.size(), 1u);
  EXPECT_EQ(a->buffers[0].count, 4u);
  EXPECT_EQ(a->buffers[0].init, ArgSpec::Init::Iota);
  // Only the fields' own alignment: {u16, u8} is 4 bytes.
  EXPECT_EQ(parse_arg("{u16:1,u8:2}", err)->scalar.size(), 4u);
  EXPECT_FALSE(parse_arg("{u32:1", err));
  EXPECT_NE(err.find("missing '}'"), std::string::npos);
  EXPECT_FALSE(parse_arg("{u32:1,,u8:2}", err));
  EXPECT_NE(err.find("field 1 of the structure is empty"), std::string::npos);
  EXPECT_FALSE(parse_arg("{x:1}", err));
  EXPECT_NE(err.find("field 0 ('x:1'): unknown type 'x'"), std::string::npos)
      << err;
  EXPECT_FALSE(parse_arg("{{u32:1}}", err));
  EXPECT_FALSE(parse_arg("{@x}", err));
  EXPECT_FALSE(parse_arg("{pad:5000}", err));
}

TEST(Args, FileInit) {
  std::string path = ::testing::TempDir() + "/bcusim_args_file.bin";
  {
    std::ofstream f(path, std::ios::binary);
    uint32_t v[3] = {1, 2, 3};
    f.write(reinterpret_cast<char *>(v), sizeof v);
  }
  std::string err;
  auto a = parse_arg("u32[3]=file:" + path, err);
  ASSERT_TRUE(a);
  auto bytes = buffer_contents(*a, err);
  ASSERT_TRUE(bytes) << err;
  EXPECT_EQ(format_elements(ScalarType::U32, bytes->data(), 3), "1\n2\n3\n");
  a = parse_arg("u32[4]=file:" + path, err);
  EXPECT_FALSE(buffer_contents(*a, err));
  EXPECT_NE(err.find("12 bytes"), std::string::npos);
}

TEST(Args, FloatDumpIsShortestRoundTrip) {
  float v[4] = {0.1f, 1.0f / 3.0f, -0.0f, 1e30f};
  EXPECT_EQ(format_elements(ScalarType::F32, reinterpret_cast<uint8_t *>(v), 4),
            "0.1\n0.33333334\n-0\n1e+30\n");
  double d[2] = {0.1, 2.5};
  EXPECT_EQ(format_elements(ScalarType::F64, reinterpret_cast<uint8_t *>(d), 2),
            "0.1\n2.5\n");
}

// tensormap:TYPE,@I,DIMS,BOX[,KEY=VALUE]... (docs/engine.md "bcusim run",
// docs/hopper.md): a 128-byte structure encoded by the tiled encoder, the
// buffer's address filled in at offset 16.
TEST(Args, TensorMap) {
  std::string err;
  auto a = parse_arg("tensormap:f32,@2,64x32,32x8,swizzle=128,oob=nan,"
                     "estrides=1x2",
                     err);
  ASSERT_TRUE(a) << err;
  EXPECT_TRUE(a->is_aggregate);
  ASSERT_EQ(a->scalar.size(), 128u);
  ASSERT_EQ(a->refs.size(), 1u);
  EXPECT_EQ(a->refs[0].offset, 16u);
  EXPECT_EQ(a->refs[0].number, 2u);
  auto m = TensorMap::decode(a->scalar.data(), err);
  ASSERT_TRUE(m) << err;
  EXPECT_EQ(m->type, TmapType::F32);
  EXPECT_EQ(m->rank, 2u);
  EXPECT_EQ(m->dims[0], 64u);
  EXPECT_EQ(m->strides[1], 256u); // dense by default
  EXPECT_EQ(m->box[1], 8u);
  EXPECT_EQ(m->estrides[1], 2u);
  EXPECT_EQ(m->swizzle, TmapSwizzle::B128);
  EXPECT_EQ(m->oob, TmapOobFill::NanRequestZeroFma);
  EXPECT_TRUE(parse_arg("tensormap:u8,@0,64x4x2,32x2x1,strides=80x320", err))
      << err;
  // Errors name what is wrong.
  EXPECT_FALSE(parse_arg("tensormap:f12,@0,64,16", err));
  EXPECT_NE(err.find("unknown tensor-map type"), std::string::npos) << err;
  EXPECT_FALSE(parse_arg("tensormap:f32,0,64,16", err));
  EXPECT_NE(err.find("buffer reference"), std::string::npos) << err;
  EXPECT_FALSE(parse_arg("tensormap:f32,@0,64x8,16", err));
  EXPECT_NE(err.find("one box size per dimension"), std::string::npos) << err;
  EXPECT_FALSE(parse_arg("tensormap:f32,@0,64,16,color=red", err));
  EXPECT_NE(err.find("unknown tensor-map key"), std::string::npos) << err;
  EXPECT_FALSE(parse_arg("tensormap:f32,@0,64,16,swizzle=16", err));
  EXPECT_NE(err.find("not a value of 'swizzle'"), std::string::npos) << err;
  EXPECT_FALSE(parse_arg("tensormap:f32,@0,64x8,16x8,strides=100", err));
  EXPECT_NE(err.find("globalStrides[0]"), std::string::npos) << err;
  EXPECT_FALSE(parse_arg("tensormap:f32,@0,64", err));
}

} // namespace
} // namespace bcusim::engine::test
