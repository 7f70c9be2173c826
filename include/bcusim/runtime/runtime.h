// The CUDA runtime that `bcusim exec` puts under unmodified host programs
// (docs/exec.md): registered fat binaries become engine modules, launches
// run in the engine with the run options, memory lives in an engine Device.
// Loading, launching, the checks and the findings are the session layer's
// (session.h), shared with `bcusim run`.
// The shared library libcudart.so.13 (src/runtime/cudart) is a thin C layer
// over this class; tests drive it directly.
//
//   runtime::Runtime rt(options);
//   int m = rt.add_ptx("k.ptx", ptx_text);
//   rt.register_function(m, &host_stub, "_Z3addPii");
//   void *d; rt.malloc(&d, 4096);
//   int n = 1024; void *args[] = {&d, &n};
//   rt.launch(&host_stub, {.grid = {4}, .block = {256}}, args);
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bcusim/engine/engine.h"
#include "bcusim/runtime/host_stack.h"
#include "bcusim/runtime/options.h"
#include "bcusim/runtime/session.h"
#include "bcusim/runtime/streams.h"

namespace bcusim::check {
class Timeline;
class Progress;
} // namespace bcusim::check

namespace bcusim::runtime {

// cudaError_t values (the numbers are CUDA's; the shared library checks
// them against the toolkit's header at compile time).
enum class Error : int {
  Success = 0,
  InvalidValue = 1,
  MemoryAllocation = 2,
  InitializationError = 3,
  InvalidConfiguration = 9,
  InvalidSymbol = 13,
  InvalidDevicePointer = 17,
  DevicesUnavailable = 46,
  InvalidMemcpyDirection = 21,
  InvalidDeviceFunction = 98,
  NoDevice = 100,
  InvalidDevice = 101,
  NoKernelImageForDevice = 209,
  InvalidPtx = 218,
  InvalidResourceHandle = 400,
  NotReady = 600,
  IllegalAddress = 700,
  LaunchOutOfResources = 701,
  LaunchTimeout = 702,
  Assert = 710,
  HostMemoryAlreadyRegistered = 712,
  HostMemoryNotRegistered = 713,
  IllegalInstruction = 715,
  MisalignedAddress = 716,
  LaunchFailure = 719,
  CooperativeLaunchTooLarge = 720,
  NotSupported = 801,
  StreamCaptureUnsupported = 900,
  StreamCaptureInvalidated = 901,
  Unknown = 999,
};
const char *error_name(Error e);   // "cudaErrorIllegalAddress"
const char *error_string(Error e); // "an illegal memory access was ..."
// Errors that leave the context unusable until a device reset (a kernel
// fault, trap, timeout), as on a GPU.
bool is_sticky(Error e);

// The modelled device: an H100 SXM (sm_90).
struct DeviceModel {
  const char *name = "NVIDIA H100 80GB HBM3 (bcusim)";
  int major = 9, minor = 0;
  int sm_count = 132;
  uint64_t global_mem = 80ull << 30;
  uint64_t const_mem = 64 << 10;
  uint32_t shared_per_block = 48 << 10;         // without opt-in
  uint32_t shared_per_block_optin = 227 << 10;  // 232448
  uint32_t shared_per_sm = 228 << 10;           // 233472
  uint32_t reserved_shared_per_block = 1 << 10; // the driver's share
  uint32_t regs_per_block = 65536, regs_per_sm = 65536;
  uint32_t warp_size = 32;
  uint32_t max_threads_per_block = 1024, max_threads_per_sm = 2048;
  uint32_t max_blocks_per_sm = 32;
  int clock_khz = 1980000, memory_clock_khz = 2619000, bus_width = 5120;
  uint32_t l2_bytes = 50 << 20;
  uint32_t max_cluster = 8, max_cluster_nonportable = 16;
  // Registers per thread assumed by occupancy (the engine has no register
  // allocation).
  uint32_t regs_per_thread = 32;

  // CTAs of `threads` threads using `shared` bytes (static + dynamic) that
  // fit on one SM at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor).
  uint32_t blocks_per_sm(uint32_t threads, uint64_t shared) const;
};

class Runtime {
public:
  explicit Runtime(RunOptions options = {});
  ~Runtime();
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  const RunOptions &options() const { return opts_; }
  const DeviceModel &model() const { return model_; }
  engine::Device &device() { return *dev_; }

