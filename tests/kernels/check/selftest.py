#!/usr/bin/env python3
"""Self-test of check_cases.py: its manifest checks, `smoke` and `check`
must pass right answers and fail wrong ones. A fake bcusim (this file, run
with --fake MODE) answers from the manifest's own expectations, then spoils
them as MODE says."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_cases as cc  # noqa: E402


def fake(mode, argv):
    """Behave like `bcusim run PTX ARGS` for a case of the manifest."""
    kernel = argv[argv.index("-k") + 1]
    case = next(c for c in cc.parse_manifest().values()
                if c.kernel() == kernel)
    deadlock = any(it.kind == "deadlock" for it in case.items)
    if "--check" not in argv:  # smoke
        if mode == "crash":
            os.abort()
        if deadlock and mode != "deadlock-runs":
            sys.stderr.write("k.ptx:1:1: error: deadlock in kernel 'k'\n")
            return 1
        if mode == "fails":
            sys.stderr.write("k.ptx:1:1: error: out-of-bounds store\n")
            return 1
        return 0
    findings = []
    for it in case.items:
        f = {"kind": it.kind,
             "severity": "warning" if it.warning else "error"}
        if it.space:
            f["space"] = it.space
        if mode != "no-sites":
            f["sites"] = [{"cuda_line": n} for n in it.lines]
        findings.append(f)
    if mode == "missing" and findings:
        findings.pop()
    if mode == "extra":
        findings.append({"kind": "data-race", "severity": "error",
                         "space": "shared", "sites": [{"cuda_line": 1},
                                                      {"cuda_line": 2}]})
    if mode == "wrong-line" and findings and "sites" in findings[0]:
        findings[0]["sites"][0]["cuda_line"] += 1
    if mode == "severity" and findings:
        findings[0]["severity"] = "note"
    report = argv[argv.index("--report") + 1]
    with open(report, "w", encoding="utf-8") as f:
        json.dump({"findings": findings}, f)
    rc = 1 if any(x["severity"] == "error" for x in findings) else 0
    if mode == "wrong-rc":
        rc = 1 - rc
    return rc


def run(fake_bcusim, cmd, names):
    return subprocess.run(
        [sys.executable, os.path.join(HERE, "check_cases.py"), cmd,
         "--bcusim", fake_bcusim] + names,
        capture_output=True, text=True).returncode


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--fake":
        # argv: --fake MODE run PTX ARGS...
        return fake(sys.argv[2], sys.argv[4:])
    failures = 0
    names = ["shared_raw_buggy", "shared_raw_fixed", "warp_scan_buggy",
             "named_deadlock_buggy", "mbar_init_warp_buggy",
             "grid_sync_partial_buggy", "flag_plain_buggy"]
    with tempfile.TemporaryDirectory() as tmp:
        def script(mode):
            path = os.path.join(tmp, f"bcusim-{mode}")
            with open(path, "w", encoding="utf-8") as f:
                f.write(f"#!/bin/sh\nexec {sys.executable} "
                        f"{os.path.abspath(__file__)} --fake {mode} \"$@\"\n")
            os.chmod(path, 0o755)
            return path

        expect = [  # (command, mode, cases, should pass)
            ("check", "right", names, True),
            ("check", "no-sites", names, True),
            ("check", "missing", ["shared_raw_buggy"], False),
            ("check", "extra", ["shared_raw_fixed"], False),
            ("check", "wrong-line", ["warp_scan_buggy"], False),
            ("check", "severity", ["mbar_init_warp_buggy"], False),
            ("check", "wrong-rc", ["shared_raw_fixed"], False),
            ("smoke", "right", names, True),
            ("smoke", "crash", ["shared_raw_fixed"], False),
            ("smoke", "fails", ["shared_raw_buggy"], False),
            ("smoke", "deadlock-runs", ["named_deadlock_buggy"], False),
        ]
        for cmd, mode, cases, good in expect:
            rc = run(script(mode), cmd, cases)
            if (rc == 0) != good:
                print(f"FAIL: {cmd} with a fake bcusim ({mode}) "
                      f"{'failed' if good else 'passed'}")
                failures += 1

        # validate: the real manifest passes, a wrong line fails.
        ok = subprocess.run([sys.executable,
                             os.path.join(HERE, "check_cases.py"),
                             "validate"], capture_output=True)
        if ok.returncode != 0:
            print("FAIL: validate rejects cases.txt")
            failures += 1
        bad = os.path.join(tmp, "bad.txt")
        with open(bad, "w", encoding="utf-8") as f:
            f.write("x | check/shared_raw.ptx | -k shared_raw_buggy -g 1 "
                    "-b 128 --check race | data-race:shared:13:3\n")
        r = subprocess.run([sys.executable,
                            os.path.join(HERE, "check_cases.py"),
                            "--manifest", bad, "validate"],
                           capture_output=True)
        if r.returncode == 0:
            print("FAIL: validate accepts a line without an access")
            failures += 1
        with open(bad, "w", encoding="utf-8") as f:
            f.write("x | check/shared_raw.ptx | -k shared_raw_buggy -g 1 "
                    "-b 128 --check race | data-race:shared:14:14\n")
        r = subprocess.run([sys.executable,
                            os.path.join(HERE, "check_cases.py"),
                            "--manifest", bad, "validate"],
                           capture_output=True)
        if r.returncode == 0:
            print("FAIL: validate accepts a race between two loads")
            failures += 1
        for text in ("data-race:shared:13", "race:shared:1:2",
                     "data-race:heap:13:14", "deadlock:x",
                     "sync-misuse:1,2", "clean data-race:shared:13:14"):
            with open(bad, "w", encoding="utf-8") as f:
                f.write(f"x | check/shared_raw.ptx | -k shared_raw_buggy "
                        f"--check all | {text}\n")
            r = subprocess.run([sys.executable,
                                os.path.join(HERE, "check_cases.py"),
                                "--manifest", bad, "list"],
                               capture_output=True)
            if r.returncode == 0:
                print(f"FAIL: the manifest parser accepts '{text}'")
                failures += 1
        with open(bad, "w", encoding="utf-8") as f:
            f.write("x | check/shared_raw.ptx | -k shared_raw_buggy "
                    "--check sync | data-race:shared:13:14\n")
        r = subprocess.run([sys.executable,
                            os.path.join(HERE, "check_cases.py"),
                            "--manifest", bad, "list"], capture_output=True)
        if r.returncode == 0:
            print("FAIL: a race expected under --check sync is accepted")
            failures += 1
    print("selftest:", "ok" if not failures else f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
