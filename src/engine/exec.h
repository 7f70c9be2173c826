// Execution: the handler signature and the scheduling kinds of an
// instruction, the context a handler runs in (Exec: the warp's registers,
// the memory it may touch, faults and warnings), lane values and the one
// lane loop, and the warp collectives. A handler executes one instruction
// for the lanes of a mask, in one loop (for_lanes), with no allocation.
// Internal to src/engine.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bcusim/engine/observer.h"
#include "memory_view.h"
#include "state.h"

namespace bcusim::engine::detail {

struct Exec;
struct Inst;
using ExecFn = void (*)(Exec &, const Inst &, uint32_t mask);

// How the scheduler treats an instruction; everything that is not Plain
// interacts with control flow or with other warps.
enum class Kind : uint8_t {
  Plain,      // fn over the executing lanes, then pc+1
  Branch,     // target = pc to jump to (guarded lanes), others fall through
  Exit,       // exit, or ret from the kernel
  Ret,        // return from a .func
  Call,       // aux = call-site index
  Printf,     // vprintf call: aux = call-site index
  DeviceCall, // device-runtime call (device-side launch): aux = call site
  WarpSync,   // warp-synchronous (shfl/vote/match/redux/bar.warp.sync):
              // waits until every listed non-exited lane is converged; the
              // member mask is slot `member`; then fn
  CtaBarrier, // bar / barrier (CTA): aux = Program::barriers index
  Trap,       // trap
  Yield,      // nanosleep: ends the warp's quantum
  // Cluster and grid synchronization (docs/clusters.md):
  WarpSyncMember, // bar.warp.sync / elect.sync: WarpSync, and every
                  // executing lane must be in its own membermask
  ClusterArrive,  // barrier.cluster.arrive (flags bit0 = .aligned)
  ClusterWait,    // barrier.cluster.wait (flags bit0 = .aligned)
  GridDepWait,    // griddepcontrol.wait
  MbarWait,       // mbarrier.test_wait / try_wait (exec_mbarrier.cpp): may
                  // suspend the path (PathState::BlockedMbar)
};

// ---- lane values -----------------------------------------------------------
template <class T> inline T as(uint64_t v) {
  if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<float>(static_cast<uint32_t>(v));
  else if constexpr (std::is_same_v<T, double>)
    return std::bit_cast<double>(v);
  else
    return static_cast<T>(v);
}
template <class T> inline uint64_t bits(T v) {
  if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<uint32_t>(v);
  else if constexpr (std::is_same_v<T, double>)
    return std::bit_cast<uint64_t>(v);
  else if constexpr (std::is_same_v<T, bool>)
    return v ? 1 : 0;
  else
    return static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(v));
}

// The one helper that iterates the lanes of an execution mask.
template <class F> inline void for_lanes(uint32_t mask, F &&f) {
  if (mask == kFullMask) {
    for (uint32_t l = 0; l < kWarpSize; ++l)
      f(l);
  } else {
    for (uint32_t m = mask; m != 0; m &= m - 1)
      f(static_cast<uint32_t>(std::countr_zero(m)));
  }
}

enum class FaultKind : uint8_t {
  None,
  OutOfBounds,
  Misaligned,
  Null,
  Unsupported,
  Trap,
  WarpSync,
  Cluster,  // barrier.cluster / DSMEM misuse (detail holds the message)
  Mbarrier, // mbarrier / async-copy misuse (detail = the message)
  Texture,  // tex / tld4 with an invalid texture object (detail)
  Heap,     // device heap: use after free, block overrun, bad free (detail)
  IllegalInstruction, // an operand the hardware refuses (detail)
  StackOverflow,      // a recursive call beyond the stack limit (detail)
  Unmapped, // memory not mapped yet (graph memory before it is made; detail)
};

struct Fault {
  FaultKind kind = FaultKind::None;
  MemSpace space = MemSpace::Global;
  bool write = false;
  uint32_t lane = 0;
  uint32_t size = 0;
  uint64_t addr = 0;
  std::string detail;
};

// The context a handler runs in: the warp's registers and the memory the
// instruction may touch.
struct Exec {
  uint8_t *r = nullptr; // the warp's register file (state.h)
  uint32_t *p = nullptr;
  Warp *warp = nullptr;
  Cta *cta = nullptr;
  const Launch *launch = nullptr;
  const Program *prog = nullptr;
  GlobalMemory *gmem = nullptr;
  uint32_t pc = 0;
  // Warp-instructions of the current warp's turn so far, the current one
  // included (%clock: the CTA's count plus these).
  uint64_t turn_steps = 0;
  // the last two global allocations hit (kernels often stream two arrays)
  uint64_t g_base = 1, g_size = 0;
  uint8_t *g_data = nullptr;
  uint64_t g_base2 = 1, g_size2 = 0;
  uint8_t *g_data2 = nullptr;
  bool faulted = false;
  Fault fault;
  // The launch's observer (nullptr: none; docs/observer.md) and the
  // worker's progress counter: stores, atomics and synchronization steps
  // bump it, so the scheduler can tell spinning from progress.
  Observer *obs = nullptr;      // memory accesses (when it wants them)
  Observer *sync_obs = nullptr; // synchronization events
  uint64_t progress = 0;
  // Warnings of the current instruction (lane, message): the scheduler
  // reports each one with its location (once per instruction and message).
  std::vector<std::pair<uint32_t, std::string>> warnings;
  void warn(uint32_t lane, std::string message) {
    warnings.emplace_back(lane, std::move(message));
  }
  // Errors the launch survives, reported like the warnings: accesses a GPU
  // completes although they are wrong (a freed or overrun device-heap
  // block, mapped host memory past its range within its pages; docs/exec.md
  // "Errors as on a GPU").
  std::vector<std::pair<uint32_t, std::string>> survived;
  void survive(uint32_t lane, std::string message) {
    survived.emplace_back(lane, std::move(message));
  }
  bool has_remarks() const { return !warnings.empty() || !survived.empty(); }

