// Stable textual rendering of barrier unit events (docs/bcu.md, "Event
// stream"). Tools and golden tests depend on these exact strings.
#include "bcusim/bcu/event.h"

#include <array>
#include <bit>

#include <fmt/format.h>

namespace bcusim::bcu {
namespace {

constexpr std::array<std::string_view, 8> kExceptionNames = {
    "count-mismatch",   "red-mixed",   "bad-count",    "double-arrival",
    "undefined-result", "exited-warp", "blocked-warp", "bad-warp",
};

std::string op_text(const Event &e) {
  if (!e.op)
    return "?";
  if (*e.op == Op::Red)
    return fmt::format("BAR.RED.{}", name(e.redop));
  return std::string(name(*e.op));
}

std::string expected_text(unsigned expected) {
  return expected == 0 ? std::string("all") : std::to_string(expected);
}

int single_warp(uint32_t warps) {
  return warps == 0 ? -1 : std::countr_zero(warps);
}

} // namespace

std::string_view name(EventKind kind) {
  switch (kind) {
  case EventKind::Arrive:
    return "arrive";
  case EventKind::Complete:
    return "complete";
  case EventKind::Wake:
    return "wake";
  case EventKind::Exception:
    return "exception";
  case EventKind::Save:
    return "save";
  case EventKind::Restore:
    return "restore";
  case EventKind::Exit:
    return "exit";
  }
  return "?";
}

std::string_view name(ExceptionKind kind) {
  return kExceptionNames[static_cast<size_t>(kind)];
}

std::optional<ExceptionKind> exception_kind_from_name(std::string_view text) {
  for (size_t i = 0; i < kExceptionNames.size(); ++i)
    if (kExceptionNames[i] == text)
      return static_cast<ExceptionKind>(i);
  return std::nullopt;
}

std::string render_warps(uint32_t warps) {
  std::string out = "{";
  for_each_bit(warps, [&](unsigned warp) {
    if (out.size() > 1)
      out += ',';
    out += std::to_string(warp);
  });
  return out + "}";
}

std::string render(const Event &e) {
  switch (e.kind) {
  case EventKind::Arrive:
    return fmt::format("arrive bar={} warp={} op={} arrived={} expected={}",
                       e.barrier, single_warp(e.warps), op_text(e), e.arrived,
                       expected_text(e.expected));
  case EventKind::Complete:
    return fmt::format("complete bar={} phase={} warps={}", e.barrier, e.phase,
                       render_warps(e.warps));
  case EventKind::Wake:
    return fmt::format("wake bar={} warps={}", e.barrier,
                       render_warps(e.warps));
  case EventKind::Exception: {
    std::string where =
        e.barrier >= 0 ? fmt::format(" bar={}", e.barrier) : std::string();
    return fmt::format("exception {}{} warps={}: {}", name(e.exception), where,
                       render_warps(e.warps), e.message);
  }
  case EventKind::Save:
  case EventKind::Restore:
    if (e.barrier >= 0)
      return fmt::format("{} bar={} state={:#010x}", name(e.kind), e.barrier,
                         e.state);
    return fmt::format("{} warp={} state={:#010x}", name(e.kind),
                       single_warp(e.warps), e.state);
  case EventKind::Exit:
    return fmt::format("exit warp={}", single_warp(e.warps));
  }
  return "?";
}

} // namespace bcusim::bcu
