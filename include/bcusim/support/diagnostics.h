// Source text, locations and diagnostics shared by every part of bcusim.
//
// Every error bcusim reports about an input file has the form
//   file:line:col: error: message
//   <the source line>
//   <caret line: spaces, then ^ under the column, ~ under the rest of the
//   range>
// followed by optional `note:` lines. This header is the one place that
// renders them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace bcusim {

// A loaded text file (or a string given on the command line). Immutable.
class SourceFile {
public:
  SourceFile(std::string name, std::string text);
  static std::shared_ptr<const SourceFile> from_string(std::string name,
                                                       std::string text);
  // Reads a file; returns nullptr and sets `error` when it cannot be read.
  static std::shared_ptr<const SourceFile> read(const std::string &path,
                                                std::string &error);
  // A file known by name only (its text could not be read): diagnostics
  // located in it print `name:line:col:` without the source line and caret.
  static std::shared_ptr<const SourceFile> name_only(std::string name);

  const std::string &name() const { return name_; }
  const std::string &text() const { return text_; }
  bool has_text() const { return has_text_; }
  // 1-based line; returns the line without its newline ("" when out of range).
  std::string_view line(uint32_t line) const;
  uint32_t line_count() const {
    return static_cast<uint32_t>(line_starts_.size());
  }
  // Converts a byte offset into 1-based line and column.
  void position(size_t offset, uint32_t &line, uint32_t &col) const;

private:
  std::string name_;
  std::string text_;
  std::vector<size_t> line_starts_;
  bool has_text_ = true;
};

// A location in a source file: 1-based line and column, and a length in
// characters for the underline (at least 1 is drawn).
struct SourceLoc {
  const SourceFile *file = nullptr;
  uint32_t line = 0;
  uint32_t col = 0;
  uint32_t length = 1;

  bool valid() const { return file != nullptr && line != 0; }
};

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLoc loc;
  std::string message;
  std::vector<Diagnostic> notes; // attached `note:` lines
};

// Renders one diagnostic (and its notes) in the project's format. A
// diagnostic without a valid location is rendered as "bcusim: error: msg".
std::string render(const Diagnostic &d);

// Collects diagnostics; parts of bcusim report into one of these and the CLI
// prints them. Never throws.
class DiagnosticSink {
public:
  Diagnostic &error(SourceLoc loc, std::string message);
  Diagnostic &warning(SourceLoc loc, std::string message);
  static void note(Diagnostic &d, SourceLoc loc, std::string message);

  const std::vector<Diagnostic> &all() const { return diags_; }
  size_t error_count() const;
  bool has_errors() const { return error_count() != 0; }
  std::string render_all() const;
  void clear() { diags_.clear(); }

private:
  std::vector<Diagnostic> diags_;
};

} // namespace bcusim
