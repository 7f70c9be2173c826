// Memory instructions: ld / ldu / st (every state space incl. generic,
// vectors, .volatile/.relaxed/.acquire/.release with scopes, .nc and cache
// hints), atom / red (add min max inc dec and or xor exch cas; f32/f64
// add), prefetch. Also address translation and the global allocator.
//
// Ordering (docs/engine.md "Memory"): every access is performed when its
// instruction executes, in lane order, and is immediately visible to every
// thread: the engine is sequentially consistent per access, so ordering
// qualifiers and scopes need no further action. Atomics use std::atomic_ref
// so that they stay atomic when CTAs run on several host threads.
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <fmt/format.h>

#include "cluster_addr.h"
#include "compile.h"
#include "ldst.h"
#include "observe.h"

namespace bcusim::engine::detail {

// ---- global allocator ------------------------------------------------------
namespace {
constexpr uint64_t kAllocAlign = 256;
constexpr uint64_t kHostLine = 64;
constexpr uint64_t kGuardGap = 64 * 1024;
constexpr uint64_t kNullPage = 64 * 1024;
} // namespace

uint64_t GlobalMemory::alloc(uint64_t bytes, std::string name) {
  auto a = std::make_unique<Allocation>();
  a->name = std::move(name);
  a->base = next_;
  a->size = bytes;
  // The host bytes start at a cache line, as the device address starts at
  // kAllocAlign: a warp's coalesced block then spans as few host cache
  // lines as it does on the device (operator new gives 16 bytes, so 128
  // aligned bytes would span three lines).
  a->owned.reset(new uint8_t[std::max<uint64_t>(bytes, 1) + kHostLine - 1]());
  const auto at = reinterpret_cast<uintptr_t>(a->owned.get());
  a->data = a->owned.get() + ((kHostLine - at % kHostLine) % kHostLine);
  next_ += (bytes + kAllocAlign - 1) / kAllocAlign * kAllocAlign + kGuardGap;
  uint64_t base = a->base;
  auto it =
      std::upper_bound(allocs_.begin(), allocs_.end(), base,
                       [](uint64_t b, const auto &x) { return b < x->base; });
  allocs_.insert(it, std::move(a));
  return base;
}

bool GlobalMemory::free(uint64_t base) {
  for (auto it = allocs_.begin(); it != allocs_.end(); ++it)
    if ((*it)->base == base && (*it)->owned) {
      allocs_.erase(it);
      return true;
    }
  return false;
}

bool GlobalMemory::set_retired(uint64_t base, std::string why, bool unmapped) {
  for (auto &a : allocs_)
    if (a->base == base && a->owned) {
      a->retired = std::move(why);
      a->unmapped = unmapped && !a->retired.empty();
      return true;
    }
  return false;
}

bool GlobalMemory::map_host(uint8_t *host, uint64_t bytes, std::string name) {
  const uint64_t base = reinterpret_cast<uint64_t>(host);
  const uint64_t size = std::max<uint64_t>(bytes, 1);
  // Outside the null page and the windows of the other state spaces.
  if (base < kNullPage || base + size < base ||
      (base < kConstWindow + kWindowSize && base + size > kSharedWindow))
    return false;
  auto it =
      std::upper_bound(allocs_.begin(), allocs_.end(), base,
                       [](uint64_t b, const auto &x) { return b < x->base; });
  if (it != allocs_.end() && (*it)->base < base + size)
    return false;
  if (it != allocs_.begin()) {
    const Allocation &prev = **(it - 1);
    if (prev.base + std::max<uint64_t>(prev.size, 1) > base)
      return false;
  }
  auto a = std::make_unique<Allocation>();
  a->name = std::move(name);
  a->base = base;
  a->size = bytes;
  a->data = host;
  a->host = true;
  allocs_.insert(it, std::move(a));
  return true;
}

bool GlobalMemory::unmap_host(uint64_t base) {
  for (auto it = allocs_.begin(); it != allocs_.end(); ++it)
    if ((*it)->base == base && (*it)->host) {
      allocs_.erase(it);
      return true;
    }
  return false;
}

uint64_t GlobalMemory::add_texture(const Texture &t) {
  textures_.emplace_back(true, t);
  return textures_.size();
}

bool GlobalMemory::remove_texture(uint64_t handle) {
  if (!texture(handle))
    return false;
  textures_[handle - 1].first = false;
  return true;
}

const Allocation *GlobalMemory::find(uint64_t addr) const {
  auto it =
      std::upper_bound(allocs_.begin(), allocs_.end(), addr,
                       [](uint64_t b, const auto &x) { return b < x->base; });
  if (it == allocs_.begin())
    return nullptr;
  --it;
  const Allocation *a = it->get();
  // A zero-size allocation still owns its base address.
  if (addr - a->base < std::max<uint64_t>(a->size, 1))
    return a;
  return nullptr;
}

const Allocation *GlobalMemory::nearest(uint64_t addr) const {
  const Allocation *best = nullptr;
  uint64_t dist = ~0ull;
  for (auto &a : allocs_) {
    uint64_t d = addr < a->base              ? a->base - addr
                 : addr >= a->base + a->size ? addr - (a->base + a->size) + 1
                                             : 0;
    if (d < dist) {
      dist = d;
      best = a.get();
    }
  }
  return dist <= kGuardGap ? best : nullptr;
}

void GlobalMemory::map_program(Program &prog) {
  if (std::find(mapped_.begin(), mapped_.end(), &prog) != mapped_.end())
    return;
  mapped_.push_back(&prog);
  for (auto &v : prog.global_vars) {
    auto a = std::make_unique<Allocation>();
    a->base = v.addr;
    a->size = v.size;
    a->data = prog.global_image.data() + v.image_off;
    a->name = v.name;
    a->module_var = true;
    auto it =
        std::upper_bound(allocs_.begin(), allocs_.end(), a->base,
                         [](uint64_t b, const auto &x) { return b < x->base; });
    allocs_.insert(it, std::move(a));
  }
}

// ---- device heap -----------------------------------------------------------
namespace {
constexpr uint64_t kHeapAlign = 16; // what CUDA's malloc guarantees
constexpr uint64_t kHeapGap = 16;   // between blocks, so that overruns fault
uint64_t heap_round(uint64_t n) {
  return (n + kHeapAlign - 1) / kHeapAlign * kHeapAlign;
}
} // namespace

uint64_t HeapBlocks::alloc(uint64_t base, uint64_t limit, uint64_t bytes,
                           HeapBlock blk) {
  std::lock_guard<std::mutex> g(mu_);
  const uint64_t need = heap_round(std::max<uint64_t>(bytes, 1));
  if (need > limit || need < bytes)
    return 0;
  uint64_t off = 0;
  // Fresh space first (a freed block's addresses stay unused as long as
  // possible, so that a use after free is found), then the first gap.
  if (next_ <= limit && limit - next_ >= need) {
    off = next_;
    next_ += need + kHeapGap;
  } else {
    uint64_t cursor = 0;
    for (const auto &[b, blk] : blocks_) {
      if (!blk.live)
        continue;
      if (b - base >= cursor && b - base - cursor >= need + kHeapGap)
        break;
      cursor = std::max(cursor, b - base + heap_round(blk.size) + kHeapGap);
    }
    if (cursor > limit || limit - cursor < need)
      return 0;
    off = cursor;
    // Freed blocks whose space is reused are forgotten.
    for (auto it = blocks_.begin(); it != blocks_.end();) {
      uint64_t o = it->first - base;
      if (!it->second.live && o < off + need + kHeapGap &&
          o + heap_round(it->second.size) + kHeapGap > off)
        it = blocks_.erase(it);
      else
        ++it;
    }
  }
  blk.size = bytes;
  blk.live = true;
  blocks_[base + off] = std::move(blk);
  return base + off;
}

std::optional<std::pair<uint64_t, HeapBlock>>
HeapBlocks::block(uint64_t addr) const {
  std::lock_guard<std::mutex> g(mu_);
  auto it = blocks_.upper_bound(addr);
  if (it == blocks_.begin())
    return std::nullopt;
  --it;
  if (addr - it->first >= std::max<uint64_t>(it->second.size, 1))
    return std::nullopt;
  return *it;
}

int HeapBlocks::free(uint64_t addr, uint64_t &size) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = blocks_.find(addr);
  if (it == blocks_.end())
    return 1;
  if (!it->second.live)
    return 2;
  it->second.live = false;
  size = it->second.size;
  return 0;
}

