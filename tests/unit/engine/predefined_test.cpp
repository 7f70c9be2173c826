// Predefined identifiers and special registers the front end added (WARP_SZ,
// the reserved shared-memory registers, shared-memory sizes, %pmN_64), and
// indirect calls: values and faults as docs/engine.md decides them.
#include "test_util.h"

namespace bcusim::engine::test {
namespace {

// Thread 0 stores the u32 values of `regs` (each `mov.u32 %v, REG`) to out.
// `uses` is PTX run first (naming the shared variables the kernel reaches).
std::vector<uint32_t> read_u32(const std::vector<std::string> &regs,
                               uint32_t dyn_shared = 0,
                               const std::string &globals = "",
                               const std::string &uses = "") {
  std::string body = ".reg .b32 %v;\n.reg .b64 %out;\n"
                     "ld.param.u64 %out, [k_param_0];\n" +
                     uses;
  for (size_t i = 0; i < regs.size(); ++i)
    body += "mov.u32 %v, " + regs[i] + ";\nst.global.u32 [%out+" +
            std::to_string(4 * i) + "], %v;\n";
  body += "ret;";
  auto m = load_text(ptx_module(".param .u64 k_param_0", body, globals));
  if (!m)
    return {};
  Device d;
  DevicePtr p = d.alloc(4 * regs.size());
  LaunchConfig c = config({1, 1, 1}, {1, 1, 1});
  c.shared_bytes = dyn_shared;
  auto r = d.launch(*m, "k", c, {KernelArg::ptr(p)});
  EXPECT_TRUE(r.ok()) << r.diagnostics_text();
  return download<uint32_t>(d, p, regs.size());
}

TEST(Predefined, WarpSizeIs32) {
  EXPECT_EQ(read_u32({"WARP_SZ"}), (std::vector<uint32_t>{32}));
}

// The first 1 KiB of every CTA's shared memory is reserved (as measured on
// an NVIDIA H200, driver 580.159.04, CUDA 13.0, 2026-11-28): the region is
// [0, 1024), static variables start at 1024 (s at 1024, 100 bytes), the
// dynamic memory follows 16-byte aligned (1136, 40 bytes). %total_smem_size
// counts static + dynamic bytes (112 + 40) in 128-byte units, without the
// region; %aggr_smem_size adds the region.
TEST(Predefined, ReservedSharedMemoryIsTheFirstKilobyte) {
  auto v = read_u32({"%reserved_smem_offset_begin", "%reserved_smem_offset_end",
                     "%reserved_smem_offset_cap", "%reserved_smem_offset_0",
                     "%reserved_smem_offset_1", "%dynamic_smem_size",
                     "%total_smem_size", "%aggr_smem_size", "s", "dyn"},
                    40,
                    ".shared .align 4 .b8 s[100];\n"
                    ".extern .shared .align 16 .b8 dyn[];\n",
                    "mov.u32 %v, s;\nmov.u32 %v, dyn;\n");
  EXPECT_EQ(v, (std::vector<uint32_t>{0, 1024, 1024, 0, 512, 40, 256, 1280,
                                      1024, 1136}));
}

// 48 static and 100 dynamic bytes: %total_smem_size 256 (the H200's
// numbers, measured as above).
TEST(Predefined, TotalSharedMemoryIsCountedInAllocationUnits) {
  auto v = read_u32({"%total_smem_size", "%aggr_smem_size"}, 100,
                    ".shared .align 4 .b8 s[48];\n", "mov.u32 %v, s;\n");
  EXPECT_EQ(v, (std::vector<uint32_t>{256, 1280}));
  v = read_u32({"%total_smem_size", "%aggr_smem_size"}, 0,
               ".shared .align 4 .b8 s[100];\n", "mov.u32 %v, s;\n");
  EXPECT_EQ(v, (std::vector<uint32_t>{128, 1152}));
}

// The reserved 1 KiB is ordinary memory (as on an NVIDIA H200, driver
// 580.159.04, CUDA 13.0, 2026-11-28): a store 16 bytes below the first
// variable (address 1008) and one to address 0 read back, without a fault.
TEST(Predefined, TheReservedRegionIsReadableAndWritable) {
  auto v = read_u32({"%w", "%x"}, 0, ".shared .align 4 .b8 s[16];\n",
                    ".reg .b32 %w, %x;\n"
                    "mov.u32 %w, s;\n"
                    "sub.u32 %w, %w, 16;\n"
                    "st.shared.u32 [%w], 5;\n"
                    "ld.shared.u32 %w, [%w];\n"
                    "mov.u32 %x, 0;\n"
                    "st.shared.u32 [%x], 77;\n"
                    "ld.shared.u32 %x, [%x];\n");
  EXPECT_EQ(v, (std::vector<uint32_t>{5, 77}));
}

// A kernel's shared memory is what it reaches (docs/engine.md "Shared
// memory"): a module variable it never names takes none of it, and the
// dynamic region starts right after the reserved 1 KiB.
TEST(Predefined, SharedVariablesTheKernelDoesNotNameTakeNoSpace) {
  auto v = read_u32({"%total_smem_size", "%dynamic_smem_size", "dyn"}, 40,
                    ".shared .align 4 .b8 s[100];\n"
                    ".extern .shared .align 16 .b8 dyn[];\n");
  EXPECT_EQ(v, (std::vector<uint32_t>{128, 40, 1024}));
}

// Several kernels in one module (docs/engine.md "Shared memory"): each
// stores the addresses of the variables it names, its %total_smem_size and
// where its dynamic region starts. `a` and `b` call `f`, whose array is
// placed first; the own arrays of `a` and `c` both follow at 16; `b` and `d`
// share the extern array with `a`, so it starts after a's static end (at
// 128) for all three, while `c`, which names no extern array, would start
// its dynamic memory at its own end.
TEST(Predefined, SharedVariablesAreLaidOutPerKernel) {
  const std::string text = R"(.version 8.0
.target sm_80
.address_size 64
.shared .align 4 .b8 own_a[100];
.shared .align 4 .b8 own_c[48];
.extern .shared .align 16 .b8 dyn[];
.func (.param .b32 r) f()
{
  .shared .align 4 .b8 ring[16];
  .reg .b32 %v;
  mov.u32 %v, ring;
  st.param.b32 [r], %v;
  ret;
}
.visible .entry a(.param .u64 out)
{
  .reg .b32 %v;
  .reg .b64 %o;
  ld.param.u64 %o, [out];
  {
  .param .b32 rv;
  call (rv), f, ();
  ld.param.b32 %v, [rv];
  }
  st.global.u32 [%o], %v;
  mov.u32 %v, own_a;
  st.global.u32 [%o+4], %v;
  mov.u32 %v, dyn;
  st.global.u32 [%o+8], %v;
  mov.u32 %v, %total_smem_size;
  st.global.u32 [%o+12], %v;
  ret;
}
.visible .entry b(.param .u64 out)
{
  .reg .b32 %v;
  .reg .b64 %o;
  ld.param.u64 %o, [out];
  {
  .param .b32 rv;
  call (rv), f, ();
  ld.param.b32 %v, [rv];
  }
  st.global.u32 [%o], %v;
  mov.u32 %v, dyn;
  st.global.u32 [%o+8], %v;
  mov.u32 %v, %total_smem_size;
  st.global.u32 [%o+12], %v;
  ret;
}
.visible .entry c(.param .u64 out)
{
  .reg .b32 %v;
  .reg .b64 %o;
  ld.param.u64 %o, [out];
  mov.u32 %v, own_c;
  st.global.u32 [%o+4], %v;
  mov.u32 %v, %total_smem_size;
  st.global.u32 [%o+12], %v;
  ret;
}
.visible .entry d(.param .u64 out)
{
  .reg .b32 %v;
  .reg .b64 %o;
  ld.param.u64 %o, [out];
  mov.u32 %v, dyn;
  st.global.u32 [%o+8], %v;
  mov.u32 %v, %total_smem_size;
  st.global.u32 [%o+12], %v;
  ret;
}
)";
  auto m = load_text(text);
  ASSERT_TRUE(m);
  auto run = [&](const char *k, uint32_t dyn) {
    Device d;
    DevicePtr p = d.alloc(16);
    d.write(p, std::vector<uint32_t>(4, 7).data(), 16);
    LaunchConfig c = config({1, 1, 1}, {1, 1, 1});
    c.shared_bytes = dyn;
    auto r = d.launch(*m, k, c, {KernelArg::ptr(p)});
    EXPECT_TRUE(r.ok()) << r.diagnostics_text();
    return download<uint32_t>(d, p, 4);
  };
  // After the reserved 1 KiB: ring at 1024, own_a at 1040 (ends at 1140),
  // dyn at 1152; %total_smem_size in 128-byte units (136 -> 256).
  EXPECT_EQ(run("a", 8), (std::vector<uint32_t>{1024, 1040, 1152, 256}));
  EXPECT_EQ(run("a", 0), (std::vector<uint32_t>{1024, 1040, 1152, 128}));
  EXPECT_EQ(run("b", 8), (std::vector<uint32_t>{1024, 7, 1152, 256}));
  EXPECT_EQ(run("c", 0), (std::vector<uint32_t>{7, 1024, 7, 128}));
  EXPECT_EQ(run("c", 8), (std::vector<uint32_t>{7, 1024, 7, 128}));
  EXPECT_EQ(run("d", 8), (std::vector<uint32_t>{7, 7, 1152, 256}));
  EXPECT_EQ(m->kernel_info("a")->static_shared, 116u);
  EXPECT_EQ(m->kernel_info("b")->static_shared, 16u);
  EXPECT_EQ(m->kernel_info("c")->static_shared, 48u);
  EXPECT_EQ(m->kernel_info("d")->static_shared, 0u);
}

TEST(Predefined, PerformanceCountersReadZero) {
  EXPECT_EQ(read_u32({"%pm0", "%pm7"}), (std::vector<uint32_t>{0, 0}));
  auto m = load_text(ptx_module(".param .u64 k_param_0", R"(
  .reg .b64 %v, %out;
  ld.param.u64 %out, [k_param_0];
  mov.u64 %v, %pm3_64;
  st.global.u64 [%out], %v;
  ret;)"));
  ASSERT_TRUE(m);
  Device d;
  DevicePtr p = d.alloc(8);
  d.write(p, std::vector<uint64_t>{7}.data(), 8);
  auto r = d.launch(*m, "k", config({1, 1, 1}, {1, 1, 1}), {KernelArg::ptr(p)});
  EXPECT_TRUE(r.ok()) << r.diagnostics_text();
  EXPECT_EQ(download<uint64_t>(d, p, 1)[0], 0u);
}

// A module whose kernel calls through the function pointer in %rd2.
std::string indirect_module(const std::string &target) {
  return R"(.version 8.0
.target sm_80
.address_size 64
.func (.param .b32 r) twice(.param .b32 a)
{
  .reg .b32 %x;
  ld.param.b32 %x, [a];
  add.s32 %x, %x, %x;
  st.param.b32 [r], %x;
  ret;
}
.func (.param .b32 r) pair(.param .b32 a, .param .b32 b)
{
  st.param.b32 [r], 0;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %v;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  )" + target +
         R"(
  {
  .param .b32 p;
  .param .b32 q;
  st.param.b32 [p], 21;
  proto : .callprototype (.param .b32 _) _ (.param .b32 _);
  call (q), %rd2, (p), proto;
  ld.param.b32 %v, [q];
  }
  st.global.u32 [%rd1], %v;
  ret;
}
)";
}

