// Host call stacks of the program under `bcusim exec` (docs/exec.md "Host
// stacks"): captured at each launch and allocation, symbolized with
// elfutils' libdw when a report needs them, the way compute-sanitizer
// shows them:
//
//   auto pcs = runtime::capture_host_stack();      // cheap: return addresses
//   for (auto &f : runtime::HostSymbolizer().frames(pcs))
//     puts(f.c_str());                              // "main at prog.cu:14"
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bcusim::runtime {

// The return addresses of the calling thread's stack, innermost first,
// from the first frame outside bcusim's own library (the program's call
// into the CUDA runtime); at most `max` frames.
std::vector<uintptr_t> capture_host_stack(size_t max = 16);

// Symbolizes addresses of this process: "function at file:line" with debug
// information (`-g`), "function (module+0xoffset)" without it; frames end
// at `main`.
class HostSymbolizer {
public:
  HostSymbolizer();
  ~HostSymbolizer();
  HostSymbolizer(const HostSymbolizer &) = delete;
  HostSymbolizer &operator=(const HostSymbolizer &) = delete;
  std::vector<std::string> frames(const std::vector<uintptr_t> &pcs);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace bcusim::runtime
