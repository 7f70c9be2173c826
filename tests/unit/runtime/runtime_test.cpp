// The runtime through its C++ API, without nvcc: the committed PTX of the
// tests/exec programs, registered as __cudaRegister* would register it.
#include <cstring>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <vector>

#include "bcusim/runtime/runtime.h"
#include "fatbin_util.h"

using namespace bcusim;
using runtime::Error;
using runtime::Runtime;

namespace {

std::string read(const std::string &name) {
  std::ifstream in(std::string(BCUSIM_SOURCE_DIR) + "/tests/exec/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Host-side identities of kernels and variables (what the program's stub
// addresses are to the runtime).
char reduce_fn, scan_fn, add_fn, staged_fn, sample2d_fn, fetch1d_fn,
    asserting_fn, spin_fn, axpb_fn, fill2d_fn, overrun_fn, trapper_fn, ok_fn,
    block_sum_fn, grid_total_fn, scale_var, counter_var, racy_step_fn,
    produce_fn, consume_fn, per_thread_fn, exhaust_fn, clock_spin_fn, tile0_fn,
    tile3_fn, mixed_fn, opt_in_fn;

Runtime::LaunchParams dims(uint32_t g, uint32_t b, uint64_t shared = 0) {
  Runtime::LaunchParams p;
  p.grid = {g};
  p.block = {b};
  p.shared = shared;
  return p;
}

} // namespace

TEST(Runtime, LaunchWithSymbolsAndAnOffsetPointer) {
  Runtime rt;
  int m = rt.add_ptx("memory.ptx", read("memory.ptx"));
  rt.register_function(m, &axpb_fn, "_Z4axpbPKfPfi");
  rt.register_var(m, &scale_var, "scale", 8, true);
  rt.register_var(m, &counter_var, "counter", 4, false);
  const int n = 100;
  std::vector<float> hx(n);
  for (int i = 0; i < n; ++i)
    hx[i] = float(i);
  void *dx = nullptr, *dy = nullptr;
  ASSERT_EQ(rt.malloc(&dx, n * 4), Error::Success);
  ASSERT_EQ(rt.malloc(&dy, n * 4), Error::Success);
  EXPECT_TRUE(Runtime::is_device_address(dx));
  ASSERT_EQ(rt.memcpy(dx, hx.data(), n * 4), Error::Success);
  const float s[2] = {3.0f, 0.5f};
  ASSERT_EQ(rt.copy_to_symbol(&scale_var, s, 8, 0), Error::Success);
  void *x10 = static_cast<float *>(dx) + 10;
  int count = n - 10;
  void *args[] = {&x10, &dy, &count};
  ASSERT_EQ(rt.launch(&axpb_fn, dims(1, 128), args), Error::Success);
  std::vector<float> hy(n);
  ASSERT_EQ(rt.memcpy(hy.data(), dy, n * 4), Error::Success);
  EXPECT_EQ(hy[0], 30.5f);
  EXPECT_EQ(hy[89], 3.0f * 99 + 0.5f);
  int c = 0;
  ASSERT_EQ(rt.copy_from_symbol(&c, &counter_var, 4, 0), Error::Success);
  EXPECT_EQ(c, n - 10);
  float back[2];
  ASSERT_EQ(rt.copy_from_symbol(back, &scale_var, 8, 0), Error::Success);
  EXPECT_EQ(back[0], 3.0f);
  void *addr = nullptr;
  ASSERT_EQ(rt.symbol_address(&counter_var, &addr), Error::Success);
  EXPECT_TRUE(Runtime::is_device_address(addr));
  EXPECT_EQ(rt.copy_to_symbol(&scale_var, s, 8, 4), Error::InvalidValue);
  EXPECT_EQ(rt.copy_to_symbol(&fill2d_fn, s, 4, 0), Error::InvalidSymbol);
  EXPECT_EQ(rt.stats().launches, 1u);
  EXPECT_GT(rt.stats().thread_steps, 0u);
}

TEST(Runtime, ManagedVariableIsOnePointerOnBothSides) {
  Runtime rt;
  int m = rt.add_ptx("memory.ptx", read("memory.ptx"));
  rt.register_function(m, &axpb_fn, "_Z4axpbPKfPfi");
  void *managed = nullptr; // where nvcc's host code reads the variable
  rt.register_managed_var(m, &managed, "managed_total", 4);
  ASSERT_TRUE(rt.init_module(m));
  ASSERT_NE(managed, nullptr);
  EXPECT_FALSE(Runtime::is_device_address(managed));
  *static_cast<int *>(managed) = 100; // the host writes it...
  void *x = nullptr;
  rt.malloc(&x, 16 * 4);
  int n = 16;
  void *args[] = {&x, &x, &n};
  ASSERT_EQ(rt.launch(&axpb_fn, dims(1, 32), args), Error::Success);
  EXPECT_EQ(*static_cast<int *>(managed), 100 + 2 * 16); // ...kernels too
  // Its host address is a device address as well.
  void *addr = nullptr;
  ASSERT_EQ(rt.symbol_address(&managed, &addr), Error::Success);
  EXPECT_EQ(addr, managed);
  int twice[1] = {0};
  ASSERT_EQ(rt.memcpy(twice, addr, 4), Error::Success);
  EXPECT_EQ(twice[0], 132);
}

TEST(Runtime, HostMappedMemoryIsOnePointerOnBothSides) {
  Runtime rt;
  int m = rt.add_ptx("memory.ptx", read("memory.ptx"));
  rt.register_function(m, &axpb_fn, "_Z4axpbPKfPfi");
  rt.register_var(m, &scale_var, "scale", 8, true);
  const float s[2] = {2.0f, 1.0f};
  rt.copy_to_symbol(&scale_var, s, 8, 0);
  void *p = nullptr;
  ASSERT_EQ(rt.malloc_host(&p, 64 * 4, "managed memory"), Error::Success);
  auto *f = static_cast<float *>(p);
  for (int i = 0; i < 64; ++i)
    f[i] = float(i);
  int n = 64;
  void *args[] = {&p, &p, &n};
  ASSERT_EQ(rt.launch(&axpb_fn, dims(1, 64), args), Error::Success);
  EXPECT_EQ(f[10], 21.0f);
  EXPECT_TRUE(rt.is_host_mapped(f + 63));
  // An overrun of host-mapped memory inside its page is an error the launch
  // survives (a GPU maps whole pages); past the page it faults.
  int more = 65;
  void *args2[] = {&p, &p, &more};
  EXPECT_EQ(rt.launch(&axpb_fn, dims(1, 128), args2), Error::Success);
  EXPECT_EQ(rt.stats().errors, 2u); // the load and the store
  int far = 1100;
  void *args3[] = {&p, &p, &far};
  EXPECT_EQ(rt.launch(&axpb_fn, dims(9, 128), args3), Error::IllegalAddress);
  rt.reset();
  EXPECT_FALSE(rt.is_host_mapped(p));
}

TEST(Runtime, FaultsAreStickyUntilReset) {
  Runtime rt;
  int m = rt.add_ptx("fault.ptx", read("fault.ptx"));
  rt.register_function(m, &overrun_fn, "_Z7overrunPii");
  rt.register_function(m, &trapper_fn, "_Z7trapperPi");
  rt.register_function(m, &ok_fn, "_Z2okPi");
  void *d = nullptr;
  rt.malloc(&d, 64 * 4);
  int n = 64;
  void *args[] = {&d, &n};
  EXPECT_EQ(rt.launch(&overrun_fn, dims(2, 32), args), Error::IllegalAddress);
  EXPECT_EQ(rt.sticky(), Error::IllegalAddress);
  void *okargs[] = {&d};
  EXPECT_EQ(rt.launch(&ok_fn, dims(1, 64), okargs), Error::IllegalAddress);
  EXPECT_EQ(rt.last_error(true), Error::IllegalAddress);
  EXPECT_EQ(rt.last_error(true), Error::IllegalAddress); // sticky
  rt.reset();
  EXPECT_EQ(rt.last_error(true), Error::Success);
  rt.malloc(&d, 64 * 4);
  void *targs[] = {&d};
  EXPECT_EQ(rt.launch(&trapper_fn, dims(1, 32), targs), Error::LaunchFailure);
  rt.reset();
  rt.malloc(&d, 64 * 4);
  void *okargs2[] = {&d};
  // Too many threads per CTA is an invalid value, as a GPU's runtime says;
  // a pointer that is not a kernel an invalid (kernel) handle. Neither is
  // sticky.
  EXPECT_EQ(rt.launch(&ok_fn, dims(1, 2048), okargs2), Error::InvalidValue);
  EXPECT_EQ(rt.last_error(true), Error::InvalidValue);
  EXPECT_EQ(rt.sticky(), Error::Success); // not sticky
  EXPECT_EQ(rt.launch(&ok_fn, dims(1, 64), okargs2), Error::Success);
  EXPECT_EQ(rt.launch(&axpb_fn, dims(1, 1), okargs2),
            Error::InvalidResourceHandle);
  EXPECT_EQ(rt.last_error(true), Error::InvalidResourceHandle);
  Error err = Error::Success;
  EXPECT_FALSE(rt.function(&axpb_fn, err));
  EXPECT_EQ(err, Error::InvalidResourceHandle);
  EXPECT_EQ(rt.set_max_dynamic_shared(&axpb_fn, 1024),
            Error::InvalidResourceHandle);
  EXPECT_EQ(rt.sticky(), Error::Success);
  EXPECT_STREQ(runtime::error_name(Error::IllegalAddress),
               "cudaErrorIllegalAddress");
}

// Recursion beyond the stack limit: the launch fails with an illegal
// address (sticky), as on a GPU, and the report says why.
TEST(Runtime, StackOverflowIsAnIllegalAddress) {
  Runtime rt;
  std::ifstream in(std::string(BCUSIM_SOURCE_DIR) +
                   "/tests/unit/engine/kernels/recurse.ptx");
  std::stringstream ptx;
  ptx << in.rdbuf();
  static char deep_fn;
  int m = rt.add_ptx("recurse.ptx", ptx.str());
  rt.register_function(m, &deep_fn, "_Z4deepPKiPi");
  void *n = nullptr, *out = nullptr;
  ASSERT_EQ(rt.malloc(&n, 32 * 4), Error::Success);
  ASSERT_EQ(rt.malloc(&out, 104 * 4), Error::Success);
  std::vector<int> depth(32, 3);
  depth[5] = -1; // never ends
  ASSERT_EQ(rt.memcpy(n, depth.data(), 32 * 4), Error::Success);
  void *args[] = {&n, &out};
  testing::internal::CaptureStderr();
  EXPECT_EQ(rt.launch(&deep_fn, dims(1, 32), args), Error::IllegalAddress);
  const std::string text = testing::internal::GetCapturedStderr();
  EXPECT_NE(text.find("stack overflow: the call of 'runaway"),
            std::string::npos)
      << text;
  EXPECT_EQ(rt.sticky(), Error::IllegalAddress);
}

// Memory outside its lifetime (graph memory): once mapped, a kernel's
// access is an error the launch survives; not mapped yet (before its
// allocation node first ran), the access faults with an illegal address,
// as on a GPU, and the report keeps the reason.
TEST(Runtime, UnmappedMemoryFaultsRetiredMemoryDoesNot) {
  Runtime rt;
  int m = rt.add_ptx("memory.ptx", read("memory.ptx"));
  rt.register_function(m, &axpb_fn, "_Z4axpbPKfPfi");
  rt.register_var(m, &scale_var, "scale", 8, true);
  void *dx = nullptr, *dy = nullptr;
  ASSERT_EQ(rt.malloc(&dx, 64 * 4), Error::Success);
  ASSERT_EQ(rt.malloc(&dy, 64 * 4), Error::Success);
  int n = 64;
  void *args[] = {&dx, &dy, &n};
  const auto x = reinterpret_cast<uint64_t>(dx);
  ASSERT_TRUE(rt.device().set_retired(x, "use after free: freed"));
  testing::internal::CaptureStderr();
  EXPECT_EQ(rt.launch(&axpb_fn, dims(1, 64), args), Error::Success);
  std::string text = testing::internal::GetCapturedStderr();
  EXPECT_NE(text.find("use after free: freed"), std::string::npos) << text;
  ASSERT_TRUE(rt.device().set_retired(x, "use before allocation: not yet",
                                      /*unmapped=*/true));
  testing::internal::CaptureStderr();
  EXPECT_EQ(rt.launch(&axpb_fn, dims(1, 64), args), Error::IllegalAddress);
  text = testing::internal::GetCapturedStderr();
  EXPECT_NE(text.find("use before allocation: not yet; a GPU faults"),
            std::string::npos)
      << text;
  EXPECT_EQ(rt.sticky(), Error::IllegalAddress);
}

TEST(Runtime, AssertAndAKernelThatCannotFinish) {
  Runtime rt;
  int m = rt.add_ptx("fault.ptx", read("fault.ptx"));
  rt.register_function(m, &asserting_fn, "_Z9assertingPKi");
  rt.register_function(m, &spin_fn, "_Z4spinPVi");
  void *d = nullptr;
  rt.malloc(&d, 64 * 4);
  void *args[] = {&d};
  EXPECT_EQ(rt.launch(&asserting_fn, dims(1, 32), args), Error::Success);
  rt.memset(d, 1, 64 * 4);
  EXPECT_EQ(rt.launch(&asserting_fn, dims(1, 32), args), Error::Assert);
  rt.reset();
  rt.malloc(&d, 64 * 4);
  void *args2[] = {&d};
  // A kernel that spins for ever stays pending (docs/exec.md "Concurrent
  // streams"); the host's wait for it reports the deadlock.
  EXPECT_EQ(rt.launch(&spin_fn, dims(1, 32), args2), Error::Success);
  EXPECT_EQ(rt.pending_launches(), 1u);
  rt.host_sync_all();
  EXPECT_EQ(rt.sticky(), Error::LaunchTimeout);
  EXPECT_EQ(rt.stats().failed_launches, 2u);
}

TEST(Runtime, DynamicSharedMemoryAndTheOptInLimit) {
  Runtime rt;
  int m = rt.add_ptx("launch.ptx", read("launch.ptx"));
  rt.register_function(m, &block_sum_fn, "_Z9block_sumPKiPi");
  void *in = nullptr, *out = nullptr;
  rt.malloc(&in, 256 * 4);
  rt.malloc(&out, 4);
  std::vector<int> h(256, 3);
  rt.memcpy(in, h.data(), 256 * 4);
  void *args[] = {&in, &out};
  ASSERT_EQ(rt.launch(&block_sum_fn, dims(1, 256, 256 * 4), args),
            Error::Success);
  int sum = 0;
  rt.memcpy(&sum, out, 4);
  EXPECT_EQ(sum, 768);
  EXPECT_EQ(rt.launch(&block_sum_fn, dims(1, 256, 64 * 1024), args),
            Error::InvalidValue);
  EXPECT_EQ(rt.set_max_dynamic_shared(&block_sum_fn, 64 * 1024),
            Error::Success);
  EXPECT_EQ(rt.launch(&block_sum_fn, dims(1, 256, 64 * 1024), args),
            Error::Success);
}

TEST(Runtime, CooperativeLaunchSyncsTheGridAndMustFit) {
  Runtime rt;
  int m = rt.add_ptx("launch.ptx", read("launch.ptx"));
  rt.register_function(m, &grid_total_fn, "_Z10grid_totalPiS_");
  void *data = nullptr, *total = nullptr;
  rt.malloc(&data, 256 * 4);
  rt.malloc(&total, 4);
  std::vector<int> h(256, 1);
  rt.memcpy(data, h.data(), 256 * 4);
  void *args[] = {&data, &total};
  auto p = dims(4, 64);
  p.cooperative = true;
  ASSERT_EQ(rt.launch(&grid_total_fn, p, args), Error::Success);
  rt.memcpy(h.data(), data, 256 * 4);
  EXPECT_EQ(h[0], 256);
  EXPECT_EQ(h[255], 256);
  p.grid = {132 * 2 + 1};
  p.block = {1024};
  EXPECT_EQ(rt.launch(&grid_total_fn, p, args),
            Error::CooperativeLaunchTooLarge);
}

TEST(Runtime, OccupancyOfTheModelledH100) {
  runtime::DeviceModel m;
  EXPECT_EQ(m.blocks_per_sm(256, 0), 8u); // 2048 threads per SM
  EXPECT_EQ(m.blocks_per_sm(1024, 0), 2u);
  EXPECT_EQ(m.blocks_per_sm(32, 0), 32u);          // 32 CTAs per SM
  EXPECT_EQ(m.blocks_per_sm(128, 100 * 1024), 2u); // shared memory bound
  EXPECT_EQ(m.blocks_per_sm(128, 300 * 1024), 0u);
  EXPECT_EQ(m.blocks_per_sm(2048, 0), 0u);
}

TEST(Runtime, PtxThatDoesNotCompileIsInvalidPtx) {
  Runtime rt;
  int m = rt.add_ptx("bad.ptx", ".version 9.0\n.target sm_90\nbogus;\n");
  rt.register_function(m, &ok_fn, "k");
  void *args[] = {nullptr};
  EXPECT_EQ(rt.launch(&ok_fn, dims(1, 1), args), Error::InvalidPtx);
}

TEST(Runtime, RelocatableImageFindsEachNamesModule) {
  // What nvcc -rdc registers: one wrapper (version 2) listing a fat binary
  // per translation unit; registration names the image, the runtime finds
  // the module that defines each kernel and variable.
  auto tu1 =
      runtime::testing::make_fatbin({{1, 90, 0x8000, read("memory.ptx")}});
  auto tu2 =
      runtime::testing::make_fatbin({{1, 90, 0x2000, read("fault.ptx")}});
  auto linked = runtime::testing::make_fatbin({{2, 90, 0,
                                                "\x7f"
                                                "ELF"}});
  const void *list[] = {tu1.data(), tu2.data(), nullptr};
  struct {
    uint32_t magic, version;
    const void *data, *fatbins;
  } w{runtime::kFatbinWrapperMagic, 2, linked.data(), list};
  Runtime rt;
  int image = rt.add_fatbin(&w);
  ASSERT_GE(image, 0);
  rt.register_function(image, &ok_fn, "_Z2okPi");
  rt.register_function(image, &axpb_fn, "_Z4axpbPKfPfi");
  rt.register_var(image, &counter_var, "counter", 4, false);
  ASSERT_TRUE(rt.init_module(image));
  void *d = nullptr;
  rt.malloc(&d, 64 * 4);
  void *args[] = {&d};
  ASSERT_EQ(rt.launch(&ok_fn, dims(1, 64), args), Error::Success);
  int n = 64;
  void *args2[] = {&d, &d, &n};
  ASSERT_EQ(rt.launch(&axpb_fn, dims(1, 64), args2), Error::Success);
  int c = 0;
  ASSERT_EQ(rt.copy_from_symbol(&c, &counter_var, 4, 0), Error::Success);
  EXPECT_EQ(c, 64);
}

TEST(Runtime, ImagesLoadedAtRunTime) {
  // What cudaLibraryLoadData / cuModuleLoadData hand over: PTX text, a fat
  // binary, its wrapper; compiled at the load, kernels and globals named.
  Runtime rt;
  Error err = Error::Success;
  std::string why;
  const std::string ptx = read("driver_api_kernels.ptx");
  int text = rt.load_image(ptx.c_str(), "loaded.ptx", err, why);
  ASSERT_GE(text, 0) << why;
  EXPECT_EQ(rt.image_kernels(text),
            (std::vector<std::string>{"scale_add", "block_sum"}));
  void *calls = nullptr;
  uint64_t size = 0;
  ASSERT_EQ(rt.image_global(text, "calls", &calls, &size), Error::Success);
  EXPECT_EQ(size, 4u);
  EXPECT_EQ(rt.image_global(text, "nope", &calls, &size), Error::InvalidSymbol);
  // A __constant__ variable's address is in the constant bank: what is
  // written there, ld.const reads.
  void *bias = nullptr;
  ASSERT_EQ(rt.image_global(text, "bias", &bias, &size), Error::Success);
  EXPECT_EQ(size, 4u);
  const float one = 1.0f;
  ASSERT_EQ(rt.memcpy(bias, &one, 4), Error::Success);
  // Launched through a handle registered for one of its kernels.
  rt.register_function(text, &ok_fn, "scale_add");
  void *x = nullptr, *y = nullptr;
  rt.malloc(&x, 64 * 4);
  rt.malloc(&y, 64 * 4);
  std::vector<float> hx(64, 2.0f), hy(64);
  rt.memcpy(x, hx.data(), 64 * 4);
  float a = 3.0f, b = 1.0f;
  int n = 64;
  void *args[] = {&a, &x, &b, &y, &n};
  ASSERT_EQ(rt.launch(&ok_fn, dims(2, 32), args), Error::Success);
  rt.memcpy(hy.data(), y, 64 * 4);
  EXPECT_EQ(hy[63], 8.0f); // 3 * 2 + 1 + bias
  int c = 0;
  rt.memcpy(&c, calls, 4);
  EXPECT_EQ(c, 1);

  auto fb = runtime::testing::make_fatbin({{1, 90, 0x8000, ptx}});
  int fat = rt.load_image(fb.data(), "", err, why);
  ASSERT_GE(fat, 0) << why;
  EXPECT_EQ(rt.image_kernels(fat).size(), 2u);
  struct {
    uint32_t magic, version;
    const void *data, *unused;
  } w{runtime::kFatbinWrapperMagic, 1, fb.data(), nullptr};
  EXPECT_GE(rt.load_image(&w, "", err, why), 0) << why;

  // Machine code only, PTX that does not compile, nothing.
  const char elf[] = "\x7f"
                     "ELF\x02\x01\x01";
  EXPECT_EQ(rt.load_image(elf, "", err, why), -1);
  EXPECT_EQ(err, Error::NoKernelImageForDevice);
  EXPECT_NE(why.find("machine code"), std::string::npos);
  auto sass = runtime::testing::make_fatbin({{2, 90, 0,
                                              "\x7f"
                                              "ELF"}});
  EXPECT_EQ(rt.load_image(sass.data(), "", err, why), -1);
  EXPECT_EQ(err, Error::NoKernelImageForDevice);
  EXPECT_EQ(
      rt.load_image(".version 9.0\n.target sm_90\nbogus;\n", "", err, why), -1);
  EXPECT_EQ(err, Error::InvalidPtx);
  EXPECT_EQ(rt.load_image("", "", err, why), -1); // short text: no overread
  EXPECT_EQ(err, Error::InvalidPtx);
  EXPECT_NE(why.find("no .version"), std::string::npos);
  EXPECT_EQ(rt.load_image(nullptr, "", err, why), -1);
  EXPECT_EQ(err, Error::InvalidValue);
}

TEST(Runtime, TextureObjectsFilterAndAddress) {
  Runtime rt;
  int m = rt.add_ptx("texture.ptx", read("texture.ptx"));
  rt.register_function(m, &sample2d_fn, "_Z8sample2dyPK6float2Pfi");
  rt.register_function(m, &fetch1d_fn, "_Z7fetch1dyPfi");
  // A 4 x 2 float image, value 10*x + 100*y, pitched 32 bytes per row.
  void *img = nullptr;
  rt.malloc(&img, 64);
  const float px[16] = {0, 10, 20, 30, 0, 0, 0, 0, 100, 110, 120, 130};
  rt.memcpy(img, px, sizeof(px));
  engine::Texture t;
  t.base = reinterpret_cast<uint64_t>(img);
  t.width = 4;
  t.height = 2;
  t.pitch = 32;
  const uint64_t point = rt.device().create_texture(t);
  t.linear = true;
  const uint64_t linear = rt.device().create_texture(t);
  t.linear = false;
  t.address[0] = engine::Texture::Address::Border;
  t.border[0] = -1;
  const uint64_t border = rt.device().create_texture(t);
  void *at = nullptr, *out = nullptr;
  rt.malloc(&at, 4 * 8);
  rt.malloc(&out, 4 * 4);
  const float coords[8] = {2.5f, 1.5f, 1.0f, 0.5f, -3.0f, 0.5f, 9.0f, 9.0f};
  rt.memcpy(at, coords, sizeof(coords));
  int n = 4;
  float r[4];
  for (uint64_t tex : {point, linear, border}) {
    uint64_t handle = tex;
    void *args[] = {&handle, &at, &out, &n};
    ASSERT_EQ(rt.launch(&sample2d_fn, dims(1, 4), args), Error::Success);
    rt.memcpy(r, out, sizeof(r));
    if (tex == point) {
      EXPECT_EQ(r[0], 120.0f);
      EXPECT_EQ(r[2], 0.0f);   // clamped to x = 0
      EXPECT_EQ(r[3], 130.0f); // clamped to (3, 1)
    } else if (tex == linear) {
      EXPECT_NEAR(r[1], 5.0f, 1e-5); // halfway between x = 0 and 1
    } else {
      EXPECT_EQ(r[2], -1.0f); // the border colour
      EXPECT_EQ(r[0], 120.0f);
    }
  }
  // Linear filtering bit for bit as the H100 (hardware/numerics
  // h100-default.txt.gz, tex.1d.v4.f32.f32:f32,linear,unnorm,clamp rows
  // 105 118 119 144 157 188 190): the texels aligned to the larger one's
  // exponent with 28 bits, the exact weighted sum rounded once, ties away.
  {
    void *row = nullptr;
    rt.malloc(&row, 16 * 4);
    const float tf[16] = {0.0f, 1.0f,       3.0f,  -1.0f,  256.0f,   0.1f,
                          1.0f, 1.0000001f, 1e30f, -1e30f, 65504.0f, 1e-40f,
                          2.0f, -5.0f,      0.0f,  0.0f};
    rt.memcpy(row, tf, sizeof(tf));
    engine::Texture l1;
    l1.base = reinterpret_cast<uint64_t>(row);
    l1.width = 16;
    l1.height = 1;
    l1.pitch = 64;
    l1.linear = true;
    uint64_t lh = rt.device().create_texture(l1);
    const float xs[7] = {4.5625f, 5.375f, 5.4375f, 7.0f,
                         7.8125f, 9.75f,  9.875f};
    const uint32_t h100[7] = {0x4370019a, 0x42005999, 0x4180bfff, 0x3f800001,
                              0x707c6f7d, 0xf1177618, 0xf0fc6f7d};
    float c2[14];
    for (int i = 0; i < 7; ++i) {
      c2[2 * i] = xs[i];
      c2[2 * i + 1] = 0.5f; // the row's centre: weight 0 for the row below
    }
    void *c = nullptr, *o7 = nullptr;
    rt.malloc(&c, sizeof(c2));
    rt.malloc(&o7, 7 * 4);
    rt.memcpy(c, c2, sizeof(c2));
    int n7 = 7;
    void *largs[] = {&lh, &c, &o7, &n7};
    ASSERT_EQ(rt.launch(&sample2d_fn, dims(1, 7), largs), Error::Success);
    uint32_t got[7];
    rt.memcpy(got, o7, sizeof(got));
    for (int i = 0; i < 7; ++i)
      EXPECT_EQ(got[i], h100[i]) << "x = " << xs[i];
  }
  // A handle that is not a texture faults the launch.
  uint64_t bogus = 77;
  void *args[] = {&bogus, &at, &out, &n};
  EXPECT_EQ(rt.launch(&sample2d_fn, dims(1, 4), args), Error::LaunchFailure);
  rt.reset();
  // Reading freed memory through a texture is an illegal address.
  void *lin = nullptr;
  rt.malloc(&lin, 64 * 4);
  engine::Texture l;
  l.base = reinterpret_cast<uint64_t>(lin);
  l.width = 64;
  uint64_t h = rt.device().create_texture(l);
  rt.free(lin);
  void *o = nullptr;
  rt.malloc(&o, 64 * 4);
  int n64 = 64;
  void *fargs[] = {&h, &o, &n64};
  EXPECT_EQ(rt.launch(&fetch1d_fn, dims(1, 64), fargs), Error::IllegalAddress);
}

TEST(Runtime, EveryTestProgramsPtxCompiles) {
  for (const char *f :
       {"memory.ptx", "launch.ptx", "fault.ptx", "reduce_scan.ptx",
        "sync_samples.ptx", "texture.ptx", "pipeline_tiles.ptx",
        "race_loop.ptx", "streams.ptx", "heap.ptx", "clock.ptx",
        "concurrent.ptx", "shared_layout.ptx", "driver_api_kernels.ptx"}) {
    Runtime rt;
    int m = rt.add_ptx(f, read(f));
    EXPECT_TRUE(rt.init_module(m)) << f;
  }
}

TEST(Runtime, ReductionAndScanAsTheSampleRunsThem) {
  Runtime rt;
  int m = rt.add_ptx("reduce_scan.ptx", read("reduce_scan.ptx"));
  rt.register_function(m, &reduce_fn, "_Z6reducePKiPii");
  rt.register_function(m, &scan_fn, "_Z10block_scanPiS_i");
  rt.register_function(m, &add_fn, "_Z11uniform_addPiPKii");
  const int n = 4096, nb = n / 256;
  std::vector<int> h(n);
  long long total = 0;
  for (int i = 0; i < n; ++i)
    total += h[i] = (i * 7919) % 13 - 6;
  void *d = nullptr, *part = nullptr, *sums = nullptr;
  rt.malloc(&d, n * 4);
  rt.malloc(&part, 64 * 4);
  rt.malloc(&sums, nb * 4);
  rt.memcpy(d, h.data(), n * 4);
  int count = n, blocks = 8;
  void *r1[] = {&d, &part, &count};
  ASSERT_EQ(rt.launch(&reduce_fn, dims(8, 256), r1), Error::Success);
  void *r2[] = {&part, &part, &blocks};
  ASSERT_EQ(rt.launch(&reduce_fn, dims(1, 256), r2), Error::Success);
  int sum = 0;
  rt.memcpy(&sum, part, 4);
  EXPECT_EQ(sum, total);
  void *null = nullptr;
  int nbs = nb;
  void *s1[] = {&d, &sums, &count};
  void *s2[] = {&sums, &null, &nbs};
  void *s3[] = {&d, &sums, &count};
  ASSERT_EQ(rt.launch(&scan_fn, dims(nb, 256), s1), Error::Success);
  ASSERT_EQ(rt.launch(&scan_fn, dims(1, 256), s2), Error::Success);
  ASSERT_EQ(rt.launch(&add_fn, dims(nb, 256), s3), Error::Success);
  std::vector<int> out(n);
  rt.memcpy(out.data(), d, n * 4);
  long long run = 0;
  int bad = 0;
  for (int i = 0; i < n; ++i)
    bad += out[i] != (run += h[i]);
  EXPECT_EQ(bad, 0);
}

TEST(Runtime, PipelineStagedCopies) {
  runtime::RunOptions o;
  o.check = "all";
  Runtime rt(o);
  int m = rt.add_ptx("pipeline_tiles.ptx", read("pipeline_tiles.ptx"));
  rt.register_function(m, &staged_fn, "_Z6stagedPKiPii");
  std::vector<int> h(1024);
  for (int i = 0; i < 1024; ++i)
    h[i] = i % 101;
  void *in = nullptr, *out = nullptr;
  rt.malloc(&in, 1024 * 4);
  rt.malloc(&out, 128 * 4);
  rt.memcpy(in, h.data(), 1024 * 4);
  int tiles = 8;
  void *args[] = {&in, &out, &tiles};
  ASSERT_EQ(rt.launch(&staged_fn, dims(1, 128), args), Error::Success);
  std::vector<int> r(128);
  rt.memcpy(r.data(), out, 128 * 4);
  for (int t = 0; t < 128; t += 31) {
    int want = 0;
    for (int k = 0; k < 8; ++k)
      want += h[k * 128 + t];
    EXPECT_EQ(r[t], want) << t;
  }
  EXPECT_EQ(rt.stats().errors, 0u);
}

// Each kernel's static shared memory is what it reaches (docs/engine.md
// "Shared memory"): the module's six 44 KiB tiles together exceed what a CTA
// may have, yet each kernel launches; the array of a device function two
// kernels call overlaps neither kernel's own; 200 KiB of dynamic memory
// start after the 1 KiB of the kernel that takes them.
TEST(Runtime, SharedMemoryIsLaidOutPerKernel) {
  runtime::RunOptions o;
  o.check = "all";
  Runtime rt(o);
  int m = rt.add_ptx("shared_layout.ptx", read("shared_layout.ptx"));
  rt.register_function(m, &tile0_fn, "_Z4tileILi0EEvPi");
  rt.register_function(m, &tile3_fn, "_Z4tileILi3EEvPi");
  rt.register_function(m, &mixed_fn, "_Z5mixedPi");
  rt.register_function(m, &opt_in_fn, "_Z6opt_inPii");
  Error err = Error::Success;
  auto f = rt.function(&tile0_fn, err);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->info.static_shared, 45u * 1024);
  f = rt.function(&opt_in_fn, err);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->info.static_shared, 1024u);
  void *out = nullptr;
  ASSERT_EQ(rt.malloc(&out, 1024 * 4), Error::Success);
  void *args[] = {&out};
  const int kTile = 11 * 1024;
  for (void *fn :
       {static_cast<void *>(&tile0_fn), static_cast<void *>(&tile3_fn)}) {
    const int k = fn == &tile0_fn ? 0 : 3;
    ASSERT_EQ(rt.launch(fn, dims(1, 256), args), Error::Success);
    std::vector<int> r(256);
    rt.memcpy(r.data(), static_cast<int *>(out) + k * 256, 256 * 4);
    for (int t = 0; t < 256; t += 51) {
      int s = k == 0 ? (t + 1) % 256 : 0;
      for (int i = t; i < kTile; i += 256)
        s += (kTile - 1 - i) * (k + 1);
      EXPECT_EQ(r[t], s) << k << " " << t;
    }
  }
  ASSERT_EQ(rt.launch(&mixed_fn, dims(1, 256), args), Error::Success);
  std::vector<int> r(259);
  rt.memcpy(r.data(), out, 256 * 4);
  for (int t = 0; t < 256; t += 51)
    EXPECT_EQ(r[t], 3 * (255 - t) + 1000 + (t + 1) % 256) << t;
  const int dyn = 200 * 1024, words = dyn / 4;
  ASSERT_EQ(rt.set_max_dynamic_shared(&opt_in_fn, dyn), Error::Success);
  void *oargs[] = {&out, const_cast<int *>(&words)};
  ASSERT_EQ(rt.launch(&opt_in_fn, dims(1, 256, dyn), oargs), Error::Success);
  rt.memcpy(r.data(), out, 259 * 4);
  EXPECT_EQ(r[256], dyn);        // %dynamic_smem_size
  EXPECT_EQ(r[257], 1024 + dyn); // %total_smem_size
  // Where the dynamic array starts: after the reserved 1 KiB and the 1 KiB
  // of static memory (measured on an NVIDIA H200, driver 580.159.04, CUDA
  // 13.0, 2026-11-28).
  EXPECT_EQ(r[258], 2048);
  EXPECT_EQ(rt.stats().errors, 0u);
}