bool HeapBlocks::check(uint64_t addr, uint64_t size,
                       std::string &detail) const {
  std::lock_guard<std::mutex> g(mu_);
  auto it = blocks_.upper_bound(addr);
  if (it != blocks_.begin()) {
    --it;
    const HeapBlock &b = it->second;
    const uint64_t off = addr - it->first;
    if (off < std::max<uint64_t>(b.size, 1)) {
      if (!b.live) {
        detail = fmt::format("use after free: the {}-byte heap block at {:#x} "
                             "({}) was freed",
                             b.size, it->first, b.by);
        return false;
      }
      if (size <= b.size - off)
        return true;
      detail = fmt::format("the access runs past the end of the {}-byte heap "
                           "block at {:#x} ({})",
                           b.size, it->first, b.by);
      return false;
    }
    if (b.live) {
      detail = fmt::format("{} bytes past the end of the {}-byte heap block at "
                           "{:#x} ({})",
                           off - b.size, b.size, it->first, b.by);
      return false;
    }
  }
  detail = "the address is inside the device heap but not inside a block";
  return false;
}

std::vector<std::pair<uint64_t, HeapBlock>> HeapBlocks::live() const {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<std::pair<uint64_t, HeapBlock>> out;
  for (const auto &[b, blk] : blocks_)
    if (blk.live)
      out.emplace_back(b, blk);
  return out;
}

void HeapBlocks::clear() {
  std::lock_guard<std::mutex> g(mu_);
  blocks_.clear();
  next_ = 0;
}

bool GlobalMemory::set_heap_size(uint64_t bytes) {
  if (bytes == heap_size_)
    return true;
  if (!heap_.live().empty())
    return false;
  if (heap_base_) {
    free(heap_base_);
    heap_base_ = 0;
    heap_.clear();
  }
  heap_size_ = bytes;
  return true;
}

void GlobalMemory::map_heap() {
  if (heap_base_)
    return;
  heap_base_ = alloc(heap_size_, "the device heap");
  for (auto &a : allocs_)
    if (a->base == heap_base_)
      a->heap = true;
}

namespace {
// Who allocates a heap block at `pc`, and where (docs/engine.md "Device
// heap"): the CUDA line when the PTX has line information, and the PTX
// instruction.
HeapBlock heap_block_at(const Exec &x, uint32_t pc) {
  const Program &P = *x.prog;
  HeapBlock b;
  if (pc < P.locs.size() && P.locs[pc].valid()) {
    const SourceLoc &l = P.locs[pc];
    b.ptx_at = fmt::format("{}:{}:{}", l.file->name(), l.line, l.col);
  }
  if (pc < P.cuda_pos.size() && P.cuda_pos[pc].line) {
    const auto &cp = P.cuda_pos[pc];
    // Inlined code: the call in the kernel's own source.
    uint32_t file = cp.call_line ? cp.call_file : cp.file;
    for (const auto &[n, name] : P.cuda_files)
      if (n == file)
        b.cuda_at = cp.call_line ? fmt::format("{}:{}", name, cp.call_line)
                    : cp.col ? fmt::format("{}:{}:{}", name, cp.line, cp.col)
                             : fmt::format("{}:{}", name, cp.line);
  }
  const std::string &at = !b.cuda_at.empty() ? b.cuda_at : b.ptx_at;
  b.by =
      fmt::format("allocated in kernel '{}'{}", demangle(x.launch->kernel_name),
                  at.empty() ? "" : " at " + at);
  return b;
}
} // namespace

