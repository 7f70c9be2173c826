// libFuzzer target: the PTX parser and validator never crash, hang or
// assert, every rejected input gets at least one diagnostic, and every
// accepted module prints to text that parses again and prints identically.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "bcusim/ptx/ast.h"
#include "bcusim/ptx/instructions.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace bcusim;
  auto src = SourceFile::from_string(
      "fuzz.ptx", std::string(reinterpret_cast<const char *>(data), size));
  DiagnosticSink sink;
  auto mod = ptx::parse(src, sink);
  if (!mod) {
    if (!sink.has_errors())
      std::abort();
    (void)sink.render_all();
    return 0;
  }
  // Validation reports with locations and never fails silently.
  DiagnosticSink vsink;
  if (!ptx::validate(*mod, vsink) && !vsink.has_errors())
    std::abort();
  (void)vsink.render_all();
  std::string once = ptx::print(*mod);
  auto src2 = SourceFile::from_string("fuzz2.ptx", once);
  DiagnosticSink sink2;
  auto mod2 = ptx::parse(src2, sink2);
  if (!mod2 || ptx::print(*mod2) != once)
    std::abort();
  return 0;
}
