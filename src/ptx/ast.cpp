// Helpers declared in ast.h that are not the parser itself.
#include "bcusim/ptx/ast.h"

#include <algorithm>

namespace bcusim::ptx {

uint64_t VarDecl::element_count() const {
  uint64_t n = std::max<uint64_t>(vec, 1);
  for (uint64_t d : dims) {
    if (d == 0)
      return 0;
    n *= d;
  }
  return n;
}

uint64_t VarDecl::size_bytes() const {
  return element_count() * type_bytes(type);
}

std::string_view Module::file_name(uint32_t n) const {
  for (const auto &[k, name] : files)
    if (k == n)
      return name;
  return {};
}

const Function *Module::find_function(const std::string &name) const {
  // Prefer a definition over a body-less declaration of the same name (the
  // parser merges them, so there is at most one entry per name).
  for (const Function &f : functions)
    if (f.name == name)
      return &f;
  return nullptr;
}

std::vector<const Function *> Module::kernels() const {
  std::vector<const Function *> out;
  for (const Function &f : functions)
    if (f.is_entry && !f.is_extern)
      out.push_back(&f);
  return out;
}

} // namespace bcusim::ptx
