// Rules of asynchronous pipelines (docs/hopper.md "Checker rules for async
// pipelines"), from typed observer events:
// - proxy fences (race checks): a generic-proxy write to shared memory that
//   the async proxy then reads (a bulk copy shared -> global, and every
//   later async-proxy reader of shared memory) needs a `fence.proxy.async`
//   by the writing thread between the write and the read. PTX: "accessing
//   the same memory location across multiple proxies requires a
//   cross-proxy fence; for the async proxy, fence.proxy.async".
//   The reverse direction (async-proxy writes read by generic loads) is
//   ordered by the completion mechanism (the mbarrier wait or the bulk
//   group wait, which carries an implicit proxy fence): a read without
//   that wait is a race with the copy, which race.cpp reports.
// - transaction bytes (sync checks): per mbarrier phase, the bytes its
//   expect_tx announced and the bytes completed in it. A copy whose bytes
//   complete in a later phase than the one it was issued in means that
//   phase completed early (too few bytes announced); a phase that never
//   completes with unbalanced bytes is reported with both numbers (too
//   many announced, or copies completing more than announced). The phase
//   a copy was issued in: the phases of its mbarrier that had completed
//   when it was issued (issues and completions are numbered in order).
#include <algorithm>
#include <bit>
#include <string_view>

#include <fmt/format.h>

#include "report.h"

