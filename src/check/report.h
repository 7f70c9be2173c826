// Findings of the checker: one per pair of instruction sites (races) or
// per instruction (other kinds), counted, rendered at the end of the launch
// with locations, threads and an explanation (docs/checker.md "Reports").
// Internal to src/check.
#pragma once

#include <atomic>
#include <map>
#include <tuple>
#include <unordered_map>

#include "state.h"

namespace bcusim::check::detail {

// One side of a race as the checker saw it.
struct RaceSide {
  Tid tid = kNoTid;
  uint32_t pc = 0;
  bool write = false, atomic = false, strong = false;
  MemScope scope = MemScope::None;
  uint32_t size = 0;
  uint64_t async_id = 0; // agents: the copy
};

// How two conflicting writes relate by what they stored.
enum class WriteValues : uint8_t {
  Unknown,   // a read is involved, or a value is not known
  Same,      // both stored the same bytes: a benign race (a warning)
  Different, // both known and different
};

class Findings {
public:
  explicit Findings(std::vector<Finding> &out) : out_(out) {}

  // A race between `earlier` and `later` on byte `addr` of `space`
  // (owner: the CTA of shared memory).
  void race(LaunchSt &L, StateSpace space, uint64_t owner, uint64_t addr,
            const RaceSide &earlier, const RaceSide &later,
            WriteValues values = WriteValues::Unknown);
  // A race that race() would only count: its kind is suppressed, or its
  // finding exists with its list of instances full. Counts it and returns
  // true; false when race() has to see it (in report order).
  bool race_counted(const LaunchSt &L, StateSpace space,
                    const RaceSide &earlier, const RaceSide &later,
                    WriteValues values);
  // Two lanes of one store instruction store different values to the same
  // bytes: the result depends on which lane writes last.
  void lanes_race(LaunchSt &L, StateSpace space, uint64_t owner, uint64_t addr,
                  const RaceSide &first, const RaceSide &second);
  // A read of bytes nothing in the launch wrote.
  void uninit(LaunchSt &L, StateSpace space, uint64_t owner, uint64_t addr,
              uint32_t size, Tid reader, uint32_t pc);
  // Any other finding at one instruction of one thread.
  // `current`: `who` executes the instruction at `pc` now (the event being
  // observed is its), so the report carries its call stack.
  void at(LaunchSt &L, FindingKind kind, Severity sev, uint32_t pc, Tid who,
          std::string message, std::vector<Diagnostic> notes = {},
          std::string key = {}, bool current = false);
  // Renders the findings of this launch into `out` (in report order).
  void finish(LaunchSt &L);
  void set_host(HostContext h) { host_ = std::move(h); }
  const HostContext &host() const { return host_; }
  uint64_t created() const { return created_.load(std::memory_order_relaxed); }
  bool &hinted() { return hinted_; }

private:
  struct Pending {
    Finding f;
    std::vector<Diagnostic> notes;
  };
  std::vector<Finding> &out_;
  std::vector<Pending> pending_;
  std::map<std::tuple<int, uint32_t, uint32_t, std::string>, size_t> index_;
  // Race findings by kind, state space and the two instructions (the lower
  // pc first): what `index_` found for them by their source keys, so that
  // a further instance formats nothing.
  struct RaceKey {
    uint32_t pc_lo, pc_hi;
    uint8_t kind, space;
    bool operator==(const RaceKey &) const = default;
  };
  struct RaceKeyHash {
    size_t operator()(const RaceKey &k) const {
      uint64_t h = (uint64_t(k.pc_lo) << 32 | k.pc_hi) * 0x9e3779b97f4a7c15ull;
      return size_t(h ^ (h >> 29) ^ (uint64_t(k.kind) << 8 | k.space));
    }
  };
  std::unordered_map<RaceKey, size_t, RaceKeyHash> race_index_;
  bool hinted_ = false; // the -lineinfo note was given (once per checker)
  HostContext host_;
  std::atomic<uint64_t> created_{0}; // findings made (not instances)
};

// Helpers shared by the parts.
ThreadRef thread_ref(const LaunchSt &L, Tid t, uint64_t async_id = 0);
std::string thread_text(const ThreadRef &t);
// The address a finding states: for shared memory, offset `addr` of CTA
// `owner`'s memory as the program addresses it, in the slot of the CTA's
// cluster rank (rank r at r * 16 MiB, docs/clusters.md); other spaces'
// addresses as they are.
uint64_t program_address(const LaunchSt &L, StateSpace space, uint64_t owner,
                         uint64_t addr);
// The allocation holding a global address, with its origin.
std::optional<AllocationOrigin> allocation_of(const LaunchSt &L, uint64_t addr);
Site site_of(const LaunchSt &L, uint32_t pc, Tid t, std::string access,
             uint64_t async_id = 0);
// The call stack of thread `t`, which executes an instruction now (the
// event being observed is its): sites of its `call` instructions,
// innermost first; empty in the kernel's body.
std::vector<Site> call_stack_of(const LaunchSt &L, Tid t);

} // namespace bcusim::check::detail
