// The engine's memory as the handlers see it: the generic address space
// and its windows, the memory spaces, and device memory (allocations, the
// device heap's blocks, module variables, textures). Internal to
// src/engine; the state of a run is state.h, the code code.h, the handler
// context exec.h.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bcusim/engine/engine.h"

namespace bcusim::engine::detail {

// Bytes of the reserved shared-memory region (%reserved_smem_offset_*) at
// the start of every CTA's shared memory, as on sm_90 (1 KiB per CTA:
// variables start at 1024, measured on an NVIDIA H200, driver 580.159.04,
// CUDA 13.0, 2026-11-28).
constexpr uint32_t kReservedSmemBytes = 1024;

// The generic address space (docs/engine.md "Memory"): global addresses are
// generic addresses; the other state spaces appear in 4 GiB windows. Their
// own (non-generic) addresses are offsets from 0 inside each space.
constexpr uint64_t kSharedWindow = 0x0000'0100'0000'0000ull;
constexpr uint64_t kLocalWindow = 0x0000'0200'0000'0000ull;
constexpr uint64_t kParamWindow = 0x0000'0300'0000'0000ull;
constexpr uint64_t kConstWindow = 0x0000'0400'0000'0000ull;
// Functions have addresses (`mov.u64 %rd1, f`, vtables, indirect calls):
// kFuncWindow + 16 x the function's index. Memory there cannot be accessed.
constexpr uint64_t kFuncWindow = 0x0000'0500'0000'0000ull;
constexpr uint64_t kWindowSize = 1ull << 32;
// The shared window holds the .shared::cluster space: one
// kSharedCtaWindow-byte slot per CTA of the cluster, by rank
// (cluster_addr.h).
constexpr uint64_t kSharedCtaWindow = 1ull << 24;
// Module variables live in [kModuleGlobalBase, kUserGlobalBase), one
// 4 GiB segment per loaded module (reused after 2048 modules). The range is
// clear of the host's heaps, AddressSanitizer's included (which starts at
// 0x6000'0000'0000), so the runtime can tell device pointers from host ones.
constexpr uint64_t kModuleGlobalBase = 0x0000'6800'0000'0000ull;
constexpr uint64_t kModuleSegmentBytes = 1ull << 32;
constexpr uint64_t kUserGlobalBase = 0x0000'7000'0000'0000ull;

// Memory spaces as the handlers see them.
enum class MemSpace : uint8_t { Global, Shared, Local, KParam, Const, Generic };
std::string_view name_of(MemSpace s);

struct Program;

// ---- global memory ---------------------------------------------------------
struct Allocation {
  uint64_t base = 0, size = 0;
  uint8_t *data = nullptr;
  std::unique_ptr<uint8_t[]> owned;
  std::string name;        // module variables, named allocations
  bool module_var = false; // a module .global variable
  bool host = false;       // host memory mapped at its own address
  bool heap = false;       // the device heap (blocks checked by HeapBlocks)
  // Memory outside its lifetime (graph memory before its allocation node
  // ran or after its free; Device::set_retired): why, as the report says
  // it. Empty: live.
  std::string retired;
  // Not mapped yet (graph memory whose allocation node never ran): an
  // access faults, as on a GPU; else it is made.
  bool unmapped = false;
};

// The blocks of the device heap (docs/engine.md "Device heap"): malloc and
// free may run on several host threads at once, so every operation takes
// the lock; accesses to the heap region look their block up here.
struct HeapBlock {
  uint64_t size = 0;
  bool live = true;
  std::string by; // "allocated in kernel 'K' at f.cu:12:5" (who, where)
  // The malloc: its CUDA line when the PTX has line information
  // ("f.cu:12:5"), and its PTX instruction ("f.ptx:40:2").
  std::string cuda_at, ptx_at;
};
class HeapBlocks {
public:
  // 16-byte aligned block of `bytes` inside [base, base + limit); 0 when
  // the heap is exhausted.
  uint64_t alloc(uint64_t base, uint64_t limit, uint64_t bytes, HeapBlock blk);
  // The block (live or freed) holding addr: its base and record.
  std::optional<std::pair<uint64_t, HeapBlock>> block(uint64_t addr) const;
  // 0: freed; 1: not a block's base; 2: already freed.
  int free(uint64_t addr, uint64_t &size);
  // The live block holding [addr, addr + size), or why not (detail).
  bool check(uint64_t addr, uint64_t size, std::string &detail) const;
  std::vector<std::pair<uint64_t, HeapBlock>> live() const;
  // Whether a block was ever allocated (since the last clear()).
  bool used() const {
    std::lock_guard<std::mutex> g(mu_);
    return next_ != 0;
  }
  void clear();

private:
  mutable std::mutex mu_;
  std::map<uint64_t, HeapBlock> blocks_; // by base; freed ones kept for
                                         // use-after-free reports
  uint64_t next_ = 0;                    // bump offset
};

class GlobalMemory {
public:
  uint64_t alloc(uint64_t bytes, std::string name = {});
  bool free(uint64_t base);
  bool set_retired(uint64_t base, std::string why, bool unmapped = false);
  // Host memory at its own address (Device::map_host); false on overlap.
  bool map_host(uint8_t *host, uint64_t bytes, std::string name);
  bool unmap_host(uint64_t base);
  // Texture objects (Device::create_texture): handle = index + 1.
  uint64_t add_texture(const Texture &t);
  bool remove_texture(uint64_t handle);
  const Texture *texture(uint64_t handle) const {
    return handle && handle <= textures_.size() && textures_[handle - 1].first
               ? &textures_[handle - 1].second
               : nullptr;
  }
  const Allocation *find(uint64_t addr) const;
  // Registers a module's .global variables (once per program).
  void map_program(Program &prog);
  // The allocation nearest to addr (for fault notes); nullptr when none.
  const Allocation *nearest(uint64_t addr) const;
  // The device heap: its size (cudaLimitMallocHeapSize, default 8 MiB) can
  // change while it holds no live block; map_heap() makes the region
  // addressable (before a launch that uses it).
  uint64_t heap_size() const { return heap_size_; }
  bool heap_used() const { return heap_.used(); }
  bool set_heap_size(uint64_t bytes);
  void map_heap();
  uint64_t heap_base() const { return heap_base_; }
  HeapBlocks &heap() { return heap_; }
  // Simulated nanoseconds of every launch so far (%globaltimer).
  uint64_t sim_ns = 0;
  const HeapBlocks &heap() const { return heap_; }

private:
  std::vector<std::unique_ptr<Allocation>> allocs_; // sorted by base
  std::vector<const Program *> mapped_;
  std::vector<std::pair<bool, Texture>> textures_; // (live, texture)
  uint64_t next_ = kUserGlobalBase;
  uint64_t heap_size_ = 8ull << 20;
  uint64_t heap_base_ = 0; // 0: not mapped
  HeapBlocks heap_;
};

} // namespace bcusim::engine::detail