  // ---- registration (a module is compiled at its first use) ------------
  // A fat binary (or its __cudaRegisterFatBinary wrapper); the index of its
  // image (its modules: one, or one per translation unit of relocatable
  // device code), or -1 (and the reason on stderr) when it has no PTX.
  // The other registration calls take that image index.
  int add_fatbin(const void *fatbin);
  int add_ptx(std::string name, std::string ptx);
  void register_function(int module, const void *host_fn,
                         std::string device_name);
  void register_var(int module, const void *host_var, std::string device_name,
                    uint64_t size, bool constant);
  // Managed variable: `*host_ptr` is set to its host-and-device address
  // when the module is first used (__cudaInitModule, or any use).
  void register_managed_var(int module, void **host_ptr,
                            std::string device_name, uint64_t size);
  void unregister_module(int module);
  // Compiles the module now (__cudaInitModule: before the host first
  // touches a __managed__ variable); false when it does not compile.
  bool init_module(int module);

  // ---- modules loaded at run time (cudaLibraryLoadData, the driver's
  // cuModuleLoadData; docs/exec.md "Modules loaded at run time") ----------
  // `code` is PTX text (NUL-terminated), a fat binary or its wrapper; it is
  // compiled at once. The image, or -1 with `err` (InvalidValue,
  // NoKernelImageForDevice: machine code only; InvalidPtx: it does not
  // compile, its diagnostics on stderr) and `why` in words. `name` names
  // the PTX in diagnostics (empty: after the program).
  int load_image(const void *code, std::string name, Error &err,
                 std::string &why);
  // The kernels of an image, in the order of its PTX.
  std::vector<std::string> image_kernels(int image);
  // A global or __constant__ variable of an image: its device address and
  // size (InvalidSymbol when there is none).
  Error image_global(int image, const std::string &name, void **addr,
                     uint64_t *size);

  // ---- launches ---------------------------------------------------------
  struct LaunchParams {
    engine::Dim3 grid, block;
    uint64_t shared = 0;           // dynamic shared memory per CTA
    engine::Dim3 cluster{0, 0, 0}; // 0,0,0: the kernel's own, or none
    bool cooperative = false;      // cudaLaunchCooperativeKernel
    bool programmatic = false;     // programmatic dependent launch
  };
  // Runs the kernel to completion as a work item of `stream` (streams());
  // its printf output goes to stdout and bcusim's report of a fault,
  // deadlock or checker finding to stderr. Checker findings do not fail
  // the launch: only what fails on a GPU does (docs/exec.md).
  Error launch(const void *host_fn, const LaunchParams &p, void **args,
               StreamOrder::Stream stream = StreamOrder::kLegacy);
  // The kernel's name and attributes; nullopt when host_fn is unknown.
  struct FuncInfo {
    std::string name;
    engine::Module::KernelInfo info;
    std::vector<uint32_t> param_sizes;
  };
  std::optional<FuncInfo> function(const void *host_fn, Error &err);
  // The kernel's PTX name (lives as long as the runtime); nullptr when
  // host_fn is unknown.
  const std::string *kernel_name(const void *host_fn) const;
  // cudaFuncSetAttribute: the opt-in dynamic shared memory limit.
  Error set_max_dynamic_shared(const void *host_fn, int bytes);

  // ---- module loading (docs/exec.md "Lazy loading") ---------------------
  // CUDA_MODULE_LOADING, read when the runtime is made: EAGER loads every
  // kernel with its module; LAZY (the default: unset, empty or any other
  // value) loads a kernel at its first use, after the work in flight then
  // (every pending launch and queued work item): a launch of it waits for
  // that work. The first use is any call that resolves the kernel
  // (function(): launches, cudaFuncGetAttributes, the occupancy calls,
  // kernel graph nodes; set_max_dynamic_shared()) and use_kernel().
  enum class Loading { Lazy, Eager };
  Loading loading = Loading::Lazy;
  // A use of the kernel that resolves nothing else (cudaGetFuncBySymbol,
  // cudaFuncGetName, cudaFuncSetCacheConfig, cuModuleGetFunction); false
  // when host_fn is unknown.
  bool use_kernel(const void *host_fn);
  // Whether the kernel is loaded: used, and the work in flight at its
  // first use has completed (always under EAGER).
  bool kernel_loaded(const void *host_fn);

