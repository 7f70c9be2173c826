// The `bcusim run` argument language (include/bcusim/engine/args.h).
#include "bcusim/engine/args.h"

#include "bcusim/engine/tensormap.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <limits>

namespace bcusim::engine {

namespace {

bool parse_u64(std::string_view s, uint64_t &out) {
  if (s.empty())
    return false;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  uint64_t v = 0;
  for (char ch : s) {
    int d;
    if (ch >= '0' && ch <= '9')
      d = ch - '0';
    else if (base == 16 && ch >= 'a' && ch <= 'f')
      d = ch - 'a' + 10;
    else if (base == 16 && ch >= 'A' && ch <= 'F')
      d = ch - 'A' + 10;
    else
      return false;
    if (v >
        (std::numeric_limits<uint64_t>::max() - uint64_t(d)) / uint64_t(base))
      return false;
    v = v * uint64_t(base) + uint64_t(d);
  }
  out = v;
  return true;
}

} // namespace

std::optional<Dim3> parse_dims(std::string_view text, std::string &error) {
  Dim3 d;
  uint32_t *parts[3] = {&d.x, &d.y, &d.z};
  size_t n = 0;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string_view part = text.substr(start, comma == std::string_view::npos
                                                   ? std::string_view::npos
                                                   : comma - start);
    uint64_t v;
    if (n == 3 || !parse_u64(part, v) || v == 0 || v > 0xffffffffu) {
      error = fmt::format("'{}' is not X[,Y[,Z]] with positive integers", text);
      return std::nullopt;
    }
    *parts[n++] = uint32_t(v);
    if (comma == std::string_view::npos)
      break;
    start = comma + 1;
  }
  return d;
}

std::optional<std::vector<uint8_t>>
parse_value(ScalarType t, std::string_view text, std::string &error) {
  std::vector<uint8_t> out(size_of(t));
  std::string s(text);
  if (is_float(t)) {
    if (s.empty()) {
      error = "empty value";
      return std::nullopt;
    }
    char *end = nullptr;
    errno = 0;
    double v = std::strtod(s.c_str(), &end);
    if (*end != 0) {
      error = fmt::format("'{}' is not a {} value", text, name_of(t));
      return std::nullopt;
    }
    if (t == ScalarType::F32) {
      float f =
          t == ScalarType::F32 ? std::strtof(s.c_str(), nullptr) : float(v);
      std::memcpy(out.data(), &f, 4);
    } else {
      std::memcpy(out.data(), &v, 8);
    }
    return out;
  }
  bool neg = !s.empty() && s[0] == '-';
  uint64_t mag;
  if (!parse_u64(neg ? std::string_view(s).substr(1) : std::string_view(s),
                 mag)) {
    error = fmt::format("'{}' is not a {} value", text, name_of(t));
    return std::nullopt;
  }
  uint32_t bits = size_of(t) * 8;
  uint64_t v;
  if (is_signed(t)) {
    uint64_t limit = 1ull << (bits - 1); // |min|
    if ((neg && mag > limit) || (!neg && mag > limit - 1)) {
      error = fmt::format("{} is out of range for {}", text, name_of(t));
      return std::nullopt;
    }
    v = neg ? uint64_t(0) - mag : mag;
  } else {
    uint64_t max = bits == 64 ? ~0ull : ((1ull << bits) - 1);
    if (neg || mag > max) {
      error = fmt::format("{} is out of range for {}", text, name_of(t));
      return std::nullopt;
    }
    v = mag;
  }
  std::memcpy(out.data(), &v, out.size());
  return out;
}

