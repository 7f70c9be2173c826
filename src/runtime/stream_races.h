// Races between work items of different streams (docs/checker.md
// "Streams"). Internal to src/runtime: the runtime puts it in front of the
// checker as the launch's observer while the program uses several streams;
// it forwards every event to the checker and records the global-memory
// footprint of each work item (kernel, copy, memset), checking it against
// the footprints of earlier work items that StreamOrder does not order
// before it.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bcusim/check/checker.h"
#include "bcusim/check/footprint.h"
#include "bcusim/engine/engine.h"
#include "bcusim/engine/observer.h"
#include "bcusim/runtime/streams.h"

namespace bcusim::runtime::detail {

class StreamRaces final : public engine::Observer {
public:
  explicit StreamRaces(check::Checker &checker) : checker_(checker) {}

  // A kernel work item: its launch's events come next; end() after it.
  void begin_kernel(StreamOrder::Work w, std::string stream_name,
                    uint64_t launch_index);
  // A copy or memset: `api` ("cudaMemcpyAsync") is its "thread"; then
  // host_access() for each range it reads or writes, then end().
  void begin_host(StreamOrder::Work w, std::string stream_name, std::string api,
                  uint64_t launch_index, const engine::Device *dev = nullptr);
  void host_access(uint64_t addr, uint64_t bytes, bool write);
  // Stores the work item's footprint and hands its findings to the
  // checker.
  void end(const StreamOrder &order);

  // engine::Observer: forwarded to the checker.
  bool wants_accesses() const override { return true; }
  bool concurrent() const override { return false; }
  void on_launch_begin(const engine::LaunchView &v) override;
  void on_access(const engine::AccessEvent &e) override;
  void on_cta_begin(const engine::CtaEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_cta_begin(e);
  }
  void on_cta_end(const engine::CtaEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_cta_end(e);
  }
  void on_thread_exit(const engine::ThreadEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_thread_exit(e);
  }
  void on_frame_end(const engine::AccessEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_frame_end(e);
  }
  void on_fence(const engine::FenceEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_fence(e);
  }
  void on_barrier_arrive(const engine::BarrierArriveEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_barrier_arrive(e);
  }
  void on_barrier_complete(const engine::BarrierCompleteEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_barrier_complete(e);
  }
  void on_barrier_resume(const engine::BarrierResumeEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_barrier_resume(e);
  }
  void on_warp_sync(const engine::WarpSyncEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_warp_sync(e);
  }
  void on_elect(const engine::WarpSyncEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_elect(e);
  }
  void on_wgmma_fence(const engine::ThreadEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_wgmma_fence(e);
  }
  void on_wgmma_issue(const engine::WgmmaEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_wgmma_issue(e);
  }
  void on_wgmma_commit(const engine::WgmmaEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_wgmma_commit(e);
  }
  void on_wgmma_wait(const engine::WgmmaEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_wgmma_wait(e);
  }
  void on_cluster_arrive(const engine::ClusterEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_cluster_arrive(e);
  }
  void on_cluster_complete(const engine::ClusterEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_cluster_complete(e);
  }
  void on_cluster_resume(const engine::ClusterEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_cluster_resume(e);
  }
  void on_mbar_init(const engine::MbarEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_mbar_init(e);
  }
  void on_mbar_inval(const engine::MbarEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_mbar_inval(e);
  }
  void on_mbar_arrive(const engine::MbarEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_mbar_arrive(e);
  }
  void on_mbar_expect_tx(const engine::MbarEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_mbar_expect_tx(e);
  }
  void on_mbar_complete_tx(const engine::MbarEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_mbar_complete_tx(e);
  }
  void on_mbar_phase_complete(const engine::MbarEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_mbar_phase_complete(e);
  }
  void on_mbar_wait_done(const engine::MbarEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_mbar_wait_done(e);
  }
  void on_async_issue(const engine::AsyncIssueEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_async_issue(e);
  }
  void on_async_commit(const engine::AsyncCommitEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_async_commit(e);
  }
  void on_async_wait(const engine::AsyncWaitEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_async_wait(e);
  }
  void on_async_complete(const engine::AsyncCompleteEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_async_complete(e);
  }
  void on_grid_sync(const engine::ThreadEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_grid_sync(e);
  }
  void on_griddep_launch(const engine::ThreadEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_griddep_launch(e);
  }
  void on_griddep_wait(const engine::ThreadEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_griddep_wait(e);
  }
  void on_device_launch(const engine::DeviceLaunchEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_device_launch(e);
  }
  void on_device_stream_event(const engine::DeviceStreamEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_device_stream_event(e);
  }
  void on_child_grid_begin(const engine::ChildGridEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_child_grid_begin(e);
  }
  void on_child_grid_end(const engine::ChildGridEvent &e) override {
    static_cast<engine::Observer &>(checker_).on_child_grid_end(e);
  }
  void on_launch_end(const engine::LaunchView &v) override;

  // Work items kept (at most kMaxItems; older ones are dropped).
  static constexpr size_t kMaxItems = 256;
  size_t items() const { return items_.size(); }

  struct Item;
  // A kernel that yielded to other work while it ran (Session::detach):
  // the observer that takes over for later work starts with this one's
  // earlier work items (copy_history); finish() ends the kernel's item as
  // end() does but hands it back, and adopt() checks it against the work
  // items that are not ordered with it (those that ran while it waited
  // included) before keeping it.
  void copy_history(const StreamRaces &from);
  std::unique_ptr<Item> finish(const StreamOrder &order);
  void adopt(std::unique_ptr<Item> item, const StreamOrder &order);

private:
  using Kind = check::GridAccess;
  using Span = check::Footprint::Span;

public:
  struct Item {
    StreamOrder::Work work;
    std::string stream_name, kernel, api;
    uint64_t launch = 0;
    check::Footprint spans; // sites index `sites`
    std::vector<check::Site> sites;
    std::map<std::pair<uint32_t, int>, uint32_t> site_of; // (pc, kind)
  };

private:
  void flush_pending();
  void prune(const StreamOrder &order);
  void begin(StreamOrder::Work w, std::string stream_name, uint64_t launch);
  void access(uint64_t a, uint64_t b, Kind k, uint32_t site);
  uint32_t site(uint32_t pc, Kind k, const engine::AccessEvent *e);
  void report(const Item &earlier, const Span &es, Kind ek, uint64_t addr,
              uint32_t later_site, Kind lk);
  std::string who(const Item &it, const check::Site &s) const;
  std::string describe(uint64_t addr) const;

  check::Checker &checker_;
  const engine::LaunchView *view_ = nullptr;
  const engine::Device *dev_ = nullptr; // names addresses of host work
  std::unique_ptr<Item> cur_;
  std::vector<const Item *> concurrent_;
  std::deque<std::unique_ptr<Item>> items_;
  std::vector<check::Finding> pending_;
  std::map<std::tuple<uint64_t, uint32_t, uint32_t>, size_t> index_;
};

} // namespace bcusim::runtime::detail
