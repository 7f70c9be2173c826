// The description loader: the spec file as it is, the project's own file,
// their identity, and every load-time check with its location.
#include "bcusim/isa/model.h"

#include <filesystem>

#include <gtest/gtest.h>

using namespace bcusim;
using namespace bcusim::isa;

namespace {

const std::string kSeed =
    std::string(BCUSIM_SEEDS_DIR) + "/001_45e41287193c6116.txt";
const std::string kCodes =
    std::string(BCUSIM_SOURCE_DIR) + "/isa/bcu-codes.isa";
const std::string kOwn = std::string(BCUSIM_SOURCE_DIR) + "/isa/bcu.isa";

std::shared_ptr<const IsaModel> load_files(std::vector<std::string> files) {
  DiagnosticSink sink;
  auto m = load(files, sink);
  EXPECT_TRUE(m) << sink.render_all();
  return m;
}

std::string trim_copy(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t") + 1);
  return s;
}

} // namespace

TEST(IsaLoader, BuiltinModelHasEveryOpcodeOfTheSpec) {
  auto m = builtin();
  ASSERT_TRUE(m);
  std::vector<std::string> names;
  for (const auto &op : m->opcodes)
    names.push_back(op.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "BAR_I", "BAR_RR", "BAR_RRI", "BAR_RIR", "BAR_RED_I",
                       "BAR_RED_R", "BAR_RED_RRI", "BAR_RED_RIR", "B2R_I",
                       "B2R_RESULT_X", "R2B_RI"}));
  EXPECT_EQ(m->optypes, (std::vector<std::string>{"BAR", "BAR_RED", "B2R",
                                                  "B2R_RESULT", "R2B"}));
}

TEST(IsaLoader, LoadsTheSpecFileAsItIs) {
  if (!std::filesystem::exists(kSeed))
    GTEST_SKIP() << "spec seed not found at " << kSeed
                 << " (the ../shared/seeds folder is absent)";
  auto m = load_files({kSeed, kCodes});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->opcodes.size(), 11u);
  EXPECT_EQ(m->forms.size(), 7u);
}

TEST(IsaLoader, FlattensGroupOptypeOpcodeInDescriptionOrder) {
  auto m = builtin();
  const OpcodeModel *op = m->opcode("BAR_RED_RIR");
  ASSERT_TRUE(op);
  EXPECT_EQ(op->optype, "BAR_RED");
  EXPECT_EQ(op->group, "BCU");
  std::vector<std::string> fields;
  for (const auto &f : op->fields)
    fields.push_back(f.name);
  EXPECT_EQ(fields,
            (std::vector<std::string>{"pg", "pg.not", "optype", "redop", "pp",
                                      "pp.not", "stype", "rc", "barid"}));
  const FieldInfo *rc = op->field("rc");
  EXPECT_EQ(rc->lsb, 32u);
  EXPECT_EQ(rc->width, 8u);
  EXPECT_EQ(rc->type, "Reg");
  EXPECT_EQ(op->field("pg")->deflt, 7u);     // PT
  EXPECT_EQ(op->field("pg.not")->deflt, 0u); // False
  EXPECT_EQ(op->field("optype")->fixed, 0x02u);
  EXPECT_EQ(op->field("stype")->fixed, 0x4u); // RIR
  EXPECT_EQ(op->order, (std::vector<std::string>{"pg", "barid", "rc", "pp"}));
  EXPECT_EQ(op->in_list, (std::vector<std::string>{"pg", "rc", "pp"}));
  EXPECT_TRUE(op->out_list.empty());
  // The match/mask are exactly the two fixed fields.
  EXPECT_EQ(op->mask.lo, 0xFFFu);
  EXPECT_EQ(op->mask.hi, 0u);
  EXPECT_EQ(op->match.lo, 0x402u);
  // The source line of each field is kept.
  EXPECT_EQ(rc->defined_at.file->name(), "isa/bcu.isa");
  EXPECT_EQ(
      trim_copy(std::string(rc->defined_at.file->line(rc->defined_at.line))),
      "field<32,  8> Reg rc;");
}
