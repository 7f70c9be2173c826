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
// (cudaFuncGetAttributes' sharedSizeBytes, the occupancy and launch limits):
// the sized .shared variables that its body and the functions it calls
// (transitively; every function when one of them calls through a pointer)
// name, laid out in declaration order. The engine lays out every static
// .shared variable of the module for every kernel (Program::static_shared),
// which a module of several kernels with shared arrays of their own would
// otherwise report for each of them.
uint64_t kernel_static_shared(const ptx::Module &m, size_t kernel) {
  std::vector<bool> reached(m.functions.size()), named(m.globals.size());
  std::vector<size_t> work{kernel};
  reached[kernel] = true;
  bool indirect = false;
  auto reach = [&](size_t f) {
    if (f < reached.size() && !reached[f]) {
      reached[f] = true;
      work.push_back(f);
    }
  };
  auto visit = [&](auto &self, const ptx::Operand &o) -> void {
    if (o.sym_kind == ptx::Operand::SymbolKind::Function)
      reach(o.sym_index);
    else if (o.sym_kind == ptx::Operand::SymbolKind::Global &&
             o.sym_index < named.size())
      named[o.sym_index] = true;
    for (const auto &e : o.elems)
      self(self, e);
  };
  while (!work.empty()) {
    const ptx::Function &f = m.functions[work.back()];
    work.pop_back();
    for (const auto &in : f.body) {
      if (in.op == ptx::Op::call) {
        // call (ret), target, (args): an indirect call names a register.
        for (const auto &o : in.operands)
          if (o.kind == ptx::Operand::Kind::Reg) {
            indirect = true;
            break;
          } else if (o.kind == ptx::Operand::Kind::Symbol) {
            break;
          }
      }
      for (const auto &o : in.operands)
        visit(visit, o);
    }
  }
  if (indirect)
    for (size_t f = 0; f < m.functions.size(); ++f)
      if (!m.functions[f].is_entry)
        reached[f] = true;
  uint64_t top = 0;
  auto place = [&](const ptx::VarDecl &v) {
    if (v.space != ptx::Space::Shared || v.is_extern)
      return;
    const uint64_t esz = ptx::type_bytes(v.type);
    const uint64_t align = v.align ? v.align : std::max<uint64_t>(esz, 1);
    top = (top + align - 1) / align * align + esz * v.element_count();
  };
  for (size_t g = 0; g < m.globals.size(); ++g)
    if (named[g])
      place(m.globals[g]);
  for (size_t f = 0; f < m.functions.size(); ++f)
    if (reached[f])
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
    k.static_shared = program_->static_shared;
    for (size_t i = 0; i < ast_->functions.size(); ++i)
      if (&ast_->functions[i] == f.ast)
        k.static_shared = uint32_t(std::min<uint64_t>(
            kernel_static_shared(*ast_, i), program_->static_shared));
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
