// libFuzzer target: the assembler with the built-in model. Properties: it
// never crashes; a failure always has a diagnostic; every assembled
// instruction decodes to the same opcode and fields, and its canonical text
// re-assembles to the same word and prints the same text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "bcusim/isa/model.h"

using namespace bcusim;
using namespace bcusim::isa;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const auto model = builtin();
  auto file = SourceFile::from_string(
      "fuzz.s", std::string(reinterpret_cast<const char *>(data), size));
  DiagnosticSink sink;
  auto insts = assemble(*model, *file, sink);
  sink.render_all();
  if (!insts) {
    if (!sink.has_errors())
      std::abort();
    return 0;
  }
  auto scratch = SourceFile::from_string("canon.s", "");
  for (const auto &d : *insts) {
    auto back = decode(*model, d.word);
    if (!back || back->opcode != d.opcode)
      std::abort();
    std::string text = print(*model, d);
    DiagnosticSink s;
    auto again = assemble_one(*model, text, {scratch.get(), 1, 1, 1}, s);
    if (!again || !(again->word == d.word) || print(*model, *again) != text)
      std::abort();
  }
  return 0;
}
