// Exhaustive round trip generated from the description itself: every opcode
// x every enumerator of its modifier and predicate fields x boundary
// immediates and registers. For every word: decode(encode(v)) == v; for every
// legal one: assemble(print(decode(w))) == w and print is a fixed point; an
// illegal one (rules of 001's prose) is rejected by the assembler.
// Also: the spec file and the project's file give identical models, and every
// example of both descriptions assembles (SPEC-NOTES 5's one exception).
#include "bcusim/isa/model.h"
#include "bcusim/isa/tools.h"

#include <filesystem>
#include <functional>
#include <set>

#include <gtest/gtest.h>

using namespace bcusim;
using namespace bcusim::isa;

namespace {

const std::string kSeed =
    std::string(BCUSIM_SEEDS_DIR) + "/001_45e41287193c6116.txt";
const std::string kCodes =
    std::string(BCUSIM_SOURCE_DIR) + "/isa/bcu-codes.isa";
const std::string kOwn = std::string(BCUSIM_SOURCE_DIR) + "/isa/bcu.isa";

bool have_seed() { return std::filesystem::exists(kSeed); }

std::shared_ptr<const IsaModel> load_or_fail(std::vector<std::string> files) {
  DiagnosticSink sink;
  auto m = load(files, sink);
  EXPECT_TRUE(m) << sink.render_all();
  return m;
}

// Values to try for a field: every enumerator of small enumerated types,
// boundaries for large ones and for immediates.
std::vector<uint64_t> values_for(const IsaModel &model, const FieldInfo &f) {
  if (f.fixed)
    return {*f.fixed};
  const BitFieldType *t = model.type(f.type);
  std::set<uint64_t> out;
  if (t->enumerated() && t->enumerators.size() <= 16) {
    for (const auto &e : t->enumerators)
      out.insert(e.value);
  } else if (t->enumerated()) {
    size_t n = t->enumerators.size();
    for (size_t i : {size_t{0}, size_t{1}, n / 2, n - 2, n - 1})
      out.insert(t->enumerators[i].value);
  } else {
    uint64_t max = t->max_value();
    for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{31}, uint64_t{32},
                       uint64_t{64}, max / 2, max - 31, max - 1, max})
      if (v <= max)
        out.insert(v);
    if (max >= 32)
      out.insert(max & ~uint64_t{31}); // largest multiple of 32
  }
  return {out.begin(), out.end()};
}

// Calls `fn` with every combination of values_for() over the opcode's fields.
void for_each_word(const IsaModel &model, const OpcodeModel &op,
                   const std::function<void(const Word128 &)> &fn) {
  std::vector<std::vector<uint64_t>> sets;
  for (const auto &f : op.fields)
    sets.push_back(values_for(model, f));
  std::vector<size_t> idx(sets.size(), 0);
  for (;;) {
    Word128 w;
    for (size_t i = 0; i < sets.size(); ++i)
      w.set_bits(op.fields[i].lsb, op.fields[i].width, sets[i][idx[i]]);
    fn(w);
    size_t k = 0;
    while (k < sets.size() && ++idx[k] == sets[k].size())
      idx[k++] = 0;
    if (k == sets.size())
      break;
  }
}

struct Counts {
  size_t legal = 0, illegal = 0;
};

Counts round_trip(const IsaModel &model, const OpcodeModel &op) {
  Counts c;
  auto src = SourceFile::from_string("gen.s", "");
  for_each_word(model, op, [&](const Word128 &w) {
    std::string why;
    auto d = decode(model, w, &why);
    ASSERT_TRUE(d) << op.name << " " << w.to_hex() << ": " << why;
    ASSERT_EQ(d->opcode, op.name);
    // encode(decode(w)) == w
    std::vector<std::pair<std::string, uint64_t>> values;
    for (const auto &[f, v] : d->fields) {
      values.push_back({f.name, v});
      EXPECT_EQ(v, w.bits(f.lsb, f.width));
    }
    ASSERT_EQ(encode(op, values), w);
    std::string text = print(model, *d);
    DiagnosticSink sink;
    auto a = assemble_one(model, text, {src.get(), 1, 1, 1}, sink);
    if (check_operand_rules(model, *d)) {
      ++c.illegal;
      EXPECT_FALSE(a) << text << " should be rejected";
      return;
    }
    ++c.legal;
    ASSERT_TRUE(a) << text << "\n" << sink.render_all();
    ASSERT_EQ(a->word, w) << text;
    ASSERT_EQ(a->opcode, op.name) << text;
    ASSERT_EQ(print(model, *a), text);
  });
  return c;
}

} // namespace

TEST(IsaRoundTrip, EveryOpcodeEnumeratorAndBoundaryOfTheBuiltinModel) {
  auto model = builtin();
  size_t legal = 0, illegal = 0;
  for (const auto &op : model->opcodes) {
    Counts c = round_trip(*model, op);
    EXPECT_GT(c.legal, 0u) << op.name;
    legal += c.legal;
    illegal += c.illegal;
  }
  // Every opcode contributes; the illegal ones are the count rules.
  EXPECT_GT(legal, 10000u);
  EXPECT_GT(illegal, 0u);
}

