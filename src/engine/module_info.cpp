// Module queries for host runtimes (docs/api.md "Module"): symbols, the
// constant bank, kernel attributes.
#include <algorithm>
#include <cstring>

#include "compile.h"

namespace bcusim::engine {

using namespace detail;

std::optional<Module::Symbol> Module::symbol(const std::string &name) const {
  for (const auto &v : program_->global_vars)
    if (v.name == name)
      return Symbol{false, v.addr, v.size};
  for (const auto &v : program_->const_vars)
    if (v.name == name)
      return Symbol{true, v.addr, v.size};
  return std::nullopt;
}

bool Module::write_const(uint64_t offset, const void *src, uint64_t bytes) {
  auto &img = program_->const_image;
  if (offset > img.size() || bytes > img.size() - offset)
    return false;
  if (bytes)
    std::memcpy(img.data() + offset, src, bytes);
  return true;
}

std::span<uint8_t> Module::const_bank() { return program_->const_image; }

bool Module::read_const(uint64_t offset, void *dst, uint64_t bytes) const {
  const auto &img = program_->const_image;
  if (offset > img.size() || bytes > img.size() - offset)
    return false;
  if (bytes)
    std::memcpy(dst, img.data() + offset, bytes);
  return true;
}

namespace {

// The static shared memory one kernel uses, as ptxas reports it per kernel
// (cudaFuncGetAttributes' sharedSizeBytes, the occupancy limits): the sized
// .shared variables that its body and the functions it calls name, laid out
// in declaration order. It equals the engine's layout for the kernel
// (FuncInfo::static_shared) unless a variable is reached by several kernels
// (docs/engine.md "Shared memory").
uint64_t kernel_static_shared(const ptx::Module &m, size_t kernel) {
  const KernelReach r = kernel_reach(m, kernel);
  uint64_t top = 0;
  auto place = [&](const ptx::VarDecl &v) {
    if (v.space != ptx::Space::Shared || v.is_extern)
      return;
    const uint64_t esz = ptx::type_bytes(v.type);
    const uint64_t align = v.align ? v.align : std::max<uint64_t>(esz, 1);
    top = (top + align - 1) / align * align + esz * v.element_count();
  };
  for (size_t g = 0; g < m.globals.size(); ++g)
    if (r.globals[g])
      place(m.globals[g]);
  for (size_t f = 0; f < m.functions.size(); ++f)
    if (r.funcs[f])
      for (const auto &v : m.functions[f].locals)
        place(v);
  return top;
}

} // namespace

std::optional<Module::KernelInfo>
Module::kernel_info(const std::string &kernel) const {
  for (const auto &f : program_->funcs) {
    if (!f.is_entry || f.name != kernel)
      continue;
    KernelInfo k;
    k.static_shared = f.static_shared;
    for (size_t i = 0; i < ast_->functions.size(); ++i)
      if (&ast_->functions[i] == f.ast)
        k.static_shared = uint32_t(std::min<uint64_t>(
            kernel_static_shared(*ast_, i), f.static_shared));
    k.local_bytes = program_->frame_bytes;
    k.param_bytes = f.kparam_bytes;
    const auto &a = *f.ast;
    auto dims = [](const std::array<uint32_t, 3> &d) {
      return Dim3{d[0], std::max(1u, d[1]), std::max(1u, d[2])};
    };
    if (a.reqntid[0]) {
      k.reqntid = dims(a.reqntid);
      k.max_threads = uint32_t(k.reqntid.count());
    } else if (a.maxntid[0]) {
      k.max_threads =
          uint32_t(std::min<uint64_t>(1024, dims(a.maxntid).count()));
    }
    if (a.reqnctapercluster[0])
      k.cluster = dims(a.reqnctapercluster);
    return k;
  }
  return std::nullopt;
}

} // namespace bcusim::engine
