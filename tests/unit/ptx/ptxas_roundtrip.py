#!/usr/bin/env python3
"""Checks the PTX front end against NVIDIA's assembler (needs ptxas).

For every tests/ptx-inputs/*.ptx: ptxas accepts the file, and ptxas turns
`bcusim ptx dump FILE` (the parsed module printed back) into byte-identical
machine code and data (.text.*, .nv.global.init and .nv.constant* sections
of the cubin). Identical code means the parser kept every instruction,
operand, modifier, declaration and pragma; identical data, every
initializer (and, for const-expr.ptx, that each folded constant expression
has the value ptxas computes).

Usage: ptxas_roundtrip.py --bcusim BUILD/bcusim --ptxas PTXAS INPUT_DIR
"""
import argparse
import glob
import os
import struct
import subprocess
import sys
import tempfile


def text_sections(path):
    d = open(path, "rb").read()
    shoff = struct.unpack_from("<Q", d, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize)
            for i in range(shnum)]
    names = secs[shstrndx][4]
    out = {}
    for s in secs:
        name = d[names + s[0]:d.index(b"\0", names + s[0])].decode()
        if name.startswith((".text.", ".nv.global.init", ".nv.constant")):
            out[name] = d[s[4]:s[4] + s[5]]
    return out


def target_of(path):
    with open(path) as f:
        for line in f:
            if line.startswith(".target"):
                return line.split()[1].rstrip(",")
    return "sm_90"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bcusim", required=True)
    ap.add_argument("--ptxas", required=True)
    ap.add_argument("inputs")
    a = ap.parse_args()
    failures = 0
    files = sorted(glob.glob(os.path.join(a.inputs, "*.ptx")))
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            arch = target_of(f)
            dumped = os.path.join(tmp, "dump.ptx")
            with open(dumped, "w") as out:
                subprocess.run([a.bcusim, "ptx", "dump", f], stdout=out,
                               check=True)
            orig_bin = os.path.join(tmp, "a.cubin")
            dump_bin = os.path.join(tmp, "b.cubin")
            # Modules made with -rdc=true refer to .extern functions and
            # variables: assemble them as relocatable code (-c).
            with open(f, encoding="utf-8") as src:
                rdc = [".extern .global", ".extern .func  (.param .b64 func_retval0) __cudaCDP"]
                text = src.read()
                reloc = ["-c"] if any(r in text for r in rdc) else []
            subprocess.run([a.ptxas, "-arch=" + arch, *reloc, f, "-o", orig_bin],
                           check=True)
            subprocess.run([a.ptxas, "-arch=" + arch, *reloc, dumped, "-o",
                            dump_bin], check=True)
            x, y = text_sections(orig_bin), text_sections(dump_bin)
            bad = sorted(k for k in x if x[k] != y.get(k)) + sorted(
                k for k in y if k not in x)
            status = "ok" if not bad else "DIFFERS: " + ", ".join(bad)
            print(f"{os.path.basename(f)}: {len(x)} code and data sections: {status}")
            failures += bool(bad)
    if not files:
        print("no inputs")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