TEST(IsaRoundTrip, EveryRegisterAndPredicateInEveryOperandPosition) {
  auto model = builtin();
  auto src = SourceFile::from_string("gen.s", "");
  for (const auto &op : model->opcodes)
    for (const auto &f : op.fields) {
      const BitFieldType *t = model->type(f.type);
      if (f.fixed || !t->enumerated())
        continue;
      for (const auto &e : t->enumerators) {
        // Other fields: defaults, and a legal count (0x20).
        std::vector<std::pair<std::string, uint64_t>> values{{"cnt", 0x20},
                                                             {f.name, e.value}};
        Word128 w = encode(op, values);
        auto d = decode(*model, w);
        ASSERT_TRUE(d) << op.name << " " << f.name << "=" << e.name;
        EXPECT_EQ(d->enumerator(f.name), e.name);
        std::string text = print(*model, *d);
        DiagnosticSink sink;
        auto a = assemble_one(*model, text, {src.get(), 1, 1, 1}, sink);
        ASSERT_TRUE(a) << text << "\n" << sink.render_all();
        EXPECT_EQ(a->word, w) << text;
      }
    }
}

TEST(IsaRoundTrip, DecodeRejectsWordsOutsideTheDescription) {
  auto model = builtin();
  std::string why;
  EXPECT_FALSE(decode(*model, Word128{}, &why)); // optype 0 is no opcode
  EXPECT_NE(why.find("matches no opcode"), std::string::npos);
  Word128 w = encode(*model->opcode("BAR_I"), {{"cnt", 0x40}});
  ASSERT_TRUE(decode(*model, w));
  Word128 stray = w;
  stray.set_bits(127, 1, 1);
  EXPECT_FALSE(decode(*model, stray, &why));
  EXPECT_EQ(why, "matches BAR_I but sets bit(s) 127 outside every field of "
                 "BAR_I");
  stray = w;
  stray.set_bits(24, 8, 0xFF); // ra is no field of BAR_I
  stray.set_bits(120, 2, 3);
  EXPECT_FALSE(decode(*model, stray, &why));
  EXPECT_EQ(why, "matches BAR_I but sets bit(s) 121..120, 31..24 outside "
                 "every field of BAR_I");
  Word128 bad_redop = encode(*model->opcode("BAR_RED_I"), {{"redop", 3}});
  EXPECT_FALSE(decode(*model, bad_redop, &why));
  EXPECT_EQ(why, "matches BAR_RED_I but its field redop [81:80] = 0x3 is not "
                 "an enumerator of BARREDOp");
  // The stype of another optype's variant: BAR with stype X (5).
  Word128 bad_stype = encode(*model->opcode("BAR_I"), {{"stype", 5}});
  EXPECT_FALSE(decode(*model, bad_stype, &why));
}

