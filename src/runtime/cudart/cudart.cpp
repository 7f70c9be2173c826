// libcudart.so.13 stand-in: the CUDA runtime API as a thin layer over
// bcusim::runtime::Runtime (docs/exec.md). Built with the toolkit's headers
// so that every struct (cudaDeviceProp, cudaLaunchConfig_t, ...) has
// CUDA 13's layout; no NVIDIA code is linked or copied. APIs not listed here
// are stubs (stubs.cpp, generated) that print their name once and return
// cudaErrorNotSupported.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>

#include "bcusim/runtime/options.h"
#include "bcusim/runtime/runtime.h"
#include "graph.h"
#include "libraries.h"

using bcusim::runtime::Error;
using bcusim::runtime::Runtime;
namespace brt = bcusim::runtime;
namespace eng = bcusim::engine;

// The numbers of runtime::Error are CUDA's.
#define BCUSIM_SAME(a, b) static_assert(int(Error::a) == int(cudaError##b))
BCUSIM_SAME(InvalidValue, InvalidValue);
BCUSIM_SAME(HostMemoryAlreadyRegistered, HostMemoryAlreadyRegistered);
BCUSIM_SAME(HostMemoryNotRegistered, HostMemoryNotRegistered);
BCUSIM_SAME(MemoryAllocation, MemoryAllocation);
BCUSIM_SAME(InitializationError, InitializationError);
BCUSIM_SAME(InvalidConfiguration, InvalidConfiguration);
BCUSIM_SAME(InvalidSymbol, InvalidSymbol);
BCUSIM_SAME(InvalidDevicePointer, InvalidDevicePointer);
BCUSIM_SAME(DevicesUnavailable, DevicesUnavailable);
BCUSIM_SAME(InvalidMemcpyDirection, InvalidMemcpyDirection);
BCUSIM_SAME(InvalidDeviceFunction, InvalidDeviceFunction);
BCUSIM_SAME(NoDevice, NoDevice);
BCUSIM_SAME(InvalidDevice, InvalidDevice);
BCUSIM_SAME(NoKernelImageForDevice, NoKernelImageForDevice);
BCUSIM_SAME(InvalidPtx, InvalidPtx);
BCUSIM_SAME(InvalidResourceHandle, InvalidResourceHandle);
BCUSIM_SAME(NotReady, NotReady);
BCUSIM_SAME(IllegalAddress, IllegalAddress);
BCUSIM_SAME(LaunchOutOfResources, LaunchOutOfResources);
BCUSIM_SAME(LaunchTimeout, LaunchTimeout);
BCUSIM_SAME(Assert, Assert);
BCUSIM_SAME(IllegalInstruction, IllegalInstruction);
BCUSIM_SAME(MisalignedAddress, MisalignedAddress);
BCUSIM_SAME(LaunchFailure, LaunchFailure);
BCUSIM_SAME(CooperativeLaunchTooLarge, CooperativeLaunchTooLarge);
BCUSIM_SAME(NotSupported, NotSupported);
BCUSIM_SAME(StreamCaptureUnsupported, StreamCaptureUnsupported);
BCUSIM_SAME(StreamCaptureInvalidated, StreamCaptureInvalidated);
BCUSIM_SAME(Unknown, Unknown);
#undef BCUSIM_SAME

namespace {

std::recursive_mutex g_mutex;
Runtime *g_rt = nullptr;

void at_exit() {
  std::lock_guard lock(g_mutex);
  if (!g_rt)
    return;
  // Launches still pending end now (a deadlock if they cannot).
  g_rt->host_sync_all();
  std::fflush(stdout);
  g_rt->check_heap_leaks();
  // Libraries the program loaded after its first CUDA call.
  bcusim_cudart_scan_libraries();
  g_rt->precompiled_libraries = bcusim::cudart::precompiled_libraries_seen();
  g_rt->missing_driver_functions =
      bcusim::cudart::missing_driver_functions_seen();
  std::fputs((g_rt->summary() + "\n").c_str(), stderr);
  if (!g_rt->write_report())
    std::fputs(fmt::format("bcusim: error: --report: cannot write '{}'\n",
                           g_rt->options().report)
                   .c_str(),
               stderr);
  // --error-exitcode N: the exit status says there were error findings
  // (the handlers registered before the runtime's do not run then).
  if (g_rt->options().error_exitcode != 0 && g_rt->stats().errors != 0) {
    std::fflush(nullptr);
    _exit(g_rt->options().error_exitcode);
  }
}

int attribute_value(const brt::DeviceModel &m, cudaDeviceAttr attr);

// The process's runtime, made at the first call with the options of
// BCUSIM_OPTIONS. Never destroyed: programs call the API from static
// destructors and atexit handlers.
Runtime &rt() {
  if (!g_rt) {
    brt::RunOptions o;
    if (const char *env = std::getenv(brt::kOptionsEnv)) {
      std::string err;
      auto parsed = brt::from_env(env, err);
      if (parsed)
        o = *parsed;
      else
        std::fputs(fmt::format("bcusim: error: {}: {}\n", brt::kOptionsEnv, err)
                       .c_str(),
                   stderr);
    }
    g_rt = new Runtime(o);
    g_rt->device_attribute = [](int attr, int device, int &value) {
      if (device != 0)
        return int(cudaErrorInvalidDevice);
      value = attribute_value(g_rt->model(), cudaDeviceAttr(attr));
      return int(cudaSuccess);
    };
    g_rt->device_error_string = [](int error) {
      return std::string(cudaGetErrorString(cudaError_t(error)));
    };
    std::atexit(at_exit);
    // The precompiled GPU libraries the program was linked with or has
    // loaded so far (docs/exec.md "Precompiled GPU libraries").
    bcusim_cudart_scan_libraries();
  }
  return *g_rt;
}

cudaError_t ret(Error e) { return cudaError_t(int(e)); }
cudaError_t rec(Error e) { return ret(rt().record(e)); }

// Calls that synchronize report a kernel's sticky error.
cudaError_t sticky() { return ret(rt().sticky()); }

eng::Dim3 dim(dim3 d) { return eng::Dim3{d.x, d.y, d.z}; }

// ---- streams, events, graphs --------------------------------------------
// The handles are the addresses of the runtime's objects (Runtime::Stream,
// Runtime::Event, Runtime::Graph); work runs at once, a capturing stream
// records it instead, and the order between streams is the runtime's.
using StreamId = brt::StreamOrder::Stream;
using Stream = Runtime::Stream;
using Event = Runtime::Event;
using Graph = Runtime::Graph;
using Work = Runtime::Work;

Stream *stream_of(cudaStream_t s) {
  // 0, cudaStreamLegacy (1) and cudaStreamPerThread (2) are the default
  // streams, which never capture.
  if (reinterpret_cast<uintptr_t>(s) <= 2)
    return nullptr;
  return reinterpret_cast<Stream *>(s);
}

// The runtime's stream: 0 is the legacy default stream, or the calling
// thread's per-thread default stream for the _ptsz/_ptds entry points
// (nvcc --default-stream per-thread).
// Set while a _ptsz/_ptds entry point runs (PerThreadDefault below).
thread_local bool t_per_thread = false;

StreamId stream_id(cudaStream_t s, bool per_thread = false) {
  const auto v = reinterpret_cast<uintptr_t>(s);
  if (v == 0)
    return per_thread || t_per_thread ? rt().streams().per_thread()
                                      : brt::StreamOrder::kLegacy;
  if (v == 1)
    return brt::StreamOrder::kLegacy;
  if (v == 2)
    return rt().streams().per_thread();
  return reinterpret_cast<Stream *>(s)->id;
}

// Entry points of the per-thread default stream (nvcc --default-stream
// per-thread calls the _ptsz / _ptds variants): stream 0 is the calling
// thread's per-thread default stream while one runs.
struct PerThreadDefault {
  bool old = t_per_thread;
  PerThreadDefault() { t_per_thread = true; }
  ~PerThreadDefault() { t_per_thread = old; }
  PerThreadDefault(const PerThreadDefault &) = delete;
  PerThreadDefault &operator=(const PerThreadDefault &) = delete;
};

// Runs `work` now, or records it when `s` is capturing.
cudaError_t submit(cudaStream_t s, Work work, bool per_thread = false) {
  return ret(
      rt().submit(stream_of(s), stream_id(s, per_thread), std::move(work)));
}

// The plain kernel launches a capturing graph recorded, by position: they
// become kernel nodes (graph.h).
std::map<const void *, std::map<size_t, bcusim::cudart::CapturedKernel>> &
captured_kernels() {
  static std::map<const void *,
                  std::map<size_t, bcusim::cudart::CapturedKernel>>
      m;
  return m;
}

// The cudaMallocAsync / cudaFreeAsync of graph memory a capturing graph
// recorded, by position: they become memory nodes (graph.h).
std::map<const void *, std::map<size_t, bcusim::cudart::Captured>> &
captured_memory() {
  static std::map<const void *, std::map<size_t, bcusim::cudart::Captured>> m;
  return m;
}

// The graph a capture records into, as its items become nodes: made at
// the first cudaStreamGetCaptureInfo or cudaStreamEndCapture, or the
// graph of cudaStreamBeginCaptureToGraph (then its roots follow
// `roots`). `nodes` is the node of each item made so far; an item in
// `placeholders` stands for a node the program added
// (cudaStreamUpdateCaptureDependencies) and makes none.
struct CaptureState {
  cudaGraph_t graph = nullptr;
  bool to_graph = false;
  unsigned long long id = 0;
  std::vector<cudaGraphNode_t> roots;
  std::vector<cudaGraphNode_t> nodes;
  std::map<size_t, cudaGraphNode_t> placeholders;
  std::vector<cudaGraphNode_t> deps_out; // cudaStreamGetCaptureInfo's
  std::vector<cudaGraphEdgeData> edges_out;
};
std::map<const void *, CaptureState> &capture_states() {
  static std::map<const void *, CaptureState> m;
  return m;
}
unsigned long long next_capture_id() {
  static unsigned long long n = 0;
  return ++n;
}

// Makes the items `g` recorded since the last call nodes of its graph.
cudaError_t sync_capture(Graph *g) {
  CaptureState &st = capture_states()[g];
  if (!st.graph)
    if (cudaError_t e = cudaGraphCreate(&st.graph, 0))
      return e;
  auto &kernels = captured_kernels()[g];
  auto &memory = captured_memory()[g];
  for (size_t i = st.nodes.size(); i < g->work.size(); ++i) {
    auto ph = st.placeholders.find(i);
    if (ph != st.placeholders.end()) {
      st.nodes.push_back(ph->second);
      continue;
    }
    bcusim::cudart::Captured c;
    auto mem = memory.find(i);
    if (mem != memory.end()) {
      c = std::move(mem->second);
    } else {
      c.work = [w = g->work[i]](cudaStream_t s) {
        std::lock_guard lock(g_mutex);
        return submit(s, w);
      };
      auto k = kernels.find(i);
      if (k != kernels.end())
        c.kernel = std::move(k->second);
    }
    std::vector<cudaGraphNode_t> deps;
    for (size_t d : g->deps[i])
      if (d < st.nodes.size())
        deps.push_back(st.nodes[d]);
    if (g->deps[i].empty())
      deps = st.roots;
    st.nodes.push_back(
        bcusim::cudart::add_captured(st.graph, std::move(c), deps));
  }
  return cudaSuccess;
}

// The nodes `s`'s next item will depend on.
std::vector<cudaGraphNode_t> capture_tail(const Stream &s, Graph *g) {
  CaptureState &st = capture_states()[g];
  if (s.tail.empty())
    return st.roots;
  std::vector<cudaGraphNode_t> v;
  for (size_t i : s.tail)
    if (i < st.nodes.size())
      v.push_back(st.nodes[i]);
  return v;
}

// ---- launches -------------------------------------------------------------
struct CallConfig {
  dim3 grid, block;
  size_t shared;
  void *stream;
};
thread_local std::vector<CallConfig> t_configs;

cudaError_t launch(const void *func, const Runtime::LaunchParams &p,
                   void **args, cudaStream_t stream, bool per_thread = false) {
  std::lock_guard lock(g_mutex);
  Stream *st = stream_of(stream);
  if (Graph *g = Runtime::capturing(st)) {
    // The arguments are copied now: a graph replays them later.
    Error err = Error::Success;
    auto fn = rt().function(func, err);
    if (!fn)
      return rec(err);
    auto bytes = std::make_shared<std::vector<std::vector<uint8_t>>>();
    for (size_t i = 0; i < fn->param_sizes.size(); ++i) {
      auto *a = static_cast<const uint8_t *>(args[i]);
      bytes->emplace_back(a, a + fn->param_sizes[i]);
    }
    rt().submit(st, st->id, [func, p, bytes](StreamId sid) {
      std::vector<void *> ptrs;
      for (auto &b : *bytes)
        ptrs.push_back(b.data());
      return rt().launch(func, p, ptrs.data(), sid);
    });
    // A plain launch becomes a kernel node of the captured graph.
    if (!p.cooperative && !p.programmatic && !p.cluster.x)
      captured_kernels()[g][g->work.size() - 1] = {
          func, dim3(p.grid.x, p.grid.y, p.grid.z),
          dim3(p.block.x, p.block.y, p.block.z), unsigned(p.shared), *bytes};
    return cudaSuccess;
  }
  return ret(rt().launch(func, p, args, stream_id(stream, per_thread)));
}

bool g_warned_kind = false;
cudaError_t check_kind(cudaMemcpyKind kind) {
  if (int(kind) < 0 || int(kind) > 4)
    return rec(Error::InvalidMemcpyDirection);
  (void)g_warned_kind;
  return cudaSuccess;
}

} // namespace

