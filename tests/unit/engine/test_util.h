// Helpers for the engine tests: load PTX (a string or a file under
// tests/unit/engine/kernels), allocate buffers, launch, read back.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bcusim/engine/engine.h"

namespace bcusim::engine::test {

inline std::string kernel_path(const std::string &name) {
  return std::string(BCUSIM_SOURCE_DIR) + "/tests/unit/engine/kernels/" + name;
}

inline std::unique_ptr<Module> load_file(const std::string &name) {
  DiagnosticSink sink;
  auto m = Module::load_file(kernel_path(name), sink);
  EXPECT_TRUE(m) << sink.render_all();
  return m;
}

// A kernel body wrapped into a module: `params` is the .entry parameter
// list, `body` the instructions with their declarations.
inline std::string ptx_module(const std::string &params,
                              const std::string &body,
                              const std::string &globals = "") {
  return ".version 8.0\n.target sm_80\n.address_size 64\n" + globals +
         "\n.visible .entry k(" + params + ")\n{\n" + body + "\n}\n";
}

inline std::unique_ptr<Module> load_text(const std::string &text,
                                         std::string *errors = nullptr) {
  DiagnosticSink sink;
  auto m = Module::load_string("test.ptx", text, sink);
  if (errors)
    *errors = sink.render_all();
  else
    EXPECT_TRUE(m) << sink.render_all();
  return m;
}

template <class T> DevicePtr upload(Device &d, const std::vector<T> &v) {
  DevicePtr p = d.alloc(v.size() * sizeof(T));
  d.write(p, v.data(), v.size() * sizeof(T));
  return p;
}

template <class T> std::vector<T> download(Device &d, DevicePtr p, size_t n) {
  std::vector<T> v(n);
  d.read(p, v.data(), n * sizeof(T));
  return v;
}

inline LaunchConfig config(Dim3 grid, Dim3 block, unsigned threads = 1) {
  LaunchConfig c;
  c.grid = grid;
  c.block = block;
  c.host_threads = threads;
  c.time_limit_s = 30;
  return c;
}

} // namespace bcusim::engine::test