  // ---- memory -----------------------------------------------------------
  Error malloc(void **p, uint64_t bytes);
  Error free(void *p);
  // cudaFreeAsync's work item (docs/exec.md "cudaMallocAsync /
  // cudaFreeAsync"): the allocation's lifetime ends, its memory stays
  // mapped (kernels' accesses are reported as a use after free) until the
  // next host synchronization releases it, as a memory pool does.
  Error free_async(void *p);
  // Memory cudaFreeAsync freed that is still mapped (not yet released).
  bool pool_pending(const void *p) const;
  // Releases such memory now (cudaMemPoolTrimTo) when no launch is
  // pending and no work is queued; false when it cannot.
  bool release_freed(void *p);
  // Host memory every kernel can reach at the same address (cudaMallocHost,
  // cudaHostAlloc, cudaMallocManaged: one pointer valid on both sides).
  Error malloc_host(void **p, uint64_t bytes, const char *what);
  Error free_host(void *p);
  bool is_host_mapped(const void *p) const;
  // Copies between any two addresses: device (engine) ranges must lie in
  // one allocation; anything else is host memory. Each copy or memset is
  // one work item of `stream`; `api` names it in race reports.
  Error memcpy(void *dst, const void *src, uint64_t bytes,
               StreamOrder::Stream stream = StreamOrder::kLegacy,
               const char *api = "cudaMemcpy");
  Error memcpy2d(void *dst, uint64_t dpitch, const void *src, uint64_t spitch,
                 uint64_t width, uint64_t height,
                 StreamOrder::Stream stream = StreamOrder::kLegacy,
                 const char *api = "cudaMemcpy2D");
  // 3-D forms: `depth` slices of `height` rows, slice k starting
  // k * dslice / sslice bytes after the first (cudaMemcpy3D, cudaMemset3D).
  Error memcpy3d(void *dst, uint64_t dpitch, uint64_t dslice, const void *src,
                 uint64_t spitch, uint64_t sslice, uint64_t width,
                 uint64_t height, uint64_t depth,
                 StreamOrder::Stream stream = StreamOrder::kLegacy,
                 const char *api = "cudaMemcpy3D");
  Error memset3d(void *dst, uint64_t pitch, uint64_t slice, int value,
                 uint64_t width, uint64_t height, uint64_t depth,
                 StreamOrder::Stream stream = StreamOrder::kLegacy,
                 const char *api = "cudaMemset3D");
  Error memset(void *dst, int value, uint64_t bytes,
               StreamOrder::Stream stream = StreamOrder::kLegacy,
               const char *api = "cudaMemset");
  Error memset2d(void *dst, uint64_t pitch, int value, uint64_t width,
                 uint64_t height,
                 StreamOrder::Stream stream = StreamOrder::kLegacy,
                 const char *api = "cudaMemset2D");
  // Symbols (host shadow addresses of __device__ / __constant__ variables).
  Error copy_to_symbol(const void *symbol, const void *src, uint64_t bytes,
                       uint64_t offset,
                       StreamOrder::Stream stream = StreamOrder::kLegacy,
                       const char *api = "cudaMemcpyToSymbol");
  Error copy_from_symbol(void *dst, const void *symbol, uint64_t bytes,
                         uint64_t offset,
                         StreamOrder::Stream stream = StreamOrder::kLegacy,
                         const char *api = "cudaMemcpyFromSymbol");
  Error symbol_address(const void *symbol, void **addr);
  Error symbol_size(const void *symbol, uint64_t *size);
  // Whether p is an address in the engine's device memory ranges.
  static bool is_device_address(const void *p);

  // ---- streams ----------------------------------------------------------
  // The order of the work items across streams: events, stream waits and
  // host synchronization go here (docs/checker.md "Streams"). With
  // `--check race` and more than one stream, work items that it does not
  // order are checked against each other for races.
  StreamOrder &streams() { return session_->streams(); }

