// The CUDA runtime over the engine (include/bcusim/runtime/runtime.h,
// docs/exec.md).
#include "bcusim/runtime/runtime.h"
#include <cctype>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <cxxabi.h>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string_view>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "bcusim/check/checker.h"
#include "bcusim/check/output.h"
#include "bcusim/runtime/fatbin.h"
#include "bcusim/runtime/link.h"

namespace bcusim::runtime {

namespace {

struct ErrorText {
  Error e;
  const char *name, *text;
};
constexpr ErrorText kErrors[] = {
    {Error::Success, "cudaSuccess", "no error"},
    {Error::InvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {Error::MemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {Error::InitializationError, "cudaErrorInitializationError",
     "initialization error"},
    {Error::InvalidConfiguration, "cudaErrorInvalidConfiguration",
     "invalid configuration argument"},
    {Error::InvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {Error::InvalidDevicePointer, "cudaErrorInvalidDevicePointer",
     "invalid device pointer"},
    {Error::DevicesUnavailable, "cudaErrorDevicesUnavailable",
     "CUDA-capable device(s) is/are busy or unavailable"},
    {Error::InvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
     "invalid copy direction for memcpy"},
    {Error::InvalidDeviceFunction, "cudaErrorInvalidDeviceFunction",
     "invalid device function"},
    {Error::NoDevice, "cudaErrorNoDevice",
     "no CUDA-capable device is detected"},
    {Error::InvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {Error::NoKernelImageForDevice, "cudaErrorNoKernelImageForDevice",
     "no kernel image is available for execution on the device"},
    {Error::InvalidPtx, "cudaErrorInvalidPtx", "a PTX JIT compilation failed"},
    {Error::InvalidResourceHandle, "cudaErrorInvalidResourceHandle",
     "invalid resource handle"},
    {Error::NotReady, "cudaErrorNotReady", "device not ready"},
    {Error::IllegalAddress, "cudaErrorIllegalAddress",
     "an illegal memory access was encountered"},
    {Error::LaunchOutOfResources, "cudaErrorLaunchOutOfResources",
     "too many resources requested for launch"},
    {Error::LaunchTimeout, "cudaErrorLaunchTimeout",
     "the launch timed out and was terminated"},
    {Error::Assert, "cudaErrorAssert", "device-side assert triggered"},
    {Error::HostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered",
     "part or all of the requested memory range is already mapped"},
    {Error::HostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered",
     "pointer does not correspond to a registered memory region"},
    {Error::IllegalInstruction, "cudaErrorIllegalInstruction",
     "an illegal instruction was encountered"},
    {Error::MisalignedAddress, "cudaErrorMisalignedAddress",
     "misaligned address"},
    {Error::LaunchFailure, "cudaErrorLaunchFailure",
     "unspecified launch failure"},
    {Error::CooperativeLaunchTooLarge, "cudaErrorCooperativeLaunchTooLarge",
     "too many blocks in cooperative launch"},
    {Error::NotSupported, "cudaErrorNotSupported", "operation not supported"},
    {Error::StreamCaptureUnsupported, "cudaErrorStreamCaptureUnsupported",
     "operation not permitted when stream is capturing"},
    {Error::StreamCaptureInvalidated, "cudaErrorStreamCaptureInvalidated",
     "operation failed due to a previous error during capture"},
    {Error::Unknown, "cudaErrorUnknown", "unknown error"},
};

const ErrorText *find_error(Error e) {
  for (const auto &t : kErrors)
    if (t.e == e)
      return &t;
  return nullptr;
}

// "overrun(int*, int)" for "_Z7overrunPii"; other names as they are.
std::string pretty(const std::string &name) {
  int status = 0;
  char *d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

// The modelled H100 SXM (docs/exec.md "Decisions"): 1.98 GHz, PCIe 5.0 x16
// copies at 50 GB/s, HBM3 at 3.35 TB/s.
constexpr double kModelClockHz = 1.98e9;
constexpr double kModelHostBandwidth = 50e9;
constexpr double kModelDeviceBandwidth = 3.35e12;

// Without --save-ptx the PTX that reports name exists only in memory: one
// note per program says how to get it as a file (docs/exec.md "Reports").
void note_save_ptx(const RunOptions &o, const std::string &ptx_file) {
  static bool noted = false;
  if (noted || !o.save_ptx.empty() || ptx_file.empty())
    return;
  noted = true;
  std::fputs(fmt::format("bcusim: note: '{}' exists only in memory: "
                         "--save-ptx DIR writes it to DIR/{} so that PTX "
                         "locations open\n",
                         ptx_file, ptx_file)
                 .c_str(),
             stderr);
}
} // namespace

const char *error_name(Error e) {
  const ErrorText *t = find_error(e);
  return t ? t->name : "cudaErrorUnknown";
}
const char *error_string(Error e) {
  const ErrorText *t = find_error(e);
  return t ? t->text : "unknown error";
}
bool is_sticky(Error e) {
  switch (e) {
  case Error::IllegalAddress:
  case Error::LaunchTimeout:
  case Error::Assert:
  case Error::IllegalInstruction:
  case Error::MisalignedAddress:
  case Error::LaunchFailure:
    return true;
  default:
    return false;
  }
}

uint32_t DeviceModel::blocks_per_sm(uint32_t threads, uint64_t shared) const {
  if (threads == 0 || threads > max_threads_per_block)
    return 0;
  const uint32_t warps = (threads + warp_size - 1) / warp_size;
  uint32_t n =
      std::min(max_blocks_per_sm, max_threads_per_sm / (warps * warp_size));
  n = std::min(n, regs_per_sm / (warps * warp_size * regs_per_thread));
  const uint64_t per_block = shared + reserved_shared_per_block;
  if (shared > shared_per_block_optin)
    return 0;
  n = std::min<uint64_t>(n, shared_per_sm / per_block);
  return n;
}

Runtime::Runtime(RunOptions options)
    : opts_(std::move(options)), dev_(std::make_unique<engine::Device>()) {
  stack_limit = opts_.stack_size;
  // Lazy loading is CUDA's default; only EAGER turns it off, in any case
  // ("eager" too, measured on an H200). What the real runtime does with
  // other values is unknown: decided, lazy.
  if (const char *v = std::getenv("CUDA_MODULE_LOADING")) {
    std::string_view s(v);
    if (s.size() == 5 &&
        std::equal(s.begin(), s.end(), "EAGER", [](char a, char b) {
          return std::toupper(static_cast<unsigned char>(a)) == b;
        }))
      loading = Loading::Eager;
  }
  std::string err;
  check::Checks checks;
  if (!opts_.check.empty()) {
    auto c = check::Checks::parse(opts_.check, err);
    if (!c) {
      std::fputs(fmt::format("bcusim: error: --check: {}\n", err).c_str(),
                 stderr);
      options_ok_ = false;
    } else {
      checks = *c;
    }
  }
  auto s = engine::Schedule::parse(opts_.schedule);
  if (!s) {
    std::fputs(fmt::format("bcusim: error: --schedule: '{}' is not {}\n",
                           opts_.schedule, engine::Schedule::kForms)
                   .c_str(),
               stderr);
    options_ok_ = false;
  } else {
    schedule_ = *s;
  }
  session_ = std::make_unique<Session>(checks, schedule_, opts_);
  if (!opts_.timeline.empty())
    timeline_ = std::make_unique<check::Timeline>(session_->checker());
  if (check::Progress::wanted())
    progress_ = std::make_unique<check::Progress>(session_->checker());
}

// A host thread that runs launches, one at a time, kept for the next one
// (starting a thread per launch would cost more than the launch).
struct Runtime::Runner {
  std::mutex mu;
  std::condition_variable cv;
  std::function<void()> job;
  bool quit = false;
  std::thread thread{[this] {
    std::unique_lock g(mu);
    for (;;) {
      cv.wait(g, [this] { return quit || job; });
      if (!job)
        return;
      std::function<void()> j = std::move(job);
      job = nullptr;
      g.unlock();
      j();
      g.lock();
    }
  }};
  void run(std::function<void()> j) {
    {
      std::lock_guard g(mu);
      job = std::move(j);
    }
    cv.notify_one();
  }
  ~Runner() {
    {
      std::lock_guard g(mu);
      quit = true;
    }
    cv.notify_one();
    thread.join();
  }
};

struct Runtime::Running {
  std::unique_ptr<Runner> runner;
  std::mutex mu;
  std::condition_variable cv;
  bool kernel_turn = true; // the launch's thread runs (else the caller's)
  bool done = false;
  bool go_on = true;
  uint64_t progress = 0;
  const engine::Module *module = nullptr;
  std::string name;
  engine::LaunchConfig cfg;
  std::vector<engine::KernelArg> args;
  std::unique_ptr<Session::Active> active;
  StreamOrder::Work work;
  engine::RunReport report;
  std::vector<uintptr_t> stack; // the host's launch call (under --check)
};

Runtime::~Runtime() {
  // Pending launches end (their deadlocks are not reported any more).
  for (auto &r : running_)
    turn(*r, false);
  running_.clear();
  runners_.clear();
  for (auto &[base, size] : host_blocks_)
    munmap(reinterpret_cast<void *>(base), size);
}

// ---- registration -----------------------------------------------------------

// The PTX of a fat binary (or its wrapper) to run here: one module, or the
// translation units of relocatable device code linked into one when they
// use each other's functions or variables. nullopt and `err` when it has
// none.
static std::optional<std::vector<std::string>>
fatbin_ptx(const void *fatbin, uint32_t arch, std::string &err) {
  std::vector<std::string> ptxs;
  for (const uint8_t *data : fatbins_of_wrapper(fatbin, err)) {
    // The header bounds the entries; 1 GiB caps a corrupt size field.
    auto entries = parse_fatbin(data, size_t(1) << 30, err);
    std::optional<std::string> ptx;
    if (entries)
      ptx = select_ptx(*entries, arch, err);
    if (!ptx)
      break;
    ptxs.push_back(std::move(*ptx));
  }
  if (ptxs.empty() || !err.empty())
    return std::nullopt;
  if (ptx_modules_need_link(ptxs)) {
    auto linked = link_ptx(ptxs, err);
    if (!linked) {
      err = "cannot link the device code: " + err;
      return std::nullopt;
    }
    ptxs = {std::move(*linked)};
  }
  return ptxs;
}

int Runtime::add_fatbin(const void *fatbin) {
  std::string err;
  auto ptxs =
      fatbin_ptx(fatbin, uint32_t(model_.major * 10 + model_.minor), err);
  if (!ptxs) {
    std::fputs(fmt::format("bcusim: error: {}\n", err).c_str(), stderr);
    return -1;
  }
  return add_image(std::move(*ptxs), "");
}

// Diagnostics name the PTX after the program: "prog.ptx", "prog.1.ptx"
// (`name`, when given, names a one-module image).
int Runtime::add_image(std::vector<std::string> ptxs, std::string name) {
  std::string exe = "program";
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n > 0) {
    exe.assign(self, size_t(n));
    exe = exe.substr(exe.rfind('/') + 1);
  }
  images_.emplace_back();
  for (auto &ptx : ptxs) {
    ModuleSlot m;
    m.name = !name.empty() && ptxs.size() == 1 ? name
             : modules_.empty()
                 ? exe + ".ptx"
                 : fmt::format("{}.{}.ptx", exe, modules_.size());
    m.ptx = std::move(ptx);
    // --save-ptx DIR: the PTX as a file, named so that locations open it.
    if (!opts_.save_ptx.empty()) {
      std::string path =
          opts_.save_ptx + "/" + m.name.substr(m.name.rfind('/') + 1);
      std::error_code ec;
      std::filesystem::create_directories(opts_.save_ptx, ec);
      std::ofstream f(path, std::ios::binary);
      f << m.ptx;
      if (f)
        m.name = path;
      else
        std::fputs(fmt::format("bcusim: error: --save-ptx: cannot write "
                               "'{}'\n",
                               path)
                       .c_str(),
                   stderr);
    }
    modules_.push_back(std::move(m));
    images_.back().push_back(int(modules_.size() - 1));
  }
  return int(images_.size() - 1);
}

int Runtime::load_image(const void *code, std::string name, Error &err,
                        std::string &why) {
  err = Error::Success;
  if (!code) {
    err = Error::InvalidValue;
    why = "no image (a null pointer)";
    return -1;
  }
  // Byte by byte: PTX text may be shorter than a magic number (whose
  // bytes are not 0, so the test stops at the text's end).
  const auto *bytes = static_cast<const uint8_t *>(code);
  auto starts_with = [&](uint32_t magic) {
    for (int i = 0; i < 4; ++i)
      if (bytes[i] != uint8_t(magic >> (8 * i)))
        return false;
    return true;
  };
  int image = -1;
  if (starts_with(0x464c457fu)) { // "\x7fELF"
    err = Error::NoKernelImageForDevice;
    why = "the image is GPU machine code (an ELF cubin), which bcusim does "
          "not run; load PTX (nvcc -ptx, nvrtcGetPTX) or a fat binary that "
          "holds PTX (nvcc -fatbin -arch=sm_90)";
    return -1;
  }
  if (starts_with(kFatbinMagic) || starts_with(kFatbinWrapperMagic)) {
    auto ptxs =
        fatbin_ptx(code, uint32_t(model_.major * 10 + model_.minor), why);
    if (!ptxs) {
      err = Error::NoKernelImageForDevice;
      return -1;
    }
    image = add_image(std::move(*ptxs), std::move(name));
  } else {
    std::string text(static_cast<const char *>(code));
    // ptxas refuses a module without .version (the driver's JIT too).
    if (text.find(".version") == std::string::npos) {
      err = Error::InvalidPtx;
      why = "the image is neither PTX (no .version directive) nor a fat "
            "binary";
      return -1;
    }
    image = add_image({std::move(text)}, std::move(name));
  }
  // Compiled at once, as the driver does: a module that does not compile
  // fails the load (its diagnostics are on stderr).
  for (int m : images_[size_t(image)])
    if (!module(m, err)) {
      why = "its PTX does not compile";
      unregister_module(image);
      return -1;
    }
  return image;
}

std::vector<std::string> Runtime::image_kernels(int image) {
  std::vector<std::string> names;
  if (image < 0 || size_t(image) >= images_.size())
    return names;
  Error err = Error::Success;
  for (int m : images_[size_t(image)])
    if (engine::Module *mod = module(m, err))
      for (auto &k : mod->kernel_names())
        names.push_back(std::move(k));
  return names;
}

Error Runtime::image_global(int image, const std::string &name, void **addr,
                            uint64_t *size) {
  if (image < 0 || size_t(image) >= images_.size())
    return Error::InvalidResourceHandle;
  Error err = Error::Success;
  for (int m : images_[size_t(image)]) {
    engine::Module *mod = module(m, err);
    auto sym = mod ? mod->symbol(name) : std::nullopt;
    if (!sym)
      continue;
    *addr = sym->is_const ? mod->const_bank().data() + sym->addr
                          : reinterpret_cast<void *>(sym->addr);
    *size = sym->size;
    return Error::Success;
  }
  return Error::InvalidSymbol;
}

int Runtime::add_ptx(std::string name, std::string ptx) {
  ModuleSlot m;
  m.name = std::move(name);
  m.ptx = std::move(ptx);
  modules_.push_back(std::move(m));
  images_.push_back({int(modules_.size() - 1)});
  return int(images_.size() - 1);
}

// The module of an image that defines `name` (a kernel, or a variable that
// is not extern): the only one, or the one whose PTX declares it.
int Runtime::module_of(int image, const std::string &name, bool kernel) const {
  if (image < 0 || size_t(image) >= images_.size() || images_[image].empty())
    return -1;
  const auto &group = images_[size_t(image)];
  if (group.size() == 1)
    return group[0];
  for (int m : group) {
    const std::string &ptx = modules_[size_t(m)].ptx;
    if (kernel) {
      if (ptx.find(".entry " + name + "(") != std::string::npos)
        return m;
      continue;
    }
    for (size_t pos = ptx.find(name); pos != std::string::npos;
         pos = ptx.find(name, pos + 1)) {
      size_t bol = ptx.rfind('\n', pos);
      bol = bol == std::string::npos ? 0 : bol + 1;
      std::string_view line(ptx.data() + bol, pos - bol);
      const char after =
          pos + name.size() < ptx.size() ? ptx[pos + name.size()] : ';';
      if ((line.rfind(".global", 0) == 0 || line.rfind(".const", 0) == 0 ||
           line.rfind(".visible", 0) == 0) &&
          line.find(".extern") == std::string_view::npos &&
          (after == ';' || after == '[' || after == ' ' || after == '=') &&
          pos > 0 && (ptx[pos - 1] == ' ' || ptx[pos - 1] == '\t'))
        return m;
    }
  }
  return group[0];
}

void Runtime::register_function(int image, const void *host_fn,
                                std::string device_name) {
  int m = module_of(image, device_name, true);
  Kernel k;
  k.module = m;
  k.name = std::move(device_name);
  kernels_[host_fn] = std::move(k);
}

void Runtime::register_var(int image, const void *host_var,
                           std::string device_name, uint64_t size,
                           bool constant) {
  int m = module_of(image, device_name, false);
  vars_[host_var] = Var{m, std::move(device_name), size, constant, {}};
}

void Runtime::register_managed_var(int image, void **host_ptr,
                                   std::string device_name, uint64_t size) {
  int m = module_of(image, device_name, false);
  vars_[host_ptr] = Var{m, std::move(device_name), size, false, host_ptr};
}

void Runtime::unregister_module(int image) {
  if (image < 0 || size_t(image) >= images_.size())
    return;
  // The compiled modules stay: findings of their launches point into them.
  for (int m : images_[size_t(image)])
    modules_[size_t(m)].released = true;
}

bool Runtime::init_module(int image) {
  if (image < 0 || size_t(image) >= images_.size())
    return false;
  Error err = Error::Success;
  bool ok = true;
  for (int m : images_[size_t(image)])
    ok &= module(m, err) != nullptr;
  return ok;
}

engine::Module *Runtime::module(int index, Error &err) {
  if (index < 0 || size_t(index) >= modules_.size()) {
    err = Error::NoKernelImageForDevice;
    return nullptr;
  }
  ModuleSlot &m = modules_[size_t(index)];
  if (m.module)
    return m.module.get();
  if (m.failed) {
    err = Error::InvalidPtx;
    return nullptr;
  }
  DiagnosticSink sink;
  // Validated as ptxas does, as `bcusim run` does (the session layer).
  // (The source outlives the diagnostics that point into it.)
  m.source = SourceFile::from_string(m.name, m.ptx);
  m.module = load_module(m.source, sink);
  std::string text = sink.render_all();
  if (!m.module) {
    std::fputs(text.c_str(), stderr);
    std::fputs(fmt::format("bcusim: error: the program's PTX ({}) does not "
                           "compile; its kernels cannot run\n",
                           m.name)
                   .c_str(),
               stderr);
    m.failed = true;
    err = Error::InvalidPtx;
    return nullptr;
  }
  if (opts_.verbose)
    std::fputs(text.c_str(), stderr);
  dev_->map_module(*m.module);
  map_managed(index);
  // The constant bank is device memory, as on a GPU: __constant__ variables
  // have addresses (cudaGetSymbolAddress, cuModuleGetGlobal) that copies
  // and kernels' generic loads reach; ld.const reads the same bytes.
  if (auto bank = m.module->const_bank(); !bank.empty())
    dev_->map_host(bank.data(), bank.size(), m.name + " constant bank");
  return m.module.get();
}

// A __managed__ variable is one pointer on both sides: the host pointer
// the program reads it through is the bytes of the module variable, which
// the engine also maps at that host address.
void Runtime::map_managed(int index) {
  engine::Module *m = modules_[size_t(index)].module.get();
  for (auto &[host, v] : vars_) {
    if (v.module != index || !v.managed)
      continue;
    auto sym = m->symbol(v.name);
    if (!sym || sym->is_const)
      continue;
    uint8_t *bytes = dev_->data(sym->addr, sym->size);
    if (!bytes)
      continue;
    dev_->map_host(bytes, sym->size, v.name);
    *v.managed = bytes;
  }
}

// ---- launches ---------------------------------------------------------------

std::optional<Runtime::FuncInfo> Runtime::function(const void *host_fn,
                                                   Error &err) {
  auto it = kernels_.find(host_fn);
  if (it == kernels_.end()) {
    // Not a kernel's host function: a GPU's runtime takes the pointer for
    // a kernel handle and refuses it as such (docs/exec.md "Measured on
    // H200").
    err = Error::InvalidResourceHandle;
    return std::nullopt;
  }
  engine::Module *m = module(it->second.module, err);
  if (!m)
    return std::nullopt;
  auto info = m->kernel_info(it->second.name);
  auto sizes = m->kernel_param_sizes(it->second.name);
  if (!info || !sizes) {
    err = Error::InvalidDeviceFunction;
    return std::nullopt;
  }
  use(it->second); // resolving the kernel loads it
  return FuncInfo{it->second.name, *info, *sizes};
}

bool Runtime::use_kernel(const void *host_fn) {
  auto it = kernels_.find(host_fn);
  if (it == kernels_.end())
    return false;
  use(it->second);
  return true;
}

bool Runtime::kernel_loaded(const void *host_fn) {
  auto it = kernels_.find(host_fn);
  if (it == kernels_.end())
    return false;
  return loading == Loading::Eager ||
         (it->second.used && !load_pending(it->second));
}

// Lazy loading (docs/exec.md "Lazy loading"): measured on an NVIDIA H200
// (driver 580.159.04, CUDA 13.0, 2026-11-28), a kernel first used while
// another kernel runs starts only after the work in flight at that use.
void Runtime::use(Kernel &k) {
  if (loading == Loading::Eager || k.used)
    return;
  k.used = true;
  // While queued work runs (a deferred graph launch's nodes), the device
  // is already past the call that submitted it: loaded at once.
  if (!current_)
    k.load_after = in_flight();
}

bool Runtime::load_pending(Kernel &k) {
  if (k.load_after.empty())
    return false;
  for (const auto &r : running_)
    if (follows(k.load_after, r->work))
      return true;
  for (const auto &q : queue_)
    if (follows(k.load_after, q.work))
      return true;
  k.load_after.clear(); // loaded
  return false;
}

StreamOrder::Clock Runtime::in_flight() const {
  StreamOrder::Clock c;
  auto add = [&c](const StreamOrder::Work &w) {
    if (c.size() <= w.stream)
      c.resize(size_t(w.stream) + 1, 0);
    c[w.stream] = std::max(c[w.stream], w.seq);
  };
  for (const auto &r : running_)
    add(r->work);
  for (const auto &q : queue_)
    add(q.work);
  return c;
}

StreamOrder::Clock Runtime::reach(StreamOrder::Clock c) const {
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto &q : queue_) {
      if (q.after.empty() || !follows(c, q.work))
        continue;
      if (c.size() < q.after.size())
        c.resize(q.after.size(), 0);
      for (size_t i = 0; i < q.after.size(); ++i)
        if (q.after[i] > c[i]) {
          c[i] = q.after[i];
          grew = true;
        }
    }
  }
  return c;
}

const std::string *Runtime::kernel_name(const void *host_fn) const {
  auto it = kernels_.find(host_fn);
  return it == kernels_.end() ? nullptr : &it->second.name;
}

Error Runtime::set_max_dynamic_shared(const void *host_fn, int bytes) {
  auto it = kernels_.find(host_fn);
  if (it == kernels_.end())
    return Error::InvalidResourceHandle;
  use(it->second); // a use: lazy loading loads it
  if (bytes < 0 || uint64_t(bytes) > model_.shared_per_block_optin)
    return Error::InvalidValue;
  it->second.max_dynamic_shared = bytes;
  return Error::Success;
}

Error Runtime::launch(const void *host_fn, const LaunchParams &p, void **args,
                      StreamOrder::Stream stream) {
  if (!options_ok_)
    return record(Error::InitializationError);
  if (sticky_ != Error::Success)
    return record(sticky_);
  Error err = Error::Success;
  auto fn = function(host_fn, err);
  if (!fn)
    return record(err);
  Kernel &k = kernels_.at(host_fn);
  engine::Module *m = module(k.module, err);
  auto say = [](const std::string &s) { std::fputs(s.c_str(), stderr); };
  // Dynamic shared memory beyond 48 KiB needs the opt-in attribute.
  const uint64_t static_shared = fn->info.static_shared;
  const uint64_t limit =
      k.max_dynamic_shared >= 0
          ? uint64_t(k.max_dynamic_shared)
          : model_.shared_per_block -
                std::min<uint64_t>(static_shared, model_.shared_per_block);
  if (p.shared > limit) {
    say(fmt::format("bcusim: error: launch of '{}': {} bytes of dynamic "
                    "shared memory exceed the {} allowed (raise it with "
                    "cudaFuncSetAttribute(..., "
                    "cudaFuncAttributeMaxDynamicSharedMemorySize, N))\n",
                    pretty(fn->name), p.shared, limit));
    return record(Error::InvalidValue);
  }
  // Too many threads per CTA: a GPU's runtime refuses the launch with
  // cudaErrorInvalidValue (a device-side launch says
  // cudaErrorInvalidConfiguration; docs/exec.md "Measured on H200").
  if (p.block.count() > model_.max_threads_per_block) {
    say(fmt::format("bcusim: error: launch of '{}': block {}x{}x{} has {} "
                    "threads; a CTA holds at most {}\n",
                    pretty(fn->name), p.block.x, p.block.y, p.block.z,
                    p.block.count(), model_.max_threads_per_block));
    return record(Error::InvalidValue);
  }
  if (p.cooperative) {
    uint64_t fit = uint64_t(model_.blocks_per_sm(uint32_t(p.block.count()),
                                                 static_shared + p.shared)) *
                   model_.sm_count;
    if (p.grid.count() > fit) {
      say(fmt::format("bcusim: error: cooperative launch of '{}': {} CTAs "
                      "cannot all be resident ({} fit: {} per SM on {} "
                      "SMs)\n",
                      pretty(fn->name), p.grid.count(), fit,
                      fit / model_.sm_count, model_.sm_count));
      return record(Error::CooperativeLaunchTooLarge);
    }
  }
  std::vector<engine::KernelArg> kargs;
  kargs.reserve(fn->param_sizes.size());
  for (size_t i = 0; i < fn->param_sizes.size(); ++i)
    kargs.push_back(engine::KernelArg::raw(args[i], fn->param_sizes[i]));
  engine::LaunchConfig cfg;
  cfg.grid = p.grid;
  cfg.block = p.block;
  cfg.cluster = p.cluster;
  cfg.shared_bytes = uint32_t(p.shared);
  cfg.has_prerequisite = p.programmatic;
  // A GPU's device runtime does not refuse launches beyond the pending
  // limit (measured on H100, driver 580.159.04: 3000 launches of one grid
  // with the limit at 32 all ran); a grid gets room for at least 8192.
  cfg.pending_launch_limit = std::max<uint32_t>(pending_launch_limit, 8192);
  cfg.stack_size = stack_limit;
  cfg.device_attribute = device_attribute;
  cfg.error_string = device_error_string;
  // The checks, a timeline (--timeline) and a progress line (terminal)
  // watch the launch together; findings name the host's call stacks.
  // A queued launch keeps the stack of the call that submitted it.
  std::optional<std::vector<uintptr_t>> submitted = std::move(call_stack_);
  call_stack_.reset();
  if (check::Checker *checker = session_->checker()) {
    launch_stack_ = submitted ? std::move(*submitted) : capture_host_stack();
    if (!symbolizer_)
      symbolizer_ = std::make_unique<HostSymbolizer>();
    check::HostContext host;
    host.launch_stack = [this] { return symbolizer_->frames(launch_stack_); };
    host.allocation_stack = [this](uint64_t base) {
      auto it = alloc_stacks_.find(base);
      return it == alloc_stacks_.end() ? std::vector<std::string>{}
                                       : symbolizer_->frames(it->second);
    };
    checker->set_host_context(std::move(host));
  }
  // A kernel still loading starts after the work in flight at its first
  // use (lazy loading); queued work runs once that has completed.
  StreamOrder::Clock after;
  if (!current_ && load_pending(k))
    after = k.load_after;
  // Behind a launch that yielded or a load: queued, with its arguments.
  if (!after.empty() || must_defer(stream)) {
    auto bytes = std::make_shared<std::vector<std::vector<uint8_t>>>();
    for (const auto &a : kargs)
      bytes->push_back(a.bytes);
    defer(
        stream,
        [this, host_fn, p, bytes,
         stack = launch_stack_](StreamOrder::Stream sid) {
          std::vector<void *> ptrs;
          for (auto &b : *bytes)
            ptrs.push_back(b.data());
          call_stack_ = stack;
          return launch(host_fn, p, ptrs.data(), sid);
        },
        after, after.empty() ? std::string() : fn->name);
    return Error::Success;
  }
  // Work on `stream` follows the pending launches it is ordered after.
  wait_stream(stream);
  if (sticky_ != Error::Success)
    return record(sticky_);
  auto run = std::make_unique<Running>();
  Running *r = run.get();
  r->module = m;
  r->name = fn->name;
  r->args = std::move(kargs);
  r->cfg = std::move(cfg);
  r->active = session_->begin_launch(r->cfg, stream,
                                     {timeline_.get(), progress_.get()});
  r->work = r->active->work;
  r->stack = launch_stack_;
  r->cfg.on_stuck = [r](uint64_t progress) {
    std::unique_lock g(r->mu);
    r->progress = progress;
    r->kernel_turn = false;
    r->cv.notify_all();
    r->cv.wait(g, [r] { return r->kernel_turn; });
    return r->go_on;
  };
  if (runners_.empty())
    runners_.push_back(std::make_unique<Runner>());
  r->runner = std::move(runners_.back());
  runners_.pop_back();
  r->runner->run([this, r] {
    engine::RunReport rep = dev_->launch(*r->module, r->name, r->cfg, r->args);
    // The caller may destroy `r` once it has the turn: nothing touches it
    // after this block.
    std::lock_guard g(r->mu);
    r->report = std::move(rep);
    r->done = true;
    r->kernel_turn = false;
    r->cv.notify_all();
  });
  {
    std::unique_lock g(r->mu);
    r->cv.wait(g, [r] { return !r->kernel_turn; });
  }
  if (r->done) {
    const Error e = finish_launch(std::move(run));
    settle(); // the pending launches see what it did
    return e;
  }
  // It yielded: the launches pending before it may be what it waits for.
  session_->detach(*r->active);
  running_.push_back(std::move(run));
  settle();
  return Error::Success;
}

bool Runtime::turn(Running &r, bool go_on) {
  std::unique_lock g(r.mu);
  r.go_on = go_on;
  r.kernel_turn = true;
  r.cv.notify_all();
  r.cv.wait(g, [&r] { return !r.kernel_turn; });
  return r.done;
}

void Runtime::settle() {
  if (settling_)
    return;
  settling_ = true;
  for (bool any = true; any && (!running_.empty() || !queue_.empty());) {
    any = false;
    for (size_t i = 0; i < running_.size();) {
      Running &r = *running_[i];
      const uint64_t before = r.progress;
      if (turn(r, true)) {
        std::unique_ptr<Running> done = std::move(running_[i]);
        running_.erase(running_.begin() + long(i));
        finish_launch(std::move(done));
        any = true;
        continue;
      }
      any |= r.progress != before;
      ++i;
    }
    // Queued work whose predecessors completed, in submission order.
    for (size_t i = 0; i < queue_.size();) {
      const StreamOrder::Clock &start = queue_[i].work.start;
      const StreamOrder::Clock &after = queue_[i].after;
      bool blocked =
          std::any_of(running_.begin(), running_.end(), [&](const auto &r) {
            return follows(start, r->work) || follows(after, r->work);
          });
      for (size_t j = 0; j < i && !blocked; ++j)
        blocked =
            follows(start, queue_[j].work) || follows(after, queue_[j].work);
      if (blocked) {
        ++i;
        continue;
      }
      Queued q = std::move(queue_[i]);
      queue_.erase(queue_.begin() + long(i));
      current_ = q.work;
      session_->preorder(q.work);
      const Error e = q.fn(q.id);
      session_->preorder(std::nullopt);
      current_.reset();
      record(e);
      any = true;
    }
  }
  settling_ = false;
}

bool Runtime::must_defer(StreamOrder::Stream s) const {
  if (current_ || (running_.empty() && queue_.empty()))
    return false;
  const StreamOrder::Clock c = const_cast<Runtime *>(this)->streams().record(s);
  for (const auto &r : running_)
    if (follows(c, r->work))
      return true;
  for (const auto &q : queue_)
    if (follows(c, q.work))
      return true;
  return false;
}

void Runtime::defer(StreamOrder::Stream id, Work fn, StreamOrder::Clock after,
                    std::string loads) {
  Queued q;
  q.work = streams().submit(id);
  q.id = id;
  q.fn = std::move(fn);
  q.after = std::move(after);
  q.loads = std::move(loads);
  queue_.push_back(std::move(q));
}

void Runtime::wait_for(const StreamOrder::Clock &c, bool all) {
  // Queued work it follows runs once the launches before it (and those
  // its kernel's load waits for) complete.
  while (!running_.empty() || !queue_.empty()) {
    settle();
    const StreamOrder::Clock waits = reach(c);
    auto it =
        std::find_if(running_.begin(), running_.end(), [&](const auto &r) {
          return all || follows(waits, r->work);
        });
    if (it == running_.end())
      return;
    // Nothing else can change what it waits for: its deadlock is reported,
    // with the loads that wait for it and nothing else.
    std::unique_ptr<Running> r = std::move(*it);
    running_.erase(it);
    std::vector<std::string> loads;
    for (const auto &q : queue_)
      if (!q.loads.empty() && follows(q.after, r->work) &&
          !follows(q.work.start, r->work) &&
          std::find(loads.begin(), loads.end(), q.loads) == loads.end())
        loads.push_back(q.loads);
    const std::string spinner = r->name;
    turn(*r, false);
    finish_launch(std::move(r));
    for (const auto &k : loads)
      std::fputs(
          fmt::format(
              "bcusim: kernel '{}' was first used while '{}' was running: "
              "with lazy loading (CUDA_MODULE_LOADING unset or LAZY) it "
              "starts only after the work then in flight; set "
              "CUDA_MODULE_LOADING=EAGER or use the kernel "
              "(cudaFuncGetAttributes) before launching the kernel that "
              "waits for it\n",
              pretty(k), pretty(spinner))
              .c_str(),
          stderr);
  }
}

void Runtime::wait_stream(StreamOrder::Stream s) {
  if (!running_.empty() || !queue_.empty())
    wait_for(clock_of(s));
}

void Runtime::host_sync(StreamOrder::Stream s) {
  wait_stream(s);
  streams().host_sync(s);
  release_pool();
}

void Runtime::host_sync_all() {
  wait_for({}, true);
  streams().host_sync_all();
  release_pool();
}

bool Runtime::query(const StreamOrder::Clock &event) {
  settle();
  // What the work it covers waits for, loads included.
  const StreamOrder::Clock c = reach(event);
  uint64_t progress = 0;
  bool pending = false;
  for (const auto &r : running_)
    if (follows(c, r->work)) {
      pending = true;
      progress += r->progress + 1;
    }
  for (const auto &q : queue_)
    pending |= follows(c, q.work);
  if (!pending) {
    idle_queries_ = 0;
    return true;
  }
  if (progress != query_progress_) {
    query_progress_ = progress;
    idle_queries_ = 0;
  }
  if (++idle_queries_ < kQueryLimit)
    return false;
  idle_queries_ = 0;
  wait_for(c);
  return true;
}

Error Runtime::finish_launch(std::unique_ptr<Running> run) {
  runners_.push_back(std::move(run->runner));
  // Its findings name its own launch call (a pending launch ends after
  // later calls).
  launch_stack_ = std::move(run->stack);
  auto say = [](const std::string &s) { std::fputs(s.c_str(), stderr); };
  const engine::Module *m = run->module;
  const std::string &kernel = run->name;
  Session::Launched launched =
      session_->end_launch(std::move(run->active), std::move(run->report));
  const engine::RunReport &r = launched.report;
  const size_t checks_end = session_->findings().size();
  ++stats_.launches;
  stats_.thread_steps += r.thread_steps;
  stats_.warp_steps += r.warp_steps;
  stats_.seconds += r.seconds;
  // Simulated time (docs/exec.md "Decisions"): the launch's cycles at the
  // modelled clock rate.
  work_seconds_ += double(r.cycles) / kModelClockHz;
  if (!r.printf_output.empty()) {
    std::fwrite(r.printf_output.data(), 1, r.printf_output.size(), stdout);
    std::fflush(stdout);
  }
  if (opts_.verbose)
    for (const auto &n : r.notes)
      say(render(n));
  Error result = Error::Success;
  std::string first;
  auto classify = [&]() {
    const std::string msg =
        r.diagnostics.empty() ? "" : r.diagnostics.front().message;
    switch (r.status) {
    case engine::RunStatus::Ok:
      return Error::Success;
    case engine::RunStatus::BadLaunch:
      return Error::InvalidConfiguration;
    case engine::RunStatus::Fault:
      if (msg.rfind("illegal instruction", 0) == 0)
        return Error::IllegalInstruction;
      // A stack overflow is an access outside the thread's local memory
      // on a GPU (docs/exec.md "Measured on H200").
      if (msg.rfind("stack overflow", 0) == 0)
        return Error::IllegalAddress;
      if (msg.find("misaligned") != std::string::npos)
        return Error::MisalignedAddress;
      if (msg.find("out-of-bounds") != std::string::npos ||
          msg.find("null-pointer") != std::string::npos ||
          msg.rfind("invalid .global", 0) == 0) // a heap block's bounds
        return Error::IllegalAddress;
      return Error::LaunchFailure;
    case engine::RunStatus::Trap:
      return msg.find("assert") != std::string::npos ? Error::Assert
                                                     : Error::LaunchFailure;
    case engine::RunStatus::Deadlock:
    case engine::RunStatus::StepLimit:
    case engine::RunStatus::TimeLimit:
      return Error::LaunchTimeout;
    }
    return Error::Unknown;
  };
  result = classify();
  for (const auto &d : r.diagnostics)
    (d.severity == Severity::Error ? stats_.errors : stats_.warnings) += 1;
  const size_t run_first = session_->findings().size();
  const std::string run_text = session_->add_run_findings(
      r, kernel, *m,
      session_->checker() && r.status != engine::RunStatus::BadLaunch,
      launched.launch);
  if (timeline_)
    for (size_t i = run_first; i < session_->findings().size(); ++i)
      timeline_->add_finding(session_->findings()[i]);
  if (!r.diagnostics.empty())
    say(run_text);
  for (const auto &d : r.diagnostics)
    if (d.loc.valid())
      note_save_ptx(opts_, d.loc.file->name());
  // Findings do not fail the launch: on a GPU a race changes nothing in
  // the program's control flow (docs/exec.md).
  report_findings(launched.first_finding, checks_end);
  if (result != Error::Success) {
    ++stats_.failed_launches;
    say(fmt::format("bcusim: kernel '{}' (launch {}): {} ({})\n",
                    pretty(kernel), launched.launch, error_name(result),
                    error_string(result)));
    if (is_sticky(result))
      sticky_ = result;
  }
  return record(result);
}

void Runtime::report_findings(size_t from, size_t to) {
  for (size_t i = from; i < to; ++i) {
    const auto &f = session_->findings()[i];
    std::fputs(render(f.diag).c_str(), stderr);
    (f.severity == Severity::Error ? stats_.errors : stats_.warnings) += 1;
    for (const auto &s : f.sites)
      if (s.ptx.valid())
        note_save_ptx(opts_, s.ptx_file);
  }
}

// ---- memory -----------------------------------------------------------------

bool Runtime::is_device_address(const void *p) {
  return engine::Device::is_device_address(reinterpret_cast<uint64_t>(p));
}

Error Runtime::malloc(void **p, uint64_t bytes) {
  if (!p)
    return record(Error::InvalidValue);
  if (bytes > model_.global_mem)
    return record(Error::MemoryAllocation);
  *p = reinterpret_cast<void *>(dev_->alloc(bytes, "cudaMalloc memory"));
  if (session_->checker())
    alloc_stacks_[reinterpret_cast<uint64_t>(*p)] = capture_host_stack();
  return Error::Success;
}

Error Runtime::free(void *p) {
  if (!p)
    return Error::Success;
  if (is_host_mapped(p))
    return free_host(p);
  if (std::find(pool_freed_.begin(), pool_freed_.end(), p) != pool_freed_.end())
    return record(Error::InvalidValue); // freed by cudaFreeAsync already
  if (!dev_->free(reinterpret_cast<uint64_t>(p)))
    return record(Error::InvalidValue);
  alloc_stacks_.erase(reinterpret_cast<uint64_t>(p));
  return Error::Success;
}

Error Runtime::free_async(void *p) {
  if (!p)
    return Error::Success;
  if (is_host_mapped(p) ||
      std::find(pool_freed_.begin(), pool_freed_.end(), p) != pool_freed_.end())
    return free(p);
  const auto a = dev_->allocation(reinterpret_cast<uint64_t>(p));
  if (!a || a->base != reinterpret_cast<uint64_t>(p))
    return record(Error::InvalidValue);
  dev_->set_retired(a->base,
                    fmt::format("use after free: the {}-byte allocation at "
                                "{:#x} was freed by cudaFreeAsync",
                                a->size, a->base));
  pool_freed_.push_back(p);
  return Error::Success;
}

bool Runtime::pool_pending(const void *p) const {
  return std::find(pool_freed_.begin(), pool_freed_.end(), p) !=
         pool_freed_.end();
}

bool Runtime::release_freed(void *p) {
  auto it = std::find(pool_freed_.begin(), pool_freed_.end(), p);
  if (it == pool_freed_.end() || !running_.empty() || !queue_.empty())
    return false;
  dev_->free(reinterpret_cast<uint64_t>(p));
  alloc_stacks_.erase(reinterpret_cast<uint64_t>(p));
  pool_freed_.erase(it);
  return true;
}

void Runtime::release_pool() {
  for (void *p : pool_freed_) {
    dev_->free(reinterpret_cast<uint64_t>(p));
    alloc_stacks_.erase(reinterpret_cast<uint64_t>(p));
  }
  pool_freed_.clear();
}

Error Runtime::malloc_host(void **p, uint64_t bytes, const char *what) {
  if (!p)
    return record(Error::InvalidValue);
  const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
  const uint64_t size =
      std::max<uint64_t>(page, (bytes + page - 1) / page * page);
  void *m = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return record(Error::MemoryAllocation);
  if (!dev_->map_host(m, bytes, what ? what : "")) {
    munmap(m, size);
    return record(Error::MemoryAllocation);
  }
  host_blocks_[reinterpret_cast<uint64_t>(m)] = size;
  if (session_->checker())
    alloc_stacks_[reinterpret_cast<uint64_t>(m)] = capture_host_stack();
  *p = m;
  return Error::Success;
}

Error Runtime::free_host(void *p) {
  if (!p)
    return Error::Success;
  auto it = host_blocks_.find(reinterpret_cast<uint64_t>(p));
  if (it == host_blocks_.end())
    return record(Error::InvalidValue);
  dev_->unmap_host(p);
  munmap(p, it->second);
  host_blocks_.erase(it);
  return Error::Success;
}

bool Runtime::is_host_mapped(const void *p) const {
  const uint64_t a = reinterpret_cast<uint64_t>(p);
  auto it = host_blocks_.upper_bound(a);
  if (it == host_blocks_.begin())
    return false;
  --it;
  return a - it->first < it->second;
}

uint8_t *Runtime::resolve(const void *p, uint64_t bytes, bool &device) {
  device = is_device_address(p);
  if (!device)
    return static_cast<uint8_t *>(const_cast<void *>(p));
  return dev_->data(reinterpret_cast<uint64_t>(p), bytes);
}

void Runtime::begin_host_work(StreamOrder::Stream stream, const char *api) {
  wait_stream(stream);
  session_->begin_work(stream, api, dev_.get());
}

// Device memory and host memory that kernels reach (mapped) can race;
// other host memory is the program's own.
void Runtime::host_access(const void *p, uint64_t bytes, bool write) {
  if (is_device_address(p) || is_host_mapped(p))
    session_->work_access(reinterpret_cast<uint64_t>(p), bytes, write);
}

void Runtime::end_host_work() {
  const size_t first = session_->end_work();
  report_findings(first, session_->findings().size());
  settle(); // the pending launches see what it did
}

Error Runtime::memcpy(void *dst, const void *src, uint64_t bytes,
                      StreamOrder::Stream stream, const char *api) {
  if (bytes == 0)
    return Error::Success;
  return memcpy2d(dst, bytes, src, bytes, bytes, 1, stream, api);
}

Error Runtime::memcpy2d(void *dst, uint64_t dpitch, const void *src,
                        uint64_t spitch, uint64_t width, uint64_t height,
                        StreamOrder::Stream stream, const char *api) {
  return memcpy3d(dst, dpitch, 0, src, spitch, 0, width, height, 1, stream,
                  api);
}

Error Runtime::memcpy3d(void *dst, uint64_t dpitch, uint64_t dslice,
                        const void *src, uint64_t spitch, uint64_t sslice,
                        uint64_t width, uint64_t height, uint64_t depth,
                        StreamOrder::Stream stream, const char *api) {
  if (width > dpitch || width > spitch)
    return record(Error::InvalidValue);
  if (width == 0 || height == 0 || depth == 0)
    return Error::Success;
  if (!dst || !src)
    return record(Error::InvalidValue);
  // Row r is row r % height of slice r / height; every row is resolved
  // before any byte moves.
  const uint64_t nrows = height * depth;
  auto doff = [&](uint64_t r) {
    return r / height * dslice + r % height * dpitch;
  };
  auto soff = [&](uint64_t r) {
    return r / height * sslice + r % height * spitch;
  };
  std::vector<std::pair<uint8_t *, const uint8_t *>> rows;
  rows.reserve(nrows);
  for (uint64_t row = 0; row < nrows; ++row) {
    bool dd = false, sd = false;
    uint8_t *d = resolve(static_cast<uint8_t *>(dst) + doff(row), width, dd);
    uint8_t *s =
        resolve(static_cast<const uint8_t *>(src) + soff(row), width, sd);
    if (!d || !s)
      return record(Error::InvalidValue);
    rows.emplace_back(d, s);
  }
  begin_host_work(stream, api);
  for (uint64_t row = 0; row < nrows; ++row) {
    host_access(static_cast<const uint8_t *>(src) + soff(row), width, false);
    host_access(static_cast<uint8_t *>(dst) + doff(row), width, true);
    std::memmove(rows[row].first, rows[row].second, width);
  }
  const bool device_to_device =
      is_device_address(dst) && is_device_address(src);
  // Simulated time of the copy: over PCIe when one side is host memory,
  // else read and write of device memory.
  const double bytes = double(width) * double(nrows);
  work_seconds_ += device_to_device ? 2.0 * bytes / kModelDeviceBandwidth
                                    : bytes / kModelHostBandwidth;
  end_host_work();
  return Error::Success;
}

Error Runtime::memset(void *dst, int value, uint64_t bytes,
                      StreamOrder::Stream stream, const char *api) {
  if (bytes == 0)
    return Error::Success;
  return memset2d(dst, bytes, value, bytes, 1, stream, api);
}

Error Runtime::memset2d(void *dst, uint64_t pitch, int value, uint64_t width,
                        uint64_t height, StreamOrder::Stream stream,
                        const char *api) {
  return memset3d(dst, pitch, 0, value, width, height, 1, stream, api);
}

Error Runtime::memset3d(void *dst, uint64_t pitch, uint64_t slice, int value,
                        uint64_t width, uint64_t height, uint64_t depth,
                        StreamOrder::Stream stream, const char *api) {
  if (width > pitch)
    return record(Error::InvalidValue);
  if (width == 0 || height == 0 || depth == 0)
    return Error::Success;
  if (!dst)
    return record(Error::InvalidValue);
  const uint64_t nrows = height * depth;
  auto off = [&](uint64_t r) {
    return r / height * slice + r % height * pitch;
  };
  std::vector<uint8_t *> rows;
  rows.reserve(nrows);
  for (uint64_t row = 0; row < nrows; ++row) {
    bool dev = false;
    uint8_t *d = resolve(static_cast<uint8_t *>(dst) + off(row), width, dev);
    if (!d)
      return record(Error::InvalidValue);
    rows.push_back(d);
  }
  begin_host_work(stream, api);
  for (uint64_t row = 0; row < nrows; ++row) {
    host_access(static_cast<uint8_t *>(dst) + off(row), width, true);
    std::memset(rows[row], value, width);
  }
  end_host_work();
  return Error::Success;
}

Error Runtime::resolve_symbol(const void *symbol, uint64_t offset,
                              uint64_t bytes, uint8_t **where) {
  auto it = vars_.find(symbol);
  if (it == vars_.end())
    return Error::InvalidSymbol;
  const Var &v = it->second;
  if (offset > v.size || bytes > v.size - offset)
    return Error::InvalidValue;
  Error err = Error::Success;
  engine::Module *m = module(v.module, err);
  if (!m)
    return err;
  if (v.managed) {
    *where = static_cast<uint8_t *>(*v.managed) + offset;
    return Error::Success;
  }
  auto sym = m->symbol(v.name);
  if (!sym)
    return Error::InvalidSymbol;
  if (sym->is_const) {
    std::vector<uint8_t> probe(1);
    if (!m->read_const(sym->addr + offset, probe.data(), bytes ? 1 : 0))
      return Error::InvalidValue;
    *where = nullptr; // the caller goes through read_const / write_const
    return Error::Success;
  }
  *where = dev_->data(sym->addr + offset, bytes);
  return *where ? Error::Success : Error::InvalidValue;
}

// The device address of a global (not __constant__) symbol's bytes, for
// race checks across streams; nullptr otherwise.
const void *Runtime::symbol_device_address(const void *symbol,
                                           uint64_t offset) {
  const Var &v = vars_.at(symbol);
  if (v.managed)
    return static_cast<uint8_t *>(*v.managed) + offset;
  Error e = Error::Success;
  engine::Module *m = module(v.module, e);
  auto sym = m ? m->symbol(v.name) : std::nullopt;
  if (!sym || sym->is_const)
    return nullptr;
  return reinterpret_cast<const void *>(sym->addr + offset);
}

Error Runtime::copy_to_symbol(const void *symbol, const void *src,
                              uint64_t bytes, uint64_t offset,
                              StreamOrder::Stream stream, const char *api) {
  uint8_t *where = nullptr;
  Error e = resolve_symbol(symbol, offset, bytes, &where);
  if (e != Error::Success)
    return record(e);
  bool dev = false;
  const uint8_t *s = resolve(src, bytes, dev);
  if (!s)
    return record(Error::InvalidValue);
  begin_host_work(stream, api);
  host_access(src, bytes, false);
  if (const void *d = symbol_device_address(symbol, offset))
    host_access(d, bytes, true);
  end_host_work();
  if (where) {
    std::memmove(where, s, bytes);
    return Error::Success;
  }
  const Var &v = vars_.at(symbol);
  engine::Module *m = module(v.module, e);
  m->write_const(m->symbol(v.name)->addr + offset, s, bytes);
  return Error::Success;
}

Error Runtime::copy_from_symbol(void *dst, const void *symbol, uint64_t bytes,
                                uint64_t offset, StreamOrder::Stream stream,
                                const char *api) {
  uint8_t *where = nullptr;
  Error e = resolve_symbol(symbol, offset, bytes, &where);
  if (e != Error::Success)
    return record(e);
  bool dev = false;
  uint8_t *d = resolve(dst, bytes, dev);
  if (!d)
    return record(Error::InvalidValue);
  begin_host_work(stream, api);
  if (const void *s = symbol_device_address(symbol, offset))
    host_access(s, bytes, false);
  host_access(dst, bytes, true);
  end_host_work();
  if (where) {
    std::memmove(d, where, bytes);
    return Error::Success;
  }
  const Var &v = vars_.at(symbol);
  engine::Module *m = module(v.module, e);
  m->read_const(m->symbol(v.name)->addr + offset, d, bytes);
  return Error::Success;
}

Error Runtime::symbol_address(const void *symbol, void **addr) {
  uint8_t *where = nullptr;
  Error e = resolve_symbol(symbol, 0, 0, &where);
  if (e != Error::Success)
    return record(e);
  const Var &v = vars_.at(symbol);
  if (v.managed) {
    *addr = *v.managed;
    return Error::Success;
  }
  engine::Module *m = module(v.module, e);
  auto sym = m->symbol(v.name);
  *addr = sym->is_const ? m->const_bank().data() + sym->addr
                        : reinterpret_cast<void *>(sym->addr);
  return Error::Success;
}

Error Runtime::symbol_size(const void *symbol, uint64_t *size) {
  auto it = vars_.find(symbol);
  if (it == vars_.end())
    return record(Error::InvalidSymbol);
  *size = it->second.size;
  return Error::Success;
}

// ---- streams, events, graphs
// -------------------------------------------------

namespace {
template <class T>
Error drop(std::map<const void *, std::unique_ptr<T>> &objs, T *p) {
  auto it = objs.find(p);
  if (it == objs.end())
    return Error::InvalidResourceHandle;
  objs.erase(it);
  return Error::Success;
}
} // namespace

Runtime::Stream *Runtime::create_stream(unsigned flags, bool blocking) {
  auto st = std::make_unique<Stream>();
  st->flags = flags;
  st->id = streams().create(blocking);
  Stream *p = st.get();
  stream_objs_[p] = std::move(st);
  return p;
}

Error Runtime::destroy_stream(Stream *s) {
  return record(drop(stream_objs_, s));
}

Error Runtime::submit(Stream *s, StreamOrder::Stream id, Work work) {
  if (Graph *g = capturing(s)) {
    g->work.push_back(std::move(work));
    g->deps.push_back(s->tail);
    s->tail = {g->work.size() - 1};
    return Error::Success;
  }
  if (must_defer(id)) {
    defer(id, std::move(work));
    return Error::Success;
  }
  return work(id);
}

Error Runtime::begin_capture(Stream *s) {
  if (!s)
    return record(Error::StreamCaptureUnsupported);
  if (capturing(s))
    return record(Error::InvalidValue);
  s->capture = std::make_unique<Graph>();
  s->tail.clear();
  return Error::Success;
}

Runtime::Graph *Runtime::end_capture(Stream *s) {
  if (!s || !s->capture)
    return nullptr;
  Graph *g = s->capture.get();
  graph_objs_[g] = std::move(s->capture);
  s->tail.clear();
  // The streams that joined the capture leave it; its events stop
  // marking items.
  for (auto &[p, st] : stream_objs_)
    if (st->joined == g) {
      st->joined = nullptr;
      st->tail.clear();
    }
  for (auto &[p, e] : event_objs_)
    if (e->capture == g) {
      e->capture = nullptr;
      e->nodes.clear();
    }
  return g;
}

Runtime::Graph *Runtime::create_graph() {
  auto g = std::make_unique<Graph>();
  Graph *p = g.get();
  graph_objs_[p] = std::move(g);
  return p;
}

Error Runtime::destroy_graph(Graph *g) { return record(drop(graph_objs_, g)); }

Runtime::Graph *Runtime::instantiate(const Graph &g) {
  Graph *x = create_graph();
  x->work = g.work;
  return x;
}

Error Runtime::launch_graph(const Graph &g, Stream *s, StreamOrder::Stream id) {
  // Copied: a captured host function may not change the graph it runs in.
  const std::vector<Work> work = g.work;
  for (const auto &w : work) {
    Error e = submit(s, id, w);
    if (e != Error::Success)
      return e;
  }
  return Error::Success;
}

Runtime::Event *Runtime::create_event() {
  auto e = std::make_unique<Event>();
  Event *p = e.get();
  event_objs_[p] = std::move(e);
  return p;
}

Error Runtime::destroy_event(Event *e) { return record(drop(event_objs_, e)); }

Error Runtime::record_event(Event *e, Stream *s, StreamOrder::Stream id,
                            bool external) {
  // In a capture the event marks what the stream has captured so far, for
  // the streams that wait for it (cudaStreamWaitEvent); only an external
  // record (cudaEventRecordExternal) is also an operation of the graph.
  Graph *g = capturing(s);
  if (g && !external) {
    e->capture = g;
    e->nodes = s->tail;
    return Error::Success;
  }
  const bool deferred = !g && must_defer(id);
  Error err = submit(s, id, [this, e](StreamOrder::Stream sid) {
    e->t = work_seconds_;
    e->recorded = true;
    // Queued: what it covers is its place in the streams' order.
    if (current_) {
      e->clock = current_->start;
      e->clock[current_->stream] = current_->seq;
    } else {
      e->clock = streams().record(sid);
    }
    return Error::Success;
  });
  if (deferred) {
    const StreamOrder::Work &w = queue_.back().work;
    e->clock = w.start;
    e->clock[w.stream] = w.seq;
  }
  e->capture = g;
  e->nodes = g ? s->tail : std::vector<size_t>{};
  return err;
}

Error Runtime::wait_event(Stream *s, StreamOrder::Stream id, const Event &e) {
  if (!e.capture) {
    streams().wait(id, e.clock);
    return Error::Success;
  }
  Graph *g = capturing(s);
  if (!s || (g && g != e.capture))
    return record(Error::InvalidValue); // another capture, a default stream
  if (!g) {
    s->joined = e.capture;
    s->tail.clear();
  }
  for (size_t n : e.nodes)
    if (std::find(s->tail.begin(), s->tail.end(), n) == s->tail.end())
      s->tail.push_back(n);
  return Error::Success;
}

void Runtime::sync_event(const Event &e) {
  if (!running_.empty())
    wait_for(e.clock);
  streams().host_wait(e.clock);
  release_pool();
}

Error Runtime::elapsed_ms(const Event &start, const Event &end,
                          float *ms) const {
  if (!ms)
    return Error::InvalidValue;
  if (!start.recorded || !end.recorded)
    return Error::InvalidResourceHandle;
  *ms = float((end.t - start.t) * 1000.0);
  return Error::Success;
}

// ---- errors and state -------------------------------------------------------

Error Runtime::record(Error e) {
  if (e != Error::Success)
    last_ = e;
  return e;
}

Error Runtime::last_error(bool reset) {
  Error e = last_;
  if (reset && !is_sticky(e))
    last_ = Error::Success;
  return e;
}

void Runtime::reset() {
  wait_for({}, true);
  for (auto &[base, size] : host_blocks_) {
    dev_->unmap_host(reinterpret_cast<void *>(base));
    munmap(reinterpret_cast<void *>(base), size);
  }
  host_blocks_.clear();
  pool_freed_.clear();
  dev_ = std::make_unique<engine::Device>();
  for (size_t i = 0; i < modules_.size(); ++i)
    if (modules_[i].module) {
      dev_->map_module(*modules_[i].module);
      map_managed(int(i));
    }
  sticky_ = Error::Success;
  last_ = Error::Success;
  // A new context: kernels load again at their first use.
  for (auto &[fn, k] : kernels_) {
    k.used = false;
    k.load_after.clear();
  }
  // A new context: the stack limit is the default again.
  stack_limit = opts_.stack_size;
  // The device is idle and its memory gone: no earlier work races with
  // later work.
  session_->end_all_work();
}

void Runtime::check_heap_leaks() {
  if (!session_->checker())
    return;
  for (const auto &b : dev_->heap_blocks()) {
    check::Finding f;
    f.kind = check::FindingKind::HeapLeak;
    f.severity = Severity::Warning;
    f.space = "global";
    f.address = b.base;
    f.launch = stats_.launches ? stats_.launches - 1 : 0;
    f.diag.severity = Severity::Warning;
    f.diag.message =
        fmt::format("heap block of {} byte{} at {:#x} ({}) was never freed",
                    b.size, b.size == 1 ? "" : "s", b.base, b.by);
    f.text = render(f.diag);
    const size_t at = session_->findings().size();
    session_->add(std::move(f));
    report_findings(at, session_->findings().size());
  }
}

std::string Runtime::summary() const {
  std::string s = fmt::format(
      "bcusim: {} launch{} ({} failed), {} thread-instructions, {:.3f} s "
      "simulated",
      stats_.launches, stats_.launches == 1 ? "" : "es", stats_.failed_launches,
      stats_.thread_steps, stats_.seconds);
  if (session_->checker()) {
    // "check (sync): no findings: 0 errors, 0 warnings" (the launches are
    // counted above).
    std::string c = session_->summary_line(false);
    if (c.rfind("bcusim: ", 0) == 0)
      c = c.substr(8);
    s += "; " + c;
  } else {
    s +=
        fmt::format("; {} errors, {} warnings", stats_.errors, stats_.warnings);
  }
  if (!precompiled_libraries.empty())
    s += fmt::format("; not run (precompiled GPU code): {}",
                     fmt::join(precompiled_libraries, ", "));
  if (!missing_driver_functions.empty())
    s += fmt::format("; driver functions not provided: {}",
                     fmt::join(missing_driver_functions, ", "));
  return s;
}

bool Runtime::write_report() const {
  std::string err;
  if (!opts_.sarif.empty() &&
      !check::write_sarif(opts_.sarif,
                          session_->checker() ? session_->findings()
                                              : std::vector<check::Finding>{},
                          err))
    std::fputs(fmt::format("bcusim: error: --sarif: {}\n", err).c_str(),
               stderr);
  if (timeline_) {
    if (timeline_->write(opts_.timeline, err))
      std::fputs(fmt::format("bcusim: timeline written to {} (open it in "
                             "ui.perfetto.dev or chrome://tracing)\n",
                             opts_.timeline)
                     .c_str(),
                 stderr);
    else
      std::fputs(fmt::format("bcusim: error: --timeline: {}\n", err).c_str(),
                 stderr);
  }
  if (opts_.report.empty())
    return true;
  const bool checked = session_->checker() != nullptr;
  static const std::vector<check::Finding> none;
  nlohmann::json j = runtime::report_json(
      checked ? session_->checks().str() : "", stats_.launches, stats_.errors,
      stats_.warnings, summary(), checked ? session_->findings() : none);
  j["failed_launches"] = stats_.failed_launches;
  j["thread_instructions"] = stats_.thread_steps;
  if (!precompiled_libraries.empty())
    j["precompiled_libraries"] = precompiled_libraries;
  if (!missing_driver_functions.empty())
    j["missing_driver_functions"] = missing_driver_functions;
  return runtime::write_report(opts_.report, j);
}

} // namespace bcusim::runtime