// A race is reported and counted, and the launch completes as on a GPU:
// the host keeps working (docs/exec.md "Errors as on a GPU").
TEST(Runtime, FindingsDoNotFailTheLaunch) {
  runtime::RunOptions o;
  o.check = "all";
  Runtime rt(o);
  int m = rt.add_ptx("race_loop.ptx", read("race_loop.ptx"));
  rt.register_function(m, &racy_step_fn, "racy_step");
  void *counter = nullptr, *scratch = nullptr;
  rt.malloc(&counter, 4);
  rt.malloc(&scratch, 4);
  rt.memset(counter, 0, 4);
  void *args[] = {&counter, &scratch};
  int steps = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(rt.launch(&racy_step_fn, dims(2, 64), args), Error::Success);
    EXPECT_EQ(rt.memcpy(&steps, counter, 4), Error::Success);
  }
  EXPECT_EQ(steps, 3);
  EXPECT_EQ(rt.sticky(), Error::Success);
  EXPECT_EQ(rt.last_error(false), Error::Success);
  EXPECT_EQ(rt.stats().failed_launches, 0u);
  EXPECT_GE(rt.stats().errors, 3u); // the race, in every launch
}

// Kernels and copies of different streams that nothing orders are checked
// against each other (docs/checker.md "Streams").
TEST(Runtime, RacesAcrossStreams) {
  runtime::RunOptions o;
  o.check = "race";
  Runtime rt(o);
  int m = rt.add_ptx("streams.ptx", read("streams.ptx"));
  rt.register_function(m, &produce_fn, "produce");
  rt.register_function(m, &consume_fn, "consume");
  void *buf = nullptr, *out = nullptr;
  rt.malloc(&buf, 256 * 4);
  rt.malloc(&out, 256 * 4);
  std::vector<int> h(256, 5);
  auto &order = rt.streams();
  auto s1 = order.create(), s2 = order.create();
  int base = 1;
  void *pargs[] = {&buf, &base};
  void *cargs[] = {&buf, &out};
  // Kernel A in stream 1 writes buf, kernel B in stream 2 reads it.
  ASSERT_EQ(rt.launch(&produce_fn, dims(2, 128), pargs, s1), Error::Success);
  ASSERT_EQ(rt.launch(&consume_fn, dims(2, 128), cargs, s2), Error::Success);
  EXPECT_EQ(rt.stats().errors, 1u);
  order.host_sync_all();
  // The same ordered by an event: clean.
  ASSERT_EQ(rt.launch(&produce_fn, dims(2, 128), pargs, s1), Error::Success);
  order.wait(s2, order.record(s1));
  ASSERT_EQ(rt.launch(&consume_fn, dims(2, 128), cargs, s2), Error::Success);
  EXPECT_EQ(rt.stats().errors, 1u);
  order.host_sync_all();
  // A copy in stream 1 writes what kernel B in stream 2 reads.
  ASSERT_EQ(rt.memcpy(buf, h.data(), 256 * 4, s1, "cudaMemcpyAsync"),
            Error::Success);
  ASSERT_EQ(rt.launch(&consume_fn, dims(2, 128), cargs, s2), Error::Success);
  EXPECT_EQ(rt.stats().errors, 2u);
  // Kernel B (stream 2) wrote out; a copy of out in stream 1 reads it.
  std::vector<int> r(256);
  ASSERT_EQ(rt.memcpy(r.data(), out, 256 * 4, s1, "cudaMemcpyAsync"),
            Error::Success);
  EXPECT_EQ(rt.stats().errors, 3u);
  EXPECT_EQ(r[3], 10);
  // The legacy default stream orders the blocking streams.
  order.host_sync_all();
  ASSERT_EQ(rt.launch(&produce_fn, dims(2, 128), pargs, s1), Error::Success);
  ASSERT_EQ(rt.memset(out, 0, 256 * 4), Error::Success);
  ASSERT_EQ(rt.launch(&consume_fn, dims(2, 128), cargs, s2), Error::Success);
  EXPECT_EQ(rt.stats().errors, 3u);
  EXPECT_EQ(rt.stats().failed_launches, 0u);
}

