// Linking the PTX modules of relocatable device code into one
// (include/bcusim/runtime/link.h). The modules are scanned at module
// scope (statements outside function bodies) for the symbols they declare
// and define; the text is then joined with the few edits linking needs.
#include "bcusim/runtime/link.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace bcusim::runtime {
namespace {

struct Tok {
  size_t begin = 0, end = 0;
  int line = 0;
  char kind = 0; // 'i' identifier, 'd' .directive, 'n' number, 's' string,
                 // 'p' punctuation
};

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         c == '%';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

std::vector<Tok> tokenize(const std::string &s) {
  std::vector<Tok> out;
  int line = 1;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n')
        ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t e = s.find("*/", i + 2);
      e = e == std::string::npos ? s.size() : e + 2;
      line += int(std::count(s.begin() + long(i), s.begin() + long(e), '\n'));
      i = e;
    } else {
      Tok t;
      t.begin = i;
      t.line = line;
      if (c == '"') {
        ++i;
        while (i < s.size() && s[i] != '"' && s[i] != '\n')
          i += s[i] == '\\' ? 2 : 1;
        i = std::min(i + 1, s.size());
        t.kind = 's';
      } else if (c == '.' && i + 1 < s.size() && ident_start(s[i + 1])) {
        ++i;
        while (i < s.size() && ident_char(s[i]))
          ++i;
        t.kind = 'd';
      } else if (ident_start(c)) {
        ++i;
        while (i < s.size() && ident_char(s[i]))
          ++i;
        t.kind = 'i';
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        while (i < s.size() && (ident_char(s[i]) || s[i] == '.'))
          ++i;
        t.kind = 'n';
      } else {
        ++i;
        t.kind = 'p';
      }
      t.end = i;
      out.push_back(t);
    }
  }
  return out;
}

// A module-scope statement: tokens [first, last].
struct Stmt {
  size_t first = 0, last = 0;
  bool is_extern = false, is_visible = false, is_weak = false;
  bool is_func = false, is_entry = false, is_var = false;
  bool has_body = false;
  size_t body = 0;     // token index of the body's '{'
  size_t init = 0;     // token index of '=' (0: none)
  std::string name;    // the symbol declared, if any
  std::string keyword; // .version, .target, .file, ...
};

struct Unit {
  const std::string *text = nullptr;
  std::vector<Tok> toks;
  std::vector<Stmt> stmts;
  std::set<std::string> labels; // labels of .section blocks
  int max_file = 0;
  std::string tok(size_t i) const {
    return text->substr(toks[i].begin, toks[i].end - toks[i].begin);
  }
};

bool is_space_directive(const std::string &d) {
  return d == ".global" || d == ".const" || d == ".shared" || d == ".local" ||
         d == ".tex" || d == ".texref" || d == ".surfref" || d == ".samplerref";
}

void scan(Unit &u) {
  u.toks = tokenize(*u.text);
  const auto &t = u.toks;
  size_t i = 0;
  while (i < t.size()) {
    Stmt st;
    st.first = i;
    st.keyword = t[i].kind == 'd' ? u.tok(i) : "";
    if (st.keyword == ".version" || st.keyword == ".target" ||
        st.keyword == ".address_size" || st.keyword == ".file") {
      // Line directives: no terminator.
      size_t j = i;
      while (j + 1 < t.size() && t[j + 1].line == t[i].line)
        ++j;
      st.last = j;
      if (st.keyword == ".file" && i + 1 < t.size() && t[i + 1].kind == 'n')
        u.max_file = std::max(u.max_file, std::atoi(u.tok(i + 1).c_str()));
      u.stmts.push_back(st);
      i = j + 1;
      continue;
    }
    int paren = 0, brace = 0;
    bool name_next = false;
    size_t j = i;
    for (; j < t.size(); ++j) {
      std::string x = u.tok(j);
      if (t[j].kind == 'p') {
        char c = x[0];
        if (c == '(')
          ++paren;
        else if (c == ')')
          --paren;
        else if (c == '{') {
          if (brace == 0 && !st.init && paren == 0) {
            st.has_body = true;
            st.body = j;
          }
          ++brace;
        } else if (c == '}') {
          if (--brace == 0 && st.has_body)
            break;
        } else if (c == '=' && brace == 0 && paren == 0 && !st.init) {
          st.init = j;
        } else if (c == ';' && brace == 0 && paren == 0) {
          break;
        } else if (c == ':' && brace > 0 && st.keyword == ".section" && j > 0 &&
                   t[j - 1].kind == 'i') {
          u.labels.insert(u.tok(j - 1));
        }
        continue;
      }
      if (brace > 0 || st.has_body)
        continue;
      if (t[j].kind == 'd' && paren == 0) {
        st.is_extern |= x == ".extern";
        st.is_visible |= x == ".visible";
        st.is_weak |= x == ".weak";
        if (x == ".func" || x == ".entry") {
          st.is_func = x == ".func";
          st.is_entry = x == ".entry";
          name_next = true;
        }
        if (is_space_directive(x))
          st.is_var = true;
      } else if (t[j].kind == 'i' && paren == 0 && st.name.empty() &&
                 !st.init && (name_next || st.is_var)) {
        st.name = x;
      }
    }
    st.last = std::min(j, t.size() - 1);
    u.stmts.push_back(st);
    i = j + 1;
  }
}