namespace {

// {FIELD,...}: the bytes of a structure passed by value.
std::optional<ArgSpec> parse_aggregate(std::string_view text,
                                       std::string &error) {
  ArgSpec a;
  a.is_aggregate = true;
  if (text.size() < 2 || text.back() != '}') {
    error = "missing '}' at the end of the structure";
    return std::nullopt;
  }
  std::string_view body = text.substr(1, text.size() - 2);
  size_t max_align = 1;
  auto place = [&](size_t size, size_t align) {
    size_t off = (a.scalar.size() + align - 1) / align * align;
    a.scalar.resize(off + size, 0);
    max_align = std::max(max_align, align);
    return off;
  };
  size_t field = 0;
  while (true) {
    size_t comma = body.find(',');
    std::string_view f = body.substr(0, comma);
    while (!f.empty() && f.front() == ' ')
      f.remove_prefix(1);
    while (!f.empty() && f.back() == ' ')
      f.remove_suffix(1);
    if (f.empty()) {
      error = fmt::format("field {} of the structure is empty", field);
      return std::nullopt;
    }
    if (f.front() == '@') {
      uint64_t n = 0;
      if (!parse_u64(f.substr(1), n)) {
        error = fmt::format("field {} ('{}'): '{}' is not an argument number",
                            field, f, f.substr(1));
        return std::nullopt;
      }
      a.refs.push_back({uint32_t(place(8, 8)), size_t(n)});
    } else if (f.rfind("pad:", 0) == 0) {
      uint64_t n = 0;
      if (!parse_u64(f.substr(4), n) || n > 4096) {
        error = fmt::format("field {} ('{}'): expected pad:N with N at most "
                            "4096",
                            field, f);
        return std::nullopt;
      }
      place(size_t(n), 1);
    } else {
      std::string inner;
      auto x = f.front() == '{' ? std::nullopt : parse_arg(f, inner);
      if (!x) {
        error = fmt::format("field {} ('{}'): {}", field, f,
                            inner.empty() ? "a field is TYPE:VALUE, "
                                            "TYPE[N][=INIT], @I or pad:N"
                                          : inner);
        return std::nullopt;
      }
      if (x->is_buffer) {
        a.refs.push_back(
            {uint32_t(place(8, 8)), a.buffers.size(), /*own=*/true});
        a.buffers.push_back(std::move(*x));
      } else {
        size_t off = place(x->scalar.size(), x->scalar.size());
        std::copy(x->scalar.begin(), x->scalar.end(), a.scalar.begin() + off);
      }
    }
    ++field;
    if (comma == std::string_view::npos)
      break;
    body = body.substr(comma + 1);
  }
  place(0, max_align);
  return a;
}

} // namespace

