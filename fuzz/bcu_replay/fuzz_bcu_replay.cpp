// libFuzzer target: the co-simulation trace replayer (docs/bcu.md, "Replay
// format") and through it the barrier unit. Properties: it never crashes or
// hangs on any trace; a failed replay always carries a diagnostic.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "bcusim/bcu/replay.h"

using namespace bcusim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto file = SourceFile::from_string(
      "fuzz.trace", std::string(reinterpret_cast<const char *>(data), size));
  DiagnosticSink sink;
  std::ostringstream out;
  bool ok = bcu::replay(*file, out, sink);
  if (!ok && !sink.has_errors())
    std::abort();
  return 0;
}