cudaError_t bcusim::cudart::read_condition(unsigned *value, const void *handle,
                                           cudaStream_t stream) {
  std::lock_guard lock(g_mutex);
  return submit(stream, [=](StreamId sid) {
    return rt().memcpy(value, handle, sizeof(unsigned), sid,
                       "a conditional node reading its condition");
  });
}

void bcusim::cudart::set_retired(void *p, std::string why, bool unmapped) {
  std::lock_guard lock(g_mutex);
  rt().device().set_retired(reinterpret_cast<uint64_t>(p), std::move(why),
                            unmapped);
}

cudaError_t bcusim::cudart::record_error(cudaError_t e) {
  std::lock_guard lock(g_mutex);
  return rec(Error(int(e)));
}

namespace {

// ---- libraries loaded at run time -----------------------------------------
// (docs/exec.md "Modules loaded at run time"): PTX text (NVRTC's output, a
// .ptx file), a fat binary with PTX, or its wrapper, compiled at the load.
// A cudaLibrary_t is the address of its Library; a cudaKernel_t the
// address of the kernel's name in it, registered as a host function so
// that every launch and attribute call takes it. Never destroyed:
// findings of their launches point into them. The options are accepted
// and have no effect (there is no JIT compiler to tune).
struct Library {
  int image = -1;
  bool unloaded = false;
  std::vector<std::string> kernels;                  // in PTX order
  std::map<std::string, std::unique_ptr<char>> keys; // kernel -> handle
};
std::vector<std::unique_ptr<Library>> &libraries() {
  static auto *v = new std::vector<std::unique_ptr<Library>>;
  return *v;
}
Library *library_of(cudaLibrary_t h) {
  for (auto &l : libraries())
    if (reinterpret_cast<cudaLibrary_t>(l.get()) == h)
      return l->unloaded ? nullptr : l.get();
  return nullptr;
}

cudaError_t load_library(cudaLibrary_t *library, const void *code,
                         std::string name, const char *api) {
  std::lock_guard lock(g_mutex);
  if (!library || !code)
    return rec(Error::InvalidValue);
  Error err = Error::Success;
  std::string why;
  int image = rt().load_image(code, std::move(name), err, why);
  if (image < 0) {
    // (PTX that does not compile has had its diagnostics.)
    if (err != Error::InvalidPtx || why.find(".version") != std::string::npos)
      std::fputs(fmt::format("bcusim: error: {}: {}\n", api, why).c_str(),
                 stderr);
    return rec(err);
  }
  auto l = std::make_unique<Library>();
  l->image = image;
  l->kernels = rt().image_kernels(image);
  for (const auto &k : l->kernels) {
    auto &key = l->keys[k];
    key = std::make_unique<char>();
    rt().register_function(image, key.get(), k);
  }
  *library = reinterpret_cast<cudaLibrary_t>(l.get());
  libraries().push_back(std::move(l));
  return cudaSuccess;
}

} // namespace

// The libcuda.so.1 stand-in's module loads come here too (cuModuleLoad*,
// named `api` in messages): `file` when given (a PTX, fat binary or cubin
// file), else `code`.
extern "C" __attribute__((visibility("default"))) cudaError_t
bcusim_cudart_library_load(cudaLibrary_t *library, const void *code,
                           const char *file, const char *api) {
  if (!file)
    return load_library(library, code, "", api);
  if (!library)
    return bcusim::cudart::record_error(cudaErrorInvalidValue);
  std::ifstream f(file, std::ios::binary);
  if (!f) {
    std::fputs(
        fmt::format("bcusim: error: {}: cannot read '{}'\n", api, file).c_str(),
        stderr);
    return bcusim::cudart::record_error(cudaErrorFileNotFound);
  }
  std::string bytes((std::istreambuf_iterator<char>(f)),
                    std::istreambuf_iterator<char>());
  bytes.push_back('\0'); // PTX text ends there
  return load_library(library, bytes.data(), file, api);
}

// The libcuda.so.1 stand-in's cuModuleGetFunction and cuKernelGetFunction:
// a use of the kernel (lazy loading loads it, docs/exec.md "Lazy
// loading"); cudaErrorInvalidDeviceFunction when `kernel` is none.
extern "C" __attribute__((visibility("default"))) cudaError_t
bcusim_cudart_kernel_use(const void *kernel) {
  std::lock_guard lock(g_mutex);
  return rt().use_kernel(kernel) ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

extern "C" {

// Stubs call this (stubs.cpp): the name once, then cudaErrorNotSupported.
int bcusim_cudart_unsupported(const char *name) {
  static std::mutex m;
  static std::vector<std::string> seen;
  std::lock_guard lock(m);
  std::string n(name);
  bool first = true;
  for (auto &s : seen)
    first &= s != n;
  if (first) {
    seen.push_back(n);
    std::fputs(fmt::format("bcusim: {} is not supported; it returns "
                           "cudaErrorNotSupported\n",
                           n)
                   .c_str(),
               stderr);
  }
  if (g_rt)
    g_rt->record(Error::NotSupported);
  return cudaErrorNotSupported;
}

// ---- registration -------------------------------------------------------
// A fat binary handle is the module's index + 1 stored in a small block.
void **__cudaRegisterFatBinary(void *fatCubin) {
  std::lock_guard lock(g_mutex);
  int m = rt().add_fatbin(fatCubin);
  auto *h = new intptr_t[1]{m};
  return reinterpret_cast<void **>(h);
}

void __cudaRegisterFatBinaryEnd(void **) {}

void __cudaUnregisterFatBinary(void **handle) {
  std::lock_guard lock(g_mutex);
  if (handle && g_rt)
    g_rt->unregister_module(int(*reinterpret_cast<intptr_t *>(handle)));
}

static int module_of(void **handle) {
  return handle ? int(*reinterpret_cast<intptr_t *>(handle)) : -1;
}

char __cudaInitModule(void **handle) {
  std::lock_guard lock(g_mutex);
  return rt().init_module(module_of(handle)) ? 1 : 0;
}

void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun,
                            const char *, int, uint3 *, uint3 *, dim3 *, dim3 *,
                            int *) {
  std::lock_guard lock(g_mutex);
  rt().register_function(module_of(handle), hostFun, deviceFun);
}

void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress,
                       const char *, int, size_t size, int constant, int) {
  std::lock_guard lock(g_mutex);
  rt().register_var(module_of(handle), hostVar, deviceAddress, size,
                    constant != 0);
}

void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress,
                              char *deviceAddress, const char *, int,
                              size_t size, int, int) {
  std::lock_guard lock(g_mutex);
  rt().register_managed_var(module_of(handle), hostVarPtrAddress, deviceAddress,
                            size);
}

cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code,
                                cudaJitOption *, void **, unsigned,
                                cudaLibraryOption *, void **, unsigned) {
  return bcusim_cudart_library_load(library, code, nullptr,
                                    "cudaLibraryLoadData");
}

cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t *library,
                                    const char *fileName, cudaJitOption *,
                                    void **, unsigned, cudaLibraryOption *,
                                    void **, unsigned) {
  return bcusim_cudart_library_load(library, nullptr, fileName,
                                    "cudaLibraryLoadFromFile");
}

cudaError_t cudaLibraryUnload(cudaLibrary_t library) {
  std::lock_guard lock(g_mutex);
  Library *l = library_of(library);
  if (!l)
    return rec(Error::InvalidResourceHandle);
  // Pending work that uses it ends first (the driver waits too).
  rt().host_sync_all();
  l->unloaded = true;
  rt().unregister_module(l->image);
  return cudaSuccess;
}

cudaError_t cudaLibraryGetKernel(cudaKernel_t *pKernel, cudaLibrary_t library,
                                 const char *name) {
  std::lock_guard lock(g_mutex);
  if (!pKernel || !name)
    return rec(Error::InvalidValue);
  Library *l = library_of(library);
  if (!l)
    return rec(Error::InvalidResourceHandle);
  auto it = l->keys.find(name);
  if (it == l->keys.end())
    return bcusim::cudart::record_error(cudaErrorSymbolNotFound);
  *pKernel = reinterpret_cast<cudaKernel_t>(it->second.get());
  return cudaSuccess;
}

cudaError_t cudaLibraryGetKernelCount(unsigned *count, cudaLibrary_t lib) {
  std::lock_guard lock(g_mutex);
  if (!count)
    return rec(Error::InvalidValue);
  Library *l = library_of(lib);
  if (!l)
    return rec(Error::InvalidResourceHandle);
  *count = unsigned(l->kernels.size());
  return cudaSuccess;
}

cudaError_t cudaLibraryEnumerateKernels(cudaKernel_t *kernels,
                                        unsigned numKernels,
                                        cudaLibrary_t lib) {
  std::lock_guard lock(g_mutex);
  if (!kernels)
    return rec(Error::InvalidValue);
  Library *l = library_of(lib);
  if (!l)
    return rec(Error::InvalidResourceHandle);
  for (unsigned i = 0; i < numKernels && i < l->kernels.size(); ++i)
    kernels[i] =
        reinterpret_cast<cudaKernel_t>(l->keys.at(l->kernels[i]).get());
  return cudaSuccess;
}

cudaError_t cudaLibraryGetGlobal(void **dptr, size_t *bytes,
                                 cudaLibrary_t library, const char *name) {
  std::lock_guard lock(g_mutex);
  if (!name)
    return rec(Error::InvalidValue);
  Library *l = library_of(library);
  if (!l)
    return rec(Error::InvalidResourceHandle);
  void *addr = nullptr;
  uint64_t size = 0;
  Error e = rt().image_global(l->image, name, &addr, &size);
  if (e == Error::InvalidSymbol)
    return bcusim::cudart::record_error(cudaErrorSymbolNotFound);
  if (dptr)
    *dptr = addr;
  if (bytes)
    *bytes = size;
  return cudaSuccess;
}

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
                                     size_t sharedMem, void *stream) {
  t_configs.push_back({gridDim, blockDim, sharedMem, stream});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
                                       size_t *sharedMem, void *stream) {
  if (t_configs.empty())
    return cudaErrorInvalidConfiguration;
  CallConfig c = t_configs.back();
  t_configs.pop_back();
  *gridDim = c.grid;
  *blockDim = c.block;
  *sharedMem = c.shared;
  *static_cast<void **>(stream) = c.stream;
  return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func) {
  *kernel = reinterpret_cast<cudaKernel_t>(const_cast<void *>(func));
  return cudaSuccess;
}

cudaError_t cudaGetKernel(cudaKernel_t *kernel, const void *func) {
  return __cudaGetKernel(kernel, func);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
                             void **args, size_t sharedMem,
                             cudaStream_t stream) {
  Runtime::LaunchParams p;
  p.grid = dim(gridDim);
  p.block = dim(blockDim);
  p.shared = sharedMem;
  return launch(func, p, args, stream);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                               void **args, size_t sharedMem,
                               cudaStream_t stream) {
  return cudaLaunchKernel(reinterpret_cast<const void *>(kernel), gridDim,
                          blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                  void **args, size_t sharedMem,
                                  cudaStream_t stream) {
  Runtime::LaunchParams p;
  p.grid = dim(gridDim);
  p.block = dim(blockDim);
  p.shared = sharedMem;
  return launch(func, p, args, stream, true);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim,
                                    dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream) {
  return cudaLaunchKernel_ptsz(reinterpret_cast<const void *>(kernel), gridDim,
                               blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim,
                                        dim3 blockDim, void **args,
                                        size_t sharedMem, cudaStream_t stream) {
  Runtime::LaunchParams p;
  p.grid = dim(gridDim);
  p.block = dim(blockDim);
  p.shared = sharedMem;
  p.cooperative = true;
  return launch(func, p, args, stream);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config,
                                const void *func, void **args) {
  if (!config)
    return rec(Error::InvalidValue);
  Runtime::LaunchParams p;
  p.grid = dim(config->gridDim);
  p.block = dim(config->blockDim);
  p.shared = config->dynamicSmemBytes;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const cudaLaunchAttribute &a = config->attrs[i];
    switch (a.id) {
    case cudaLaunchAttributeClusterDimension:
      p.cluster = {a.val.clusterDim.x, a.val.clusterDim.y, a.val.clusterDim.z};
      break;
    case cudaLaunchAttributeCooperative:
      p.cooperative = a.val.cooperative != 0;
      break;
    case cudaLaunchAttributeProgrammaticStreamSerialization:
      p.programmatic = a.val.programmaticStreamSerializationAllowed != 0;
      break;
    default:
      break; // priorities, policies, ...: no effect on a serial device
    }
  }
  return launch(func, p, args, config->stream);
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn,
                               void *userData) {
  return submit(stream, [fn, userData](StreamId sid) {
    rt().wait_stream(sid); // after the stream's pending launches
    fn(userData);
    return Error::Success;
  });
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func) {
  std::lock_guard lock(g_mutex);
  if (!attr)
    return rec(Error::InvalidValue);
  Error err = Error::Success;
  auto fn = rt().function(func, err);
  if (!fn)
    return rec(err);
  std::memset(attr, 0, sizeof(*attr));
  attr->sharedSizeBytes = fn->info.static_shared;
  attr->constSizeBytes = 0;
  attr->localSizeBytes = fn->info.local_bytes;
  attr->maxThreadsPerBlock = int(fn->info.max_threads);
  attr->numRegs = int(rt().model().regs_per_thread);
  attr->ptxVersion = 90;
  attr->binaryVersion = 90;
  attr->maxDynamicSharedSizeBytes =
      int(rt().model().shared_per_block - fn->info.static_shared);
  attr->requiredClusterWidth = int(fn->info.cluster.x);
  attr->requiredClusterHeight = int(fn->info.cluster.y);
  attr->requiredClusterDepth = int(fn->info.cluster.z);
  attr->clusterDimMustBeSet = fn->info.cluster.x != 0;
  attr->nonPortableClusterSizeAllowed = 1;
  return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr,
                                 int value) {
  std::lock_guard lock(g_mutex);
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize)
    return rec(rt().set_max_dynamic_shared(func, value));
  Error err = Error::Success;
  if (!rt().function(func, err))
    return rec(err);
  return cudaSuccess; // carveout, cluster scheduling: no effect
}