// malloc / operator new (flags bit0 = free / operator delete): the
// argument and the result are the caller's .param variables (in.a[0],
// in.a[1] frame offsets).
void exec_heap(Exec &x, const Inst &in, uint32_t m) {
  GlobalMemory &g = *x.gmem;
  const uint32_t fb = x.launch->local_bytes;
  // A recursive caller's .param variables are relative to its frame base.
  const uint64_t *base = in.a[2] != kNone ? x.lanes(in.a[2]) : nullptr;
  for_lanes(m, [&](uint32_t l) {
    if (x.faulted)
      return;
    uint8_t *f = x.cta->local.data() + uint64_t(x.thread_of(l)) * fb +
                 (base ? base[l] : 0);
    uint64_t arg = 0;
    std::memcpy(&arg, f + in.a[0], 8);
    if (!(in.flags & 1)) {
      // Exhaustion returns NULL, as on the GPU.
      uint64_t p = g.heap_base() ? g.heap().alloc(g.heap_base(), g.heap_size(),
                                                  arg, heap_block_at(x, x.pc))
                                 : 0;
      std::memcpy(f + in.a[1], &p, 8);
      return;
    }
    if (arg == 0)
      return; // free(NULL) does nothing
    uint64_t size = 0;
    int r = g.heap_base() ? g.heap().free(arg, size) : 1;
    if (r == 0) {
      // The block's addresses stop being valid: forget cached bounds.
      x.g_base = x.g_base2 = 1;
      x.g_size = x.g_size2 = 0;
      return;
    }
    x.set_error(FaultKind::Heap, l,
                r == 2 ? fmt::format("double free: the heap block at {:#x} "
                                     "was already freed",
                                     arg)
                       : fmt::format("free of address {:#x}, which is not a "
                                     "block of the device heap",
                                     arg));
  });
  ++x.progress;
  if (x.obs && !(in.flags & 1) && !x.faulted) {
    // malloc's result lands in the caller's frame.
    std::array<uint64_t, kWarpSize> addr{};
    addr.fill(in.a[1]);
    if (base)
      for_lanes(m, [&](uint32_t l) { addr[l] += base[l]; });
    AccessEvent e;
    e.pc = x.pc;
    e.cta = x.cta->linear;
    e.owner = x.cta->linear;
    e.warp = x.warp->index;
    e.lanes = m;
    e.space = StateSpace::Local;
    e.type = AccessType::Write;
    e.size = 8;
    e.addr = addr.data();
    x.obs->on_access(e);
  }
}

// ---- translation -----------------------------------------------------------
// Host memory is mapped to the device in whole pages: an access past a
// mapping's range but inside its first or last page does not fault on a GPU
// (measured on H100, driver 580.159.04: one int past a 64-byte
// cudaHostRegister range). The bytes are the process's own; the access is
// made and reported as an error the launch survives. nullptr otherwise.
uint8_t *Exec::host_page_access(uint64_t addr, uint32_t size, bool write,
                                uint32_t lane) {
  constexpr uint64_t kPage = 4096;
  const Allocation *h = gmem->find(addr);
  if (!h || !h->host)
    h = gmem->nearest(addr);
  if (!h || !h->host || addr + size < addr)
    return nullptr;
  const uint64_t first = h->base / kPage * kPage;
  const uint64_t end =
      (h->base + std::max<uint64_t>(h->size, 1) + kPage - 1) / kPage * kPage;
  if (addr >= h->base && addr + size <= h->base + h->size)
    return nullptr; // inside: not this case
  if (addr < first || addr + size > end)
    return nullptr;
  std::string where =
      addr >= h->base + h->size
          ? fmt::format("{} bytes past the end of", addr - (h->base + h->size))
      : addr < h->base ? fmt::format("{} bytes before", h->base - addr)
                       : std::string("the access runs past the end of");
  survive(lane,
          fmt::format("out-of-bounds .global {} of {} byte{} at address {:#x}: "
                      "{} the {}-byte {} at {:#x}; a GPU makes the access (the "
                      "mapping covers the whole page)",
                      write ? "store" : "load", size, size == 1 ? "" : "s",
                      addr, where, h->size,
                      h->name.empty() ? "host memory" : h->name, h->base));
  return reinterpret_cast<uint8_t *>(addr);
}

uint8_t *Exec::global_slow(uint64_t addr, uint32_t size, bool write,
                           uint32_t lane) {
  const Allocation *a = gmem->find(addr);
  if (a && a->heap) {
    // Heap blocks are checked one by one and never cached: another thread
    // may free them at any time.
    std::string detail;
    if (gmem->heap().check(addr, size, detail))
      return a->data + (addr - a->base);
    std::string msg = fmt::format(
        "invalid .global {} of {} byte{} at address {:#x}: {}",
        write ? "store" : "load", size, size == 1 ? "" : "s", addr, detail);
    // The heap is mapped memory on a GPU: a use after free or an overrun
    // inside it does not fault there (measured on H100, driver 580.159.04).
    // It is an error the launch survives, and the access is made.
    if (size <= a->size - (addr - a->base)) {
      survive(lane, msg + "; a GPU makes the access (the heap is mapped)");
      return a->data + (addr - a->base);
    }
    set_error(FaultKind::Heap, lane, std::move(msg));
    fault.space = MemSpace::Global;
    fault.addr = addr;
    fault.size = size;
    fault.write = write;
    return nullptr;
  }
  if (a && a->unmapped && size <= a->size - (addr - a->base)) {
    // Memory a GPU has not mapped yet (graph memory before its allocation
    // node first ran): the access faults there (measured on H200).
    set_error(FaultKind::Unmapped, lane,
              fmt::format("invalid .global {} of {} byte{} at address {:#x}: "
                          "{}; a GPU faults (the memory is not mapped yet)",
                          write ? "store" : "load", size, size == 1 ? "" : "s",
                          addr, a->retired));
    fault.space = MemSpace::Global;
    fault.addr = addr;
    fault.size = size;
    fault.write = write;
    return nullptr;
  }
  if (a && !a->retired.empty() && size <= a->size - (addr - a->base)) {
    // Mapped memory outside its lifetime (graph memory): an error the
    // launch survives, the access is made (a GPU keeps the memory mapped).
    // Never cached: every access is checked.
    survive(lane, fmt::format("invalid .global {} of {} byte{} at address "
                              "{:#x}: {}; the access is made (the memory "
                              "stays mapped, as in a GPU's memory pool)",
                              write ? "store" : "load", size,
                              size == 1 ? "" : "s", addr, a->retired));
    return a->data + (addr - a->base);
  }
  if (!a || size > a->size - (addr - a->base)) {
    if (uint8_t *p = host_page_access(addr, size, write, lane))
      return p;
    set_fault(addr < kNullPage ? FaultKind::Null : FaultKind::OutOfBounds,
              MemSpace::Global, addr, size, lane, write);
    return nullptr;
  }
  g_base2 = g_base;
  g_size2 = g_size;
  g_data2 = g_data;
  g_base = a->base;
  g_size = a->size;
  g_data = a->data;
  return a->data + (addr - a->base);
}

