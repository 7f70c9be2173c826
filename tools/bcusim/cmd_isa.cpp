// `bcusim asm`, `bcusim disasm`, `bcusim isa check`, `bcusim isa explain`.
// Thin: the work is done by the ISA library (src/isa); formats and exit
// codes are documented in docs/isa.md.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "bcusim/isa/model.h"
#include "bcusim/isa/tools.h"
#include "commands.h"

namespace bcusim::cli {

namespace {

using isa::IsaModel;

struct IsaOptions {
  std::vector<std::string> isa_files;
};

void add_isa_option(CLI::App *cmd, IsaOptions &opts) {
  cmd->add_option("--isa", opts.isa_files,
                  "Description file(s) to use instead of the built-in model "
                  "(repeatable; loaded in order into one model)");
}

void print_diags(const DiagnosticSink &sink) {
  std::string text = sink.render_all();
  std::fputs(text.c_str(), stderr);
}

std::shared_ptr<const IsaModel> model_for(const IsaOptions &opts) {
  if (opts.isa_files.empty())
    return isa::builtin();
  DiagnosticSink sink;
  auto m = isa::load(opts.isa_files, sink);
  print_diags(sink);
  return m;
}

// Reads a file ("-" = standard input) in binary mode.
bool read_all(const std::string &path, std::string &out) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    out = ss.str();
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  out.assign(std::istreambuf_iterator<char>(in), {});
  return !in.bad();
}

std::shared_ptr<const SourceFile> read_source(const std::string &path) {
  std::string text;
  if (!read_all(path, text)) {
    std::fprintf(stderr, "bcusim: error: cannot read '%s'\n", path.c_str());
    return nullptr;
  }
  return SourceFile::from_string(path == "-" ? "<stdin>" : path,
                                 std::move(text));
}

bool write_output(const std::string &path, const std::string &data) {
  if (path.empty() || path == "-") {
    std::fwrite(data.data(), 1, data.size(), stdout);
    return true;
  }
  std::ofstream out(path, std::ios::binary);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) {
    std::fprintf(stderr, "bcusim: error: cannot write '%s'\n", path.c_str());
    return false;
  }
  return true;
}

// --- asm ---------------------------------------------------------------

struct AsmOptions {
  IsaOptions isa;
  std::string input;
  std::string output;
  std::string format = "text";
  bool show_encoding = false;
};

int run_asm(const AsmOptions &o) {
  auto model = model_for(o.isa);
  if (!model)
    return 1;
  auto file = read_source(o.input);
  if (!file)
    return 1;
  DiagnosticSink sink;
  auto insts = isa::assemble_located(*model, *file, sink);
  print_diags(sink);
  if (!insts)
    return 1;
  std::string out;
  if (o.show_encoding) {
    // Annotated listing (docs/isa.md): source, word + canonical text, fields.
    for (size_t i = 0; i < insts->size(); ++i) {
      const auto &a = (*insts)[i];
      if (i)
        out += "\n";
      out += fmt::format("{}:{}:{}: {}\n", file->name(), a.at.line, a.at.col,
                         a.text);
      out += fmt::format("  {}  {}\n", a.inst.word.to_hex(),
                         isa::print(*model, a.inst));
      out += isa::field_table(*model, a.inst, "    ", false);
    }
  } else if (o.format == "hex") {
    for (const auto &a : *insts)
      out += a.inst.word.to_hex() + "\n";
  } else if (o.format == "bin") {
    for (const auto &a : *insts)
      out += isa::to_bytes(a.inst.word);
  } else {
    for (const auto &a : *insts)
      out += isa::print(*model, a.inst) + "\n";
  }
  return write_output(o.output, out) ? 0 : 1;
}

// --- disasm ------------------------------------------------------------

struct DisasmOptions {
  IsaOptions isa;
  std::string input;
  std::string output;
  std::string format = "hex";
  std::vector<std::string> hex_words;
};

