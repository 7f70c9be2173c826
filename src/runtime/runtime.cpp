// The CUDA runtime over the engine (include/bcusim/runtime/runtime.h,
// docs/exec.md).
#include "bcusim/runtime/runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cxxabi.h>
#include <fstream>
#include <string_view>
#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bcusim/check/checker.h"
#include "bcusim/runtime/fatbin.h"

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
  if (checks.any())
    checker_ = std::make_unique<check::Checker>(checks);
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
}

Runtime::~Runtime() {
  for (auto &[base, size] : host_blocks_)
    munmap(reinterpret_cast<void *>(base), size);
}

// ---- registration -----------------------------------------------------------

int Runtime::add_fatbin(const void *fatbin) {
  std::string err;
  std::vector<std::string> ptxs;
  for (const uint8_t *data : fatbins_of_wrapper(fatbin, err)) {
    // The header bounds the entries; 1 GiB caps a corrupt size field.
    auto entries = parse_fatbin(data, size_t(1) << 30, err);
    std::optional<std::string> ptx;
    if (entries)
      ptx =
          select_ptx(*entries, uint32_t(model_.major * 10 + model_.minor), err);
    if (!ptx)
      break;
    ptxs.push_back(std::move(*ptx));
  }
  if (ptxs.empty() || !err.empty()) {
    std::fputs(fmt::format("bcusim: error: {}\n", err).c_str(), stderr);
    return -1;
  }
  // Diagnostics name the PTX after the program: "prog.ptx", "prog.1.ptx".
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
    m.name = modules_.empty() ? exe + ".ptx"
                              : fmt::format("{}.{}.ptx", exe, modules_.size());
    m.ptx = std::move(ptx);
    modules_.push_back(std::move(m));
    images_.back().push_back(int(modules_.size() - 1));
  }
  return int(images_.size() - 1);
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
  kernels_[host_fn] = Kernel{m, std::move(device_name), -1};
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
  m.module = engine::Module::load_string(m.name, m.ptx, sink);
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
    err = Error::InvalidDeviceFunction;
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
  return FuncInfo{it->second.name, *info, *sizes};
}

const std::string *Runtime::kernel_name(const void *host_fn) const {
  auto it = kernels_.find(host_fn);
  return it == kernels_.end() ? nullptr : &it->second.name;
}

Error Runtime::set_max_dynamic_shared(const void *host_fn, int bytes) {
  auto it = kernels_.find(host_fn);
  if (it == kernels_.end())
    return Error::InvalidDeviceFunction;
  if (bytes < 0 || uint64_t(bytes) > model_.shared_per_block_optin)
    return Error::InvalidValue;
  it->second.max_dynamic_shared = bytes;
  return Error::Success;
}

