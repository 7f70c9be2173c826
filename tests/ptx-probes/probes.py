#!/usr/bin/env python3
"""PTX validation probes: snippets that ptxas 13 accepts or rejects, and
whether `bcusim ptx check` agrees (docs/ptx-validation.md).

probes.tsv has one probe per line, tab-separated:
  name  target  version  snippet  verdict  lines  message
`snippet` is one line of PTX put into a kernel (see wrap()); a snippet that
starts with '.' is a kernel directive, put between the parameter list and
the body. `verdict` is what ptxas 13 says (accepted / rejected), `lines` the
lines of its errors (comma-separated), `message` its first error message.

  probes.py --regen [--ptxas PATH]   rerun ptxas on every probe and rewrite
                                     columns 5-7 (needs ptxas)
  probes.py --check --bcusim PATH    every probe: bcusim accepts what ptxas
                                     accepts, and rejects what ptxas rejects
                                     with errors only at ptxas's lines
  probes.py --launch --bcusim PATH   every probe ptxas accepts for sm_90
                                     runs under `bcusim run` without being
                                     refused as unsupported (but the listed
                                     KNOWN_REFUSED)
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "probes.tsv")
HEADER = "# name\ttarget\tversion\tsnippet\tverdict\tlines\tmessage\n"


def wrap(target, version, snippet):
    """The PTX module of one probe: the snippet is on line 13 (an
    instruction) or line 5 (a kernel directive)."""
    directive = snippet if snippet.startswith(".") else ""
    # Half-precision registers exist from sm_53 on.
    m = re.match(r"sm_(\d+)", target)
    halves = m is not None and int(m.group(1)) >= 53
    half2 = ".reg .f16x2 %hh<4>;" if halves else ""
    half = ".reg .f16 %hf<4>;" if halves else ""
    body = "" if directive else snippet
    return (f".version {version}\n"          # 1
            f".target {target}\n"             # 2
            ".address_size 64\n"              # 3
            ".visible .entry k(.param .u64 k_param_0)\n"  # 4
            f"{directive}\n"                  # 5
            "{\n"                             # 6
            ".reg .b32 %r<10>; .reg .u32 %u<4>; .reg .s32 %s<4>; "
            f"{half2}\n"                                         # 7
            ".reg .b64 %rd<10>; .reg .u64 %ud<4>; .reg .s64 %sd<4>; "
            ".reg .f64 %fd<4>;\n"                                # 8
            ".reg .pred %p<4>; .reg .b16 %h<4>; .reg .u16 %us<4>; "
            f"{half} .reg .b8 %c<4>; .reg .u8 %uc<4>;\n"        # 9
            ".reg .f32 %f<4>;\n"               # 10
            ".shared .align 8 .b64 bar;\n"    # 11
            "// probe\n"                      # 12
            f"{body}\n"                       # 13
            "ret;\n"                          # 14
            "}\n")


def read_table():
    rows = []
    with open(TABLE, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            while len(cols) < 7:
                cols.append("")
            rows.append(cols)
    return rows


def ptxas_verdict(ptxas, path, target):
    # ptxas checks features against the module's .target; assemble for the
    # newest architecture so that any target up to it is accepted.
    arch = "sm_100a" if target.startswith("sm_10") or target.startswith("sm_12") else "sm_90a"
    p = subprocess.run([ptxas, f"-arch={arch}", path, "-o", os.devnull],
                       capture_output=True, text=True)
    errors = re.findall(r"line (\d+); (?:error|fatal)\s*:\s*(.*)", p.stderr)
    if p.returncode == 0:
        return "accepted", "", ""
    lines = sorted({int(l) for l, _ in errors})
    if errors:
        message = errors[0][1].strip()
    elif p.stderr.strip():
        message = p.stderr.strip().splitlines()[0]
    else:  # no message at all (ptxas crashed): not a verdict to keep
        message = f"ptxas exited with status {p.returncode} and no message"
    return "rejected", ",".join(map(str, lines)), message


def regen(ptxas):
    rows = read_table()
    with tempfile.TemporaryDirectory() as tmp:
        for r in rows:
            path = os.path.join(tmp, r[0] + ".ptx")
            with open(path, "w", encoding="utf-8") as f:
                f.write(wrap(r[1], r[2], r[3]))
            r[4], r[5], r[6] = ptxas_verdict(ptxas, path, r[1])
    with open(TABLE, "w", encoding="utf-8") as f:
        f.write(HEADER)
        for r in rows:
            f.write("\t".join(r) + "\n")
    print(f"{len(rows)} probes, "
          f"{sum(r[4] == 'rejected' for r in rows)} rejected by ptxas")


def check(bcusim):
    rows = read_table()
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, target, version, snippet, verdict, lines, message in rows:
            path = os.path.join(tmp, name + ".ptx")
            with open(path, "w", encoding="utf-8") as f:
                f.write(wrap(target, version, snippet))
            p = subprocess.run([bcusim, "ptx", "check", path],
                               capture_output=True, text=True)
            got = re.findall(r"^" + re.escape(path) + r":(\d+):\d+: error:",
                             p.stderr, re.M)
            why = ""
            if p.returncode not in (0, 1) or "Assertion" in p.stderr:
                why = f"bcusim exited {p.returncode}"
            elif verdict == "accepted" and p.returncode != 0:
                why = "ptxas accepts it, bcusim rejects it"
            elif verdict == "rejected" and p.returncode == 0:
                why = f"ptxas rejects it ({message}), bcusim accepts it"
            elif verdict == "rejected":
                want = {int(x) for x in lines.split(",") if x}
                bad = sorted({int(x) for x in got} - want)
                if not got or bad:
                    why = (f"bcusim reports errors at lines {sorted(set(map(int, got)))}, "
                           f"ptxas at {sorted(want)} ({message})")
            if why:
                failed += 1
                print(f"FAIL {name} [{target} {version}] {snippet}: {why}")
                sys.stdout.write(p.stderr)
    print(f"{len(rows) - failed} of {len(rows)} probes agree with ptxas")
    return failed == 0


# Forms ptxas accepts for sm_90 that the engine still refuses at launch
# (docs/engine.md "Supported instructions" lists what runs); a probe here
# that starts to run, or one not here that is refused, fails --launch.
KNOWN_REFUSED: set[str] = set()


def launch(bcusim):
    """Every probe ptxas accepts for sm_90 runs under `bcusim run` without
    being refused as unsupported, except KNOWN_REFUSED: a form the validator
    lets through is one the engine executes (faults and deadlocks of the
    probe's uninitialized registers are fine)."""
    rows = read_table()
    failed = ran = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, target, version, snippet, verdict, lines, message in rows:
            if verdict != "accepted" or target != "sm_90":
                continue
            path = os.path.join(tmp, name + ".ptx")
            with open(path, "w", encoding="utf-8") as f:
                f.write(wrap(target, version, snippet))
            p = subprocess.run([bcusim, "run", path, "-g", "1", "-b", "32",
                                "-a", "u64[64]", "--max-steps", "100000"],
                               capture_output=True, text=True, timeout=120)
            ran += 1
            low = p.stderr.lower()
            refused = ("unsupported" in low or "not supported" in low or
                       "not implemented" in low)
            if p.returncode not in (0, 1) or refused != (name in KNOWN_REFUSED):
                failed += 1
                print(f"FAIL {name} [{target} {version}] {snippet}: "
                      f"exit {p.returncode}, "
                      f"{'refused' if refused else 'runs'}"
                      f"{' (listed as refused)' if name in KNOWN_REFUSED else ''}")
                sys.stdout.write(p.stderr)
    print(f"{ran - failed} of {ran} probes accepted for sm_90 behave as "
          f"expected ({len(KNOWN_REFUSED)} known to be refused)")
    return failed == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--regen", action="store_true")
    ap.add_argument("--ptxas", default=os.path.join(
        os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--bcusim")
    ap.add_argument("--launch", action="store_true")
    a = ap.parse_args()
    if a.launch and a.bcusim:
        return 0 if launch(a.bcusim) else 1
    if a.regen:
        regen(a.ptxas)
        return 0
    if a.check and a.bcusim:
        return 0 if check(a.bcusim) else 1
    ap.error("give --regen or --check --bcusim PATH")


if __name__ == "__main__":
    sys.exit(main())
