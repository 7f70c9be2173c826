// The co-simulation trace replayer (docs/bcu.md, "Replay format"): one
// statement per line, executed through the BarrierUnit, with expectations
// checked as they come.
#include "bcusim/bcu/replay.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <charconv>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bcusim/bcu/barrier_unit.h"
#include "bcusim/bcu/context.h"
#include "bcusim/isa/isa.h"

namespace bcusim::bcu {
namespace {

struct Token {
  std::string_view text;
  uint32_t col = 0; // 1-based
};

// Words separated by blanks; `=` is a token of its own.
std::vector<Token> tokenize(std::string_view line, size_t begin, size_t end) {
  std::vector<Token> out;
  size_t i = begin;
  while (i < end) {
    char c = line[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '=') {
      out.push_back({line.substr(i, 1), static_cast<uint32_t>(i + 1)});
      ++i;
      continue;
    }
    size_t j = i;
    while (j < end && line[j] != ' ' && line[j] != '\t' && line[j] != '\r' &&
           line[j] != '=')
      ++j;
    out.push_back({line.substr(i, j - i), static_cast<uint32_t>(i + 1)});
    i = j;
  }
  return out;
}

std::optional<uint64_t> parse_number(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty())
    return std::nullopt;
  uint64_t value = 0;
  auto [ptr, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || ptr != text.data() + text.size())
    return std::nullopt;
  return value;
}

// "R12" -> 12 (RZ is not a settable register); "P3" -> 3.
std::optional<unsigned> parse_reg_name(std::string_view text, char prefix,
                                       unsigned limit) {
  if (text.size() < 2 || text[0] != prefix)
    return std::nullopt;
  auto v = parse_number(text.substr(1));
  if (!v || *v >= limit || (text[1] == '0' && text.size() > 2))
    return std::nullopt;
  return static_cast<unsigned>(*v);
}

bool is_hex_word(std::string_view text) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    text.remove_prefix(2);
  return text.size() == 32 && std::all_of(text.begin(), text.end(), [](char c) {
           return std::isxdigit(c) != 0;
         });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

class Replayer {
public:
  Replayer(const SourceFile &file, std::ostream &out, DiagnosticSink &sink)
      : file_(file), out_(out), sink_(sink), model_(isa::builtin()) {}

  bool run() {
    for (uint32_t n = 1; n <= file_.line_count(); ++n) {
      line_no_ = n;
      line_ = file_.line(n);
      if (!statement())
        return false;
    }
    if (!unit_)
      return error(1, 1,
                   "the trace is empty: it must start with 'cta THREADS'");
    summary();
    return true;
  }

private:
  // --- diagnostics ---------------------------------------------------------
  SourceLoc loc(uint32_t col, uint32_t length = 1) const {
    return SourceLoc{&file_, line_no_, col, std::max<uint32_t>(length, 1)};
  }
  bool error(uint32_t col, uint32_t length, std::string message) {
    sink_.error(loc(col, length), std::move(message));
    return false;
  }
  bool error_at(const Token &t, std::string message) {
    return error(t.col, static_cast<uint32_t>(t.text.size()),
                 std::move(message));
  }
  bool error_after(const Token &t, std::string message) {
    return error(t.col + static_cast<uint32_t>(t.text.size()), 1,
                 std::move(message));
  }

  // --- statements ----------------------------------------------------------
  bool statement() {
    size_t end = line_.find('#');
    if (end == std::string_view::npos)
      end = line_.size();
    size_t colon = line_.substr(0, end).find(':');
    tokens_ = tokenize(line_, 0, colon == std::string_view::npos ? end : colon);
    if (tokens_.empty()) {
      if (colon != std::string_view::npos)
        return error(static_cast<uint32_t>(colon + 1), 1,
                     "expected a statement before ':'");
      return true;
    }
    const Token &head = tokens_[0];
    if (head.text == "cta")
      return cta();
    if (!unit_)
      return error_at(head, "the trace must start with 'cta THREADS'");
    if (head.text == "warp")
      return warp_event(colon, end);
    if (head.text != "expect" && head.text != "context-switch")
      return error_at(head, fmt::format("unknown statement '{}'; expected cta, "
                                        "warp, expect or context-switch",
                                        head.text));
    if (colon != std::string_view::npos)
      return error(static_cast<uint32_t>(colon + 1), 1,
                   "unexpected ':' (only a warp event holds an instruction)");
    if (head.text == "expect")
      return expectation();
    return context_switch();
  }