Error Runtime::launch(const void *host_fn, const LaunchParams &p, void **args) {
  if (!options_ok_)
    return record(Error::InitializationError);
  if (sticky_ != Error::Success)
    return record(sticky_);
  Error err = Error::Success;
  auto fn = function(host_fn, err);
  if (!fn)
    return record(err);
  const Kernel &k = kernels_.at(host_fn);
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
  cfg.max_steps = opts_.max_steps;
  cfg.time_limit_s = opts_.time_limit;
  cfg.schedule = schedule_;
  cfg.host_threads = opts_.threads;
  cfg.warn_only = opts_.warn_only;
  cfg.has_prerequisite = p.programmatic;
  cfg.observer = checker_.get();
  const size_t before = checker_ ? checker_->findings().size() : 0;
  engine::RunReport r = dev_->launch(*m, fn->name, cfg, kargs);
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
  for (const auto &d : r.diagnostics) {
    if (d.severity == Severity::Error)
      ++stats_.errors;
    else
      ++stats_.warnings;
    if (checker_ && r.status != engine::RunStatus::BadLaunch) {
      check::Finding f;
      f.kind = r.status == engine::RunStatus::Deadlock
                   ? check::FindingKind::Deadlock
               : r.status == engine::RunStatus::StepLimit ||
                       r.status == engine::RunStatus::TimeLimit
                   ? check::FindingKind::Limit
                   : check::FindingKind::Fault;
      f.severity = d.severity;
      f.kernel = fn->name;
      f.launch = stats_.launches - 1;
      f.diag = d;
      f.text = render(d);
      checker_->add(std::move(f));
    }
  }
  if (!r.diagnostics.empty())
    say(r.diagnostics_text());
  bool checker_error = false;
  if (checker_)
    for (size_t i = before; i < checker_->findings().size(); ++i) {
      const auto &f = checker_->findings()[i];
      if (f.kind == check::FindingKind::Fault ||
          f.kind == check::FindingKind::Deadlock ||
          f.kind == check::FindingKind::Limit)
        continue; // the engine's own, counted and printed above
      say(render(f.diag));
      (f.severity == Severity::Error ? stats_.errors : stats_.warnings) += 1;
      checker_error |= f.severity == Severity::Error;
    }
  if (result == Error::Success && checker_error)
    result = Error::LaunchFailure;
  if (result != Error::Success) {
    ++stats_.failed_launches;
    say(fmt::format("bcusim: kernel '{}' (launch {}): {} ({})\n",
                    pretty(fn->name), stats_.launches - 1, error_name(result),
                    error_string(result)));
    if (is_sticky(result))
      sticky_ = result;
  }
  return record(result);
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
  *p = reinterpret_cast<void *>(dev_->alloc(bytes));
  return Error::Success;
}