  // The lanes of register slot `slot` (an operand of Inst), read or
  // written as type T.
  template <class T = uint64_t> Lane<T> *lanes(uint32_t slot) const {
#ifdef BCUSIM_LANE_CHECK
    check_lane_width(slot, kLaneWidth<T>);
#endif
    return lanes_at<T>(r, slot);
  }
  // Aborts when register slot `slot` is not a slot of lane width `width`
  // (Debug builds and -DBCUSIM_LANE_CHECK=ON; compile.cpp).
  void check_lane_width(uint32_t slot, uint8_t width) const;
  // A register of the families whose operands' widths are read when they
  // run (async copies, mbarriers, TMA, matrix fragments, textures,
  // clusters): lane l read zero-extended, or written truncated to the
  // register's lane width. Never in a hot lane loop.
  struct RegLanes {
    uint8_t *p;
    bool wide;
    uint64_t operator[](uint32_t l) const {
      return wide ? reinterpret_cast<const Lane<uint64_t> *>(p)[l]
                  : reinterpret_cast<const Lane<uint32_t> *>(p)[l];
    }
    void set(uint32_t l, uint64_t v) const {
      if (wide)
        reinterpret_cast<Lane<uint64_t> *>(p)[l] = v;
      else
        reinterpret_cast<Lane<uint32_t> *>(p)[l] = Lane<uint32_t>(uint32_t(v));
    }
  };
  // The slot with (tagged) id `id`, as a side table holds it.
  RegLanes reg(uint32_t id) const {
    return RegLanes{r + slot_offset(id), is_wide_slot(id)};
  }
  // Operand slot a[k] of `in`.
  RegLanes reg(const Inst &in, uint32_t k) const;
  uint32_t thread_of(uint32_t lane) const {
    return warp->index * kWarpSize + lane;
  }
  void set_fault(FaultKind k, MemSpace sp, uint64_t addr, uint32_t size,
                 uint32_t lane, bool write) {
    if (faulted)
      return;
    // A global/generic access near address 0 is a null pointer, whatever
    // else is wrong with it.
    if ((sp == MemSpace::Global || sp == MemSpace::Generic) && addr < 65536)
      k = FaultKind::Null;
    faulted = true;
    fault.kind = k;
    fault.space = sp;
    fault.addr = addr;
    fault.size = size;
    fault.lane = lane;
    fault.write = write;
  }
  void set_error(FaultKind k, uint32_t lane, std::string detail) {
    if (faulted)
      return;
    faulted = true;
    fault.kind = k;
    fault.lane = lane;
    fault.detail = std::move(detail);
  }
  // Memory translation (exec_memory.cpp); nullptr + fault when invalid.
  uint8_t *translate(MemSpace sp, uint64_t addr, uint32_t size, bool write,
                     uint32_t lane);
  uint8_t *global_slow(uint64_t addr, uint32_t size, bool write, uint32_t lane);
  uint8_t *host_page_access(uint64_t addr, uint32_t size, bool write,
                            uint32_t lane);
  // .shared::cluster addresses of peer CTAs (exec_memory.cpp).
  uint8_t *shared_cluster(uint64_t addr, uint32_t size, bool write,
                          uint32_t lane);
  inline uint8_t *global(uint64_t addr, uint32_t size, bool write,
                         uint32_t lane) {
    uint64_t off = addr - g_base;
    if (off < g_size && size <= g_size - off)
      return g_data + off;
    uint64_t off2 = addr - g_base2;
    if (off2 < g_size2 && size <= g_size2 - off2) {
      std::swap(g_base, g_base2);
      std::swap(g_size, g_size2);
      std::swap(g_data, g_data2);
      return g_data + off2;
    }
    return global_slow(addr, size, write, lane);
  }
};

// ---- warp collectives (exec_warp.cpp)
// ---------------------------------------- The lanes of one membermask group at
// one warp-synchronous instruction.
struct CollectivePart {
  const Inst *in = nullptr;
  uint32_t lanes = 0; // the executing lanes (guard true) at `in`
};
// Runs one warp-synchronous operation for the lanes of one membermask
// group, which may have reached different instructions (sm_70+): each lane
// reads its operands from, and writes its results to, the instruction it
// executes; the exchange is among all the parts' lanes.
void exec_collective(Exec &x, std::span<const CollectivePart> parts);
// Whether the members of a warp-synchronous instruction's mask may meet it
// at other instructions on sm_70+: bar.warp.sync, elect.sync and the
// shfl/vote/match/redux.sync collectives; not the .sync.aligned matrix
// instructions (.aligned: every thread executes the same instruction).
bool meets_elsewhere(const Inst &in);
// Whether lanes at `a` and at `b` execute together: the same operation with
// the same qualifiers (PTX: "executed <op>.sync with the same qualifiers and
// same membermask value"), one that meets_elsewhere.
bool same_collective(const Program &P, const Inst &a, const Inst &b);
// elect.sync (a Kind::WarpSyncMember, as bar.warp.sync is): the observer's
// Elect event.
bool is_elect(const Inst &in);

} // namespace bcusim::engine::detail
