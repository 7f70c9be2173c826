// Fat binary parsing and decompression (include/bcusim/runtime/fatbin.h).
#include "bcusim/runtime/fatbin.h"

#include <cstring>
#include <fmt/format.h>
#include <lz4.h>
#include <zstd.h>

namespace bcusim::runtime {

namespace {

template <class T> T load(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

constexpr uint64_t kFlagLz4 = 0x2000;
constexpr uint64_t kFlagZstd = 0x8000;
// Larger payloads than this are refused (a corrupt size field).
constexpr uint64_t kMaxPayload = 1ull << 32;

} // namespace

std::optional<std::vector<FatbinEntry>>
parse_fatbin(const uint8_t *data, size_t max_size, std::string &error) {
  if (max_size < 16 || load<uint32_t>(data) != kFatbinMagic) {
    error = "not a fat binary (bad magic number)";
    return std::nullopt;
  }
  const uint16_t header_size = load<uint16_t>(data + 6);
  const uint64_t body = load<uint64_t>(data + 8);
  if (header_size < 16 || header_size > max_size ||
      body > max_size - header_size) {
    error = "fat binary header: sizes exceed the data";
    return std::nullopt;
  }
  std::vector<FatbinEntry> out;
  const uint8_t *p = data + header_size;
  const uint8_t *end = p + body;
  while (p < end) {
    if (end - p < 64) {
      error = "fat binary entry header truncated";
      return std::nullopt;
    }
    FatbinEntry e;
    const uint16_t kind = load<uint16_t>(p);
    const uint32_t eh = load<uint32_t>(p + 4);
    const uint64_t size = load<uint64_t>(p + 8);
    const uint32_t compressed = load<uint32_t>(p + 16);
    e.arch = load<uint32_t>(p + 28);
    e.flags = load<uint64_t>(p + 40);
    const uint64_t uncompressed = load<uint64_t>(p + 56);
    if (eh < 64 || eh > uint64_t(end - p) || size > uint64_t(end - p) - eh) {
      error = "fat binary entry: sizes exceed the data";
      return std::nullopt;
    }
    const uint8_t *payload = p + eh;
    p += eh + size;
    if (kind != 1 && kind != 2)
      continue; // other kinds (none known today) are skipped
    e.kind = FatbinEntry::Kind(kind);
    if (e.flags & (kFlagZstd | kFlagLz4)) {
      if (compressed > size || uncompressed > kMaxPayload) {
        error = "fat binary entry: bad compressed size";
        return std::nullopt;
      }
      e.payload.resize(uncompressed);
      if (e.flags & kFlagZstd) {
        size_t n = ZSTD_decompress(e.payload.data(), e.payload.size(), payload,
                                   compressed);
        if (ZSTD_isError(n) || n != uncompressed) {
          error = fmt::format("fat binary entry (sm_{}): zstd: {}", e.arch,
                              ZSTD_isError(n) ? ZSTD_getErrorName(n)
                                              : "wrong uncompressed size");
          return std::nullopt;
        }
      } else {
        int n = LZ4_decompress_safe(reinterpret_cast<const char *>(payload),
                                    e.payload.data(), int(compressed),
                                    int(uncompressed));
        if (n < 0 || uint64_t(n) != uncompressed) {
          error = fmt::format("fat binary entry (sm_{}): corrupt LZ4 block",
                              e.arch);
          return std::nullopt;
        }
      }
    } else {
      e.payload.assign(reinterpret_cast<const char *>(payload), size);
    }
    if (e.kind == FatbinEntry::Kind::Ptx)
      while (!e.payload.empty() && e.payload.back() == '\0')
        e.payload.pop_back();
    out.push_back(std::move(e));
  }
  return out;
}

const uint8_t *fatbin_of_wrapper(const void *wrapper, std::string &error) {
  const auto *w = static_cast<const uint8_t *>(wrapper);
  if (!w) {
    error = "no fat binary";
    return nullptr;
  }
  const uint32_t magic = load<uint32_t>(w);
  if (magic == kFatbinMagic)
    return w;
  if (magic == kFatbinWrapperMagic) {
    // { int magic; int version; const unsigned long long *data; void *; }
    const uint8_t *data = load<const uint8_t *>(w + 8);
    if (data && load<uint32_t>(data) == kFatbinMagic)
      return data;
  }
  error = "the registered image is not a fat binary";
  return nullptr;
}

std::vector<const uint8_t *> fatbins_of_wrapper(const void *wrapper,
                                                std::string &error) {
  const uint8_t *own = fatbin_of_wrapper(wrapper, error);
  if (!own)
    return {};
  const auto *w = static_cast<const uint8_t *>(wrapper);
  if (load<uint32_t>(w) == kFatbinWrapperMagic && load<uint32_t>(w + 4) == 2) {
    const auto *list = load<const uint8_t *const *>(w + 16);
    std::vector<const uint8_t *> out;
    for (size_t i = 0; list && list[i] && i < 4096; ++i)
      if (load<uint32_t>(list[i]) == kFatbinMagic)
        out.push_back(list[i]);
    if (!out.empty())
      return out;
  }
  return {own};
}

std::optional<std::string> select_ptx(const std::vector<FatbinEntry> &entries,
                                      uint32_t arch, std::string &error) {
  const FatbinEntry *best = nullptr;
  for (const auto &e : entries) {
    if (e.kind != FatbinEntry::Kind::Ptx)
      continue;
    bool better =
        !best ||
        (e.arch <= arch && (best->arch > arch || e.arch > best->arch)) ||
        (e.arch > arch && best->arch > arch && e.arch < best->arch);
    if (better)
      best = &e;
  }
  if (!best) {
    std::string sass;
    for (const auto &e : entries)
      if (e.kind == FatbinEntry::Kind::Elf)
        sass += fmt::format("{}sm_{}", sass.empty() ? "" : ", ", e.arch);
    error = fmt::format(
        "the program has no PTX for bcusim to run (only machine code{}{}); "
        "rebuild it with nvcc -gencode arch=compute_90,code=compute_90 (or "
        "-arch=sm_90, which embeds compute_90 PTX too)",
        sass.empty() ? "" : ": ", sass);
    return std::nullopt;
  }
  return best->payload;
}

} // namespace bcusim::runtime