Error Runtime::free(void *p) {
  if (!p)
    return Error::Success;
  if (is_host_mapped(p))
    return free_host(p);
  if (!dev_->free(reinterpret_cast<uint64_t>(p)))
    return record(Error::InvalidValue);
  return Error::Success;
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

Error Runtime::memcpy(void *dst, const void *src, uint64_t bytes) {
  if (bytes == 0)
    return Error::Success;
  if (!dst || !src)
    return record(Error::InvalidValue);
  bool dd = false, sd = false;
  uint8_t *d = resolve(dst, bytes, dd);
  uint8_t *s = resolve(src, bytes, sd);
  if (!d || !s)
    return record(Error::InvalidValue);
  std::memmove(d, s, bytes);
  // Simulated time of the copy: over PCIe when one side is host memory,
  // else read and write of device memory.
  work_seconds_ += dd && sd ? 2.0 * double(bytes) / kModelDeviceBandwidth
                            : double(bytes) / kModelHostBandwidth;
  return Error::Success;
}

Error Runtime::memcpy2d(void *dst, uint64_t dpitch, const void *src,
                        uint64_t spitch, uint64_t width, uint64_t height) {
  if (width > dpitch || width > spitch)
    return record(Error::InvalidValue);
  for (uint64_t row = 0; row < height; ++row) {
    Error e = memcpy(static_cast<uint8_t *>(dst) + row * dpitch,
                     static_cast<const uint8_t *>(src) + row * spitch, width);
    if (e != Error::Success)
      return e;
  }
  return Error::Success;
}

Error Runtime::memset(void *dst, int value, uint64_t bytes) {
  if (bytes == 0)
    return Error::Success;
  bool dev = false;
  uint8_t *d = resolve(dst, bytes, dev);
  if (!d || !dst)
    return record(Error::InvalidValue);
  std::memset(d, value, bytes);
  return Error::Success;
}

Error Runtime::memset2d(void *dst, uint64_t pitch, int value, uint64_t width,
                        uint64_t height) {
  if (width > pitch)
    return record(Error::InvalidValue);
  for (uint64_t row = 0; row < height; ++row) {
    Error e = memset(static_cast<uint8_t *>(dst) + row * pitch, value, width);
    if (e != Error::Success)
      return e;
  }
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

Error Runtime::copy_to_symbol(const void *symbol, const void *src,
                              uint64_t bytes, uint64_t offset) {
  uint8_t *where = nullptr;
  Error e = resolve_symbol(symbol, offset, bytes, &where);
  if (e != Error::Success)
    return record(e);
  bool dev = false;
  const uint8_t *s = resolve(src, bytes, dev);
  if (!s)
    return record(Error::InvalidValue);
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
                                uint64_t offset) {
  uint8_t *where = nullptr;
  Error e = resolve_symbol(symbol, offset, bytes, &where);
  if (e != Error::Success)
    return record(e);
  bool dev = false;
  uint8_t *d = resolve(dst, bytes, dev);
  if (!d)
    return record(Error::InvalidValue);
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
  if (sym->is_const) // __constant__ data is not in global memory here
    return record(Error::InvalidSymbol);
  *addr = reinterpret_cast<void *>(sym->addr);
  return Error::Success;
}

Error Runtime::symbol_size(const void *symbol, uint64_t *size) {
  auto it = vars_.find(symbol);
  if (it == vars_.end())
    return record(Error::InvalidSymbol);
  *size = it->second.size;
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
  for (auto &[base, size] : host_blocks_) {
    dev_->unmap_host(reinterpret_cast<void *>(base));
    munmap(reinterpret_cast<void *>(base), size);
  }
  host_blocks_.clear();
  dev_ = std::make_unique<engine::Device>();
  for (size_t i = 0; i < modules_.size(); ++i)
    if (modules_[i].module) {
      dev_->map_module(*modules_[i].module);
      map_managed(int(i));
    }
  sticky_ = Error::Success;
  last_ = Error::Success;
}

void Runtime::check_heap_leaks() {
  if (!checker_)
    return;
  for (const auto &b : dev_->heap_blocks()) {
    Diagnostic d;
    d.severity = Severity::Warning;
    d.message =
        fmt::format("heap block of {} byte{} at {:#x} ({}) was never freed",
                    b.size, b.size == 1 ? "" : "s", b.base, b.by);
    check::Finding f;
    f.kind = check::FindingKind::HeapLeak;
    f.severity = Severity::Warning;
    f.space = "global";
    f.address = b.base;
    f.launch = stats_.launches ? stats_.launches - 1 : 0;
    f.diag = d;
    f.text = render(d);
    std::fputs(f.text.c_str(), stderr);
    ++stats_.warnings;
    checker_->add(std::move(f));
  }
}

std::string Runtime::summary() const {
  std::string s = fmt::format(
      "bcusim: {} launch{} ({} failed), {} thread-instructions, {:.3f} s "
      "simulated",
      stats_.launches, stats_.launches == 1 ? "" : "es", stats_.failed_launches,
      stats_.thread_steps, stats_.seconds);
  if (checker_) {
    // "bcusim: check (sync): no findings in 3 launches" -> "check (sync):
    // no findings"
    std::string c = checker_->summary();
    if (c.rfind("bcusim: ", 0) == 0)
      c = c.substr(8);
    // The checker counts the launches it observed; the runtime's count is
    // above.
    auto in = c.find(" in ");
    auto colon = in == std::string::npos ? in : c.find(':', in);
    if (colon != std::string::npos)
      c.erase(in, colon - in);
    s += "; " + c;
  } else {
    s +=
        fmt::format("; {} errors, {} warnings", stats_.errors, stats_.warnings);
  }
  return s;
}

bool Runtime::write_report() const {
  if (opts_.report.empty())
    return true;
  nlohmann::json j;
  j["launches"] = stats_.launches;
  j["failed_launches"] = stats_.failed_launches;
  j["thread_instructions"] = stats_.thread_steps;
  j["errors"] = stats_.errors;
  j["warnings"] = stats_.warnings;
  j["summary"] = summary();
  j["findings"] = nlohmann::json::array();
  if (checker_) {
    j["checks"] = checker_->checks().str();
    for (const auto &f : checker_->findings())
      j["findings"].push_back(f.to_json());
  }
  std::ofstream out(opts_.report);
  out << j.dump(2) << "\n";
  return bool(out);
}

} // namespace bcusim::runtime