// Parameters are laid out at their natural alignment (at most 8 bytes).
cudaError_t cudaFuncGetParamInfo(const void *func, size_t paramIndex,
                                 size_t *paramOffset, size_t *paramSize) {
  std::lock_guard lock(g_mutex);
  Error err = Error::Success;
  auto fn = rt().function(func, err);
  if (!fn)
    return rec(err);
  if (paramIndex >= fn->param_sizes.size())
    return cudaErrorInvalidValue; // not recorded: callers probe for the end
  size_t offset = 0;
  for (size_t i = 0;; ++i) {
    size_t size = fn->param_sizes[i];
    size_t align = std::min<size_t>(size & -size, 8);
    offset = (offset + align - 1) / align * align;
    if (i == paramIndex) {
      if (paramOffset)
        *paramOffset = offset;
      if (paramSize)
        *paramSize = size;
      return cudaSuccess;
    }
    offset += size;
  }
}

cudaError_t cudaFuncSetCacheConfig(const void *func, cudaFuncCache) {
  std::lock_guard lock(g_mutex);
  rt().use_kernel(func); // a use: lazy loading loads it
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize,
    unsigned int) {
  std::lock_guard lock(g_mutex);
  if (!numBlocks || blockSize <= 0)
    return rec(Error::InvalidValue);
  Error err = Error::Success;
  auto fn = rt().function(func, err);
  if (!fn)
    return rec(err);
  *numBlocks = int(rt().model().blocks_per_sm(
      uint32_t(blockSize), fn->info.static_shared + dynamicSMemSize));
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
      numBlocks, func, blockSize, dynamicSMemSize, 0);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                      const void *func,
                                                      int numBlocks,
                                                      int blockSize) {
  std::lock_guard lock(g_mutex);
  if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
    return rec(Error::InvalidValue);
  Error err = Error::Success;
  auto fn = rt().function(func, err);
  if (!fn)
    return rec(err);
  const auto &m = rt().model();
  uint64_t per = m.shared_per_sm / uint64_t(numBlocks);
  per =
      per > m.reserved_shared_per_block ? per - m.reserved_shared_per_block : 0;
  per = std::min<uint64_t>(per, m.shared_per_block_optin);
  *dynamicSmemSize =
      per > fn->info.static_shared ? per - fn->info.static_shared : 0;
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxPotentialClusterSize(int *clusterSize,
                                                 const void *func,
                                                 const cudaLaunchConfig_t *) {
  std::lock_guard lock(g_mutex);
  Error err = Error::Success;
  if (!clusterSize)
    return rec(Error::InvalidValue);
  if (!rt().function(func, err))
    return rec(err);
  *clusterSize = int(rt().model().max_cluster);
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveClusters(int *numClusters, const void *func,
                                           const cudaLaunchConfig_t *config) {
  std::lock_guard lock(g_mutex);
  if (!numClusters || !config)
    return rec(Error::InvalidValue);
  Error err = Error::Success;
  auto fn = rt().function(func, err);
  if (!fn)
    return rec(err);
  uint64_t csize = 1;
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == cudaLaunchAttributeClusterDimension) {
      const auto &c = config->attrs[i].val.clusterDim;
      csize = uint64_t(c.x) * c.y * c.z;
    }
  if (fn->info.cluster.x)
    csize = fn->info.cluster.count();
  const auto &m = rt().model();
  uint64_t per_sm = m.blocks_per_sm(
      config->blockDim.x * config->blockDim.y * config->blockDim.z,
      fn->info.static_shared + config->dynamicSmemBytes);
  *numClusters = csize ? int(per_sm * m.sm_count / csize) : 0;
  return cudaSuccess;
}

} // extern "C"

// Stream attributes, by handle: kept and reported back, no effect (one
// memory, no L2 persistence, one way of waiting).
namespace {
struct StreamAttrs {
  cudaAccessPolicyWindow window{};
  // Unset until cudaStreamSetAttribute sets it: a GPU's runtime does not
  // write an attribute never set (measured on H200).
  std::optional<cudaSynchronizationPolicy> sync;
  cudaLaunchMemSyncDomainMap domain_map{0, 1};
  cudaLaunchMemSyncDomain domain = cudaLaunchMemSyncDomainDefault;
};
// Never destroyed, as the runtime: programs call the API from static
// destructors.
std::map<cudaStream_t, StreamAttrs> &stream_attrs() {
  static auto *m = new std::map<cudaStream_t, StreamAttrs>;
  return *m;
}
} // namespace

// ---- memory pools (docs/exec.md "Decisions", "Measured on H200") ---------
// A pool is the bookkeeping of the stream-ordered allocations made from it:
// the memory is the runtime's (cudaMalloc's), freed in stream order and
// released at the next host synchronization (Runtime::free_async). As on a
// GPU, the pool reserves device memory in 32 MiB units: its reservation is
// the bytes of its allocations and of the freed ones not yet released,
// rounded up to the unit, and a maximum size limits that reservation (in
// units too). The used bytes count its allocations until cudaFreeAsync; an
// allocation freed with cudaFree stays counted as used, as measured. The
// handle is the address of the MemPool; destroyed pools are kept (their
// allocations may still live) and refused as handles.
namespace {
constexpr uint64_t kPoolUnit = 32ull << 20;
uint64_t pool_units(uint64_t bytes) {
  return (bytes + kPoolUnit - 1) / kPoolUnit * kPoolUnit;
}
struct MemPool {
  cudaMemPoolProps props{};
  uint64_t threshold = 0;
  int reuse[3] = {1, 1, 1};         // cudaMemPoolReuse* (attributes 1..3)
  std::map<void *, uint64_t> live;  // allocated, not yet freed
  std::map<void *, uint64_t> freed; // freed in stream order, maybe mapped
  uint64_t used_high = 0, reserved_high = 0;
  bool destroyed = false;

  uint64_t live_bytes = 0; // the sum of `live`
  uint64_t kept_bytes = 0; // allocations freed with cudaFree
  uint64_t used() const { return live_bytes + kept_bytes; }
  // Freed memory the runtime has not released yet.
  uint64_t pending() {
    uint64_t n = 0;
    for (auto it = freed.begin(); it != freed.end();) {
      if (rt().pool_pending(it->first)) {
        n += it->second;
        ++it;
      } else {
        it = freed.erase(it);
      }
    }
    return n;
  }
  uint64_t reserved() { return pool_units(live_bytes + pending()); }
  // Whether `more` bytes fit in the maximum size.
  bool fits(uint64_t more) {
    return !props.maxSize || pool_units(live_bytes + pending() + more) <=
                                 pool_units(props.maxSize);
  }
};

std::vector<std::unique_ptr<MemPool>> &pools() {
  static auto *v = new std::vector<std::unique_ptr<MemPool>>; // never destroyed
  return *v;
}

MemPool *default_pool() {
  static MemPool *p = [] {
    auto d = std::make_unique<MemPool>();
    d->props.allocType = cudaMemAllocationTypePinned;
    d->props.location.type = cudaMemLocationTypeDevice;
    d->props.location.id = 0;
    pools().push_back(std::move(d));
    return pools().back().get();
  }();
  return p;
}

MemPool *&current_pool() {
  static MemPool *p = nullptr;
  if (!p)
    p = default_pool();
  return p;
}

MemPool *pool_of(cudaMemPool_t h) {
  for (auto &p : pools())
    if (reinterpret_cast<cudaMemPool_t>(p.get()) == h && !p->destroyed)
      return p.get();
  return nullptr;
}

cudaMemPool_t handle_of(MemPool *p) {
  return reinterpret_cast<cudaMemPool_t>(p);
}

// The pool a live allocation came from.
MemPool *owner_of(void *ptr) {
  for (auto &p : pools())
    if (p->live.count(ptr))
      return p.get();
  return nullptr;
}

cudaError_t pool_malloc(void **devPtr, size_t size, MemPool *pool) {
  std::lock_guard lock(g_mutex);
  if (rt().sticky() != Error::Success)
    return sticky();
  if (!devPtr)
    return rec(Error::InvalidValue);
  if (!pool->fits(size))
    return rec(Error::MemoryAllocation);
  if (cudaError_t e = ret(rt().malloc(devPtr, size)))
    return e;
  if (!*devPtr)
    return cudaSuccess;
  pool->live[*devPtr] = size;
  pool->live_bytes += size;
  pool->used_high = std::max(pool->used_high, pool->used());
  pool->reserved_high = std::max(pool->reserved_high, pool->reserved());
  return cudaSuccess;
}

// A pool allocation's lifetime ended (stream-ordered or cudaFree: then
// its bytes stay counted as used).
void pool_forget(void *ptr, bool async) {
  if (MemPool *p = owner_of(ptr)) {
    const uint64_t bytes = p->live[ptr];
    if (async)
      p->freed[ptr] = bytes;
    else
      p->kept_bytes += bytes;
    p->live_bytes -= bytes;
    p->live.erase(ptr);
  }
}
} // namespace

extern "C" {

// ---- memory -------------------------------------------------------------
cudaError_t cudaMalloc(void **devPtr, size_t size) {
  std::lock_guard lock(g_mutex);
  if (rt().sticky() != Error::Success)
    return sticky();
  return ret(rt().malloc(devPtr, size));
}

cudaError_t cudaFree(void *devPtr) {
  if (bcusim::cudart::free_graph_alloc(devPtr, "cudaFree"))
    return cudaSuccess; // graph memory: its lifetime ends, its address stays
  std::lock_guard lock(g_mutex);
  if (rt().sticky() != Error::Success)
    return sticky();
  rt().host_sync_all(); // cudaFree waits for the device
  Error e = rt().free(devPtr);
  if (e == Error::Success)
    pool_forget(devPtr, false);
  return ret(e);
}

// Stream-ordered allocation: memory is allocated at the call (its address
// is what the program needs) and freed in stream order. In a capture they
// become memory nodes: the graph allocates and frees the memory at its
// place in the graph (docs/exec.md "Graph memory").
cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream) {
  Graph *g = nullptr;
  {
    std::lock_guard lock(g_mutex);
    g = Runtime::capturing(stream_of(stream));
  }
  if (!g) {
    MemPool *pool = nullptr;
    {
      std::lock_guard lock(g_mutex);
      pool = current_pool();
    }
    return pool_malloc(devPtr, size, pool);
  }
  if (!devPtr)
    return rec(Error::InvalidValue);
  std::shared_ptr<bcusim::cudart::GraphAlloc> a;
  if (cudaError_t e = bcusim::cudart::new_graph_alloc(
          size, a, "cudaMallocAsync in a capture"))
    return rec(Error(int(e)));
  std::lock_guard lock(g_mutex);
  Stream *st = stream_of(stream);
  rt().submit(st, st->id, [](StreamId) { return Error::Success; });
  bcusim::cudart::Captured c;
  c.mem = cudaGraphNodeTypeMemAlloc;
  c.alloc = a;
  captured_memory()[g][g->work.size() - 1] = std::move(c);
  *devPtr = bcusim::cudart::graph_alloc_ptr(*a);
  return cudaSuccess;
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream) {
  if (!devPtr)
    return cudaSuccess;
  // The graph functions take their lock before the runtime's, as
  // everywhere.
  Graph *g = nullptr;
  {
    std::lock_guard lock(g_mutex);
    g = Runtime::capturing(stream_of(stream));
  }
  if (g) {
    if (auto a = bcusim::cudart::graph_alloc(devPtr)) {
      std::lock_guard lock(g_mutex);
      Stream *st = stream_of(stream);
      rt().submit(st, st->id, [](StreamId) { return Error::Success; });
      bcusim::cudart::Captured c;
      c.mem = cudaGraphNodeTypeMemFree;
      c.alloc = std::move(a);
      captured_memory()[g][g->work.size() - 1] = std::move(c);
      return cudaSuccess;
    }
  } else if (bcusim::cudart::free_graph_alloc(devPtr, "cudaFreeAsync")) {
    return cudaSuccess;
  }
  std::lock_guard lock(g_mutex);
  if (!Runtime::is_device_address(devPtr))
    return rec(Error::InvalidValue);
  return submit(stream, [devPtr](StreamId) {
    Error e = rt().free_async(devPtr);
    if (e == Error::Success)
      pool_forget(devPtr, true);
    return e;
  });
}

namespace {
// cudaDeviceGetDefaultMemPool / cudaDeviceGetMemPool: the device's default
// or current pool.
cudaError_t get_device_pool(cudaMemPool_t *memPool, int device, bool current) {
  std::lock_guard lock(g_mutex);
  if (!memPool)
    return rec(Error::InvalidValue);
  if (device != 0)
    return rec(Error::InvalidDevice);
  *memPool = handle_of(current ? current_pool() : default_pool());
  return cudaSuccess;
}
} // namespace

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device) {
  return get_device_pool(memPool, device, false);
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device) {
  return get_device_pool(memPool, device, true);
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool) {
  std::lock_guard lock(g_mutex);
  if (device != 0)
    return rec(Error::InvalidDevice);
  MemPool *p = pool_of(memPool);
  if (!p)
    return rec(Error::InvalidValue);
  current_pool() = p;
  return cudaSuccess;
}