TEST(IsaRoundTrip, SpecFileAndProjectFileGiveIdenticalModels) {
  if (!have_seed())
    GTEST_SKIP() << "spec seed not found at " << kSeed
                 << " (the ../shared/seeds folder is absent)";
  auto spec = load_or_fail({kSeed, kCodes});
  auto own = load_or_fail({kOwn, kCodes});
  ASSERT_TRUE(spec && own);
  ASSERT_EQ(spec->opcodes.size(), own->opcodes.size());
  EXPECT_EQ(spec->optypes, own->optypes);
  for (size_t i = 0; i < spec->opcodes.size(); ++i) {
    const OpcodeModel &a = spec->opcodes[i], &b = own->opcodes[i];
    SCOPED_TRACE(a.name);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.optype, b.optype);
    EXPECT_EQ(a.group, b.group);
    EXPECT_EQ(a.match, b.match);
    EXPECT_EQ(a.mask, b.mask);
    EXPECT_EQ(a.field_mask, b.field_mask);
    EXPECT_EQ(a.order, b.order);
    EXPECT_EQ(a.in_list, b.in_list);
    EXPECT_EQ(a.out_list, b.out_list);
    EXPECT_EQ(a.bitwidth, b.bitwidth);
    ASSERT_EQ(a.fields.size(), b.fields.size());
    for (size_t j = 0; j < a.fields.size(); ++j) {
      EXPECT_EQ(a.fields[j].name, b.fields[j].name);
      EXPECT_EQ(a.fields[j].type, b.fields[j].type);
      EXPECT_EQ(a.fields[j].lsb, b.fields[j].lsb);
      EXPECT_EQ(a.fields[j].width, b.fields[j].width);
      EXPECT_EQ(a.fields[j].fixed, b.fields[j].fixed);
      EXPECT_EQ(a.fields[j].deflt, b.fields[j].deflt);
    }
  }
  ASSERT_EQ(spec->forms.size(), own->forms.size());
  for (size_t i = 0; i < spec->forms.size(); ++i) {
    EXPECT_EQ(spec->forms[i].optype, own->forms[i].optype);
    EXPECT_EQ(spec->forms[i].operand_names, own->forms[i].operand_names);
    EXPECT_EQ(spec->forms[i].control_tokens, own->forms[i].control_tokens);
    ASSERT_EQ(spec->forms[i].parts.size(), own->forms[i].parts.size());
    for (size_t k = 0; k < spec->forms[i].parts.size(); ++k) {
      EXPECT_EQ(spec->forms[i].parts[k].kind, own->forms[i].parts[k].kind);
      EXPECT_EQ(spec->forms[i].parts[k].text, own->forms[i].parts[k].text);
      EXPECT_EQ(spec->forms[i].parts[k].field, own->forms[i].parts[k].field);
      EXPECT_EQ(spec->forms[i].parts[k].value, own->forms[i].parts[k].value);
    }
  }
  // Types used by fields: same widths and enumerators.
  for (const auto &t : spec->types) {
    const BitFieldType *u = own->type(t.name);
    ASSERT_TRUE(u) << t.name;
    EXPECT_EQ(t.width, u->width);
    ASSERT_EQ(t.enumerators.size(), u->enumerators.size()) << t.name;
    for (size_t k = 0; k < t.enumerators.size(); ++k) {
      EXPECT_EQ(t.enumerators[k].name, u->enumerators[k].name);
      EXPECT_EQ(t.enumerators[k].value, u->enumerators[k].value);
    }
  }
  // Exhaustively: every generated word means the same in both and prints
  // the same; every text assembles to the same word in both.
  auto src = SourceFile::from_string("gen.s", "");
  size_t words = 0;
  for (const auto &op : spec->opcodes)
    for_each_word(*spec, op, [&](const Word128 &w) {
      ++words;
      auto a = decode(*spec, w);
      auto b = decode(*own, w);
      ASSERT_TRUE(a && b) << w.to_hex();
      ASSERT_EQ(a->opcode, b->opcode);
      std::string text = print(*spec, *a);
      ASSERT_EQ(text, print(*own, *b));
      DiagnosticSink s1, s2;
      auto x = assemble_one(*spec, text, {src.get(), 1, 1, 1}, s1);
      auto y = assemble_one(*own, text, {src.get(), 1, 1, 1}, s2);
      ASSERT_EQ(x.has_value(), y.has_value()) << text;
      if (x) {
        ASSERT_EQ(x->word, y->word) << text;
      }
    });
  EXPECT_GT(words, 10000u);
  // The builtin model is the project file: same encodings.
  auto builtin_model = builtin();
  for (size_t i = 0; i < own->opcodes.size(); ++i) {
    EXPECT_EQ(own->opcodes[i].match, builtin_model->opcodes[i].match);
    EXPECT_EQ(own->opcodes[i].mask, builtin_model->opcodes[i].mask);
  }
}

namespace {

// Assembles every example line of a model; returns the words.
std::vector<Word128> assemble_examples(const IsaModel &model,
                                       const IsaModel &with,
                                       std::vector<std::string> *rejected) {
  std::vector<Word128> out;
  for (const auto &ex : model.examples) {
    std::string text = ex.text;
    if (size_t c = text.find("//"); c != std::string::npos)
      text.erase(c);
    while (!text.empty() && (text.back() == ' ' || text.back() == ';'))
      text.pop_back();
    if (text.empty() || text == "...")
      continue;
    DiagnosticSink sink;
    auto d = assemble_one(with, ex.text, ex.at, sink);
    if (!d) {
      rejected->push_back(text);
      continue;
    }
    out.push_back(d->word);
  }
  return out;
}

} // namespace

TEST(IsaRoundTrip, EveryExampleOfTheSpecAssembles) {
  if (!have_seed())
    GTEST_SKIP() << "spec seed not found at " << kSeed
                 << " (the ../shared/seeds folder is absent)";
  auto spec = load_or_fail({kSeed, kCodes});
  auto own = load_or_fail({kOwn, kCodes});
  ASSERT_TRUE(spec && own);
  std::vector<std::string> rejected_spec, rejected_own;
  auto a = assemble_examples(*spec, *spec, &rejected_spec);
  auto b = assemble_examples(*spec, *own, &rejected_own);
  EXPECT_EQ(a, b);
  // 36 example instructions in 001 (group block 19, BAR 3, BAR_RED 2, B2R 5,
  // B2R_RESULT 2, R2B 5); SPEC-NOTES 5: `BAR.RED.AND R5, R5, P0` is not
  // encodable.
  EXPECT_EQ(rejected_spec, std::vector<std::string>{"BAR.RED.AND R5, R5, P0"});
  EXPECT_EQ(a.size(), 35u);
  // The project file's examples (the same forms, the illegal one dropped).
  std::vector<std::string> rejected;
  auto c = assemble_examples(*own, *own, &rejected);
  EXPECT_TRUE(rejected.empty());
  EXPECT_EQ(c.size(), 35u);
}