  bool cta() {
    if (unit_)
      return error_at(tokens_[0], "a trace has exactly one 'cta' header");
    // `cta THREADS` or `cta threads=THREADS`.
    bool keyed = tokens_.size() == 4 && tokens_[1].text == "threads" &&
                 tokens_[2].text == "=";
    if (tokens_.size() != 2 && !keyed)
      return error_after(tokens_.back(), "expected 'cta THREADS'");
    const Token &count = tokens_.back();
    auto threads = parse_number(count.text);
    if (!threads || *threads == 0 || *threads > kMaxThreads)
      return error_at(count, fmt::format("the CTA thread count must be a "
                                         "number in 1..{}",
                                         kMaxThreads));
    unit_ = std::make_unique<BarrierUnit>(static_cast<unsigned>(*threads));
    observe();
    tables_.assign(unit_->warps(), LaneValueTable());
    out_ << fmt::format("cta: {} threads, {} warp{}\n", *threads,
                        unit_->warps(), unit_->warps() == 1 ? "" : "s");
    return true;
  }

  void observe() {
    unit_->set_recording(false);
    unit_->set_observer([this](const Event &e) { pending_.push_back(e); });
  }

  std::optional<unsigned> warp_id(const Token &t) {
    auto w = parse_number(t.text);
    if (!w || *w >= unit_->warps()) {
      error_at(t, fmt::format("expected a warp id in 0..{} (the CTA has {} "
                              "threads)",
                              unit_->warps() - 1, unit_->threads()));
      return std::nullopt;
    }
    return static_cast<unsigned>(*w);
  }

  // Values after `key =`; returns the index after the value.
  std::optional<uint64_t> value_after_eq(size_t &i, uint64_t max,
                                         std::string_view what) {
    if (i + 1 >= tokens_.size() || tokens_[i + 1].text != "=") {
      error_after(tokens_[i], fmt::format("expected '=' after {}", what));
      return std::nullopt;
    }
    if (i + 2 >= tokens_.size()) {
      error_after(tokens_[i + 1], fmt::format("expected a value for {}", what));
      return std::nullopt;
    }
    const Token &v = tokens_[i + 2];
    auto n = parse_number(v.text);
    if (!n || *n > max) {
      error_at(v,
               fmt::format("expected a number in 0..{:#x} for {}", max, what));
      return std::nullopt;
    }
    i += 3;
    return n;
  }

  bool warp_event(size_t colon, size_t end) {
    if (tokens_.size() < 2)
      return error_after(tokens_[0], "expected a warp id");
    auto warp = warp_id(tokens_[1]);
    if (!warp)
      return false;
    exceptions_.clear();
    ++events_seen_;
    if (colon == std::string_view::npos) {
      if (tokens_.size() == 3 && tokens_[2].text == "exit")
        return warp_exit(*warp);
      return error_after(tokens_.back(),
                         "expected 'exit', or settings then ':' and an "
                         "instruction");
    }
    // Settings: active = MASK, Pn = MASK, Rn = VALUE, Rn.LANE = VALUE.
    LaneValueTable &table = tables_[*warp];
    uint32_t active = unit_->lane_mask(*warp);
    for (size_t i = 2; i < tokens_.size();) {
      const Token &key = tokens_[i];
      std::string_view k = key.text;
      if (k == "active") {
        auto v = value_after_eq(i, 0xffffffffu, "active");
        if (!v)
          return false;
        active = static_cast<uint32_t>(*v);
      } else if (auto p = parse_reg_name(k, 'P', kPT)) {
        auto v = value_after_eq(i, 0xffffffffu, key.text);
        if (!v)
          return false;
        table.set_pred(*p, static_cast<uint32_t>(*v));
      } else if (k.size() > 1 && k[0] == 'R') {
        size_t dot = k.find('.');
        auto r = parse_reg_name(k.substr(0, dot), 'R', kRZ);
        std::optional<uint64_t> lane;
        if (dot != std::string_view::npos) {
          lane = parse_number(k.substr(dot + 1));
          if (!lane || *lane >= kWarpSize)
            return error_at(key, fmt::format("'{}': the lane after '.' must "
                                             "be in 0..31",
                                             k));
        }
        if (!r)
          return error_at(key, fmt::format("'{}' is not a settable register "
                                           "(R0..R254)",
                                           k.substr(0, dot)));
        auto v = value_after_eq(i, 0xffffffffu, key.text);
        if (!v)
          return false;
        if (lane)
          table.set_reg(*r, static_cast<unsigned>(*lane),
                        static_cast<uint32_t>(*v));
        else
          table.set_reg(*r, static_cast<uint32_t>(*v));
      } else {
        return error_at(key, fmt::format("unknown setting '{}'; expected "
                                         "active=MASK, Pn=MASK, Rn=VALUE or "
                                         "Rn.LANE=VALUE",
                                         k));
      }
    }

    // The instruction: assembly text or a 32-digit hex word.
    std::string_view rest = line_.substr(colon + 1, end - colon - 1);
    std::string_view text = trim(rest);
    size_t lead = rest.find_first_not_of(" \t");
    uint32_t col = static_cast<uint32_t>(
        colon + 2 + (lead == std::string_view::npos ? 0 : lead));
    if (text.empty())
      return error(col, 1, "expected an instruction after ':'");
    std::optional<isa::Decoded> decoded;
    if (is_hex_word(text)) {
      auto word = isa::Word128::from_hex(text);
      std::string why;
      if (word)
        decoded = isa::decode(*model_, *word, &why);
      if (!decoded)
        return error(col, static_cast<uint32_t>(text.size()),
                     fmt::format("cannot decode {}: {}", text, why));
    } else {
      decoded = isa::assemble_one(*model_, text, loc(col), sink_);
      if (!decoded) {
        if (!sink_.has_errors())
          error(col, static_cast<uint32_t>(text.size()),
                "cannot assemble the instruction");
        return false;
      }
    }
    std::string why;
    auto instr = from_decoded(*decoded, &why);
    if (!instr)
      return error(col, static_cast<uint32_t>(text.size()), why);

    Outcome o = unit_->execute(*warp, active, *instr, table);
    apply(*warp, o);
    out_ << fmt::format("{}: warp {}: {} -> {}\n", line_no_, *warp,
                        isa::print(*model_, *decoded), effect(o));
    flush_events();
    return true;
  }

