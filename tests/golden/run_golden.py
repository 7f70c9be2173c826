#!/usr/bin/env python3
"""Data-driven golden tests for the bcusim CLI.

A golden test is any file under tests/golden/ with a line (among its first
five) of the form

    <comment> RUN: bcusim ARGS...

where <comment> is any prefix (`//`, `#`, `;`). `%s` in ARGS stands for the
test file's own name; the command runs in the test file's folder, so
diagnostics print stable relative paths. `NAME=VALUE` words before `bcusim`
set environment variables; `%standin_cuda` stands for the stand-in CUDA
driver built beside bcusim (tests/gpu), `%exec_libcuda` for bcusim exec's
libcuda.so.1 stand-in (build/lib). The expected result lives beside
it in `<file>.expected`:

    exit: N
    --- stdout
    ...
    --- stderr
    ...

Usage:
    run_golden.py --bcusim PATH FILE...          check (prints a diff)
    run_golden.py --bcusim PATH --rebase DIR...  regenerate .expected files
"""
import argparse
import difflib
import os
import shlex
import subprocess
import sys


def find_run_line(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for i, line in enumerate(f):
            if i >= 5:
                break
            idx = line.find("RUN:")
            if idx >= 0:
                return line[idx + 4:].strip()
    return None


SKIP = object()


def run_one(bcusim, path):
    run = find_run_line(path)
    if run is None:
        return None
    args = shlex.split(run)
    standin = os.path.join(os.path.dirname(os.path.abspath(bcusim)),
                           "libcuda-standin.so")
    # bcusim exec's libcuda.so.1 stand-in (src/runtime/cudart/libcuda.cpp).
    exec_libcuda = os.path.join(os.path.dirname(os.path.abspath(bcusim)),
                                "lib", "libcuda.so.1")
    if "%exec_libcuda" in run and not os.path.exists(exec_libcuda):
        return SKIP  # built only with the CUDA toolkit's headers
    env = dict(os.environ)
    while args and "=" in args[0] and args[0] != "bcusim":
        k, v = args.pop(0).split("=", 1)
        env[k] = v.replace("%standin_cuda", standin).replace(
            "%exec_libcuda", exec_libcuda)
    if not args or args[0] != "bcusim":
        raise SystemExit(f"{path}: RUN: line must start with 'bcusim'")
    name = os.path.basename(path)
    args = [os.path.abspath(bcusim)] + [a.replace("%s", name) for a in args[1:]]
    try:
        p = subprocess.run(args, cwd=os.path.dirname(os.path.abspath(path)),
                           capture_output=True, timeout=240, env=env)
        code = p.returncode
        out = p.stdout.decode("utf-8", "replace")
        err = p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        code, out, err = "timeout", "", ""
    return f"exit: {code}\n--- stdout\n{out}--- stderr\n{err}"


def collect(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                for f in sorted(files):
                    if f.endswith((".expected", ".py", ".md")):
                        continue
                    yield os.path.join(root, f)
        else:
            yield p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bcusim", required=True)
    ap.add_argument("--rebase", action="store_true")
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    failed = skipped = 0
    for path in collect(a.paths):
        actual = run_one(a.bcusim, path)
        if actual is None:
            continue
        if actual is SKIP:
            print(f"{path}: skipped (needs {os.path.join('build', 'lib')}"
                  "/libcuda.so.1, built with the CUDA toolkit's headers)")
            skipped += 1
            continue
        exp_path = path + ".expected"
        if a.rebase:
            old = open(exp_path, encoding="utf-8").read() if os.path.exists(exp_path) else None
            if old != actual:
                with open(exp_path, "w", encoding="utf-8") as f:
                    f.write(actual)
                print(f"rebased {exp_path}")
            continue
        if not os.path.exists(exp_path):
            print(f"{path}: missing {exp_path} (run `make rebase` and review it)")
            failed += 1
            continue
        expected = open(exp_path, encoding="utf-8").read()
        if expected != actual:
            failed += 1
            print(f"FAIL {path}")
            sys.stdout.writelines(difflib.unified_diff(
                expected.splitlines(True), actual.splitlines(True),
                exp_path, "actual"))
    return 1 if failed else 77 if skipped else 0


if __name__ == "__main__":
    sys.exit(main())
