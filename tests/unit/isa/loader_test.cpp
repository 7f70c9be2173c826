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

namespace {

// Loads `text` (named d.isa) followed by the project's codes table and
// returns the rendered diagnostics ("" when it loads).
std::string load_errors(const std::string &text) {
  std::string error;
  auto codes = SourceFile::read(kCodes, error);
  EXPECT_TRUE(codes) << error;
  auto desc = SourceFile::from_string("d.isa", text);
  DiagnosticSink sink;
  auto m = load_sources({desc, codes}, sink);
  EXPECT_EQ(m == nullptr, sink.has_errors());
  return sink.render_all();
}

const char *kMinimal = R"(__DefBitFieldType Mode<1>
    A;
    B;

__DefGroup G : [ALL]
  __Encoding
    field<12, 3> Pred pg=PT;

__DefOptype OP : [G]
  __Encoding
    field<0, 8> Optype optype==BAR;
    field<80, 1> Mode mode;
  __Syntax
```asm
OP.mode Ra $sched ;
```

__DefOpcode OP_R : [OP]
  __Encoding
    field<8, 4> SType stype==R;
    field<24, 8> Reg ra;
  __OperandInfo
    InList<pg, ra>;
    OutList<>;
    Order<pg, ra>;
)";

std::string with(std::string base, const std::string &from,
                 const std::string &to) {
  size_t p = base.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  if (p != std::string::npos)
    base.replace(p, from.size(), to);
  return base;
}

} // namespace

TEST(IsaLoaderChecks, MinimalDescriptionLoads) {
  EXPECT_EQ(load_errors(kMinimal), "");
}

TEST(IsaLoaderChecks, OverlappingFields) {
  std::string e = load_errors(
      with(kMinimal, "field<24, 8> Reg ra;", "field<76, 8> Reg ra;"));
  EXPECT_EQ(e, "d.isa:21:5: error: field ra [83:76] overlaps field mode [80] "
               "in opcode OP_R\n"
               "    field<76, 8> Reg ra;\n"
               "    ^~~~~~~~~~~~~~~~~~~~\n"
               "d.isa:12:5: note: mode is defined here\n"
               "    field<80, 1> Mode mode;\n"
               "    ^~~~~~~~~~~~~~~~~~~~~~~\n")
      << e;
}

TEST(IsaLoaderChecks, ValuesThatDoNotFit) {
  EXPECT_NE(load_errors(with(kMinimal, "    B;\n", "    B;\n    C;\n"))
                .find("d.isa:4:5: error: enumerator C = 2 does not fit "
                      "Mode<1> (0..1)"),
            std::string::npos);
  EXPECT_NE(load_errors(with(kMinimal, "stype==R;", "stype==16;"))
                .find("d.isa:20:30: error: value 16 does not fit field stype "
                      "(4 bits)"),
            std::string::npos);
  EXPECT_NE(load_errors(
                with(kMinimal, "field<24, 8> Reg ra;", "field<24, 4> Reg ra;"))
                .find("error: field ra is 4 bits wide but its type Reg is 8 "
                      "bits"),
            std::string::npos);
  EXPECT_NE(load_errors(
                with(kMinimal, "field<24, 8> Reg ra;", "field<124, 8> Reg ra;"))
                .find("d.isa:21:5: error: field<124, 8> does not lie within "
                      "the 128-bit word"),
            std::string::npos);
}

TEST(IsaLoaderChecks, UnknownTypesEnumeratorsAndNames) {
  EXPECT_NE(load_errors(with(kMinimal, "Reg ra;", "Regs ra;"))
                .find("d.isa:21:18: error: unknown type 'Regs'"),
            std::string::npos);
  EXPECT_NE(load_errors(with(kMinimal, "optype==BAR;", "optype==BARX;"))
                .find("d.isa:11:32: error: unknown enumerator 'BARX' of type "
                      "Optype"),
            std::string::npos);
  EXPECT_NE(load_errors(with(kMinimal, "Order<pg, ra>;", "Order<pg, rb>;"))
                .find("d.isa:25:15: error: Order names 'rb', which is not a "
                      "field of opcode OP_R"),
            std::string::npos);
  EXPECT_NE(load_errors(with(kMinimal, "[OP]", "[OPX]"))
                .find("d.isa:18:21: error: unknown parent 'OPX'"),
            std::string::npos);
}

