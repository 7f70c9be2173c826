// Names of the observer interface's enumerations (observer.h).
#include "bcusim/engine/observer.h"

#include <memory>
#include <vector>

namespace bcusim::engine {

std::string_view name_of(StateSpace s) {
  switch (s) {
  case StateSpace::Global:
    return "global";
  case StateSpace::Shared:
    return "shared";
  case StateSpace::Local:
    return "local";
  case StateSpace::Param:
    return "param";
  case StateSpace::Const:
    return "const";
  }
  return "?";
}

std::string_view name_of(MemOrder o) {
  switch (o) {
  case MemOrder::Weak:
    return "weak";
  case MemOrder::Volatile:
    return "volatile";
  case MemOrder::Relaxed:
    return "relaxed";
  case MemOrder::Acquire:
    return "acquire";
  case MemOrder::Release:
    return "release";
  case MemOrder::AcqRel:
    return "acq_rel";
  case MemOrder::Sc:
    return "sc";
  }
  return "?";
}

std::string_view name_of(MemScope s) {
  switch (s) {
  case MemScope::None:
    return "none";
  case MemScope::Cta:
    return "cta";
  case MemScope::Cluster:
    return "cluster";
  case MemScope::Gpu:
    return "gpu";
  case MemScope::Sys:
    return "sys";
  }
  return "?";
}

std::string_view name_of(AtomicOp o) {
  static const char *const names[] = {"none", "add",  "min", "max",
                                      "inc",  "dec",  "and", "or",
                                      "xor",  "exch", "cas", "mbarrier"};
  return names[static_cast<int>(o)];
}

std::string_view name_of(AsyncKind k) {
  switch (k) {
  case AsyncKind::Copy:
    return "copy";
  case AsyncKind::BulkGroupCopy:
    return "bulk-group-copy";
  case AsyncKind::ArriveOn:
    return "arrive-on";
  case AsyncKind::BulkMbarrierTx:
    return "bulk-mbarrier-tx";
  }
  return "?";
}

namespace detail {
namespace {

// LaunchConfig::observers as one observer.
class FanOut final : public Observer {
public:
  explicit FanOut(std::vector<Observer *> list) : all_(std::move(list)) {
    for (Observer *o : all_)
      if (o->wants_accesses())
        accesses_.push_back(o);
  }
  bool wants_accesses() const override { return !accesses_.empty(); }
  bool concurrent() const override {
    for (Observer *o : all_)
      if (!o->concurrent())
        return false;
    return true;
  }
  void on_launch_begin(const LaunchView &v) override {
    each(&Observer::on_launch_begin, v);
  }
  void on_launch_end(const LaunchView &v) override {
    each(&Observer::on_launch_end, v);
  }
  void on_cta_begin(const CtaEvent &e) override {
    each(&Observer::on_cta_begin, e);
  }
  void on_cta_end(const CtaEvent &e) override {
    each(&Observer::on_cta_end, e);
  }
  void on_thread_exit(const ThreadEvent &e) override {
    each(&Observer::on_thread_exit, e);
  }
  void on_access(const AccessEvent &e) override {
    for (Observer *o : accesses_)
      o->on_access(e);
  }
  void on_frame_end(const AccessEvent &e) override {
    for (Observer *o : accesses_)
      o->on_frame_end(e);
  }
  void on_fence(const FenceEvent &e) override { each(&Observer::on_fence, e); }
  void on_barrier_arrive(const BarrierArriveEvent &e) override {
    each(&Observer::on_barrier_arrive, e);
  }
  void on_barrier_complete(const BarrierCompleteEvent &e) override {
    each(&Observer::on_barrier_complete, e);
  }
  void on_barrier_resume(const BarrierResumeEvent &e) override {
    each(&Observer::on_barrier_resume, e);
  }
  void on_warp_sync(const WarpSyncEvent &e) override {
    each(&Observer::on_warp_sync, e);
  }
  void on_elect(const WarpSyncEvent &e) override {
    each(&Observer::on_elect, e);
  }
  void on_wgmma_fence(const ThreadEvent &e) override {
    each(&Observer::on_wgmma_fence, e);
  }
  void on_wgmma_issue(const WgmmaEvent &e) override {
    each(&Observer::on_wgmma_issue, e);
  }
  void on_wgmma_commit(const WgmmaEvent &e) override {
    each(&Observer::on_wgmma_commit, e);
  }
  void on_wgmma_wait(const WgmmaEvent &e) override {
    each(&Observer::on_wgmma_wait, e);
  }
  void on_cluster_arrive(const ClusterEvent &e) override {
    each(&Observer::on_cluster_arrive, e);
  }
  void on_cluster_complete(const ClusterEvent &e) override {
    each(&Observer::on_cluster_complete, e);
  }
  void on_cluster_resume(const ClusterEvent &e) override {
    each(&Observer::on_cluster_resume, e);
  }
  void on_mbar_init(const MbarEvent &e) override {
    each(&Observer::on_mbar_init, e);
  }
  void on_mbar_inval(const MbarEvent &e) override {
    each(&Observer::on_mbar_inval, e);
  }
  void on_mbar_arrive(const MbarEvent &e) override {
    each(&Observer::on_mbar_arrive, e);
  }
  void on_mbar_expect_tx(const MbarEvent &e) override {
    each(&Observer::on_mbar_expect_tx, e);
  }
  void on_mbar_complete_tx(const MbarEvent &e) override {
    each(&Observer::on_mbar_complete_tx, e);
  }
  void on_mbar_phase_complete(const MbarEvent &e) override {
    each(&Observer::on_mbar_phase_complete, e);
  }
  void on_mbar_wait_done(const MbarEvent &e) override {
    each(&Observer::on_mbar_wait_done, e);
  }
  void on_async_issue(const AsyncIssueEvent &e) override {
    each(&Observer::on_async_issue, e);
  }
  void on_async_commit(const AsyncCommitEvent &e) override {
    each(&Observer::on_async_commit, e);
  }
  void on_async_wait(const AsyncWaitEvent &e) override {
    each(&Observer::on_async_wait, e);
  }
  void on_async_complete(const AsyncCompleteEvent &e) override {
    each(&Observer::on_async_complete, e);
  }
  void on_grid_sync(const ThreadEvent &e) override {
    each(&Observer::on_grid_sync, e);
  }
  void on_griddep_launch(const ThreadEvent &e) override {
    each(&Observer::on_griddep_launch, e);
  }
  void on_griddep_wait(const ThreadEvent &e) override {
    each(&Observer::on_griddep_wait, e);
  }
  void on_device_launch(const DeviceLaunchEvent &e) override {
    each(&Observer::on_device_launch, e);
  }
  void on_device_stream_event(const DeviceStreamEvent &e) override {
    each(&Observer::on_device_stream_event, e);
  }
  void on_child_grid_begin(const ChildGridEvent &e) override {
    each(&Observer::on_child_grid_begin, e);
  }
  void on_child_grid_end(const ChildGridEvent &e) override {
    each(&Observer::on_child_grid_end, e);
  }

private:
  template <class E> void each(void (Observer::*f)(const E &), const E &e) {
    for (Observer *o : all_)
      (o->*f)(e);
  }
  std::vector<Observer *> all_, accesses_;
};

} // namespace

std::unique_ptr<Observer> fan_out(std::vector<Observer *> list) {
  return std::make_unique<FanOut>(std::move(list));
}

} // namespace detail

} // namespace bcusim::engine
