// Packing of the barrier state word (layout: state_word.h, docs/bcu.md).
#include "bcusim/bcu/state_word.h"

namespace bcusim::bcu {
namespace {

constexpr unsigned kArrivedLsb = 0;
constexpr unsigned kExpectedLsb = 7;
constexpr unsigned kKindLsb = 14;
constexpr unsigned kRedopLsb = 16;
constexpr unsigned kPopcLsb = 18;
constexpr unsigned kPopcBits = 11;
constexpr unsigned kAnyFalseBit = 29;
constexpr unsigned kValidBit = 31;

constexpr uint32_t field(uint32_t word, unsigned lsb, unsigned width) {
  return (word >> lsb) & ((1u << width) - 1);
}

} // namespace

uint32_t StateWord::pack() const {
  uint32_t word = 0;
  word |= (arrived & kMaxWarpCount) << kArrivedLsb;
  word |= (expected & kMaxWarpCount) << kExpectedLsb;
  word |= (static_cast<uint32_t>(kind) & 3u) << kKindLsb;
  word |= (static_cast<uint32_t>(redop) & 3u) << kRedopLsb;
  word |= (popc & ((1u << kPopcBits) - 1)) << kPopcLsb;
  word |= static_cast<uint32_t>(any_false) << kAnyFalseBit;
  word |= static_cast<uint32_t>(valid) << kValidBit;
  return word;
}

StateWord StateWord::unpack(uint32_t word) {
  StateWord s;
  s.arrived = field(word, kArrivedLsb, kArrivedBits);
  s.expected = field(word, kExpectedLsb, kExpectedBits);
  // Kind 3 is reserved: read as idle (docs/bcu.md, "State word").
  uint32_t kind = field(word, kKindLsb, 2);
  s.kind = kind == 3 ? BarrierKind::Idle : static_cast<BarrierKind>(kind);
  // Redop 3 is not a BARREDOp enumerator: read as AND.
  uint32_t redop = field(word, kRedopLsb, 2);
  s.redop = redop == 3 ? RedOp::And : static_cast<RedOp>(redop);
  s.popc = field(word, kPopcLsb, kPopcBits);
  s.any_false = field(word, kAnyFalseBit, 1) != 0;
  s.valid = field(word, kValidBit, 1) != 0;
  return s;
}

} // namespace bcusim::bcu
