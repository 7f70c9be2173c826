// Runs one warp for a quantum of warp-instructions (docs/engine.md
// "Execution model"): the current path executes instruction by instruction;
// each instruction kind that interacts with control flow or other warps has
// its step here or in sync_*.cpp.
#include <algorithm>
#include <fmt/format.h>

#include "compile.h"
#include "mbarrier.h"
#include "observe.h"
#include "run.h"
#include "worker.h"

namespace bcusim::engine::detail {

// Lanes of `w` exited at `pc`: they no longer count for barrier.cluster and
// the observer learns of it.
void Worker::threads_exited(Cta &c, Warp &w, uint32_t lanes, uint32_t pc) {
  w.exited |= lanes;
  c.live_threads -= uint32_t(std::popcount(lanes));
  ++x.progress;
  if (S.obs)
    S.obs->on_thread_exit(event(c, w, lanes, pc));
  cluster_threads_exited(c, w, lanes, S.obs);
}

// A lane's register values in the activation stack: each slot's lane (4
// or 8 bytes, by the slot's width: state.h read_lane) in a word,
// predicates packed 64 to a word.
namespace {
void save_registers(Warp &w, const FuncInfo &f, uint32_t l,
                    std::vector<uint64_t> &out) {
  for (uint32_t slot : f.save_slots)
    out.push_back(read_lane(w.reg_file(), slot, l));
  for (size_t i = 0; i < f.save_preds.size(); i += 64) {
    uint64_t word = 0;
    for (size_t j = i; j < std::min(i + 64, f.save_preds.size()); ++j)
      word |= uint64_t((w.preds[f.save_preds[j]] >> l) & 1) << (j - i);
    out.push_back(word);
  }
}
void restore_registers(Warp &w, const FuncInfo &f, uint32_t l,
                       std::vector<uint64_t> &in) {
  const size_t words = (f.save_preds.size() + 63) / 64;
  const size_t at = in.size() - f.save_slots.size() - words;
  for (size_t k = 0; k < f.save_slots.size(); ++k)
    write_lane(w.reg_file(), f.save_slots[k], l, in[at + k]);
  for (size_t i = 0; i < f.save_preds.size(); ++i) {
    const uint64_t word = in[at + f.save_slots.size() + i / 64];
    uint32_t &p = w.preds[f.save_preds[i]];
    p = (p & ~(1u << l)) | uint32_t((word >> (i % 64)) & 1) << l;
  }
  in.resize(at);
}
} // namespace

// A call of recursive function `f` by lanes `m`: each lane gets a new frame
// on its stack (its base in `base`) and saves f's registers, which the
// return restores (docs/engine.md "Recursion"). False (a fault) when a
// lane's stack has no room for the frame.
bool Worker::push_activation(Warp &w, const FuncInfo &f, uint32_t m,
                             std::array<uint64_t, kWarpSize> &base) {
  if (w.stacks.empty())
    w.stacks.resize(kWarpSize);
  const uint32_t limit = S.L.stack_bytes;
  bool over = false;
  for_lanes(m, [&](uint32_t l) {
    const Warp::LaneStack &st = w.stacks[l];
    if (over || st.used + f.frame_size <= limit)
      return;
    over = true;
    x.set_error(FaultKind::StackOverflow, l,
                fmt::format("stack overflow: the call of '{}' is {} deep "
                            "in recursive calls, whose frames need {} "
                            "bytes of stack, beyond the limit of {} bytes "
                            "per thread (cudaLimitStackSize)",
                            demangle(f.name), st.depth + 1,
                            st.used + f.frame_size, limit));
  });
  if (over)
    return false;
  for_lanes(m, [&](uint32_t l) {
    Warp::LaneStack &st = w.stacks[l];
    base[l] = uint64_t(P.frame_bytes) + st.used;
    save_registers(w, f, l, st.saved);
    st.used += f.frame_size;
    ++st.depth;
  });
  return true;
}

// The return of recursive function `f` by lanes `m`: `base` gets the
// frame being left; the registers of the activation it returns to are
// restored.
void Worker::pop_activation(Warp &w, const FuncInfo &f, uint32_t m,
                            std::array<uint64_t, kWarpSize> &base) {
  for_lanes(m, [&](uint32_t l) {
    Warp::LaneStack &st = w.stacks[l];
    base[l] = w.lanes(f.frame_slot)[l];
    restore_registers(w, f, l, st.saved);
    st.used -= f.frame_size;
    --st.depth;
  });
}

// Whether function `f` has an activation on path `p`'s call stack: the
// function it is in, or one of its callers.
bool Worker::active_on(const Path &p, const FuncInfo &f) const {
  const uint32_t idx = uint32_t(&f - P.funcs.data());
  if (P.code_func[p.pc] == idx)
    return true;
  for (uint32_t c : p.calls)
    if (P.code_func[c] == idx)
      return true;
  return false;
}

// call / ret of a .func: copies the parameters between the frames (they
// are the caller's and callee's .param areas, docs/engine.md "Calls"); a
// recursive function's frame is on the lane's stack ("Recursion").
bool Worker::call_step(Cta &c, Warp &w, Path *&p, const Inst &in, uint32_t m) {
  // An indirect call: the lanes calling the first lane's function go now,
  // the others stay at the call and go later.
  std::vector<CallSite::Copy> indirect_args;
  uint32_t indirect_pc = kNone;
  const FuncInfo *callee = nullptr;
  if (in.kind == Kind::Call && P.calls[in.aux].indirect) {
    const CallSite &cs = P.calls[in.aux];
    const auto t = x.reg(cs.target_slot);
    const uint32_t first = uint32_t(std::countr_zero(m));
    const uint64_t addr = t[first];
    uint32_t same = 0;
    for_lanes(m, [&](uint32_t l) {
      if (t[l] == addr)
        same |= 1u << l;
    });
    const uint64_t idx = (addr - kFuncWindow) / 16;
    const FuncInfo *f = addr >= kFuncWindow && (addr - kFuncWindow) % 16 == 0 &&
                                idx < P.funcs.size()
                            ? &P.funcs[idx]
                            : nullptr;
    std::string why;
    if (!f || !f->compiled)
      why = f ? fmt::format("indirect call to '{}', which has no body", f->name)
              : fmt::format("indirect call to 0x{:x}, which is not the "
                            "address of a function",
                            addr);
    else if (f->is_entry)
      why = fmt::format("indirect call to kernel '{}'", f->name);
    else if (!f->blocked_by.empty())
      why = fmt::format("indirect call: {}", f->blocked_by[0].message);
    else if (!f->recursive && active_on(*p, *f))
      // Only a function the module names can be called through a
      // pointer into a cycle (its frames are then per activation); one
      // reached by address arithmetic has one static frame.
      why = fmt::format("indirect call re-enters function '{}', which is "
                        "active and whose address the module never takes "
                        "(its frame is not per activation)",
                        f->name);
    else if (f->param_off.size() != cs.arg_vars.size() ||
             f->ret_off.size() != cs.ret_vars.size())
      why = fmt::format("indirect call with {} argument(s) and {} result(s) "
                        "to function '{}', which takes {} and {}",
                        cs.arg_vars.size(), cs.ret_vars.size(), f->name,
                        f->param_off.size(), f->ret_off.size());
    if (!why.empty()) {
      x.set_error(FaultKind::Unsupported, first, std::move(why));
      report_fault(c, w, p->pc, m);
      return false;
    }
    if (m != p->mask)
      p = split_guarded(w, m);
    if (same != m) {
      Path np;
      np.pc = p->pc; // the other lanes call their functions later
      np.mask = p->mask & ~same;
      np.calls = p->calls;
      p->mask = same;
      const uint32_t cur = w.cur;
      w.paths.push_back(std::move(np));
      p = &w.paths[cur];
      m = same;
    }
    for (size_t k = 0; k < cs.arg_vars.size(); ++k)
      indirect_args.push_back(
          {cs.arg_vars[k].first, f->param_off[k],
           std::min(cs.arg_vars[k].second, f->param_size[k])});
    indirect_pc = f->entry_pc;
    callee = f;
  }
  if (m != p->mask)
    p = split_guarded(w, m);
  // Per lane, the frame bases the copies read from and write to (0: a
  // static frame).
  std::array<uint64_t, kWarpSize> from{}, to{};
  // An access of the lanes' frames (.local) by the call or return itself.
  auto frame_event = [&](uint32_t size) {
    AccessEvent e;
    e.pc = p->pc;
    e.cta = c.linear;
    e.owner = c.linear;
    e.warp = w.index;
    e.lanes = m;
    e.space = StateSpace::Local;
    e.origin = AccessOrigin::CallCopy;
    e.size = size;
    return e;
  };
  auto copy = [&](const std::vector<CallSite::Copy> &copies) {
    for_lanes(m, [&](uint32_t l) {
      uint8_t *f = frame(c, w, l);
      for (auto &cp : copies)
        std::memmove(f + to[l] + cp.to, f + from[l] + cp.from, cp.size);
    });
    if (!x.obs)
      return;
    // The copies read and write the lanes' frames (.local).
    std::array<uint64_t, kWarpSize> addr{};
    for (auto &cp : copies) {
      AccessEvent e = frame_event(cp.size);
      e.addr = addr.data();
      for_lanes(m, [&](uint32_t l) { addr[l] = from[l] + cp.from; });
      e.type = AccessType::Read;
      x.obs->on_access(e);
      for_lanes(m, [&](uint32_t l) { addr[l] = to[l] + cp.to; });
      e.type = AccessType::Write;
      x.obs->on_access(e);
    }
  };
  if (in.kind == Kind::Call) {
    const CallSite &cs = P.calls[in.aux];
    if (!callee)
      callee = &P.funcs[cs.callee];
    if (p->calls.size() >= kMaxCallDepth) {
      x.set_error(FaultKind::Unsupported, uint32_t(std::countr_zero(m)),
                  "call depth limit exceeded");
      report_fault(c, w, p->pc, m);
      return false;
    }
    if (cs.caller_frame != kNone)
      for_lanes(m, [&](uint32_t l) { from[l] = w.lanes(cs.caller_frame)[l]; });
    if (callee->recursive && !push_activation(w, *callee, m, to)) {
      report_fault(c, w, p->pc, m);
      return false;
    }
    copy(cs.indirect ? indirect_args : cs.args);
    if (callee->recursive)
      for_lanes(m, [&](uint32_t l) { w.lanes(callee->frame_slot)[l] = to[l]; });
    p->calls.push_back(p->pc);
    p->pc = cs.indirect ? indirect_pc : in.target;
    return true;
  }
  // The function being left (the one holding this ret).
  const FuncInfo &f = P.funcs[P.code_func[p->pc]];
  uint32_t call_pc = p->calls.back();
  p->calls.pop_back();
  const CallSite &cs = P.calls[P.code[call_pc].aux];
  if (f.recursive)
    pop_activation(w, f, m, from);
  if (cs.caller_frame != kNone)
    for_lanes(m, [&](uint32_t l) { to[l] = w.lanes(cs.caller_frame)[l]; });
  if (cs.indirect) {
    std::vector<CallSite::Copy> rets;
    for (size_t k = 0; k < cs.ret_vars.size(); ++k)
      rets.push_back({f.ret_off[k], cs.ret_vars[k].first,
                      std::min(cs.ret_vars[k].second, f.ret_size[k])});
    copy(rets);
  } else {
    copy(cs.rets);
  }
  if (f.recursive && x.obs) {
    // The frame left holds nothing any more (the checker's uninitialized
    // reads: a later activation there starts fresh).
    AccessEvent e = frame_event(f.frame_size);
    e.type = AccessType::Write;
    e.addr = from.data();
    x.obs->on_frame_end(e);
  }
  p->pc = call_pc + 1;
  return true;
}

// Warnings of the instruction just executed (Exec::warn), each reported
// once per instruction and message.
void Worker::flush_warnings(Cta &c, Warp &w) {
  for (auto &[lane, msg] : x.warnings) {
    std::string key = msg.substr(0, msg.find(':', msg.find('\'') + 1));
    {
      std::lock_guard<std::mutex> g(S.mu);
      if (!S.warned.insert({x.pc, key}).second)
        continue;
    }
    S.warn(where(c, w, lane, std::move(msg), x.pc), RunProblem::SyncMisuse);
  }
  x.warnings.clear();
  for (auto &[lane, msg] : x.survived) {
    {
      std::lock_guard<std::mutex> g(S.mu);
      // Once per instruction, as faults are (the first lane).
      if (!S.warned.insert({x.pc, "\x01survived"}).second)
        continue;
    }
    S.survived_error(where(c, w, lane, std::move(msg), x.pc),
                     RunProblem::Fault);
  }
  x.survived.clear();
}

// The registers of an in-flight wgmma.mma_async (its accumulator, and A when
// it is in registers) are undefined to the warp until a wgmma.wait_group
// retires it (docs/hopper.md "Checker rules for async pipelines"); other
// wgmma instructions may name them (a chain accumulating into the same
// registers). An error the launch survives, as on a GPU (measured on H100,
// driver 580.159.04: tests/exec/hopper_attention.cu's "operand" mode ends
// with cudaSuccess); a warning under --warn-only.
bool Worker::wgmma_operands(Cta &c, Warp &w, uint32_t pc, uint32_t m) {
  const Inst &in = P.code[pc];
  if (!m || is_wgmma(in))
    return true;
  const uint32_t *b = P.reg_use.data() + P.reg_use_at[pc],
                 *e = P.reg_use.data() + P.reg_use_at[pc + 1];
  for (const auto &live : w.wgmma_live)
    for (const uint32_t *r = b; r != e; ++r)
      if (std::find(live.slots.begin(), live.slots.end(), *r) !=
          live.slots.end()) {
        std::string msg = fmt::format(
            "'{}' accesses a register of the wgmma.mma_async at line {} "
            "before a wgmma.wait_group retires it: the register's value is "
            "undefined until then",
            P.code_text[pc], P.locs[live.pc].line);
        const uint32_t lane = uint32_t(std::countr_zero(m));
        if (S.cfg.warn_only)
          return survive(c, w, lane, pc, std::move(msg));
        // Once per wgmma: the first instruction that reads or writes its
        // registers early (the others of the same fragment follow it).
        {
          std::lock_guard<std::mutex> g(S.mu);
          if (!S.warned.insert({live.pc, "\x01wgmma operand"}).second)
            return true;
        }
        S.survived_error(where(c, w, lane, std::move(msg), pc),
                         RunProblem::SyncMisuse);
        return true;
      }
  return true;
}

namespace {

// A call's result written into the caller's frame (offset `off` of each
// lane's local frame), reported as one local write by lanes `m`.
void observe_frame_write(Exec &x, const Cta &c, const Warp &w, uint32_t pc,
                         uint32_t m, uint32_t off, uint32_t size,
                         uint32_t base_slot) {
  std::array<uint64_t, kWarpSize> addr{};
  addr.fill(off);
  if (base_slot != kNone) // a recursive caller's frame
    for_lanes(m, [&](uint32_t l) { addr[l] += w.lanes(base_slot)[l]; });
  AccessEvent e = access_event(pc, c.linear, w.index, AccessType::Write, size,
                               AtomicOp::None, MemOrder::Weak, MemScope::None,
                               AccessOrigin::Instruction, 0);
  e.owner = c.linear;
  e.lanes = m;
  e.space = StateSpace::Local;
  e.addr = addr.data();
  x.obs->on_access(e);
}

} // namespace

bool Worker::printf_step(Cta &c, Warp &w, Path *p, const Inst &in, uint32_t m) {
  const CallSite &cs = P.calls[in.aux];
  bool bad = false;
  for_lanes(m, [&](uint32_t l) {
    if (bad)
      return;
    uint8_t *f = caller_frame(c, w, l, cs.caller_frame);
    uint64_t fmt_addr, args_addr;
    std::memcpy(&fmt_addr, f + cs.printf_fmt, 8);
    std::memcpy(&args_addr, f + cs.printf_args, 8);
    int n = format_printf(x, fmt_addr, args_addr, l, c.printf_out);
    if (n < 0) {
      bad = true;
      return;
    }
    if (cs.printf_ret != kNone) {
      int32_t r = n;
      std::memcpy(f + cs.printf_ret, &r, 4);
    }
  });
  if (x.faulted) {
    report_fault(c, w, p->pc, m);
    return false;
  }
  if (x.obs && cs.printf_ret != kNone) // vprintf's return value
    observe_frame_write(x, c, w, p->pc, m, cs.printf_ret, 4, cs.caller_frame);
  ++p->pc;
  return true;
}

namespace {
uint64_t thread_key(const Cta &c, const Warp &w, uint32_t lane) {
  return c.linear << 16 | (uint64_t(w.index) * kWarpSize + lane);
}
} // namespace

// The device runtime's other calls (docs/engine.md "Device runtime
// calls") for lane `l`: the cudaError_t they return. `arg(k, out, n)`
// reads argument k; what a call stores through its pointer argument goes
// through the lane's memory (a fault when the pointer is bad) and is
// reported to the observer (`out`).
uint64_t Worker::device_runtime_call(
    Cta &c, Warp &w, uint32_t l, const CallSite &cs,
    const std::function<void(size_t, void *, size_t)> &arg, AccessBatch &out) {
  enum : uint64_t {
    Success = 0,
    InvalidValue = 1,
    InvalidDevice = 101,
    InvalidResourceHandle = 400
  };
  DeviceLaunches *dl = S.L.device_launches;
  if (!dl)
    return InvalidValue;
  auto store = [&](const void *value, uint32_t size) {
    uint64_t ptr = 0;
    arg(0, &ptr, 8);
    uint8_t *q = x.translate(MemSpace::Generic, ptr, size, true, l);
    if (!q)
      return false;
    std::memcpy(q, value, size);
    out.add(l, MemSpace::Generic, ptr, q);
    return true;
  };
  std::lock_guard g(dl->mu);
  const uint64_t key = thread_key(c, w, l);
  uint64_t result = Success;
  switch (cs.device_fn) {
  case DeviceFn::GetLastError:
  case DeviceFn::PeekAtLastError: {
    auto it = dl->last_error.find(key);
    if (it != dl->last_error.end()) {
      result = it->second;
      if (cs.device_fn == DeviceFn::GetLastError)
        dl->last_error.erase(it);
    }
    return result;
  }
  case DeviceFn::GetDevice: {
    const int32_t dev = 0;
    store(&dev, 4);
    break;
  }
  case DeviceFn::GraphSetConditional: {
    // The handle is the address of the condition's value (the stand-in
    // runtime's cudaGraphConditionalHandleCreate).
    uint32_t value = 0;
    arg(1, &value, 4);
    store(&value, 4);
    break;
  }
  case DeviceFn::DeviceGetAttribute: {
    int32_t attr = 0, dev = 0, value = 0;
    arg(1, &attr, 4);
    arg(2, &dev, 4);
    if (dev != 0)
      result = InvalidDevice;
    else if (dl->device_attribute)
      result = uint64_t(dl->device_attribute(attr, dev, value));
    if (result == Success)
      store(&value, 4);
    break;
  }
  case DeviceFn::StreamCreateWithFlags:
  case DeviceFn::EventCreateWithFlags: {
    const bool stream = cs.device_fn == DeviceFn::StreamCreateWithFlags;
    uint32_t flags = 0;
    arg(1, &flags, 4);
    // Device streams are non-blocking (cudaStreamNonBlocking, 1), device
    // events do not time (cudaEventDisableTiming, 2). cudaStreamDefault (0)
    // is accepted too (measured on H100, driver 580.159.04).
    if (stream ? (flags & ~1u) != 0 : (flags & ~2u) != 0) {
      result = InvalidValue;
      break;
    }
    uint64_t h = dl->next_handle++ * 16;
    if (store(&h, 8))
      (stream ? dl->streams : dl->events).insert(h);
    break;
  }
  case DeviceFn::StreamDestroy:
  case DeviceFn::EventDestroy: {
    uint64_t h = 0;
    arg(0, &h, 8);
    const bool stream = cs.device_fn == DeviceFn::StreamDestroy;
    auto &set = stream ? dl->streams : dl->events;
    // Destroying a stream of the grid a second time succeeds (measured on
    // H100, driver 580.159.04); an event's second destruction, or a handle
    // the grid never made, is refused.
    if (set.erase(h)) {
      if (stream)
        dl->destroyed_streams.insert(h);
    } else if (!(stream && dl->destroyed_streams.count(h))) {
      result = InvalidResourceHandle;
    }
    break;
  }
  case DeviceFn::EventRecord:
  case DeviceFn::EventRecordWithFlags:
  case DeviceFn::StreamWaitEvent: {
    // The grid's launches run in the order they were made (docs/engine.md
    // "Device-side launches"), which every event order allows: the calls
    // check their handles.
    uint64_t a0 = 0, a1 = 0;
    arg(0, &a0, 8);
    arg(1, &a1, 8);
    const bool wait = cs.device_fn == DeviceFn::StreamWaitEvent;
    const uint64_t event = wait ? a1 : a0, stream = wait ? a0 : a1;
    const bool named = stream == 0 || stream == 3 || stream == 4;
    if (!dl->events.count(event) || (!named && !dl->streams.count(stream)))
      result = InvalidResourceHandle;
    break;
  }
  case DeviceFn::GetErrorString: {
    // A pointer to the text, in the grid's pool of global memory (null
    // when the pool is full).
    uint32_t error = 0;
    arg(0, &error, 4);
    auto it = dl->error_strings.find(error);
    if (it != dl->error_strings.end())
      return it->second;
    const std::string text = dl->error_string ? dl->error_string(int(error))
                                              : fmt::format("{}", error);
    const uint64_t size = (text.size() + 1 + 15) / 16 * 16;
    if (dl->used + size > dl->pool_size)
      return 0;
    const uint64_t addr = dl->pool + dl->used;
    const Allocation *a = x.gmem->find(addr);
    if (!a || !a->data)
      return 0;
    std::memcpy(a->data + (addr - a->base), text.c_str(), text.size() + 1);
    dl->used += size;
    dl->error_strings[error] = addr;
    return addr;
  }
  case DeviceFn::Malloc: {
    uint64_t size = 0;
    arg(1, &size, 8);
    GlobalMemory &gm = *x.gmem;
    uint64_t q =
        gm.heap_base()
            ? gm.heap().alloc(gm.heap_base(), gm.heap_size(), size,
                              HeapBlock{size,
                                        true,
                                        fmt::format("cudaMalloc in kernel '{}'",
                                                    x.launch->kernel_name),
                                        {},
                                        {}})
            : 0;
    if (!store(&q, 8))
      break;
    if (!q)
      result = 2; // cudaErrorMemoryAllocation
    break;
  }
  case DeviceFn::Free: {
    uint64_t q = 0, size = 0;
    arg(0, &q, 8);
    if (q == 0)
      break;
    if (x.gmem->heap_base() && x.gmem->heap().free(q, size) == 0) {
      x.g_base = x.g_base2 = 1;
      x.g_size = x.g_size2 = 0;
    } else {
      result = InvalidValue;
    }
    break;
  }
  default:
    result = InvalidValue;
  }
  if (result != Success)
    dl->last_error[key] = uint32_t(result);
  return result;
}

// Device-side cudaMemcpyAsync(dst, src, count, kind, stream) for lane `l`
// (docs/engine.md "Device runtime calls"): device code copies device memory
// (cudaMemcpyDeviceToDevice or cudaMemcpyDefault; another kind is
// cudaErrorInvalidMemcpyDirection) in a stream of its grid
// or a named one. The copy runs at the call, one order CDP2 allows (a
// stream's work may start at once), 8 bytes at a time as the thread's own
// reads and writes (bounds-checked, seen by the checks).
uint64_t
Worker::device_memcpy(Cta &c, Warp &w, uint32_t l, const Inst &in,
                      const std::function<void(size_t, void *, size_t)> &arg) {
  DeviceLaunches *dl = S.L.device_launches;
  uint64_t dst = 0, src = 0, count = 0, stream = 0;
  uint32_t kind = 0;
  arg(0, &dst, 8);
  arg(1, &src, 8);
  arg(2, &count, 8);
  arg(3, &kind, 4);
  arg(4, &stream, 8);
  uint64_t result = 0;
  const bool named = stream == 0 || stream == 3 || stream == 4;
  if (!dl)
    result = 1; // cudaErrorInvalidValue
  else if (kind != 3 && kind != 4)
    result = 21; // cudaErrorInvalidMemcpyDirection (measured on H200)
  else {
    std::lock_guard g(dl->mu);
    if (!named && !dl->streams.count(stream))
      result = 400; // cudaErrorInvalidResourceHandle
  }
  for (uint64_t o = 0; result == 0 && o < count; o += 8) {
    const uint32_t n = uint32_t(std::min<uint64_t>(8, count - o));
    uint8_t buf[8];
    const uint8_t *from = x.translate(MemSpace::Generic, src + o, n, false, l);
    if (!from)
      break; // a fault
    std::memcpy(buf, from, n);
    uint8_t *to = x.translate(MemSpace::Generic, dst + o, n, true, l);
    if (!to)
      break;
    std::memcpy(to, buf, n);
    if (x.obs) {
      AccessBatch rd(x, in, AccessType::Read, n);
      rd.add(l, MemSpace::Generic, src + o);
      rd.emit();
      AccessBatch wr(x, in, AccessType::Write, n);
      wr.add(l, MemSpace::Generic, dst + o, to);
      wr.emit();
    }
  }
  if (result && dl) {
    std::lock_guard g(dl->mu);
    dl->last_error[thread_key(c, w, l)] = uint32_t(result);
  }
  return result;
}

// A device-side launch (docs/engine.md "Device-side launches"), lane by
// lane: cudaGetParameterBuffer hands out a buffer of the grid's pool for
// the arguments of a kernel, cudaLaunchDevice queues that launch; the
// queued launches run when the grid completes (Device::launch).
void Worker::device_call_step(Cta &c, Warp &w, Path *p, const Inst &in,
                              uint32_t m) {
  const CallSite &cs = P.calls[in.aux];
  DeviceLaunches *dl = S.L.device_launches;
  x.pc = p->pc;
  // What the calls store through their pointer argument.
  const uint32_t out_size =
      cs.device_fn == DeviceFn::GetDevice ||
              cs.device_fn == DeviceFn::DeviceGetAttribute ||
              cs.device_fn == DeviceFn::GraphSetConditional
          ? 4
          : 8;
  AccessBatch out(x, in, AccessType::Write, out_size);
  // Successful cudaLaunchDevice calls (lane, child, tail, stream) and
  // cudaEventRecord / cudaStreamWaitEvent calls (stream_op: lane, stream,
  // event), for the observer once the launch lock is released.
  struct Launched {
    uint32_t lane;
    uint64_t child;
    bool tail;
    uint64_t stream;
    bool stream_op = false, wait = false;
    uint64_t event = 0;
  };
  std::vector<Launched> launched;
  for_lanes(m, [&](uint32_t l) {
    uint8_t *f = caller_frame(c, w, l, cs.caller_frame);
    auto arg = [&](size_t k, void *dst, size_t n) {
      std::memset(dst, 0, n);
      if (k < cs.device_args.size())
        std::memcpy(dst, f + cs.device_args[k].first,
                    std::min<size_t>(n, cs.device_args[k].second));
    };
    uint64_t result = 0;
    if (cs.device_fn == DeviceFn::GetParameterBuffer) {
      uint64_t func = 0;
      uint32_t grid[3], block[3], shared = 0;
      arg(0, &func, 8);
      arg(1, grid, 12);
      arg(2, block, 12);
      arg(3, &shared, 4);
      const uint64_t idx = (func - kFuncWindow) / 16;
      if (dl && func >= kFuncWindow && (func - kFuncWindow) % 16 == 0 &&
          idx < P.funcs.size() && P.funcs[idx].is_entry) {
        std::lock_guard g(dl->mu);
        const uint64_t size =
            (std::max<uint64_t>(P.funcs[idx].kparam_bytes, 1) + 15) / 16 * 16;
        if (dl->used + size <= dl->pool_size) {
          DeviceLaunches::Buffer b;
          b.addr = dl->pool + dl->used;
          b.func = uint32_t(idx);
          b.grid = Dim3{grid[0], grid[1], grid[2]};
          b.block = Dim3{block[0], block[1], block[2]};
          b.shared = shared;
          dl->used += size;
          dl->buffers.push_back(b);
          result = b.addr;
        }
      }
    } else if (cs.device_fn == DeviceFn::LaunchDevice) {
      uint64_t buffer = 0, stream = 0;
      arg(0, &buffer, 8);
      arg(1, &stream, 8);
      result = 1; // cudaErrorInvalidValue: not a parameter buffer
      if (dl) {
        std::lock_guard g(dl->mu);
        for (size_t i = 0; i < dl->buffers.size(); ++i) {
          auto &b = dl->buffers[i];
          if (b.addr != buffer || b.launched)
            continue;
          const uint64_t threads = uint64_t(b.block.x) * b.block.y * b.block.z;
          if (threads == 0 || threads > 1024 || b.block.z > 64 ||
              uint64_t(b.grid.x) * b.grid.y * b.grid.z == 0 ||
              b.grid.y > 65535 || b.grid.z > 65535)
            result = 9; // cudaErrorInvalidConfiguration
          else if (dl->depth + 1 > dl->max_depth)
            result = 65; // cudaErrorLaunchMaxDepthExceeded
          else if (dl->pending.size() >= dl->pending_limit)
            result = 69; // cudaErrorLaunchPendingCountExceeded
          else {
            b.launched = true;
            // cudaStreamTailLaunch is the handle 3.
            dl->pending.push_back({i, stream == 3});
            launched.push_back(
                {l, dl->pending.size() - 1, stream == 3, stream});
            result = 0;
          }
          break;
        }
        if (result)
          dl->last_error[thread_key(c, w, l)] = uint32_t(result);
      }
    } else if (cs.device_fn == DeviceFn::MemcpyAsync) {
      result = device_memcpy(c, w, l, in, arg);
    } else {
      result = device_runtime_call(c, w, l, cs, arg, out);
      const bool record = cs.device_fn == DeviceFn::EventRecord ||
                          cs.device_fn == DeviceFn::EventRecordWithFlags;
      if (result == 0 &&
          (record || cs.device_fn == DeviceFn::StreamWaitEvent)) {
        uint64_t a0 = 0, a1 = 0;
        arg(0, &a0, 8);
        arg(1, &a1, 8);
        launched.push_back(
            {l, 0, false, record ? a1 : a0, true, !record, record ? a0 : a1});
      }
    }
    if (cs.device_ret != kNone)
      std::memcpy(f + cs.device_ret, &result,
                  std::min<uint32_t>(cs.device_ret_size, 8));
  });
  out.emit();
  if (x.obs && cs.device_ret != kNone)
    observe_frame_write(x, c, w, p->pc, m, cs.device_ret,
                        std::min<uint32_t>(cs.device_ret_size, 8),
                        cs.caller_frame);
  if (x.sync_obs)
    for (const Launched &ld : launched) {
      if (ld.stream_op) {
        auto e = thread_event<DeviceStreamEvent>(x, 1u << ld.lane);
        e.wait = ld.wait;
        e.stream = ld.stream;
        e.event = ld.event;
        x.sync_obs->on_device_stream_event(e);
        continue;
      }
      auto e = thread_event<DeviceLaunchEvent>(x, 1u << ld.lane);
      e.child = ld.child;
      e.tail = ld.tail;
      e.stream = ld.stream;
      x.sync_obs->on_device_launch(e);
    }
  ++p->pc;
}

namespace {

// Asks the host to prefetch the register slots (32 lanes, 4 cache lines
// each) that the next kPrefetchInsts instructions from `pc` name, along
// plain instructions and branches (backward ones followed, so a loop's body
// is covered from any pc in it). A random schedule switches among up to 64
// resident warps, whose register files do not all stay in the host's
// nearest caches: a warp's turn would otherwise start with one miss after
// another, instruction by instruction (docs/performance.md). A hint: no
// value depends on it.
void prefetch_registers(const Program &P, const uint8_t *regs, uint32_t pc) {
  constexpr uint32_t kPrefetchInsts = 12;
  const uint32_t start = pc;
  for (uint32_t k = 0; k < kPrefetchInsts && pc + 1 < P.reg_use_at.size();
       ++k) {
    for (uint32_t i = P.reg_use_at[pc]; i < P.reg_use_at[pc + 1]; ++i) {
      const uint32_t id = P.reg_use[i];
      const auto q = reinterpret_cast<uintptr_t>(regs + slot_offset(id));
      for (uintptr_t o = 0; o < (is_wide_slot(id) ? 2 : 1) * kSlotUnit; o += 64)
        __builtin_prefetch(reinterpret_cast<const void *>(q + o));
    }
    const Inst &in = P.code[pc];
    if (in.kind == Kind::Branch && in.target < pc)
      pc = in.target;
    else if (in.kind == Kind::Plain || in.kind == Kind::Branch)
      ++pc;
    else
      break;
    if (pc == start)
      break;
  }
}

} // namespace

uint64_t Worker::run_warp(Cta &c, Warp &w, uint64_t quantum) {
  x.warp = &w;
  x.cta = &c;
  x.r = w.reg_file();
  x.p = w.preds.data();
  if (random && !w.paths.empty())
    prefetch_registers(P, x.r, w.paths[w.cur].pc);
  const Inst *code = P.code.data();
  uint64_t steps = 0, tsteps = 0;
  bool reselect = false;
  // Leaves the quantum: `count` says whether the current instruction's
  // thread-instructions are counted.
  auto leave = [&](bool count) {
    w.steps += steps;
    if (count)
      pending_tsteps += tsteps;
    return steps;
  };
  while (steps < quantum) {
    if (reselect || w.paths.size() > 1) {
      reselect = false;
      if (!select(w))
        break;
    }
    Path *p = &w.paths[w.cur];
    const Inst &in = code[p->pc];
    // A random schedule preempts before memory and synchronization
    // instructions (docs/engine.md "Schedule").
    if (random && in.visible && steps && (rng.next() & 15) == 0)
      break;
    uint32_t m = p->mask;
    if (in.guard != kNone) {
      uint32_t g = x.p[in.guard];
      m &= in.guard_neg ? ~g : g;
    }
    ++steps;
    x.turn_steps = steps;
    ++w.path_steps;
    tsteps += m == kFullMask ? kWarpSize : uint32_t(std::popcount(m));
    x.pc = p->pc;
    if (!w.wgmma_live.empty()) [[unlikely]]
      if (!wgmma_operands(c, w, p->pc, m))
        return leave(false);
    switch (in.kind) {
    case Kind::Plain: {
      // A run of plain instructions (the body of a basic block) goes on
      // here without the path and kind bookkeeping: plain handlers change
      // neither the paths nor the control flow. It stops before any other
      // kind and at the end of the quantum. Under a random schedule the
      // preemption draw before a plain instruction that may be a preemption
      // point is made here, from the same stream at the same moment as the
      // loop above would make it, so the run only ends when the turn does.
      // A diverged warp's path goes on as well, under the other schedules,
      // while select_path would choose it again and merge nothing: below
      // run_ahead_limit (the next pc where it may meet another path: in
      // structured code its branch's reconvergence point, Program::reconv)
      // and before its anti-starvation turn is due. Otherwise it goes back
      // to the loop above after each instruction, where the paths merge
      // where their pcs meet and take turns.
      const bool alone = w.paths.size() == 1;
      const uint32_t limit =
          alone ? kNone : (random ? p->pc : run_ahead_limit(w, *p));
      const uint32_t mask = p->mask;
      uint32_t pc = p->pc, run = 0;
      const Inst *cur = &in;
      for (;;) {
        if (m)
          cur->fn(x, *cur, m);
        if (x.has_remarks())
          flush_warnings(c, w);
        if (x.faulted) {
          p->pc = pc;
          w.path_steps += run;
          report_fault(c, w, pc, m);
          return leave(false);
        }
        cur = &code[++pc];
        if (cur->kind != Kind::Plain || steps >= quantum)
          break;
        if (!alone && (pc >= limit || w.path_steps + run >= kPathQuantum))
          break;
        if (random && cur->visible && (rng.next() & 15) == 0) {
          p->pc = pc;
          w.path_steps += run;
          return leave(true);
        }
        m = mask;
        if (cur->guard != kNone) {
          uint32_t g = x.p[cur->guard];
          m &= cur->guard_neg ? ~g : g;
        }
        ++steps;
        ++run;
        x.turn_steps = steps;
        tsteps += m == kFullMask ? kWarpSize : uint32_t(std::popcount(m));
        x.pc = pc;
        if (!w.wgmma_live.empty()) [[unlikely]]
          if (!wgmma_operands(c, w, pc, m)) {
            p->pc = pc;
            w.path_steps += run;
            return leave(false);
          }
      }
      p->pc = pc;
      w.path_steps += run;
      break;
    }
    case Kind::Branch:
      if (watch && m && in.target <= p->pc)
        spin_sample(w, p->pc, m);
      if (m == p->mask) {
        p->pc = in.target;
      } else if (m == 0) {
        ++p->pc;
      } else {
        Path np;
        np.pc = in.target;
        np.mask = m;
        np.calls = p->calls;
        p->mask &= ~m;
        ++p->pc;
        w.paths.push_back(std::move(np));
        reselect = true;
      }
      break;
    case Kind::Ret:
      if (m && p->calls.empty()) {
        // ret outside any call: the threads exit, like exit.
        if (m != p->mask)
          p = split_guarded(w, m);
        [[fallthrough]];
      } else {
        if (m == 0) {
          ++p->pc;
          break;
        }
        if (!call_step(c, w, p, in, m))
          return leave(false);
        reselect = true;
        break;
      }
    case Kind::Exit: {
      if (m == 0) {
        ++p->pc;
        break;
      }
      threads_exited(c, w, m, p->pc);
      if (m == p->mask) {
        w.paths.erase(w.paths.begin() + w.cur);
        w.cur = 0;
        if (w.paths.empty())
          --c.live_warps;
      } else {
        p->mask &= ~m;
        ++p->pc;
      }
      reselect = true;
      if (!bar_exited(c, w))
        return leave(false);
      if (w.paths.empty())
        return leave(true);
      break;
    }
    case Kind::CtaBarrier:
      if (m == 0) {
        ++p->pc;
        break;
      }
      if (m != p->mask)
        p = split_guarded(w, m);
      reselect = true;
      if (!barrier_step(c, w, w.cur))
        return leave(false);
      break;
    case Kind::Call:
      if (m == 0) {
        ++p->pc;
        break;
      }
      if (!call_step(c, w, p, in, m))
        return leave(false);
      reselect = true;
      break;
    case Kind::Printf:
      if (!printf_step(c, w, p, in, m))
        return leave(false);
      break;
    case Kind::DeviceCall:
      device_call_step(c, w, p, in, m);
      break;
    case Kind::WarpSync:
    case Kind::WarpSyncMember: {
      bool blocked = false;
      if (!warp_sync_step(c, w, p, in, m, blocked))
        return leave(false);
      if (blocked) {
        // Waiting lanes did not execute: this step does not count.
        --steps;
        tsteps -= uint32_t(std::popcount(m));
        reselect = true;
      } else if (w.paths.size() > 1) {
        reselect = true;
      }
      break;
    }
    case Kind::Trap:
      if (m == 0) {
        ++p->pc;
        break;
      }
      x.set_error(FaultKind::Trap, uint32_t(std::countr_zero(m)),
                  in.aux ? "assert" : "trap");
      report_fault(c, w, p->pc, m);
      return leave(false);
    case Kind::Yield:
      ++p->pc;
      return leave(true);
    case Kind::ClusterArrive:
    case Kind::ClusterWait:
      if (!cluster_step(c, w, p, in, m))
        return leave(false);
      reselect = true;
      break;
    case Kind::GridDepWait:
      // Launches run in order (docs/clusters.md "griddepcontrol"): the
      // prerequisite grid has completed and its writes are visible.
      if (m && !S.L.has_prerequisite)
        S.note_griddep_wait(p->pc);
      if (m && S.obs)
        S.obs->on_griddep_wait(event(c, w, m, p->pc));
      ++p->pc;
      break;
    case Kind::MbarWait: {
      uint64_t bound = 0;
      bool suspend = m != 0 && mbar_wait(x, in, m, *p, bound);
      if (x.has_remarks())
        flush_warnings(c, w);
      if (x.faulted) {
        report_fault(c, w, p->pc, m);
        return leave(false);
      }
      if (!p->wait_retry || !suspend)
        ++p->pc; // test_wait returned false, or the wait is over
      if (suspend) {
        p->state = PathState::BlockedMbar;
        p->wait_until = now + steps + bound;
        reselect = true;
        if (w.paths.size() == 1)
          return leave(true);
      }
      break;
    }
    }
  }
  return leave(true);
}

} // namespace bcusim::engine::detail
