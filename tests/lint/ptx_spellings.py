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
  - a modifier taken by its text (`take("x")`, `take_any({"x", ...})`).
A file not in ALLOWED must have none; a file in STILL_SPELLED must have
exactly the number listed (lower it when a file drops some).
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
