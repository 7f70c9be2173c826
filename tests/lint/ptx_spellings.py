#!/usr/bin/env python3
"""PTX spellings are read in one place: the instruction table
(include/bcusim/ptx/opcodes.def, modifiers.def, types.def) and the parser
resolve opcode, modifier, type and state-space names to enumerators once;
everything else tests the enumerators (docs/engine.md "The instruction
table").

This check counts, in every C++ file under src/ and tools/, the places that
still compare text against a PTX spelling:
  - `== "x"` / `!= "x"` (either side) where x, with or without its leading
    dot, is an opcode, modifier or type of the table;
  - a literal that is a dotted type name (".u32");
  - a modifier taken by its text (`take("x")`, `take_any({"x", ...})`);
  - a list of spelled names: a brace-enclosed list of two or more string
    literals and nothing else, most of them opcodes, modifiers or types of
    the table (`{"rn", "rz", "rm"}`), the way a hook would hand names to a
    loop instead of the enumerators (most, not all: a list that mixes in
    a spelling the table lacks is caught too).
A file not in ALLOWED must have none; a file in STILL_SPELLED must have
exactly the number listed (lower it when a file drops some). A file in
NAME_LISTS may hold lists of names that are not PTX instruction spellings
although they read like them.
"""
import argparse
import os
import re
import sys

# Files that read PTX text themselves, or whose literals are not PTX
# instruction spellings.
ALLOWED = {
    "src/ptx/parser.cpp": "the parser resolves names to enumerators",
    "src/ptx/lexer.cpp": "the lexer",
    "src/ptx/instructions.cpp": "the table and its name lookups",
    "src/runtime/link.cpp": "links module-level directives of PTX text",
    "src/bcu/replay.cpp": "the barrier unit's replay format",
    "src/check/checker.cpp": "the names of --check",
    "src/engine/args.cpp": "the -a argument syntax",
    "src/engine/printf.cpp": "printf conversion specifications",
}
ALLOWED_DIRS = ("src/isa/",)  # the barrier unit's own ISA

# Files whose lists of names only look like PTX spellings.
NAME_LISTS = {
    "src/engine/device.cpp": "the argument types of -a and the runtime",
    "src/engine/observer.cpp": "the atomic operations' names in events",
}

# Compile hooks that still choose some forms by modifier text (none: every
# file outside ALLOWED has no compare left).
STILL_SPELLED = {}


def spellings(root):
    inc = os.path.join(root, "include/bcusim/ptx")
    names = set()
    types = set()
    for f, pat in (("opcodes.def", r'PTX_OPCODE\(\w+, "([^"]*)"'),
                   ("modifiers.def", r'PTX_MODIFIER\(\w+, "([^"]*)"\)'),
                   ("types.def", r'PTX_TYPE\(\w+, "([^"]*)"')):
        with open(os.path.join(inc, f)) as h:
            found = set(re.findall(pat, h.read()))
        if not found:
            sys.exit(f"no rows read from {f}")
        names |= found
        if f == "types.def":
            types = found
    return names, types


def compares(path, names, types):
    """The (line, text) of each flagged string literal, once per literal."""
    literal = re.compile(r'"((?:[^"\\]|\\.)*)"')
    before = re.compile(r'(?:==|!=)\s*$')
    after = re.compile(r'^\s*(?:==|!=)')
    take = re.compile(r'take(?:_any)?\(\s*\{?\s*$')
    found = []
    with open(path, errors="replace") as h:
        for n, line in enumerate(h, 1):
            if line.strip().startswith("//"):
                continue
            for m in literal.finditer(line):
                text = m.group(1)
                word = text[1:] if text.startswith(".") else text
                head, tail = line[:m.start()], line[m.end():]
                compared = before.search(head) or after.search(tail)
                if ((compared and word in names) or
                        (text.startswith(".") and word in types) or
                        take.search(head)):
                    found.append((n, line.strip()))
    return found


def name_lists(path, names):
    """The (line, text) of each brace-enclosed list of spelled names."""
    with open(path, errors="replace") as h:
        text = h.read()
    # Drop comments, keeping the line structure.
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.S)
    literal = re.compile(r'"((?:[^"\\]|\\.)*)"')
    found = []
    for m in re.finditer(r"\{([^{}]*)\}", text):
        body = m.group(1)
        words = literal.findall(body)
        if len(words) < 2 or literal.sub("", body).strip(" \t\n,"):
            continue
        known = sum((w[1:] if w.startswith(".") else w) in names for w in words)
        if 2 * known > len(words):
            n = text.count("\n", 0, m.start()) + 1
            found.append((n, " ".join(m.group(0).split())))
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    root = ap.parse_args().root
    names, types = spellings(root)
    failed = False
    seen = set()
    for top in ("src", "tools"):
        for dp, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".cpp", ".h", ".inc")):
                    continue
                rel = os.path.relpath(os.path.join(dp, f), root)
                if rel in ALLOWED or rel.startswith(ALLOWED_DIRS):
                    continue
                found = compares(os.path.join(root, rel), names, types)
                if rel not in NAME_LISTS:
                    found += name_lists(os.path.join(root, rel), names)
                want = STILL_SPELLED.get(rel, 0)
                seen.add(rel)
                if len(found) == want:
                    continue
                failed = True
                print(f"{rel}: {len(found)} compare(s) against PTX "
                      f"spellings, {want} expected"
                      + (" (lower its number in STILL_SPELLED)"
                         if len(found) < want else
                         "; test the table's enumerators instead:"))
                if len(found) > want:
                    for n, line in found:
                        print(f"  {rel}:{n}: {line}")
    for rel in sorted(set(STILL_SPELLED) - seen):
        failed = True
        print(f"{rel}: listed in STILL_SPELLED but not found")
    if failed:
        return 1
    print(f"PTX spellings: {len(seen)} files checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
