// The bcusim engine: runs nvcc-generated PTX on the CPU with a SIMT execution
// model (grid > cluster > CTA > warp > lane). See docs/engine.md for the
// execution model and docs/api.md for this API.
//
//   DiagnosticSink sink;
//   auto module = engine::Module::load_file("k.ptx", sink);   // parse+compile
//   engine::Device dev;
//   auto x = dev.alloc(n * 4);
//   dev.write(x, host.data(), n * 4);
//   engine::LaunchConfig cfg;  cfg.grid = {4}; cfg.block = {256};
//   auto report = dev.launch(*module, "kern", cfg,
//                            {engine::KernelArg::u32(n),
//                            engine::KernelArg::ptr(x)});
//   if (!report.ok()) std::cerr << report.diagnostics_text();
//   dev.read(x, host.data(), n * 4);
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bcusim/engine/dim3.h"
#include "bcusim/engine/observer.h"
#include "bcusim/support/diagnostics.h"

namespace bcusim::ptx {
struct Module;
}

namespace bcusim::engine {

class Observer; // bcusim/engine/observer.h

// Scalar element types of kernel arguments and buffers (the CLI's TYPE).
enum class ScalarType : uint8_t {
  U8,
  U16,
  U32,
  U64,
  S8,
  S16,
  S32,
  S64,
  F32,
  F64
};
uint32_t size_of(ScalarType t);
bool is_float(ScalarType t);
bool is_signed(ScalarType t);
std::string_view name_of(ScalarType t);
std::optional<ScalarType> parse_scalar_type(std::string_view name);

// A device address (bcusim's 64-bit global address space; not a host pointer).
using DevicePtr = uint64_t;

// One kernel argument: raw little-endian bytes copied into the kernel's
// parameter slot. `is_pointer` marks 64-bit device addresses.
struct KernelArg {
  std::vector<uint8_t> bytes;
  bool is_float = false;
  bool is_signed = false;
  bool is_pointer = false;
  // A structure's bytes: passed only to a parameter of exactly its size
  // (never widened like an integer).
  bool is_aggregate = false;