TEST(IsaLoaderChecks, IndistinguishableOpcodes) {
  std::string twin = std::string(kMinimal) + R"(
__DefOpcode OP_R2 : [OP]
  __Encoding
    field<8, 4> SType stype==R;
    field<32, 8> Reg rb;
  __OperandInfo
    Order<pg, rb>;
)";
  std::string e = load_errors(twin);
  EXPECT_NE(e.find("d.isa:27:13: error: opcodes OP_R and OP_R2 cannot be told "
                   "apart by their fixed bits"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("d.isa:18:13: note: OP_R is defined here"),
            std::string::npos);
  // A different fixed stype makes them distinguishable.
  EXPECT_EQ(load_errors(with(twin, "stype==R;\n    field<32",
                             "stype==I;\n    field<32")),
            "");
}

TEST(IsaLoaderChecks, SyntaxErrors) {
  EXPECT_NE(
      load_errors(with(kMinimal, "field<24, 8> Reg ra;", "field<24 8> Reg ra;"))
          .find("d.isa:21:14: error: expected ',', found '8'"),
      std::string::npos);
  EXPECT_NE(load_errors(with(kMinimal, "    B;\n", "    B\n"))
                .find("d.isa:3:6: error: expected ';'"),
            std::string::npos);
  EXPECT_NE(load_errors(with(kMinimal, "  __Syntax", "  __Syntaxx"))
                .find("d.isa:13:3: error: unknown directive '__Syntaxx'"),
            std::string::npos);
  EXPECT_NE(load_errors("garbage here\n")
                .find("d.isa:1:1: error: expected a definition"),
            std::string::npos);
  EXPECT_NE(
      load_errors(with(kMinimal, "OP.mode Ra $sched ;\n```", "OP.mode Ra"))
          .find("error: unterminated ``` code block"),
      std::string::npos);
  EXPECT_NE(load_errors(with(kMinimal, "__DefBitFieldType Mode<1>",
                             "__DefBitFieldType Mode<0>"))
                .find("d.isa:1:19: error: width of Mode must be 1..64 bits"),
            std::string::npos);
  EXPECT_NE(load_errors(with(kMinimal, "InList<pg, ra>;", "Inlist<pg, ra>;"))
                .find("d.isa:23:5: error: expected InList<...>"),
            std::string::npos);
}

TEST(IsaLoaderChecks, DuplicatesAndExtensionValues) {
  EXPECT_NE(
      load_errors(std::string(kMinimal) + "__DefBitFieldType Mode<1>\n    A;\n")
          .find("error: type 'Mode' is defined twice"),
      std::string::npos);
  EXPECT_NE(load_errors(with(kMinimal, "    B;\n", "    B;\n    A = 1;\n"))
                .find("d.isa:4:5: error: enumerator 'A' is declared twice in "
                      "Mode"),
            std::string::npos);
  EXPECT_NE(load_errors(
                with(kMinimal, "    A;\n    B;\n", "    A = 1;\n    B = 1;\n"))
                .find("d.isa:3:5: error: enumerators 'A' and 'B' of Mode have "
                      "the same value 1"),
            std::string::npos);
  // The extension: explicit values.
  EXPECT_EQ(load_errors(
                with(kMinimal, "    A;\n    B;\n", "    B = 1;\n    A = 0;\n")),
            "");
}

TEST(IsaLoaderChecks, SyntaxModifierSetsAreChecked) {
  std::string t = with(kMinimal, "OP.mode Ra $sched ;\n",
                       "OP.mode Ra $sched ;\n.mode = {.A, .C}\n");
  EXPECT_NE(load_errors(t).find("error: '.C' is not an enumerator of Mode"),
            std::string::npos);
}
