#include "bcusim/support/diagnostics.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace bcusim {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n' && i + 1 < text_.size())
      line_starts_.push_back(i + 1);
}

std::shared_ptr<const SourceFile> SourceFile::from_string(std::string name,
                                                          std::string text) {
  return std::make_shared<const SourceFile>(std::move(name), std::move(text));
}

std::shared_ptr<const SourceFile> SourceFile::read(const std::string &path,
                                                   std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = fmt::format("cannot open '{}'", path);
    return nullptr;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    error = fmt::format("cannot read '{}'", path);
    return nullptr;
  }
  return from_string(path, ss.str());
}

std::shared_ptr<const SourceFile> SourceFile::name_only(std::string name) {
  auto f = std::make_shared<SourceFile>(std::move(name), std::string());
  f->has_text_ = false;
  return f;
}

std::string_view SourceFile::line(uint32_t line) const {
  if (line == 0 || line > line_starts_.size())
    return {};
  size_t begin = line_starts_[line - 1];
  size_t end = text_.find('\n', begin);
  if (end == std::string::npos)
    end = text_.size();
  std::string_view v(text_.data() + begin, end - begin);
  if (!v.empty() && v.back() == '\r')
    v.remove_suffix(1);
  return v;
}

void SourceFile::position(size_t offset, uint32_t &line, uint32_t &col) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  size_t idx = static_cast<size_t>(it - line_starts_.begin()) - 1;
  line = static_cast<uint32_t>(idx + 1);
  col = static_cast<uint32_t>(offset - line_starts_[idx] + 1);
}

static const char *severity_name(Severity s) {
  switch (s) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  }
  return "error";
}

static void render_one(const Diagnostic &d, std::string &out) {
  if (!d.loc.valid()) {
    out +=
        fmt::format("bcusim: {}: {}\n", severity_name(d.severity), d.message);
    return;
  }
  out += fmt::format("{}:{}:{}: {}: {}\n", d.loc.file->name(), d.loc.line,
                     d.loc.col, severity_name(d.severity), d.message);
  if (!d.loc.file->has_text())
    return;
  std::string_view text = d.loc.file->line(d.loc.line);
  out += text;
  out += '\n';
  // Caret line: keep tabs so the caret lines up under the source column.
  std::string caret;
  for (uint32_t i = 1; i < d.loc.col; ++i)
    caret += (i - 1 < text.size() && text[i - 1] == '\t') ? '\t' : ' ';
  caret += '^';
  for (uint32_t i = 1; i < d.loc.length; ++i)
    caret += '~';
  out += caret;
  out += '\n';
}

std::string render(const Diagnostic &d) {
  std::string out;
  render_one(d, out);
  for (const auto &n : d.notes)
    render_one(n, out);
  return out;
}

Diagnostic &DiagnosticSink::error(SourceLoc loc, std::string message) {
  diags_.push_back({Severity::Error, loc, std::move(message), {}});
  return diags_.back();
}

Diagnostic &DiagnosticSink::warning(SourceLoc loc, std::string message) {
  diags_.push_back({Severity::Warning, loc, std::move(message), {}});
  return diags_.back();
}

void DiagnosticSink::note(Diagnostic &d, SourceLoc loc, std::string message) {
  d.notes.push_back({Severity::Note, loc, std::move(message), {}});
}

size_t DiagnosticSink::error_count() const {
  return static_cast<size_t>(
      std::count_if(diags_.begin(), diags_.end(), [](const Diagnostic &d) {
        return d.severity == Severity::Error;
      }));
}

std::string DiagnosticSink::render_all() const {
  std::string out;
  for (const auto &d : diags_)
    out += render(d);
  return out;
}

} // namespace bcusim