// The one device's pinned memory is the only location a pool can have.
static cudaError_t device_location(const cudaMemLocation *location,
                                   cudaMemAllocationType type) {
  if (!location || type != cudaMemAllocationTypePinned)
    return rec(Error::InvalidValue);
  if (location->type != cudaMemLocationTypeDevice)
    return rec(Error::NotSupported);
  if (location->id != 0)
    return rec(Error::InvalidDevice);
  return cudaSuccess;
}

cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t *memPool,
                                     cudaMemLocation *location,
                                     cudaMemAllocationType type) {
  if (cudaError_t e = device_location(location, type))
    return e;
  return cudaDeviceGetDefaultMemPool(memPool, 0);
}

cudaError_t cudaMemGetMemPool(cudaMemPool_t *memPool, cudaMemLocation *location,
                              cudaMemAllocationType type) {
  if (cudaError_t e = device_location(location, type))
    return e;
  return cudaDeviceGetMemPool(memPool, 0);
}

cudaError_t cudaMemSetMemPool(cudaMemLocation *location,
                              cudaMemAllocationType type,
                              cudaMemPool_t memPool) {
  if (cudaError_t e = device_location(location, type))
    return e;
  return cudaDeviceSetMemPool(0, memPool);
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool,
                              const cudaMemPoolProps *poolProps) {
  std::lock_guard lock(g_mutex);
  if (!memPool || !poolProps)
    return rec(Error::InvalidValue);
  if (cudaError_t e =
          device_location(&poolProps->location, poolProps->allocType))
    return e;
  auto p = std::make_unique<MemPool>();
  p->props = *poolProps;
  *memPool = handle_of(p.get());
  pools().push_back(std::move(p));
  return cudaSuccess;
}

// Allocations still live keep their memory; the handle ends at once.
cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool) {
  std::lock_guard lock(g_mutex);
  MemPool *p = pool_of(memPool);
  if (!p || p == default_pool())
    return rec(Error::InvalidValue);
  if (current_pool() == p)
    current_pool() = default_pool();
  p->destroyed = true;
  return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr,
                                    void *value) {
  std::lock_guard lock(g_mutex);
  MemPool *p = pool_of(memPool);
  if (!p || !value)
    return rec(Error::InvalidValue);
  switch (attr) {
  case cudaMemPoolReuseFollowEventDependencies:
  case cudaMemPoolReuseAllowOpportunistic:
  case cudaMemPoolReuseAllowInternalDependencies:
    p->reuse[int(attr) - 1] = *static_cast<int *>(value) != 0;
    return cudaSuccess;
  case cudaMemPoolAttrReleaseThreshold:
    p->threshold = *static_cast<uint64_t *>(value);
    return cudaSuccess;
  case cudaMemPoolAttrReservedMemHigh: // only a reset (to the current value)
    if (*static_cast<uint64_t *>(value) != 0)
      return rec(Error::InvalidValue);
    p->reserved_high = p->reserved();
    return cudaSuccess;
  case cudaMemPoolAttrUsedMemHigh:
    if (*static_cast<uint64_t *>(value) != 0)
      return rec(Error::InvalidValue);
    p->used_high = p->used();
    return cudaSuccess;
  default: // the current values are read-only
    return rec(Error::InvalidValue);
  }
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr,
                                    void *value) {
  std::lock_guard lock(g_mutex);
  MemPool *p = pool_of(memPool);
  if (!p || !value)
    return rec(Error::InvalidValue);
  auto u64 = [value](uint64_t v) {
    *static_cast<uint64_t *>(value) = v;
    return cudaSuccess;
  };
  switch (attr) {
  case cudaMemPoolReuseFollowEventDependencies:
  case cudaMemPoolReuseAllowOpportunistic:
  case cudaMemPoolReuseAllowInternalDependencies:
    *static_cast<int *>(value) = p->reuse[int(attr) - 1];
    return cudaSuccess;
  case cudaMemPoolAttrReleaseThreshold:
    return u64(p->threshold);
  case cudaMemPoolAttrReservedMemCurrent:
    return u64(p->reserved());
  case cudaMemPoolAttrReservedMemHigh:
    return u64(std::max(p->reserved_high, p->reserved()));
  case cudaMemPoolAttrUsedMemCurrent:
    return u64(p->used());
  case cudaMemPoolAttrUsedMemHigh:
    return u64(p->used_high);
  default:
    return rec(Error::InvalidValue);
  }
}

// Releases freed memory the pool still holds until at most minBytesToKeep
// of it is left; memory that pending work may still reach stays until the
// next synchronization.
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep) {
  std::lock_guard lock(g_mutex);
  MemPool *p = pool_of(memPool);
  if (!p)
    return rec(Error::InvalidValue);
  uint64_t unused = p->pending();
  for (auto it = p->freed.begin();
       it != p->freed.end() && unused > minBytesToKeep;) {
    if (!rt().release_freed(it->first))
      break;
    unused -= it->second;
    it = p->freed.erase(it);
  }
  return cudaSuccess;
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool,
                                 const cudaMemAccessDesc *descList,
                                 size_t count) {
  std::lock_guard lock(g_mutex);
  if (!pool_of(memPool) || (count && !descList))
    return rec(Error::InvalidValue);
  for (size_t i = 0; i < count; ++i) {
    const cudaMemAccessDesc &d = descList[i];
    if (d.location.type != cudaMemLocationTypeDevice)
      return rec(Error::InvalidValue);
    if (d.location.id != 0)
      return rec(Error::InvalidDevice);
    // The pool's own device always reads and writes its memory.
    if (d.flags != cudaMemAccessFlagsProtReadWrite)
      return rec(Error::InvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags *flags,
                                 cudaMemPool_t memPool,
                                 cudaMemLocation *location) {
  std::lock_guard lock(g_mutex);
  if (!flags || !location || !pool_of(memPool))
    return rec(Error::InvalidValue);
  if (location->type != cudaMemLocationTypeDevice)
    return rec(Error::InvalidValue);
  if (location->id != 0)
    return rec(Error::InvalidDevice);
  *flags = cudaMemAccessFlagsProtReadWrite;
  return cudaSuccess;
}

cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size,
                                    cudaMemPool_t memPool,
                                    cudaStream_t stream) {
  MemPool *p = nullptr;
  bool capturing = false;
  {
    std::lock_guard lock(g_mutex);
    p = pool_of(memPool);
    capturing = Runtime::capturing(stream_of(stream)) != nullptr;
  }
  if (!p)
    return rec(Error::InvalidValue);
  if (capturing) // graph memory, as cudaMallocAsync in a capture
    return cudaMallocAsync(ptr, size, stream);
  return pool_malloc(ptr, size, p);
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width,
                            size_t height) {
  if (!pitch)
    return rec(Error::InvalidValue);
  *pitch = (width + 511) / 512 * 512;
  return cudaMalloc(devPtr, *pitch * height);
}

cudaError_t cudaMallocHost(void **ptr, size_t size) {
  std::lock_guard lock(g_mutex);
  return ret(rt().malloc_host(ptr, size, "cudaMallocHost memory"));
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int) {
  std::lock_guard lock(g_mutex);
  return ret(rt().malloc_host(pHost, size, "cudaHostAlloc memory"));
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int) {
  std::lock_guard lock(g_mutex);
  return ret(rt().malloc_host(devPtr, size, "managed memory"));
}

cudaError_t cudaFreeHost(void *ptr) {
  std::lock_guard lock(g_mutex);
  return ret(rt().free_host(ptr));
}

// ---- registered host memory (docs/exec.md "Decisions"): base -> (size,
// cudaHostRegister flags); the engine maps the range at its own address.
namespace {
std::map<uint64_t, std::pair<uint64_t, unsigned>> g_registered;

// The registered range holding p, or end().
auto registered_at(const void *p) {
  const uint64_t a = reinterpret_cast<uint64_t>(p);
  auto it = g_registered.upper_bound(a);
  if (it == g_registered.begin())
    return g_registered.end();
  --it;
  return a - it->first < it->second.first ? it : g_registered.end();
}
} // namespace

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost,
                                     unsigned int) {
  std::lock_guard lock(g_mutex);
  if (!pDevice || (!rt().is_host_mapped(pHost) &&
                   registered_at(pHost) == g_registered.end()))
    return rec(Error::InvalidValue);
  *pDevice = pHost; // the same address on both sides
  return cudaSuccess;
}

cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost) {
  std::lock_guard lock(g_mutex);
  if (!pFlags)
    return rec(Error::InvalidValue);
  if (auto it = registered_at(pHost); it != g_registered.end()) {
    *pFlags = it->second.second;
    return cudaSuccess;
  }
  if (!rt().is_host_mapped(pHost))
    return rec(Error::InvalidValue);
  *pFlags = cudaHostAllocMapped;
  return cudaSuccess;
}

// Mapped or not, portable or not, the range is one pointer on both sides
// (unified addressing): the flags are kept for cudaHostGetFlags.
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
  std::lock_guard lock(g_mutex);
  const unsigned known = cudaHostRegisterPortable | cudaHostRegisterMapped |
                         cudaHostRegisterIoMemory | cudaHostRegisterReadOnly;
  if (!ptr || size == 0 || (flags & ~known))
    return rec(Error::InvalidValue);
  const uint64_t a = reinterpret_cast<uint64_t>(ptr);
  auto next = g_registered.lower_bound(a);
  if (registered_at(ptr) != g_registered.end() ||
      (next != g_registered.end() && next->first < a + size) ||
      rt().is_host_mapped(ptr))
    return rec(Error::HostMemoryAlreadyRegistered);
  if (!rt().device().map_host(ptr, size, "cudaHostRegister memory"))
    return rec(Error::InvalidValue);
  g_registered[a] = {size, flags};
  return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr) {
  std::lock_guard lock(g_mutex);
  auto it = g_registered.find(reinterpret_cast<uint64_t>(ptr));
  if (it == g_registered.end())
    return rec(Error::HostMemoryNotRegistered);
  rt().device().unmap_host(ptr);
  g_registered.erase(it);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                       cudaMemcpyKind kind) {
  std::lock_guard lock(g_mutex);
  if (rt().sticky() != Error::Success)
    return sticky();
  if (cudaError_t e = check_kind(kind))
    return e;
  Error e = rt().memcpy(dst, src, count, stream_id(nullptr), "cudaMemcpy");
  rt().host_sync(stream_id(nullptr)); // returns when done
  return ret(e);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                            cudaMemcpyKind kind, cudaStream_t stream) {
  std::lock_guard lock(g_mutex);
  if (rt().sticky() != Error::Success)
    return sticky();
  if (cudaError_t e = check_kind(kind))
    return e;
  return submit(stream, [=](StreamId sid) {
    return rt().memcpy(dst, src, count, sid, "cudaMemcpyAsync");
  });
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src,
                         size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind) {
  std::lock_guard lock(g_mutex);
  if (rt().sticky() != Error::Success)
    return sticky();
  if (cudaError_t e = check_kind(kind))
    return e;
  Error e = rt().memcpy2d(dst, dpitch, src, spitch, width, height,
                          stream_id(nullptr), "cudaMemcpy2D");
  rt().host_sync(stream_id(nullptr));
  return ret(e);
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                              size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind, cudaStream_t stream) {
  std::lock_guard lock(g_mutex);
  if (cudaError_t e = check_kind(kind))
    return e;
  return submit(stream, [=](StreamId sid) {
    return rt().memcpy2d(dst, dpitch, src, spitch, width, height, sid,
                         "cudaMemcpy2DAsync");
  });
}

cudaError_t cudaMemcpyPeer(void *dst, int, const void *src, int, size_t count) {
  return cudaMemcpy(dst, src, count, cudaMemcpyDefault);
}

// One device: a copy between two devices' memory is a copy in its memory.
cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src,
                                int srcDevice, size_t count,
                                cudaStream_t stream) {
  if (dstDevice != 0 || srcDevice != 0)
    return rec(Error::InvalidDevice);
  return cudaMemcpyAsync(dst, src, count, cudaMemcpyDefault, stream);
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
  std::lock_guard lock(g_mutex);
  if (rt().sticky() != Error::Success)
    return sticky();
  // Asynchronous for device memory: queued behind a pending launch.
  return submit(nullptr, [=](StreamId sid) {
    return rt().memset(devPtr, value, count, sid, "cudaMemset");
  });
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count,
                            cudaStream_t stream) {
  std::lock_guard lock(g_mutex);
  return submit(stream, [=](StreamId sid) {
    return rt().memset(devPtr, value, count, sid, "cudaMemsetAsync");
  });
}

cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                         size_t height) {
  std::lock_guard lock(g_mutex);
  return submit(nullptr, [=](StreamId sid) {
    return rt().memset2d(devPtr, pitch, value, width, height, sid,
                         "cudaMemset2D");
  });
}

cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value,
                              size_t width, size_t height,
                              cudaStream_t stream) {
  std::lock_guard lock(g_mutex);
  return submit(stream, [=](StreamId sid) {
    return rt().memset2d(devPtr, pitch, value, width, height, sid,
                         "cudaMemset2DAsync");
  });
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src,
                               size_t count, size_t offset,
                               cudaMemcpyKind kind) {
  std::lock_guard lock(g_mutex);
  if (cudaError_t e = check_kind(kind))
    return e;
  Error e = rt().copy_to_symbol(symbol, src, count, offset, stream_id(nullptr),
                                "cudaMemcpyToSymbol");
  rt().host_sync(stream_id(nullptr));
  return ret(e);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                 size_t offset, cudaMemcpyKind kind) {
  std::lock_guard lock(g_mutex);
  if (cudaError_t e = check_kind(kind))
    return e;
  Error e = rt().copy_from_symbol(dst, symbol, count, offset,
                                  stream_id(nullptr), "cudaMemcpyFromSymbol");
  rt().host_sync(stream_id(nullptr));
  return ret(e);
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src,
                                    size_t count, size_t offset,
                                    cudaMemcpyKind kind, cudaStream_t stream) {
  std::lock_guard lock(g_mutex);
  if (cudaError_t e = check_kind(kind))
    return e;
  return submit(stream, [=](StreamId sid) {
    return rt().copy_to_symbol(symbol, src, count, offset, sid,
                               "cudaMemcpyToSymbolAsync");
  });
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol,
                                      size_t count, size_t offset,
                                      cudaMemcpyKind kind,
                                      cudaStream_t stream) {
  std::lock_guard lock(g_mutex);
  if (cudaError_t e = check_kind(kind))
    return e;
  return submit(stream, [=](StreamId sid) {
    return rt().copy_from_symbol(dst, symbol, count, offset, sid,
                                 "cudaMemcpyFromSymbolAsync");
  });
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol) {
  std::lock_guard lock(g_mutex);
  if (!devPtr)
    return rec(Error::InvalidValue);
  return ret(rt().symbol_address(symbol, devPtr));
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
  std::lock_guard lock(g_mutex);
  if (!size)
    return rec(Error::InvalidValue);
  uint64_t s = 0;
  Error e = rt().symbol_size(symbol, &s);
  *size = s;
  return ret(e);
}

cudaError_t cudaMemGetInfo(size_t *free, size_t *total) {
  std::lock_guard lock(g_mutex);
  // The modelled device's memory; allocations are not subtracted (they
  // live in host memory).
  if (free)
    *free = rt().model().global_mem - (1ull << 30);
  if (total)
    *total = rt().model().global_mem;
  return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attributes,
                                     const void *ptr) {
  std::lock_guard lock(g_mutex);
  if (!attributes)
    return rec(Error::InvalidValue);
  std::memset(attributes, 0, sizeof(*attributes));
  attributes->device = 0;
  if (rt().is_host_mapped(ptr)) {
    attributes->type = cudaMemoryTypeManaged;
    attributes->devicePointer = const_cast<void *>(ptr);
    attributes->hostPointer = const_cast<void *>(ptr);
  } else if (Runtime::is_device_address(ptr) &&
             rt().device().allocation(reinterpret_cast<uint64_t>(ptr))) {
    attributes->type = cudaMemoryTypeDevice;
    attributes->devicePointer = const_cast<void *>(ptr);
  } else {
    attributes->type = cudaMemoryTypeUnregistered;
    attributes->device = -2;
  }
  return cudaSuccess;
}

cudaError_t cudaMemPrefetchAsync(const void *, size_t, cudaMemLocation,
                                 unsigned int, cudaStream_t) {
  return cudaSuccess;
}

cudaError_t cudaMemAdvise(const void *, size_t, cudaMemoryAdvise,
                          cudaMemLocation) {
  return cudaSuccess;
}

// ---- device -------------------------------------------------------------
cudaError_t cudaGetDeviceCount(int *count) {
  if (!count)
    return rec(Error::InvalidValue);
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device) {
  if (!device)
    return rec(Error::InvalidValue);
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : rec(Error::InvalidDevice);
}

cudaError_t cudaInitDevice(int device, unsigned int, unsigned int) {
  return cudaSetDevice(device);
}

cudaError_t cudaSetDeviceFlags(unsigned int) { return cudaSuccess; }

cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
  if (!flags)
    return rec(Error::InvalidValue);
  *flags = cudaDeviceMapHost;
  return cudaSuccess;
}

cudaError_t cudaChooseDevice(int *device, const cudaDeviceProp *) {
  if (!device)
    return rec(Error::InvalidValue);
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device) {
  std::lock_guard lock(g_mutex);
  if (!prop)
    return rec(Error::InvalidValue);
  if (device != 0)
    return rec(Error::InvalidDevice);
  const auto &m = rt().model();
  std::memset(prop, 0, sizeof(*prop));
  std::snprintf(prop->name, sizeof(prop->name), "%s", m.name);
  prop->totalGlobalMem = m.global_mem;
  prop->sharedMemPerBlock = m.shared_per_block;
  prop->regsPerBlock = int(m.regs_per_block);
  prop->warpSize = int(m.warp_size);
  prop->memPitch = 2147483647;
  prop->maxThreadsPerBlock = int(m.max_threads_per_block);
  prop->maxThreadsDim[0] = 1024;
  prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 2147483647;
  prop->maxGridSize[1] = 65535;
  prop->maxGridSize[2] = 65535;
  prop->totalConstMem = m.const_mem;
  prop->major = m.major;
  prop->minor = m.minor;
  prop->textureAlignment = 512;
  prop->texturePitchAlignment = 32;
  prop->multiProcessorCount = m.sm_count;
  prop->integrated = 0;
  prop->canMapHostMemory = 1;
  prop->maxTexture1D = 131072;
  prop->maxTexture2D[0] = 131072;
  prop->maxTexture2D[1] = 65536;
  prop->surfaceAlignment = 512;
  prop->concurrentKernels = 1;
  prop->ECCEnabled = 1;
  prop->pciBusID = 1;
  prop->asyncEngineCount = 2;
  prop->unifiedAddressing = 1;
  prop->memoryBusWidth = m.bus_width;
  prop->l2CacheSize = int(m.l2_bytes);
  prop->persistingL2CacheMaxSize = int(m.l2_bytes / 4 * 3);
  prop->maxThreadsPerMultiProcessor = int(m.max_threads_per_sm);
  prop->streamPrioritiesSupported = 1;
  prop->globalL1CacheSupported = 1;
  prop->localL1CacheSupported = 1;
  prop->sharedMemPerMultiprocessor = m.shared_per_sm;
  prop->regsPerMultiprocessor = int(m.regs_per_sm);
  prop->managedMemory = 1;
  prop->isMultiGpuBoard = 0;
  prop->hostNativeAtomicSupported = 0;
  prop->pageableMemoryAccess = 0;
  prop->concurrentManagedAccess = 1;
  prop->computePreemptionSupported = 1;
  prop->canUseHostPointerForRegisteredMem = 1;
  prop->cooperativeLaunch = 1;
  prop->sharedMemPerBlockOptin = m.shared_per_block_optin;
  prop->maxBlocksPerMultiProcessor = int(m.max_blocks_per_sm);
  prop->reservedSharedMemPerBlock = m.reserved_shared_per_block;
  prop->accessPolicyMaxWindowSize = 134213632;
  prop->hostRegisterSupported = 1;
  prop->hostRegisterReadOnlySupported = 1;
  prop->memoryPoolsSupported = 1;
  prop->clusterLaunch = 1;
  prop->unifiedFunctionPointers = 1;
  prop->deviceNumaId = -1;
  prop->hostNumaId = -1;
  return cudaSuccess;
}

extern "C++" {
namespace {
// An attribute of the modelled device (host and device code ask the same).
int attribute_value(const brt::DeviceModel &m, cudaDeviceAttr attr) {
  int v = 0;
  switch (attr) {
  case cudaDevAttrMaxThreadsPerBlock:
    v = int(m.max_threads_per_block);
    break;
  case cudaDevAttrMaxBlockDimX:
  case cudaDevAttrMaxBlockDimY:
    v = 1024;
    break;
  case cudaDevAttrMaxBlockDimZ:
    v = 64;
    break;
  case cudaDevAttrMaxGridDimX:
    v = 2147483647;
    break;
  case cudaDevAttrMaxGridDimY:
  case cudaDevAttrMaxGridDimZ:
    v = 65535;
    break;
  case cudaDevAttrMaxSharedMemoryPerBlock:
    v = int(m.shared_per_block);
    break;
  case cudaDevAttrTotalConstantMemory:
    v = int(m.const_mem);
    break;
  case cudaDevAttrWarpSize:
    v = int(m.warp_size);
    break;
  case cudaDevAttrMaxPitch:
    v = 2147483647;
    break;
  case cudaDevAttrMaxRegistersPerBlock:
    v = int(m.regs_per_block);
    break;
  case cudaDevAttrClockRate:
    v = m.clock_khz;
    break;
  case cudaDevAttrMemoryClockRate:
    v = m.memory_clock_khz;
    break;
  case cudaDevAttrGlobalMemoryBusWidth:
    v = m.bus_width;
    break;
  case cudaDevAttrMultiProcessorCount:
    v = m.sm_count;
    break;
  case cudaDevAttrComputeCapabilityMajor:
    v = m.major;
    break;
  case cudaDevAttrComputeCapabilityMinor:
    v = m.minor;
    break;
  case cudaDevAttrL2CacheSize:
    v = int(m.l2_bytes);
    break;
  case cudaDevAttrMaxThreadsPerMultiProcessor:
    v = int(m.max_threads_per_sm);
    break;
  case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
    v = int(m.shared_per_sm);
    break;
  case cudaDevAttrMaxRegistersPerMultiprocessor:
    v = int(m.regs_per_sm);
    break;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin:
    v = int(m.shared_per_block_optin);
    break;
  case cudaDevAttrMaxBlocksPerMultiprocessor:
    v = int(m.max_blocks_per_sm);
    break;
  case cudaDevAttrReservedSharedMemoryPerBlock:
    v = int(m.reserved_shared_per_block);
    break;
  case cudaDevAttrAsyncEngineCount:
    v = 2;
    break;
  // What cudaGetDeviceProperties reports too.
  case cudaDevAttrTexturePitchAlignment:
    v = 32;
    break;
  case cudaDevAttrMaxTexture1DWidth:
  case cudaDevAttrMaxTexture2DWidth:
    v = 131072;
    break;
  case cudaDevAttrMaxTexture2DHeight:
    v = 65536;
    break;
  case cudaDevAttrMaxPersistingL2CacheSize:
    v = int(m.l2_bytes / 4 * 3);
    break;
  case cudaDevAttrMaxAccessPolicyWindowSize:
    v = 134213632;
    break;
  case cudaDevAttrNumaId:
  case cudaDevAttrHostNumaId:
    v = -1;
    break;
  case cudaDevAttrSingleToDoublePrecisionPerfRatio:
    v = 2;
    break;
  case cudaDevAttrPciBusId:
    v = 1;
    break;
  case cudaDevAttrTextureAlignment:
  case cudaDevAttrSurfaceAlignment:
    v = 512;
    break;
  case cudaDevAttrComputeMode:
    v = cudaComputeModeDefault;
    break;
  case cudaDevAttrIntegrated:
  case cudaDevAttrKernelExecTimeout:
  case cudaDevAttrTccDriver:
  case cudaDevAttrIsMultiGpuBoard:
  case cudaDevAttrPageableMemoryAccess:
  case cudaDevAttrHostNativeAtomicSupported:
  case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
  case cudaDevAttrDirectManagedMemAccessFromHost:
    v = 0;
    break;
  case cudaDevAttrGpuOverlap: // copies run beside kernels (2 copy engines)
  case cudaDevAttrHostRegisterReadOnlySupported:
  case cudaDevAttrCanMapHostMemory:
  case cudaDevAttrConcurrentKernels:
  case cudaDevAttrEccEnabled:
  case cudaDevAttrUnifiedAddressing:
  case cudaDevAttrManagedMemory:
  case cudaDevAttrConcurrentManagedAccess:
  case cudaDevAttrCooperativeLaunch:
  case cudaDevAttrComputePreemptionSupported:
  case cudaDevAttrCanUseHostPointerForRegisteredMem:
  case cudaDevAttrGlobalL1CacheSupported:
  case cudaDevAttrLocalL1CacheSupported:
  case cudaDevAttrStreamPrioritiesSupported:
  case cudaDevAttrHostRegisterSupported:
  case cudaDevAttrMemoryPoolsSupported:
  case cudaDevAttrClusterLaunch:
    v = 1;
    break;
  default:
    v = 0;
    break;
  }
  return v;
}
} // namespace
}

cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr,
                                   int device) {
  std::lock_guard lock(g_mutex);
  if (!value)
    return rec(Error::InvalidValue);
  if (device != 0)
    return rec(Error::InvalidDevice);
  *value = attribute_value(rt().model(), attr);
  return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *pValue, cudaLimit limit) {
  if (!pValue)
    return rec(Error::InvalidValue);
  switch (limit) {
  case cudaLimitStackSize: {
    std::lock_guard lock(g_mutex);
    *pValue = rt().stack_limit;
    break;
  }
  case cudaLimitPrintfFifoSize:
    *pValue = 8 << 20;
    break;
  case cudaLimitMallocHeapSize: {
    std::lock_guard lock(g_mutex);
    *pValue = rt().device().heap_size();
    break;
  }
  case cudaLimitDevRuntimePendingLaunchCount: {
    std::lock_guard lock(g_mutex);
    *pValue = rt().pending_launch_limit;
    break;
  }
  case cudaLimitDevRuntimeSyncDepth:
    *pValue = 2; // CUDA's default; CDP2 grids do not synchronize
    break;
  default:
    *pValue = 0;
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  // As measured on H100, driver 580.159.04 (docs/exec.md "Device heap",
  // "Device-side launches"): the device heap is at least 4 MiB and its size
  // is fixed once a kernel has called malloc or free (until
  // cudaDeviceReset); the pending-launch limit is at least 32. The stack
  // size bounds recursion. The other limits are accepted and change
  // nothing.
  if (limit == cudaLimitMallocHeapSize) {
    std::lock_guard lock(g_mutex);
    if (rt().device().heap_used() ||
        !rt().device().set_heap_size(std::max<size_t>(value, 4u << 20)))
      return rec(Error::InvalidValue);
  } else if (limit == cudaLimitStackSize) {
    // The stack of recursive device functions (docs/exec.md "Stack
    // size"): kept as set, rounded up to 16 bytes; beyond bcusim's largest
    // stack, cudaErrorInvalidValue.
    std::lock_guard lock(g_mutex);
    if (value > bcusim::engine::kMaxStackSize)
      return rec(Error::InvalidValue);
    rt().stack_limit = uint32_t((value + 15) / 16 * 16);
  } else if (limit == cudaLimitDevRuntimePendingLaunchCount) {
    std::lock_guard lock(g_mutex);
    if (value > (1u << 20))
      return rec(Error::InvalidValue);
    rt().pending_launch_limit = uint32_t(std::max<size_t>(value, 32));
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }

cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache *c) {
  if (c)
    *c = cudaFuncCachePreferNone;
  return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int, int) {
  if (canAccessPeer)
    *canAccessPeer = 0;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority,
                                             int *greatestPriority) {
  if (leastPriority)
    *leastPriority = 0;
  if (greatestPriority)
    *greatestPriority = -5;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *driverVersion) {
  if (!driverVersion)
    return rec(Error::InvalidValue);
  *driverVersion = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion) {
  if (!runtimeVersion)
    return rec(Error::InvalidValue);
  *runtimeVersion = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
  std::lock_guard lock(g_mutex);
  rt().host_sync_all();
  return sticky();
}

cudaError_t cudaDeviceReset(void) {
  std::lock_guard lock(g_mutex);
  // After a kernel fault the process cannot use the device again (measured
  // on H100, driver 580.159.04, as CUDA documents for its sticky errors).
  const bool broken = rt().sticky() != Error::Success;
  rt().reset();
  if (broken)
    rt().make_unavailable();
  g_registered.clear();     // a reset ends every registration
  for (auto &p : pools()) { // and frees every pool's memory
    p->live.clear();
    p->freed.clear();
    p->live_bytes = p->kept_bytes = 0;
  }
  current_pool() = default_pool();
  stream_attrs().clear(); // and every stream's attributes
  return cudaSuccess;
}

cudaError_t cudaThreadSynchronize(void) { return cudaDeviceSynchronize(); }

// ---- errors -------------------------------------------------------------
cudaError_t cudaGetLastError(void) {
  std::lock_guard lock(g_mutex);
  return ret(rt().last_error(true));
}

cudaError_t cudaPeekAtLastError(void) {
  std::lock_guard lock(g_mutex);
  return ret(rt().last_error(false));
}

const char *cudaGetErrorString(cudaError_t error) {
  return brt::error_string(Error(int(error)));
}

const char *cudaGetErrorName(cudaError_t error) {
  return brt::error_name(Error(int(error)));
}

// ---- streams and events -------------------------------------------------
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream,
                                      unsigned int flags) {
  if (!pStream)
    return rec(Error::InvalidValue);
  std::lock_guard lock(g_mutex);
  *pStream = reinterpret_cast<cudaStream_t>(
      rt().create_stream(flags, (flags & cudaStreamNonBlocking) == 0));
  return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream) {
  return cudaStreamCreateWithFlags(pStream, cudaStreamDefault);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream,
                                         unsigned int flags, int) {
  return cudaStreamCreateWithFlags(pStream, flags);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  std::lock_guard lock(g_mutex);
  stream_attrs().erase(stream);
  if (Stream *st = stream_of(stream))
    return ret(rt().destroy_stream(st));
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  std::lock_guard lock(g_mutex);
  rt().host_sync(stream_id(stream));
  return sticky();
}

// Work is complete unless a launch of it yielded and is still pending
// (docs/exec.md "Concurrent streams"); a query that says it is complete
// orders it before what the host does next, as a synchronization does.
cudaError_t cudaStreamQuery(cudaStream_t stream) {
  std::lock_guard lock(g_mutex);
  const StreamId id = stream_id(stream);
  if (!rt().query(rt().streams().record(id)))
    return cudaErrorNotReady;
  rt().host_sync(id);
  return sticky();
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                unsigned int) {
  if (!event)
    return rec(Error::InvalidResourceHandle);
  std::lock_guard lock(g_mutex);
  return ret(rt().wait_event(stream_of(stream), stream_id(stream),
                             *reinterpret_cast<Event *>(event)));
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream,
                                  cudaStreamCallback_t callback, void *userData,
                                  unsigned int) {
  if (!callback)
    return rec(Error::InvalidValue);
  return submit(stream, [stream, callback, userData](StreamId sid) {
    rt().wait_stream(sid); // after the stream's pending launches
    callback(stream, sticky(), userData);
    return Error::Success;
  });
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t, void *, size_t,
                                     unsigned int) {
  return cudaSuccess; // managed memory is always reachable from both sides
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags) {
  if (!flags)
    return rec(Error::InvalidValue);
  Stream *st = stream_of(stream);
  *flags = st ? st->flags : cudaStreamDefault;
  return cudaSuccess;
}

cudaError_t cudaStreamGetPriority(cudaStream_t, int *priority) {
  if (!priority)
    return rec(Error::InvalidValue);
  *priority = 0;
  return cudaSuccess;
}

// The runtime's stream number: unique in the process (the legacy default
// stream is 0, a per-thread default stream has its own).
cudaError_t cudaStreamGetId(cudaStream_t hStream,
                            unsigned long long *streamId) {
  std::lock_guard lock(g_mutex);
  if (!streamId)
    return rec(Error::InvalidValue);
  *streamId = stream_id(hStream);
  return cudaSuccess;
}

cudaError_t cudaStreamGetDevice(cudaStream_t, int *device) {
  if (!device)
    return rec(Error::InvalidValue);
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaStreamAttrID attr,
                                   cudaStreamAttrValue *value_out) {
  std::lock_guard lock(g_mutex);
  if (!value_out)
    return rec(Error::InvalidValue);
  StreamAttrs a;
  if (auto it = stream_attrs().find(hStream); it != stream_attrs().end())
    a = it->second;
  switch (attr) {
  case cudaLaunchAttributeAccessPolicyWindow:
    value_out->accessPolicyWindow = a.window;
    return cudaSuccess;
  case cudaLaunchAttributeSynchronizationPolicy:
    if (a.sync)
      value_out->syncPolicy = *a.sync;
    return cudaSuccess;
  case cudaLaunchAttributePriority: // never set (cudaStreamGetPriority has it)
    return cudaSuccess;
  case cudaLaunchAttributeMemSyncDomainMap:
    value_out->memSyncDomainMap = a.domain_map;
    return cudaSuccess;
  case cudaLaunchAttributeMemSyncDomain:
    value_out->memSyncDomain = a.domain;
    return cudaSuccess;
  default:
    return rec(Error::InvalidValue);
  }
}

cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, cudaStreamAttrID attr,
                                   const cudaStreamAttrValue *value) {
  std::lock_guard lock(g_mutex);
  if (!value)
    return rec(Error::InvalidValue);
  StreamAttrs &a = stream_attrs()[hStream];
  switch (attr) {
  case cudaLaunchAttributeAccessPolicyWindow: {
    const cudaAccessPolicyWindow &w = value->accessPolicyWindow;
    if (w.hitRatio < 0.0f || w.hitRatio > 1.0f)
      return rec(Error::InvalidValue);
    a.window = w;
    return cudaSuccess;
  }
  case cudaLaunchAttributeSynchronizationPolicy:
    if (value->syncPolicy < cudaSyncPolicyAuto ||
        value->syncPolicy > cudaSyncPolicyBlockingSync)
      return rec(Error::InvalidValue);
    a.sync = value->syncPolicy;
    return cudaSuccess;
  case cudaLaunchAttributeMemSyncDomainMap:
    a.domain_map = value->memSyncDomainMap;
    return cudaSuccess;
  case cudaLaunchAttributeMemSyncDomain:
    a.domain = value->memSyncDomain;
    return cudaSuccess;
  case cudaLaunchAttributePriority: // streams have one priority
    return rec(Error::NotSupported);
  default:
    return rec(Error::InvalidValue);
  }
}

cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) {
  std::lock_guard lock(g_mutex);
  StreamAttrs a;
  if (auto it = stream_attrs().find(src); it != stream_attrs().end())
    a = it->second;
  stream_attrs()[dst] = a;
  return cudaSuccess;
}

// A function handle (cudaFunction_t, the driver's CUfunction) is an
// object of its own, one per kernel, not the kernel's host function: the
// runtime's calls that take a kernel refuse it with
// cudaErrorInvalidResourceHandle, as a GPU's runtime does; the driver
// API's calls take it (docs/exec.md "Measured on H200").
namespace {
struct FunctionHandle {
  const void *kernel;
};
std::map<const void *, std::unique_ptr<FunctionHandle>> &function_handles() {
  static auto *m = new std::map<const void *, std::unique_ptr<FunctionHandle>>;
  return *m;
}
} // namespace

// The kernel a handle of cudaGetFuncBySymbol names; anything else as it is.
extern "C" __attribute__((visibility("default"))) const void *
bcusim_cudart_kernel_of(const void *f) {
  std::lock_guard lock(g_mutex);
  for (const auto &[kernel, h] : function_handles())
    if (h.get() == f)
      return kernel;
  return f;
}

cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr,
                                const void *symbolPtr) {
  std::lock_guard lock(g_mutex);
  if (!functionPtr)
    return rec(Error::InvalidValue);
  if (!rt().use_kernel(symbolPtr)) // a use: lazy loading loads it
    return rec(Error::InvalidDeviceFunction); // measured on H200
  auto &h = function_handles()[symbolPtr];
  if (!h)
    h = std::make_unique<FunctionHandle>(FunctionHandle{symbolPtr});
  *functionPtr = reinterpret_cast<cudaFunction_t>(h.get());
  return cudaSuccess;
}

cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *) {
  return cudaSuccess;
}

cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

cudaError_t cudaFuncGetName(const char **name, const void *func) {
  std::lock_guard lock(g_mutex);
  if (!name)
    return rec(Error::InvalidValue);
  const std::string *n = rt().kernel_name(func);
  if (!n)
    return rec(Error::InvalidResourceHandle);
  rt().use_kernel(func); // a use: lazy loading loads it
  *name = n->c_str();
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event) {
  if (!event)
    return rec(Error::InvalidValue);
  std::lock_guard lock(g_mutex);
  *event = reinterpret_cast<cudaEvent_t>(rt().create_event());
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int) {
  return cudaEventCreate(event);
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  std::lock_guard lock(g_mutex);
  return ret(rt().destroy_event(reinterpret_cast<Event *>(event)));
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                     unsigned int flags) {
  if (!event)
    return rec(Error::InvalidResourceHandle);
  std::lock_guard lock(g_mutex);
  return ret(rt().record_event(reinterpret_cast<Event *>(event),
                               stream_of(stream), stream_id(stream),
                               (flags & cudaEventRecordExternal) != 0));
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return cudaEventRecordWithFlags(event, stream, 0);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  std::lock_guard lock(g_mutex);
  if (event)
    rt().sync_event(*reinterpret_cast<Event *>(event));
  return sticky();
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (!event)
    return rec(Error::InvalidResourceHandle);
  std::lock_guard lock(g_mutex);
  const Event &e = *reinterpret_cast<Event *>(event);
  if (!rt().query(e.clock))
    return cudaErrorNotReady;
  rt().sync_event(e);
  return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start,
                                 cudaEvent_t end) {
  if (!ms || !start || !end)
    return rec(Error::InvalidValue);
  std::lock_guard lock(g_mutex);
  return rec(rt().elapsed_ms(*reinterpret_cast<Event *>(start),
                             *reinterpret_cast<Event *>(end), ms));
}

// ---- graphs (stream capture and replay) ---------------------------------
namespace {
// Starts capturing `stream` (g_mutex held): its fresh capture state, or
// nullptr with the error in `err`.
CaptureState *start_capture(cudaStream_t stream, cudaError_t &err) {
  Stream *st = stream_of(stream);
  if ((err = ret(rt().begin_capture(st))) != cudaSuccess)
    return nullptr;
  CaptureState &cs = capture_states()[Runtime::capturing(st)];
  cs = CaptureState{};
  cs.id = next_capture_id();
  return &cs;
}
} // namespace

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode) {
  std::lock_guard lock(g_mutex);
  cudaError_t e = cudaSuccess;
  start_capture(stream, e);
  return e;
}

