// `bcusim exec` (include/bcusim/runtime/exec.h).
#include "bcusim/runtime/exec.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <unistd.h>

#include <fmt/format.h>

#include "bcusim/check/checker.h"
#include "bcusim/engine/engine.h"

namespace bcusim::runtime {

namespace {
void error(const std::string &msg) {
  std::fputs(fmt::format("bcusim: error: {}\n", msg).c_str(), stderr);
}
bool exists(const std::string &p) { return access(p.c_str(), F_OK) == 0; }
} // namespace

std::string cudart_dir(const std::string &self) {
  if (const char *env = std::getenv("BCUSIM_CUDART_DIR"))
    return exists(std::string(env) + "/libcudart.so.13") ? env : "";
  std::string dir = self.substr(0, self.rfind('/') + 1);
  for (const char *sub : {"lib", "../lib"}) {
    std::string d = dir + sub;
    if (exists(d + "/libcudart.so.13"))
      return d;
  }
  return "";
}

std::string check_program(const std::string &program) {
  std::string path = program;
  if (program.find('/') == std::string::npos) {
    const char *env = std::getenv("PATH");
    std::string paths = env ? env : "";
    path.clear();
    size_t pos = 0;
    while (pos <= paths.size()) {
      size_t c = paths.find(':', pos);
      if (c == std::string::npos)
        c = paths.size();
      std::string cand = paths.substr(pos, c - pos) + "/" + program;
      if (access(cand.c_str(), X_OK) == 0) {
        path = cand;
        break;
      }
      pos = c + 1;
    }
    if (path.empty())
      return fmt::format("cannot run '{}': not found in PATH", program);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fmt::format("cannot run '{}': {}", program, std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  if (bytes.rfind("\x7f"
                  "ELF",
                  0) != 0)
    return ""; // a script: it may run CUDA programs itself
  const bool fatbin = bytes.find(".nv_fatbin") != std::string::npos;
  const bool shared = bytes.find("libcudart.so.13") != std::string::npos;
  if (fatbin && !shared)
    return fmt::format(
        "'{}' links the CUDA runtime statically (nvcc's default), so bcusim "
        "cannot stand in for it; rebuild it with nvcc -cudart shared",
        program);
  return "";
}

int exec_program(const RunOptions &o, const std::vector<std::string> &argv,
                 const std::string &lib_dir) {
  std::string err;
  if (o.explore > 0) {
    error("--explore is not available with exec: a program's launches "
          "depend on its host code, which bcusim cannot run again");
    return 2;
  }
  if (!o.check.empty() && !check::Checks::parse(o.check, err)) {
    error(fmt::format("--check: {}", err));
    return 2;
  }
  if (!engine::Schedule::parse(o.schedule)) {
    error(fmt::format("--schedule: '{}' is not {}", o.schedule,
                      engine::Schedule::kForms));
    return 2;
  }
  if (argv.empty()) {
    error("exec: the program to run is required");
    return 2;
  }
  std::string why = check_program(argv[0]);
  if (!why.empty()) {
    error(why);
    return 127;
  }
  if (lib_dir.empty()) {
    error("exec: bcusim's libcudart.so.13 was not found next to the bcusim "
          "binary (lib/) or in BCUSIM_CUDART_DIR; build the project with the "
          "CUDA toolkit's headers present");
    return 127;
  }
  const char *old = std::getenv("LD_LIBRARY_PATH");
  std::string ld = lib_dir + (old && *old ? ":" + std::string(old) : "");
  setenv("LD_LIBRARY_PATH", ld.c_str(), 1);
  setenv(kOptionsEnv, to_env(o).c_str(), 1);
  std::vector<char *> args;
  for (const auto &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(stdout);
  execvp(args[0], args.data());
  error(fmt::format("cannot run '{}': {}", argv[0], std::strerror(errno)));
  return 127;
}

} // namespace bcusim::runtime