// Streams, events and graphs are the runtime's objects: a captured launch
// replays when its graph launches, and an event recorded in one stream
// orders another stream's work after it.
TEST(Runtime, StreamsEventsAndGraphs) {
  runtime::RunOptions o;
  o.check = "race";
  Runtime rt(o);
  int m = rt.add_ptx("streams.ptx", read("streams.ptx"));
  rt.register_function(m, &produce_fn, "produce");
  rt.register_function(m, &consume_fn, "consume");
  void *buf = nullptr, *out = nullptr;
  rt.malloc(&buf, 256 * 4);
  rt.malloc(&out, 256 * 4);
  Runtime::Stream *s1 = rt.create_stream(0, true);
  Runtime::Stream *s2 = rt.create_stream(0, true);
  ASSERT_NE(s1->id, s2->id);
  // Capture "produce 7" into a graph: nothing runs until it launches.
  ASSERT_EQ(rt.begin_capture(s1), Error::Success);
  EXPECT_EQ(rt.begin_capture(s1), Error::InvalidValue); // already
  int base = 7;
  void *pargs[] = {&buf, &base};
  auto produce = [&](runtime::StreamOrder::Stream sid) {
    return rt.launch(&produce_fn, dims(2, 128), pargs, sid);
  };
  ASSERT_EQ(rt.submit(s1, s1->id, produce), Error::Success);
  Runtime::Graph *g = rt.end_capture(s1);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->work.size(), 1u);
  EXPECT_EQ(rt.stats().launches, 0u);
  Runtime::Graph *exec = rt.instantiate(*g);
  ASSERT_EQ(rt.destroy_graph(g), Error::Success);
  Runtime::Event *start = rt.create_event();
  Runtime::Event *done = rt.create_event();
  ASSERT_EQ(rt.record_event(start, s1, s1->id), Error::Success);
  ASSERT_EQ(rt.launch_graph(*exec, s1, s1->id), Error::Success);
  EXPECT_EQ(rt.stats().launches, 1u);
  ASSERT_EQ(rt.record_event(done, s1, s1->id), Error::Success);
  float ms = -1;
  EXPECT_EQ(rt.elapsed_ms(*start, *done, &ms), Error::Success);
  EXPECT_GE(ms, 0.0f);
  // Stream 2 waits for the event: its kernel reads what the graph wrote.
  rt.wait_event(s2, s2->id, *done);
  void *cargs[] = {&buf, &out};
  ASSERT_EQ(rt.launch(&consume_fn, dims(2, 128), cargs, s2->id),
            Error::Success);
  rt.sync_event(*done);
  std::vector<int> r(256);
  ASSERT_EQ(rt.memcpy(r.data(), out, 256 * 4), Error::Success);
  EXPECT_EQ(r[5], 2 * (7 + 5));
  EXPECT_EQ(rt.stats().errors, 0u);
  // Without the wait, the graph's second launch races with stream 2.
  ASSERT_EQ(rt.launch_graph(*exec, s1, s1->id), Error::Success);
  ASSERT_EQ(rt.launch(&consume_fn, dims(2, 128), cargs, s2->id),
            Error::Success);
  EXPECT_EQ(rt.stats().errors, 1u);
  EXPECT_EQ(rt.destroy_graph(exec), Error::Success);
  EXPECT_EQ(rt.destroy_graph(exec), Error::InvalidResourceHandle);
  EXPECT_EQ(rt.destroy_event(start), Error::Success);
  EXPECT_EQ(rt.destroy_stream(s2), Error::Success);
  EXPECT_EQ(rt.begin_capture(nullptr), Error::StreamCaptureUnsupported);
}

