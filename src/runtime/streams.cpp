// Happens-before across streams (include/bcusim/runtime/streams.h,
// docs/checker.md "Streams").
#include "bcusim/runtime/streams.h"

#include <algorithm>

#include <fmt/format.h>

namespace bcusim::runtime {

StreamOrder::StreamOrder() { streams_.push_back(St{}); }

StreamOrder::Stream StreamOrder::create(bool blocking) {
  St s;
  s.blocking = blocking;
  streams_.push_back(std::move(s));
  return Stream(streams_.size() - 1);
}

StreamOrder::Stream StreamOrder::per_thread() {
  auto id = std::this_thread::get_id();
  auto it = per_thread_.find(id);
  if (it != per_thread_.end())
    return it->second;
  Stream s = create(true);
  streams_[s].per_thread = true;
  per_thread_[id] = s;
  return s;
}

bool StreamOrder::blocking(Stream s) const {
  return valid(s) && streams_[s].blocking;
}

std::string StreamOrder::name(Stream s) const {
  if (s == kLegacy)
    return "the default stream";
  if (valid(s) && streams_[s].per_thread)
    return "the per-thread default stream";
  return fmt::format("stream {}", s);
}

void StreamOrder::join(Clock &into, const Clock &from) {
  if (into.size() < from.size())
    into.resize(from.size(), 0);
  for (size_t i = 0; i < from.size(); ++i)
    into[i] = std::max(into[i], from[i]);
}

// Work in the legacy default stream waits for every blocking stream's
// earlier work; work in a blocking stream waits for the legacy stream's.
StreamOrder::Clock StreamOrder::effective(Stream s) const {
  Clock c = streams_[s].vc;
  if (s == kLegacy) {
    for (size_t t = 1; t < streams_.size(); ++t)
      if (streams_[t].blocking)
        join(c, streams_[t].vc);
  } else if (streams_[s].blocking) {
    join(c, streams_[kLegacy].vc);
  }
  return c;
}

StreamOrder::Work StreamOrder::submit(Stream s) {
  if (!valid(s))
    s = kLegacy;
  Clock c = effective(s);
  join(c, host_);
  if (c.size() <= s)
    c.resize(s + 1, 0);
  Work w;
  w.stream = s;
  w.seq = c[s] + 1;
  w.start = c;
  c[s] = w.seq;
  streams_[s].vc = std::move(c);
  return w;
}

StreamOrder::Clock StreamOrder::record(Stream s) {
  if (!valid(s))
    s = kLegacy;
  Clock c = effective(s);
  join(c, host_);
  return c;
}

void StreamOrder::wait(Stream s, const Clock &event) {
  if (valid(s))
    join(streams_[s].vc, event);
}

void StreamOrder::host_wait(const Clock &event) { join(host_, event); }

void StreamOrder::host_sync(Stream s) {
  if (valid(s))
    join(host_, effective(s));
}

void StreamOrder::host_sync_all() {
  for (const St &s : streams_)
    join(host_, s.vc);
}

bool StreamOrder::before(const Work &a, const Work &b) {
  return a.stream < b.start.size() && b.start[a.stream] >= a.seq;
}

bool StreamOrder::settled(const Work &a) const {
  return a.stream < host_.size() && host_[a.stream] >= a.seq;
}

} // namespace bcusim::runtime
