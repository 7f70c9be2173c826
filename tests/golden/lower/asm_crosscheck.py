#!/usr/bin/env python3
"""Cross-checks `bcusim lower` against `bcusim asm --format hex`.

For every barrier of the given PTX files, the BCU text `bcusim lower`
prints is assembled again by `bcusim asm --format hex`; the words must be
the ones `bcusim lower` printed (encodings cross-checked with the
assembler). Usage: asm_crosscheck.py BCUSIM FILE.ptx...
"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    bcusim, files = sys.argv[1], sys.argv[2:]
    checked = 0
    for ptx in files:
        out = subprocess.run([bcusim, "lower", "--format", "json", ptx],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print(f"FAIL: bcusim lower {ptx}: exit {out.returncode}\n"
                  f"{out.stderr}")
            return 1
        listing = json.loads(out.stdout)
        instrs = [(b["file"], b["line"], i["text"], i["hex"])
                  for f in listing["functions"] for b in f["barriers"]
                  for i in b["bcu"]]
        if not instrs:
            print(f"FAIL: {ptx}: no barrier instructions")
            return 1
        with tempfile.NamedTemporaryFile("w", suffix=".s",
                                         delete=False) as s:
            s.write("".join(text + "\n" for _, _, text, _ in instrs))
            path = s.name
        try:
            asm = subprocess.run([bcusim, "asm", "--format", "hex", path],
                                 capture_output=True, text=True)
        finally:
            os.unlink(path)
        if asm.returncode != 0:
            print(f"FAIL: bcusim asm rejected the lowered text:\n{asm.stderr}")
            return 1
        words = asm.stdout.split()
        if len(words) != len(instrs):
            print(f"FAIL: {len(instrs)} instructions, {len(words)} words")
            return 1
        for (f, line, text, hexword), word in zip(instrs, words):
            if word != hexword:
                print(f"FAIL: {f}:{line}: '{text}': lower printed {hexword}, "
                      f"asm gives {word}")
                return 1
            checked += 1
    print(f"ok: {checked} lowered BCU instructions match bcusim asm")
    return 0


if __name__ == "__main__":
    sys.exit(main())
