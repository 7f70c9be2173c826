// The progress line of long launches (include/bcusim/check/output.h).
#include "bcusim/check/output.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>

namespace bcusim::check {

struct Progress::Impl {
  const Checker *checker = nullptr;
  double after_s = 2;
  const engine::LaunchView *view = nullptr;
  std::string kernel;
  uint64_t ctas = 0;
  std::atomic<uint64_t> done{0};
  uint64_t findings_before = 0;
  std::chrono::steady_clock::time_point start;
  std::thread thread;
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false, drawn = false;
};

Progress::Progress(const Checker *checker, double after_s)
    : impl_(std::make_unique<Impl>()) {
  impl_->checker = checker;
  impl_->after_s = after_s;
}

Progress::~Progress() {
  if (impl_->thread.joinable()) {
    {
      std::lock_guard<std::mutex> g(impl_->mu);
      impl_->stop = true;
    }
    impl_->cv.notify_all();
    impl_->thread.join();
  }
}

bool Progress::wanted() { return isatty(STDERR_FILENO) == 1; }

std::string Progress::line(double elapsed_s) const {
  const Impl &m = *impl_;
  const uint64_t steps = m.view ? m.view->thread_steps() : 0;
  const double rate = elapsed_s > 0 ? double(steps) / elapsed_s : 0;
  std::string r = rate >= 1e9   ? fmt::format("{:.1f} G", rate / 1e9)
                  : rate >= 1e6 ? fmt::format("{:.1f} M", rate / 1e6)
                  : rate >= 1e3 ? fmt::format("{:.1f} k", rate / 1e3)
                                : fmt::format("{:.0f}", rate);
  std::string line = fmt::format(
      "bcusim: {}: {} of {} CTAs done, {} thread-instructions/s, {:.0f} s",
      demangle(m.kernel), m.done.load(), m.ctas, r, elapsed_s);
  if (m.checker)
    line += fmt::format(
        ", {} finding{} so far",
        m.checker->findings_so_far() - m.findings_before,
        m.checker->findings_so_far() - m.findings_before == 1 ? "" : "s");
  return line;
}

void Progress::on_launch_begin(const engine::LaunchView &v) {
  Impl &m = *impl_;
  if (m.thread.joinable()) // a launch that did not end (defensive)
    on_launch_end(v);
  m.view = &v;
  m.kernel = std::string(v.kernel());
  m.ctas = v.grid().count();
  m.done = 0;
  m.findings_before = m.checker ? m.checker->findings_so_far() : 0;
  m.start = std::chrono::steady_clock::now();
  m.stop = false;
  m.drawn = false;
  m.thread = std::thread([this] {
    Impl &m = *impl_;
    std::unique_lock<std::mutex> g(m.mu);
    auto next = m.start +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(m.after_s));
    while (!m.stop) {
      if (m.cv.wait_until(g, next, [&] { return m.stop; }))
        break;
      double el = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - m.start)
                      .count();
      std::fputs(("\r\033[K" + line(el)).c_str(), stderr);
      std::fflush(stderr);
      m.drawn = true;
      next = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
    }
  });
}

void Progress::on_cta_end(const engine::CtaEvent &) {
  impl_->done.fetch_add(1, std::memory_order_relaxed);
}

void Progress::on_launch_end(const engine::LaunchView &) {
  Impl &m = *impl_;
  {
    std::lock_guard<std::mutex> g(m.mu);
    m.stop = true;
  }
  m.cv.notify_all();
  if (m.thread.joinable())
    m.thread.join();
  if (m.drawn) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
  m.view = nullptr;
}

} // namespace bcusim::check