// A .shared::cluster address in a CTA slot of the cluster window
// (cluster_addr.h, docs/clusters.md "DSMEM address map"): the peer's shared
// memory, or a fault naming the target CTA.
uint8_t *Exec::shared_cluster(uint64_t addr, uint32_t size, bool write,
                              uint32_t lane) {
  SharedTarget t;
  uint32_t n = uint32_t(launch->cluster.count());
  if (!resolve_shared_cluster(*cta, addr, t)) {
    set_fault(FaultKind::OutOfBounds, MemSpace::Shared, addr, size, lane,
              write);
    fault.detail = fmt::format(
        "the .shared::cluster address names CTA rank {}, but the cluster has "
        "{} CTA{}",
        t.rank, n, n == 1 ? "" : "s");
    return nullptr;
  }
  if (t.cta->live_warps == 0) {
    const Dim3 &id = t.cta->id;
    set_error(
        FaultKind::Cluster, lane,
        fmt::format(
            ".shared::cluster {} of {} byte{} at .shared::cluster "
            "address {:#x} reaches the shared memory of CTA rank {} of the "
            "cluster (CTA ({},{},{})), which has exited",
            write ? "store" : "load", size, size == 1 ? "" : "s", addr, t.rank,
            id.x, id.y, id.z));
    return nullptr;
  }
  uint64_t sz = t.cta->shared.size();
  if (t.off >= sz || size > sz - t.off) {
    set_fault(FaultKind::OutOfBounds, MemSpace::Shared, addr, size, lane,
              write);
    const uint64_t base = shared_cluster_base(t.rank);
    fault.detail = fmt::format("the shared memory of CTA rank {} of the "
                               "cluster is [{:#x}, {:#x})",
                               t.rank, base, base + sz);
    return nullptr;
  }
  return t.cta->shared.data() + t.off;
}

uint8_t *Exec::translate(MemSpace sp, uint64_t addr, uint32_t size, bool write,
                         uint32_t lane) {
  if (sp == MemSpace::Generic) {
    // Windows are 1 TiB apart (memory_view.h); each is kWindowSize bytes.
    if (addr >= kSharedWindow && addr < kConstWindow + kWindowSize) {
      uint64_t w = (addr - kSharedWindow) >> 40;
      uint64_t off = (addr - kSharedWindow) & ((1ull << 40) - 1);
      static const MemSpace spaces[] = {MemSpace::Shared, MemSpace::Local,
                                        MemSpace::KParam, MemSpace::Const};
      if (off >= kWindowSize) {
        set_fault(FaultKind::OutOfBounds, MemSpace::Generic, addr, size, lane,
                  write);
        fault.detail = "the generic address is in no state space";
        return nullptr;
      }
      uint8_t *p = translate(spaces[w], off, size, write, lane);
      if (!p && fault.kind == FaultKind::Cluster)
        fault.detail += fmt::format(" (generic address {:#x})", addr);
      else if (!p)
        fault.addr = addr,
        fault.detail =
            fmt::format("generic address in the .{} window (offset {:#x})",
                        name_of(spaces[w]), off);
      return p;
    }
    sp = MemSpace::Global;
  }
  switch (sp) {
  case MemSpace::Global:
    return global(addr, size, write, lane);
  case MemSpace::Shared: {
    uint64_t n = cta->shared.size(), off = addr - cta->shared_base;
    if (off >= kSharedCtaWindow)
      return shared_cluster(addr, size, write, lane);
    if (off >= n || size > n - off) {
      set_fault(FaultKind::OutOfBounds, sp, addr, size, lane, write);
      return nullptr;
    }
    return cta->shared.data() + off;
  }
  case MemSpace::Local: {
    uint64_t n = launch->local_bytes;
    if (addr >= n || size > n - addr) {
      set_fault(FaultKind::OutOfBounds, sp, addr, size, lane, write);
      return nullptr;
    }
    return cta->local.data() + uint64_t(thread_of(lane)) * n + addr;
  }
  case MemSpace::KParam: {
    uint64_t n = launch->kparams.size();
    if (write || addr >= n || size > n - addr) {
      set_fault(FaultKind::OutOfBounds, sp, addr, size, lane, write);
      if (write)
        fault.detail = "kernel parameters are read-only";
      return nullptr;
    }
    return const_cast<uint8_t *>(launch->kparams.data()) + addr;
  }
  case MemSpace::Const: {
    uint64_t n = prog->const_image.size();
    if (write || addr >= n || size > n - addr) {
      set_fault(FaultKind::OutOfBounds, sp, addr, size, lane, write);
      if (write)
        fault.detail = "the .const state space is read-only";
      return nullptr;
    }
    return const_cast<uint8_t *>(prog->const_image.data()) + addr;
  }
  default:
    return nullptr;
  }
}