int run_disasm(const DisasmOptions &o) {
  auto model = model_for(o.isa);
  if (!model)
    return 1;
  DiagnosticSink sink;
  std::vector<isa::WordAt> words;
  std::vector<std::shared_ptr<const SourceFile>> keep;
  std::string name;
  if (!o.hex_words.empty()) {
    if (!o.input.empty()) {
      std::fprintf(stderr, "bcusim: error: give either FILE or --hex words, "
                           "not both\n");
      return 2;
    }
    // Each argument is its own one-line source, so errors show it.
    bool ok = true;
    for (size_t i = 0; i < o.hex_words.size(); ++i) {
      auto f =
          SourceFile::from_string(fmt::format("<word {}>", i), o.hex_words[i]);
      keep.push_back(f);
      auto w = isa::Word128::from_hex(o.hex_words[i]);
      SourceLoc at{
          f.get(), 1, 1,
          static_cast<uint32_t>(std::max<size_t>(1, o.hex_words[i].size()))};
      if (!w) {
        sink.error(at, fmt::format("expected one instruction word of "
                                   "exactly 32 hex digits (bit 127 first), "
                                   "found '{}'",
                                   o.hex_words[i]));
        ok = false;
        continue;
      }
      words.push_back({*w, i, at, 0});
    }
    if (!ok) {
      print_diags(sink);
      return 1;
    }
  } else {
    if (o.input.empty()) {
      std::fprintf(stderr, "bcusim: error: disasm needs a FILE or --hex "
                           "WORD...\n");
      return 2;
    }
    std::string bytes;
    if (!read_all(o.input, bytes)) {
      std::fprintf(stderr, "bcusim: error: cannot read '%s'\n",
                   o.input.c_str());
      return 1;
    }
    name = o.input == "-" ? "<stdin>" : o.input;
    if (o.format == "bin") {
      auto read = isa::read_bin_words(bytes, name, sink);
      if (!read) {
        print_diags(sink);
        return 1;
      }
      words = std::move(*read);
    } else {
      // Malformed lines are reported; the other words still disassemble.
      auto f = SourceFile::from_string(name, std::move(bytes));
      keep.push_back(f);
      words = isa::read_hex_words(*f, sink);
    }
  }
  std::string out;
  for (const auto &w : words) {
    std::string why;
    auto d = isa::disassemble_word(*model, w.word, why);
    if (d) {
      out += isa::print(*model, *d) + "\n";
      continue;
    }
    if (w.at.valid())
      sink.error(w.at,
                 fmt::format("word {} ({}) {}", w.index, w.word.to_hex(), why));
    else
      sink.error({}, fmt::format("{}: word {} at byte offset {} ({}) {}", name,
                                 w.index, w.byte_offset, w.word.to_hex(), why));
  }
  bool written = write_output(o.output, out);
  // In file order: malformed lines and undecodable words interleaved.
  std::vector<const Diagnostic *> diags;
  for (const auto &d : sink.all())
    diags.push_back(&d);
  std::stable_sort(diags.begin(), diags.end(),
                   [](const Diagnostic *a, const Diagnostic *b) {
                     return a->loc.line < b->loc.line;
                   });
  for (const Diagnostic *d : diags)
    std::fputs(render(*d).c_str(), stderr);
  return sink.has_errors() || !written ? 1 : 0;
}

// --- isa check / explain ------------------------------------------------

int run_check(const std::vector<std::string> &files) {
  DiagnosticSink sink;
  auto model = isa::load(files, sink);
  print_diags(sink);
  if (!model) {
    std::fprintf(stderr, "bcusim: %zu error(s)\n", sink.error_count());
    return 1;
  }
  size_t enumerated = 0;
  for (const auto &t : model->types)
    enumerated += t.enumerated() ? 1 : 0;
  std::printf("ok: %zu opcode(s) in %zu optype(s), %zu type(s), %zu syntax "
              "form(s), %zu file(s)\n",
              model->opcodes.size(), model->optypes.size(), model->types.size(),
              model->forms.size(), files.size());
  return 0;
}