// tensormap:TYPE,@I,DIMS,BOX[,KEY=VALUE]...: a tiled tensor map
// (docs/hopper.md) over buffer argument I, encoded and validated as
// cuTensorMapEncodeTiled does; passed as a 128-byte structure whose global
// address is filled in when the buffers exist.
static std::optional<ArgSpec> parse_tensormap(std::string_view text,
                                              std::string &error) {
  std::vector<std::string_view> parts;
  for (size_t b = 0; b <= text.size();) {
    size_t e = text.find(',', b);
    if (e == std::string_view::npos)
      e = text.size();
    parts.push_back(text.substr(b, e - b));
    b = e + 1;
  }
  if (parts.size() < 4) {
    error = "expected tensormap:TYPE,@I,DIMS,BOX[,KEY=VALUE]...";
    return std::nullopt;
  }
  static const std::pair<std::string_view, TmapType> kTypes[] = {
      {"u8", TmapType::U8},     {"u16", TmapType::U16},  {"u32", TmapType::U32},
      {"s32", TmapType::S32},   {"u64", TmapType::U64},  {"s64", TmapType::S64},
      {"f16", TmapType::F16},   {"f32", TmapType::F32},  {"f64", TmapType::F64},
      {"bf16", TmapType::BF16}, {"tf32", TmapType::TF32}};
  int type = -1;
  for (auto &[n, t] : kTypes)
    if (parts[0] == n)
      type = int(t);
  if (type < 0) {
    error = fmt::format("unknown tensor-map type '{}' (expected one of u8 u16 "
                        "u32 s32 u64 s64 f16 f32 f64 bf16 tf32)",
                        parts[0]);
    return std::nullopt;
  }
  uint64_t ref = 0;
  if (parts[1].size() < 2 || parts[1][0] != '@' ||
      !parse_u64(parts[1].substr(1), ref)) {
    error = fmt::format("'{}' is not a buffer reference @I", parts[1]);
    return std::nullopt;
  }
  // AxBxC lists
  auto list = [&](std::string_view v, std::vector<uint64_t> &out,
                  const char *what) {
    out.clear();
    for (size_t b = 0; b <= v.size();) {
      size_t e = v.find('x', b);
      if (e == std::string_view::npos)
        e = v.size();
      uint64_t x;
      if (!parse_u64(v.substr(b, e - b), x)) {
        error = fmt::format("'{}' is not a list of {} (AxBx...)", v, what);
        return false;
      }
      out.push_back(x);
      b = e + 1;
    }
    return true;
  };
  std::vector<uint64_t> dims, box, strides, estr;
  if (!list(parts[2], dims, "dimensions") || !list(parts[3], box, "box sizes"))
    return std::nullopt;
  uint32_t rank = uint32_t(dims.size());
  if (rank < 1 || rank > 5 || box.size() != rank) {
    error = fmt::format("a tensor map has 1 to 5 dimensions and one box size "
                        "per dimension ({} and {} given)",
                        dims.size(), box.size());
    return std::nullopt;
  }
  uint32_t swizzle = 0, oob = 0, interleave = 0, l2 = 0;
  for (size_t k = 4; k < parts.size(); ++k) {
    std::string_view kv = parts[k];
    size_t eq = kv.find('=');
    std::string_view key = kv.substr(0, eq), val = eq == std::string_view::npos
                                                       ? ""
                                                       : kv.substr(eq + 1);
    auto pick = [&](std::initializer_list<std::string_view> names,
                    uint32_t &out) {
      uint32_t i = 0;
      for (auto n : names) {
        if (val == n) {
          out = i;
          return true;
        }
        ++i;
      }
      error = fmt::format("'{}' is not a value of '{}'", val, key);
      return false;
    };
    bool ok =
        key == "strides"      ? list(val, strides, "strides")
        : key == "estrides"   ? list(val, estr, "element strides")
        : key == "swizzle"    ? pick({"none", "32", "64", "128"}, swizzle)
        : key == "oob"        ? pick({"zero", "nan"}, oob)
        : key == "interleave" ? pick({"none", "16", "32"}, interleave)
        : key == "l2"
            ? pick({"none", "64", "128", "256"}, l2)
            : (error = fmt::format("unknown tensor-map key '{}' (expected "
                                   "strides estrides swizzle oob interleave "
                                   "l2)",
                                   key),
               false);
    if (!ok)
      return std::nullopt;
  }
  uint32_t eb = tmap_element_bytes(TmapType(type));
  if (strides.empty()) { // dense
    uint64_t st = dims[0] * eb;
    for (uint32_t d = 1; d < rank; ++d) {
      strides.push_back(st);
      st *= dims[d];
    }
  }
  if (estr.empty())
    estr.assign(rank, 1);
  if (strides.size() != rank - 1 || estr.size() != rank) {
    error = fmt::format("a rank-{} tensor map takes {} strides and {} element "
                        "strides",
                        rank, rank - 1, rank);
    return std::nullopt;
  }
  uint32_t box32[5], estr32[5];
  for (uint32_t d = 0; d < rank; ++d) {
    box32[d] = uint32_t(std::min<uint64_t>(box[d], 0xffffffffu));
    estr32[d] = uint32_t(std::min<uint64_t>(estr[d], 0xffffffffu));
  }
  alignas(64) uint8_t bytes[128];
  // Encoded at address 0 (aligned); the buffer's address replaces it.
  if (tmap_encode_tiled(bytes, uint32_t(type), rank, nullptr, dims.data(),
                        strides.data(), box32, estr32, interleave, swizzle, l2,
                        oob, error))
    return std::nullopt;
  ArgSpec a;
  a.is_aggregate = true;
  a.scalar.assign(bytes, bytes + 128);
  a.refs.push_back({16, size_t(ref)});
  return a;
}

