#!/usr/bin/env python3
"""The checker's test-kernel suite: manifest tools (tests/kernels/check).

cases.txt lists one case per line:

    name | ptx (relative to tests/kernels) | bcusim run arguments | expected

Expected findings, space-separated (docs/conformance.md, "The checker's test
kernels"):

    clean                         no finding at all
    data-race:SPACE:A:B           one race report between the accesses at
    intra-warp-race:SPACE:A:B     CUDA lines A and B of the case's .cu file
    benign-race:SPACE:A:B         (two writes of the same value; a warning)
                                  (SPACE: shared, global or local)
    barrier-divergence:L          one report at CUDA line L
    deadlock:L[,L...]             one deadlock report; L = every line at
                                  which threads wait for ever
    sync-misuse:L                 one report at CUDA line L
    uninitialized-read:L          one report at CUDA line L
    proxy-fence:L                 one report at the async-proxy access
                                  (a bulk copy or a wgmma.mma_async reading
                                  a descriptor operand) at CUDA line L
    fault:L                       the engine's fault at CUDA line L (it
                                  stops the run, with or without --check)
    heap-leak                     one device-heap block never freed
    warning:KIND:...              the same, with warning severity

Commands:

    check_cases.py list                      case names
    check_cases.py validate                  the manifest is well formed,
                                             and every line it names holds
                                             a PTX instruction of the right
                                             kind and state space (.loc)
    check_cases.py sites PTX [KERNEL]        each memory and
                                             synchronization instruction of
                                             the PTX with its CUDA line
    check_cases.py smoke --bcusim PATH [NAME...]
                                             runs the cases with plain
                                             `bcusim run` (no --check): the
                                             engine must run every kernel,
                                             and report the deadlocks
    check_cases.py check --bcusim PATH [NAME...]
                                             runs the cases with their
                                             --check list and --report, and
                                             compares the findings with the
                                             expected ones

`check` reads the --report JSON as {"findings": [{"kind", "severity",
"space", "sites": [{"cuda_line", "cuda_inlined_line"}, ...]}, ...]} (the names of
check::Finding / check::Site). A finding matches an item when kind,
severity and (for races) space agree and its sites' CUDA lines are the
item's lines (for the kinds at one line but deadlocks: its first site's, the
others being its notes' instructions); while reports carry no sites, it
matches by kind and severity and says so. The exit status must be 1 when an error is expected, else 0.

A CUDA line is the line of the case's .cu file that an instruction's `.loc`
names, following `inlined_at` out of headers (cuda::memcpy_async,
cooperative groups, ...) to the call in the .cu file.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.dirname(HERE)
MANIFEST = os.path.join(HERE, "cases.txt")
TIMEOUT_S = 120

RACE_KINDS = ("data-race", "intra-warp-race", "benign-race")
LINE_KINDS = ("barrier-divergence", "deadlock", "sync-misuse",
              "uninitialized-read", "fault", "proxy-fence")
# Kinds without a line: one report each.
PLAIN_KINDS = ("heap-leak",)
SPACES = ("shared", "global", "local")
CHECK_OF = {"data-race": "race", "intra-warp-race": "race",
            "benign-race": "race",
            "barrier-divergence": "sync", "deadlock": "sync",
            "sync-misuse": "sync", "uninitialized-read": "init",
            "proxy-fence": "race",
            "fault": None, "heap-leak": None}  # None: under any check


class Item:
    """One expected finding."""

    def __init__(self, text):
        self.text = text
        self.warning = False
        self.space = None
        self.lines = []
        parts = text.split(":")
        if parts and parts[0] == "warning":
            self.warning = True
            parts = parts[1:]
        if not parts:
            raise ValueError(f"empty finding '{text}'")
        self.kind = parts[0]
        if self.kind in RACE_KINDS:
            if len(parts) != 4 or parts[1] not in SPACES:
                raise ValueError(f"'{text}': expected {self.kind}:SPACE:A:B "
                                 f"with SPACE one of {', '.join(SPACES)}")
            self.space = parts[1]
            self.lines = [_line(text, parts[2]), _line(text, parts[3])]
        elif self.kind in LINE_KINDS:
            if len(parts) != 2:
                raise ValueError(f"'{text}': expected {self.kind}:LINE")
            lines = parts[1].split(",")
            if len(lines) > 1 and self.kind != "deadlock":
                raise ValueError(f"'{text}': only a deadlock names several "
                                 "lines")
            self.lines = [_line(text, x) for x in lines]
        elif self.kind in PLAIN_KINDS:
            if len(parts) != 1:
                raise ValueError(f"'{text}': {self.kind} names no line")
        else:
            raise ValueError(f"'{text}': unknown kind '{self.kind}'")


def _line(text, s):
    if not s.isdigit() or int(s) == 0:
        raise ValueError(f"'{text}': '{s}' is not a line number")
    return int(s)


class Case:
    def __init__(self, line_no, fields):
        self.line_no = line_no
        self.name, self.ptx, args, expected = fields
        self.args = shlex.split(args)
        self.clean = expected.split() == ["clean"]
        self.items = [] if self.clean else [Item(x)
                                            for x in expected.split()]
        if not expected.split():
            raise ValueError("no expected findings (write `clean`)")
        if "clean" in expected.split() and not self.clean:
            raise ValueError("`clean` cannot be combined with findings")
        self.checks = None
        for i, a in enumerate(self.args):
            if a == "--check" and i + 1 < len(self.args):
                self.checks = self.args[i + 1]
        if self.checks is None:
            raise ValueError("the run arguments need --check LIST")
        wanted = set(self.checks.split(","))
        if wanted == {"all"}:
            wanted = {"race", "sync", "init"}
        if not wanted <= {"race", "sync", "init"}:
            raise ValueError(f"bad --check list '{self.checks}'")
        for it in self.items:
            if CHECK_OF[it.kind] and CHECK_OF[it.kind] not in wanted:
                raise ValueError(f"'{it.text}' needs --check "
                                 f"{CHECK_OF[it.kind]} (or all)")

    def plain_args(self):
        """The run arguments without --check LIST."""
        out, skip = [], False
        for a in self.args:
            if skip:
                skip = False
                continue
            if a == "--check":
                skip = True
                continue
            out.append(a)
        return out

    def kernel(self):
        for i, a in enumerate(self.args):
            if a in ("-k", "--kernel") and i + 1 < len(self.args):
                return self.args[i + 1]
        return None


def parse_manifest(path=MANIFEST):
    cases = {}
    with open(path, encoding="utf-8") as f:
        for line_no, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split("|")]
            if len(fields) != 4:
                raise SystemExit(f"{path}:{line_no}: expected 4 '|'-separated "
                                 f"fields, got {len(fields)}")
            try:
                case = Case(line_no, fields)
            except ValueError as e:
                raise SystemExit(f"{path}:{line_no}: {e}")
            if case.name in cases:
                raise SystemExit(f"{path}:{line_no}: duplicate case "
                                 f"'{case.name}'")
            cases[case.name] = case
    return cases


# --- PTX: instructions and their CUDA lines ---------------------------------

LOC_RE = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)"
                    r"(?:\s*,\s*function_name\s+\S+\s*,\s*inlined_at\s+"
                    r"(\d+)\s+(\d+)\s+(\d+))?")
FILE_RE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"')
ENTRY_RE = re.compile(r"^\s*\.(?:visible\s+)?\.entry\s+(\w+)")
# A device function (not inlined): its instructions count for every kernel.
FUNC_RE = re.compile(r"^\s*\.(?:visible\s+|weak\s+)?\.func\s")


class Site:
    def __init__(self, ptx_line, text, opcode, cu_line, chain):
        self.ptx_line = ptx_line
        self.text = text
        self.opcode = opcode
        self.cu_line = cu_line  # None: not in the .cu file
        self.chain = chain

    def kinds(self):
        """('mem', spaces) / ('sync', ...) classification."""
        op = self.opcode
        parts = op.split(".")
        if op.startswith("cp.async.bulk"):
            if any(p in ("commit_group", "wait_group") for p in parts):
                return {"sync"}
            k = {"mem", "shared", "global", "write:shared"}
            if any(p.startswith("mbarrier") for p in parts):
                k.add("sync")  # it completes an mbarrier transaction
            return k
        if op.startswith("cp.async"):
            if any(p in ("commit_group", "wait_group", "wait_all", "mbarrier")
                   for p in parts):
                return {"sync"}
            return {"mem", "shared", "global", "write:shared"}
        if parts[0] == "wgmma":
            # mma_async reads its descriptor operands in shared memory
            # through the async proxy; fence, commit and wait are sync.
            return {"mem", "shared"} if "mma_async" in parts else {"sync"}
        if parts[0] in ("mbarrier", "bar", "barrier", "elect", "griddepcontrol",
                        "membar", "fence", "shfl", "vote", "match", "redux"):
            return {"sync"}
        if parts[0] in ("ld", "st", "atom", "red", "ldu"):
            if "param" in parts or "const" in parts:
                return set()
            spaces = {p.split("::")[0] for p in parts} & set(SPACES)
            if not spaces:  # generic address
                spaces = set(SPACES)
            k = {"mem"} | spaces
            if parts[0] in ("ld", "ldu"):
                k.add("load")
            else:
                k |= {"write:" + x for x in spaces}
            return k
        return set()


def ptx_sites(ptx_path, kernel=None):
    """Every instruction of `kernel` (or of all entries) with its CUDA line
    in the .cu file of the PTX (file 1 named like the PTX)."""
    files = {}
    inl = {}  # (f, l, c) -> (f, l, c) of its inlined_at
    cur = None  # current .loc
    entry = None
    sites = []
    cu_name = os.path.basename(ptx_path)[:-4] + ".cu"
    with open(ptx_path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for ln in lines:
        m = FILE_RE.match(ln)
        if m:
            files[int(m.group(1))] = m.group(2)
    cu_files = {k for k, v in files.items() if os.path.basename(v) == cu_name}
    for no, ln in enumerate(lines, 1):
        m = ENTRY_RE.match(ln)
        if m:
            entry = m.group(1)
            cur = None
            continue
        if FUNC_RE.match(ln):
            entry = None
            cur = None
            continue
        m = LOC_RE.match(ln)
        if m:
            pos = tuple(int(x) for x in m.group(1, 2, 3))
            if m.group(4):
                inl[pos] = tuple(int(x) for x in m.group(4, 5, 6))
            else:
                inl.pop(pos, None)
            cur = pos
            continue
        if (kernel and entry is not None and entry != kernel) or \
                cur is None:
            continue
        # One line may hold several statements ({ .reg ...; op ...; }).
        for stmt in ln.split("//")[0].replace("{", ";").replace("}", ";") \
                .split(";"):
            s = stmt.strip()
            if not s or s.startswith((".", "$", ")", "(")) or \
                    s.endswith(":"):
                continue
            if s.startswith("@"):
                s = s.split(None, 1)[1] if len(s.split(None, 1)) > 1 else ""
            opcode = s.split(None, 1)[0] if s else ""
            if not opcode or not re.match(r"^[a-z]", opcode):
                continue
            chain, pos, seen = [cur], cur, {cur}
            while pos in inl and inl[pos] not in seen:
                pos = inl[pos]
                seen.add(pos)
                chain.append(pos)
            cu_line = None
            for p in chain:  # innermost position in the .cu file
                if p[0] in cu_files:
                    cu_line = p[1]
                    break
            sites.append(Site(no, s, opcode, cu_line, chain))
    return sites, files


def cmd_sites(args):
    sites, files = ptx_sites(args.ptx, args.kernel)
    for st in sites:
        k = st.kinds()
        if not k:
            continue
        where = f"line {st.cu_line}" if st.cu_line else "-"
        print(f"{args.ptx}:{st.ptx_line}: {where:>9}  {st.text}")
    return 0


def cmd_validate(args):
    cases = parse_manifest(args.manifest)
    bad = 0
    for c in cases.values():
        ptx = os.path.join(KERNELS, c.ptx)
        cu = ptx[:-4] + ".cu"
        for p in (ptx, cu):
            if not os.path.exists(p):
                print(f"{c.name}: missing {os.path.relpath(p, KERNELS)}")
                bad += 1
        if bad:
            continue
        sites, _ = ptx_sites(ptx, c.kernel())
        if not sites:
            print(f"{c.name}: no instructions of kernel '{c.kernel()}' "
                  f"in {c.ptx}")
            bad += 1
            continue
        by_line = {}
        with open(ptx, encoding="utf-8") as f:
            cu_lines = {int(m.group(1)) for m in re.finditer(
                r"^\s*\.loc\s+\d+\s+(\d+)", f.read(), re.M)}
        for st in sites:
            if st.cu_line:
                by_line.setdefault(st.cu_line, set()).update(st.kinds())
        def report(it, what):
            nonlocal bad
            print(f"{args.manifest}:{c.line_no}: {c.name}: '{it.text}': "
                  f"{what} in the PTX of the kernel "
                  f"({os.path.basename(cu)})")
            bad += 1

        for it in c.items:
            for ln in it.lines:
                k = by_line.get(ln, set())
                if it.kind in RACE_KINDS:
                    ok = "mem" in k and it.space in k
                    want = f"{it.space} memory access"
                elif it.kind == "uninitialized-read":
                    ok = "load" in k and ("shared" in k or "local" in k)
                    want = "shared or local load"
                elif it.kind == "deadlock":
                    ok = "sync" in k or "load" in k
                    want = "synchronization instruction (or spin load)"
                elif it.kind == "proxy-fence":
                    ok = "mem" in k and "shared" in k
                    want = "async-proxy read of shared memory (a bulk " \
                        "copy or wgmma)"
                elif it.kind == "fault":
                    # A faulting access, or a call (free) the sites do not
                    # list: the line must hold some instruction.
                    ok = ln in cu_lines
                    want = "instruction"
                else:
                    ok = "sync" in k
                    want = "synchronization instruction"
                if not ok:
                    report(it, f"line {ln} has no {want}")
            if it.kind in RACE_KINDS and not any(
                    "write:" + it.space in by_line.get(ln, set())
                    for ln in it.lines):
                report(it, f"neither line writes {it.space} memory")
    print(f"{len(cases)} cases, {bad} problem{'s' if bad != 1 else ''}")
    return 1 if bad else 0


# --- smoke: plain runs under today's engine ---------------------------------

DEADLOCK_WORDS = ("deadlock", "did not finish", "time limit")


def smoke_one(bcusim, c):
    """(ok, message) for one case run without --check."""
    cmd = [bcusim, "run", c.ptx] + c.plain_args()
    try:
        p = subprocess.run(cmd, cwd=KERNELS, capture_output=True, text=True,
                           timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return False, f"no result within {TIMEOUT_S} s"
    err = p.stderr.lower()
    kinds = {it.kind for it in c.items}
    errors = {it.kind for it in c.items if not it.warning}
    if p.returncode < 0:
        return False, f"killed by signal {-p.returncode}"
    if "deadlock" in kinds:
        if p.returncode == 0:
            return False, "ran to completion, expected a deadlock"
        if not any(w in err for w in DEADLOCK_WORDS):
            return False, "failed without a deadlock or limit report:\n" + \
                p.stderr
        return True, "deadlock reported"
    if p.returncode == 0:
        return True, "ran"
    # A fault stops the run whatever the checks.
    if "fault" in errors and p.returncode == 1 and "error:" in err:
        return True, "stopped by the expected fault"
    # Misuse the engine already diagnoses (it stops the launch) is accepted
    # for cases that expect a synchronization finding.
    if kinds & {"sync-misuse", "barrier-divergence"} and p.returncode == 1 \
            and "error:" in err:
        first = p.stderr.strip().split("\n")[0]
        sev = "" if errors & {"sync-misuse", "barrier-divergence"} else \
            " (a warning-level finding stopped the run)"
        return True, f"stopped by the engine's diagnostic{sev}: {first}"
    return False, f"exit status {p.returncode}:\n{p.stderr}"


def cmd_smoke(args):
    cases = parse_manifest(args.manifest)
    names = args.names or list(cases)
    failed = 0
    for n in names:
        if n not in cases:
            print(f"unknown case '{n}'")
            failed += 1
            continue
        ok, msg = smoke_one(os.path.abspath(args.bcusim), cases[n])
        print(f"{'ok  ' if ok else 'FAIL'} {n}: {msg}")
        failed += not ok
    print(f"{len(names) - failed} of {len(names)} cases ok")
    return 1 if failed else 0


# --- check: findings against the expected ones ------------------------------


def site_line(x):
    """The CUDA line of a site in the kernel's .cu file: the inlined line
    when the inlined code is in the same file (a device function of the
    case), else the call in the kernel (headers: cooperative groups, ...)."""
    inl = x.get("cuda_inlined_line")
    if inl and os.path.basename(str(x.get("cuda_inlined_file", ""))) == \
            os.path.basename(str(x.get("cuda_file", ""))):
        return int(inl)
    return int(x["cuda_line"])


def finding_key(f):
    """(kind, warning, space, lines or None) of one JSON finding."""
    sites = f.get("sites")
    lines = None
    if isinstance(sites, list) and sites and all(
            isinstance(x, dict) and x.get("cuda_line") for x in sites):
        lines = tuple(sorted({site_line(x) for x in sites}))
        # A finding at one line: its first site (the others are its notes'
        # instructions, e.g. the calls a divergent barrier is reached from).
        if f.get("kind") in LINE_KINDS and f.get("kind") != "deadlock":
            lines = (site_line(sites[0]),)
    return (f.get("kind"), f.get("severity") == "warning", f.get("space"),
            lines)


def item_matches(it, key):
    kind, warning, space, lines = key
    if kind != it.kind or warning != it.warning:
        return False
    if it.space and space and space != it.space:
        return False
    return lines is None or lines == tuple(sorted(set(it.lines)))


def check_one(bcusim, c, tmpdir):
    import json
    report = os.path.join(tmpdir, c.name + ".json")
    cmd = [bcusim, "run", c.ptx] + c.args + ["--report", report]
    try:
        p = subprocess.run(cmd, cwd=KERNELS, capture_output=True, text=True,
                           timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return False, f"no result within {TIMEOUT_S} s", False
    if p.returncode < 0:
        return False, f"killed by signal {-p.returncode}", False
    want_rc = 1 if any(not it.warning for it in c.items) else 0
    problems = []
    if p.returncode != want_rc:
        problems.append(f"exit status {p.returncode}, expected {want_rc}")
    try:
        with open(report, encoding="utf-8") as f:
            found = [finding_key(x) for x in json.load(f).get("findings", [])]
    except (OSError, ValueError) as e:
        return False, f"no --report JSON ({e})\n{p.stderr}", False
    no_lines = any(k[3] is None for k in found)
    left = list(found)
    for it in c.items:
        for k in left:
            if item_matches(it, k):
                left.remove(k)
                break
        else:
            problems.append(f"missing: {it.text}")
    for k in left:
        lines = ":".join(str(x) for x in k[3]) if k[3] else "?"
        problems.append(f"unexpected: {'warning:' if k[1] else ''}{k[0]}"
                        f"{':' + k[2] if k[2] else ''}:{lines}")
    if problems:
        return False, "; ".join(problems) + "\n" + p.stderr, no_lines
    return True, "as expected", no_lines


def cmd_check(args):
    import tempfile
    cases = parse_manifest(args.manifest)
    names = args.names or list(cases)
    failed = 0
    no_lines = False
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            if n not in cases:
                print(f"unknown case '{n}'")
                failed += 1
                continue
            ok, msg, nl = check_one(os.path.abspath(args.bcusim), cases[n],
                                    tmp)
            no_lines |= nl
            print(f"{'ok  ' if ok else 'FAIL'} {n}: {msg}")
            failed += not ok
    if no_lines:
        print("note: some findings carry no sites with CUDA lines: they were "
              "matched by kind and severity only")
    print(f"{len(names) - failed} of {len(names)} cases as expected")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--manifest", default=MANIFEST,
                    help="the case list (default: cases.txt beside this)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list")
    sub.add_parser("validate")
    s = sub.add_parser("sites")
    s.add_argument("ptx")
    s.add_argument("kernel", nargs="?")
    for cmd in ("smoke", "check"):
        s = sub.add_parser(cmd)
        s.add_argument("--bcusim", required=True)
        s.add_argument("names", nargs="*")
    args = ap.parse_args()
    if args.cmd == "list":
        for n in parse_manifest(args.manifest):
            print(n)
        return 0
    return {"validate": cmd_validate, "sites": cmd_sites,
            "smoke": cmd_smoke, "check": cmd_check}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
