#!/usr/bin/env python3
"""Runs conformance kernel cases of tests/kernels/cases.txt against bcusim.

Each manifest line is one case:

    name | ptx path | bcusim run arguments | reference program + args | options

The reference program (built from tests/kernels/ref/, found in --ref-dir)
prints what `bcusim run PTX ARGS` must print on stdout; run_case.py runs
both and compares them line by line. Options (comma-separated):

    tol=R               floats compare with relative tolerance R
    expect-fail=TEXT    bcusim must exit non-zero and print TEXT on stderr
                        (case-insensitive; '-' and '_' read as spaces; the
                        option may repeat: any one of the texts suffices;
                        the PTX file's name does not count, and a stderr
                        saying "unsupported" / "not supported" / "not
                        implemented" fails the case)
    stdout              the kernel prints (printf); the reference prints the
                        printf lines first, then the dumps (the comparison
                        is the same: all of stdout)
    check-finds=KIND    under --checked: the case is expected to have
                        findings of this kind (may repeat; e.g. a kernel
                        that tests exits before a barrier has barrier
                        divergence by design)

--checked runs each case under `--check all --report`: the results must
still match the reference, and the case must have no finding at all (or
only the kinds its check-finds options name, then exit status 1).

A line starting with `!` is a disabled case (reason in a comment above it).

Usage:
    run_case.py --bcusim PATH --ref-dir DIR NAME...      run cases
    run_case.py --list                                   list case names
"""
import argparse
import math
import os
import shlex
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT_S = 300
# An expect-fail case wants the misuse diagnosed; a refusal to run the
# kernel at all (an instruction the engine does not support yet) is not that.
NOT_A_DIAGNOSIS = ("unsupported", "not supported", "not implemented")


class Case:
    def __init__(self, line_no, fields, disabled):
        self.line_no = line_no
        self.name, self.ptx, args, ref = fields[:4]
        self.args = shlex.split(args)
        self.ref = shlex.split(ref)
        self.disabled = disabled
        self.tol = None
        self.expect_fail = []
        self.stdout = False
        self.check_finds = []
        opts = fields[4] if len(fields) > 4 else ""
        for opt in (o.strip() for o in opts.split(",")):
            if not opt:
                continue
            key, _, value = opt.partition("=")
            if key == "tol":
                self.tol = float(value)
            elif key == "expect-fail":
                self.expect_fail.append(value)
            elif key == "stdout":
                self.stdout = True
            elif key == "check-finds":
                self.check_finds.append(value)
            else:
                raise ValueError(f"unknown option '{opt}'")


def parse_manifest(path):
    cases = {}
    with open(path, encoding="utf-8") as f:
        for line_no, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            disabled = line.startswith("!")
            if disabled:
                line = line[1:].strip()
            fields = [x.strip() for x in line.split("|")]
            if len(fields) < 4 or len(fields) > 5:
                raise SystemExit(f"{path}:{line_no}: expected 4 or 5 "
                                 f"'|'-separated fields, got {len(fields)}")
            try:
                case = Case(line_no, fields, disabled)
            except ValueError as e:
                raise SystemExit(f"{path}:{line_no}: {e}")
            if case.name in cases:
                raise SystemExit(f"{path}:{line_no}: duplicate case "
                                 f"'{case.name}'")
            cases[case.name] = case
    return cases


def dump_layout(args):
    """(arg index, element count, element type) of each `--dump I` in order,
    to label mismatching lines and to compare f32 elements as f32."""
    sizes, types, dumps = [], [], []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-a" and i + 1 < len(args):
            spec = args[i + 1]
            n = None
            if "[" in spec and "]" in spec:
                try:
                    n = int(spec[spec.index("[") + 1:spec.index("]")])
                except ValueError:
                    n = None
            sizes.append(n)
            types.append(spec.split("[")[0].split(":")[0])
            i += 2
            continue
        if a == "--dump" and i + 1 < len(args):
            spec = args[i + 1]
            if "=" not in spec:
                try:
                    dumps.append(int(spec))
                except ValueError:
                    pass
            i += 2
            continue
        i += 1
    return [(d, sizes[d] if d < len(sizes) else None,
             types[d] if d < len(types) else None) for d in dumps]


