// Instructions per second for assembling (text -> word) and disassembling
// (word -> decode -> canonical text) with the built-in model. Reported as
// items_per_second.
#include <benchmark/benchmark.h>

#include "bcusim/isa/isa.h"

namespace {

using namespace bcusim;
using namespace bcusim::isa;

// One statement of every opcode and shape (docs/isa.md).
const char *const kProgram[] = {
    "BAR.SYNC 0x0",
    "BAR.ARV 0x1, 0x80",
    "BAR.SYNC R2, R3",
    "BAR.SYNC R4",
    "BAR.ARV 0x1, R5",
    "@P0 BAR.RED.POPC 0x2, 0x40, PT",
    "BAR.RED.OR R6, !P1",
    "BAR.RED.AND R4, 0x40, P2",
    "BAR.RED.AND 0x2, R5, !P3",
    "BAR.RESULT R0, P4",
    "B2R.RESULT R1",
    "B2R.WARP R7",
    "B2R R8, 0x0",
    "R2B.BAR 0x0, R8",
    "R2B.WARP R7",
};

void BM_AssembleOne(benchmark::State &state) {
  auto model = builtin();
  auto file = SourceFile::from_string("bench.s", "");
  DiagnosticSink sink;
  size_t n = 0;
  for (auto _ : state) {
    for (const char *text : kProgram) {
      auto d = assemble_one(*model, text, {file.get(), 1, 1, 1}, sink);
      benchmark::DoNotOptimize(d);
      ++n;
    }
  }
  if (sink.has_errors())
    state.SkipWithError("assembly failed");
  state.SetItemsProcessed(static_cast<int64_t>(n));
}
BENCHMARK(BM_AssembleOne);

void BM_AssembleFile(benchmark::State &state) {
  auto model = builtin();
  std::string text;
  for (int i = 0; i < 64; ++i)
    for (const char *line : kProgram)
      text += std::string(line) + " ; // comment\n";
  auto file = SourceFile::from_string("bench.s", text);
  size_t n = 0;
  for (auto _ : state) {
    DiagnosticSink sink;
    auto insts = assemble(*model, *file, sink);
    n += insts ? insts->size() : 0;
    benchmark::DoNotOptimize(insts);
  }
  state.SetItemsProcessed(static_cast<int64_t>(n));
}
BENCHMARK(BM_AssembleFile);

std::vector<Word128> program_words() {
  auto model = builtin();
  auto file = SourceFile::from_string("bench.s", "");
  DiagnosticSink sink;
  std::vector<Word128> words;
  for (const char *text : kProgram)
    if (auto d = assemble_one(*model, text, {file.get(), 1, 1, 1}, sink))
      words.push_back(d->word);
  return words;
}

void BM_Decode(benchmark::State &state) {
  auto model = builtin();
  auto words = program_words();
  size_t n = 0;
  for (auto _ : state) {
    for (const auto &w : words) {
      auto d = decode(*model, w);
      benchmark::DoNotOptimize(d);
      ++n;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(n));
}
BENCHMARK(BM_Decode);

void BM_Disassemble(benchmark::State &state) {
  auto model = builtin();
  auto words = program_words();
  size_t n = 0;
  for (auto _ : state) {
    for (const auto &w : words) {
      auto d = decode(*model, w);
      std::string text = d ? print(*model, *d) : std::string();
      benchmark::DoNotOptimize(text);
      ++n;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(n));
}
BENCHMARK(BM_Disassemble);

} // namespace
