// Replays results an NVIDIA H100 computed (driver 580.159.04, CUDA 13.0;
// ../shared/hardware/numerics/h100-default.txt.gz, rows extracted by
// tests/unit/engine/h100/extract.py into h100/numerics.tsv): each operation
// runs as one PTX instruction per thread over the recorded inputs, and its
// result must equal the hardware's bit for bit. The operations are those
// whose hardware behaviour docs/conformance.md "Measured on H100" records
// (NaN results, narrow cvt, remainder by zero, 64-bit bfe/bfi, testp, .ftz
// tininess, .oob) and the sm_90 forms the engine once refused.
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "test_util.h"

namespace bcusim::engine::test {
namespace {

struct OpRows {
  std::string name, kind;
  uint32_t dst = 32, rtbits = 32;
  std::vector<uint32_t> srcs;
  std::vector<std::vector<uint64_t>> rows; // result, then the sources
};

std::vector<OpRows> read_table() {
  std::ifstream f(std::string(BCUSIM_SOURCE_DIR) +
                  "/tests/unit/engine/h100/numerics.tsv");
  EXPECT_TRUE(f) << "h100/numerics.tsv missing";
  std::vector<OpRows> ops;
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream in(line);
    std::vector<std::string> cols;
    for (std::string c; std::getline(in, c, '\t');)
      cols.push_back(c);
    if (cols.empty() || (cols[0] != "#op" && cols[0][0] == '#'))
      continue;
    if (cols[0] == "#op") {
      OpRows o;
      o.name = cols[1];
      o.kind = cols[2];
      o.dst = uint32_t(std::stoul(cols[3]));
      std::istringstream s(cols[4]);
      for (std::string w; std::getline(s, w, ',');)
        o.srcs.push_back(uint32_t(std::stoul(w)));
      o.rtbits = uint32_t(std::stoul(cols[5]));
      ops.push_back(o);
      continue;
    }
    std::vector<uint64_t> row;
    for (auto &c : cols)
      row.push_back(std::stoull(c, nullptr, 16));
    ops.back().rows.push_back(row);
  }
  return ops;
}

// One thread per row: loads the sources (u64 each, 4 per row), narrows them
// to their register width, runs the operation, widens the result.
std::string kernel_of(const OpRows &o) {
  auto narrow = [](uint32_t w, const std::string &r, const std::string &x) {
    if (w == 64)
      return fmt::format("mov.b64 {}, {};", r, x);
    return fmt::format("cvt.u{}.u64 {}, {};", w, r, x);
  };
  std::string body = R"(
  .reg .b64 %in, %out, %off, %res, %x<4>;
  .reg .b32 %t, %c;
  .reg .pred %p;
  ld.param.u64 %in, [k_param_0];
  ld.param.u64 %out, [k_param_1];
  mov.u32 %t, %tid.x;
  mov.u32 %c, %ctaid.x;
  mad.lo.u32 %t, %c, 128, %t;
  mul.wide.u32 %off, %t, 32;
  add.s64 %in, %in, %off;
  mul.wide.u32 %off, %t, 8;
  add.s64 %out, %out, %off;
)";
  std::string args;
  for (size_t k = 0; k < o.srcs.size(); ++k) {
    body += fmt::format("  .reg .b{} %a{};\n", o.srcs[k], k);
    body += fmt::format("  ld.global.u64 %x{}, [%in+{}];\n", k, 8 * k);
    body += "  " +
            narrow(o.srcs[k], fmt::format("%a{}", k), fmt::format("%x{}", k)) +
            "\n";
    args += fmt::format(", %a{}", k);
  }
  body += fmt::format("  .reg .b{} %d;\n", o.dst);
  if (o.kind == "PR")
    body += fmt::format("  {} %p{};\n  selp.u32 %d, 1, 0, %p;\n", o.name, args);
  else
    body += fmt::format("  {} %d{};\n", o.name, args);
  body += o.dst == 64 ? "  mov.b64 %res, %d;\n"
                      : fmt::format("  cvt.u64.u{} %res, %d;\n", o.dst);
  body += "  st.global.u64 [%out], %res;\n  ret;";
  return ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry "
         "k(.param .u64 k_param_0, .param .u64 k_param_1)\n{\n" +
         body + "\n}\n";
}

TEST(H100Numerics, EveryRecordedResultBitForBit) {
  auto ops = read_table();
  ASSERT_GT(ops.size(), 100u);
  for (const auto &o : ops) {
    SCOPED_TRACE(o.name);
    const size_t n = o.rows.size(), blocks = (n + 127) / 128;
    std::vector<uint64_t> in(blocks * 128 * 4, 0);
    for (size_t i = 0; i < n; ++i)
      for (size_t k = 1; k < o.rows[i].size(); ++k)
        in[i * 4 + k - 1] = o.rows[i][k];
    auto m = load_text(kernel_of(o));
    ASSERT_TRUE(m);
    Device d;
    DevicePtr pin = upload(d, in);
    DevicePtr pout = d.alloc(blocks * 128 * 8);
    auto r = d.launch(*m, "k", config({uint32_t(blocks), 1, 1}, {128, 1, 1}),
                      {KernelArg::ptr(pin), KernelArg::ptr(pout)});
    ASSERT_TRUE(r.ok()) << r.diagnostics_text();
    auto out = download<uint64_t>(d, pout, n);
    const uint64_t mask =
        o.rtbits >= 64 ? ~0ull : ((uint64_t(1) << o.rtbits) - 1);
    int bad = 0;
    for (size_t i = 0; i < n; ++i) {
      if ((out[i] & mask) == o.rows[i][0])
        continue;
      if (++bad <= 3) {
        std::string ins;
        for (size_t k = 1; k < o.rows[i].size(); ++k)
          ins += fmt::format("{}{:#x}", k > 1 ? ", " : "", o.rows[i][k]);
        ADD_FAILURE() << o.name << " of " << ins << ": bcusim "
                      << fmt::format("{:#x}", out[i] & mask) << ", H100 "
                      << fmt::format("{:#x}", o.rows[i][0]);
      }
    }
    EXPECT_EQ(bad, 0) << o.name << ": " << bad << " of " << n << " differ";
  }
}

} // namespace
} // namespace bcusim::engine::test