  void apply(unsigned warp, const Outcome &o) {
    LaneValueTable &table = tables_[warp];
    if (o.rd)
      for_each_bit(o.rd->lanes, [&](unsigned lane) {
        table.set_reg(o.rd->reg, lane, o.rd->values[lane]);
      });
    if (o.pu) {
      uint32_t old = table.pred(o.pu->pred);
      table.set_pred(o.pu->pred,
                     (old & ~o.pu->lanes) | (o.pu->values & o.pu->lanes));
    }
  }

  std::string effect(const Outcome &o) const {
    std::string s;
    switch (o.status) {
    case Status::Continue:
      s = "continues";
      break;
    case Status::Blocked:
      s = fmt::format("blocked on barrier {}", o.barrier);
      break;
    case Status::Ignored:
      s = o.exceptions ? "ignored" : "ignored (no lane executes)";
      break;
    }
    if (o.rd) {
      unsigned lane = static_cast<unsigned>(std::countr_zero(o.rd->lanes));
      s += fmt::format("; R{} = {:#x}", o.rd->reg, o.rd->values[lane]);
    }
    if (o.pu)
      s += fmt::format("; P{} = {:#010x}", o.pu->pred, o.pu->values);
    return s;
  }

  void flush_events() {
    for (const Event &e : pending_) {
      out_ << "  " << render(e) << "\n";
      if (e.kind == EventKind::Exception)
        exceptions_.push_back(e.exception);
    }
    pending_.clear();
  }

  bool warp_exit(unsigned warp) {
    uint32_t woken = unit_->warp_exited(warp);
    out_ << fmt::format("{}: warp {}: exit -> {}\n", line_no_, warp,
                        woken ? "wakes " + render_warps(woken)
                              : std::string("done"));
    flush_events();
    return true;
  }

  bool context_switch() {
    if (tokens_.size() != 1)
      return error_at(tokens_[1], "'context-switch' takes no operands");
    exceptions_.clear();
    ++events_seen_;
    SavedContext ctx = save_context(*unit_);
    pending_.clear(); // the B2R reads are summarized below
    unit_ = std::make_unique<BarrierUnit>(unit_->threads());
    observe();
    restore_context(*unit_, ctx);
    pending_.clear();
    out_ << fmt::format("{}: context switch: saved and restored into a fresh "
                        "unit\n",
                        line_no_);
    for (unsigned b = 0; b < kNumBarriers; ++b)
      if (ctx.barrier_words[b] != 0)
        out_ << fmt::format("  bar {} state={:#010x}\n", b,
                            ctx.barrier_words[b]);
    for (unsigned w = 0; w < unit_->warps(); ++w) {
      if (ctx.warp_words[w] != 0 && !unit_->is_exited(w))
        out_ << fmt::format("  warp {} state={:#010x}\n", w, ctx.warp_words[w]);
      if (ctx.blocked_on[w])
        out_ << fmt::format("  warp {} blocked on barrier {}\n", w,
                            *ctx.blocked_on[w]);
    }
    return true;
  }

