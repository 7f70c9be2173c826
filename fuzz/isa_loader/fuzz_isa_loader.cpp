// libFuzzer target: the description loader. The input is a description file
// loaded together with the project's codes table (as the spec file is). A
// model that loads must also be usable: every example assembles or is
// diagnosed, every opcode's default word decodes and prints.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "bcusim/isa/model.h"

using namespace bcusim;
using namespace bcusim::isa;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const auto codes = builtin_sources()[1];
  auto desc = SourceFile::from_string(
      "fuzz.isa", std::string(reinterpret_cast<const char *>(data), size));
  DiagnosticSink sink;
  auto model = load_sources({desc, codes}, sink);
  std::string rendered = sink.render_all(); // rendering must not crash
  if (!model) {
    if (!sink.has_errors())
      std::abort(); // a failed load must say why
    return 0;
  }
  for (const auto &ex : model->examples) {
    DiagnosticSink s;
    auto d = assemble_one(*model, ex.text, ex.at, s);
    if (!d && !s.has_errors())
      std::abort();
    s.render_all();
  }
  for (const auto &op : model->opcodes) {
    Word128 w = encode(op, {});
    std::string why;
    auto d = decode(*model, w, &why);
    if (d)
      (void)print(*model, *d);
  }
  return 0;
}