TEST(Runtime, SummaryCountsLaunches) {
  Runtime rt;
  EXPECT_NE(rt.summary().find("0 launches (0 failed)"), std::string::npos)
      << rt.summary();
}

// malloc/free in every thread of CTAs that run on four host threads: the
// heap's lock keeps the blocks apart, and every block is freed.
TEST(Runtime, DeviceHeapOnSeveralHostThreads) {
  runtime::RunOptions o;
  o.threads = 4;
  Runtime rt(o);
  int m = rt.add_ptx("heap.ptx", read("heap.ptx"));
  rt.register_function(m, &per_thread_fn, "_Z10per_threadPii");
  rt.register_function(m, &exhaust_fn, "_Z7exhaustPym");
  const int blocks = 16, threads = 64, n = 12;
  void *out = nullptr;
  ASSERT_EQ(rt.malloc(&out, blocks * threads * 4), Error::Success);
  int nn = n;
  void *args[] = {&out, &nn};
  ASSERT_EQ(rt.launch(&per_thread_fn, dims(blocks, threads), args),
            Error::Success);
  std::vector<int> h(blocks * threads);
  ASSERT_EQ(rt.memcpy(h.data(), out, h.size() * 4), Error::Success);
  for (int t = 0; t < blocks * threads; ++t)
    ASSERT_EQ(h[t], n * t + n * (n - 1) / 2) << t;
  EXPECT_TRUE(rt.device().heap_blocks().empty());
  EXPECT_EQ(rt.device().heap_size(), 8u << 20);
  // A 1 MiB heap: the second 600 KiB block does not fit (NULL).
  EXPECT_TRUE(rt.device().set_heap_size(1 << 20));
  void *flags = nullptr;
  ASSERT_EQ(rt.malloc(&flags, 32), Error::Success);
  uint64_t big = 600 << 10;
  void *eargs[] = {&flags, &big};
  ASSERT_EQ(rt.launch(&exhaust_fn, dims(1, 1), eargs), Error::Success);
  uint64_t f[4];
  ASSERT_EQ(rt.memcpy(f, flags, sizeof(f)), Error::Success);
  EXPECT_EQ(f[0], 1u);
  EXPECT_EQ(f[1], 0u);
  EXPECT_EQ(f[2], 1u);
  EXPECT_EQ(f[3], 0u); // 16-byte aligned
}

