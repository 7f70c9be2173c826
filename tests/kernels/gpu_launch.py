#!/usr/bin/env python3
"""Runs one of this suite's launches as recorded on an NVIDIA GPU and
compares bcusim's stdout with the hardware's, line by line.

  gpu_launch.py --bcusim PATH --hardware DIR CASE [--skip-columns N:K,K...]
                 [--gpu H200]

DIR holds cmds.txt (NAME<TAB>bcusim run arguments relative to
tests/kernels) and GPU-outputs.tar.gz (NAME.out, the GPU's stdout; GPU in
lower case, h100 by default): ../shared/hardware/conformance and
tests/hardware/conformance (H100, driver 580.159.04, CUDA 13.0),
tests/hardware/conformance-h200 (H200, driver 580.159.04, CUDA 13.0). --skip-columns N:K,... leaves
out the lines whose index mod N is one of the K (results the model does not
reproduce, listed with their reason in docs/conformance.md "Measured on
H100"). Exits 77 (skipped) when DIR is missing.
"""
import argparse
import os
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bcusim", required=True)
    ap.add_argument("--hardware", required=True)
    ap.add_argument("--skip-columns", default="")
    ap.add_argument("--gpu", default="H100")
    ap.add_argument("case")
    a = ap.parse_args()
    a.bcusim = os.path.abspath(a.bcusim)
    cmds = os.path.join(a.hardware, "cmds.txt")
    tar = os.path.join(a.hardware, f"{a.gpu.lower()}-outputs.tar.gz")
    if not (os.path.exists(cmds) and os.path.exists(tar)):
        print(f"skipped: no hardware data in {a.hardware}")
        return 77
    args = None
    with open(cmds) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if p[0] == a.case:
                args = p[1:]
    if args is None:
        print(f"{a.case}: not in {cmds}")
        return 1
    with tarfile.open(tar) as t:
        names = {os.path.normpath(n): n for n in t.getnames()}
        member = names.get(f"{a.case}.out")
        if member is None:
            print(f"{a.case}.out: not in {tar}")
            return 1
        want = t.extractfile(member).read().decode().splitlines()
    r = subprocess.run([a.bcusim, "run"] + args, cwd=HERE, capture_output=True,
                       text=True, timeout=600)
    if r.returncode != 0:
        print(f"bcusim failed ({r.returncode}):\n{r.stderr}")
        return 1
    got = r.stdout.splitlines()
    skip_n, skip = 0, set()
    if a.skip_columns:
        n, ks = a.skip_columns.split(":")
        skip_n, skip = int(n), {int(k) for k in ks.split(",")}
    if len(got) != len(want):
        print(f"{a.case}: bcusim printed {len(got)} lines, the {a.gpu} {len(want)}")
        return 1
    bad = [i for i in range(len(want))
           if got[i] != want[i] and not (skip_n and i % skip_n in skip)]
    for i in bad[:5]:
        print(f"line {i + 1}: bcusim {got[i]}, {a.gpu} {want[i]}")
    checked = sum(1 for i in range(len(want)) if not (skip_n and i % skip_n in skip))
    print(f"{a.case}: {len(bad)} of {checked} lines differ from the {a.gpu}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