  // --- expectations ----------------------------------------------------------
  bool expect_word(size_t i, std::string_view word) {
    if (i >= tokens_.size())
      return error_after(tokens_.back(), fmt::format("expected '{}'", word));
    if (tokens_[i].text != word)
      return error_at(tokens_[i], fmt::format("expected '{}'", word));
    return true;
  }

  std::optional<bool> parse_bool(const Token &t) {
    if (t.text == "true" || t.text == "1")
      return true;
    if (t.text == "false" || t.text == "0")
      return false;
    error_at(t, "expected true or false");
    return std::nullopt;
  }

  bool mismatch(const Token &t, std::string message) {
    return error_at(t, "expectation failed: " + std::move(message));
  }

  bool expectation() {
    ++expectations_;
    if (tokens_.size() < 2)
      return error_after(tokens_[0], "expected what to expect: warp, bar, "
                                     "exception or no-exception");
    std::string_view what = tokens_[1].text;
    if (what == "warp")
      return expect_warp();
    if (what == "bar")
      return expect_bar();
    if (what == "exception") {
      if (tokens_.size() != 3)
        return error_after(tokens_.back(), "expected 'expect exception KIND'");
      auto kind = exception_kind_from_name(tokens_[2].text);
      if (!kind)
        return error_at(tokens_[2], fmt::format("unknown exception kind '{}'",
                                                tokens_[2].text));
      if (std::find(exceptions_.begin(), exceptions_.end(), *kind) ==
          exceptions_.end())
        return mismatch(tokens_[2],
                        fmt::format("the previous event raised no {} "
                                    "exception",
                                    tokens_[2].text));
      return true;
    }
    if (what == "no-exception") {
      if (tokens_.size() != 2)
        return error_at(tokens_[2], "'expect no-exception' takes no operands");
      if (!exceptions_.empty())
        return mismatch(tokens_[1], fmt::format("the previous event raised "
                                                "{}",
                                                name(exceptions_.front())));
      return true;
    }
    return error_at(tokens_[1], fmt::format("unknown expectation '{}'; "
                                            "expected warp, bar, exception or "
                                            "no-exception",
                                            what));
  }

  bool expect_warp() {
    if (tokens_.size() < 4)
      return error_after(tokens_.back(),
                         "expected 'expect warp W running|blocked|exited' or "
                         "'expect warp W lane L Rn|Pn = VALUE'");
    auto warp = warp_id(tokens_[2]);
    if (!warp)
      return false;
    const Token &state = tokens_[3];
    std::string actual =
        unit_->is_exited(*warp) ? "exited"
        : unit_->is_blocked(*warp)
            ? fmt::format("blocked on barrier {}", *unit_->waiting_on(*warp))
            : "running";
    if (state.text == "running" || state.text == "exited") {
      if (tokens_.size() != 4)
        return error_at(tokens_[4], "unexpected text after the warp state");
      if (actual != state.text)
        return mismatch(state, fmt::format("warp {} is {}, not {}", *warp,
                                           actual, state.text));
      return true;
    }
    if (state.text == "blocked") {
      if (tokens_.size() == 4) {
        if (!unit_->is_blocked(*warp))
          return mismatch(
              state, fmt::format("warp {} is {}, not blocked", *warp, actual));
        return true;
      }
      if (!expect_word(4, "on"))
        return false;
      if (tokens_.size() != 6)
        return error_after(tokens_.back(), "expected a barrier id after 'on'");
      auto b = parse_number(tokens_[5].text);
      if (!b || *b >= kNumBarriers)
        return error_at(tokens_[5], "expected a barrier id in 0..15");
      if (unit_->waiting_on(*warp) != static_cast<unsigned>(*b))
        return mismatch(tokens_[5],
                        fmt::format("warp {} is {}, not blocked on barrier {}",
                                    *warp, actual, *b));
      return true;
    }
    if (state.text == "lane") {
      if (tokens_.size() != 8)
        return error_after(tokens_.back(),
                           "expected 'expect warp W lane L Rn|Pn = VALUE'");
      auto lane = parse_number(tokens_[4].text);
      if (!lane || *lane >= kWarpSize)
        return error_at(tokens_[4], "expected a lane in 0..31");
      if (tokens_[6].text != "=")
        return error_at(tokens_[6], "expected '='");
      const Token &reg = tokens_[5];
      const Token &value = tokens_[7];
      const LaneValueTable &table = tables_[*warp];
      unsigned l = static_cast<unsigned>(*lane);
      if (auto p = parse_reg_name(reg.text, 'P', kPT)) {
        auto want = parse_bool(value);
        if (!want)
          return false;
        bool got = (table.pred(*p) >> l & 1) != 0;
        if (got != *want)
          return mismatch(value,
                          fmt::format("warp {} lane {}: P{} is {}", *warp, l,
                                      *p, got ? "true" : "false"));
        return true;
      }
      if (auto r = parse_reg_name(reg.text, 'R', kRZ)) {
        auto want = parse_number(value.text);
        if (!want || *want > 0xffffffffu)
          return error_at(value, "expected a 32-bit value");
        uint32_t got = table.reg(l, *r);
        if (got != *want)
          return mismatch(value, fmt::format("warp {} lane {}: R{} is {:#x} "
                                             "({})",
                                             *warp, l, *r, got, got));
        return true;
      }
      return error_at(reg, "expected a register R0..R254 or a predicate "
                           "P0..P6");
    }
    return error_at(state, "expected running, blocked, exited or lane");
  }