  static KernelArg u8(uint8_t v);
  static KernelArg u16(uint16_t v);
  static KernelArg u32(uint32_t v);
  static KernelArg u64(uint64_t v);
  static KernelArg s32(int32_t v);
  static KernelArg s64(int64_t v);
  static KernelArg f32(float v);
  static KernelArg f64(double v);
  static KernelArg ptr(DevicePtr p);
  static KernelArg raw(const void *data, size_t size);
};

// Scheduling policy (docs/engine.md, "Schedule").
struct Schedule {
  enum class Kind : uint8_t {
    RoundRobin, // "rr": units, CTAs and warps in increasing order
    Reverse,    // "reverse": units, CTAs and warps in decreasing order
    Delay,      // "delay:W": round-robin, but warp W of every CTA runs only
                // when no other warp of the worker can
    Random,     // "random:SEED": warps, paths and admissions drawn at random,
                // turns end early before memory and sync instructions
  } kind = Kind::RoundRobin;
  uint64_t seed = 0; // Random
  uint32_t warp = 0; // Delay: the delayed warp index (0..31)
  // Parses "rr" / "round-robin" / "default" / "reverse" / "delay:W" /
  // "random:SEED"; nullopt on bad input.
  static std::optional<Schedule> parse(std::string_view text);
  // The accepted forms, for messages.
  static constexpr const char *kForms =
      "rr, reverse, delay:W (W < 32) or random:SEED";
  // The text that parse() turns back into this schedule ("rr", "delay:3").
  std::string str() const;
  // The schedules of an exploration of `n` runs (docs/checker.md "Schedule
  // exploration"): `first`, then reverse, each of the first `warps` warps
  // delayed, and random seeds 1, 2, ... interleaved with them, without
  // repeating `first`.
  static std::vector<Schedule> exploration(unsigned n, const Schedule &first,
                                           uint32_t warps);
  bool operator==(const Schedule &) const = default;
};

// The largest per-thread stack for recursive device functions
// (LaunchConfig::stack_size) bcusim gives a thread: 256 KiB.
constexpr uint32_t kMaxStackSize = 256u << 10;

struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  Dim3 cluster{0, 0, 0};     // {0,0,0}: no cluster unless the kernel asks
  uint32_t shared_bytes = 0; // dynamic (extern) shared memory per CTA
  uint64_t max_steps = 0;    // warp-instructions over the launch; 0 = none
  double time_limit_s = 60;  // wall clock; <= 0 = none
  Schedule schedule;
  // Host threads running independent CTAs (docs/engine.md "Host threads").
  // 1 (default): fully deterministic. N > 1 runs units (clusters / CTAs)
  // in parallel: race-free kernels give identical results, but which fault
  // is reported first and the interleaving of racy kernels may vary.
  // 0 = the hardware's concurrency. A random schedule always uses one.
  unsigned host_threads = 1;
  // Programmatic dependent launch (docs/clusters.md "griddepcontrol"): this
  // launch depends on the previous one (griddepcontrol.wait has a
  // prerequisite). Launches always run in order, so this only decides
  // whether a griddepcontrol.wait without prerequisite gets a note.
  bool has_prerequisite = false;
  // Barrier misuse the barrier unit survives (docs/barriers.md
  // "--warn-only") is reported as a warning in RunReport::diagnostics and
  // the run goes on; deadlocks still stop it.
  bool warn_only = false;
  // Every memory access and synchronization event of the launch goes to
  // these observers (docs/observer.md; the checkers of src/check are
  // observers), in list order, `observer` (when set) first. Not owned. A
  // launch with observers runs on one host thread unless all of them are
  // concurrent().
  Observer *observer = nullptr;
  std::vector<Observer *> observers;
  // Device-side launches (docs/engine.md "Device-side launches"): how many
  // a grid may have pending (cudaLimitDevRuntimePendingLaunchCount), and
  // the nesting depth of this launch (0: launched by the host; a grid at
  // depth 128 cannot launch).
  uint32_t pending_launch_limit = 2048;
  uint32_t launch_depth = 0;
  // The per-thread stack for the frames of recursive device functions
  // (cudaLimitStackSize, 1024 bytes on NVIDIA GPUs; docs/engine.md
  // "Recursion"): a call that needs more faults as a stack overflow. At
  // most kMaxStackSize.
  uint32_t stack_size = 1024;
  // Device-side cudaDeviceGetAttribute(&value, attr, device): sets `value`
  // and returns the cudaError_t; unset, every attribute reads 0.
  std::function<int(int attr, int device, int &value)> device_attribute;
  // Device-side cudaGetErrorString(error): the text; unset, the error's
  // number.
  std::function<std::string(int error)> error_string;
  // Called when every warp of the launch spins on memory nothing in it will
  // change (docs/engine.md "Deadlocks"), with the launch's progress count
  // (stores, atomics, synchronization, exits so far). The caller may run
  // other work meanwhile (bcusim exec's concurrent streams): true resumes
  // the launch, which then re-reads memory; false (or unset) reports the
  // deadlock. Only a launch on one host thread asks; wall-clock time spent
  // in the call does not count against time_limit_s.
  std::function<bool(uint64_t progress)> on_stuck;
};

enum class RunStatus : uint8_t {
  Ok,
  BadLaunch, // configuration or arguments do not fit the kernel
  Fault,     // invalid memory access, or an unsupported operation at run time
  Trap,      // the kernel executed trap
  Deadlock,  // every remaining warp is blocked
  StepLimit, // --max-steps reached
  TimeLimit, // wall-clock limit reached
};
std::string_view name_of(RunStatus s);

// What a diagnostic of a run is about, set where the engine raises it
// (docs/engine.md "Faults and limits"; the checker's finding kinds follow
// it, docs/checker.md "Engine diagnostics").
enum class RunProblem : uint8_t {
  Fault,             // invalid, null or misaligned access; an unsupported
                     // operation; a device-heap or texture error
  Trap,              // trap, or a failed device-side assert
  Deadlock,          // threads wait for what no thread will do
  BarrierDivergence, // an .aligned barrier or warp-synchronous instruction
                     // reached by a divergent warp
  SyncMisuse,        // a rule of a synchronization primitive is broken
                     // (barrier unit exceptions, membermasks, mbarriers)
  Limit,             // --max-steps or the time limit
  BadLaunch,         // the launch does not fit the kernel
};
std::string_view name_of(RunProblem p);

// One diagnostic of a run and what it is about.
struct RunDiagnostic : Diagnostic {
  RunProblem kind = RunProblem::Fault;
  // A fault on global memory: the base of the allocation the address lies
  // in or is nearest to (0: none), so that reports can name where it was
  // allocated.
  uint64_t allocation = 0;
  // A fault inside a function that stays a call: the PTX locations of the
  // `call` instructions the faulting thread is inside, innermost first.
  std::vector<SourceLoc> call_stack = {};
};