// A kernel that spins until clock64() has advanced ends; the runtime's
// simulated time (what events measure) covers the cycles it spun.
TEST(Runtime, ClockSpinEndsInSimulatedTime) {
  Runtime rt;
  int m = rt.add_ptx("clock.ptx", read("clock.ptx"));
  rt.register_function(m, &clock_spin_fn, "_Z4spinxPxPy");
  void *elapsed = nullptr, *timer = nullptr;
  ASSERT_EQ(rt.malloc(&elapsed, 16), Error::Success);
  ASSERT_EQ(rt.malloc(&timer, 16), Error::Success);
  long long cycles = 100000;
  void *args[] = {&cycles, &elapsed, &timer};
  const double t0 = rt.work_seconds();
  ASSERT_EQ(rt.launch(&clock_spin_fn, dims(1, 32), args), Error::Success);
  long long e[2];
  uint64_t t[2];
  ASSERT_EQ(rt.memcpy(e, elapsed, sizeof(e)), Error::Success);
  ASSERT_EQ(rt.memcpy(t, timer, sizeof(t)), Error::Success);
  EXPECT_GE(e[0], cycles);
  EXPECT_LT(e[0], cycles + 100);
  EXPECT_GE(t[1] - t[0], uint64_t(cycles / 1.98));
  EXPECT_GE(rt.work_seconds() - t0, cycles / 1.98e9);
}