cudaError_t cudaStreamBeginCaptureToGraph(
    cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
    const cudaGraphEdgeData *, size_t numDependencies, cudaStreamCaptureMode) {
  if (!graph || (numDependencies && !dependencies))
    return rec(Error::InvalidValue);
  std::lock_guard lock(g_mutex);
  cudaError_t e = cudaSuccess;
  CaptureState *cs = start_capture(stream, e);
  if (!cs)
    return e;
  cs->graph = graph;
  cs->to_graph = true;
  cs->roots.assign(dependencies, dependencies + numDependencies);
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph) {
  std::lock_guard lock(g_mutex);
  Stream *st = stream_of(stream);
  Graph *cap = st ? st->capture.get() : nullptr;
  if (!cap || (!pGraph && !capture_states()[cap].to_graph)) {
    if (cap && !capture_states()[cap].graph)
      capture_states().erase(cap);
    return rec(Error::InvalidValue);
  }
  cudaError_t e = sync_capture(cap);
  Graph *g = rt().end_capture(st);
  CaptureState cs = std::move(capture_states()[g]);
  capture_states().erase(g);
  captured_kernels().erase(g);
  captured_memory().erase(g);
  rt().destroy_graph(g);
  if (e != cudaSuccess)
    return e;
  if (pGraph)
    *pGraph = cs.graph;
  return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                  cudaStreamCaptureStatus *status) {
  if (!status)
    return rec(Error::InvalidValue);
  Stream *st = stream_of(stream);
  *status = Runtime::capturing(st) ? cudaStreamCaptureStatusActive
                                   : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

// The capture's graph so far, with the nodes the stream's next item will
// depend on; nodes the program adds to that graph join the capture
// through cudaStreamUpdateCaptureDependencies.
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                     cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out,
                                     cudaGraph_t *graph_out,
                                     const cudaGraphNode_t **dependencies_out,
                                     const cudaGraphEdgeData **edgeData_out,
                                     size_t *numDependencies_out) {
  if (!captureStatus_out)
    return rec(Error::InvalidValue);
  std::lock_guard lock(g_mutex);
  Stream *st = stream_of(stream);
  Graph *g = Runtime::capturing(st);
  if (!g) {
    *captureStatus_out = cudaStreamCaptureStatusNone;
    return cudaSuccess;
  }
  *captureStatus_out = cudaStreamCaptureStatusActive;
  if (cudaError_t e = sync_capture(g))
    return e;
  CaptureState &cs = capture_states()[g];
  cs.deps_out = capture_tail(*st, g);
  cs.edges_out.assign(cs.deps_out.size(), cudaGraphEdgeData{});
  if (id_out)
    *id_out = cs.id;
  if (graph_out)
    *graph_out = cs.graph;
  if (dependencies_out)
    *dependencies_out = cs.deps_out.data();
  if (edgeData_out)
    *edgeData_out = cs.edges_out.data();
  if (numDependencies_out)
    *numDependencies_out = cs.deps_out.size();
  return cudaSuccess;
}

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream,
                                                cudaGraphNode_t *dependencies,
                                                const cudaGraphEdgeData *,
                                                size_t numDependencies,
                                                unsigned int flags) {
  if ((numDependencies && !dependencies) ||
      (flags != cudaStreamAddCaptureDependencies &&
       flags != cudaStreamSetCaptureDependencies))
    return rec(Error::InvalidValue);
  std::lock_guard lock(g_mutex);
  Stream *st = stream_of(stream);
  Graph *g = Runtime::capturing(st);
  if (!g)
    return rec(Error(int(cudaErrorIllegalState)));
  if (cudaError_t e = sync_capture(g))
    return e;
  CaptureState &cs = capture_states()[g];
  std::vector<size_t> tail;
  if (flags == cudaStreamAddCaptureDependencies) {
    // The stream's current dependencies stay, as items (the roots of a
    // capture into a graph become placeholders too).
    for (cudaGraphNode_t n : capture_tail(*st, g)) {
      g->work.push_back([](StreamId) { return Error::Success; });
      g->deps.push_back({});
      cs.placeholders[g->work.size() - 1] = n;
      tail.push_back(g->work.size() - 1);
    }
  }
  for (size_t i = 0; i < numDependencies; ++i) {
    g->work.push_back([](StreamId) { return Error::Success; });
    g->deps.push_back({});
    cs.placeholders[g->work.size() - 1] = dependencies[i];
    tail.push_back(g->work.size() - 1);
  }
  st->tail = std::move(tail);
  return sync_capture(g);
}

// The graph objects and every cudaGraph* function are in graph.cpp.

// ---- CUDA arrays and texture objects ------------------------------------
// A CUDA array is row-major device memory (pitch = width x element size);
// texture objects become engine textures (docs/exec.md "Textures").
}

namespace {
struct Array {
  void *base = nullptr;
  cudaChannelFormatDesc desc{};
  size_t width = 0, height = 0, elem = 0;
  size_t pitch() const { return width * elem; }
};

size_t elem_bytes(const cudaChannelFormatDesc &d) {
  return size_t(d.x + d.y + d.z + d.w) / 8;
}

// The engine format of a channel description; false when it has none.
bool format_of(const cudaChannelFormatDesc &d, eng::Texture &t) {
  const int bits = d.x;
  t.channels = uint32_t((d.x > 0) + (d.y > 0) + (d.z > 0) + (d.w > 0));
  if (t.channels == 0 || (d.y && d.y != bits) || (d.z && d.z != bits) ||
      (d.w && d.w != bits))
    return false;
  using F = eng::Texture::Format;
  switch (d.f) {
  case cudaChannelFormatKindFloat:
    t.format = F::F32;
    return bits == 32;
  case cudaChannelFormatKindSigned:
    t.format = bits == 8 ? F::S8 : bits == 16 ? F::S16 : F::S32;
    return bits == 8 || bits == 16 || bits == 32;
  case cudaChannelFormatKindUnsigned:
    t.format = bits == 8 ? F::U8 : bits == 16 ? F::U16 : F::U32;
    return bits == 8 || bits == 16 || bits == 32;
  default:
    return false;
  }
}
} // namespace

extern "C" {

cudaError_t cudaMallocArray(cudaArray_t *array,
                            const cudaChannelFormatDesc *desc, size_t width,
                            size_t height, unsigned int) {
  std::lock_guard lock(g_mutex);
  if (!array || !desc || width == 0 || elem_bytes(*desc) == 0)
    return rec(Error::InvalidValue);
  auto *a = new Array;
  a->desc = *desc;
  a->width = width;
  a->height = height ? height : 1;
  a->elem = elem_bytes(*desc);
  Error e = rt().malloc(&a->base, a->pitch() * a->height);
  if (e != Error::Success) {
    delete a;
    return ret(e);
  }
  *array = reinterpret_cast<cudaArray_t>(a);
  return cudaSuccess;
}

} // extern "C"

// ---- 3-D copies and memsets ---------------------------------------------
namespace {
// A cudaMemcpy3D as slices of rows in byte terms: linear memory is its
// pitched pointer (a slice is pitch * ysize bytes), a CUDA array (2-D: one
// slice) its rows, positions and widths in elements.
struct Copy3D {
  void *dst = nullptr;
  const void *src = nullptr;
  uint64_t dpitch = 0, dslice = 0, spitch = 0, sslice = 0;
  uint64_t width = 0, height = 0, depth = 0;
};

cudaError_t side_3d(cudaArray_t array, const cudaPitchedPtr &ptr,
                    const cudaPos &pos, const cudaExtent &e, uint64_t &width,
                    char *&base, uint64_t &pitch, uint64_t &slice) {
  if (array) {
    const auto *a = reinterpret_cast<const Array *>(array);
    const uint64_t wbytes = e.width * a->elem;
    if (width != 0 && width != wbytes)
      return cudaErrorInvalidValue; // two arrays of different elements
    width = wbytes;
    if (pos.z != 0 || e.depth > 1 || (pos.x + e.width) * a->elem > a->pitch() ||
        pos.y + e.height > a->height)
      return cudaErrorInvalidValue;
    pitch = a->pitch();
    slice = pitch * a->height;
    base = static_cast<char *>(a->base) + pos.y * pitch + pos.x * a->elem;
    return cudaSuccess;
  }
  pitch = ptr.pitch;
  slice = ptr.pitch * ptr.ysize;
  if (e.depth > 1 && e.height > ptr.ysize)
    return cudaErrorInvalidValue; // slices would overlap
  base = static_cast<char *>(ptr.ptr) + pos.z * slice + pos.y * pitch + pos.x;
  return cudaSuccess;
}

cudaError_t plan_3d(const cudaMemcpy3DParms *p, Copy3D &c) {
  if (!p)
    return cudaErrorInvalidValue;
  if (cudaError_t e = check_kind(p->kind))
    return e;
  if (p->srcArray && p->dstArray)
    return cudaErrorNotSupported; // array to array
  const cudaExtent &e = p->extent;
  uint64_t width = 0;
  if (p->srcArray || p->dstArray) {
    // Widths are in elements on an array's side, bytes on the other.
    const auto *a = reinterpret_cast<const Array *>(p->srcArray ? p->srcArray
                                                                : p->dstArray);
    width = e.width * a->elem;
  } else {
    width = e.width;
  }
  char *d = nullptr, *s = nullptr;
  if (cudaError_t r = side_3d(p->dstArray, p->dstPtr, p->dstPos, e, width, d,
                              c.dpitch, c.dslice))
    return r;
  if (cudaError_t r = side_3d(p->srcArray, p->srcPtr, p->srcPos, e, width, s,
                              c.spitch, c.sslice))
    return r;
  c.dst = d;
  c.src = s;
  c.width = width;
  c.height = e.height;
  c.depth = e.depth;
  return cudaSuccess;
}
} // namespace

extern "C" {

cudaError_t cudaMalloc3D(cudaPitchedPtr *pitchedDevPtr, cudaExtent extent) {
  if (!pitchedDevPtr)
    return rec(Error::InvalidValue);
  size_t pitch = 0;
  void *p = nullptr;
  if (cudaError_t e = cudaMallocPitch(&p, &pitch, extent.width,
                                      extent.height * extent.depth))
    return e;
  pitchedDevPtr->ptr = p;
  pitchedDevPtr->pitch = pitch;
  pitchedDevPtr->xsize = extent.width;
  pitchedDevPtr->ysize = extent.height;
  return cudaSuccess;
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p) {
  std::lock_guard lock(g_mutex);
  if (rt().sticky() != Error::Success)
    return sticky();
  Copy3D c;
  if (cudaError_t e = plan_3d(p, c))
    return rec(Error(int(e)));
  Error e = rt().memcpy3d(c.dst, c.dpitch, c.dslice, c.src, c.spitch, c.sslice,
                          c.width, c.height, c.depth, stream_id(nullptr),
                          "cudaMemcpy3D");
  rt().host_sync(stream_id(nullptr)); // returns when done
  return ret(e);
}

cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *p, cudaStream_t stream) {
  std::lock_guard lock(g_mutex);
  Copy3D c;
  if (cudaError_t e = plan_3d(p, c))
    return rec(Error(int(e)));
  return submit(stream, [c](StreamId sid) {
    return rt().memcpy3d(c.dst, c.dpitch, c.dslice, c.src, c.spitch, c.sslice,
                         c.width, c.height, c.depth, sid, "cudaMemcpy3DAsync");
  });
}

// One device: a 3-D copy between device 0 and itself (kind: by address),
// of device memory or arrays.
static cudaError_t peer_3d(const cudaMemcpy3DPeerParms *p,
                           cudaMemcpy3DParms &q) {
  if (!p)
    return rec(Error::InvalidValue);
  if (p->srcDevice != 0 || p->dstDevice != 0)
    return rec(Error::InvalidDevice);
  // Each side is a device's memory: an array or device memory, not host
  // memory (measured on H200: a host box is cudaErrorInvalidValue).
  if ((!p->srcArray && !Runtime::is_device_address(p->srcPtr.ptr)) ||
      (!p->dstArray && !Runtime::is_device_address(p->dstPtr.ptr)))
    return rec(Error::InvalidValue);
  std::memset(&q, 0, sizeof(q));
  q.srcArray = p->srcArray;
  q.srcPos = p->srcPos;
  q.srcPtr = p->srcPtr;
  q.dstArray = p->dstArray;
  q.dstPos = p->dstPos;
  q.dstPtr = p->dstPtr;
  q.extent = p->extent;
  q.kind = cudaMemcpyDefault;
  return cudaSuccess;
}

cudaError_t cudaMemcpy3DPeer(const cudaMemcpy3DPeerParms *p) {
  cudaMemcpy3DParms q;
  if (cudaError_t e = peer_3d(p, q))
    return e;
  return cudaMemcpy3D(&q);
}

cudaError_t cudaMemcpy3DPeerAsync(const cudaMemcpy3DPeerParms *p,
                                  cudaStream_t stream) {
  cudaMemcpy3DParms q;
  if (cudaError_t e = peer_3d(p, q))
    return e;
  return cudaMemcpy3DAsync(&q, stream);
}

cudaError_t cudaMemset3D(cudaPitchedPtr p, int value, cudaExtent extent) {
  std::lock_guard lock(g_mutex);
  // Asynchronous for device memory, as cudaMemset.
  return submit(nullptr, [=](StreamId sid) {
    return rt().memset3d(p.ptr, p.pitch, p.pitch * p.ysize, value, extent.width,
                         extent.height, extent.depth, sid, "cudaMemset3D");
  });
}

cudaError_t cudaMemset3DAsync(cudaPitchedPtr p, int value, cudaExtent extent,
                              cudaStream_t stream) {
  std::lock_guard lock(g_mutex);
  return submit(stream, [=](StreamId sid) {
    return rt().memset3d(p.ptr, p.pitch, p.pitch * p.ysize, value, extent.width,
                         extent.height, extent.depth, sid, "cudaMemset3DAsync");
  });
}

cudaError_t cudaFreeArray(cudaArray_t array) {
  std::lock_guard lock(g_mutex);
  if (!array)
    return cudaSuccess;
  auto *a = reinterpret_cast<Array *>(array);
  Error e = rt().free(a->base);
  delete a;
  return ret(e);
}

cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc *desc,
                               cudaArray_const_t array) {
  if (!desc || !array)
    return rec(Error::InvalidValue);
  *desc = reinterpret_cast<const Array *>(array)->desc;
  return cudaSuccess;
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                const void *src, size_t spitch, size_t width,
                                size_t height, cudaMemcpyKind kind) {
  std::lock_guard lock(g_mutex);
  if (cudaError_t e = check_kind(kind))
    return e;
  auto *a = reinterpret_cast<Array *>(dst);
  if (!a || wOffset + width > a->pitch() || hOffset + height > a->height)
    return rec(Error::InvalidValue);
  return ret(rt().memcpy2d(static_cast<uint8_t *>(a->base) +
                               hOffset * a->pitch() + wOffset,
                           a->pitch(), src, spitch, width, height));
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset,
                                     size_t hOffset, const void *src,
                                     size_t spitch, size_t width, size_t height,
                                     cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height,
                             kind);
}

cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch,
                                  cudaArray_const_t src, size_t wOffset,
                                  size_t hOffset, size_t width, size_t height,
                                  cudaMemcpyKind kind) {
  std::lock_guard lock(g_mutex);
  if (cudaError_t e = check_kind(kind))
    return e;
  auto *a = reinterpret_cast<const Array *>(src);
  if (!a || wOffset + width > a->pitch() || hOffset + height > a->height)
    return rec(Error::InvalidValue);
  return ret(rt().memcpy2d(dst, dpitch,
                           static_cast<const uint8_t *>(a->base) +
                               hOffset * a->pitch() + wOffset,
                           a->pitch(), width, height));
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                              const void *src, size_t count,
                              cudaMemcpyKind kind) {
  std::lock_guard lock(g_mutex);
  if (cudaError_t e = check_kind(kind))
    return e;
  auto *a = reinterpret_cast<Array *>(dst);
  const size_t start = a ? hOffset * a->pitch() + wOffset : 0;
  if (!a || start + count > a->pitch() * a->height)
    return rec(Error::InvalidValue);
  return ret(rt().memcpy(static_cast<uint8_t *>(a->base) + start, src, count));
}

cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src,
                                size_t wOffset, size_t hOffset, size_t count,
                                cudaMemcpyKind kind) {
  std::lock_guard lock(g_mutex);
  if (cudaError_t e = check_kind(kind))
    return e;
  auto *a = reinterpret_cast<const Array *>(src);
  const size_t start = a ? hOffset * a->pitch() + wOffset : 0;
  if (!a || start + count > a->pitch() * a->height)
    return rec(Error::InvalidValue);
  return ret(
      rt().memcpy(dst, static_cast<const uint8_t *>(a->base) + start, count));
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                    const cudaResourceDesc *pResDesc,
                                    const cudaTextureDesc *pTexDesc,
                                    const cudaResourceViewDesc *) {
  std::lock_guard lock(g_mutex);
  if (!pTexObject || !pResDesc || !pTexDesc)
    return rec(Error::InvalidValue);
  eng::Texture t;
  cudaChannelFormatDesc desc{};
  switch (pResDesc->resType) {
  case cudaResourceTypeArray: {
    auto *a = reinterpret_cast<const Array *>(pResDesc->res.array.array);
    if (!a)
      return rec(Error::InvalidValue);
    desc = a->desc;
    t.base = reinterpret_cast<uint64_t>(a->base);
    t.width = uint32_t(a->width);
    t.height = uint32_t(a->height);
    t.pitch = a->pitch();
    break;
  }
  case cudaResourceTypeLinear:
    desc = pResDesc->res.linear.desc;
    t.base = reinterpret_cast<uint64_t>(pResDesc->res.linear.devPtr);
    if (elem_bytes(desc) == 0)
      return rec(Error::InvalidValue);
    t.width = uint32_t(pResDesc->res.linear.sizeInBytes / elem_bytes(desc));
    t.pitch = pResDesc->res.linear.sizeInBytes;
    break;
  case cudaResourceTypePitch2D:
    desc = pResDesc->res.pitch2D.desc;
    t.base = reinterpret_cast<uint64_t>(pResDesc->res.pitch2D.devPtr);
    t.width = uint32_t(pResDesc->res.pitch2D.width);
    t.height = uint32_t(pResDesc->res.pitch2D.height);
    t.pitch = pResDesc->res.pitch2D.pitchInBytes;
    break;
  default:
    return rec(Error::NotSupported); // mipmapped arrays
  }
  if (t.width == 0 || t.height == 0 || !format_of(desc, t))
    return rec(Error::InvalidValue);
  const cudaTextureDesc &d = *pTexDesc;
  t.linear = d.filterMode == cudaFilterModeLinear;
  t.normalized_coords = d.normalizedCoords != 0;
  using F = eng::Texture::Format;
  t.normalized_float = d.readMode == cudaReadModeNormalizedFloat &&
                       t.format != F::F32 && t.format != F::U32 &&
                       t.format != F::S32;
  for (int k = 0; k < 2; ++k) {
    switch (d.addressMode[k]) {
    case cudaAddressModeWrap:
      t.address[k] = eng::Texture::Address::Wrap;
      break;
    case cudaAddressModeMirror:
      t.address[k] = eng::Texture::Address::Mirror;
      break;
    case cudaAddressModeBorder:
      t.address[k] = eng::Texture::Address::Border;
      break;
    default:
      t.address[k] = eng::Texture::Address::Clamp;
    }
  }
  for (int k = 0; k < 4; ++k)
    t.border[k] = d.borderColor[k];
  if (pResDesc->resType == cudaResourceTypeLinear) {
    // tex1Dfetch outside linear memory reads 0 whatever the address mode
    // (measured on H100: indices -4..-1 and 16.. of a 16-element texture).
    t.address[0] = t.address[1] = eng::Texture::Address::Border;
    for (float &b : t.border)
      b = 0;
  }
  *pTexObject = rt().device().create_texture(t);
  return cudaSuccess;
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
  std::lock_guard lock(g_mutex);
  if (texObject && !rt().device().destroy_texture(texObject))
    return rec(Error::InvalidValue);
  return cudaSuccess;
}

// ---- channel descriptors (value helpers) --------------------------------
cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                            cudaChannelFormatKind f) {
  cudaChannelFormatDesc d;
  d.x = x;
  d.y = y;
  d.z = z;
  d.w = w;
  d.f = f;
  return d;
}

} // extern "C"

// ---- the per-thread default stream's entry points ------------------------
// (nvcc --default-stream per-thread): as above, with stream 0 the calling
// thread's per-thread default stream.
extern "C" {

cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count,
                            cudaMemcpyKind kind) {
  PerThreadDefault ptd;
  return cudaMemcpy(dst, src, count, kind);
}

cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
                                 cudaMemcpyKind kind, cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaMemcpyAsync(dst, src, count, kind, stream);
}

cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src,
                              size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind) {
  PerThreadDefault ptd;
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src,
                                   size_t spitch, size_t width, size_t height,
                                   cudaMemcpyKind kind, cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind,
                           stream);
}

cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count) {
  PerThreadDefault ptd;
  return cudaMemset(devPtr, value, count);
}

cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count,
                                 cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaMemsetAsync(devPtr, value, count, stream);
}

cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value,
                              size_t width, size_t height) {
  PerThreadDefault ptd;
  return cudaMemset2D(devPtr, pitch, value, width, height);
}

cudaError_t cudaMemcpy3D_ptds(const cudaMemcpy3DParms *p) {
  PerThreadDefault ptd;
  return cudaMemcpy3D(p);
}

cudaError_t cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms *p,
                                   cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaMemcpy3DAsync(p, stream);
}

cudaError_t cudaMemcpy3DPeer_ptds(const cudaMemcpy3DPeerParms *p) {
  PerThreadDefault ptd;
  return cudaMemcpy3DPeer(p);
}

cudaError_t cudaMemcpy3DPeerAsync_ptsz(const cudaMemcpy3DPeerParms *p,
                                       cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaMemcpy3DPeerAsync(p, stream);
}

cudaError_t cudaMemset3D_ptds(cudaPitchedPtr p, int value, cudaExtent extent) {
  PerThreadDefault ptd;
  return cudaMemset3D(p, value, extent);
}

cudaError_t cudaMemset3DAsync_ptsz(cudaPitchedPtr p, int value,
                                   cudaExtent extent, cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaMemset3DAsync(p, value, extent, stream);
}

cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value,
                                   size_t width, size_t height,
                                   cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaMemset2DAsync(devPtr, pitch, value, width, height, stream);
}

cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src,
                                    size_t count, size_t offset,
                                    cudaMemcpyKind kind) {
  PerThreadDefault ptd;
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol,
                                      size_t count, size_t offset,
                                      cudaMemcpyKind kind) {
  PerThreadDefault ptd;
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src,
                                         size_t count, size_t offset,
                                         cudaMemcpyKind kind,
                                         cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, stream);
}

cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol,
                                           size_t count, size_t offset,
                                           cudaMemcpyKind kind,
                                           cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, stream);
}

cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size,
                                 cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaMallocAsync(devPtr, size, stream);
}

cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size,
                                         cudaMemPool_t memPool,
                                         cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaMallocFromPoolAsync(ptr, size, memPool, stream);
}

cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaFreeAsync(devPtr, stream);
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim,
                                             dim3 blockDim, void **args,
                                             size_t sharedMem,
                                             cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaLaunchCooperativeKernel(func, gridDim, blockDim, args, sharedMem,
                                     stream);
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config,
                                     const void *func, void **args) {
  PerThreadDefault ptd;
  return cudaLaunchKernelExC(config, func, args);
}

cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn,
                                    void *userData) {
  PerThreadDefault ptd;
  return cudaLaunchHostFunc(stream, fn, userData);
}

cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream,
                                       cudaStreamCallback_t callback,
                                       void *userData, unsigned int flags) {
  PerThreadDefault ptd;
  return cudaStreamAddCallback(stream, callback, userData, flags);
}

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaStreamSynchronize(stream);
}

cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaStreamQuery(stream);
}

cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
                                     unsigned int flags) {
  PerThreadDefault ptd;
  return cudaStreamWaitEvent(stream, event, flags);
}

cudaError_t cudaStreamGetId_ptsz(cudaStream_t stream,
                                 unsigned long long *streamId) {
  PerThreadDefault ptd;
  return cudaStreamGetId(stream, streamId);
}

cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t stream, int *device) {
  return cudaStreamGetDevice(stream, device);
}

cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t stream,
                                        cudaStreamAttrID attr,
                                        cudaStreamAttrValue *value_out) {
  PerThreadDefault ptd;
  return cudaStreamGetAttribute(stream, attr, value_out);
}

cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t stream,
                                        cudaStreamAttrID attr,
                                        const cudaStreamAttrValue *value) {
  PerThreadDefault ptd;
  return cudaStreamSetAttribute(stream, attr, value);
}

cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src) {
  PerThreadDefault ptd;
  return cudaStreamCopyAttributes(dst, src);
}

cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t stream, unsigned int *flags) {
  PerThreadDefault ptd;
  return cudaStreamGetFlags(stream, flags);
}

cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t stream, int *priority) {
  PerThreadDefault ptd;
  return cudaStreamGetPriority(stream, priority);
}

cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr,
                                          size_t length, unsigned int flags) {
  PerThreadDefault ptd;
  return cudaStreamAttachMemAsync(stream, devPtr, length, flags);
}

cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaEventRecord(event, stream);
}

cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event,
                                          cudaStream_t stream,
                                          unsigned int flags) {
  PerThreadDefault ptd;
  return cudaEventRecordWithFlags(event, stream, flags);
}

cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream,
                                        cudaStreamCaptureMode mode) {
  PerThreadDefault ptd;
  return cudaStreamBeginCapture(stream, mode);
}

cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream,
                                      cudaGraph_t *pGraph) {
  PerThreadDefault ptd;
  return cudaStreamEndCapture(stream, pGraph);
}

cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                       cudaStreamCaptureStatus *status) {
  PerThreadDefault ptd;
  return cudaStreamIsCapturing(stream, status);
}

cudaError_t cudaStreamBeginCaptureToGraph_ptsz(
    cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
    const cudaGraphEdgeData *dependencyData, size_t numDependencies,
    cudaStreamCaptureMode mode) {
  PerThreadDefault ptd;
  return cudaStreamBeginCaptureToGraph(stream, graph, dependencies,
                                       dependencyData, numDependencies, mode);
}

cudaError_t cudaStreamGetCaptureInfo_ptsz(
    cudaStream_t stream, cudaStreamCaptureStatus *captureStatus_out,
    unsigned long long *id_out, cudaGraph_t *graph_out,
    const cudaGraphNode_t **dependencies_out,
    const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out) {
  PerThreadDefault ptd;
  return cudaStreamGetCaptureInfo(stream, captureStatus_out, id_out, graph_out,
                                  dependencies_out, edgeData_out,
                                  numDependencies_out);
}

cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(
    cudaStream_t stream, cudaGraphNode_t *dependencies,
    const cudaGraphEdgeData *dependencyData, size_t numDependencies,
    unsigned int flags) {
  PerThreadDefault ptd;
  return cudaStreamUpdateCaptureDependencies(
      stream, dependencies, dependencyData, numDependencies, flags);
}

cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec,
                                 cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaGraphLaunch(graphExec, stream);
}

cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t graphExec,
                                 cudaStream_t stream) {
  PerThreadDefault ptd;
  return cudaGraphUpload(graphExec, stream);
}

} // extern "C"