struct RunReport {
  RunStatus status = RunStatus::Ok;
  // Why the run failed; warn_only warnings.
  std::vector<RunDiagnostic> diagnostics;
  std::string printf_output; // device printf, CTA order
  uint64_t warp_steps = 0;   // warp-instructions executed
  uint64_t thread_steps = 0; // thread-instructions (active lanes)
  // Simulated cycles of the launch (docs/engine.md "Simulated time").
  uint64_t cycles = 0;
  double seconds = 0;
  // Remarks that do not fail the run (e.g. griddepcontrol.wait in a launch
  // without prerequisite); `bcusim run --verbose` prints them.
  std::vector<Diagnostic> notes;

  bool ok() const { return status == RunStatus::Ok; }
  std::string diagnostics_text() const;
};

namespace detail {
struct Program;
class GlobalMemory;
} // namespace detail

// A parsed and compiled PTX module. Compilation checks every instruction
// before anything runs; a module loads when it parses, and a kernel that
// uses something unsupported (itself or through a function it calls) is
// refused at launch with those errors and their locations, while the other
// kernels run (kernel_errors).
// Module-scope .global/.const variables live in the module (like a CUmodule)
// at fixed device addresses; kernels may modify .global variables.
class Module {
public:
  static std::unique_ptr<Module> load_file(const std::string &path,
                                           DiagnosticSink &sink);
  static std::unique_ptr<Module> load_string(const std::string &name,
                                             const std::string &text,
                                             DiagnosticSink &sink);
  // Compiles an already-parsed module (keeps a copy of it).
  static std::unique_ptr<Module> compile(ptx::Module ast, DiagnosticSink &sink);
  ~Module();

  std::vector<std::string> kernel_names() const;
  // Why a kernel cannot run, each error at its location (an unsupported
  // instruction of the kernel or of a function it calls, a call to an
  // undefined function, recursion); empty when it can run or does not exist.
  std::vector<Diagnostic> kernel_errors(const std::string &kernel) const;
  // The CUDA source position (.loc, observer.h CudaLoc) of the instruction
  // at a PTX location of this module; invalid when there is none.
  CudaLoc cuda_loc(const SourceLoc &ptx) const;
  // Parameter sizes (bytes) of a kernel, in order; nullopt when no such kernel.
  std::optional<std::vector<uint32_t>>
  kernel_param_sizes(const std::string &kernel) const;
  const ptx::Module &ast() const;
  detail::Program &program() const { return *program_; }

  // A module-scope variable by its PTX name: .global variables have a device
  // address (valid on a Device after Device::map_module or a launch);
  // .const variables an offset in the module's constant bank.
  struct Symbol {
    bool is_const = false;
    uint64_t addr = 0;
    uint64_t size = 0;
  };
  std::optional<Symbol> symbol(const std::string &name) const;
  // Copies into / out of the constant bank (between launches); false when
  // the range is outside it.
  bool write_const(uint64_t offset, const void *src, uint64_t bytes);
  bool read_const(uint64_t offset, void *dst, uint64_t bytes) const;
  // The constant bank's bytes (a __constant__ variable at `Symbol::addr`
  // in it). They stay where they are for the module's life: a runtime maps
  // them (Device::map_host) so that the variables have device addresses,
  // as the constant bank is device memory on a GPU.
  std::span<uint8_t> const_bank();
  // What a host runtime reports about a kernel (cudaFuncGetAttributes).
  struct KernelInfo {
    // Bytes of the .shared variables the kernel and the functions it calls
    // name (as ptxas counts them per kernel; the engine's layout for the
    // kernel, docs/engine.md "Shared memory", ends there unless a variable
    // is shared with another kernel).
    uint32_t static_shared = 0;
    uint32_t local_bytes = 0; // per-thread local memory
    uint32_t param_bytes = 0;
    uint32_t max_threads = 1024; // .maxntid / .reqntid, else 1024
    Dim3 reqntid{0, 0, 0};       // 0,0,0: none
    Dim3 cluster{0, 0, 0};       // .reqnctapercluster; 0,0,0: none
  };
  std::optional<KernelInfo> kernel_info(const std::string &kernel) const;

private:
  Module();
  std::unique_ptr<ptx::Module> ast_;
  std::unique_ptr<detail::Program> program_;
};

