// Uninitialized reads (docs/checker.md "Uninitialized reads"): a bit per
// byte of every CTA's shared memory and every thread's local memory says
// whether anything in the launch wrote it; a read of bytes without it is
// reported once per instruction (a read that finds some bytes of an
// aligned 8-byte piece written and others not reads padding: not reported).
// Atomics read (except exch and mbarrier operations, whose old value is not the
// point: mbarrier.init writes the object) and write.
#include <algorithm>
#include <bit>

#include "report.h"

namespace bcusim::check::detail {

namespace {

// The bits set in `x` (a table of nibbles: std::popcount is a library
// call on the base instruction set).
inline uint32_t bits_in(uint8_t x) {
  static constexpr uint8_t kNibble[16] = {0, 1, 1, 2, 1, 2, 2, 3,
                                          1, 2, 2, 3, 2, 3, 3, 4};
  return kNibble[x & 15] + kNibble[x >> 4];
}

// Whether bytes [first, first + count) are all initialized; `set` marks
// them (and takes the bits it sets from `*unset`).
bool test_and_report(std::vector<uint8_t> &bits, uint64_t first, uint64_t count,
                     bool set, uint64_t *unset = nullptr) {
  if ((first & 7) + count <= 8 && first / 8 < bits.size()) {
    // Within one byte of the bitmap (every aligned access up to 8 bytes).
    uint8_t &byte = bits[first / 8];
    const uint8_t m = uint8_t(((1u << count) - 1) << (first & 7));
    const bool all = (byte & m) == m;
    if (set) {
      if (unset)
        *unset -= bits_in(uint8_t(m & ~byte));
      byte |= m;
    }
    return all;
  }
  bool all = true;
  for (uint64_t b = first; b < first + count; ++b) {
    if (b / 8 >= bits.size())
      return all;
    uint8_t &byte = bits[b / 8];
    uint8_t bit = uint8_t(1u << (b % 8));
    if (!(byte & bit)) {
      all = false;
      if (set && unset)
        --*unset;
    }
    if (set)
      byte |= bit;
  }
  return all;
}

// Whether every byte of [lo, hi) is marked in `bits`.
bool span_initialized(const std::vector<uint8_t> &bits, uint64_t lo,
                      uint64_t hi) {
  if (hi <= lo || (hi - 1) / 8 >= bits.size())
    return false;
  const uint64_t first = lo / 8, last = (hi - 1) / 8;
  const uint8_t head = uint8_t(0xffu << (lo % 8));
  const uint8_t tail = uint8_t(0xffu >> (7 - (hi - 1) % 8));
  if (first == last)
    return (bits[first] & head & tail) == (head & tail);
  if ((bits[first] & head) != head || (bits[last] & tail) != tail)
    return false;
  for (uint64_t b = first + 1; b < last; ++b)
    if (bits[b] != 0xff)
      return false;
  return true;
}

// Whether a read of [first, first + count) reads nothing written: some
// aligned 8-byte piece of it (the whole read when it is smaller) holds no
// initialized byte. A read that finds part of a piece written reads the
// padding of a structure or vector copied whole (a `char` field and the
// three bytes after it as one word): not reported.
bool unwritten_piece(const std::vector<uint8_t> &bits, uint64_t first,
                     uint64_t count) {
  const uint64_t piece = std::min<uint64_t>(count, 8);
  for (uint64_t p = first; p < first + count; p += piece) {
    bool any = false;
    for (uint64_t b = p; b < std::min(p + piece, first + count) && !any; ++b)
      any = b / 8 < bits.size() && ((bits[b / 8] >> (b % 8)) & 1);
    if (!any)
      return true;
  }
  return false;
}

} // namespace

// The test of init_access (state.h) past its early answers.
void init_access_lanes(LaunchSt &L, const AccessEvent &e) {
  if (e.space != StateSpace::Shared && e.space != StateSpace::Local)
    return;
  CtaSt *c = L.cta(e.space == StateSpace::Shared ? e.owner : e.cta);
  if (!c)
    return;
  if (e.origin == engine::AccessOrigin::CallCopy) {
    // Parameter copies move initialization along: the destination is
    // initialized where the source was; nothing is reported.
    for (uint32_t m = e.lanes; m; m &= m - 1) {
      const uint32_t lane = uint32_t(std::countr_zero(m));
      const uint64_t frame = uint64_t(e.warp * 32 + lane) * L.local_bytes;
      auto &bits = c->local_init;
      if (e.type == engine::AccessType::Read) {
        L.copy_from[lane] = frame + e.addr[lane];
        continue;
      }
      for (uint32_t k = 0; k < e.size; ++k) {
        uint64_t s = L.copy_from[lane] + k, d = frame + e.addr[lane] + k;
        if (s / 8 >= bits.size() || d / 8 >= bits.size())
          break;
        bool on = (bits[s / 8] >> (s % 8)) & 1;
        bits[d / 8] = uint8_t((bits[d / 8] & ~(1u << (d % 8))) |
                              (unsigned(on) << (d % 8)));
      }
    }
    return;
  }
  const bool atomic = e.type == engine::AccessType::Atomic;
  const bool reads = e.type == engine::AccessType::Read ||
                     (atomic && e.atom != engine::AtomicOp::Exch &&
                      e.atom != engine::AtomicOp::Mbarrier);
  const bool writes = e.type != engine::AccessType::Read;
  const bool local = e.space == StateSpace::Local;
  // Shared memory every byte of which was written (a tile after its first
  // fill, a reduction's array): a read has nothing to report, a write no
  // bit to set (bits of shared memory are never cleared).
  if (!local && c->shared_unset == 0)
    return;
  // Plain reads of a small span of shared memory that is initialized
  // throughout (a tile row, a broadcast element): nothing to report.
  if (!local && !writes && e.size <= 16) {
    uint64_t lo = ~0ull, hi = 0;
    for (uint32_t m = e.lanes; m; m &= m - 1) {
      const uint64_t a = e.addr[std::countr_zero(m)];
      lo = std::min(lo, a);
      hi = std::max(hi, a);
    }
    hi += e.size;
    if (hi - lo <= 1024 && span_initialized(c->shared_init, lo, hi))
      return;
  }
  std::vector<uint8_t> *const bits = local ? &c->local_init : &c->shared_init;
  uint8_t *const data = bits->data();
  const uint64_t nbytes = bits->size();
  const uint32_t size = e.size;
  // Bits set in shared memory are counted (CtaSt::shared_unset) until
  // every byte has its bit; local memory's are not.
  uint64_t *const unset =
      !local && c->shared_unset != 0 ? &c->shared_unset : nullptr;
  // A whole warp's store of 4 or 8 bytes per lane to consecutive,
  // 8-byte-aligned shared memory (a tile's or an array's first fill): the
  // bitmap bytes of its span all become set, as lane by lane.
  if (unset && writes && !reads && e.lanes == ~0u && (size == 4 || size == 8)) {
    const uint64_t a0 = e.addr[0], end = a0 + 32 * uint64_t(size);
    uint64_t d = a0 & 7;
    for (uint32_t l = 1; l < 32; ++l)
      d |= e.addr[l] ^ (a0 + uint64_t(l) * size);
    if (!d && end <= L.shared_bytes && end / 8 <= nbytes) {
      for (uint64_t b = a0 / 8; b < end / 8; ++b) {
        *unset -= bits_in(uint8_t(~data[b]));
        data[b] = 0xff;
      }
      return;
    }
  }
  for (uint32_t m = e.lanes; m; m &= m - 1) {
    const uint32_t lane = uint32_t(std::countr_zero(m));
    uint64_t first = e.addr[lane];
    if (local)
      first += uint64_t(e.warp * 32 + lane) * L.local_bytes;
    if ((first & 7) + size <= 8 && first / 8 < nbytes) {
      // Within one byte of the bitmap (every aligned access up to 8 bytes).
      uint8_t &byte = data[first / 8];
      const uint8_t bitsm = uint8_t(((1u << size) - 1) << (first & 7));
      if (reads && (byte & bitsm) == 0)
        L.findings->uninit(L, e.space, c->linear, e.addr[lane], size,
                           L.tid_of(e.cta, e.warp, lane), e.pc);
      if (writes) {
        // (Only bytes inside the CTA's shared memory count.)
        if (unset && first + size <= L.shared_bytes)
          *unset -= bits_in(uint8_t(bitsm & ~byte));
        byte |= bitsm;
      }
      continue;
    }
    if (reads && !test_and_report(*bits, first, e.size, false) &&
        unwritten_piece(*bits, first, e.size))
      L.findings->uninit(L, e.space, c->linear, e.addr[lane], e.size,
                         L.tid_of(e.cta, e.warp, lane), e.pc);
    if (writes)
      test_and_report(*bits, first, e.size, true,
                      first + size <= L.shared_bytes ? unset : nullptr);
  }
}

void init_frame_end(LaunchSt &L, const AccessEvent &e) {
  CtaSt *c = L.cta(e.cta);
  if (!c)
    return;
  auto &bits = c->local_init;
  for (uint32_t m = e.lanes; m; m &= m - 1) {
    const uint32_t lane = uint32_t(std::countr_zero(m));
    const uint64_t first =
        uint64_t(e.warp * 32 + lane) * L.local_bytes + e.addr[lane];
    for (uint64_t b = first; b < first + e.size && b / 8 < bits.size(); ++b)
      bits[b / 8] = uint8_t(bits[b / 8] & ~(1u << (b % 8)));
  }
}

} // namespace bcusim::check::detail