// Concurrent streams (docs/exec.md "Concurrent streams"): a launch that
// spins on a flag only later work sets yields and stays pending; work
// behind it in its stream is queued; host synchronization and queries
// resume it.
char cc_consume_fn, cc_produce_fn;

TEST(Runtime, ASpinningLaunchYieldsToLaterWork) {
  for (const char *check : {"", "all"}) {
    runtime::RunOptions o;
    o.check = check;
    Runtime rt(o);
    // Every kernel loaded with its module (lazy loading: below).
    rt.loading = Runtime::Loading::Eager;
    int m = rt.add_ptx("concurrent.ptx", read("concurrent.ptx"));
    rt.register_function(m, &cc_consume_fn, "consume");
    rt.register_function(m, &cc_produce_fn, "produce");
    void *flag = nullptr, *data = nullptr, *out = nullptr;
    rt.malloc(&flag, 8);
    rt.malloc(&data, 64 * 4);
    rt.malloc(&out, 64 * 4);
    Runtime::Stream *s1 = rt.create_stream(0, true);
    Runtime::Stream *s2 = rt.create_stream(0, true);
    void *cargs[] = {&flag, &data, &out};
    ASSERT_EQ(rt.launch(&cc_consume_fn, dims(1, 64), cargs, s2->id),
              Error::Success);
    EXPECT_EQ(rt.pending_launches(), 1u) << check;
    // Work behind it in its stream waits in the queue.
    ASSERT_EQ(rt.submit(s2, s2->id,
                        [&](runtime::StreamOrder::Stream sid) {
                          return rt.memset(out, 0xff, 4, sid,
                                           "cudaMemsetAsync");
                        }),
              Error::Success);
    int marker = -1;
    ASSERT_EQ(rt.submit(s2, s2->id,
                        [&](runtime::StreamOrder::Stream) {
                          marker = rt.pending_launches() == 0 ? 1 : 0;
                          return Error::Success;
                        }),
              Error::Success);
    EXPECT_EQ(marker, -1);
    EXPECT_EQ(rt.query(rt.streams().record(s2->id)), false);
    // The producer in stream 1 sets the flag: the consumer completes, then
    // the queued work runs.
    int base = 5;
    void *pargs[] = {&flag, &data, &base};
    ASSERT_EQ(rt.launch(&cc_produce_fn, dims(1, 64), pargs, s1->id),
              Error::Success);
    EXPECT_EQ(rt.pending_launches(), 0u);
    EXPECT_EQ(rt.queued_work(), 0u);
    EXPECT_EQ(marker, 1);
    EXPECT_EQ(rt.query(rt.streams().record(s2->id)), true);
    rt.host_sync_all();
    std::vector<int> r(64);
    ASSERT_EQ(rt.memcpy(r.data(), out, 64 * 4), Error::Success);
    EXPECT_EQ(r[0], -1); // the memset came after the consumer
    EXPECT_EQ(r[7], 2 * (5 + 7));
    EXPECT_EQ(rt.stats().failed_launches, 0u);
    EXPECT_EQ(rt.stats().errors, 0u) << check;
  }
}

