#include "libraries.h"

#include <algorithm>
#include <cstdio>
#include <mutex>

#include "../precompiled.h"

namespace brt = bcusim::runtime;

namespace {

struct Seen {
  std::mutex mutex;
  std::vector<std::string> libraries, functions;
};

// Function-local: the libcuda.so.1 stand-in may call in before this
// library's own constructors have run.
Seen &seen() {
  static Seen *s = new Seen;
  return *s;
}

bool first(std::vector<std::string> &v, const std::string &s) {
  if (std::find(v.begin(), v.end(), s) != v.end())
    return false;
  v.push_back(s);
  return true;
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) void bcusim_cudart_scan_libraries() {
  auto libs = brt::loaded_precompiled_libraries();
  auto &s = seen();
  std::lock_guard lock(s.mutex);
  for (const auto &l : libs)
    if (first(s.libraries, l.file))
      std::fputs(brt::precompiled_library_warning(l).c_str(), stderr);
}

__attribute__((visibility("default"))) void
bcusim_cudart_missing_driver_function(const char *via, const char *name,
                                      const char *result, const void *caller) {
  if (!name)
    return;
  if (!brt::precompiled_library_at(caller).file.empty()) {
    // The library's own warning says why its driver calls fail.
    bcusim_cudart_scan_libraries();
    return;
  }
  auto &s = seen();
  std::lock_guard lock(s.mutex);
  if (first(s.functions, name))
    std::fputs(brt::missing_driver_function_warning(via, name, result).c_str(),
               stderr);
}

} // extern "C"

std::vector<std::string> bcusim::cudart::precompiled_libraries_seen() {
  auto &s = seen();
  std::lock_guard lock(s.mutex);
  return s.libraries;
}

std::vector<std::string> bcusim::cudart::missing_driver_functions_seen() {
  auto &s = seen();
  std::lock_guard lock(s.mutex);
  return s.functions;
}
