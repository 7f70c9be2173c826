// Races between work items of different streams (stream_races.h,
// docs/checker.md "Streams").
#include "stream_races.h"

#include <algorithm>
#include <bit>
#include <utility>

#include <fmt/format.h>

namespace bcusim::runtime::detail {

using check::GridAccess;

namespace {

std::string dim(engine::Dim3 d) {
  return fmt::format("({},{},{})", d.x, d.y, d.z);
}

} // namespace

void StreamRaces::begin(StreamOrder::Work w, std::string stream_name,
                        uint64_t launch) {
  cur_ = std::make_unique<Item>();
  cur_->work = std::move(w);
  cur_->stream_name = std::move(stream_name);
  cur_->launch = launch;
  concurrent_.clear();
  for (const auto &it : items_)
    if (!StreamOrder::before(it->work, cur_->work))
      concurrent_.push_back(it.get());
}

void StreamRaces::begin_kernel(StreamOrder::Work w, std::string stream_name,
                               uint64_t launch_index) {
  begin(std::move(w), std::move(stream_name), launch_index);
}

void StreamRaces::begin_host(StreamOrder::Work w, std::string stream_name,
                             std::string api, uint64_t launch_index,
                             const engine::Device *dev) {
  begin(std::move(w), std::move(stream_name), launch_index);
  cur_->api = std::move(api);
  view_ = nullptr;
  dev_ = dev;
}

// The allocation an address lies in, named as the engine names global
// memory in its reports.
std::string StreamRaces::describe(uint64_t addr) const {
  if (view_)
    return view_->describe(engine::StateSpace::Global, addr);
  if (!dev_)
    return "";
  auto a = dev_->allocation(addr);
  if (!a)
    return "";
  std::string what =
      a->name.empty() ? fmt::format("allocation {:#x}", a->base) : a->name;
  return addr == a->base ? what : fmt::format("{}+{}", what, addr - a->base);
}

void StreamRaces::on_launch_begin(const engine::LaunchView &v) {
  view_ = &v;
  if (cur_)
    cur_->kernel = std::string(v.kernel());
  checker_.on_launch_begin(v);
}

void StreamRaces::on_launch_end(const engine::LaunchView &v) {
  checker_.on_launch_end(v);
  view_ = nullptr;
}

uint32_t StreamRaces::site(uint32_t pc, Kind k, const engine::AccessEvent *e) {
  auto key = std::make_pair(pc, int(k));
  auto it = cur_->site_of.find(key);
  if (it != cur_->site_of.end())
    return it->second;
  check::Site s;
  s.pc = pc;
  if (e && view_) {
    s.text = std::string(view_->text(pc));
    s.ptx = view_->ptx_loc(pc);
    if (s.ptx.valid())
      s.ptx_file = s.ptx.file->name();
    auto c = view_->cuda_loc(pc);
    if (c.valid()) {
      s.cuda_file = std::string(c.file);
      s.cuda_line = c.line;
      if (c.inner_line) {
        s.cuda_inlined_file = std::string(c.inner_file);
        s.cuda_inlined_line = c.inner_line;
      }
    }
    check::ThreadRef &t = s.thread;
    t.cta_linear = e->cta;
    t.cta = view_->cta_id(e->cta);
    t.warp = e->warp;
    t.lane = uint32_t(std::countr_zero(e->lanes));
    const engine::Dim3 b = view_->block();
    const uint32_t i = t.warp * 32 + t.lane;
    t.tid = engine::Dim3{i % b.x, i / b.x % b.y, i / (b.x * b.y)};
    if (e->origin == engine::AccessOrigin::AsyncCopy ||
        e->origin == engine::AccessOrigin::BulkCopy)
      t.async_id = e->async_id;
    s.access = writes(k) ? fmt::format("write of {} bytes", e->size)
                         : fmt::format("read of {} bytes", e->size);
    if (e->type == engine::AccessType::Atomic)
      s.access = fmt::format("atomic {} of {} bytes", engine::name_of(e->atom),
                             e->size);
  } else {
    // A copy or memset: its API call and stream stand for the thread.
    s.text = fmt::format("{} in {}", cur_->api, cur_->stream_name);
  }
  cur_->sites.push_back(std::move(s));
  const uint32_t idx = uint32_t(cur_->sites.size() - 1);
  cur_->site_of[key] = idx;
  return idx;
}

// Checks [a, b) against the concurrent work items, then adds it to the
// current item's footprint.
void StreamRaces::access(uint64_t a, uint64_t b, Kind k, uint32_t s) {
  for (const Item *it : concurrent_)
    for (int i = 0; i < 4; ++i) {
      const auto ek = GridAccess(i);
      if (!conflict(ek, k))
        continue;
      if (const auto *hit = it->spans.overlap(ek, a, b))
        report(*it, hit->second, ek, std::max(a, hit->first), s, k);
    }
  cur_->spans.add(a, b, k, {0, s, 0});
}

void StreamRaces::on_access(const engine::AccessEvent &e) {
  checker_.on_access(e);
  if (!cur_ || e.space != engine::StateSpace::Global || !e.addr || !e.size)
    return;
  const Kind k = check::grid_access(e);
  uint32_t s = UINT32_MAX;
  check::for_each_range(
      e, [](uint64_t) { return true; },
      [&](uint64_t a, uint64_t b, uint32_t) {
        if (s == UINT32_MAX)
          s = site(e.pc, k, &e);
        access(a, b, k, s);
      });
}

void StreamRaces::host_access(uint64_t addr, uint64_t bytes, bool write) {
  if (!cur_ || bytes == 0)
    return;
  const Kind k = check::grid_access(write, false);
  const uint32_t s = site(0, k, nullptr);
  cur_->sites[s].access =
      fmt::format("{} of {} bytes", write ? "write" : "read", bytes);
  access(addr, addr + bytes, k, s);
}

std::string StreamRaces::who(const Item &it, const check::Site &s) const {
  if (!it.api.empty())
    return fmt::format("{} in {}", it.api, it.stream_name);
  return fmt::format(
      "thread {} (CTA {}, warp {}, lane {}) of kernel '{}' (launch {}) in {}",
      dim(s.thread.tid), dim(s.thread.cta), s.thread.warp, s.thread.lane,
      it.kernel, it.launch, it.stream_name);
}

void StreamRaces::report(const Item &earlier, const Span &es, Kind ek,
                         uint64_t addr, uint32_t later_site, Kind lk) {
  auto key = std::make_tuple(earlier.work.seq * 4096 + earlier.work.stream,
                             es.site, later_site);
  auto found = index_.find(key);
  if (found != index_.end()) {
    ++pending_[found->second].instances;
    return;
  }
  index_[key] = pending_.size();
  const check::Site &s0 = earlier.sites[es.site];
  const check::Site &s1 = cur_->sites[later_site];
  check::Finding f;
  f.kind = check::FindingKind::DataRace;
  f.severity = Severity::Error;
  f.kernel = cur_->api.empty() ? cur_->kernel : cur_->api;
  f.launch = cur_->launch;
  f.sites = {s0, s1};
  f.space = "global";
  f.address = addr;
  f.where = describe(addr);
  f.missing = fmt::format("{} and {} are not ordered: no stream order, "
                          "event (cudaEventRecord + cudaStreamWaitEvent) or "
                          "host synchronization between them",
                          earlier.stream_name, cur_->stream_name);
  const char *type = check::race_type(writes(ek), writes(lk));
  auto at = [](const Item &it, const check::Site &s) {
    if (!it.api.empty())
      return std::string();
    return fmt::format(
        " at '{}'{}", s.text,
        s.cuda_line ? fmt::format(" ({}:{})", s.cuda_file, s.cuda_line) : "");
  };
  f.diag.severity = Severity::Error;
  f.diag.loc = s1.ptx;
  f.diag.message = fmt::format(
      "data race between streams: {} on .global {}(address {:#x}): {} by "
      "{}{}, then {} by {}{}",
      type, f.where.empty() ? "" : f.where + " ", addr, s0.access,
      who(earlier, s0), at(earlier, s0), s1.access, who(*cur_, s1),
      at(*cur_, s1));
  Diagnostic first;
  first.severity = Severity::Note;
  first.loc = s0.ptx;
  first.message =
      fmt::format("the first access: {} by {}", s0.access, who(earlier, s0));
  Diagnostic missing;
  missing.severity = Severity::Note;
  missing.message = "missing ordering: " + f.missing;
  f.diag.notes = {first, missing};
  pending_.push_back(std::move(f));
}

void StreamRaces::flush_pending() {
  for (auto &f : pending_) {
    if (f.instances > 1)
      f.diag.notes.push_back(Diagnostic{
          Severity::Note,
          {},
          fmt::format("{} more instances of this pair of accesses (other "
                      "threads or addresses)",
                      f.instances - 1),
          {}});
    f.text = render(f.diag);
    checker_.add(std::move(f));
  }
  pending_.clear();
  index_.clear();
  concurrent_.clear();
}

void StreamRaces::prune(const StreamOrder &order) {
  // Work every later item follows can never race with it again.
  std::erase_if(items_, [&](const std::unique_ptr<Item> &it) {
    return order.settled(it->work);
  });
  while (items_.size() > kMaxItems)
    items_.pop_front();
}

void StreamRaces::end(const StreamOrder &order) {
  std::unique_ptr<Item> item = finish(order);
  if (item)
    items_.push_back(std::move(item));
  prune(order);
}

std::unique_ptr<StreamRaces::Item> StreamRaces::finish(const StreamOrder &) {
  if (!cur_)
    return nullptr;
  flush_pending();
  const bool any = !cur_->spans.empty();
  std::unique_ptr<Item> item = std::move(cur_);
  cur_.reset();
  return any ? std::move(item) : nullptr;
}

void StreamRaces::copy_history(const StreamRaces &from) {
  items_.clear();
  for (const auto &it : from.items_)
    items_.push_back(std::make_unique<Item>(*it));
}

void StreamRaces::adopt(std::unique_ptr<Item> item, const StreamOrder &order) {
  if (!item)
    return;
  // The kept items that began after it (while it waited) are checked
  // against it here; those before it were checked as it ran.
  std::unique_ptr<Item> saved = std::move(cur_);
  cur_ = std::make_unique<Item>(*item);
  for (const auto &it : items_)
    if (!StreamOrder::before(it->work, cur_->work) &&
        !StreamOrder::before(cur_->work, it->work) && it->launch > cur_->launch)
      concurrent_.push_back(it.get());
  view_ = nullptr;
  for (size_t k = 0; k < item->spans.spans.size(); ++k)
    for (const auto &[a, span] : item->spans.spans[k])
      access(a, span.end, GridAccess(k), span.site);
  flush_pending();
  cur_ = std::move(saved);
  items_.push_back(std::move(item));
  prune(order);
}

} // namespace bcusim::runtime::detail