def locate(layout, line_index, printf_lines):
    if line_index < printf_lines:
        return f"printf line {line_index + 1}"
    k = line_index - printf_lines
    for arg, n, _ in layout:
        if n is None:
            break
        if k < n:
            return f"buffer -a #{arg}, element {k}"
        k -= n
    return f"line {line_index + 1}"


def parse_number(text):
    try:
        return float(text)
    except ValueError:
        return None


def as_f32(x):
    """x rounded to binary32 (None when it is past the f32 range)."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return None


INT_TYPES = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64")


def significant_digits(text):
    """Number of significant decimal digits in a number's spelling."""
    mantissa = text.lower().split("e")[0].lstrip("+-").replace(".", "")
    return len(mantissa.strip("0"))


def same_exact(exp, got, elem_type=None):
    if exp == got:
        return True
    if elem_type == "printf":
        return False
    if elem_type in INT_TYPES:
        try:
            return int(exp) == int(got)
        except ValueError:
            return False
    # Same number spelled differently (e.g. 1e+20 vs 1e20): equal values,
    # NaN equal to NaN, and the sign of zero kept. An f32 element compares
    # as f32: 26457512000 and 26457511936 are both shortest round-trip
    # spellings of the same float (C++ to_chars breaks the tie one way,
    # other shortest-digit printers the other). More significant digits
    # than the reference's shortest form (an f32 printed as a double) fail.
    x, y = parse_number(exp), parse_number(got)
    if x is None or y is None:
        return False
    if elem_type == "f32":
        x, y = as_f32(x), as_f32(y)
        if x is None or y is None:
            return False
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return (x == y and math.copysign(1, x) == math.copysign(1, y) and
            significant_digits(got) <= significant_digits(exp))


def same_tol(exp, got, tol, elem_type=None):
    if same_exact(exp, got, elem_type):
        return True
    x, y = parse_number(exp), parse_number(got)
    if x is None or y is None or math.isnan(x) or math.isnan(y):
        return False
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= tol * max(abs(x), abs(y), 1e-300)


def normalize(text):
    return text.lower().replace("-", " ").replace("_", " ")


def check_report(case, report, returncode, err):
    """--checked: the findings of the --report JSON are the expected ones."""
    import json
    try:
        with open(report, encoding="utf-8") as f:
            findings = json.load(f).get("findings", [])
    except (OSError, ValueError) as e:
        print(f"FAIL {case.name}: no --report JSON ({e})")
        print("--- stderr\n" + err)
        return False
    kinds = sorted({f.get("kind", "?") for f in findings})
    if not case.check_finds:
        if findings:
            print(f"FAIL {case.name}: --check all finds {', '.join(kinds)} "
                  f"in a kernel that should be clean")
            print("--- stderr\n" + err)
            return False
        return True
    if not findings or any(k not in case.check_finds for k in kinds):
        print(f"FAIL {case.name}: --check all finds {kinds or 'nothing'}, "
              f"expected only {case.check_finds}")
        print("--- stderr\n" + err)
        return False
    return True


def run_one(case, bcusim, ref_dir, checked=False, schedule=None):
    ptx = case.ptx
    report = None
    args = list(case.args)
    if schedule:
        # A correct kernel gives the reference result under every schedule.
        args += ["--schedule", schedule]
    if checked:
        import tempfile
        fd, report = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        args += ["--check", "all", "--report", report]
    try:
        return run_checked(case, bcusim, ref_dir, ptx, args, report)
    finally:
        if report:
            os.unlink(report)