// A texture object over device memory (cudaTextureObject_t; docs/engine.md
// "Textures"): `tex` and `tld4` read it through its handle.
struct Texture {
  enum class Format : uint8_t { U8, S8, U16, S16, U32, S32, F32 };
  enum class Address : uint8_t { Wrap, Clamp, Mirror, Border };
  DevicePtr base = 0;
  uint64_t pitch = 0; // bytes from one row to the next (2-D)
  uint32_t width = 1, height = 1;
  uint32_t channels = 1; // 1..4 elements of `format` per texel
  Format format = Format::F32;
  bool normalized_float = false;  // 8/16-bit integers read as [0,1]/[-1,1]
  bool linear = false;            // linear filtering (else point)
  bool normalized_coords = false; // coordinates in [0,1)
  Address address[2] = {Address::Clamp, Address::Clamp};
  float border[4] = {0, 0, 0, 0};
};

// Device memory and launches. Not thread-safe across concurrent calls.
class Device {
public:
  Device();
  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  // Allocates zero-filled device memory (256-byte aligned, with guard gaps
  // between allocations so that overruns fault). `name` (optional) names
  // the allocation in diagnostics, e.g. "argument 2 (s32[512])".
  DevicePtr alloc(uint64_t bytes, std::string name = {});
  bool free(DevicePtr p);
  // Marks an allocation as outside its lifetime (`why` non-empty: "use
  // after free: the 64-byte graph allocation at 0x... was freed by ...") or
  // inside it again (empty): kernels' accesses to it are then errors the launch
  // survives, made on its bytes, or, `unmapped`, faults (memory a GPU has
  // not mapped yet; docs/exec.md "Graph memory"). False when `p` is not an
  // allocation's base.
  bool set_retired(DevicePtr p, std::string why, bool unmapped = false);
  // The allocation (or module .global variable) holding `addr`.
  struct AllocationInfo {
    DevicePtr base = 0;
    uint64_t size = 0;
    std::string name; // empty when unnamed
  };
  std::optional<AllocationInfo> allocation(DevicePtr addr) const;
  // Makes a module's .global variables addressable on this device now
  // (a launch does it too).
  void map_module(const Module &module);
  // Host memory that kernels may access at its own address (managed and
  // mapped host memory: one pointer valid on both sides). False when the
  // range overlaps device memory or is not outside the engine's windows.
  bool map_host(void *host, uint64_t bytes, std::string name = {});
  bool unmap_host(void *host);
  // The device heap of kernels' malloc/new (docs/engine.md "Device heap"):
  // its size (default 8 MiB, cudaLimitMallocHeapSize) may change only while
  // no block is live (false otherwise); the live blocks, each with who
  // allocated it.
  bool set_heap_size(uint64_t bytes);
  uint64_t heap_size() const;
  // Whether a kernel has allocated a heap block (since the last reset).
  bool heap_used() const;
  struct HeapBlockInfo {
    DevicePtr base = 0;
    uint64_t size = 0;
    std::string by; // "allocated in kernel K"
  };
  std::vector<HeapBlockInfo> heap_blocks() const;
  // Simulated nanoseconds of every launch so far (docs/engine.md
  // "Simulated time"; %globaltimer reads it).
  uint64_t simulated_ns() const;
  // Texture objects: a non-zero handle for kernels' tex/tld4; the texture
  // reads its memory at each fetch (bounds-checked).
  uint64_t create_texture(const Texture &t);
  bool destroy_texture(uint64_t handle);
  // Whether addr lies in the ranges where device memory and module
  // variables are placed (host addresses never do).
  static bool is_device_address(DevicePtr addr);
  // The bytes behind [p, p + bytes) when the range lies inside one
  // allocation; nullptr otherwise. Valid until the allocation is freed.
  uint8_t *data(DevicePtr p, uint64_t bytes);
  // Host <-> device copies; false when the range is not inside one allocation.
  bool write(DevicePtr dst, const void *src, uint64_t bytes);
  bool read(DevicePtr src, void *dst, uint64_t bytes) const;

  // Runs `kernel` to completion (or until a fault, deadlock or limit).
  RunReport launch(const Module &module, const std::string &kernel,
                   const LaunchConfig &config,
                   const std::vector<KernelArg> &args);

  detail::GlobalMemory &memory() { return *memory_; }

private:
  std::unique_ptr<detail::GlobalMemory> memory_;
};

// Generators for buffer initialisers shared by the CLI and tests
// (docs/engine.md "Buffer initialisers"): splitmix64 stream from `seed`.
struct SplitMix64 {
  uint64_t state;
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};
// Element `i` of `rand:SEED` for type t, as little-endian bytes in `out`
// (size_of(t) bytes): integers use the low bits of one splitmix64 output
// (the type's full range); f32 = (x >> 40) * 2^-24 and f64 = (x >> 11) *
// 2^-53, uniform in [0, 1).
void random_element(ScalarType t, SplitMix64 &rng, uint8_t *out);

} // namespace bcusim::engine