TEST(IndirectCall, CallsTheFunctionWhoseAddressTheRegisterHolds) {
  auto m = load_text(indirect_module("mov.u64 %rd2, twice;"));
  ASSERT_TRUE(m);
  Device d;
  DevicePtr p = d.alloc(4);
  auto r = d.launch(*m, "k", config({1, 1, 1}, {1, 1, 1}), {KernelArg::ptr(p)});
  EXPECT_TRUE(r.ok()) << r.diagnostics_text();
  EXPECT_EQ(download<uint32_t>(d, p, 1)[0], 42u);
}

TEST(IndirectCall, ThroughANonFunctionAddressFaults) {
  auto m = load_text(indirect_module("mov.u64 %rd2, 0;"));
  ASSERT_TRUE(m);
  Device d;
  DevicePtr p = d.alloc(4);
  auto r = d.launch(*m, "k", config({1, 1, 1}, {1, 1, 1}), {KernelArg::ptr(p)});
  EXPECT_FALSE(r.ok());
  std::string t = r.diagnostics_text();
  EXPECT_NE(t.find("test.ptx:28:3: error: indirect call to 0x0, which is not "
                   "the address of a function"),
            std::string::npos)
      << t;
}

TEST(IndirectCall, PrototypeMustMatchTheCallee) {
  auto m = load_text(indirect_module("mov.u64 %rd2, pair;"));
  ASSERT_TRUE(m);
  Device d;
  DevicePtr p = d.alloc(4);
  auto r = d.launch(*m, "k", config({1, 1, 1}, {1, 1, 1}), {KernelArg::ptr(p)});
  EXPECT_FALSE(r.ok());
  std::string t = r.diagnostics_text();
  EXPECT_NE(t.find("indirect call with 1 argument(s) and 1 result(s) to "
                   "function 'pair', which takes 2 and 1"),
            std::string::npos)
      << t;
}

} // namespace
} // namespace bcusim::engine::test
