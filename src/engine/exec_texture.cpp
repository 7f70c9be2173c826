// Texture fetches through texture objects (docs/engine.md "Textures"):
//   tex.{1d,2d}.v4.{f32,s32,u32}.{f32,s32} d, [tex, {x[, y]}];
//   tld4.{r,g,b,a}.2d.v4.{f32,s32,u32}.f32 d, [tex, {x, y}];
// The texture object (engine::Texture, made by Device::create_texture) is
// the 64-bit handle in `tex`. Every texel read is a global read that the
// observer sees and that is bounds-checked like a load.
#include <algorithm>
#include <climits>
#include <cmath>
#include <fmt/format.h>

#include "compile.h"
#include "float_format.h"
#include "observe.h"

namespace bcusim::engine::detail {

namespace {

// The operands are the instruction's TexOps payload (code.h).

uint32_t format_bytes(Texture::Format f) {
  switch (f) {
  case Texture::Format::U8:
  case Texture::Format::S8:
    return 1;
  case Texture::Format::U16:
  case Texture::Format::S16:
    return 2;
  default:
    return 4;
  }
}

// One index after the address mode; false for a border texel.
bool address(int64_t &i, uint32_t n, Texture::Address m) {
  const int64_t size = n;
  switch (m) {
  case Texture::Address::Wrap:
    i %= size;
    if (i < 0)
      i += size;
    return true;
  case Texture::Address::Mirror: {
    int64_t p = 2 * size;
    i %= p;
    if (i < 0)
      i += p;
    if (i >= size)
      i = p - 1 - i;
    return true;
  }
  case Texture::Address::Clamp:
    i = std::clamp<int64_t>(i, 0, size - 1);
    return true;
  case Texture::Address::Border:
    return i >= 0 && i < size;
  }
  return true;
}

// A texel's channels: as floats (converted or normalized) and as raw
// integers. False when the read faulted.
struct Texel {
  float f[4] = {0, 0, 0, 0};
  uint32_t u[4] = {0, 0, 0, 0};
};

// The address mode that applies: wrap and mirror need normalized
// coordinates (CUDA refuses them otherwise); with unnormalized ones the
// hardware clamps (measured on H100 for wrap).
Texture::Address mode(const Texture &t, int k) {
  const Texture::Address m = t.address[k];
  if (!t.normalized_coords &&
      (m == Texture::Address::Wrap || m == Texture::Address::Mirror))
    return Texture::Address::Clamp;
  return m;
}

bool fetch(Exec &x, const Texture &t, int64_t i, int64_t j, uint32_t lane,
           Texel &out) {
  bool inside = address(i, t.width, mode(t, 0));
  inside &= address(j, t.height, mode(t, 1));
  if (!inside) {
    for (int c = 0; c < 4; ++c) {
      out.f[c] = t.border[c];
      out.u[c] = std::bit_cast<uint32_t>(t.border[c]);
    }
    return true;
  }
  const uint32_t eb = format_bytes(t.format);
  const uint32_t texel = eb * t.channels;
  const uint64_t addr = t.base + uint64_t(j) * t.pitch + uint64_t(i) * texel;
  const uint8_t *p = x.global(addr, texel, false, lane);
  if (!p)
    return false;
  if (x.obs)
    observe_one(x, x.pc, x.cta->linear, x.warp->index, lane, AccessType::Read,
                texel, resolve_access(x, MemSpace::Global, addr));
  for (uint32_t c = 0; c < t.channels && c < 4; ++c) {
    const uint8_t *e = p + c * eb;
    float f = 0;
    uint32_t u = 0;
    switch (t.format) {
    case Texture::Format::U8:
      u = e[0];
      f = t.normalized_float ? float(u) / 255.0f : float(u);
      break;
    case Texture::Format::S8: {
      int8_t v = int8_t(e[0]);
      u = uint32_t(int32_t(v));
      f = t.normalized_float ? std::max(float(v) / 127.0f, -1.0f) : float(v);
      break;
    }
    case Texture::Format::U16: {
      uint16_t v;
      std::memcpy(&v, e, 2);
      u = v;
      f = t.normalized_float ? float(v) / 65535.0f : float(v);
      break;
    }
    case Texture::Format::S16: {
      int16_t v;
      std::memcpy(&v, e, 2);
      u = uint32_t(int32_t(v));
      f = t.normalized_float ? std::max(float(v) / 32767.0f, -1.0f) : float(v);
      break;
    }
    case Texture::Format::U32:
      std::memcpy(&u, e, 4);
      f = float(u);
      break;
    case Texture::Format::S32:
      std::memcpy(&u, e, 4);
      f = float(int32_t(u));
      break;
    case Texture::Format::F32:
      std::memcpy(&f, e, 4);
      u = std::bit_cast<uint32_t>(f);
      break;
    }
    out.f[c] = f;
    out.u[c] = u;
  }
  return true;
}

// The value a destination register receives from channel c.
uint64_t result(const TexOps &p, const Texel &t, int c) {
  return p.out_type == 0 ? bits(t.f[c]) : uint64_t(t.u[c]);
}

// Linear filtering of one channel (weights a, b with 8 fractional bits),
// as measured on the H100: the texels of nonzero weight are aligned to the
// largest one's exponent with 28 bits (truncated toward zero: 0.1 beside 256
// is read as 0.0999984741), the weighted sum of the aligned texels is exact
// and rounded once to f32, a tie away from zero (1.0 and 1.0000001 at
// a = 0.5 give 1.0000001). A texel of weight 0 does not take part (its
// infinity or NaN is ignored); a denormal result is flushed to zero, a NaN
// result is 0x7fffffff.
float filter(float a, float b, bool two_d, float t00, float t10, float t01,
             float t11) {
  const float w[4] = {(1 - a) * (two_d ? 1 - b : 1), a * (two_d ? 1 - b : 1),
                      two_d ? (1 - a) * b : 0, two_d ? a * b : 0};
  const float t[4] = {t00, t10, t01, t11};
  int emax = INT_MIN;
  bool finite = true;
  for (int k = 0; k < 4; ++k) {
    if (w[k] == 0 || t[k] == 0)
      continue;
    finite = finite && std::isfinite(t[k]);
    int e = 0;
    std::frexp(t[k], &e); // |t| in [2^(e-1), 2^e)
    emax = std::max(emax, e);
  }
  float r = 0;
  if (!finite) {
    for (int k = 0; k < 4; ++k)
      if (w[k] != 0)
        r += w[k] * t[k];
  } else if (emax != INT_MIN) {
    // Aligned texels have at most 28 bits and the weights' products 16
    // fraction bits: every product and the sum are exact in a double.
    double sum = 0;
    for (int k = 0; k < 4; ++k)
      if (w[k] != 0)
        sum += double(w[k]) *
               std::ldexp(std::trunc(std::ldexp(double(t[k]), 28 - emax)),
                          emax - 28);
    r = std::bit_cast<float>(uint32_t(encode_double(kF32, sum, {Round::RNA})));
  }
  if (std::isnan(r))
    return std::bit_cast<float>(0x7fffffffu);
  if (std::fpclassify(r) == FP_SUBNORMAL)
    return std::copysign(0.0f, r);
  return r;
}

// Linear filtering of normalized u8 texels, in fixed point as the H100
// does it (measured on the numerics data, tex.1d u8-normalized linear):
// the weighted sum of the 8-bit values with the 8-bit weights, widened to
// 16 bits (x 257) and rounded half up, is the 16-bit normalized value
// q / 65535. 2-D footprints use the products of the weights the same way.
float filter_unorm8(float a, float b, bool two_d, uint32_t t00, uint32_t t10,
                    uint32_t t01, uint32_t t11) {
  const uint64_t ia = uint64_t(a * 256), ib = two_d ? uint64_t(b * 256) : 0;
  const uint64_t wa[2] = {256 - ia, ia}, wb[2] = {256 - ib, ib};
  // The sum in units of 2^-16 of a texel step (weights' product / 65536).
  const uint64_t s = wa[0] * wb[0] * t00 + wa[1] * wb[0] * t10 +
                     wa[0] * wb[1] * t01 + wa[1] * wb[1] * t11;
  const uint64_t q = (s * 257 + 32768) >> 16;
  return float(double(q) / 65535.0);
}

void exec_tex(Exec &x, const Inst &in, uint32_t mask) {
  const TexOps &p = x.prog->payload<TexOps>(in);
  for_lanes(mask, [&](uint32_t l) {
    if (x.faulted)
      return;
    const uint64_t handle = x.reg(p.handle)[l];
    const Texture *t = x.gmem->texture(handle);
    if (!t) {
      x.set_error(FaultKind::Texture, l,
                  fmt::format("{:#x} is not a texture object (create it "
                              "with cudaCreateTextureObject)",
                              handle));
      return;
    }
    const uint64_t xs = x.reg(p.x)[l];
    const uint64_t ys = p.y == kNone ? 0 : x.reg(p.y)[l];
    Texel out;
    if (p.int_coords) {
      // Integer coordinates (tex1Dfetch) use no address mode: a texel
      // outside the texture reads as 0 in every channel (measured on H100).
      const int64_t i = int32_t(xs), j = int32_t(ys);
      const bool inside = i >= 0 && i < int64_t(t->width) &&
                          (p.dims < 2 || (j >= 0 && j < int64_t(t->height)));
      if (inside && !fetch(x, *t, i, j, l, out))
        return;
    } else {
      float u = as<float>(xs), v = p.dims > 1 ? as<float>(ys) : 0.5f;
      if (t->normalized_coords) {
        u *= float(t->width);
        if (p.dims > 1)
          v *= float(t->height);
      }
      const bool gather = p.gather != 0;
      if (!t->linear && !gather) {
        if (!fetch(x, *t, int64_t(std::floor(u)), int64_t(std::floor(v)), l,
                   out))
          return;
      } else {
        // The 2x2 footprint around (u - 0.5, v - 0.5); weights with 8
        // fractional bits as the hardware's filter.
        const float ub = u - 0.5f, vb = p.dims > 1 ? v - 0.5f : 0.0f;
        const int64_t i0 = int64_t(std::floor(ub));
        const int64_t j0 = int64_t(std::floor(vb));
        const float a = std::round((ub - std::floor(ub)) * 256.0f) / 256.0f;
        const float b =
            p.dims > 1 ? std::round((vb - std::floor(vb)) * 256.0f) / 256.0f
                       : 0.0f;
        Texel t00, t10, t01, t11;
        if (!fetch(x, *t, i0, j0, l, t00) || !fetch(x, *t, i0 + 1, j0, l, t10))
          return;
        if (p.dims > 1 && (!fetch(x, *t, i0, j0 + 1, l, t01) ||
                           !fetch(x, *t, i0 + 1, j0 + 1, l, t11)))
          return;
        if (gather) {
          // Counter-clockwise from the lower left: (i0,j1) (i1,j1) (i1,j0)
          // (i0,j0) of the component.
          const int c = int(p.gather) - 1;
          const Texel *order[4] = {&t01, &t11, &t10, &t00};
          for (int k = 0; k < 4; ++k) {
            out.f[k] = order[k]->f[c];
            out.u[k] = order[k]->u[c];
          }
        } else {
          const bool unorm8 =
              t->format == Texture::Format::U8 && t->normalized_float;
          for (int c = 0; c < 4; ++c) {
            out.f[c] = unorm8 ? filter_unorm8(a, b, p.dims > 1, t00.u[c],
                                              t10.u[c], t01.u[c], t11.u[c])
                              : filter(a, b, p.dims > 1, t00.f[c], t10.f[c],
                                       t01.f[c], t11.f[c]);
            out.u[c] = std::bit_cast<uint32_t>(out.f[c]);
          }
        }
      }
    }
    for (int c = 0; c < 4; ++c)
      x.reg(p.dst[c]).set(l, result(p, out, c));
  });
}

} // namespace

bool compile_texture(Compiler &c, const ptx::Instruction &in) {
  const bool is_tex = in.op == ptx::Op::tex;
  if (!is_tex && in.op != ptx::Op::tld4)
    return false;
  Mods mods(in);
  uint32_t comp = 0;
  if (!is_tex) {
    using ptx::Mod;
    static constexpr Mod kComps[] = {Mod::r, Mod::g, Mod::b, Mod::a};
    const Mod k = mods.take_any({Mod::r, Mod::g, Mod::b, Mod::a});
    if (k == Mod::unknown) {
      c.unsupported("tld4 without .r/.g/.b/.a");
      return true;
    }
    comp = 1 + uint32_t(std::find(std::begin(kComps), std::end(kComps), k) -
                        std::begin(kComps));
  }
  const ptx::Mod geom = mods.take_any({ptx::Mod::d1, ptx::Mod::d2});
  if (geom == ptx::Mod::unknown) {
    c.unsupported(fmt::format("{} geometry (only .1d and .2d)", in.opcode));
    return true;
  }
  if (!is_tex && geom != ptx::Mod::d2) {
    c.unsupported("tld4 geometry (only .2d)");
    return true;
  }
  if (!mods.take(ptx::Mod::v4)) {
    c.unsupported(fmt::format("{} without .v4", in.opcode));
    return true;
  }
  auto dty = mods.take_type();
  auto cty = mods.take_type();
  if (!dty || !cty ||
      !(dty->code == Ty::F32 || dty->code == Ty::S32 || dty->code == Ty::U32) ||
      !(cty->code == Ty::F32 || cty->code == Ty::S32) ||
      (!is_tex && cty->code != Ty::F32)) {
    c.unsupported(
        fmt::format("{} types (.v4.{{f32,s32,u32}}.{{f32,s32}})", in.opcode));
    return true;
  }
  if (!c.expect_operands(2) || !c.finish(mods))
    return true;
  using K = ptx::Operand::Kind;
  const auto &d = in.operands[0];
  const auto &src = in.operands[1];
  if (d.kind != K::Vector || d.elems.size() != 4) {
    c.error(d.loc, "expected a vector of four destination registers");
    return true;
  }
  if (src.kind != K::Address || src.elems.size() != 2 ||
      src.elems[0].kind != K::Reg || src.elems[1].kind != K::Vector) {
    c.unsupported(fmt::format(
        "{} operand (only [texture-object register, {{coordinates}}]; "
        ".texref and samplers are not supported)",
        in.opcode));
    return true;
  }
  const auto &coords = src.elems[1].elems;
  const uint32_t dims = geom == ptx::Mod::d1 ? 1 : 2;
  if (coords.size() < dims) {
    c.error(src.loc,
            fmt::format("{} needs {} coordinate(s)", ptx::name_of(geom), dims));
    return true;
  }
  TexOps p;
  for (int k = 0; k < 4; ++k)
    p.dst[k] = c.dst(d.elems[size_t(k)]);
  p.handle = c.src(src.elems[0], Ty{Ty::U64});
  p.x = c.src(coords[0], *cty);
  p.y = dims > 1 ? c.src(coords[1], *cty) : kNone;
  p.dims = uint8_t(dims);
  p.int_coords = cty->code == Ty::S32;
  p.out_type = dty->code == Ty::F32 ? 0 : dty->code == Ty::S32 ? 1 : 2;
  p.gather = uint8_t(comp);
  Inst &e = c.emit_with(&exec_tex, p);
  e.visible = 1;
  return true;
}

} // namespace bcusim::engine::detail
