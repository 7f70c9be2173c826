// Device printf (`call vprintf, (fmt, args)`): formats from the argument
// buffer the way CUDA lays it out (each argument aligned to its size;
// integers without l/ll are 4 bytes, with them 8; %f/%e/%g/%a are doubles;
// %s/%p are 8-byte pointers) and appends to the CTA's output. Lanes print
// in ascending order (docs/engine.md "printf").
#include <cstdio>
#include <fmt/format.h>

#include "run.h"

namespace bcusim::engine::detail {

namespace {

bool read_bytes(Exec &x, uint64_t addr, void *out, uint32_t n, uint32_t lane) {
  uint8_t *p = x.translate(MemSpace::Generic, addr, n, false, lane);
  if (!p)
    return false;
  std::memcpy(out, p, n);
  return true;
}

bool read_string(Exec &x, uint64_t addr, std::string &s, uint32_t lane,
                 size_t limit = 1 << 20) {
  s.clear();
  for (size_t i = 0; i < limit; ++i) {
    char ch;
    if (!read_bytes(x, addr + i, &ch, 1, lane))
      return false;
    if (ch == 0)
      return true;
    s.push_back(ch);
  }
  return true;
}

} // namespace

// Returns the number of arguments consumed, or -1 on a fault (already set).
int format_printf(Exec &x, uint64_t fmt_addr, uint64_t args_addr, uint32_t lane,
                  std::string &out) {
  std::string f;
  if (!read_string(x, fmt_addr, f, lane))
    return -1;
  uint64_t off = 0;
  int nargs = 0;
  auto fetch = [&](uint32_t size, uint64_t &v) {
    off = (off + size - 1) / size * size;
    v = 0;
    if (!args_addr) {
      x.set_error(FaultKind::OutOfBounds, lane,
                  "printf: missing argument buffer");
      return false;
    }
    if (!read_bytes(x, args_addr + off, &v, size, lane))
      return false;
    off += size;
    ++nargs;
    return true;
  };
  char buf[512];
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      out.push_back(f[i]);
      continue;
    }
    size_t start = i++;
    if (i < f.size() && f[i] == '%') {
      out.push_back('%');
      continue;
    }
    std::string spec = "%";
    while (i < f.size() && std::strchr("-+ #0", f[i]))
      spec.push_back(f[i++]);
    auto number = [&]() -> bool {
      if (i < f.size() && f[i] == '*') {
        uint64_t v;
        if (!fetch(4, v))
          return false;
        spec += std::to_string(int32_t(v));
        ++i;
        return true;
      }
      while (i < f.size() && std::isdigit(static_cast<unsigned char>(f[i])))
        spec.push_back(f[i++]);
      return true;
    };
    if (!number())
      return -1;
    if (i < f.size() && f[i] == '.') {
      spec.push_back('.');
      ++i;
      if (!number())
        return -1;
    }
    std::string len;
    while (i < f.size() && std::strchr("hlLzjt", f[i]))
      len.push_back(f[i++]);
    if (i >= f.size()) {
      out += f.substr(start);
      break;
    }
    char conv = f[i];
    bool wide = len == "l" || len == "ll" || len == "z" || len == "j" ||
                len == "t" || len == "L";
    uint64_t v = 0;
    switch (conv) {
    case 'd':
    case 'i': {
      if (!fetch(wide ? 8 : 4, v))
        return -1;
      int64_t sv = wide ? int64_t(v) : int64_t(int32_t(v));
      if (len == "h")
        sv = int16_t(sv);
      if (len == "hh")
        sv = int8_t(sv);
      std::snprintf(buf, sizeof buf, (spec + "lld").c_str(), (long long)sv);
      out += buf;
      break;
    }
    case 'u':
    case 'x':
    case 'X':
    case 'o': {
      if (!fetch(wide ? 8 : 4, v))
        return -1;
      uint64_t uv = wide ? v : uint32_t(v);
      if (len == "h")
        uv = uint16_t(uv);
      if (len == "hh")
        uv = uint8_t(uv);
      std::snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(),
                    (unsigned long long)uv);
      out += buf;
      break;
    }
    case 'c':
      if (!fetch(wide ? 8 : 4, v))
        return -1;
      std::snprintf(buf, sizeof buf, (spec + "c").c_str(), int(uint8_t(v)));
      out += buf;
      break;
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A':
      if (!fetch(8, v))
        return -1;
      std::snprintf(buf, sizeof buf, (spec + conv).c_str(),
                    std::bit_cast<double>(v));
      out += buf;
      break;
    case 'p':
      if (!fetch(8, v))
        return -1;
      if (v == 0) { // a null pointer prints "(nil)" (measured on H100)
        std::snprintf(buf, sizeof buf, (spec + "s").c_str(), "(nil)");
        out += buf;
        break;
      }
      std::snprintf(buf, sizeof buf, (spec + "llx").c_str(),
                    (unsigned long long)v);
      out += "0x";
      out += buf;
      break;
    case 's': {
      if (!fetch(8, v))
        return -1;
      std::string s;
      if (v == 0)
        s = "(null)";
      else if (!read_string(x, v, s, lane))
        return -1;
      std::string r(s.size() + 512, '\0');
      int n =
          std::snprintf(r.data(), r.size(), (spec + "s").c_str(), s.c_str());
      r.resize(n > 0 ? size_t(n) : 0);
      out += r;
      break;
    }
    default:
      // Unknown conversion: printed as written (CUDA does the same).
      out += f.substr(start, i - start + 1);
      break;
    }
  }
  return nargs;
}

} // namespace bcusim::engine::detail