std::optional<ArgSpec> parse_arg(std::string_view text, std::string &error) {
  if (!text.empty() && text.front() == '{')
    return parse_aggregate(text, error);
  if (text.rfind("tensormap:", 0) == 0)
    return parse_tensormap(text.substr(10), error);
  ArgSpec a;
  size_t i = 0;
  while (i < text.size() && text[i] != ':' && text[i] != '[')
    ++i;
  auto t = parse_scalar_type(text.substr(0, i));
  if (!t) {
    error = fmt::format(
        "unknown type '{}' (expected one of u8 u16 u32 u64 s8 s16 s32 s64 "
        "f32 f64)",
        text.substr(0, i));
    return std::nullopt;
  }
  a.type = *t;
  if (i == text.size()) {
    error = "expected TYPE:VALUE or TYPE[N][=INIT]";
    return std::nullopt;
  }
  if (text[i] == ':') {
    auto v = parse_value(a.type, text.substr(i + 1), error);
    if (!v)
      return std::nullopt;
    a.scalar = *v;
    return a;
  }
  size_t close = text.find(']', i);
  if (close == std::string_view::npos) {
    error = "missing ']' after the element count";
    return std::nullopt;
  }
  a.is_buffer = true;
  if (!parse_u64(text.substr(i + 1, close - i - 1), a.count)) {
    error = fmt::format("'{}' is not an element count",
                        text.substr(i + 1, close - i - 1));
    return std::nullopt;
  }
  if (a.count > (1ull << 32)) {
    error = fmt::format(
        "{} elements is more than bcusim allocates (at most 2^32)", a.count);
    return std::nullopt;
  }
  std::string_view rest = text.substr(close + 1);
  if (rest.empty())
    return a;
  if (rest[0] != '=') {
    error = fmt::format(
        "unexpected '{}' after the element count (expected =INIT)", rest);
    return std::nullopt;
  }
  std::string_view init = rest.substr(1);
  if (init == "zeros") {
    a.init = ArgSpec::Init::Zeros;
  } else if (init == "iota") {
    a.init = ArgSpec::Init::Iota;
  } else if (init.rfind("fill:", 0) == 0) {
    a.init = ArgSpec::Init::Fill;
    auto v = parse_value(a.type, init.substr(5), error);
    if (!v)
      return std::nullopt;
    a.fill = *v;
  } else if (init.rfind("rand:", 0) == 0) {
    a.init = ArgSpec::Init::Rand;
    if (!parse_u64(init.substr(5), a.seed)) {
      error = fmt::format("'{}' is not a seed (an unsigned integer)",
                          init.substr(5));
      return std::nullopt;
    }
  } else if (init.rfind("file:", 0) == 0 && init.size() > 5) {
    a.init = ArgSpec::Init::File;
    a.path = std::string(init.substr(5));
  } else {
    error = fmt::format(
        "unknown initialiser '{}' (expected zeros, iota, fill:V, rand:SEED "
        "or file:PATH)",
        init);
    return std::nullopt;
  }
  return a;
}

std::optional<std::vector<uint8_t>> buffer_contents(const ArgSpec &a,
                                                    std::string &error) {
  uint32_t es = size_of(a.type);
  std::vector<uint8_t> out(a.count * es, 0);
  switch (a.init) {
  case ArgSpec::Init::Zeros:
    break;
  case ArgSpec::Init::Iota:
    for (uint64_t i = 0; i < a.count; ++i) {
      uint8_t *p = out.data() + i * es;
      if (a.type == ScalarType::F32) {
        float f = float(i);
        std::memcpy(p, &f, 4);
      } else if (a.type == ScalarType::F64) {
        double d = double(i);
        std::memcpy(p, &d, 8);
      } else {
        std::memcpy(p, &i, es); // modulo 2^bits
      }
    }
    break;
  case ArgSpec::Init::Fill:
    for (uint64_t i = 0; i < a.count; ++i)
      std::memcpy(out.data() + i * es, a.fill.data(), es);
    break;
  case ArgSpec::Init::Rand: {
    SplitMix64 rng(a.seed);
    for (uint64_t i = 0; i < a.count; ++i)
      random_element(a.type, rng, out.data() + i * es);
    break;
  }
  case ArgSpec::Init::File: {
    std::ifstream f(a.path, std::ios::binary);
    if (!f) {
      error = fmt::format("cannot read '{}'", a.path);
      return std::nullopt;
    }
    std::vector<uint8_t> data((std::istreambuf_iterator<char>(f)),
                              std::istreambuf_iterator<char>());
    if (data.size() != out.size()) {
      error = fmt::format(
          "'{}' holds {} bytes; {} elements of {} need exactly {}", a.path,
          data.size(), a.count, name_of(a.type), out.size());
      return std::nullopt;
    }
    out = std::move(data);
    break;
  }
  }
  return out;
}

std::string format_elements(ScalarType t, const uint8_t *data, uint64_t count) {
  std::string s;
  uint32_t es = size_of(t);
  for (uint64_t i = 0; i < count; ++i) {
    const uint8_t *p = data + i * es;
    switch (t) {
    case ScalarType::F32: {
      float f;
      std::memcpy(&f, p, 4);
      fmt::format_to(std::back_inserter(s), "{}\n", f);
      break;
    }
    case ScalarType::F64: {
      double d;
      std::memcpy(&d, p, 8);
      fmt::format_to(std::back_inserter(s), "{}\n", d);
      break;
    }
    default: {
      uint64_t v = 0;
      std::memcpy(&v, p, es);
      if (is_signed(t)) {
        uint32_t sh = 64 - 8 * es;
        fmt::format_to(std::back_inserter(s), "{}\n", int64_t(v << sh) >> sh);
      } else {
        fmt::format_to(std::back_inserter(s), "{}\n", v);
      }
    }
    }
  }
  return s;
}

} // namespace bcusim::engine
