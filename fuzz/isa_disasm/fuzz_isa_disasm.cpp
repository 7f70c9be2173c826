// libFuzzer target: the disassembler with the built-in model. The input is
// read both as binary words (16 bytes each, little-endian) and as a hex word
// file. Properties: never a crash; a word that decodes and obeys the spec's
// rules prints a canonical text that re-assembles to the same word.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "bcusim/isa/model.h"
#include "bcusim/isa/tools.h"

using namespace bcusim;
using namespace bcusim::isa;

namespace {

void check_word(const IsaModel &model, const Word128 &w) {
  static const auto scratch = SourceFile::from_string("canon.s", "");
  std::string why;
  auto d = disassemble_word(model, w, why);
  if (!d) {
    if (why.empty())
      std::abort();
    return;
  }
  std::string text = print(model, *d);
  DiagnosticSink s;
  auto again = assemble_one(model, text, {scratch.get(), 1, 1, 1}, s);
  if (!again || !(again->word == w))
    std::abort();
  (void)explain(model, *d);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const auto model = builtin();
  std::string bytes(reinterpret_cast<const char *>(data), size);
  DiagnosticSink sink;
  std::string whole = bytes.substr(0, size - size % 16);
  if (auto words = read_bin_words(whole, "fuzz.bin", sink))
    for (const auto &w : *words)
      check_word(*model, w.word);
  auto file = SourceFile::from_string("fuzz.hex", bytes);
  for (const auto &w : read_hex_words(*file, sink))
    check_word(*model, w.word);
  sink.render_all();
  return 0;
}
