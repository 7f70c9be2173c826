// The fat binaries nvcc embeds in host programs (docs/exec.md "Fat
// binaries"): a header (magic 0xBA55ED50, version, header size, size of the
// entries) followed by entries, each with its own header (kind 1 = PTX,
// 2 = ELF/SASS; target architecture; flags; payload size; compressed and
// uncompressed sizes). Payloads compressed by nvcc 13 are zstd frames
// (flag 0x8000, the default) or LZ4 blocks (flag 0x2000,
// --compress-mode=speed); both are decompressed with the Debian libraries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bcusim::runtime {

struct FatbinEntry {
  enum class Kind : uint16_t { Ptx = 1, Elf = 2 } kind = Kind::Ptx;
  uint32_t arch = 0;   // 90 for sm_90 / compute_90
  uint64_t flags = 0;  // 0x8000 zstd, 0x2000 lz4
  std::string payload; // decompressed; PTX text without trailing NULs
};

inline constexpr uint32_t kFatbinMagic = 0xBA55ED50u;
// The wrapper nvcc passes to __cudaRegisterFatBinary.
inline constexpr uint32_t kFatbinWrapperMagic = 0x466243B1u;

// Parses one fat binary starting at `data` (at most `max_size` bytes; the
// header says how many it has). nullopt and `error` when malformed.
std::optional<std::vector<FatbinEntry>>
parse_fatbin(const uint8_t *data, size_t max_size, std::string &error);

// The fat binary of a __cudaRegisterFatBinary wrapper (or a fat binary
// itself); nullptr and `error` when neither magic matches.
const uint8_t *fatbin_of_wrapper(const void *wrapper, std::string &error);
// The fat binaries holding a wrapper's PTX: its own, or for relocatable
// device code (nvcc -rdc, wrapper version 2) the null-terminated list of
// the translation units' prelinked fat binaries (their PTX; the wrapper's
// own fat binary then holds only the linked machine code).
std::vector<const uint8_t *> fatbins_of_wrapper(const void *wrapper,
                                                std::string &error);

// The PTX to run on an sm_`arch` device: the entry with the highest
// architecture <= arch, else the lowest one. nullopt and `error` naming the
// nvcc flag that embeds PTX when there is none.
std::optional<std::string> select_ptx(const std::vector<FatbinEntry> &entries,
                                      uint32_t arch, std::string &error);

} // namespace bcusim::runtime
