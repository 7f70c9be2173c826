// The read log of a CTA's shared memory (docs/checker.md "Shadow memory",
// the read log).
//
// Between two barriers of the whole CTA, a tile is usually only read: every
// record in the CTA's shared-memory shadow is dead (below the dead floors
// the first barrier raised: race.cpp), so such a read can race with nothing
// recorded, and at the next such barrier it is dead too. While that holds
// (the CTA's shared memory is "clean": a barrier of the whole CTA raised
// its dead floors, LaunchSt::dead_ok, and nothing but logged reads reached
// it since), a warp's plain read that read_groups would take whole is
// appended to the CTA's log (its instruction, its lanes' layout and first
// granule, what the lanes knew) instead of being put into the granules.
//
// The log is replayed into the granules, in its order and with the
// knowledge it kept, exactly as read_groups would have put each read when it
// was made:
//   - before anything else reaches the CTA's shared memory (a write, an
//     atomic, a strong or asynchronous access, a read not logged): with the
//     history, so that the access is checked against every earlier read;
// It is dropped at the next barrier of the whole CTA: every read in it is
// dead then (it can race with nothing and is never kept aside), and a dead
// record leaves its cell as good as free for a thread's later accesses
// (race.cpp, access_granule), so the cells the reads would have left lead
// to the same reports as the cells before them. (A launch that issued an
// asynchronous copy since: replayed with its history, its records are no
// longer known dead.)
// A CTA whose log had to be replayed before its barrier twice logs no more
// (its reads and writes share epochs: a block reduction); a log of
// kLogMax reads is replayed so too (a table read in a long loop).

#include "state.h"

namespace bcusim::check::detail {

namespace {
// Epochs replayed before a CTA stops logging.
constexpr uint8_t kReplaysOff = 2;
// Reads a log holds at most: a longer epoch (a table read in a loop
// between two barriers) is replayed with its history and logs no more.
constexpr size_t kLogMax = 4096;

void replay(LaunchSt &L, CtaSt &c) {
  const LaunchSt::DeadFloors saved = L.dead_now;
  // (The floors the reads were logged under: they rise only at a barrier
  // of the whole CTA, which replays the log first.)
  L.dead_now = LaunchSt::DeadFloors{c.dead_floor.data(),
                                    uint32_t(c.linear * L.wpc), L.wpc};
  for (ReadLogEntry &x : c.rlog.log)
    readlog_replay(L, c, x);
  c.rlog.log.clear();
  L.dead_now = saved;
}
} // namespace

bool readlog_read(LaunchSt &L, CtaSt &owner, const AccessEvent &e,
                  uint32_t lanes, uint8_t flags, Tid tid0, const ThreadSt &ts,
                  uint32_t clock) {
  ReadLog &rl = owner.rlog;
  if (!L.dead_ok || rl.log.size() >= kLogMax)
    return false;
  const uint32_t layout = readlog_layout(rl, e, lanes);
  if (layout == ~0u)
    return false;
  ReadLogEntry &x = rl.log.emplace_back();
  x.vc = ts.vc;
  x.first = e.addr[std::countr_zero(lanes)] & ~7ull;
  x.layout = layout;
  x.pc = e.pc;
  x.tid0 = tid0;
  x.clock = clock;
  x.own_floor = ts.own_floor;
  x.size = uint16_t(std::min<uint32_t>(e.size, kSizeMax));
  x.flags = flags;
  return true;
}

void readlog_flush(LaunchSt &L, CtaSt &owner) {
  ReadLog &rl = owner.rlog;
  rl.on = false;
  if (rl.log.empty())
    return;
  if (rl.replays < kReplaysOff)
    ++rl.replays;
  replay(L, owner);
}

void readlog_barrier(LaunchSt &L, CtaSt &c) {
  ReadLog &rl = c.rlog;
  // An asynchronous copy issued since: the reads' records will not be known
  // dead (LaunchSt::dead_ok), so they keep their history.
  if (!rl.log.empty()) {
    if (L.dead_ok)
      rl.log.clear(); // every read in it dead from now on
    else
      replay(L, c);
  }
  rl.on = L.dead_ok && rl.replays < kReplaysOff;
}

} // namespace bcusim::check::detail