def run_checked(case, bcusim, ref_dir, ptx, args, report):
    cmd = [bcusim, "run", ptx] + args
    shown = " ".join(shlex.quote(c) for c in ["bcusim", "run", ptx] + args)
    try:
        p = subprocess.run(cmd, cwd=HERE, capture_output=True,
                           timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        print(f"FAIL {case.name}: `{shown}` did not finish in {TIMEOUT_S} s")
        return False
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")

    if case.expect_fail:
        if p.returncode <= 0:
            why = ("exited 0" if p.returncode == 0
                   else f"died with signal {-p.returncode}")
            print(f"FAIL {case.name}: `{shown}` {why}; expected a non-zero "
                  f"exit with a diagnostic containing "
                  f"{' or '.join(repr(t) for t in case.expect_fail)}")
            print("--- stderr\n" + err)
            return False
        # The PTX file and kernel names (e.g. diag_deadlock_skip) appear in
        # every diagnostic: drop them so that they cannot supply the text.
        stem = os.path.splitext(os.path.basename(case.ptx))[0]
        text = normalize(err).replace(normalize(stem), " ")
        if any(w in text for w in NOT_A_DIAGNOSIS):
            print(f"FAIL {case.name}: bcusim gave up on the kernel instead "
                  f"of diagnosing it")
            print("--- stderr\n" + err)
            return False
        if not any(normalize(t) in text for t in case.expect_fail):
            print(f"FAIL {case.name}: stderr lacks "
                  f"{' or '.join(repr(t) for t in case.expect_fail)}")
            print("--- stderr\n" + err)
            return False
        print(f"PASS {case.name} (exit {p.returncode}, diagnosed)")
        return True

    expected_exit = 1 if (report and case.check_finds) else 0
    if p.returncode != expected_exit:
        print(f"FAIL {case.name}: `{shown}` exited {p.returncode}")
        print("--- stderr\n" + err)
        return False
    if report and not check_report(case, report, p.returncode, err):
        return False

    ref_cmd = [os.path.join(ref_dir, case.ref[0])] + case.ref[1:]
    r = subprocess.run(ref_cmd, cwd=HERE, capture_output=True,
                       timeout=TIMEOUT_S)
    if r.returncode != 0:
        print(f"FAIL {case.name}: reference {' '.join(case.ref)} exited "
              f"{r.returncode}\n{r.stderr.decode('utf-8', 'replace')}")
        return False
    expected = r.stdout.decode("utf-8").splitlines()
    actual = out.splitlines()

    layout = dump_layout(case.args)
    dumped = sum(n for _, n, _ in layout if n is not None)
    printf_lines = len(expected) - dumped if case.stdout else 0
    line_types = ["printf"] * printf_lines
    for _, n, t in layout:
        line_types += [t] * (n or 0)

    mismatches = 0
    for i, exp in enumerate(expected):
        got = actual[i] if i < len(actual) else None
        t = line_types[i] if i < len(line_types) else None
        ok = got is not None and (same_tol(exp, got, case.tol, t)
                                  if case.tol is not None
                                  else same_exact(exp, got, t))
        if not ok:
            if mismatches == 0:
                print(f"FAIL {case.name}: first mismatch at "
                      f"{locate(layout, i, printf_lines)} (stdout line "
                      f"{i + 1}): expected {exp!r}, got "
                      f"{'<missing>' if got is None else repr(got)}")
            mismatches += 1
    if len(actual) > len(expected):
        print(f"FAIL {case.name}: {len(actual) - len(expected)} extra stdout "
              f"line(s), first: {actual[len(expected)]!r}")
        mismatches += 1
    if mismatches:
        print(f"  {mismatches} mismatching line(s) of {len(expected)}; "
              f"command: {shown}")
        if err:
            print("--- stderr\n" + err)
        return False
    print(f"PASS {case.name} ({len(expected)} lines)")
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bcusim", help="path to the bcusim binary")
    ap.add_argument("--ref-dir", help="folder of the built kref_* programs")
    ap.add_argument("--manifest", default=os.path.join(HERE, "cases.txt"))
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--checked", action="store_true",
                    help="run under --check all: no findings allowed")
    ap.add_argument("--schedule", help="run under this --schedule value")
    ap.add_argument("--list-checkable", action="store_true",
                    help="cases that --checked applies to")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    cases = parse_manifest(a.manifest)
    if a.list:
        for c in cases.values():
            print(("!" if c.disabled else "") + c.name)
        return 0
    if a.list_checkable:
        for c in cases.values():
            if not c.disabled and not c.expect_fail:
                print(c.name)
        return 0
    if not a.bcusim or not a.ref_dir:
        ap.error("--bcusim and --ref-dir are required to run cases")
    names = a.names or [n for n, c in cases.items() if not c.disabled]
    ok = True
    for n in names:
        if n not in cases:
            print(f"FAIL {n}: no such case in {a.manifest}")
            ok = False
            continue
        ok = run_one(cases[n], os.path.abspath(a.bcusim),
                     os.path.abspath(a.ref_dir), a.checked, a.schedule) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
