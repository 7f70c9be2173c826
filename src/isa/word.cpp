// Word128: the 128-bit BCU instruction word (001: all fields are given as
// field<lsb, width> with bit 0 the least significant bit).
#include "bcusim/isa/isa.h"

namespace bcusim::isa {

static uint64_t low_mask(unsigned width) {
  return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
}

uint64_t Word128::bits(unsigned lsb, unsigned width) const {
  if (width == 0 || lsb >= 128)
    return 0;
  if (width > 64)
    width = 64;
  uint64_t value;
  if (lsb >= 64) {
    value = hi >> (lsb - 64);
  } else if (lsb == 0) {
    value = lo;
  } else {
    value = (lo >> lsb) | (hi << (64 - lsb));
  }
  return value & low_mask(width);
}

void Word128::set_bits(unsigned lsb, unsigned width, uint64_t value) {
  if (width == 0 || lsb >= 128)
    return;
  if (width > 64)
    width = 64;
  // Bit by word half, so a field that straddles bit 64 works too.
  uint64_t mask = low_mask(width);
  value &= mask;
  if (lsb < 64) {
    lo = (lo & ~(mask << lsb)) | (value << lsb);
    if (lsb + width > 64) {
      unsigned shift = 64 - lsb;
      hi = (hi & ~(mask >> shift)) | (value >> shift);
    }
  } else {
    unsigned s = lsb - 64;
    hi = (hi & ~(mask << s)) | (value << s);
  }
}

std::string Word128::to_hex() const {
  static const char digits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[15 - i] = digits[(hi >> (4 * i)) & 0xF];
    out[31 - i] = digits[(lo >> (4 * i)) & 0xF];
  }
  return out;
}

std::optional<Word128> Word128::from_hex(std::string_view text) {
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    text.remove_prefix(2);
  if (text.size() != 32)
    return std::nullopt;
  Word128 w;
  for (size_t i = 0; i < 32; ++i) {
    char c = text[i];
    uint64_t d;
    if (c >= '0' && c <= '9')
      d = static_cast<uint64_t>(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = static_cast<uint64_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      d = static_cast<uint64_t>(c - 'A' + 10);
    else
      return std::nullopt;
    if (i < 16)
      w.hi = (w.hi << 4) | d;
    else
      w.lo = (w.lo << 4) | d;
  }
  return w;
}

} // namespace bcusim::isa