namespace {

// The handlers (their paths: ldst.h). An observed access runs its own
// instantiation, out of line in exec_observed.cpp, so that an unobserved
// run executes exactly the plain code, and the plain handlers compile
// apart from the observed ones (GCC's inlining budget is per file).
// A: the lane type of the address base register, V: of the value
// registers (PTX lets them be wider than the access).
template <MemSpace S, uint32_t B, class A, class V>
void exec_ld(Exec &x, const Inst &in, uint32_t m) {
  if (x.obs) [[unlikely]] {
    observed_ldst<S, B, A, V, false>(x, in, m);
    return;
  }
  exec_ld_impl<S, B, A, V, false>(x, in, m);
}
template <MemSpace S, uint32_t B, class A, class V>
void exec_st(Exec &x, const Inst &in, uint32_t m) {
  if (x.obs) [[unlikely]] {
    observed_ldst<S, B, A, V, true>(x, in, m);
    return;
  }
  exec_st_impl<S, B, A, V, false>(x, in, m);
}

template <MemSpace S, uint32_t B, class A, class V>
ExecFn pick_ldst_of(bool store) {
  return store ? with_avx2<&exec_st<S, B, A, V>>()
               : with_avx2<&exec_ld<S, B, A, V>>();
}
template <MemSpace S, uint32_t B>
ExecFn pick_ldst_b(bool store, uint8_t aw, uint8_t vw) {
  if (aw == 8)
    return vw == 8 ? pick_ldst_of<S, B, uint64_t, uint64_t>(store)
                   : pick_ldst_of<S, B, uint64_t, uint32_t>(store);
  return vw == 8 ? pick_ldst_of<S, B, uint32_t, uint64_t>(store)
                 : pick_ldst_of<S, B, uint32_t, uint32_t>(store);
}
template <MemSpace S>
ExecFn pick_ld(uint32_t bytes, bool store, uint8_t aw, uint8_t vw) {
  switch (bytes) {
  case 1:
    return pick_ldst_b<S, 1>(store, aw, vw);
  case 2:
    return pick_ldst_b<S, 2>(store, aw, vw);
  case 4:
    return pick_ldst_b<S, 4>(store, aw, vw);
  case 8:
    return pick_ldst_b<S, 8>(store, aw, vw);
  default:
    return nullptr;
  }
}
// aw, vw: the lane widths of the address base and the value registers.
ExecFn pick_ldst(MemSpace s, uint32_t bytes, bool store, uint8_t aw,
                 uint8_t vw) {
  switch (s) {
  case MemSpace::Global:
    return pick_ld<MemSpace::Global>(bytes, store, aw, vw);
  case MemSpace::Shared:
    return pick_ld<MemSpace::Shared>(bytes, store, aw, vw);
  case MemSpace::Local:
    return pick_ld<MemSpace::Local>(bytes, store, aw, vw);
  case MemSpace::KParam:
    return pick_ld<MemSpace::KParam>(bytes, store, aw, vw);
  case MemSpace::Const:
    return pick_ld<MemSpace::Const>(bytes, store, aw, vw);
  case MemSpace::Generic:
    return pick_ld<MemSpace::Generic>(bytes, store, aw, vw);
  }
  return nullptr;
}

// ---- atomics ---------------------------------------------------------------
enum AtomOp : uint32_t {
  AAdd,
  AMin,
  AMax,
  AInc,
  ADec,
  AAnd,
  AOr,
  AXor,
  AExch,
  ACas
};

// atom/red .add.f32, as measured on H100: in global memory the operands
// and the result are flushed to sign-preserving zero when subnormal (the
// instruction is RED/ATOMG .ADD.F32.FTZ.RN), in shared memory they are not;
// a NaN result is the canonical 0x7fffffff in both.
float atom_add_f32(float o, float b, bool ftz) {
  auto flush = [&](float v) {
    return ftz && std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v)
                                                     : v;
  };
  float r = flush(flush(o) + flush(b));
  return std::isnan(r) ? std::bit_cast<float>(0x7fffffffu) : r;
}
bool in_shared_memory(MemSpace sp, uint64_t addr) {
  return sp == MemSpace::Shared ||
         (sp == MemSpace::Generic && addr - kSharedWindow < kWindowSize);
}

// a[0] = destination (kNone for red), a[1] = address base, a[2] = b,
// a[3] = c (cas); aux = AtomOp; flags = MemSpace; imm = offset.
// A: the lane type of the address base register.
template <class T, class A>
void exec_atom(Exec &x, const Inst &in, uint32_t m) {
  using I = std::conditional_t<
      sizeof(T) == 4, uint32_t,
      std::conditional_t<sizeof(T) == 8, uint64_t, uint16_t>>;
  const auto *base = x.lanes<A>(in.a[1]);
  const auto *b = x.lanes<T>(in.a[2]);
  const auto *c = in.a[3] != kNone ? x.lanes<T>(in.a[3]) : nullptr;
  auto *d = in.a[0] != kNone ? x.lanes<T>(in.a[0]) : nullptr;
  MemSpace sp = MemSpace(in.flags);
  ++x.progress;
  AccessBatch batch(x, in, AccessType::Atomic, sizeof(T),
                    AtomicOp(uint32_t(AtomicOp::Add) + in.aux));
  for_lanes(m, [&](uint32_t l) {
    if (x.faulted)
      return;
    uint64_t addr = uint64_t(base[l]) + uint64_t(in.imm);
    if (addr & (sizeof(T) - 1)) {
      x.set_fault(FaultKind::Misaligned, sp, addr, sizeof(T), l, true);
      return;
    }
    uint8_t *p = x.translate(sp, addr, sizeof(T), true, l);
    if (!p)
      return;
    batch.add(l, sp, addr);
    // cooperative groups' grid.sync() arrives with an atomic on the grid
    // workspace (docs/clusters.md "grid.sync()").
    if (x.sync_obs && x.launch->grid_workspace &&
        addr - x.launch->grid_workspace < 8 &&
        (sp == MemSpace::Global || sp == MemSpace::Generic)) {
      x.sync_obs->on_grid_sync(thread_event(x, 1u << l));
    }
    std::atomic_ref<I> ref(*reinterpret_cast<I *>(p));
    T vb = as<T>(b[l]);
    I old = ref.load();
    for (;;) {
      T o = std::bit_cast<T>(old), r = o;
      switch (in.aux) {
      case AAdd:
        if constexpr (std::is_same_v<T, float>)
          r = atom_add_f32(o, vb, !in_shared_memory(sp, addr));
        else if constexpr (std::is_floating_point_v<T>)
          r = o + vb;
        else
          r = T(uint64_t(o) + uint64_t(vb));
        break;
      case AMin:
        r = vb < o ? vb : o;
        break;
      case AMax:
        r = vb > o ? vb : o;
        break;
      case AInc:
        if constexpr (std::is_integral_v<T>)
          r = o >= vb ? T(0) : T(o + 1);
        break;
      case ADec:
        if constexpr (std::is_integral_v<T>)
          r = (o == 0 || o > vb) ? vb : T(o - 1);
        break;
      case AAnd:
        if constexpr (std::is_integral_v<T>)
          r = o & vb;
        break;
      case AOr:
        if constexpr (std::is_integral_v<T>)
          r = o | vb;
        break;
      case AXor:
        if constexpr (std::is_integral_v<T>)
          r = o ^ vb;
        break;
      case AExch:
        r = vb;
        break;
      case ACas:
        r = (std::bit_cast<I>(o) == std::bit_cast<I>(vb)) ? as<T>(c[l]) : o;
        break;
      }
      if (ref.compare_exchange_weak(old, std::bit_cast<I>(r)))
        break;
    }
    if (d)
      d[l] = bits(std::bit_cast<T>(old));
  });
  batch.emit();
}
template <class T> ExecFn atom_fn(uint8_t aw) {
  return aw == 8 ? &exec_atom<T, uint64_t> : &exec_atom<T, uint32_t>;
}