// A launch that the host waits for while it still spins is deadlocked, as
// on a GPU; so is one in a blocking stream that work of the legacy
// default stream must follow.
TEST(Runtime, WaitingForASpinningLaunchIsADeadlock) {
  Runtime rt;
  int m = rt.add_ptx("concurrent.ptx", read("concurrent.ptx"));
  rt.register_function(m, &cc_consume_fn, "consume");
  rt.register_function(m, &cc_produce_fn, "produce");
  void *flag = nullptr, *data = nullptr, *out = nullptr;
  rt.malloc(&flag, 8);
  rt.malloc(&data, 64 * 4);
  rt.malloc(&out, 64 * 4);
  Runtime::Stream *s = rt.create_stream(0, true);
  void *cargs[] = {&flag, &data, &out};
  ASSERT_EQ(rt.launch(&cc_consume_fn, dims(1, 64), cargs, s->id),
            Error::Success);
  EXPECT_EQ(rt.pending_launches(), 1u);
  int base = 1;
  void *pargs[] = {&flag, &data, &base};
  // The legacy default stream waits for the blocking stream: the producer
  // is queued behind the consumer, and the host's wait deadlocks it.
  EXPECT_EQ(rt.launch(&cc_produce_fn, dims(1, 64), pargs), Error::Success);
  EXPECT_EQ(rt.queued_work(), 1u);
  rt.host_sync_all();
  EXPECT_EQ(rt.pending_launches(), 0u);
  EXPECT_EQ(rt.queued_work(), 0u);
  EXPECT_EQ(rt.sticky(), Error::LaunchTimeout);
  EXPECT_EQ(rt.stats().failed_launches, 1u);
}

// Queries of work that never completes end after kQueryLimit of them
// without progress, so that a host loop on cudaStreamQuery terminates.
TEST(Runtime, QueriesOfStuckWorkEnd) {
  Runtime rt;
  int m = rt.add_ptx("concurrent.ptx", read("concurrent.ptx"));
  rt.register_function(m, &cc_consume_fn, "consume");
  void *flag = nullptr, *data = nullptr, *out = nullptr;
  rt.malloc(&flag, 8);
  rt.malloc(&data, 64 * 4);
  rt.malloc(&out, 64 * 4);
  Runtime::Stream *s = rt.create_stream(0, false);
  void *cargs[] = {&flag, &data, &out};
  ASSERT_EQ(rt.launch(&cc_consume_fn, dims(1, 64), cargs, s->id),
            Error::Success);
  uint32_t n = 0;
  while (!rt.query(rt.streams().record(s->id)))
    ++n;
  EXPECT_EQ(n, Runtime::kQueryLimit - 1);
  EXPECT_EQ(rt.sticky(), Error::LaunchTimeout);
}