  // The objects behind cudaStream_t, cudaEvent_t, cudaGraph_t and
  // cudaGraphExec_t (the stand-in hands out their addresses). Work runs
  // when it is submitted, as a work item of its stream; a capturing stream
  // records it into its graph instead, and a graph launch replays it.
  using Work = std::function<Error(StreamOrder::Stream)>;
  struct Graph {
    std::vector<Work> work;
    // A capture's: the items each work item depends on (indices).
    std::vector<std::vector<size_t>> deps;
  };
  struct Stream {
    StreamOrder::Stream id = StreamOrder::kLegacy;
    unsigned flags = 0;
    std::unique_ptr<Graph> capture; // while capturing (the origin stream)
    // While the stream takes part in another stream's capture (it waited
    // for an event recorded in that capture): that capture.
    Graph *joined = nullptr;
    // While capturing: the items the stream's next item depends on.
    std::vector<size_t> tail;
  };
  struct Event {
    double t = 0; // work_seconds() when recorded
    bool recorded = false;
    StreamOrder::Clock clock; // the work it covers
    // Recorded in a capture: the capture and the items it covers.
    Graph *capture = nullptr;
    std::vector<size_t> nodes;
  };
  // The capture `s` records into (its own or one it joined), or nullptr.
  static Graph *capturing(const Stream *s) {
    return !s ? nullptr : s->capture ? s->capture.get() : s->joined;
  }
  // `blocking` false: cudaStreamNonBlocking (no implicit synchronization
  // with the legacy default stream).
  Stream *create_stream(unsigned flags, bool blocking);
  Error destroy_stream(Stream *s);
  // Runs `work` on stream `id` now, or records it while `s` (the stream's
  // object; nullptr for the default streams, which never capture)
  // captures.
  Error submit(Stream *s, StreamOrder::Stream id, Work work);
  Error begin_capture(Stream *s);
  // The captured graph (owned by the runtime until destroy_graph).
  Graph *end_capture(Stream *s);
  Graph *create_graph();
  Error destroy_graph(Graph *g);
  // cudaGraphInstantiate: an executable copy (destroy_graph frees it).
  Graph *instantiate(const Graph &g);
  Error launch_graph(const Graph &g, Stream *s, StreamOrder::Stream id);
  Event *create_event();
  Error destroy_event(Event *e);
  // cudaEventRecord (as work of the stream; in a capture only a mark of
  // what the stream captured so far, unless `external`:
  // cudaEventRecordExternal), cudaStreamWaitEvent,
  // cudaEventSynchronize / a successful cudaEventQuery, and
  // cudaEventElapsedTime.
  Error record_event(Event *e, Stream *s, StreamOrder::Stream id,
                     bool external = false);
  // `s` (the stream's object, nullptr for a default stream) waits for `e`;
  // an event recorded in a capture makes `s` depend on what it covers
  // there, joining the capture if `s` is not capturing.
  Error wait_event(Stream *s, StreamOrder::Stream id, const Event &e);
  void sync_event(const Event &e);
  Error elapsed_ms(const Event &start, const Event &end, float *ms) const;
  // The session: the checks, their findings, the order of the streams.
  Session &session() { return *session_; }

  // ---- concurrent work (docs/exec.md "Concurrent streams") --------------
  // A launch whose every warp spins on memory nothing in it will change
  // yields: the call returns and the launch stays pending, and pending
  // launches are resumed after every other work item (a kernel, copy,
  // memset, host function) and at host synchronization, until they
  // complete. Asynchronous work that must follow a pending launch (its
  // stream, an event, the legacy default stream) is queued in the order of
  // the streams (taking its place there at the call) and runs once what it
  // follows has completed. The host waits (synchronization, blocking
  // copies) by resuming pending launches while any of them makes progress;
  // a pending launch it waits for that still cannot go on is deadlocked
  // (reported as before).
  // Whether work submitted now to `s` must be queued.
  bool must_defer(StreamOrder::Stream s) const;
  // Work about to run on `s` (and the host functions of `s`): the host
  // waits for what it follows.
  void wait_stream(StreamOrder::Stream s);
  // Host synchronization: with a stream, an event, the whole device.
  void host_sync(StreamOrder::Stream s);
  void host_sync_all();
  // cudaStreamQuery / cudaEventQuery: pending launches resume; false
  // (cudaErrorNotReady) while work the clock covers is still pending. After
  // kQueryLimit queries in a row that find the same work pending without
  // progress, that work is deadlocked and the query completes.
  static constexpr uint32_t kQueryLimit = 64;
  bool query(const StreamOrder::Clock &c);
  // Launches that yielded and have not completed; queued work items.
  size_t pending_launches() const { return running_.size(); }
  size_t queued_work() const { return queue_.size(); }

