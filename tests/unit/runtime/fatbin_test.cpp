// Fat binary parsing: plain, zstd and LZ4 entries, the PTX choice, the
// error for programs without PTX; run options through the environment.
#include <cstring>
#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include "bcusim/runtime/fatbin.h"
#include "bcusim/runtime/options.h"
#include "fatbin_util.h"

using namespace bcusim::runtime;
using namespace bcusim::runtime::testing;

namespace {

const std::string kPtx = ".version 9.0\n.target sm_90\n.address_size 64\n"
                         "// a comment long enough to compress well, well\n";

} // namespace

TEST(Fatbin, PlainZstdAndLz4EntriesDecompress) {
  for (uint64_t flags : {0x0ull, 0x8000ull, 0x2000ull}) {
    auto fb = make_fatbin({{2, 90, 0,
                            "\x7f"
                            "ELF..."},
                           {1, 90, flags, kPtx}});
    std::string err;
    auto entries = parse_fatbin(fb.data(), fb.size(), err);
    ASSERT_TRUE(entries) << err;
    ASSERT_EQ(entries->size(), 2u);
    EXPECT_EQ((*entries)[1].payload, kPtx) << "flags " << flags;
    auto ptx = select_ptx(*entries, 90, err);
    ASSERT_TRUE(ptx);
    EXPECT_EQ(*ptx, kPtx);
  }
}

TEST(Fatbin, PicksTheHighestPtxNotAboveTheDevice) {
  auto fb = make_fatbin({{1, 80, 0, "eighty"},
                         {1, 90, 0x8000, "ninety"},
                         {1, 100, 0, "hundred"}});
  std::string err;
  auto entries = parse_fatbin(fb.data(), fb.size(), err);
  ASSERT_TRUE(entries);
  EXPECT_EQ(*select_ptx(*entries, 90, err), "ninety");
  auto only_new = make_fatbin({{1, 120, 0, "a"}, {1, 100, 0, "b"}});
  entries = parse_fatbin(only_new.data(), only_new.size(), err);
  EXPECT_EQ(*select_ptx(*entries, 90, err), "b");
}

TEST(Fatbin, NoPtxNamesTheNvccFlag) {
  auto fb = make_fatbin({{2, 90, 0,
                          "\x7f"
                          "ELF"}});
  std::string err;
  auto entries = parse_fatbin(fb.data(), fb.size(), err);
  ASSERT_TRUE(entries);
  EXPECT_FALSE(select_ptx(*entries, 90, err));
  EXPECT_NE(err.find("-gencode arch=compute_90,code=compute_90"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("sm_90"), std::string::npos);
}

TEST(Fatbin, MalformedInputIsAnError) {
  auto fb = make_fatbin({{1, 90, 0x8000, kPtx}});
  std::string err;
  EXPECT_FALSE(parse_fatbin(fb.data(), 8, err));
  fb[0] ^= 1;
  EXPECT_FALSE(parse_fatbin(fb.data(), fb.size(), err));
  EXPECT_NE(err.find("magic"), std::string::npos);
  fb[0] ^= 1;
  EXPECT_FALSE(parse_fatbin(fb.data(), fb.size() - 20, err));
  // A corrupt compressed payload.
  fb[16 + 80 + 6] ^= 0xff;
  fb[16 + 80 + 7] ^= 0xff;
  auto r = parse_fatbin(fb.data(), fb.size(), err);
  EXPECT_TRUE(!r || (*r)[0].payload != kPtx);
}

TEST(Fatbin, WrapperLeadsToTheFatbin) {
  auto fb = make_fatbin({{1, 90, 0, kPtx}});
  struct {
    uint32_t magic, version;
    const void *data;
    void *unused;
  } w{kFatbinWrapperMagic, 1, fb.data(), nullptr};
  std::string err;
  EXPECT_EQ(fatbin_of_wrapper(&w, err), fb.data());
  w.magic = 0;
  EXPECT_EQ(fatbin_of_wrapper(&w, err), nullptr);
}

TEST(Fatbin, RelocatableDeviceCodeListsItsPrelinkedFatbins) {
  auto linked = make_fatbin({{2, 90, 0,
                              "\x7f"
                              "ELF"}});
  auto tu1 = make_fatbin({{1, 90, 0x8000, "one"}});
  auto tu2 = make_fatbin({{1, 90, 0, "two"}});
  const void *list[] = {tu1.data(), tu2.data(), nullptr};
  struct {
    uint32_t magic, version;
    const void *data;
    const void *fatbins;
  } w{kFatbinWrapperMagic, 2, linked.data(), list};
  std::string err;
  auto all = fatbins_of_wrapper(&w, err);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0], tu1.data());
  EXPECT_EQ(all[1], tu2.data());
  w.version = 1; // version 1: the second field is a file name
  all = fatbins_of_wrapper(&w, err);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0], linked.data());
}

TEST(Options, RoundTripThroughTheEnvironment) {
  RunOptions o;
  o.check = "race,sync";
  o.schedule = "random:7";
  o.threads = 4;
  o.time_limit = 2.5;
  o.max_steps = 1000;
  o.report = "out file.json";
  o.warn_only = true;
  o.error_exitcode = 7;
  std::string err;
  auto back = from_env(to_env(o), err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(back->check, o.check);
  EXPECT_EQ(back->schedule, o.schedule);
  EXPECT_EQ(back->threads, 4u);
  EXPECT_EQ(back->time_limit, 2.5);
  EXPECT_EQ(back->max_steps, 1000u);
  EXPECT_EQ(back->report, o.report);
  EXPECT_TRUE(back->warn_only);
  EXPECT_FALSE(back->verbose);
  EXPECT_EQ(back->error_exitcode, 7);
  EXPECT_FALSE(from_env("--threads\nmany\n", err));
  EXPECT_FALSE(from_env("--no-such-option\n", err));
}