// A compare-and-swap loop seeded by a plain load of its location (the CUDA
// Programming Guide's atomicAdd for double: `old = *address; do { assumed =
// old; old = atomicCAS(address, assumed, ...); } while (assumed != old);`):
// the load's value is only the first expected value, which the CAS checks.
// A plain scalar load of the same function, at most 32 instructions before
// the `atom.cas`, with the same address and size, whose destination is the
// CAS's compare operand, is reported to the observer as a .relaxed load of
// the CAS's scope (docs/checker.md "Decisions"): morally strong with the
// atomics on the location, still a race with plain writes.
void mark_cas_seed(Compiler &c, uint32_t base, const Addr &addr,
                   uint32_t compare, uint8_t bytes, uint8_t scope) {
  const uint32_t pc = uint32_t(c.prog.code.size() - 1);
  for (auto it = c.seed_loads.rbegin(); it != c.seed_loads.rend(); ++it) {
    if (it->fidx != c.fidx || it->pc + 32 < pc)
      break;
    if (it->base == base && it->off == addr.off &&
        it->space == uint8_t(addr.space) && it->bytes == bytes &&
        it->dst == compare) {
      c.prog.code[it->pc].order = uint8_t(MemOrder::Relaxed);
      c.prog.code[it->pc].scope = scope;
      return;
    }
  }
}

// The memory-consistency qualifiers of ld / st / atom / red, kept on the
// instruction for the observer (docs/observer.md): they change nothing in
// a sequentially consistent engine (docs/memory-model.md), but the race
// checker decides synchronization by them. Defaults (PTX ISA "Memory
// Consistency Model"): ld/st without .sem are weak; atom/red without .sem
// are .relaxed, and without a scope .gpu.
void take_order(Mods &mods, bool atomic, uint8_t &order, uint8_t &scope) {
  using ptx::Mod;
  const Mod sem =
      mods.take_any({Mod::weak, Mod::volatile_, Mod::relaxed, Mod::acquire,
                     Mod::release, Mod::acq_rel, Mod::sc});
  const Mod sc = mods.take_any({Mod::cta, Mod::cluster, Mod::gpu, Mod::sys});
  MemOrder o = sem == Mod::volatile_ ? MemOrder::Volatile
               : sem == Mod::relaxed ? MemOrder::Relaxed
               : sem == Mod::acquire ? MemOrder::Acquire
               : sem == Mod::release ? MemOrder::Release
               : sem == Mod::acq_rel ? MemOrder::AcqRel
               : sem == Mod::sc      ? MemOrder::Sc
               : atomic              ? MemOrder::Relaxed
                                     : MemOrder::Weak;
  MemScope s = sc == Mod::cta       ? MemScope::Cta
               : sc == Mod::cluster ? MemScope::Cluster
               : sc == Mod::gpu     ? MemScope::Gpu
               : sc == Mod::sys     ? MemScope::Sys
               : o == MemOrder::Volatile
                   ? MemScope::Sys // sm_70+: .volatile = .relaxed.sys
               : o == MemOrder::Weak ? MemScope::None
                                     : MemScope::Gpu;
  order = uint8_t(o);
  scope = uint8_t(s);
}

bool take_ignored(Mods &mods) {
  // Cache qualifiers: no effect on this engine (docs/engine.md "Memory");
  // they are accepted.
  using ptx::Mod;
  static const std::initializer_list<Mod> ignored = {Mod::mmio,
                                                     Mod::nc,
                                                     Mod::ca,
                                                     Mod::cg,
                                                     Mod::cs,
                                                     Mod::lu,
                                                     Mod::cv,
                                                     Mod::wb,
                                                     Mod::wt,
                                                     Mod::L1_evict_normal,
                                                     Mod::L1_evict_unchanged,
                                                     Mod::L1_evict_first,
                                                     Mod::L1_evict_last,
                                                     Mod::L1_no_allocate,
                                                     Mod::L2_evict_normal,
                                                     Mod::L2_evict_first,
                                                     Mod::L2_evict_last,
                                                     Mod::L2_64B,
                                                     Mod::L2_128B,
                                                     Mod::L2_256B,
                                                     Mod::noftz};
  bool any = false;
  while (mods.take_any(ignored) != Mod::unknown)
    any = true;
  return any;
}