// Lazy loading (docs/exec.md "Lazy loading"), as measured on an NVIDIA H200
// (driver 580.159.04, CUDA 13.0, 2026-11-28): a kernel first used while
// other work is in flight starts only after that work; a producer first
// launched while its consumer spins is queued behind it, and the host's
// wait is a deadlock. A use before the consumer's launch loads it at once;
// a use while the consumer spins does not.
namespace {
struct LazyRun {
  Runtime rt;
  void *flag = nullptr, *data = nullptr, *out = nullptr;
  int base = 5;
  Runtime::Stream *s1 = nullptr, *s2 = nullptr;
  int m = -1; // the image
  explicit LazyRun(Runtime::Loading loading) {
    rt.loading = loading;
    m = rt.add_ptx("concurrent.ptx", read("concurrent.ptx"));
    rt.register_function(m, &cc_consume_fn, "consume");
    rt.register_function(m, &cc_produce_fn, "produce");
    rt.malloc(&flag, 8);
    rt.malloc(&data, 64 * 4);
    rt.malloc(&out, 64 * 4);
    s1 = rt.create_stream(0, true);
    s2 = rt.create_stream(0, true);
  }
  Error consume() {
    void *args[] = {&flag, &data, &out};
    return rt.launch(&cc_consume_fn, dims(1, 64), args, s2->id);
  }
  Error produce() {
    void *args[] = {&flag, &data, &base};
    return rt.launch(&cc_produce_fn, dims(1, 64), args, s1->id);
  }
  bool consumed() {
    std::vector<int> r(64);
    return rt.memcpy(r.data(), out, 64 * 4) == Error::Success &&
           r[7] == 2 * (5 + 7);
  }
};
} // namespace

TEST(Runtime, LazyLoadingStartsAKernelAfterTheWorkInFlight) {
  LazyRun r(Runtime::Loading::Lazy);
  ASSERT_EQ(r.consume(), Error::Success);
  EXPECT_EQ(r.rt.pending_launches(), 1u);
  EXPECT_TRUE(r.rt.kernel_loaded(&cc_consume_fn)); // nothing was in flight
  // The producer's first use: queued behind the consumer, in another stream.
  EXPECT_FALSE(r.rt.kernel_loaded(&cc_produce_fn));
  ASSERT_EQ(r.produce(), Error::Success);
  EXPECT_EQ(r.rt.queued_work(), 1u);
  EXPECT_FALSE(r.rt.kernel_loaded(&cc_produce_fn));
  // A query of the producer's stream waits for the consumer too.
  EXPECT_FALSE(r.rt.query(r.rt.streams().record(r.s1->id)));
  r.rt.host_sync(r.s1->id);
  EXPECT_EQ(r.rt.pending_launches(), 0u);
  EXPECT_EQ(r.rt.queued_work(), 0u);
  EXPECT_EQ(r.rt.sticky(), Error::LaunchTimeout);
  EXPECT_EQ(r.rt.stats().failed_launches, 1u);
}

TEST(Runtime, LazyLoadingAfterAUseBeforeTheSpinner) {
  LazyRun r(Runtime::Loading::Lazy);
  Error err = Error::Success;
  ASSERT_TRUE(r.rt.function(&cc_produce_fn, err)); // cudaFuncGetAttributes
  EXPECT_TRUE(r.rt.kernel_loaded(&cc_produce_fn));
  ASSERT_EQ(r.consume(), Error::Success);
  ASSERT_EQ(r.produce(), Error::Success);
  EXPECT_EQ(r.rt.pending_launches(), 0u);
  EXPECT_EQ(r.rt.queued_work(), 0u);
  r.rt.host_sync_all();
  EXPECT_EQ(r.rt.sticky(), Error::Success);
  EXPECT_TRUE(r.consumed());
}

TEST(Runtime, LazyLoadingUseWhileTheSpinnerRuns) {
  // cudaGetFuncBySymbol, a query: it returns at once; the load waits.
  LazyRun r(Runtime::Loading::Lazy);
  ASSERT_EQ(r.consume(), Error::Success);
  EXPECT_TRUE(r.rt.use_kernel(&cc_produce_fn));
  EXPECT_FALSE(r.rt.kernel_loaded(&cc_produce_fn));
  ASSERT_EQ(r.produce(), Error::Success);
  EXPECT_EQ(r.rt.queued_work(), 1u);
  r.rt.host_sync_all();
  EXPECT_EQ(r.rt.sticky(), Error::LaunchTimeout);
  char unknown_fn = 0;
  EXPECT_FALSE(r.rt.use_kernel(&unknown_fn));
}

TEST(Runtime, LazyLoadingCompletesWithTheWorkInFlight) {
  // A kernel used while the consumer spins is loaded once the consumer
  // completes (released by a producer loaded before); after a reset the
  // kernels load again.
  LazyRun r(Runtime::Loading::Lazy);
  char player_fn = 0;
  r.rt.register_function(r.m, &player_fn, "player");
  Error err = Error::Success;
  ASSERT_TRUE(r.rt.function(&cc_produce_fn, err));
  ASSERT_EQ(r.consume(), Error::Success);
  ASSERT_TRUE(r.rt.function(&player_fn, err));
  EXPECT_FALSE(r.rt.kernel_loaded(&player_fn));
  ASSERT_EQ(r.produce(), Error::Success);
  EXPECT_EQ(r.rt.pending_launches(), 0u);
  EXPECT_TRUE(r.rt.kernel_loaded(&player_fn));
  EXPECT_TRUE(r.consumed());
  r.rt.reset();
  EXPECT_FALSE(r.rt.kernel_loaded(&cc_produce_fn));
  EXPECT_EQ(r.rt.sticky(), Error::Success);
}

TEST(Runtime, EagerLoadingLeavesStreamsConcurrent) {
  LazyRun r(Runtime::Loading::Eager);
  EXPECT_TRUE(r.rt.kernel_loaded(&cc_produce_fn));
  ASSERT_EQ(r.consume(), Error::Success);
  EXPECT_EQ(r.rt.pending_launches(), 1u);
  ASSERT_EQ(r.produce(), Error::Success);
  EXPECT_EQ(r.rt.pending_launches(), 0u);
  EXPECT_EQ(r.rt.queued_work(), 0u);
  r.rt.host_sync_all();
  EXPECT_EQ(r.rt.sticky(), Error::Success);
  EXPECT_TRUE(r.consumed());
}

TEST(Runtime, ModuleLoadingComesFromTheEnvironment) {
  const char *old = std::getenv("CUDA_MODULE_LOADING");
  const std::string saved = old ? old : "";
  for (auto [value, loading] :
       {std::pair{"EAGER", Runtime::Loading::Eager},
        std::pair{"LAZY", Runtime::Loading::Lazy},
        std::pair{"", Runtime::Loading::Lazy},
        std::pair{"eager", Runtime::Loading::Eager},
        std::pair{"Eager", Runtime::Loading::Eager},
        std::pair{"EAGERLY", Runtime::Loading::Lazy},
        std::pair{"SOMETIMES", Runtime::Loading::Lazy}}) {
    setenv("CUDA_MODULE_LOADING", value, 1);
    Runtime rt;
    EXPECT_EQ(rt.loading, loading) << value;
  }
  unsetenv("CUDA_MODULE_LOADING");
  EXPECT_EQ(Runtime().loading, Runtime::Loading::Lazy);
  if (old)
    setenv("CUDA_MODULE_LOADING", saved.c_str(), 1);
}