int run_explain(const IsaOptions &isa_opts, const std::string &input) {
  auto model = model_for(isa_opts);
  if (!model)
    return 1;
  std::string_view text = input;
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  if (auto w = isa::Word128::from_hex(text)) {
    std::string why;
    auto d = isa::decode(*model, *w, &why);
    if (!d) {
      std::fprintf(stderr, "bcusim: error: word %s %s\n", w->to_hex().c_str(),
                   why.c_str());
      return 1;
    }
    std::string out = isa::explain(*model, *d);
    if (auto bad = isa::check_operand_rules(*model, *d))
      out += fmt::format("warning: breaks a rule of the spec: {}\n", *bad);
    std::fputs(out.c_str(), stdout);
    return 0;
  }
  auto file = SourceFile::from_string("<command line>", input);
  DiagnosticSink sink;
  auto insts = isa::assemble(*model, *file, sink);
  print_diags(sink);
  if (!insts)
    return 1;
  if (insts->empty()) {
    std::fprintf(stderr, "bcusim: error: nothing to explain (give an "
                         "instruction or a 32-digit hex word)\n");
    return 1;
  }
  std::string out;
  for (size_t i = 0; i < insts->size(); ++i) {
    if (i)
      out += "\n";
    out += isa::explain(*model, (*insts)[i]);
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

} // namespace

void add_isa_commands(CLI::App &app, Context &ctx) {
  // asm
  auto asm_opts = std::make_shared<AsmOptions>();
  CLI::App *as = app.add_subcommand(
      "asm", "Assemble BCU instructions (one per statement; `;` and line ends "
             "separate them)");
  as->add_option("FILE", asm_opts->input, "Assembly file ('-' = stdin)")
      ->required();
  as->add_option("-o,--output", asm_opts->output,
                 "Output file (default: stdout)");
  as->add_option("--format", asm_opts->format,
                 "text: canonical assembly; hex: 32 hex digits per "
                 "instruction (bit 127 first); bin: 16 bytes per instruction, "
                 "little-endian")
      ->check(CLI::IsMember({"text", "hex", "bin"}));
  as->add_flag("--show-encoding", asm_opts->show_encoding,
               "Annotated listing: word, canonical text and every field");
  add_isa_option(as, asm_opts->isa);
  as->callback([asm_opts, &ctx] { ctx.exit_code = run_asm(*asm_opts); });

  // disasm
  auto dis_opts = std::make_shared<DisasmOptions>();
  CLI::App *dis = app.add_subcommand(
      "disasm", "Disassemble BCU instruction words into canonical text");
  dis->add_option("FILE", dis_opts->input,
                  "Word file ('-' = stdin): hex (one 32-digit word per line) "
                  "or bin (16 bytes per word, little-endian)");
  dis->add_option("--hex", dis_opts->hex_words,
                  "Words given on the command line (32 hex digits each)");
  dis->add_option("--format", dis_opts->format, "FILE format: hex or bin")
      ->check(CLI::IsMember({"hex", "bin"}));
  dis->add_option("-o,--output", dis_opts->output,
                  "Output file (default: stdout)");
  add_isa_option(dis, dis_opts->isa);
  dis->callback([dis_opts, &ctx] { ctx.exit_code = run_disasm(*dis_opts); });

  // isa check / isa explain
  CLI::App *isa_cmd =
      app.add_subcommand("isa", "Inspect ISA descriptions and instructions");
  isa_cmd->require_subcommand(1);
  auto check_files = std::make_shared<std::vector<std::string>>();
  CLI::App *check = isa_cmd->add_subcommand(
      "check", "Load description files as one model and run the load-time "
               "checks");
  check->add_option("FILE", *check_files, "Description files, in order")
      ->required();
  check->callback(
      [check_files, &ctx] { ctx.exit_code = run_check(*check_files); });

  auto explain_isa = std::make_shared<IsaOptions>();
  auto explain_input = std::make_shared<std::string>();
  CLI::App *ex = isa_cmd->add_subcommand(
      "explain", "Explain an instruction (assembly text or a 32-digit hex "
                 "word): every field, its bits, value and defining line");
  ex->add_option("INPUT", *explain_input,
                 "e.g. \"BAR.SYNC 0x1, 0x40\" or 0x<32 hex digits>")
      ->required();
  add_isa_option(ex, *explain_isa);
  ex->callback([explain_isa, explain_input, &ctx] {
    ctx.exit_code = run_explain(*explain_isa, *explain_input);
  });
}

} // namespace bcusim::cli
