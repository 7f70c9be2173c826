// Module compilation: lays out registers, module variables, shared memory,
// per-thread frames and kernel parameters, then compiles every instruction
// through its family (docs/engine.md "Compilation").
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <mutex>
#include <set>

#include "bcusim/ptx/instructions.h"
#include "cfg.h"
#include "compile.h"

namespace bcusim::engine::detail {

namespace {

uint64_t align_up(uint64_t v, uint64_t a) {
  if (a <= 1)
    return v;
  return (v + a - 1) / a * a;
}

// The lane width of a register (docs/engine.md "The register file"): 8
// bytes for 64-bit and wider types, 4 for the others.
uint8_t reg_width(const ptx::RegInfo &r) {
  auto ty = engine_type(r.ty);
  return ty && ty->bytes() > 4 ? 8 : 4;
}

uint32_t type_bytes(const std::string &t) {
  auto ty = parse_type(t);
  if (!ty)
    return 1;
  return std::max<uint32_t>(1, ty->bytes());
}

// Writes a variable's initializer into `image` at `off` (element by
// element; symbol references are resolved by `resolve`).
void write_init(
    const ptx::VarDecl &v, std::vector<uint8_t> &image, uint64_t off,
    const std::function<uint64_t(const ptx::VarDecl::Init &)> &resolve) {
  uint32_t esz = type_bytes(v.type);
  auto ty = parse_type(v.type);
  uint64_t pos = off;
  for (const auto &init : v.init) {
    uint64_t b = init.bits;
    if (init.kind == ptx::VarDecl::Init::Kind::Symbol)
      b = resolve(init);
    else if (init.kind == ptx::VarDecl::Init::Kind::Float && ty &&
             ty->code == Ty::F32) {
      // floats arrive as f64 bits unless they were written as 0f literals
      if (b >> 32)
        b = std::bit_cast<uint32_t>(
            static_cast<float>(std::bit_cast<double>(b)));
    }
    if (pos + esz > image.size())
      break;
    std::memcpy(image.data() + pos, &b, esz);
    pos += esz;
  }
}

std::atomic<uint64_t> next_module_segment{0};

} // namespace

DeviceFn device_fn_named(const std::string &name) {
  // The device heap's functions as nvcc declares them (.extern .func):
  // malloc/free, and the Itanium-mangled operators new, new[], delete,
  // delete[] (sized and nothrow forms included).
  static const char *const alloc[] = {
      "malloc", "_Znwm", "_Znam", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t"};
  static const char *const release[] = {"free",
                                        "_ZdlPv",
                                        "_ZdaPv",
                                        "_ZdlPvm",
                                        "_ZdaPvm",
                                        "_ZdlPvRKSt9nothrow_t",
                                        "_ZdaPvRKSt9nothrow_t"};
  for (auto n : alloc)
    if (name == n)
      return DeviceFn::HeapAlloc;
  for (auto n : release)
    if (name == n)
      return DeviceFn::HeapFree;
  if (name == "__cudaCDP2GetParameterBufferV2")
    return DeviceFn::GetParameterBuffer;
  if (name == "__cudaCDP2LaunchDeviceV2")
    return DeviceFn::LaunchDevice;
  if (name == "cudaGraphSetConditional")
    return DeviceFn::GraphSetConditional;
  static const std::pair<const char *, DeviceFn> others[] = {
      {"GetLastError", DeviceFn::GetLastError},
      {"PeekAtLastError", DeviceFn::PeekAtLastError},
      {"GetDevice", DeviceFn::GetDevice},
      {"DeviceGetAttribute", DeviceFn::DeviceGetAttribute},
      {"StreamCreateWithFlags", DeviceFn::StreamCreateWithFlags},
      {"StreamDestroy", DeviceFn::StreamDestroy},
      {"StreamWaitEvent", DeviceFn::StreamWaitEvent},
      {"EventCreateWithFlags", DeviceFn::EventCreateWithFlags},
      {"EventRecord", DeviceFn::EventRecord},
      {"EventRecordWithFlags", DeviceFn::EventRecordWithFlags},
      {"EventDestroy", DeviceFn::EventDestroy},
      {"MemcpyAsync", DeviceFn::MemcpyAsync},
      {"GetErrorString", DeviceFn::GetErrorString},
      {"Malloc", DeviceFn::Malloc},
      {"Free", DeviceFn::Free}};
  if (name.rfind("__cudaCDP2", 0) == 0)
    for (auto [n, fn] : others)
      if (name.compare(10, std::string::npos, n) == 0)
        return fn;
  return DeviceFn::None;
}

namespace {

// Why a well-known external function is undefined in a module.
std::string external_function_hint(const std::string &name) {
  if (name.rfind("__cudaCDP2", 0) == 0)
    return " (a device runtime call bcusim does not provide)";
  if (name.rfind("__cudaCDP", 0) == 0 ||
      name.rfind("cudaLaunchDevice", 0) == 0 ||
      name.rfind("cudaGetParameterBuffer", 0) == 0)
    return " (only the device runtime calls nvcc 13 emits, __cudaCDP2*, are "
           "provided)";
  if (name.rfind("cuda", 0) == 0 || name.rfind("__cuda", 0) == 0)
    return " (the device runtime is not supported)";
  return " (the module does not define it)";
}

} // namespace

// ---- types and modifiers ---------------------------------------------------
uint32_t Ty::bits() const {
  switch (code) {
  case B8:
  case U8:
  case S8:
    return 8;
  case B16:
  case U16:
  case S16:
  case F16:
  case BF16:
    return 16;
  case B32:
  case U32:
  case S32:
  case F32:
  case F16X2:
  case BF16X2:
  case TF32:
    return 32;
  case B64:
  case U64:
  case S64:
  case F64:
    return 64;
  case B128:
    return 128;
  case PRED:
    return 1;
  }
  return 32;
}

std::optional<Ty> engine_type(ptx::Type t) {
  using T = ptx::Type;
  switch (t) {
  case T::b8:
    return Ty{Ty::B8};
  case T::b16:
    return Ty{Ty::B16};
  case T::b32:
    return Ty{Ty::B32};
  case T::b64:
    return Ty{Ty::B64};
  case T::b128:
    return Ty{Ty::B128};
  case T::u8:
    return Ty{Ty::U8};
  case T::u16:
    return Ty{Ty::U16};
  case T::u32:
    return Ty{Ty::U32};
  case T::u64:
    return Ty{Ty::U64};
  case T::s8:
    return Ty{Ty::S8};
  case T::s16:
    return Ty{Ty::S16};
  case T::s32:
    return Ty{Ty::S32};
  case T::s64:
    return Ty{Ty::S64};
  case T::f16:
    return Ty{Ty::F16};
  case T::f16x2:
    return Ty{Ty::F16X2};
  case T::bf16:
    return Ty{Ty::BF16};
  case T::bf16x2:
    return Ty{Ty::BF16X2};
  case T::f32:
    return Ty{Ty::F32};
  case T::f64:
    return Ty{Ty::F64};
  case T::tf32:
    return Ty{Ty::TF32};
  case T::pred:
    return Ty{Ty::PRED};
  default:
    return std::nullopt;
  }
}

std::optional<Ty> parse_type(std::string_view n) {
  return engine_type(ptx::type_named(n));
}

bool Mods::take(ptx::Mod m) {
  for (size_t i = 0; i < ids_.size(); ++i)
    if (!used_[i] && ids_[i] == m) {
      used_[i] = true;
      return true;
    }
  return false;
}

ptx::Mod Mods::take_any(std::initializer_list<ptx::Mod> options) {
  for (size_t i = 0; i < ids_.size(); ++i) {
    if (used_[i])
      continue;
    for (auto o : options)
      if (ids_[i] == o) {
        used_[i] = true;
        return o;
      }
  }
  return ptx::Mod::unknown;
}

bool Mods::take_at(size_t i) {
  if (i >= used_.size() || used_[i])
    return false;
  used_[i] = true;
  return true;
}

std::optional<Ty> Mods::take_type() {
  for (size_t i = 0; i < mods_.size(); ++i) {
    if (used_[i])
      continue;
    const ptx::Mod id = i < ids_.size() ? ids_[i] : ptx::Mod::unknown;
    if (auto t = engine_type(ptx::type_of(id))) {
      used_[i] = true;
      return t;
    }
  }
  return std::nullopt;
}

std::vector<std::string> Mods::rest() const {
  std::vector<std::string> r;
  for (size_t i = 0; i < mods_.size(); ++i)
    if (!used_[i])
      r.push_back(mods_[i]);
  return r;
}

// ---- compiler helpers ------------------------------------------------------
std::string Compiler::text_of(const ptx::Instruction &in) const {
  std::string s = in.opcode;
  for (auto &m : in.modifiers)
    s += "." + m;
  return s;
}

Inst &Compiler::emit(ExecFn f, Kind k) {
  Inst i;
  i.fn = f;
  i.kind = k;
  // Where a random schedule may preempt (warp_step.cpp): memory others see,
  // and every instruction that is not plain arithmetic or a branch.
  i.visible = (cur && ptx::affects_other_threads(*cur)) ||
                      (k != Kind::Plain && k != Kind::Branch)
                  ? 1
                  : 0;
  if (cur && cur->guard) {
    if (!fn().reg_is_pred[cur->guard->reg]) {
      error(cur->guard->loc, "the guard must be a predicate register");
      i.guard = const_pred(true);
    } else {
      i.guard = fn().reg_slot[cur->guard->reg];
    }
    i.guard_neg = cur->guard->negated ? 1 : 0;
  }
  prog.code.push_back(i);
  prog.locs.push_back(cur ? cur->loc : SourceLoc{});
  prog.code_func.push_back(fidx);
  prog.code_text.push_back(cur ? text_of(*cur) : std::string());
  if (prog.reg_use_at.empty())
    prog.reg_use_at.push_back(0);
  if (cur) {
    auto add = [&](auto &self, const ptx::Operand &o) -> void {
      if (o.kind == ptx::Operand::Kind::Reg) {
        if (o.reg < fn().reg_slot.size() && !fn().reg_is_pred[o.reg])
          prog.reg_use.push_back(fn().reg_slot[o.reg]);
        return;
      }
      for (const auto &e : o.elems)
        self(self, e);
    };
    for (const auto &o : cur->operands)
      add(add, o);
  }
  prog.reg_use_at.push_back(uint32_t(prog.reg_use.size()));
  if (cur && (cur->op == ptx::Op::cp || cur->op == ptx::Op::wgmma))
    prog.async_proxy = true;
  prog.code_aligned.push_back(
      cur && ((cur->op == ptx::Op::bar && !cur->mods.empty()) ||
              cur->has(ptx::Mod::aligned))
          ? 1
          : 0);
  prog.cuda_pos.push_back(cur ? Program::CudaPos{cur->src_file, cur->src_line,
                                                 cur->src_col, cur->call_file,
                                                 cur->call_line}
                              : Program::CudaPos{});
  return prog.code.back();
}

void Compiler::error(SourceLoc loc, std::string message) {
  failed = true;
  sink.error(loc, std::move(message));
}

void Compiler::unsupported(const std::string &what) {
  error(cur->loc, fmt::format("unsupported {} in '{}'", what, text_of(*cur)));
}

bool Compiler::finish(const Mods &m) {
  auto rest = m.rest();
  if (rest.empty())
    return true;
  std::string list;
  for (auto &r : rest)
    list += (list.empty() ? "." : ", .") + r;
  error(cur->loc, fmt::format("unsupported modifier{} {} in '{}'",
                              rest.size() > 1 ? "s" : "", list, text_of(*cur)));
  return false;
}

bool Compiler::expect_operands(size_t n) {
  if (cur->operands.size() == n)
    return true;
  error(cur->loc,
        fmt::format("'{}' expects {} operand{}, got {}", text_of(*cur), n,
                    n == 1 ? "" : "s", cur->operands.size()));
  return false;
}

uint32_t Compiler::new_slot(uint8_t width) {
  // The file grows by pairs of units: a slot of 8-byte lanes takes one, two
  // slots of 4-byte lanes share one.
  if (width == 4 && half_unit != kNone) {
    const uint32_t k = half_unit;
    half_unit = kNone;
    prog.slot_units[k] = 4;
    return k;
  }
  const uint32_t pair = prog.reg_bytes / (2 * kSlotUnit);
  prog.reg_bytes += 2 * kSlotUnit;
  prog.slot_units.resize(prog.reg_bytes / kSlotUnit, 0);
  if (width == 4) {
    prog.slot_units[2 * pair] = 4;
    half_unit = 2 * pair + 1;
    return 2 * pair;
  }
  prog.slot_units[2 * pair] = 8;
  return pair | kWideSlot;
}

uint32_t Compiler::memo_slot(SlotMemo &memo,
                             std::vector<std::pair<uint32_t, uint64_t>> &fills,
                             uint64_t value, uint8_t width) {
  width = width == 4 ? 4 : 8;
  auto it = memo.find({value, width});
  if (it != memo.end())
    return it->second;
  uint32_t s = new_slot(width);
  fills.push_back({s, value});
  memo[{value, width}] = s;
  return s;
}

uint32_t Compiler::const_slot(uint64_t value, uint8_t width) {
  return memo_slot(const_slot_of, prog.const_slots, value, width);
}

uint32_t Compiler::cta_shared_slot(uint64_t addr, uint8_t width) {
  return memo_slot(cta_shared_slot_of, prog.cta_shared_slots, addr, width);
}

uint8_t Compiler::slot_width(uint32_t slot) const {
  return is_wide_slot(slot) ? 8 : 4;
}

Exec::RegLanes Exec::reg(const Inst &in, uint32_t k) const {
  return reg(in.a[k] | ((in.wide >> k) & 1 ? kWideSlot : 0));
}

void Exec::check_lane_width(uint32_t slot, uint8_t width) const {
  // An operand of the executing instruction: its width bit decides.
  bool named_wrong = false;
  if (pc < prog->code.size()) {
    const Inst &in = prog->code[pc];
    bool named = false;
    for (uint32_t k = 0; k < 6; ++k)
      if (in.a[k] == slot) {
        named = true;
        if (((in.wide >> k) & 1) == (width == 8 ? 1 : 0))
          return;
      }
    if (in.member == slot && width == 4)
      return;
    named_wrong = named;
  }
  // Else (another instruction's operand, a side table's slot): the file's
  // unit there.
  const size_t unit = size_t(slot) * (width / 4);
  const uint8_t w = unit < prog->slot_units.size() && !is_wide_slot(slot)
                        ? prog->slot_units[unit]
                        : 0;
  if (w == width && !named_wrong)
    return;
  const SourceLoc loc = pc < prog->locs.size() ? prog->locs[pc] : SourceLoc{};
  fmt::print(stderr,
             "lane width: {}:{}: '{}' reads slot {} (declared {} bytes) as {} "
             "bytes\n",
             loc.line, loc.col,
             pc < prog->code_text.size() ? prog->code_text[pc] : "?", slot, w,
             width);
  std::abort();
}

uint32_t Compiler::const_pred(bool value) {
  uint32_t &p = const_pred_of[value ? 1 : 0];
  if (p == kNone) {
    p = prog.npreds++;
    prog.const_preds.push_back({p, value ? kFullMask : 0u});
  }
  return p;
}

uint32_t Compiler::scratch_slot(uint8_t width) {
  width = width == 4 ? 4 : 8;
  const int k = width == 8 ? 2 : 1;
  auto &pool = scratch_slots[k];
  if (scratch_used[k] == pool.size())
    pool.push_back(new_slot(width));
  return pool[scratch_used[k]++];
}

uint32_t Compiler::scratch_pred() {
  if (scratch_pred_used == scratch_preds.size())
    scratch_preds.push_back(prog.npreds++);
  return scratch_preds[scratch_pred_used++];
}

namespace {
// The address of a recursive function's frame variable: the lane's frame
// base (slot a[1]) plus imm.
void exec_frame_addr(Exec &x, const Inst &in, uint32_t m) {
  uint64_t *d = x.lanes(in.a[0]);
  const uint64_t *b = x.lanes(in.a[1]);
  for_lanes(m, [&](uint32_t l) { d[l] = b[l] + uint64_t(in.imm); });
}
} // namespace

uint32_t Compiler::frame_address(const Sym &s, int64_t off, bool generic) {
  uint32_t d = scratch_slot(8);
  Inst &i = emit(&exec_frame_addr);
  i.guard = kNone; // computed for every lane of the path
  i.visible = 0;
  i.a[0] = d;
  i.a[1] = s.frame;
  i.imm = int64_t(s.addr) + off + (generic ? int64_t(kLocalWindow) : 0);
  return d;
}

bool Compiler::is_pred_operand(const ptx::Operand &o) const {
  return o.kind == ptx::Operand::Kind::Reg &&
         prog.funcs[fidx].reg_is_pred[o.reg];
}

const Sym *Compiler::lookup(const std::string &name) const {
  auto it = fsyms.find(name);
  if (it != fsyms.end())
    return &it->second;
  it = gsyms.find(name);
  if (it != gsyms.end())
    return &it->second;
  return nullptr;
}

uint64_t Compiler::symbol_value(const Sym &s, bool generic) const {
  switch (s.where) {
  case Sym::Where::Global:
    return s.addr;
  case Sym::Where::Shared:
    return generic ? kSharedWindow + s.addr : s.addr;
  case Sym::Where::Local:
    return generic ? kLocalWindow + s.addr : s.addr;
  case Sym::Where::KParam:
    return generic ? kParamWindow + s.addr : s.addr;
  case Sym::Where::Const:
    return generic ? kConstWindow + s.addr : s.addr;
  case Sym::Where::Func:
    return kFuncWindow + 16ull * s.func;
  }
  return 0;
}

uint32_t Compiler::src(const ptx::Operand &o, Ty t) {
  using K = ptx::Operand::Kind;
  switch (o.kind) {
  case K::Reg:
    if (fn().reg_is_pred[o.reg]) {
      error(o.loc, "a predicate register cannot be used as a value here");
      return const_slot(0, width_of(t));
    }
    return fn().reg_slot[o.reg];
  case K::Imm: {
    uint64_t v = static_cast<uint64_t>(o.ival);
    if (t.code == Ty::F32)
      v = bits(static_cast<float>(o.ival));
    else if (t.code == Ty::F64)
      v = bits(static_cast<double>(o.ival));
    return const_slot(v, width_of(t));
  }
  case K::FImm: {
    uint64_t v = static_cast<uint64_t>(o.ival);
    if (o.is_f32) {
      // A 0f literal is its 32 bits, also for an .f64 operand (zero-
      // extended, not converted), as ptxas 13 assembles it
      // (docs/ptx-frontend.md "Literals"); 0d for .f32 is converted.
      v &= 0xffffffffu;
    } else {
      double d = std::bit_cast<double>(v);
      if (t.code == Ty::F32)
        v = bits(static_cast<float>(d));
    }
    return const_slot(v, width_of(t));
  }
  case K::Special: {
    uint32_t aux = 0;
    ExecFn f = special_reader(o.name, aux, width_of(t));
    if (!f) {
      error(o.loc, fmt::format("unsupported special register {}", o.name));
      return const_slot(0, width_of(t));
    }
    uint32_t s = scratch_slot(width_of(t));
    Inst &i = emit(f);
    i.a[0] = s;
    i.aux = aux;
    return s;
  }
  case K::Symbol: {
    const Sym *sym = lookup(o.name);
    if (!sym) {
      error(o.loc, fmt::format("unknown symbol '{}'", o.name));
      return const_slot(0, width_of(t));
    }
    if (sym->frame != kNone)
      return frame_address(*sym, 0, false);
    // A shared variable's address carries the CTA's cluster rank.
    if (sym->where == Sym::Where::Shared)
      return cta_shared_slot(sym->addr, width_of(t));
    return const_slot(symbol_value(*sym, false), width_of(t));
  }
  default:
    error(o.loc, "expected a register or an immediate value");
    return const_slot(0, width_of(t));
  }
}

uint32_t Compiler::dst(const ptx::Operand &o) {
  using K = ptx::Operand::Kind;
  if (o.kind == K::Sink) {
    // `_`: a slot of the width of the instruction's (first) type.
    if (cur)
      for (const auto &m : cur->modifiers)
        if (auto t = parse_type(m); t && t->code != Ty::PRED)
          return scratch_slot(width_of(*t));
    return scratch_slot();
  }
  if (o.kind == K::Reg && !fn().reg_is_pred[o.reg])
    return fn().reg_slot[o.reg];
  error(o.loc, "expected a (non-predicate) destination register");
  return scratch_slot();
}

void exec_not_pred(Exec &x, const Inst &in, uint32_t m) {
  x.p[in.a[0]] = (x.p[in.a[0]] & ~m) | (~x.p[in.a[1]] & m);
}

uint32_t Compiler::psrc(const ptx::Operand &o) {
  using K = ptx::Operand::Kind;
  if (o.kind == K::Imm)
    return const_pred(o.ival != 0);
  if (o.kind != K::Reg || !fn().reg_is_pred[o.reg]) {
    error(o.loc, "expected a predicate operand");
    return const_pred(false);
  }
  uint32_t p = fn().reg_slot[o.reg];
  if (!o.negated)
    return p;
  uint32_t s = scratch_pred();
  Inst &i = emit(&exec_not_pred);
  i.guard = kNone; // computed for every lane of the path
  i.a[0] = s;
  i.a[1] = p;
  return s;
}

uint32_t Compiler::pdst(const ptx::Operand &o) {
  using K = ptx::Operand::Kind;
  if (o.kind == K::Sink)
    return scratch_pred();
  if (o.kind == K::Reg && fn().reg_is_pred[o.reg])
    return fn().reg_slot[o.reg];
  error(o.loc, "expected a predicate destination");
  return scratch_pred();
}

bool Compiler::address(const ptx::Operand &o, MemSpace space, Addr &out) {
  using K = ptx::Operand::Kind;
  if (o.kind != K::Address) {
    error(o.loc, "expected an address operand [...]");
    return false;
  }
  // A .param access in a .func reads the thread's frame (docs/engine.md).
  if (space == MemSpace::KParam && !fn().is_entry)
    space = MemSpace::Local;
  out.space = space;
  out.off = o.ival;
  out.base = kNone;
  if (o.elems.empty())
    return true;
  const auto &b = o.elems[0];
  switch (b.kind) {
  case K::Reg:
    out.base = src(b, Ty{Ty::U64});
    return !failed;
  case K::Imm:
    out.off += b.ival;
    return true;
  case K::Special:
    out.base = src(b, Ty{Ty::U64});
    return !failed;
  case K::Symbol: {
    const Sym *s = lookup(b.name);
    if (!s) {
      error(b.loc, fmt::format("unknown symbol '{}'", b.name));
      return false;
    }
    if (s->frame != kNone) {
      // A recursive function's frame variable: its lanes' frame base plus
      // the variable's offset (docs/engine.md "Recursion").
      if (space == MemSpace::Generic) {
        out.base = frame_address(*s, 0, true);
        return true;
      }
      if (space != MemSpace::Local && space != MemSpace::KParam) {
        error(b.loc, fmt::format("symbol '{}' is not in the .{} state space",
                                 b.name, name_of(space)));
        return false;
      }
      out.space = MemSpace::Local;
      out.base = s->frame;
      out.off += static_cast<int64_t>(s->addr);
      return true;
    }
    if (space == MemSpace::Generic) {
      out.off += static_cast<int64_t>(symbol_value(*s, true));
      // A shared variable: relative to the CTA's own shared memory.
      if (s->where == Sym::Where::Shared)
        out.base = cta_shared_slot(0);
      return true;
    }
    using W = Sym::Where;
    bool ok = false;
    switch (space) {
    case MemSpace::Global:
      ok = s->where == W::Global;
      break;
    case MemSpace::Shared:
      ok = s->where == W::Shared;
      break;
    case MemSpace::Local:
      ok = s->where == W::Local;
      break;
    case MemSpace::Const:
      ok = s->where == W::Const;
      break;
    case MemSpace::KParam:
      ok = s->where == W::KParam || s->where == W::Local;
      if (s->where == W::Local)
        out.space = MemSpace::Local;
      break;
    case MemSpace::Generic:
      break;
    }
    if (!ok) {
      error(b.loc, fmt::format("symbol '{}' is not in the .{} state space",
                               b.name, name_of(space)));
      return false;
    }
    out.off += static_cast<int64_t>(s->addr);
    if (s->where == W::Shared)
      out.base = cta_shared_slot(0);
    return true;
  }
  default:
    error(b.loc, "unsupported address base");
    return false;
  }
}

std::string_view name_of(MemSpace s) {
  switch (s) {
  case MemSpace::Global:
    return "global";
  case MemSpace::Shared:
    return "shared";
  case MemSpace::Local:
    return "local";
  case MemSpace::KParam:
    return "param";
  case MemSpace::Const:
    return "const";
  case MemSpace::Generic:
    return "generic";
  }
  return "?";
}

// ---- module layout and compilation ----------------------------------------
namespace {

// The functions that are part of a call cycle (docs/engine.md "Recursion"),
// from the PTX: direct calls, and indirect calls (through a register) to
// every function whose address the module takes (an operand or a .global
// initializer naming it). Each index is the function a name resolves to
// (its definition where there is one).
std::vector<bool> recursive_functions(const ptx::Module &mod) {
  const size_t n = mod.functions.size();
  std::map<std::string, uint32_t> index;
  for (uint32_t f = 0; f < n; ++f)
    if (!index.count(mod.functions[f].name) || !mod.functions[f].is_extern)
      index[mod.functions[f].name] = f;
  std::vector<std::set<uint32_t>> callees(n);
  std::vector<bool> indirect(n, false);
  std::set<uint32_t> taken;
  std::function<void(const ptx::Operand &)> note_taken =
      [&](const ptx::Operand &o) {
        if (o.kind == ptx::Operand::Kind::Symbol) {
          auto it = index.find(o.name);
          if (it != index.end())
            taken.insert(it->second);
        }
        for (const auto &e : o.elems)
          note_taken(e);
      };
  for (const auto &v : mod.globals)
    for (const auto &init : v.init)
      if (init.kind == ptx::VarDecl::Init::Kind::Symbol) {
        auto it = index.find(init.symbol);
        if (it != index.end())
          taken.insert(it->second);
      }
  for (uint32_t f = 0; f < n; ++f)
    for (const auto &in : mod.functions[f].body) {
      if (in.op != ptx::Op::call) {
        for (const auto &o : in.operands)
          note_taken(o);
        continue;
      }
      // The callee: the first register or symbol operand (call_step's
      // reading, exec_control.cpp).
      for (const auto &o : in.operands) {
        if (o.kind == ptx::Operand::Kind::Reg) {
          indirect[f] = true;
          break;
        }
        if (o.kind == ptx::Operand::Kind::Symbol) {
          auto it = index.find(o.name);
          if (it != index.end())
            callees[f].insert(it->second);
          break;
        }
      }
    }
  std::vector<bool> rec(n, false);
  for (uint32_t f = 0; f < n; ++f) {
    if (mod.functions[f].is_extern || mod.functions[f].is_entry)
      continue;
    // Whether f reaches itself.
    std::vector<bool> seen(n, false);
    std::vector<uint32_t> work;
    auto push_succ = [&](uint32_t g) {
      for (auto h : callees[g])
        if (!seen[h]) {
          seen[h] = true;
          work.push_back(h);
        }
      if (indirect[g])
        for (auto h : taken)
          if (!seen[h]) {
            seen[h] = true;
            work.push_back(h);
          }
    };
    push_succ(f);
    while (!work.empty() && !seen[f]) {
      const uint32_t g = work.back();
      work.pop_back();
      push_succ(g);
    }
    rec[f] = seen[f];
  }
  return rec;
}

// Names of the module's .extern variables outside .shared (extern .shared is
// dynamic shared memory): no module defines them here.
std::set<std::string> undefined_variables(const ptx::Module &mod) {
  std::set<std::string> r;
  for (const auto &v : mod.globals)
    if (v.is_extern && v.space != ptx::Space::Shared)
      r.insert(v.name);
  return r;
}

// The first use in `o` of one of `names` (a module-scope symbol).
const ptx::Operand *uses_variable(const ptx::Operand &o,
                                  const std::set<std::string> &names) {
  if (o.kind == ptx::Operand::Kind::Symbol &&
      o.sym_kind == ptx::Operand::SymbolKind::Global && names.count(o.name))
    return &o;
  for (const auto &e : o.elems)
    if (const ptx::Operand *u = uses_variable(e, names))
      return u;
  return nullptr;
}

// Shared-memory layout (docs/engine.md "Shared memory"). Each kernel's
// static .shared memory holds the variables it reaches; variables that no
// kernel reaches together may share offsets. Variables reached by several
// kernels are placed first, then the others in declaration order, each after
// every variable already placed for one of its kernels: a kernel whose
// variables are its own gets ptxas's layout. Extern (dynamic) .shared memory
// starts after the launched kernel's static memory; extern variables that one
// kernel reaches together share one start, after the static memory of every
// kernel that reaches one of them. Offsets are in the CTA's shared memory,
// which starts with the reserved 1 KiB (kReservedSmemBytes): the first
// variable is at 1024, as on sm_90.
constexpr size_t kNoVar = ~size_t(0);

template <class Pending, class SymOf>
void layout_shared(const ptx::Module &mod, Program &prog,
                   const std::vector<KernelReach> &reaches,
                   const std::vector<Pending> &pending, uint32_t dyn_align,
                   SymOf sym_of) {
  std::vector<uint32_t> kernels;
  for (size_t f = 0; f < mod.functions.size(); ++f)
    if (mod.functions[f].is_entry && !mod.functions[f].is_extern)
      kernels.push_back(uint32_t(f));
  // A shared variable an initializer names (its address in a .global or
  // .const variable) is reached by every kernel.
  std::set<std::string> in_inits;
  for (const auto &g : mod.globals)
    for (const auto &i : g.init)
      if (!i.symbol.empty())
        in_inits.insert(i.symbol);
  std::vector<std::vector<uint32_t>> reach(pending.size());
  for (uint32_t k : kernels) {
    const KernelReach &r = reaches[k];
    for (size_t i = 0; i < pending.size(); ++i) {
      const auto &p = pending[i];
      if (p.local ? r.funcs[p.owner]
                  : r.globals[p.owner] || in_inits.count(p.v->name))
        reach[i].push_back(k);
    }
  }
  std::vector<uint64_t> top(mod.functions.size(), kReservedSmemBytes);
  auto place = [&](size_t i) {
    const auto &p = pending[i];
    uint64_t off = kReservedSmemBytes;
    for (uint32_t k : reach[i])
      off = std::max(off, top[k]);
    off = align_up(off, p.align);
    for (uint32_t k : reach[i])
      top[k] = off + p.size;
    sym_of(p).addr = off;
    prog.shared_vars.push_back({p.v->name, off, p.size, reach[i]});
  };
  for (size_t i = 0; i < pending.size(); ++i)
    if (!pending[i].v->is_extern && reach[i].size() > 1)
      place(i);
  for (size_t i = 0; i < pending.size(); ++i)
    if (!pending[i].v->is_extern && reach[i].size() <= 1)
      place(i);
  // Extern variables: those one kernel reaches join one group (union-find).
  std::vector<size_t> group(pending.size());
  for (size_t i = 0; i < pending.size(); ++i)
    group[i] = i;
  auto find = [&](size_t i) {
    while (group[i] != i)
      i = group[i] = group[group[i]];
    return i;
  };
  std::vector<size_t> first(mod.functions.size(), kNoVar);
  for (size_t i = 0; i < pending.size(); ++i)
    if (pending[i].v->is_extern)
      for (uint32_t k : reach[i]) {
        if (first[k] == kNoVar)
          first[k] = i;
        else
          group[find(i)] = find(first[k]);
      }
  std::vector<uint64_t> start(pending.size(), kReservedSmemBytes);
  for (size_t i = 0; i < pending.size(); ++i)
    if (pending[i].v->is_extern)
      for (uint32_t k : reach[i])
        start[find(i)] = std::max(start[find(i)], top[k]);
  for (uint32_t k : kernels) {
    FuncInfo &fi = prog.funcs[k];
    fi.static_shared = uint32_t(top[k] - kReservedSmemBytes);
    fi.dyn_shared_off = uint32_t(align_up(
        first[k] == kNoVar ? top[k] : start[find(first[k])], dyn_align));
  }
  for (size_t i = 0; i < pending.size(); ++i)
    if (pending[i].v->is_extern) {
      const uint64_t off = align_up(start[find(i)], dyn_align);
      sym_of(pending[i]).addr = off;
      // extern shared extends to the end of the CTA's shared memory
      prog.shared_vars.push_back(
          {pending[i].v->name, off, ~0ull - off, reach[i]});
    }
}

bool build_program(const ptx::Module &mod, Program &prog,
                   DiagnosticSink &sink) {
  prog.source = mod.source;
  prog.cuda_files = mod.files;
  if (auto t = ptx::parse_target(mod.target))
    prog.warp_sync_same_inst = t->sm < 70;
  Compiler c(prog, mod);
  // Diagnostics collected since the last call go to function `f`.
  auto move_errors_to = [&](FuncInfo &f) {
    for (const auto &d : c.sink.all())
      f.errors.push_back(d);
    c.sink.clear();
    c.failed = false;
  };
  prog.global_base =
      kModuleGlobalBase +
      next_module_segment.fetch_add(1) %
          ((kUserGlobalBase - kModuleGlobalBase) / kModuleSegmentBytes) *
          kModuleSegmentBytes;

  // Module-scope variables. .shared variables get their offsets once every
  // function is known (which kernels reach which variables).
  uint32_t dyn_align = 16;
  std::vector<std::pair<const ptx::VarDecl *, uint64_t>> inits;
  struct PendingShared {
    const ptx::VarDecl *v;
    uint64_t size, align;
    size_t owner; // index of mod.globals, or of mod.functions for locals
    bool local;
  };
  std::vector<PendingShared> pending_shared;
  auto place_shared = [&](const ptx::VarDecl &v, uint64_t size, uint64_t align,
                          size_t owner, bool local) -> uint64_t {
    if (v.is_extern)
      dyn_align = std::max<uint32_t>(dyn_align, static_cast<uint32_t>(align));
    pending_shared.push_back({&v, size, align, owner, local});
    return kNone; // placed once the kernels' variables are known
  };
  std::vector<Sym *> extern_shared;
  std::vector<std::map<std::string, Sym>> func_syms(mod.functions.size());

  uint64_t frame_top = 0;
  for (const auto &v : mod.globals) {
    uint64_t esz = type_bytes(v.type);
    uint64_t size = esz * v.element_count();
    uint64_t align = v.align ? v.align : esz;
    Sym s;
    switch (v.space) {
    case ptx::Space::Global: {
      uint64_t off =
          align_up(prog.global_image.size(), std::max<uint64_t>(align, 16));
      prog.global_image.resize(off + size + 256, 0); // 256-byte guard gap
      s.where = Sym::Where::Global;
      s.addr = prog.global_base + off;
      prog.global_vars.push_back({v.name, s.addr, size, off});
      inits.push_back({&v, off});
      break;
    }
    case ptx::Space::Const: {
      uint64_t off = align_up(prog.const_image.size(), align);
      prog.const_image.resize(off + size, 0);
      prog.const_vars.push_back({v.name, off, size, off});
      s.where = Sym::Where::Const;
      s.addr = off;
      inits.push_back({&v, off | (1ull << 63)});
      break;
    }
    case ptx::Space::Shared:
      s.where = Sym::Where::Shared;
      s.addr =
          place_shared(v, size, align, size_t(&v - mod.globals.data()), false);
      break;
    case ptx::Space::Local:
      frame_top = align_up(frame_top, align);
      s.where = Sym::Where::Local;
      s.addr = frame_top;
      frame_top += size;
      break;
    default:
      c.error(v.loc, "unsupported module-scope variable state space");
      continue;
    }
    s.size = size;
    c.gsyms[v.name] = s;
  }
  // A module-scope declaration the engine cannot lay out fails the module.
  if (c.sink.has_errors()) {
    for (const auto &d : c.sink.all())
      sink.error(d.loc, d.message);
    return false;
  }

  // Functions: registers, frames, parameters. A recursive function's
  // frame is laid out from 0, relative to its frame base (docs/engine.md
  // "Recursion"); the others' frames have static offsets.
  const std::vector<bool> recursive = recursive_functions(mod);
  uint64_t *const static_top = &frame_top;
  for (size_t f = 0; f < mod.functions.size(); ++f) {
    const auto &fa = mod.functions[f];
    FuncInfo fi;
    fi.name = fa.name;
    fi.ast = &fa;
    fi.is_entry = fa.is_entry;
    fi.recursive = recursive[f];
    uint64_t frame_rel = 0;
    uint64_t &frame_top = fi.recursive ? frame_rel : *static_top;
    fi.is_vprintf = fa.is_extern && fa.name == "vprintf";
    if (fa.is_extern) {
      fi.device_fn = device_fn_named(fa.name);
    }
    fi.reg_slot.resize(fa.regs.size());
    fi.reg_is_pred.resize(fa.regs.size());
    for (size_t r = 0; r < fa.regs.size(); ++r) {
      bool pred = fa.regs[r].ty == ptx::Type::pred;
      fi.reg_is_pred[r] = pred;
      fi.reg_slot[r] = pred ? prog.npreds++ : c.new_slot(reg_width(fa.regs[r]));
      if (fi.recursive)
        (pred ? fi.save_preds : fi.save_slots).push_back(fi.reg_slot[r]);
    }
    if (fi.recursive) {
      fi.frame_slot = c.new_slot(8);
      fi.save_slots.push_back(fi.frame_slot);
    }
    const uint32_t frame_slot = fi.frame_slot;
    auto &syms = func_syms[f];
    auto param_size = [&](const ptx::Param &p) -> uint64_t {
      uint64_t esz = type_bytes(p.type);
      return p.array_size ? esz * p.array_size : esz;
    };
    if (fa.is_entry) {
      uint64_t top = 0;
      for (const auto &p : fa.params) {
        uint64_t size = param_size(p);
        uint64_t align = p.align ? p.align : type_bytes(p.type);
        top = align_up(top, align);
        syms[p.name] = Sym{Sym::Where::KParam, top, size, 0};
        fi.param_off.push_back(static_cast<uint32_t>(top));
        fi.param_size.push_back(static_cast<uint32_t>(size));
        top += size;
      }
      fi.kparam_bytes = static_cast<uint32_t>(top);
    } else {
      auto place = [&](const ptx::Param &p, std::vector<uint32_t> &offs,
                       std::vector<uint32_t> &sizes) {
        uint64_t size = param_size(p);
        uint64_t align =
            std::max<uint64_t>(p.align ? p.align : type_bytes(p.type), 8);
        frame_top = align_up(frame_top, align);
        syms[p.name] = Sym{Sym::Where::Local, frame_top, size, 0, frame_slot};
        offs.push_back(static_cast<uint32_t>(frame_top));
        sizes.push_back(static_cast<uint32_t>(size));
        frame_top += size;
      };
      for (const auto &p : fa.params)
        place(p, fi.param_off, fi.param_size);
      for (const auto &p : fa.returns)
        place(p, fi.ret_off, fi.ret_size);
    }
    // Function-scope variables. Call-sequence .param variables with the
    // same name (one per `callseq` scope) share one slot of the largest size.
    std::map<std::string, uint64_t> param_vars;
    for (const auto &v : fa.locals)
      if (v.space == ptx::Space::Param) {
        uint64_t size =
            type_bytes(v.type) * std::max<uint64_t>(1, v.element_count());
        param_vars[v.name] = std::max(param_vars[v.name], size);
      }
    for (auto &[name, size] : param_vars) {
      frame_top = align_up(frame_top, 16);
      syms[name] = Sym{Sym::Where::Local, frame_top, size, 0, frame_slot};
      frame_top += size;
    }
    for (const auto &v : fa.locals) {
      uint64_t esz = type_bytes(v.type);
      uint64_t size = esz * v.element_count();
      uint64_t align = v.align ? v.align : esz;
      switch (v.space) {
      case ptx::Space::Param:
        break;
      case ptx::Space::Local:
        frame_top = align_up(frame_top, align);
        syms[v.name] = Sym{Sym::Where::Local, frame_top, size, 0, frame_slot};
        frame_top += size;
        break;
      case ptx::Space::Shared:
        syms[v.name] = Sym{Sym::Where::Shared,
                           place_shared(v, size, align, f, true), size, 0};
        break;
      default:
        c.error(v.loc, "unsupported function-scope variable state space");
      }
    }
    if (fi.recursive)
      fi.frame_size =
          static_cast<uint32_t>(align_up(std::max<uint64_t>(frame_rel, 1), 16));
    move_errors_to(fi);
    prog.funcs.push_back(std::move(fi));
    Sym fs;
    fs.where = Sym::Where::Func;
    fs.func = static_cast<uint32_t>(f);
    if (!c.gsyms.count(fa.name) || fa.is_extern == false)
      c.gsyms[fa.name] = fs;
  }
  // What each kernel reaches (its shared memory layout, what its launches
  // need).
  std::vector<KernelReach> reaches(mod.functions.size());
  for (size_t f = 0; f < mod.functions.size(); ++f)
    if (mod.functions[f].is_entry && !mod.functions[f].is_extern)
      reaches[f] = kernel_reach(mod, f);
  layout_shared(mod, prog, reaches, pending_shared, dyn_align,
                [&](const PendingShared &p) -> Sym & {
                  return p.local ? func_syms[p.owner][p.v->name]
                                 : c.gsyms[p.v->name];
                });
  prog.frame_bytes = static_cast<uint32_t>(align_up(frame_top, 16));

  // Initializers (may refer to other symbols' addresses).
  for (auto &[v, off] : inits) {
    bool is_const = off >> 63;
    uint64_t o = off & ~(1ull << 63);
    auto resolve = [&](const ptx::VarDecl::Init &init) -> uint64_t {
      const Sym *s = c.lookup(init.symbol);
      if (!s) {
        c.error(v->loc,
                fmt::format("unknown symbol '{}' in initializer", init.symbol));
        return 0;
      }
      return c.symbol_value(*s, init.generic) + init.bits;
    };
    write_init(*v, is_const ? prog.const_image : prog.global_image, o, resolve);
  }
  if (c.sink.has_errors()) {
    for (const auto &d : c.sink.all())
      sink.error(d.loc, d.message);
    return false;
  }

  // Instructions.
  // The compile hooks, indexed by the bits of an opcode row's hooks
  // (ptx::hook, opcodes.def); a row names those that handle its opcode.
  using HookFn = bool (*)(Compiler &, const ptx::Instruction &);
  static const HookFn hooks[ptx::hook::kCount] = {
      compile_integer,  compile_float,   compile_compare, compile_convert,
      compile_memory,   compile_control, compile_warp,    compile_cluster,
      compile_mbarrier, compile_async,   compile_sync,    compile_texture,
      compile_mma};
  std::vector<std::vector<uint32_t>> body_pc(mod.functions.size());
  const std::set<std::string> undefined = undefined_variables(mod);
  for (size_t f = 0; f < mod.functions.size(); ++f) {
    const auto &fa = mod.functions[f];
    if (fa.is_extern)
      continue;
    c.fidx = static_cast<uint32_t>(f);
    c.fsyms = func_syms[f];
    c.branch_fixups.clear();
    auto &fi = prog.funcs[f];
    fi.entry_pc = static_cast<uint32_t>(prog.code.size());
    auto &bpc = body_pc[f];
    bpc.resize(fa.body.size() + 1);
    const std::vector<Contraction> contractions = find_contractions(fa);
    c.contractions = &contractions;
    for (size_t b = 0; b < fa.body.size(); ++b) {
      bpc[b] = static_cast<uint32_t>(prog.code.size());
      const auto &in = fa.body[b];
      for (const auto &o : in.operands) {
        if (const ptx::Operand *u =
                undefined.empty() ? nullptr : uses_variable(o, undefined))
          c.error(u->loc, fmt::format("use of undefined external variable "
                                      "'{}' (declared .extern, defined in no "
                                      "module bcusim loaded)",
                                      u->name));
      }
      c.cur = &in;
      c.cur_index = static_cast<uint32_t>(b);
      c.scratch_used[0] = c.scratch_used[1] = c.scratch_used[2] = 0;
      c.scratch_pred_used = 0;
      bool handled = false;
      for (uint16_t h = ptx::info(in.op).hooks; h != 0 && !handled;
           h &= static_cast<uint16_t>(h - 1))
        handled = hooks[std::countr_zero(h)](c, in);
      if (!handled)
        c.error(in.loc,
                fmt::format("unsupported instruction '{}'", c.text_of(in)));
    }
    bpc[fa.body.size()] = static_cast<uint32_t>(prog.code.size());
    c.contractions = nullptr;
    // Falling off the end of a function returns (kernels: exit).
    c.cur = nullptr;
    Inst &end = c.emit(nullptr, fa.is_entry ? Kind::Exit : Kind::Ret);
    (void)end;
    prog.locs.back() = fa.loc;
    prog.code_text.back() = "(end of function)";
    for (auto [pc, idx] : c.branch_fixups) {
      if (idx > fa.body.size()) {
        c.error(prog.locs[pc], "branch target out of range");
        continue;
      }
      prog.code[pc].target = bpc[idx];
    }
    fi.end_pc = static_cast<uint32_t>(prog.code.size());
    record_reconvergence(prog, fi.entry_pc, fi.end_pc);
    fi.compiled = true;
    move_errors_to(fi);
  }
  // Call targets (recursion is allowed: recursive_functions above, and
  // docs/engine.md "Recursion").
  std::vector<std::set<uint32_t>> callees(mod.functions.size());
  for (auto pc : c.call_fixups) {
    auto &site = prog.calls[prog.code[pc].aux];
    const auto &callee = prog.funcs[site.callee];
    auto &caller = prog.funcs[prog.code_func[pc]];
    if (!callee.compiled && !callee.is_vprintf &&
        callee.device_fn == DeviceFn::None) {
      Diagnostic d;
      d.loc = prog.locs[pc];
      d.message = fmt::format("call to undefined external function '{}'{}",
                              callee.name, external_function_hint(callee.name));
      caller.errors.push_back(std::move(d));
      continue;
    }
    prog.code[pc].target = callee.entry_pc;
    callees[prog.code_func[pc]].insert(site.callee);
  }
  // A kernel (or a function called indirectly) cannot run when it or a
  // function it calls cannot.
  for (uint32_t k = 0; k < prog.funcs.size(); ++k) {
    auto &ki = prog.funcs[k];
    if (!ki.compiled)
      continue;
    std::vector<uint32_t> order{k};
    std::set<uint32_t> seen{k};
    for (size_t i = 0; i < order.size(); ++i)
      for (auto g : callees[order[i]])
        if (seen.insert(g).second)
          order.push_back(g);
    for (auto f : order)
      for (const auto &e : prog.funcs[f].errors) {
        Diagnostic d = e;
        const char *what = ki.is_entry ? "kernel" : "function";
        d.message =
            f == k ? fmt::format("{} '{}' cannot run: {}", what, ki.name,
                                 e.message)
                   : fmt::format("{} '{}' cannot run: function '{}' it "
                                 "calls: {}",
                                 what, ki.name, prog.funcs[f].name, e.message);
        ki.blocked_by.push_back(std::move(d));
      }
  }
  // What each kernel's launches need, from the code it reaches.
  for (uint32_t k = 0; k < prog.funcs.size(); ++k) {
    auto &ki = prog.funcs[k];
    if (!ki.is_entry || !ki.compiled || reaches[k].funcs.empty())
      continue;
    const KernelReach &r = reaches[k];
    for (uint32_t f = 0; f < prog.funcs.size(); ++f) {
      const FuncInfo &fi = prog.funcs[f];
      if (!r.funcs[f] || !fi.compiled)
        continue;
      ki.reaches_recursion |= fi.recursive;
      for (uint32_t pc = fi.entry_pc; pc < fi.end_pc; ++pc) {
        ki.reads_grid_workspace |= reads_grid_workspace(prog.code[pc]);
        ki.device_launches |= prog.code[pc].kind == Kind::DeviceCall;
      }
    }
  }
  // Operand slots as the handlers index them: the width tag of each a[k]
  // moves to Inst::wide (side tables keep tagged ids).
  for (Inst &in : prog.code) {
    for (uint32_t k = 0; k < 6; ++k)
      if (in.a[k] != kNone && is_wide_slot(in.a[k])) {
        in.a[k] = slot_index(in.a[k]);
        in.wide |= uint8_t(1u << k);
      }
    if (in.member != kNone)
      in.member = slot_index(in.member);
  }
  return true;
}

} // namespace

KernelReach kernel_reach(const ptx::Module &m, size_t kernel) {
  KernelReach r;
  r.funcs.assign(m.functions.size(), false);
  r.globals.assign(m.globals.size(), false);
  std::vector<size_t> work{kernel};
  r.funcs[kernel] = true;
  bool indirect = false;
  auto reach = [&](size_t f) {
    if (f < r.funcs.size() && !r.funcs[f]) {
      r.funcs[f] = true;
      work.push_back(f);
    }
  };
  auto visit = [&](auto &self, const ptx::Operand &o) -> void {
    if (o.sym_kind == ptx::Operand::SymbolKind::Function)
      reach(o.sym_index);
    else if (o.sym_kind == ptx::Operand::SymbolKind::Global &&
             o.sym_index < r.globals.size())
      r.globals[o.sym_index] = true;
    for (const auto &e : o.elems)
      self(self, e);
  };
  while (!work.empty()) {
    const ptx::Function &f = m.functions[work.back()];
    work.pop_back();
    for (const auto &in : f.body) {
      if (in.op == ptx::Op::call) {
        // call (ret), target, (args): an indirect call names a register.
        for (const auto &o : in.operands)
          if (o.kind == ptx::Operand::Kind::Reg) {
            indirect = true;
            break;
          } else if (o.kind == ptx::Operand::Kind::Symbol) {
            break;
          }
      }
      for (const auto &o : in.operands)
        visit(visit, o);
    }
    // Through a pointer, every function may be called (and reaches what it
    // names).
    if (indirect && work.empty())
      for (size_t g = 0; g < m.functions.size(); ++g)
        if (!m.functions[g].is_entry)
          reach(g);
  }
  return r;
}

} // namespace bcusim::engine::detail

namespace bcusim::engine {

namespace {
// Diagnostics point into their SourceFile; when loading fails no Module
// keeps it alive, so the failed sources are retained for the process
// lifetime (a few kilobytes per failed load).
void retain(std::shared_ptr<const SourceFile> src) {
  static std::mutex mu;
  static std::vector<std::shared_ptr<const SourceFile>> kept;
  std::lock_guard<std::mutex> g(mu);
  kept.push_back(std::move(src));
}
} // namespace

Module::Module() = default;
Module::~Module() = default;

std::unique_ptr<Module> Module::compile(ptx::Module ast, DiagnosticSink &sink) {
  std::unique_ptr<Module> m(new Module());
  m->ast_ = std::make_unique<ptx::Module>(std::move(ast));
  m->program_ = std::make_unique<detail::Program>();
  if (!detail::build_program(*m->ast_, *m->program_, sink)) {
    retain(m->ast_->source);
    return nullptr;
  }
  return m;
}

std::unique_ptr<Module> Module::load_string(const std::string &name,
                                            const std::string &text,
                                            DiagnosticSink &sink) {
  auto src = SourceFile::from_string(name, text);
  auto ast = ptx::parse(src, sink);
  if (!ast) {
    retain(src);
    return nullptr;
  }
  return compile(std::move(*ast), sink);
}

std::unique_ptr<Module> Module::load_file(const std::string &path,
                                          DiagnosticSink &sink) {
  std::string err;
  auto src = SourceFile::read(path, err);
  if (!src) {
    sink.error(SourceLoc{}, err.empty() ? "cannot read " + path : err);
    return nullptr;
  }
  auto ast = ptx::parse(src, sink);
  if (!ast) {
    retain(src);
    return nullptr;
  }
  return compile(std::move(*ast), sink);
}

CudaLoc Module::cuda_loc(const SourceLoc &ptx) const {
  CudaLoc r;
  const detail::Program &P = *program_;
  for (size_t pc = 0; pc < P.locs.size(); ++pc) {
    const SourceLoc &l = P.locs[pc];
    if (l.line != ptx.line || l.file != ptx.file || P.cuda_pos[pc].line == 0)
      continue;
    const auto &cp = P.cuda_pos[pc];
    auto name = [&](uint32_t f) {
      for (const auto &[n, s] : P.cuda_files)
        if (n == f)
          return std::string_view(s);
      return std::string_view();
    };
    if (cp.call_line) {
      r.file = name(cp.call_file);
      r.line = cp.call_line;
      r.inner_file = name(cp.file);
      r.inner_line = cp.line;
    } else {
      r.file = name(cp.file);
      r.line = cp.line;
      r.col = cp.col;
    }
    return r;
  }
  return r;
}

std::vector<std::string> Module::kernel_names() const {
  std::vector<std::string> r;
  for (const auto &f : ast_->functions)
    if (f.is_entry)
      r.push_back(f.name);
  return r;
}

std::vector<Diagnostic> Module::kernel_errors(const std::string &kernel) const {
  for (const auto &f : program_->funcs)
    if (f.is_entry && f.name == kernel)
      return f.blocked_by;
  return {};
}

std::optional<std::vector<uint32_t>>
Module::kernel_param_sizes(const std::string &kernel) const {
  for (const auto &f : program_->funcs)
    if (f.is_entry && f.name == kernel)
      return f.param_size;
  return std::nullopt;
}

const ptx::Module &Module::ast() const { return *ast_; }

} // namespace bcusim::engine