// multimem.ld_reduce / .st / .red: the address names a multicast object whose
// only member is the simulated device (docs/engine.md "multimem"), so each
// form is compiled as the ld / st / red of that one copy: the reduction of
// one value is the value (.acc::f32 accumulation is exact for one element),
// and the access keeps its semantics and scope for the observer.
bool compile_multimem(Compiler &c, const ptx::Instruction &in) {
  if (in.modifiers.empty()) {
    c.unsupported("multimem form");
    return true;
  }
  using ptx::Mod;
  const Mod form = in.mods.front();
  ptx::Instruction plain = in;
  plain.modifiers.clear();
  if (form == Mod::ld_reduce)
    plain.opcode = ptx::name_of(ptx::Op::ld);
  else if (form == Mod::st)
    plain.opcode = ptx::name_of(ptx::Op::st);
  else if (form == Mod::red)
    plain.opcode = ptx::name_of(ptx::Op::red);
  else {
    c.unsupported("multimem form");
    return true;
  }
  for (size_t k = 1; k < in.modifiers.size(); ++k) {
    const Mod m = in.mods[k];
    if (m == Mod::acc_f32)
      continue; // exact for one element: the result rounds to the type
    if (form == Mod::ld_reduce &&
        (m == Mod::add || m == Mod::min || m == Mod::max || m == Mod::and_ ||
         m == Mod::or_ || m == Mod::xor_))
      continue; // the reduction of one value is the value
    if (form != Mod::red && (m == Mod::f16x2 || m == Mod::bf16x2)) {
      plain.modifiers.emplace_back(ptx::name_of(Mod::b32)); // moved as bits
      continue;
    }
    if (form != Mod::red && (m == Mod::f16 || m == Mod::bf16)) {
      plain.modifiers.emplace_back(ptx::name_of(Mod::b16));
      continue;
    }
    plain.modifiers.push_back(in.modifiers[k]);
  }
  ptx::resolve(plain);
  const ptx::Instruction *outer = c.cur;
  c.cur = &plain;
  bool ok = compile_memory(c, plain);
  c.cur = outer;
  return ok;
}

} // namespace