  // ---- errors and state -------------------------------------------------
  // Records an error as cudaGetLastError sees it; returns it.
  Error record(Error e);
  Error last_error(bool reset);
  // The error a kernel left (sticky until reset()); Success when none.
  Error sticky() const { return sticky_; }
  // cudaDeviceReset: frees every allocation, clears the sticky error.
  void reset();
  // What a GPU does after cudaDeviceReset ends a context that a kernel
  // fault broke: the device stays unavailable to the process, and the calls
  // that report a sticky error return cudaErrorDevicesUnavailable
  // (docs/exec.md "Errors as on a GPU").
  void make_unavailable() { sticky_ = Error::DevicesUnavailable; }
  // Host seconds of simulated work so far (launches and copies): what
  // events measure.
  double work_seconds() const { return work_seconds_; }
  // cudaLimitDevRuntimePendingLaunchCount: how many device-side launches a
  // grid may have pending (docs/engine.md "Device-side launches").
  uint32_t pending_launch_limit = 2048;
  // cudaLimitStackSize: the per-thread stack of recursive device functions
  // (docs/exec.md "Stack size"); starts at RunOptions::stack_size.
  uint32_t stack_limit = 1024;
  // Device-side cudaDeviceGetAttribute (engine::LaunchConfig): the
  // stand-in library sets it to its own cudaDeviceGetAttribute's values.
  std::function<int(int attr, int device, int &value)> device_attribute;
  // Device-side cudaGetErrorString (engine::LaunchConfig).
  std::function<std::string(int error)> device_error_string;

  struct Stats {
    uint64_t launches = 0, failed_launches = 0;
    uint64_t thread_steps = 0, warp_steps = 0;
    double seconds = 0;
    uint64_t errors = 0, warnings = 0;
  };
  const Stats &stats() const { return stats_; }
  // The program's precompiled GPU libraries ("libcublasLt.so.13 (NVIDIA
  // cuBLASLt)") and the driver functions it asked for that bcusim lacks,
  // each already warned about once (docs/exec.md "Precompiled GPU
  // libraries"): named in the summary and in --report when there are any.
  // Warnings of the run, not findings: --error-exitcode ignores them.
  std::vector<std::string> precompiled_libraries, missing_driver_functions;
  // "bcusim: 3 launches, 1.2M thread-instructions, 0.12 s simulated; no
  // findings" (and the checker's summary line when checks ran).
  std::string summary() const;
  // With --check: a warning for each device-heap block still allocated
  // (at the program's exit; docs/exec.md "Device heap").
  void check_heap_leaks();
  // Writes --report FILE (when given); false on an I/O error.
  bool write_report() const;

private:
  // A launch running on a host thread of its own, which hands the turn
  // back and forth with the calling thread: exactly one of them runs.
  struct Running;
  struct Runner;
  // Gives `r` the turn until it completes (true) or yields again;
  // `go_on` false makes a yielded launch report its deadlock.
  bool turn(Running &r, bool go_on);
  // The findings, statistics and error of a completed launch.
  Error finish_launch(std::unique_ptr<Running> r);
  // Resumes pending launches while any of them makes progress.
  void settle();
  // Settles, then deadlocks the pending launches `c` follows.
  void wait_for(const StreamOrder::Clock &c, bool all = false);
  struct Kernel {
    int module = -1;
    std::string name;
    int max_dynamic_shared = -1;
    // Lazy loading: whether it was used, and what was in flight at its
    // first use (empty once that has completed).
    bool used = false;
    StreamOrder::Clock load_after;
  };
  // Lazy loading: the first use of `k` (nothing under EAGER), and whether
  // its load still waits for work in flight.
  void use(Kernel &k);
  bool load_pending(Kernel &k);
  // What is in flight now (pending launches, queued work) as a clock that
  // follows each of them.
  StreamOrder::Clock in_flight() const;
  // `c` and what the queued work it follows waits for to load its kernel.
  StreamOrder::Clock reach(StreamOrder::Clock c) const;
  struct Var {
    int module = -1;
    std::string name;
    uint64_t size = 0;
    bool constant = false;
    void **managed = nullptr; // managed variables: where the address goes
  };
  struct ModuleSlot {
    std::string name;
    std::string ptx;
    std::shared_ptr<const SourceFile> source;
    std::unique_ptr<engine::Module> module;
    bool failed = false;
    bool released = false;
  };
  engine::Module *module(int index, Error &err);
  int add_image(std::vector<std::string> ptxs, std::string name);
  int module_of(int image, const std::string &name, bool kernel) const;
  void map_managed(int index);
  // A copy or memset as a work item: begin, the ranges it touches, end
  // (which prints its findings).
  void begin_host_work(StreamOrder::Stream stream, const char *api);
  void host_access(const void *p, uint64_t bytes, bool write);
  void end_host_work();
  const void *symbol_device_address(const void *symbol, uint64_t offset);
  // Prints the session's findings [from, to) and counts them.
  void report_findings(size_t from, size_t to);
  Error resolve_symbol(const void *symbol, uint64_t offset, uint64_t bytes,
                       uint8_t **where);
  uint8_t *resolve(const void *p, uint64_t bytes, bool &device);

