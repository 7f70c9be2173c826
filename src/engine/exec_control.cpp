// Control flow and synchronization instructions at compile time: bra, ret,
// exit, trap, call (incl. vprintf), nanosleep, and the barrier /
// synchronization family: bar.warp.sync; CTA barriers go to
// exec_barrier.cpp, clusters / elect / griddepcontrol to exec_cluster.cpp,
// mbarrier / cp.async / fence / membar to exec_mbarrier.cpp and
// exec_async.cpp.
// Their run-time behaviour lives in the scheduler (worker.h).
#include <algorithm>
#include <fmt/format.h>

#include "bcusim/engine/lower.h"
#include "compile.h"

namespace bcusim::engine::detail {

namespace {
void exec_nop(Exec &, const Inst &, uint32_t) {}
} // namespace

namespace {
// `call (rets), %rd, (args), prototype;`: the function is found at run time
// from the register's value (docs/engine.md "Calls"); the prototype gives
// the parameters, which must match the callee's.
bool compile_indirect_call(Compiler &c, const ptx::Instruction &in,
                           const ptx::Operand &callee, const ptx::Operand *rets,
                           const ptx::Operand *args,
                           const ptx::Operand *proto) {
  using K = ptx::Operand::Kind;
  if (!proto || proto->sym_kind != ptx::Operand::SymbolKind::Prototype) {
    c.error(proto ? proto->loc : in.loc,
            "an indirect call needs a .callprototype (call targets lists "
            "are not supported)");
    return true;
  }
  const ptx::CallPrototype &pt = c.ast().prototypes[proto->sym_index];
  size_t nargs = args ? args->elems.size() : 0;
  size_t nrets = rets ? rets->elems.size() : 0;
  if (nargs != pt.params.size() || nrets != pt.returns.size()) {
    c.error(in.loc,
            fmt::format("indirect call with {} argument(s) and {} result(s) "
                        "through prototype '{}', which has {} and {}",
                        nargs, nrets, pt.name, pt.params.size(),
                        pt.returns.size()));
    return true;
  }
  CallSite site;
  site.indirect = true;
  site.caller_frame = c.fn().frame_slot;
  auto var_of = [&](const ptx::Operand &e,
                    std::vector<std::pair<uint32_t, uint32_t>> &out) {
    const Sym *s = e.kind == K::Symbol ? c.lookup(e.name) : nullptr;
    if (!s || s->where != Sym::Where::Local) {
      c.error(e.loc, fmt::format("'{}' is not a .param variable of this "
                                 "function",
                                 e.name));
      return false;
    }
    out.push_back({uint32_t(s->addr), uint32_t(s->size)});
    return true;
  };
  for (size_t k = 0; k < nargs; ++k)
    if (!var_of(args->elems[k], site.arg_vars))
      return true;
  for (size_t k = 0; k < nrets; ++k)
    if (!var_of(rets->elems[k], site.ret_vars))
      return true;
  site.target_slot = c.src(callee, Ty{Ty::U64});
  c.prog.calls.push_back(std::move(site));
  Inst &i = c.emit(nullptr, Kind::Call);
  i.aux = uint32_t(c.prog.calls.size() - 1);
  return true;
}
} // namespace

bool compile_control(Compiler &c, const ptx::Instruction &in) {
  const ptx::Op op = in.op;
  const auto &o = in.operands;
  using K = ptx::Operand::Kind;
  if (op == ptx::Op::bra || op == ptx::Op::brx) {
    Mods mods(in);
    mods.take(ptx::Mod::uni);
    if (op == ptx::Op::brx) {
      c.unsupported("indirect branch");
      return true;
    }
    if (!c.expect_operands(1) || !c.finish(mods))
      return true;
    if (o[0].kind != K::Label) {
      c.error(o[0].loc, "expected a label");
      return true;
    }
    Inst &i = c.emit(nullptr, Kind::Branch);
    (void)i;
    c.branch_fixups.push_back({uint32_t(c.prog.code.size() - 1), o[0].label});
    return true;
  }
  if (op == ptx::Op::ret || op == ptx::Op::exit) {
    Mods mods(in);
    mods.take(ptx::Mod::uni);
    if (!c.expect_operands(0) || !c.finish(mods))
      return true;
    bool exit = op == ptx::Op::exit || c.fn().is_entry;
    c.emit(nullptr, exit ? Kind::Exit : Kind::Ret);
    return true;
  }
  if (op == ptx::Op::trap || op == ptx::Op::brkpt) {
    Mods mods(in);
    if (!c.finish(mods))
      return true;
    c.emit(nullptr, Kind::Trap);
    return true;
  }
  if (op == ptx::Op::nanosleep) {
    Mods mods(in);
    mods.take(ptx::Mod::u32);
    if (!c.expect_operands(1) || !c.finish(mods))
      return true;
    (void)c.src(o[0], Ty{Ty::U32});
    c.emit(&exec_nop, Kind::Yield);
    return true;
  }
  if (op == ptx::Op::pmevent) {
    c.emit(&exec_nop);
    return true;
  }
  if (op == ptx::Op::call) {
    Mods mods(in);
    mods.take(ptx::Mod::uni);
    if (!c.finish(mods))
      return true;
    const ptx::Operand *rets = nullptr, *callee = nullptr, *args = nullptr,
                       *proto = nullptr;
    for (const auto &x : o) {
      if (x.kind == K::List && !callee)
        rets = &x;
      else if ((x.kind == K::Symbol || x.kind == K::Reg) && !callee)
        callee = &x;
      else if (x.kind == K::List && callee && !args)
        args = &x;
      else if (x.kind == K::Symbol && callee && callee->kind == K::Reg &&
               !proto)
        proto = &x;
      else {
        c.unsupported("call form");
        return true;
      }
    }
    if (!callee) {
      c.error(in.loc, "call needs a function");
      return true;
    }
    if (callee->kind == K::Reg)
      return compile_indirect_call(c, in, *callee, rets, args, proto);
    const Sym *fs = c.lookup(callee->name);
    if (!fs || fs->where != Sym::Where::Func) {
      c.error(callee->loc, fmt::format("unknown function '{}'", callee->name));
      return true;
    }
    const FuncInfo &target = c.prog.funcs[fs->func];
    CallSite site;
    site.callee = fs->func;
    site.caller_frame = c.fn().frame_slot;
    auto var_of = [&](const ptx::Operand &e, uint32_t &off, uint64_t &size) {
      if (e.kind != K::Symbol) {
        c.unsupported("call argument (only .param variables)");
        return false;
      }
      const Sym *s = c.lookup(e.name);
      if (!s || s->where != Sym::Where::Local) {
        c.error(e.loc,
                fmt::format("'{}' is not a .param variable of this function",
                            e.name));
        return false;
      }
      off = uint32_t(s->addr);
      size = s->size;
      return true;
    };
    size_t nargs = args ? args->elems.size() : 0;
    size_t nrets = rets ? rets->elems.size() : 0;
    if (target.is_vprintf) {
      if (nargs != 2 || nrets > 1) {
        c.error(in.loc, "vprintf takes two arguments");
        return true;
      }
      uint32_t off;
      uint64_t size;
      if (!var_of(args->elems[0], off, size))
        return true;
      site.printf_fmt = off;
      if (!var_of(args->elems[1], off, size))
        return true;
      site.printf_args = off;
      if (nrets == 1) {
        if (!var_of(rets->elems[0], off, size))
          return true;
        site.printf_ret = off;
      }
      c.prog.calls.push_back(std::move(site));
      Inst &i = c.emit(nullptr, Kind::Printf);
      i.aux = uint32_t(c.prog.calls.size() - 1);
      return true;
    }
    if (target.device_fn == DeviceFn::HeapAlloc ||
        target.device_fn == DeviceFn::HeapFree) {
      // The device heap (docs/engine.md "Device heap"): one argument (the
      // size or the pointer), and malloc's result.
      const bool is_free = target.device_fn == DeviceFn::HeapFree;
      if (nargs < 1 || nrets != (is_free ? 0u : 1u)) {
        c.error(in.loc,
                fmt::format("call to '{}' with {} argument(s) and {} "
                            "result(s); it takes 1 and {}",
                            target.name, nargs, nrets, is_free ? 0 : 1));
        return true;
      }
      uint32_t arg_off, ret_off = kNone;
      uint64_t size;
      if (!var_of(args->elems[0], arg_off, size))
        return true;
      if (size < 8) {
        c.error(in.loc, fmt::format("the argument of '{}' must be 8 bytes",
                                    target.name));
        return true;
      }
      if (!is_free) {
        if (!var_of(rets->elems[0], ret_off, size))
          return true;
        if (size < 8) {
          c.error(in.loc, fmt::format("the result of '{}' must be 8 bytes",
                                      target.name));
          return true;
        }
      }
      Inst &i = c.emit(&exec_heap, Kind::Plain);
      i.a[0] = arg_off;
      i.a[1] = ret_off;
      i.a[2] = c.fn().frame_slot; // a recursive caller's frame base
      i.flags = is_free ? 1 : 0;
      i.visible = 1;
      c.prog.uses_heap = true;
      return true;
    }
    const auto &ast = *target.ast;
    // A failed device-side assert (CUDA's assert() calls the extern
    // __assertfail(message, file, line, function, charSize)): the kernel
    // stops like trap, reported as an assertion (aux = 1).
    if (ast.is_extern && target.name == "__assertfail") {
      Inst &i = c.emit(nullptr, Kind::Trap);
      i.aux = 1;
      return true;
    }
    if (nargs != ast.params.size() || nrets != ast.returns.size()) {
      c.error(in.loc,
              fmt::format("call to '{}' with {} argument(s) and {} result(s); "
                          "it takes {} and {}",
                          target.name, nargs, nrets, ast.params.size(),
                          ast.returns.size()));
      return true;
    }
    if (target.device_fn != DeviceFn::None) {
      site.device_fn = target.device_fn;
      if (target.device_fn == DeviceFn::Malloc ||
          target.device_fn == DeviceFn::Free)
        c.prog.uses_heap = true;
      for (size_t k = 0; k < nargs; ++k) {
        uint32_t off;
        uint64_t size;
        if (!var_of(args->elems[k], off, size))
          return true;
        site.device_args.push_back({off, uint32_t(size)});
      }
      if (nrets == 1) {
        uint32_t off;
        uint64_t size;
        if (!var_of(rets->elems[0], off, size))
          return true;
        site.device_ret = off;
        site.device_ret_size = uint32_t(size);
      }
      c.prog.calls.push_back(std::move(site));
      Inst &i = c.emit(nullptr, Kind::DeviceCall);
      i.aux = uint32_t(c.prog.calls.size() - 1);
      return true;
    }
    for (size_t k = 0; k < nargs; ++k) {
      uint32_t off;
      uint64_t size;
      if (!var_of(args->elems[k], off, size))
        return true;
      site.args.push_back(
          {off, target.param_off[k],
           uint32_t(std::min<uint64_t>(size, target.param_size[k]))});
    }
    for (size_t k = 0; k < nrets; ++k) {
      uint32_t off;
      uint64_t size;
      if (!var_of(rets->elems[k], off, size))
        return true;
      site.rets.push_back(
          {target.ret_off[k], off,
           uint32_t(std::min<uint64_t>(size, target.ret_size[k]))});
    }
    c.prog.calls.push_back(std::move(site));
    Inst &i = c.emit(nullptr, Kind::Call);
    i.aux = uint32_t(c.prog.calls.size() - 1);
    c.call_fixups.push_back(uint32_t(c.prog.code.size() - 1));
    return true;
  }
  return false;
}

namespace {

// setmaxnreg.{inc,dec}.sync.aligned.u32 N (docs/hopper.md "setmaxnreg"):
// imm = N, flags = 1 for .inc, aux = the kernel's .maxnreg (0: none). The
// warp's register count starts at the kernel's .maxnreg; without one it is
// unknown (ptxas picks it) until the warp's first setmaxnreg sets it.
void exec_setmaxnreg(Exec &x, const Inst &in, uint32_t m) {
  const std::string &text = x.prog->code_text[x.pc];
  if (m != kFullMask) {
    x.set_error(FaultKind::WarpSync, uint32_t(std::countr_zero(m)),
                fmt::format("'{}' executed by lanes {:#010x} only: "
                            "setmaxnreg.sync.aligned needs all 32 lanes of "
                            "every warp of the warpgroup",
                            text, m));
    return;
  }
  if (!whole_warpgroup(x))
    return;
  Warp &w = *x.warp;
  const uint32_t first = w.index & ~3u, k = uint32_t(w.setmaxnreg_pcs.size());
  // Every warp of the warpgroup executes the same setmaxnreg: the k-th of
  // each is at the same pc.
  for (uint32_t i = first; i < first + 4; ++i) {
    const Warp &o = x.cta->warps[i];
    if (i == w.index || o.setmaxnreg_pcs.size() <= k ||
        o.setmaxnreg_pcs[k] == x.pc)
      continue;
    const uint32_t opc = o.setmaxnreg_pcs[k];
    x.set_error(FaultKind::WarpSync, 0,
                fmt::format("'{} {}' in warp {}: warp {} of its warpgroup "
                            "executed the setmaxnreg at line {} instead "
                            "(every warp of the warpgroup must execute the "
                            "same setmaxnreg)",
                            text, in.imm, w.index, i, x.prog->locs[opc].line));
    return;
  }
  const bool inc = in.flags & 1;
  const uint32_t want = uint32_t(in.imm);
  const uint32_t cur = w.maxnreg ? w.maxnreg : in.aux;
  if (cur && (inc ? want < cur : want > cur)) {
    x.set_error(FaultKind::WarpSync, 0,
                fmt::format("'{} {}' in warp {}: the warp's register count "
                            "is {}; setmaxnreg.{} must {} it",
                            text, want, w.index, cur, inc ? "inc" : "dec",
                            inc ? "not lower" : "not raise"));
    return;
  }
  w.maxnreg = want;
  w.setmaxnreg_pcs.push_back(x.pc);
  ++x.progress;
}

bool compile_setmaxnreg(Compiler &c, const ptx::Instruction &in) {
  Mods mods(in);
  const ptx::Mod act = mods.take_any({ptx::Mod::inc, ptx::Mod::dec});
  if (act == ptx::Mod::unknown || !mods.take(ptx::Mod::sync) ||
      !mods.take(ptx::Mod::aligned) || !mods.take(ptx::Mod::u32)) {
    c.error(in.loc, fmt::format("'{}' needs '.inc' or '.dec' and "
                                "'.sync.aligned.u32'",
                                c.text_of(in)));
    return true;
  }
  if (!c.expect_operands(1) || !c.finish(mods))
    return true;
  const auto &o = in.operands[0];
  if (o.kind != ptx::Operand::Kind::Imm || o.ival < 24 || o.ival > 256 ||
      o.ival % 8) {
    c.error(o.loc, "the register count of 'setmaxnreg' must be an immediate "
                   "multiple of 8 in [24, 256]");
    return true;
  }
  Inst &i = c.emit(&exec_setmaxnreg, Kind::WarpSync);
  i.member = c.const_slot(kFullMask, 4);
  i.imm = o.ival;
  i.flags = act == ptx::Mod::inc ? 1 : 0;
  i.aux = c.ast().maxnreg;
  return true;
}

} // namespace

bool compile_sync(Compiler &c, const ptx::Instruction &in) {
  const ptx::Op op = in.op;
  const auto &o = in.operands;
  if (op == ptx::Op::bar || op == ptx::Op::barrier) {
    Mods mods(in);
    bool warp = mods.take(ptx::Mod::warp);
    if (warp) {
      // bar.warp.sync membermask: waits for the listed lanes (WarpSync).
      if (!mods.take(ptx::Mod::sync) || !c.finish(mods) ||
          !c.expect_operands(1)) {
        if (!c.failed)
          c.unsupported("form of bar.warp");
        return true;
      }
      uint32_t mem = c.src(o[0], Ty{Ty::B32});
      // The executing thread must be in membermask (seed 002), checked by
      // the scheduler for Kind::WarpSyncMember.
      Inst &i = c.emit(&exec_nop, Kind::WarpSyncMember);
      i.member = mem;
      return true;
    }
    // Every CTA barrier form: lowered onto the BCU (exec_barrier.cpp).
    if (is_cta_barrier(in))
      return compile_cta_barrier(c, in);
    c.unsupported("barrier form");
    return true;
  }
  // mbarrier, cp.async*, fence and membar: exec_mbarrier.cpp and
  // exec_async.cpp; clusters, elect, griddepcontrol: exec_cluster.cpp.
  if (op == ptx::Op::setmaxnreg)
    return compile_setmaxnreg(c, in);
  return false;
}

} // namespace bcusim::engine::detail
