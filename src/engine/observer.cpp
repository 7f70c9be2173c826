// Names of the observer interface's enumerations (observer.h).
#include "bcusim/engine/observer.h"

namespace bcusim::engine {

std::string_view name_of(StateSpace s) {
  switch (s) {
  case StateSpace::Global:
    return "global";
  case StateSpace::Shared:
    return "shared";
  case StateSpace::Local:
    return "local";
  case StateSpace::Param:
    return "param";
  case StateSpace::Const:
    return "const";
  }
  return "?";
}

std::string_view name_of(MemOrder o) {
  switch (o) {
  case MemOrder::Weak:
    return "weak";
  case MemOrder::Volatile:
    return "volatile";
  case MemOrder::Relaxed:
    return "relaxed";
  case MemOrder::Acquire:
    return "acquire";
  case MemOrder::Release:
    return "release";
  case MemOrder::AcqRel:
    return "acq_rel";
  case MemOrder::Sc:
    return "sc";
  }
  return "?";
}

std::string_view name_of(MemScope s) {
  switch (s) {
  case MemScope::None:
    return "none";
  case MemScope::Cta:
    return "cta";
  case MemScope::Cluster:
    return "cluster";
  case MemScope::Gpu:
    return "gpu";
  case MemScope::Sys:
    return "sys";
  }
  return "?";
}

std::string_view name_of(AtomicOp o) {
  static const char *const names[] = {"none", "add",  "min", "max",
                                      "inc",  "dec",  "and", "or",
                                      "xor",  "exch", "cas", "mbarrier"};
  return names[static_cast<int>(o)];
}

std::string_view name_of(SyncKind k) {
  static const char *const names[] = {"barrier-arrive",
                                      "barrier-complete",
                                      "barrier-resume",
                                      "warp-sync",
                                      "elect",
                                      "cluster-arrive",
                                      "cluster-complete",
                                      "cluster-resume",
                                      "mbarrier-init",
                                      "mbarrier-inval",
                                      "mbarrier-arrive",
                                      "mbarrier-expect-tx",
                                      "mbarrier-complete-tx",
                                      "mbarrier-phase-complete",
                                      "mbarrier-wait-done",
                                      "async-issue",
                                      "async-commit",
                                      "async-wait",
                                      "async-complete",
                                      "fence",
                                      "grid-sync",
                                      "griddep-launch",
                                      "griddep-wait",
                                      "thread-exit",
                                      "cta-begin",
                                      "cta-end"};
  static_assert(sizeof(names) / sizeof(names[0]) ==
                static_cast<size_t>(SyncKind::CtaEnd) + 1);
  return names[static_cast<int>(k)];
}

} // namespace bcusim::engine
