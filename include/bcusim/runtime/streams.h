// The order of a program's work items (launches, copies, memsets) across
// CUDA streams (docs/checker.md "Streams"): a vector clock per stream,
// joined at events, stream waits, the legacy default stream's implicit
// synchronization and host synchronization. Execution is serial
// (docs/exec.md), so this order is what tells the race checker which work
// items could have run at the same time on a GPU.
//
//   StreamOrder o;
//   auto s1 = o.create(), s2 = o.create();
//   auto a = o.submit(s1);             // kernel A in stream 1
//   auto ev = o.record(s1);            // cudaEventRecord(ev, s1)
//   o.wait(s2, ev);                    // cudaStreamWaitEvent(s2, ev)
//   auto b = o.submit(s2);             // kernel B in stream 2
//   StreamOrder::before(a, b);         // true; without the wait: false
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace bcusim::runtime {

class StreamOrder {
public:
  using Stream = uint32_t;
  // By stream: how many of that stream's work items happen before.
  using Clock = std::vector<uint64_t>;
  // The legacy default stream (stream 0, cudaStreamLegacy).
  static constexpr Stream kLegacy = 0;

  // One work item: its stream, its 1-based position there, and what
  // happened before it began.
  struct Work {
    Stream stream = kLegacy;
    uint64_t seq = 0;
    Clock start;
  };

  StreamOrder();

  // A new stream (cudaStreamCreate); `blocking` false for
  // cudaStreamNonBlocking, which does not synchronize with the legacy
  // default stream.
  Stream create(bool blocking = true);
  // The calling host thread's per-thread default stream
  // (cudaStreamPerThread), made at its first use: a blocking stream.
  Stream per_thread();
  bool valid(Stream s) const { return s < streams_.size(); }
  bool blocking(Stream s) const;
  // "the default stream", "the per-thread default stream", "stream 2".
  std::string name(Stream s) const;
  // Whether more than the legacy default stream exists (only then can
  // work items be concurrent).
  bool several() const { return streams_.size() > 1; }

  // A work item begins on `s`.
  Work submit(Stream s);
  // cudaEventRecord(e, s): what an event recorded now on `s` covers.
  Clock record(Stream s);
  // cudaStreamWaitEvent(s, e): later work on `s` follows the event.
  void wait(Stream s, const Clock &event);
  // The host waited for an event (cudaEventSynchronize, a successful
  // cudaEventQuery), a stream (cudaStreamSynchronize, cudaStreamQuery, a
  // blocking copy) or the whole device (cudaDeviceSynchronize, cudaFree):
  // work submitted afterwards follows what it waited for.
  void host_wait(const Clock &event);
  void host_sync(Stream s);
  void host_sync_all();

  // Whether `a` happens before `b` (b began after a was ordered before it).
  static bool before(const Work &a, const Work &b);
  // Whether every work item submitted from now on follows `a`.
  bool settled(const Work &a) const;

private:
  struct St {
    Clock vc; // what the stream's next work item follows (incl. its own)
    bool blocking = true;
    bool per_thread = false;
  };
  static void join(Clock &into, const Clock &from);
  // The stream's clock including the implicit legacy synchronization.
  Clock effective(Stream s) const;
  std::vector<St> streams_;
  Clock host_;
  std::map<std::thread::id, Stream> per_thread_;
};

} // namespace bcusim::runtime
