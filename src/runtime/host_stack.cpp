// Host call stacks: glibc's backtrace() to capture, elfutils' libdwfl to
// symbolize (include/bcusim/runtime/host_stack.h).
#include "bcusim/runtime/host_stack.h"

#include <atomic>
#include <cstring>
#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>
#include <fmt/format.h>

namespace bcusim::runtime {

namespace {

// The object (executable or shared library) holding an address.
const void *object_of(const void *pc) {
  Dl_info info{};
  return dladdr(pc, &info) ? info.dli_fbase : nullptr;
}

std::string demangled(const char *name) {
  int status = 0;
  char *d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string r = status == 0 && d ? d : name;
  std::free(d);
  return r;
}

} // namespace

std::vector<uintptr_t> capture_host_stack(size_t max) {
  void *buf[64];
  int n = backtrace(buf, 64);
  const void *self =
      object_of(reinterpret_cast<const void *>(&capture_host_stack));
  // The driver API stand-in (libcuda.so.1) calls the runtime: its frames
  // are bcusim's too. Found once it is loaded.
  static std::atomic<const void *> loaded{nullptr};
  const void *driver = loaded.load(std::memory_order_relaxed);
  if (!driver)
    if (const void *s = dlsym(RTLD_DEFAULT, "bcusim_standin_libcuda"))
      loaded.store(driver = object_of(s), std::memory_order_relaxed);
  int first = 0;
  while (first < n && (object_of(buf[first]) == self ||
                       (driver && object_of(buf[first]) == driver)))
    ++first;
  if (first == n) // called from bcusim's own object (tests): skip this frame
    first = n > 1 ? 1 : 0;
  std::vector<uintptr_t> pcs;
  for (int i = first; i < n && pcs.size() < max; ++i)
    pcs.push_back(reinterpret_cast<uintptr_t>(buf[i]));
  return pcs;
}

struct HostSymbolizer::Impl {
  Dwfl_Callbacks callbacks{};
  Dwfl *dwfl = nullptr;
  char *debuginfo_path = nullptr;
  void report() {
    if (dwfl)
      dwfl_end(dwfl);
    dwfl = dwfl_begin(&callbacks);
    if (!dwfl)
      return;
    dwfl_report_begin(dwfl);
    dwfl_linux_proc_report(dwfl, getpid());
    dwfl_report_end(dwfl, nullptr, nullptr);
  }
};

HostSymbolizer::HostSymbolizer() : impl_(std::make_unique<Impl>()) {
  impl_->callbacks.find_elf = dwfl_linux_proc_find_elf;
  impl_->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
  impl_->callbacks.debuginfo_path = &impl_->debuginfo_path;
}

HostSymbolizer::~HostSymbolizer() {
  if (impl_->dwfl)
    dwfl_end(impl_->dwfl);
}

std::vector<std::string>
HostSymbolizer::frames(const std::vector<uintptr_t> &pcs) {
  // Modules loaded since the last call (dlopen) are found by reporting the
  // process's maps again.
  impl_->report();
  std::vector<std::string> out;
  for (uintptr_t pc : pcs) {
    // A return address: the call is the instruction before it.
    Dwarf_Addr a = pc ? pc - 1 : pc;
    Dwfl_Module *m = impl_->dwfl ? dwfl_addrmodule(impl_->dwfl, a) : nullptr;
    const char *fn = m ? dwfl_module_addrname(m, a) : nullptr;
    std::string name = fn ? demangled(fn) : "??";
    int line = 0;
    const char *src = nullptr;
    if (m)
      if (Dwfl_Line *l = dwfl_module_getsrc(m, a))
        src = dwfl_lineinfo(l, nullptr, &line, nullptr, nullptr, nullptr);
    if (src && line > 0)
      out.push_back(fmt::format("{} at {}:{}", name, src, line));
    Dwarf_Addr base = 0;
    const char *mod = m ? dwfl_module_info(m, nullptr, &base, nullptr, nullptr,
                                           nullptr, nullptr, nullptr)
                        : nullptr;
    std::string modname = mod ? mod : "?";
    modname = modname.substr(modname.rfind('/') + 1);
    if (!src || line <= 0)
      out.push_back(fmt::format("{} ({}+{:#x})", name, modname, a - base));
    if (name == "main") // what runs main is not the program's
      break;
  }
  return out;
}

} // namespace bcusim::runtime