// The device runtime's entry points, which the engine provides: the PTX of
// the device runtime library that -rdc programs link (libcudadevrt)
// defines them through system calls, and those definitions are not used.
bool engine_provided(const std::string &name) {
  return name.rfind("__cudaCDP", 0) == 0;
}

// Whether a statement defines its symbol (a function with a body, a
// variable not declared .extern).
bool defines(const Stmt &s) {
  if (s.name.empty() || engine_provided(s.name))
    return false;
  if (s.is_func || s.is_entry)
    return s.has_body;
  return s.is_var && !s.is_extern;
}

bool external(const Stmt &s) {
  return s.is_visible || s.is_extern || s.is_weak || s.is_entry;
}

std::vector<Unit> scan_all(const std::vector<std::string> &modules) {
  std::vector<Unit> units(modules.size());
  for (size_t m = 0; m < modules.size(); ++m) {
    units[m].text = &modules[m];
    scan(units[m]);
  }
  return units;
}

std::pair<int, int> version_of(const std::string &v) {
  int major = 0, minor = 0;
  std::sscanf(v.c_str(), "%d.%d", &major, &minor);
  return {major, minor};
}

} // namespace

bool ptx_modules_need_link(const std::vector<std::string> &modules) {
  if (modules.size() < 2)
    return false;
  std::vector<Unit> units = scan_all(modules);
  std::map<std::string, std::set<size_t>> definers;
  for (size_t m = 0; m < units.size(); ++m)
    for (const Stmt &s : units[m].stmts)
      if (defines(s) && external(s))
        definers[s.name].insert(m);
  for (size_t m = 0; m < units.size(); ++m)
    for (const Stmt &s : units[m].stmts) {
      if (s.name.empty() || defines(s))
        continue;
      auto it = definers.find(s.name);
      if (it != definers.end() &&
          std::any_of(it->second.begin(), it->second.end(),
                      [&](size_t d) { return d != m; }))
        return true;
    }
  return false;
}