namespace bcusim::check::detail {

namespace {

Diagnostic note(SourceLoc loc, std::string msg) {
  Diagnostic n;
  n.severity = Severity::Note;
  n.loc = loc;
  n.message = std::move(msg);
  return n;
}

uint64_t mbar_key(uint64_t owner, uint64_t offset) {
  return owner << 32 | (offset & 0xffffffffu);
}

std::string mbar_name(const LaunchSt &L, uint64_t key) {
  uint64_t off = key & 0xffffffffu;
  std::string obj = L.view ? L.view->describe(StateSpace::Shared, off) : "";
  return fmt::format("the mbarrier at shared address {:#x}{}",
                     program_address(L, StateSpace::Shared, key >> 32, off),
                     obj.empty() ? "" : " (" + obj + ")");
}

std::string text(const LaunchSt &L, uint32_t pc) {
  return L.view ? std::string(L.view->text(pc)) : "";
}

// fence.proxy.async and its .shared::cta / .shared::cluster forms order
// the generic and the async proxy for shared memory; .global, .alias,
// async::generic and tensormap::generic do not.
bool orders_shared(std::string_view text) {
  const size_t at = text.find("proxy.async");
  if (at == std::string_view::npos)
    return false;
  std::string_view rest = text.substr(at + 11);
  const size_t end = rest.find_first_of(" \t;");
  rest = rest.substr(0, end);
  return !rest.starts_with("::") && rest.find(".global") == rest.npos;
}

} // namespace

void proxy_access(LaunchSt &L, const AccessEvent &e) {
  if (e.space != StateSpace::Shared || e.atom == engine::AtomicOp::Mbarrier ||
      !e.lanes || !e.addr)
    return;
  ProxySt &P = L.proxy;
  // wgmma's descriptor reads are instruction reads of the async proxy.
  const bool wgmma = e.origin == engine::AccessOrigin::Instruction &&
                     e.async_proxy && e.type == engine::AccessType::Read;
  const bool async_proxy = e.origin == engine::AccessOrigin::BulkCopy || wgmma;
  if (e.origin == engine::AccessOrigin::Instruction && !wgmma) {
    if (e.type == engine::AccessType::Read)
      return;
    // The owner's words: remembered from its last write; a retired CTA's
    // vector is reused.
    if (P.last_owner != e.owner || !P.last_words) {
      auto &w = P.words[e.owner];
      if (w.empty()) {
        w.swap(P.spare);
        w.assign(size_t(L.shared_bytes) / 4 + 1, ProxySt::Word{});
      }
      P.last_owner = e.owner;
      P.last_words = &w;
    }
    auto &w = *P.last_words;
    // Threads that executed no proxy fence (every thread of a launch
    // without one) count 0 fences without a lookup.
    const bool fenced = !P.fences.empty();
    const Tid tid0 = L.tid_of(e.cta, e.warp, 0);
    const uint32_t pc = e.pc, size = e.size;
    ProxySt::Word *const wd = w.data();
    const uint64_t n = w.size();
    // A whole warp's store of 4 or 8 bytes per lane to consecutive,
    // 4-byte-aligned words (a tile's or an array's fill), by threads that
    // executed no proxy fence: the words in order, as lane by lane.
    if (!fenced && e.lanes == ~0u && (size == 4 || size == 8)) {
      const uint64_t a0 = e.addr[0], k = size / 4;
      uint64_t d = a0 & 3;
      for (uint32_t l = 1; l < 32; ++l)
        d |= e.addr[l] ^ (a0 + uint64_t(l) * size);
      if (!d && a0 / 4 + 32 * k <= n) {
        ProxySt::Word *const p = wd + a0 / 4;
        for (uint32_t l = 0; l < 32; ++l)
          for (uint64_t j = 0; j < k; ++j)
            p[l * k + j] = {tid0 + l, pc, 0};
        return;
      }
    }
    for (uint32_t m = e.lanes; m; m &= m - 1) {
      const uint32_t lane = uint32_t(std::countr_zero(m));
      const Tid tid = tid0 + lane;
      uint32_t fences = 0;
      if (fenced) [[unlikely]] {
        auto f = P.fences.find(tid);
        fences = f == P.fences.end() ? 0 : f->second;
      }
      const uint64_t a = e.addr[lane];
      if ((a & 3) + size <= 4 && size) {
        // One word (every aligned access up to 4 bytes).
        if (a / 4 < n)
          wd[a / 4] = {tid, pc, fences};
        continue;
      }
      const uint64_t last = (a + size - 1) / 4;
      for (uint64_t i = a / 4; i <= last && i < n; ++i)
        wd[i] = {tid, pc, fences};
    }
    return;
  }
  if (!async_proxy)
    return;
  auto it = P.words.find(e.owner);
  if (it == P.words.end())
    return;
  auto &w = it->second;
  if (e.type != engine::AccessType::Read) {
    // The bytes now come from the async proxy.
    const uint64_t a = e.addr[std::countr_zero(e.lanes)];
    const uint64_t end = std::min<uint64_t>((a + e.size + 3) / 4, w.size());
    for (uint64_t i = a / 4; i < end; ++i)
      w[i].tid = kNoTid;
    return;
  }
  // One report per async-proxy instruction (its instances count the
  // unfenced writes' instructions per copy; for wgmma, whose reads come in
  // several events, per issuing warp).
  std::vector<uint32_t> seen;
  const uint32_t first = uint32_t(std::countr_zero(e.lanes));
  const Tid issuer = L.tid_of(e.cta, e.warp, first);
  for (uint32_t m = e.lanes; m; m &= m - 1) {
    const uint32_t lane = uint32_t(std::countr_zero(m));
    const uint64_t a = e.addr[lane];
    const uint64_t end = std::min<uint64_t>((a + e.size + 3) / 4, w.size());
    for (uint64_t i = a / 4; i < end; ++i) {
      const ProxySt::Word &x = w[i];
      if (x.tid == kNoTid)
        continue;
      auto f = P.fences.find(x.tid);
      if ((f == P.fences.end() ? 0 : f->second) != x.fences)
        continue; // the writer fenced after the write
      if (std::find(seen.begin(), seen.end(), x.pc) != seen.end())
        continue;
      seen.push_back(x.pc);
      if (wgmma && !P.wgmma_seen.insert({e.cta, e.warp, e.pc, x.pc}).second)
        continue;
      std::vector<Diagnostic> notes;
      if (L.view)
        notes.push_back(note(L.view->ptx_loc(x.pc),
                             fmt::format("the generic-proxy write: '{}' by {}",
                                         text(L, x.pc),
                                         thread_text(thread_ref(L, x.tid)))));
      std::string what =
          L.view ? L.view->describe(StateSpace::Shared, i * 4) : std::string();
      L.findings->at(
          L, FindingKind::ProxyFence, Severity::Error, e.pc, issuer,
          fmt::format(
              "missing proxy fence: '{}' reads shared memory{} (address "
              "{:#x}) through the async proxy, but {} wrote it through the "
              "generic proxy ('{}') and executed no fence.proxy.async "
              "between that write and this {} (PTX: accessing the same "
              "memory location across proxies requires a cross-proxy fence; "
              "for the async proxy, fence.proxy.async, by the writing thread "
              "before the barrier that orders it with the issuing thread)",
              text(L, e.pc), what.empty() ? "" : " " + what, i * 4,
              thread_text(thread_ref(L, x.tid)), text(L, x.pc),
              wgmma ? "wgmma" : "copy"),
          std::move(notes), "proxy");
    }
  }
}

void proxy_words_end(LaunchSt &L, uint64_t cta) {
  ProxySt &P = L.proxy;
  auto it = P.words.find(cta);
  if (it == P.words.end())
    return;
  if (P.last_words == &it->second)
    P.last_words = nullptr;
  if (P.spare.capacity() < it->second.capacity())
    P.spare.swap(it->second);
  P.words.erase(it);
}

void proxy_fence(LaunchSt &L, const engine::FenceEvent &e) {
  if (!e.proxy || !L.view || !orders_shared(L.view->text(e.pc)))
    return;
  for (uint32_t m = e.lanes; m; m &= m - 1)
    ++L.proxy.fences[L.tid_of(e.cta, e.warp, uint32_t(std::countr_zero(m)))];
}

void proxy_async_issue(LaunchSt &L, const engine::AsyncIssueEvent &e) {
  if (!L.checks.sync || e.what != engine::AsyncKind::BulkMbarrierTx)
    return;
  const Tid tid = L.tid_of(e.cta, e.warp, uint32_t(std::countr_zero(e.lanes)));
  L.proxy.issued[uint64_t(tid) << 32 ^ (e.async_id & 0xffffffffu)] =
      L.proxy.seq++;
}

void proxy_expect_tx(LaunchSt &L, const engine::MbarEvent &e, bool arrive) {
  if (!L.checks.sync || (arrive && e.tx == 0) || e.async_id)
    return;
  ProxySt::Tx &t =
      L.proxy.tx[mbar_key(e.object_owner, e.object_offset)].phases[e.phase];
  t.expected += e.tx;
  if (t.expect_pc == ~0u) {
    t.expect_pc = e.pc;
    t.expect_tid =
        L.tid_of(e.cta, e.warp, uint32_t(std::countr_zero(e.lanes | 0u)));
  }
}

void proxy_complete_tx(LaunchSt &L, const engine::MbarEvent &e) {
  if (!L.checks.sync)
    return;
  const uint64_t key = mbar_key(e.object_owner, e.object_offset);
  ProxySt::Mbar &mb = L.proxy.tx[key];
  ProxySt::Tx &now = mb.phases[e.phase];
  now.completed += e.tx;
  if (!e.async_id)
    return;
  const Tid tid = L.tid_of(e.cta, e.warp, uint32_t(std::countr_zero(e.lanes)));
  if (now.copy_pc == ~0u) {
    now.copy_pc = e.pc;
    now.copy_tid = tid;
  }
  auto it =
      L.proxy.issued.find(uint64_t(tid) << 32 ^ (e.async_id & 0xffffffffu));
  if (it == L.proxy.issued.end())
    return;
  const uint64_t at = it->second;
  L.proxy.issued.erase(it);
  // The phase it was issued in: the phases completed before its issue.
  const auto &c = mb.completed_at;
  const uint64_t issued_in =
      uint64_t(std::lower_bound(c.begin(), c.end(), at) - c.begin());
  if (issued_in >= e.phase)
    return;
  now.late += e.tx;
  const ProxySt::Tx &early = mb.phases[issued_in];
  std::vector<Diagnostic> notes;
  if (L.view && early.expect_pc != ~0u)
    notes.push_back(note(
        L.view->ptx_loc(early.expect_pc),
        fmt::format("phase {}'s expect_tx: '{}' ({} bytes announced in all)",
                    issued_in, text(L, early.expect_pc), early.expected)));
  L.findings->at(
      L, FindingKind::SyncMisuse, Severity::Error, e.pc, tid,
      fmt::format(
          "mbarrier transaction count too small: the copy '{}' was issued in "
          "phase {} of {}, but its {} bytes complete in phase {}: phase {} "
          "completed before the copy's bytes arrived (expect_tx announced {} "
          "bytes for it), so threads that waited for phase {} may read the "
          "copy's destination before it is written, and phase {}'s tx-count "
          "is off by {} bytes (PTX: the phase completes when the pending "
          "arrivals and the tx-count both reach zero)",
          text(L, e.pc), issued_in, mbar_name(L, key), e.tx, e.phase, issued_in,
          early.expected, issued_in, e.phase, e.tx),
      std::move(notes), "tx-early");
}

void proxy_mbar_init(LaunchSt &L, const engine::MbarEvent &e) {
  L.proxy.tx.erase(mbar_key(e.object_owner, e.object_offset));
}

void proxy_phase_complete(LaunchSt &L, const engine::MbarEvent &e) {
  if (!L.checks.sync)
    return;
  ProxySt::Mbar &mb = L.proxy.tx[mbar_key(e.object_owner, e.object_offset)];
  mb.phases[e.phase].done = true;
  if (mb.completed_at.size() <= e.phase)
    mb.completed_at.resize(e.phase + 1, L.proxy.seq);
  mb.completed_at[e.phase] = L.proxy.seq++;
  // Keep the last few phases (a late copy names the phase it was issued in).
  while (!mb.phases.empty() && mb.phases.begin()->first + 4 < e.phase)
    mb.phases.erase(mb.phases.begin());
}

void proxy_cta_end(LaunchSt &L, uint64_t cta, bool all) {
  if (!L.checks.sync)
    return;
  for (auto it = L.proxy.tx.begin(); it != L.proxy.tx.end();) {
    if (!all && it->first >> 32 != cta) {
      ++it;
      continue;
    }
    for (auto &[phase, t] : it->second.phases) {
      // A phase that late copies of an earlier phase unbalanced: that
      // phase's early completion is the finding.
      // Only phases that copies completed bytes on: the engine reports
      // misuse of expect_tx / complete_tx by instructions alone itself.
      if (t.done || t.expected == t.completed || t.late || t.copy_pc == ~0u)
        continue;
      const bool too_many = t.expected > t.completed;
      const uint32_t pc = t.expect_pc != ~0u ? t.expect_pc : t.copy_pc;
      const Tid who = t.expect_pc != ~0u ? t.expect_tid : t.copy_tid;
      std::vector<Diagnostic> notes;
      if (L.view && t.copy_pc != ~0u && t.copy_pc != pc)
        notes.push_back(note(
            L.view->ptx_loc(t.copy_pc),
            fmt::format("a copy completing on it: '{}'", text(L, t.copy_pc))));
      L.findings->at(
          L, FindingKind::SyncMisuse, Severity::Error, pc, who,
          fmt::format(
              "mbarrier transaction count mismatch: phase {} of {} never "
              "completes: expect_tx announced {} bytes, the copies completed "
              "{} bytes (tx-count {}): {}",
              phase, mbar_name(L, it->first), t.expected, t.completed,
              t.expected - t.completed,
              too_many ? "more bytes announced than the copies bring, so the "
                         "phase waits for bytes no copy will complete"
                       : "the copies complete more bytes than announced, so "
                         "the tx-count went below zero and stays there"),
          std::move(notes), fmt::format("tx-hang:{}", phase));
    }
    it = L.proxy.tx.erase(it);
  }
}

} // namespace bcusim::check::detail