bool compile_memory(Compiler &c, const ptx::Instruction &in) {
  const ptx::Op op = in.op;
  const auto &o = in.operands;
  using K = ptx::Operand::Kind;
  if (op == ptx::Op::multimem)
    return compile_multimem(c, in);
  if (op == ptx::Op::prefetch || op == ptx::Op::prefetchu) {
    return true; // a hint: nothing to do
  }
  bool is_ld = op == ptx::Op::ld || op == ptx::Op::ldu;
  bool is_st = op == ptx::Op::st;
  bool is_atom = op == ptx::Op::atom || op == ptx::Op::red;
  if (!is_ld && !is_st && !is_atom)
    return false;
  Mods mods(in);
  using ptx::Mod;
  const ptx::Space sp = ptx::space_of(mods.take_any(
      {Mod::global, Mod::shared, Mod::shared_cta, Mod::local, Mod::param,
       Mod::param_entry, Mod::param_func, Mod::const_, Mod::shared_cluster}));
  // .shared::cluster accesses use the Shared space: an address in another
  // rank's slot reaches that CTA of the cluster (cluster_addr.h).
  if (mods.take(ptx::Mod::L2_cache_hint)) {
    // A cache policy (the last operand) changes no result: compiled as
    // the same access without the hint.
    ptx::Instruction plain = in;
    const auto hint =
        std::find(in.mods.begin(), in.mods.end(), Mod::L2_cache_hint);
    plain.modifiers.erase(plain.modifiers.begin() + (hint - in.mods.begin()));
    ptx::resolve(plain); // its resolved modifiers lose the hint too
    if (!plain.operands.empty())
      plain.operands.pop_back();
    // Operand checks read the compiler's current instruction.
    const ptx::Instruction *outer = c.cur;
    c.cur = &plain;
    bool ok = compile_memory(c, plain);
    c.cur = outer;
    return ok;
  }
  using S = ptx::Space;
  MemSpace space = sp == S::None     ? MemSpace::Generic
                   : sp == S::Global ? MemSpace::Global
                   : sp == S::Shared || sp == S::SharedCluster
                       ? MemSpace::Shared
                   : sp == S::Local ? MemSpace::Local
                   : sp == S::Param ? MemSpace::KParam
                                    : MemSpace::Const;
  uint8_t order = 0, scope = 0;
  take_order(mods, is_atom, order, scope);
  take_ignored(mods);
  if (is_atom) {
    // In the order of the atomic operations' enumerators (AAdd, ...).
    static const Mod names[] = {Mod::add,  Mod::min,  Mod::max, Mod::inc,
                                Mod::dec,  Mod::and_, Mod::or_, Mod::xor_,
                                Mod::exch, Mod::cas};
    int aop = -1;
    for (int k = 0; k < 10; ++k)
      if (mods.take(names[k]))
        aop = k;
    const Mod vec = mods.take_any({Mod::v2, Mod::v4, Mod::v8});
    take_ignored(mods);
    auto t = mods.take_type();
    if (aop < 0 || !t) {
      c.error(in.loc,
              fmt::format("'{}' needs an operation and a type", c.text_of(in)));
      return true;
    }
    if (vec != Mod::unknown) {
      // atom/red .v2/.v4 .f32 .add (sm_90): one f32 atomic add per element,
      // at consecutive addresses (each element is atomic on its own).
      // multimem.red (compiled as red) also has .v8 and the half types.
      const size_t n = vec == Mod::v2 ? 2 : vec == Mod::v4 ? 4 : 8;
      bool red = op == ptx::Op::red;
      WidthPick vf = nullptr;
      if (aop == int(AAdd) && t->code == Ty::F32)
        vf = &atom_fn<float>;
      else if (aop == int(AAdd) && red &&
               (t->code == Ty::F16 || t->code == Ty::BF16 ||
                t->code == Ty::F16X2 || t->code == Ty::BF16X2))
        vf = atom_half_add(*t);
      if (!vf || (n == 8 && t->code == Ty::F32)) {
        c.unsupported("vector atomic (.f32, or for red the half types, .add)");
        return true;
      }
      if (!c.expect_operands(red ? 2 : 3) || !c.finish(mods))
        return true;
      size_t ai = red ? 0 : 1;
      const auto &vb = o[ai + 1];
      if (vb.kind != K::Vector || vb.elems.size() != n ||
          (!red && (o[0].kind != K::Vector || o[0].elems.size() != n))) {
        c.error(vb.loc, fmt::format("expected vectors of {} elements", n));
        return true;
      }
      Addr addr;
      if (!c.address(o[ai], space, addr))
        return true;
      uint32_t base = addr.base == kNone ? c.const_slot(0, 8) : addr.base;
      for (size_t k = 0; k < n; ++k) {
        uint32_t b = c.src(vb.elems[k], *t);
        uint32_t d = kNone;
        if (!red)
          d = o[0].elems[k].kind == K::Sink ? c.scratch_slot(width_of(*t))
                                            : c.dst(o[0].elems[k]);
        Inst &i = c.emit(vf(c.width(base, Ty{Ty::U64})));
        i.a[0] = d;
        i.a[1] = base;
        i.a[2] = b;
        i.a[3] = kNone;
        i.aux = uint32_t(AAdd);
        i.flags = uint8_t(addr.space);
        i.imm = addr.off + int64_t(t->bytes() * k);
        i.order = order;
        i.scope = scope;
        i.n = t->code == Ty::BF16 || t->code == Ty::BF16X2 ? 1 : 0;
      }
      return true;
    }
    if (space == MemSpace::Local || space == MemSpace::KParam ||
        space == MemSpace::Const) {
      c.unsupported("state space for atomics");
      return true;
    }
    WidthPick f = nullptr;
    bool is_int_op = aop >= int(AAnd) && aop <= int(AXor);
    switch (t->code) {
    case Ty::U32:
    case Ty::B32:
      f = &atom_fn<uint32_t>;
      break;
    case Ty::S32:
      f = &atom_fn<int32_t>;
      break;
    case Ty::U64:
    case Ty::B64:
      f = &atom_fn<uint64_t>;
      break;
    case Ty::S64:
      f = &atom_fn<int64_t>;
      break;
    case Ty::F32:
      if (!is_int_op && aop != int(AInc) && aop != int(ADec))
        f = &atom_fn<float>;
      break;
    case Ty::F64:
      if (!is_int_op && aop != int(AInc) && aop != int(ADec))
        f = &atom_fn<double>;
      break;
    case Ty::B16:
    case Ty::U16:
      if (aop == int(ACas) || aop == int(AExch) || aop == int(AAdd))
        f = &atom_fn<uint16_t>;
      break;
    case Ty::F16:
    case Ty::F16X2:
    case Ty::BF16:
    case Ty::BF16X2:
      if (aop == int(AAdd))
        f = atom_half_add(*t);
      break;
    default:
      break;
    }
    if (!f) {
      c.unsupported("atomic operation type");
      return true;
    }
    bool red = op == ptx::Op::red;
    size_t want = (red ? 2 : 3) + (aop == int(ACas) ? 1 : 0);
    if (!c.expect_operands(want) || !c.finish(mods))
      return true;
    size_t ai = red ? 0 : 1;
    Addr addr;
    if (!c.address(o[ai], space, addr))
      return true;
    uint32_t b = c.src(o[ai + 1], *t);
    uint32_t cc = aop == int(ACas) ? c.src(o[ai + 2], *t) : kNone;
    uint32_t d = red ? kNone : c.dst(o[0]);
    uint32_t base = addr.base == kNone ? c.const_slot(0, 8) : addr.base;
    Inst &i = c.emit(f(c.width(base, Ty{Ty::U64})));
    i.a[0] = d;
    i.a[1] = base;
    i.a[2] = b;
    i.a[3] = cc;
    i.aux = uint32_t(aop);
    i.flags = uint8_t(addr.space);
    i.imm = addr.off;
    i.order = order;
    i.scope = scope;
    i.n = t->code == Ty::BF16 || t->code == Ty::BF16X2 ? 1 : 0;
    if (aop == int(ACas))
      mark_cas_seed(c, base, addr, b, uint8_t(t->bytes()), scope);
    return true;
  }
  uint32_t n = 1;
  const ptx::Mod vec =
      mods.take_any({ptx::Mod::v2, ptx::Mod::v4, ptx::Mod::v8});
  if (vec == ptx::Mod::v2)
    n = 2;
  else if (vec == ptx::Mod::v4)
    n = 4;
  else if (vec == ptx::Mod::v8)
    n = 8;
  take_ignored(mods);
  auto t = mods.take_type();
  if (!t) {
    c.error(in.loc, fmt::format("'{}' needs a type", c.text_of(in)));
    return true;
  }
  if (t->code == Ty::PRED || t->bits() > 64 || n > 4) {
    c.unsupported("access type");
    return true;
  }
  if (!c.expect_operands(2) || !c.finish(mods))
    return true;
  const auto &aop = is_ld ? o[1] : o[0];
  const auto &vop = is_ld ? o[0] : o[1];
  Addr addr;
  if (!c.address(aop, space, addr))
    return true;
  uint32_t vals[4] = {kNone, kNone, kNone, kNone};
  if (n > 1) {
    if (vop.kind != K::Vector || vop.elems.size() != n) {
      c.error(vop.loc, fmt::format("expected a vector of {} elements", n));
      return true;
    }
    for (uint32_t k = 0; k < n; ++k) {
      const auto &e = vop.elems[k];
      if (is_ld)
        vals[k] = e.kind == K::Sink ? kNone : c.dst(e);
      else
        vals[k] = c.src(e, *t);
    }
  } else {
    vals[0] = is_ld ? c.dst(vop) : c.src(vop, *t);
  }
  uint8_t vw = 0;
  for (uint32_t k = 0; k < n; ++k)
    if (vals[k] != kNone) {
      if (vw && c.width(vals[k], *t) != vw) {
        c.unsupported("vector of registers of two widths");
        return true;
      }
      vw = c.width(vals[k], *t);
    }
  uint32_t base = addr.base == kNone ? c.const_slot(0, 8) : addr.base;
  ExecFn f = pick_ldst(addr.space, t->bytes(), is_st,
                       c.width(base, Ty{Ty::U64}), vw ? vw : width_of(*t));
  if (!f) {
    c.unsupported("access size");
    return true;
  }
  Inst &i = c.emit(f);
  i.a[0] = base;
  for (uint32_t k = 0; k < n; ++k)
    i.a[1 + k] = vals[k];
  i.n = uint8_t(n);
  i.imm = addr.off;
  i.flags = (is_ld && t->is_signed()) ? 1 : 0;
  i.order = order;
  i.scope = scope;
  if (is_ld && n == 1 && vals[0] != kNone && order == uint8_t(MemOrder::Weak) &&
      (addr.space == MemSpace::Global || addr.space == MemSpace::Shared ||
       addr.space == MemSpace::Generic))
    c.seed_loads.push_back({uint32_t(c.prog.code.size() - 1), c.fidx, base,
                            vals[0], addr.off, uint8_t(addr.space),
                            uint8_t(t->bytes())});
  return true;
}

} // namespace bcusim::engine::detail