std::optional<std::string> link_ptx(const std::vector<std::string> &modules,
                                    std::string &error) {
  std::vector<Unit> units = scan_all(modules);
  // Every module-scope name, by module, and the definitions of external
  // names.
  std::map<std::string, std::set<size_t>> mentioned;
  struct Def {
    size_t module, stmt;
    bool weak;
  };
  std::map<std::string, std::vector<Def>> defs;
  // Definitions that become declarations.
  std::set<std::pair<size_t, size_t>> demoted;
  for (size_t m = 0; m < units.size(); ++m) {
    for (size_t k = 0; k < units[m].stmts.size(); ++k) {
      const Stmt &s = units[m].stmts[k];
      if (s.name.empty())
        continue;
      mentioned[s.name].insert(m);
      if (defines(s) && external(s))
        defs[s.name].push_back({m, k, s.is_weak});
      else if (engine_provided(s.name) && s.has_body)
        demoted.insert({m, k});
    }
    for (const auto &l : units[m].labels)
      mentioned[l].insert(m);
  }
  // The definition each external name keeps; the others become
  // declarations.
  for (const auto &[name, list] : defs) {
    const Def *keep = nullptr;
    for (const Def &d : list) {
      if (d.weak)
        continue;
      if (keep) {
        error = fmt::format("'{}' is defined in two translation units' device "
                            "code (modules {} and {})",
                            name, keep->module, d.module);
        return std::nullopt;
      }
      keep = &d;
    }
    if (!keep)
      keep = &list.front();
    for (const Def &d : list)
      if (&d != keep)
        demoted.insert({d.module, d.stmt});
  }

  std::string version = "";
  std::string target, address_size;
  for (const Unit &u : units)
    for (const Stmt &s : u.stmts) {
      std::string v = s.last > s.first ? u.tok(s.first + 1) : "";
      if (s.keyword == ".version" &&
          (version.empty() || version_of(v) > version_of(version)))
        version = v;
      if (s.keyword == ".target" && target.empty())
        target = u.text->substr(u.toks[s.first].begin,
                                u.toks[s.last].end - u.toks[s.first].begin);
      if (s.keyword == ".address_size" && address_size.empty())
        address_size = u.text->substr(
            u.toks[s.first].begin, u.toks[s.last].end - u.toks[s.first].begin);
    }
  std::string out;
  if (!version.empty())
    out += ".version " + version + "\n";
  if (!target.empty())
    out += target + "\n";
  if (!address_size.empty())
    out += address_size + "\n";

  std::set<std::string> all_names;
  for (const auto &[n, ms] : mentioned)
    all_names.insert(n);
  int file_offset = 0;
  for (size_t m = 0; m < units.size(); ++m) {
    const Unit &u = units[m];
    // Names this module keeps to itself that another module also uses.
    std::map<std::string, std::string> rename;
    auto local = [&](const std::string &n) {
      if (mentioned[n].size() < 2 || rename.count(n))
        return;
      std::string to = fmt::format("{}$l{}", n, m);
      while (all_names.count(to))
        to += "_";
      all_names.insert(to);
      rename[n] = to;
    };
    for (const Stmt &s : u.stmts)
      if (defines(s) && !external(s))
        local(s.name);
    for (const auto &l : u.labels)
      local(l);

    struct Edit {
      size_t begin, end;
      std::string text;
    };
    std::vector<Edit> edits;
    for (size_t k = 0; k < u.stmts.size(); ++k) {
      const Stmt &s = u.stmts[k];
      size_t b = u.toks[s.first].begin, e = u.toks[s.last].end;
      if (s.keyword == ".version" || s.keyword == ".target" ||
          s.keyword == ".address_size") {
        edits.push_back({b, e, ""});
      } else if (demoted.count({m, k})) {
        // The kept definition is elsewhere: a declaration here.
        size_t stop = s.has_body ? s.body : s.init ? s.init : s.last;
        std::string decl = ".extern";
        size_t at = u.toks[s.first].begin;
        for (size_t i = s.first; i < stop; ++i) {
          std::string x = u.tok(i);
          if (x != ".weak" && x != ".visible" && x != ".extern")
            decl += u.text->substr(at, u.toks[i].end - at);
          at = u.toks[i].end;
        }
        while (!decl.empty() &&
               std::isspace(static_cast<unsigned char>(decl.back())))
          decl.pop_back();
        edits.push_back({b, e, decl + ";"});
      }
    }
    for (size_t i = 0; i < u.toks.size(); ++i) {
      const Tok &t = u.toks[i];
      std::string x = u.tok(i);
      if (t.kind == 'i' && rename.count(x)) {
        edits.push_back({t.begin, t.end, rename[x]});
      } else if ((x == ".file" || x == ".loc" || x == "inlined_at") &&
                 i + 1 < u.toks.size() && u.toks[i + 1].kind == 'n' &&
                 file_offset > 0) {
        const Tok &n = u.toks[i + 1];
        int f = std::atoi(u.tok(i + 1).c_str());
        edits.push_back({n.begin, n.end, std::to_string(f + file_offset)});
      }
    }
    // Edits inside removed statements are dropped.
    std::sort(edits.begin(), edits.end(), [](const Edit &a, const Edit &b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
    });
    out += fmt::format("\n// ---- module {} ----\n", m);
    size_t pos = 0;
    for (const Edit &e : edits) {
      if (e.begin < pos)
        continue;
      out.append(*u.text, pos, e.begin - pos);
      out += e.text;
      pos = e.end;
    }
    out.append(*u.text, pos, std::string::npos);
    if (!out.empty() && out.back() != '\n')
      out += '\n';
    file_offset += u.max_file;
  }
  return out;
}

} // namespace bcusim::runtime
