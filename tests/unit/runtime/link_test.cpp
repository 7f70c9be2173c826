// Linking the PTX of relocatable device code: the committed PTX of
// tests/exec/link_a.cu and link_b.cu (nvcc -rdc=true -ptx), linked and run
// through the runtime's C++ API, and the linker's rules on small modules.
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <vector>

#include "bcusim/runtime/link.h"
#include "bcusim/runtime/runtime.h"

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

const std::string kHead = ".version 9.0\n.target sm_90\n.address_size 64\n";

char combine_fn, calls_var, bias_var;

} // namespace

TEST(Link, KernelCallsAFunctionAndReadsVariablesOfAnotherUnit) {
  std::vector<std::string> units = {read("link_a.ptx"), read("link_b.ptx")};
  ASSERT_TRUE(runtime::ptx_modules_need_link(units));
  std::string err;
  auto linked = runtime::link_ptx(units, err);
  ASSERT_TRUE(linked) << err;
  // Both units' printf strings were named $str: one is renamed.
  EXPECT_NE(linked->find("$str$l1"), std::string::npos);
  EXPECT_EQ(linked->find(".version", 1), std::string::npos);

  Runtime rt;
  int m = rt.add_ptx("link.ptx", *linked);
  rt.register_function(m, &combine_fn, "_Z7combinePii");
  rt.register_var(m, &calls_var, "calls_a", 4, false);
  rt.register_var(m, &bias_var, "bias_b", 4, false);
  const int n = 400;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = i;
  void *d = nullptr;
  ASSERT_EQ(rt.malloc(&d, n * 4), Error::Success);
  ASSERT_EQ(rt.memcpy(d, h.data(), n * 4), Error::Success);
  int count = n;
  void *args[] = {&d, &count};
  Runtime::LaunchParams p;
  p.grid = {4};
  p.block = {128};
  ASSERT_EQ(rt.launch(&combine_fn, p, args), Error::Success);
  ASSERT_EQ(rt.memcpy(h.data(), d, n * 4), Error::Success);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(h[i], std::min(3 * (i + 1), 1000) + 7) << i;
  int calls = 0, bias = 0;
  ASSERT_EQ(rt.copy_from_symbol(&calls, &calls_var, 4, 0), Error::Success);
  ASSERT_EQ(rt.copy_from_symbol(&bias, &bias_var, 4, 0), Error::Success);
  EXPECT_EQ(calls, n);
  EXPECT_EQ(bias, 7);
}

TEST(Link, UnitsWithoutSharedSymbolsNeedNoLink) {
  EXPECT_FALSE(runtime::ptx_modules_need_link(
      {kHead + ".global .u32 $str;\n", kHead + ".global .u32 $str;\n"}));
  EXPECT_FALSE(runtime::ptx_modules_need_link({read("link_a.ptx")}));
}

TEST(Link, FirstWeakDefinitionIsKeptAndNonWeakWins) {
  const std::string weak_f = ".weak .func (.param .b32 r) f()\n{\n"
                             "st.param.b32 [r], 1;\nret;\n}\n";
  const std::string strong_f = ".visible .func (.param .b32 r) f()\n{\n"
                               "st.param.b32 [r], 2;\nret;\n}\n";
  std::string err;
  auto l = runtime::link_ptx({kHead + weak_f, kHead + strong_f}, err);
  ASSERT_TRUE(l) << err;
  EXPECT_NE(l->find(".extern .func (.param .b32 r) f();"), std::string::npos)
      << *l;
  EXPECT_EQ(l->find("[r], 1;"), std::string::npos);
  EXPECT_NE(l->find("[r], 2;"), std::string::npos);
  l = runtime::link_ptx({kHead + weak_f, kHead + weak_f}, err);
  ASSERT_TRUE(l) << err;
  EXPECT_EQ(l->find("[r], 1;"), l->rfind("[r], 1;"));
  EXPECT_FALSE(runtime::link_ptx({kHead + strong_f, kHead + strong_f}, err));
  EXPECT_NE(err.find("'f' is defined in two"), std::string::npos) << err;
}

TEST(Link, FileNumbersOfLaterUnitsMoveUp) {
  std::string err;
  auto l = runtime::link_ptx(
      {kHead + ".file 1 \"a.cu\"\n.file 2 \"x.h\"\n",
       kHead +
           ".file 1 \"b.cu\"\n.visible .func g()\n{\n.loc 1 4 2\nret;\n}\n"},
      err);
  ASSERT_TRUE(l) << err;
  EXPECT_NE(l->find(".file 3 \"b.cu\""), std::string::npos) << *l;
  EXPECT_NE(l->find(".loc 3 4 2"), std::string::npos) << *l;
  EXPECT_NE(l->find(".file 1 \"a.cu\""), std::string::npos) << *l;
}
