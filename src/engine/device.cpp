// The public API around the scheduler: scalar types, kernel arguments,
// device memory, launch validation (docs/api.md).
#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "compile.h"
#include "run.h"

namespace bcusim::engine {

using namespace detail;

uint32_t size_of(ScalarType t) {
  switch (t) {
  case ScalarType::U8:
  case ScalarType::S8:
    return 1;
  case ScalarType::U16:
  case ScalarType::S16:
    return 2;
  case ScalarType::U32:
  case ScalarType::S32:
  case ScalarType::F32:
    return 4;
  default:
    return 8;
  }
}
bool is_float(ScalarType t) {
  return t == ScalarType::F32 || t == ScalarType::F64;
}
bool is_signed(ScalarType t) {
  return t == ScalarType::S8 || t == ScalarType::S16 || t == ScalarType::S32 ||
         t == ScalarType::S64;
}
std::string_view name_of(ScalarType t) {
  static const char *const names[] = {"u8",  "u16", "u32", "u64", "s8",
                                      "s16", "s32", "s64", "f32", "f64"};
  return names[static_cast<int>(t)];
}
std::optional<ScalarType> parse_scalar_type(std::string_view n) {
  for (int i = 0; i <= static_cast<int>(ScalarType::F64); ++i)
    if (name_of(ScalarType(i)) == n)
      return ScalarType(i);
  return std::nullopt;
}

std::string_view name_of(RunStatus s) {
  switch (s) {
  case RunStatus::Ok:
    return "ok";
  case RunStatus::BadLaunch:
    return "bad launch";
  case RunStatus::Fault:
    return "fault";
  case RunStatus::Trap:
    return "trap";
  case RunStatus::Deadlock:
    return "deadlock";
  case RunStatus::StepLimit:
    return "step limit";
  case RunStatus::TimeLimit:
    return "time limit";
  }
  return "?";
}

std::string_view name_of(RunProblem p) {
  switch (p) {
  case RunProblem::Fault:
    return "fault";
  case RunProblem::Trap:
    return "trap";
  case RunProblem::Deadlock:
    return "deadlock";
  case RunProblem::BarrierDivergence:
    return "barrier divergence";
  case RunProblem::SyncMisuse:
    return "sync misuse";
  case RunProblem::Limit:
    return "limit";
  case RunProblem::BadLaunch:
    return "bad launch";
  }
  return "?";
}

std::string RunReport::diagnostics_text() const {
  std::string s;
  for (auto &d : diagnostics)
    s += render(d);
  return s;
}

namespace {
template <class T> KernelArg make_arg(T v, bool f, bool s) {
  KernelArg a;
  a.bytes.resize(sizeof(T));
  std::memcpy(a.bytes.data(), &v, sizeof(T));
  a.is_float = f;
  a.is_signed = s;
  return a;
}
} // namespace

KernelArg KernelArg::u8(uint8_t v) { return make_arg(v, false, false); }
KernelArg KernelArg::u16(uint16_t v) { return make_arg(v, false, false); }
KernelArg KernelArg::u32(uint32_t v) { return make_arg(v, false, false); }
KernelArg KernelArg::u64(uint64_t v) { return make_arg(v, false, false); }
KernelArg KernelArg::s32(int32_t v) { return make_arg(v, false, true); }
KernelArg KernelArg::s64(int64_t v) { return make_arg(v, false, true); }
KernelArg KernelArg::f32(float v) { return make_arg(v, true, false); }
KernelArg KernelArg::f64(double v) { return make_arg(v, true, false); }
KernelArg KernelArg::ptr(DevicePtr p) {
  KernelArg a = make_arg(p, false, false);
  a.is_pointer = true;
  return a;
}
KernelArg KernelArg::raw(const void *data, size_t size) {
  KernelArg a;
  a.bytes.resize(size);
  std::memcpy(a.bytes.data(), data, size);
  return a;
}

namespace {
std::optional<uint64_t> parse_decimal(std::string_view num) {
  if (num.empty())
    return std::nullopt;
  uint64_t v = 0;
  for (char ch : num) {
    if (ch < '0' || ch > '9')
      return std::nullopt;
    uint64_t nv = v * 10 + uint64_t(ch - '0');
    if (nv / 10 != v)
      return std::nullopt;
    v = nv;
  }
  return v;
}
} // namespace

std::optional<Schedule> Schedule::parse(std::string_view text) {
  Schedule s;
  if (text == "rr" || text == "round-robin" || text == "default")
    return s;
  if (text == "reverse") {
    s.kind = Kind::Reverse;
    return s;
  }
  if (text.rfind("delay:", 0) == 0) {
    auto w = parse_decimal(text.substr(6));
    if (!w || *w >= 32)
      return std::nullopt;
    s.kind = Kind::Delay;
    s.warp = uint32_t(*w);
    return s;
  }
  if (text.rfind("random:", 0) == 0) {
    auto v = parse_decimal(text.substr(7));
    if (!v)
      return std::nullopt;
    s.kind = Kind::Random;
    s.seed = *v;
    return s;
  }
  return std::nullopt;
}

std::string Schedule::str() const {
  switch (kind) {
  case Kind::RoundRobin:
    return "rr";
  case Kind::Reverse:
    return "reverse";
  case Kind::Delay:
    return "delay:" + std::to_string(warp);
  case Kind::Random:
    return "random:" + std::to_string(seed);
  }
  return "rr";
}

std::vector<Schedule> Schedule::exploration(unsigned n, const Schedule &first,
                                            uint32_t warps) {
  std::vector<Schedule> all{first, Schedule{}, Schedule{Kind::Reverse}};
  warps = std::min<uint32_t>(warps, 32);
  // Delayed warps and random seeds alternate, so that a short exploration
  // gets some of each; once every warp was delayed, only seeds follow.
  for (uint64_t k = 0; all.size() < size_t(n) + 3; ++k) {
    Schedule r{Kind::Random};
    r.seed = k + 1;
    all.push_back(r);
    if (k < warps && warps > 1) {
      Schedule d{Kind::Delay};
      d.warp = uint32_t(k);
      all.push_back(d);
    }
  }
  std::vector<Schedule> list;
  for (const auto &s : all) {
    if (list.size() >= n)
      break;
    if (std::find(list.begin(), list.end(), s) == list.end())
      list.push_back(s);
  }
  return list;
}

void random_element(ScalarType t, SplitMix64 &rng, uint8_t *out) {
  uint64_t x = rng.next();
  if (t == ScalarType::F32) {
    float f = float(x >> 40) * 0x1.0p-24f;
    std::memcpy(out, &f, 4);
  } else if (t == ScalarType::F64) {
    double d = double(x >> 11) * 0x1.0p-53;
    std::memcpy(out, &d, 8);
  } else {
    std::memcpy(out, &x, size_of(t));
  }
}

Device::Device() : memory_(std::make_unique<GlobalMemory>()) {}
Device::~Device() = default;

DevicePtr Device::alloc(uint64_t bytes, std::string name) {
  return memory_->alloc(bytes, std::move(name));
}

std::optional<Device::AllocationInfo> Device::allocation(DevicePtr addr) const {
  const Allocation *a = memory_->find(addr);
  if (!a)
    return std::nullopt;
  return AllocationInfo{a->base, a->size, a->name};
}
bool Device::free(DevicePtr p) { return memory_->free(p); }
bool Device::set_retired(DevicePtr p, std::string why, bool unmapped) {
  return memory_->set_retired(p, std::move(why), unmapped);
}

void Device::map_module(const Module &module) {
  memory_->map_program(module.program());
}

bool Device::map_host(void *host, uint64_t bytes, std::string name) {
  return memory_->map_host(static_cast<uint8_t *>(host), bytes,
                           std::move(name));
}

bool Device::unmap_host(void *host) {
  return memory_->unmap_host(reinterpret_cast<uint64_t>(host));
}

uint64_t Device::create_texture(const Texture &t) {
  return memory_->add_texture(t);
}

bool Device::destroy_texture(uint64_t handle) {
  return memory_->remove_texture(handle);
}

bool Device::set_heap_size(uint64_t bytes) {
  return memory_->set_heap_size(bytes);
}

uint64_t Device::heap_size() const { return memory_->heap_size(); }

bool Device::heap_used() const { return memory_->heap_used(); }

std::vector<Device::HeapBlockInfo> Device::heap_blocks() const {
  std::vector<HeapBlockInfo> out;
  for (auto &[base, b] : memory_->heap().live())
    out.push_back({base, b.size, b.by});
  return out;
}

uint64_t Device::simulated_ns() const { return memory_->sim_ns; }

bool Device::is_device_address(DevicePtr addr) {
  // Module variables from kModuleGlobalBase, allocations from
  // kUserGlobalBase; 8 TiB of room above it.
  return addr >= kModuleGlobalBase && addr < kUserGlobalBase + (1ull << 43);
}

uint8_t *Device::data(DevicePtr p, uint64_t bytes) {
  const Allocation *a = memory_->find(p);
  if (!a || bytes > a->size - (p - a->base))
    return nullptr;
  return a->data + (p - a->base);
}

bool Device::write(DevicePtr dst, const void *src, uint64_t bytes) {
  const Allocation *a = memory_->find(dst);
  if (!a || bytes > a->size - (dst - a->base))
    return false;
  if (bytes)
    std::memcpy(a->data + (dst - a->base), src, bytes);
  return true;
}

bool Device::read(DevicePtr src, void *dst, uint64_t bytes) const {
  const Allocation *a = memory_->find(src);
  if (!a || bytes > a->size - (src - a->base))
    return false;
  if (bytes)
    std::memcpy(dst, a->data + (src - a->base), bytes);
  return true;
}

RunReport Device::launch(const Module &module, const std::string &kernel,
                         const LaunchConfig &config,
                         const std::vector<KernelArg> &args) {
  RunReport bad;
  bad.status = RunStatus::BadLaunch;
  auto fail = [&](SourceLoc loc, std::string msg) {
    RunDiagnostic d;
    d.kind = RunProblem::BadLaunch;
    d.loc = loc;
    d.message = std::move(msg);
    bad.diagnostics.push_back(std::move(d));
    return bad;
  };
  Program &P = module.program();
  const FuncInfo *k = nullptr;
  for (auto &f : P.funcs)
    if (f.is_entry && f.name == kernel)
      k = &f;
  if (!k)
    return fail({}, fmt::format("no kernel named '{}' in the module", kernel));
  if (!k->blocked_by.empty()) {
    for (const auto &d : k->blocked_by)
      bad.diagnostics.push_back({d, RunProblem::BadLaunch});
    return bad;
  }
  const ptx::Function &fa = *k->ast;
  const Dim3 &b = config.block, &g = config.grid;
  if (b.x == 0 || b.y == 0 || b.z == 0 || g.x == 0 || g.y == 0 || g.z == 0)
    return fail({}, "grid and block dimensions must be at least 1");
  if (b.count() > 1024)
    return fail(
        {},
        fmt::format("block {}x{}x{} has {} threads; a CTA holds at most 1024",
                    b.x, b.y, b.z, b.count()));
  if (b.z > 64)
    return fail({}, "block z dimension must be at most 64");
  if (g.y > 65535 || g.z > 65535)
    return fail({}, "grid y and z dimensions must be at most 65535");
  if (fa.reqntid[0]) {
    Dim3 r{fa.reqntid[0], std::max(1u, fa.reqntid[1]),
           std::max(1u, fa.reqntid[2])};
    if (!(r == b))
      return fail(
          fa.loc,
          fmt::format("kernel '{}' requires a block of {}x{}x{} threads "
                      "(.reqntid); the launch has {}x{}x{}",
                      kernel, r.x, r.y, r.z, b.x, b.y, b.z));
  }
  if (fa.maxntid[0]) {
    uint64_t maxn = uint64_t(fa.maxntid[0]) * std::max(1u, fa.maxntid[1]) *
                    std::max(1u, fa.maxntid[2]);
    if (b.count() > maxn)
      return fail(fa.loc,
                  fmt::format("kernel '{}' allows at most {} threads per CTA "
                              "(.maxntid); the launch has {}",
                              kernel, maxn, b.count()));
  }
  Launch L;
  L.prog = &P;
  L.kernel = k;
  L.kernel_name = kernel;
  L.grid = g;
  L.block = b;
  Dim3 cl = config.cluster;
  if (cl.x == 0 && cl.y == 0 && cl.z == 0) {
    if (fa.reqnctapercluster[0])
      cl = Dim3{fa.reqnctapercluster[0], std::max(1u, fa.reqnctapercluster[1]),
                std::max(1u, fa.reqnctapercluster[2])};
    else
      cl = Dim3{1, 1, 1};
    L.has_cluster = fa.reqnctapercluster[0] != 0 || fa.explicitcluster;
  } else {
    if (cl.x == 0 || cl.y == 0 || cl.z == 0)
      return fail({}, "cluster dimensions must be at least 1");
    L.has_cluster = true;
    if (fa.reqnctapercluster[0]) {
      Dim3 r{fa.reqnctapercluster[0], std::max(1u, fa.reqnctapercluster[1]),
             std::max(1u, fa.reqnctapercluster[2])};
      if (!(r == cl))
        return fail(
            fa.loc,
            fmt::format("kernel '{}' requires clusters of {}x{}x{} CTAs "
                        "(.reqnctapercluster); the launch has {}x{}x{}",
                        kernel, r.x, r.y, r.z, cl.x, cl.y, cl.z));
    }
  }
  if (cl.count() > 16)
    return fail({},
                fmt::format("a cluster holds at most 16 CTAs; {}x{}x{} has {}",
                            cl.x, cl.y, cl.z, cl.count()));
  if (g.x % cl.x || g.y % cl.y || g.z % cl.z)
    return fail(
        {},
        fmt::format("grid {}x{}x{} is not a multiple of the cluster {}x{}x{}",
                    g.x, g.y, g.z, cl.x, cl.y, cl.z));
  L.cluster = cl;
  L.dyn_shared = config.shared_bytes;
  // The reserved 1 KiB, the launched kernel's own static shared memory,
  // then its dynamic memory (docs/engine.md "Shared memory").
  const uint64_t shared = config.shared_bytes
                              ? uint64_t(config.shared_bytes) +
                                    k->dyn_shared_off - kReservedSmemBytes
                              : uint64_t(k->static_shared);
  if (shared > 227 * 1024)
    return fail(
        {},
        fmt::format("the CTA needs {} bytes of shared memory ({} static + {} "
                    "dynamic); at most 232448 are available",
                    shared, k->static_shared, config.shared_bytes));
  // %total_smem_size counts the static and dynamic bytes in the 128-byte
  // units they are allocated in, without the reserved region: measured on
  // an NVIDIA H200 (driver 580.159.04, CUDA 13.0, 2026-11-28).
  L.total_smem = uint32_t((shared + 127) / 128 * 128);
  L.reserved_smem_off = 0;
  L.reserved_smem = kReservedSmemBytes;
  L.shared_bytes = uint32_t(kReservedSmemBytes + shared);
  // Kernel parameters.
  if (args.size() != k->param_size.size())
    return fail(
        fa.loc,
        fmt::format("kernel '{}' takes {} parameter{}; {} argument{} given",
                    kernel, k->param_size.size(),
                    k->param_size.size() == 1 ? "" : "s", args.size(),
                    args.size() == 1 ? "" : "s"));
  L.kparams.assign(k->kparam_bytes, 0);
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArg &a = args[i];
    uint32_t size = k->param_size[i];
    uint8_t *dst = L.kparams.data() + k->param_off[i];
    if (a.bytes.size() == size) {
      std::memcpy(dst, a.bytes.data(), size);
    } else if (!a.is_float && !a.is_aggregate && size <= 8 &&
               a.bytes.size() <= 8) {
      // Integer of another width: sign- or zero-extend / truncate.
      uint64_t v = 0;
      std::memcpy(&v, a.bytes.data(), a.bytes.size());
      if (a.is_signed && a.bytes.size() < 8) {
        uint32_t sh = 64 - 8 * uint32_t(a.bytes.size());
        v = uint64_t(int64_t(v << sh) >> sh);
      }
      std::memcpy(dst, &v, size);
    } else {
      return fail(
          fa.params[i].loc,
          fmt::format("argument {} has {} bytes; parameter '{}' of kernel '{}' "
                      "has {}",
                      i, a.bytes.size(), fa.params[i].name, kernel, size));
    }
  }
  memory_->map_program(P);
  if (P.uses_heap)
    memory_->map_heap();
  L.timer_base_ns = memory_->sim_ns;
  L.has_prerequisite = config.has_prerequisite;
  L.warn_only = config.warn_only;
  // The per-thread stack of recursive activations (docs/engine.md
  // "Recursion"), after the static frames.
  L.stack_bytes =
      k->reaches_recursion
          ? (std::min(config.stack_size, kMaxStackSize) + 15u) / 16u * 16u
          : 0;
  L.local_bytes = P.frame_bytes + L.stack_bytes;
  // Cooperative groups (grid.sync) read their grid workspace through
  // %envreg1:%envreg2 (docs/clusters.md "grid.sync"): a kernel whose code
  // reads them gets one for this launch, { wsSize = 8, barrier = 0 }.
  const bool cooperative = k->reads_grid_workspace;
  if (cooperative) {
    L.grid_workspace = memory_->alloc(8, "the grid.sync workspace");
    const uint32_t ws[2] = {8, 0};
    write(L.grid_workspace, ws, sizeof(ws));
  }
  // Device-side launches: a pool for the parameter buffers of the grid's
  // launches, which run when it completes (non-tail launches in the order
  // they were made, then tail launches), each with its own descendants.
  const bool launches = k->device_launches;
  detail::DeviceLaunches dl;
  if (launches) {
    dl.pool_size = std::min<uint64_t>(
        uint64_t(config.pending_launch_limit) * 256, uint64_t(16) << 20);
    dl.pool = memory_->alloc(dl.pool_size, "device-side launch parameters");
    dl.depth = config.launch_depth;
    dl.pending_limit = config.pending_launch_limit;
    dl.device_attribute = config.device_attribute;
    dl.error_string = config.error_string;
    L.device_launches = &dl;
  }
  RunReport r = run_launch(*memory_, L, config);
  memory_->sim_ns += detail::cycles_to_ns(r.cycles);
  if (cooperative)
    memory_->free(L.grid_workspace);
  if (launches) {
    for (bool tail : {false, true})
      for (size_t child = 0; child < dl.pending.size(); ++child) {
        const auto &pl = dl.pending[child];
        if (pl.tail != tail || !r.ok())
          continue;
        const auto &b = dl.buffers[pl.buffer];
        const detail::FuncInfo &f = P.funcs[b.func];
        std::vector<KernelArg> child_args;
        for (size_t i = 0; i < f.param_size.size(); ++i) {
          std::vector<uint8_t> bytes(f.param_size[i]);
          read(b.addr + f.param_off[i], bytes.data(), bytes.size());
          child_args.push_back(KernelArg::raw(bytes.data(), bytes.size()));
        }
        LaunchConfig cc = config;
        cc.grid = b.grid;
        cc.block = b.block;
        cc.cluster = Dim3{0, 0, 0};
        cc.shared_bytes = b.shared;
        cc.has_prerequisite = false;
        cc.launch_depth = config.launch_depth + 1;
        const ChildGridEvent ce{child, cc.launch_depth, pl.tail};
        auto tell = [&](void (Observer::*fn)(const ChildGridEvent &)) {
          if (config.observer)
            (config.observer->*fn)(ce);
          for (Observer *o : config.observers)
            if (o && o != config.observer)
              (o->*fn)(ce);
        };
        tell(&Observer::on_child_grid_begin);
        RunReport cr = launch(module, f.name, cc, child_args);
        tell(&Observer::on_child_grid_end);
        r.status = cr.status;
        r.warp_steps += cr.warp_steps;
        r.thread_steps += cr.thread_steps;
        r.seconds += cr.seconds;
        // A grid completes when its children have (CDP2): they run after
        // it here, so its time is theirs too.
        r.cycles += cr.cycles;
        r.printf_output += cr.printf_output;
        for (auto &d : cr.diagnostics)
          r.diagnostics.push_back(std::move(d));
        for (auto &d : cr.notes)
          r.notes.push_back(std::move(d));
      }
    memory_->free(dl.pool);
  }
  return r;
}

} // namespace bcusim::engine