  bool expect_bar() {
    if (tokens_.size() != 6 || tokens_[4].text != "=")
      return error_after(tokens_.back(),
                         "expected 'expect bar B state|arrived|expected|phase|"
                         "can-complete = VALUE'");
    auto b = parse_number(tokens_[2].text);
    if (!b || *b >= kNumBarriers)
      return error_at(tokens_[2], "expected a barrier id in 0..15");
    unsigned id = static_cast<unsigned>(*b);
    const Token &field = tokens_[3];
    const Token &value = tokens_[5];
    BarrierStatus s = unit_->status(id);
    if (field.text == "can-complete") {
      auto want = parse_bool(value);
      if (!want)
        return false;
      if (s.can_complete != *want)
        return mismatch(value, fmt::format("barrier {} can{} complete", id,
                                           s.can_complete ? "" : "not"));
      return true;
    }
    uint64_t got = 0;
    if (field.text == "state")
      got = unit_->bar_state(id);
    else if (field.text == "arrived")
      got = s.arrived_threads;
    else if (field.text == "expected")
      got = s.expected_threads;
    else if (field.text == "phase")
      got = unit_->phase(id);
    else
      return error_at(field, fmt::format("unknown barrier field '{}'; "
                                         "expected state, arrived, expected, "
                                         "phase or can-complete",
                                         field.text));
    auto want = parse_number(value.text);
    if (!want)
      return error_at(value, "expected a number");
    if (got != *want)
      return mismatch(
          value, field.text == "state"
                     ? fmt::format("barrier {} state is {:#x}", id, got)
                     : fmt::format("barrier {} {} is {}", id, field.text, got));
    return true;
  }

  // --- end of trace --------------------------------------------------------
  void summary() {
    for (const BarrierStatus &s : unit_->liveness())
      out_ << fmt::format(
          "end: barrier {}: {} of {} threads arrived, waiting {}, {}\n",
          s.barrier, s.arrived_threads, s.expected_threads,
          render_warps(s.waiting),
          s.can_complete ? fmt::format("{} threads missing", s.missing_threads)
                         : fmt::format("{} threads missing and cannot complete "
                                       "(deadlock)",
                                       s.missing_threads));
    out_ << fmt::format("replay: {} event{}, {} expectation{} met\n",
                        events_seen_, events_seen_ == 1 ? "" : "s",
                        expectations_, expectations_ == 1 ? "" : "s");
  }

  const SourceFile &file_;
  std::ostream &out_;
  DiagnosticSink &sink_;
  std::shared_ptr<const isa::IsaModel> model_;
  std::unique_ptr<BarrierUnit> unit_;
  std::vector<LaneValueTable> tables_;
  std::vector<Event> pending_;
  std::vector<ExceptionKind> exceptions_; // raised by the last event line
  std::vector<Token> tokens_;
  std::string_view line_;
  uint32_t line_no_ = 0;
  size_t events_seen_ = 0;
  unsigned expectations_ = 0;
};

} // namespace

bool replay(const SourceFile &trace, std::ostream &out, DiagnosticSink &sink) {
  Replayer r(trace, out, sink);
  return r.run();
}

} // namespace bcusim::bcu