  RunOptions opts_;
  DeviceModel model_;
  std::unique_ptr<engine::Device> dev_;
  std::unique_ptr<Session> session_;
  std::map<const void *, std::unique_ptr<Stream>> stream_objs_;
  std::map<const void *, std::unique_ptr<Event>> event_objs_;
  std::map<const void *, std::unique_ptr<Graph>> graph_objs_;
  std::unique_ptr<check::Timeline> timeline_; // --timeline
  std::unique_ptr<check::Progress> progress_; // stderr is a terminal
  // Host stacks of allocations (by base) and of the current launch, kept
  // while findings are checked (docs/exec.md "Host stacks").
  std::map<uint64_t, std::vector<uintptr_t>> alloc_stacks_;
  // Freed by cudaFreeAsync, released at the next host synchronization.
  std::vector<void *> pool_freed_;
  void release_pool();
  std::vector<uintptr_t> launch_stack_;
  // A queued launch, as it runs: the stack of the call that submitted it.
  std::optional<std::vector<uintptr_t>> call_stack_;
  std::unique_ptr<HostSymbolizer> symbolizer_;
  engine::Schedule schedule_;
  std::vector<ModuleSlot> modules_;
  std::vector<std::vector<int>> images_; // image -> module indices
  std::map<const void *, Kernel> kernels_;
  std::map<const void *, Var> vars_;
  std::map<uint64_t, uint64_t> host_blocks_; // base -> size
  Error last_ = Error::Success;
  Error sticky_ = Error::Success;
  double work_seconds_ = 0;
  Stats stats_;
  bool options_ok_ = true;
  std::vector<std::unique_ptr<Running>> running_; // in launch order
  std::vector<std::unique_ptr<Runner>> runners_;  // idle ones
  struct Queued {
    StreamOrder::Work work; // its place in the order of the streams
    StreamOrder::Stream id = StreamOrder::kLegacy;
    Work fn;
    // A launch of a kernel still loading: what its load waits for, and
    // the kernel's name.
    StreamOrder::Clock after;
    std::string loads;
  };
  std::deque<Queued> queue_; // in submission order
  // While a queued item runs: its work item.
  std::optional<StreamOrder::Work> current_;
  // Queues `fn` as work of `id` (a launch of a kernel still loading: after
  // `after`, `loads` naming the kernel).
  void defer(StreamOrder::Stream id, Work fn, StreamOrder::Clock after = {},
             std::string loads = {});
  // Whether `c` (what a work item follows) covers `w`.
  static bool follows(const StreamOrder::Clock &c, const StreamOrder::Work &w) {
    return w.stream < c.size() && c[w.stream] >= w.seq;
  }
  // What work about to run on `s` follows.
  StreamOrder::Clock clock_of(StreamOrder::Stream s) {
    return current_ ? current_->start : streams().record(s);
  }
  bool settling_ = false;
  uint32_t idle_queries_ = 0;
  uint64_t query_progress_ = 0;
};

} // namespace bcusim::runtime
