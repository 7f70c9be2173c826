// Fat binaries laid out as nvcc 13 writes them, for the runtime's tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <lz4.h>
#include <string>
#include <vector>
#include <zstd.h>

#include "bcusim/runtime/fatbin.h"

namespace bcusim::runtime::testing {

struct Entry {
  uint16_t kind;
  uint32_t arch;
  uint64_t flags;
  std::string text;
};

// A fat binary laid out as nvcc 13 writes it (fatbin.h).
inline std::vector<uint8_t> make_fatbin(const std::vector<Entry> &entries) {
  std::vector<uint8_t> body;
  for (const auto &e : entries) {
    std::string payload = e.text;
    uint32_t compressed = 0;
    uint64_t uncompressed = 0;
    if (e.flags & 0x8000) {
      std::string out(ZSTD_compressBound(e.text.size()), '\0');
      size_t n = ZSTD_compress(out.data(), out.size(), e.text.data(),
                               e.text.size(), 3);
      out.resize(n);
      payload = out;
    } else if (e.flags & 0x2000) {
      std::string out(size_t(LZ4_compressBound(int(e.text.size()))), '\0');
      int n = LZ4_compress_default(e.text.data(), out.data(),
                                   int(e.text.size()), int(out.size()));
      out.resize(size_t(n));
      payload = out;
    }
    if (e.flags & 0xa000) {
      compressed = uint32_t(payload.size());
      uncompressed = e.text.size();
    }
    while (payload.size() % 8)
      payload.push_back('\0');
    uint8_t h[80] = {};
    auto put = [&](size_t off, auto v) { std::memcpy(h + off, &v, sizeof v); };
    put(0, e.kind);
    put(2, uint16_t(0x101));
    put(4, uint32_t(80));
    put(8, uint64_t(payload.size()));
    put(16, compressed);
    put(28, e.arch);
    put(40, e.flags | 0x11);
    put(56, uncompressed);
    body.insert(body.end(), h, h + 80);
    body.insert(body.end(), payload.begin(), payload.end());
  }
  std::vector<uint8_t> fb(16 + body.size());
  uint32_t magic = kFatbinMagic;
  uint16_t version = 1, hs = 16;
  uint64_t size = body.size();
  std::memcpy(fb.data(), &magic, 4);
  std::memcpy(fb.data() + 4, &version, 2);
  std::memcpy(fb.data() + 6, &hs, 2);
  std::memcpy(fb.data() + 8, &size, 8);
  std::memcpy(fb.data() + 16, body.data(), body.size());
  return fb;
}
} // namespace bcusim::runtime::testing
