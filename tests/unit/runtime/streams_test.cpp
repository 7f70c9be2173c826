// The order of work items across streams (include/bcusim/runtime/streams.h,
// docs/checker.md "Streams"), without a CUDA program.
#include <gtest/gtest.h>

#include "bcusim/runtime/streams.h"

using bcusim::runtime::StreamOrder;

TEST(StreamOrder, StreamOrderAndUnorderedStreams) {
  StreamOrder o;
  auto s1 = o.create(), s2 = o.create();
  auto a = o.submit(s1);
  auto b = o.submit(s1);
  auto c = o.submit(s2);
  EXPECT_TRUE(StreamOrder::before(a, b)); // stream order
  EXPECT_FALSE(StreamOrder::before(b, a));
  EXPECT_FALSE(StreamOrder::before(a, c)); // nothing orders them
  EXPECT_FALSE(StreamOrder::before(c, a));
  EXPECT_EQ(o.name(StreamOrder::kLegacy), "the default stream");
  EXPECT_EQ(o.name(s2), "stream 2");
}

TEST(StreamOrder, EventsOrderWhatWasRecorded) {
  StreamOrder o;
  auto s1 = o.create(), s2 = o.create();
  auto a = o.submit(s1);
  auto ev = o.record(s1);
  auto later = o.submit(s1); // after the record: not covered
  o.wait(s2, ev);
  auto b = o.submit(s2);
  EXPECT_TRUE(StreamOrder::before(a, b));
  EXPECT_FALSE(StreamOrder::before(later, b));
  // An event recorded before any work covers nothing.
  StreamOrder p;
  auto t1 = p.create(), t2 = p.create();
  auto empty = p.record(t1);
  auto x = p.submit(t1);
  p.wait(t2, empty);
  EXPECT_FALSE(StreamOrder::before(x, p.submit(t2)));
}

TEST(StreamOrder, HostSynchronization) {
  StreamOrder o;
  auto s1 = o.create(), s2 = o.create(), s3 = o.create();
  auto a = o.submit(s1);
  EXPECT_FALSE(o.settled(a));
  o.host_sync(s1); // cudaStreamSynchronize(s1)
  EXPECT_TRUE(o.settled(a));
  EXPECT_TRUE(StreamOrder::before(a, o.submit(s2)));
  auto b = o.submit(s2);
  auto ev = o.record(s2);
  o.host_wait(ev); // cudaEventSynchronize
  EXPECT_TRUE(StreamOrder::before(b, o.submit(s3)));
  auto c = o.submit(s3);
  o.host_sync_all(); // cudaDeviceSynchronize
  EXPECT_TRUE(o.settled(c));
}

TEST(StreamOrder, LegacyDefaultStreamSynchronizesBlockingStreams) {
  StreamOrder o;
  auto s1 = o.create(), s2 = o.create();
  auto nb = o.create(false); // cudaStreamNonBlocking
  auto a = o.submit(s1);
  auto n = o.submit(nb);
  auto d = o.submit(StreamOrder::kLegacy);
  EXPECT_TRUE(StreamOrder::before(a, d));  // legacy waits for s1
  EXPECT_FALSE(StreamOrder::before(n, d)); // but not for a non-blocking one
  auto b = o.submit(s2);
  EXPECT_TRUE(StreamOrder::before(d, b)); // s2 waits for the legacy stream
  EXPECT_TRUE(StreamOrder::before(a, b));
  auto m = o.submit(nb);
  EXPECT_FALSE(StreamOrder::before(d, m));
  // The per-thread default stream is a blocking stream of its own.
  auto pt = o.per_thread();
  EXPECT_EQ(pt, o.per_thread());
  EXPECT_EQ(o.name(pt), "the per-thread default stream");
  auto x = o.submit(s1);
  auto y = o.submit(pt);
  EXPECT_FALSE(StreamOrder::before(x, y));
}
