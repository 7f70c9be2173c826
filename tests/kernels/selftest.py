#!/usr/bin/env python3
"""Self-test of run_case.py: runs it against fake `bcusim` scripts that
print right, wrong, differently spelled and refused results, and checks
that each case passes or fails as it must.

Usage: selftest.py --ref-dir DIR   (the folder of the built kref_* programs)
"""
import argparse
import os
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

MANIFEST = """\
# cases for the self-test only
u64 | misc/params.ptx | -g 1 -b 1 -a u64[1] --dump 0 | kref_selftest_u64
grid | grid/grid2d.ptx | -g 5 -b 7 -a s32[33] -a s32[6] -a s32:33 -a s32:1 --dump 0 --dump 1 | kref_grid grid2d 5 1 7 1 33 1
f32 | float/cvt_ops.ptx | -g 1 -b 1 -a f32[2] --dump 0 | kref_selftest_f32
diag | barrier/diag_deadlock_skip.ptx | -g 1 -b 128 -a s32[128] | - | expect-fail=deadlock
"""


def fake(folder, name, body):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def run(bcusim, ref_dir, manifest, case):
    p = subprocess.run([sys.executable, os.path.join(HERE, "run_case.py"),
                        "--bcusim", bcusim, "--ref-dir", ref_dir,
                        "--manifest", manifest, case],
                       capture_output=True, text=True)
    return p.returncode == 0, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref-dir", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        manifest = os.path.join(tmp, "cases.txt")
        with open(manifest, "w") as f:
            f.write(MANIFEST)
        # A reference folder: the real kref_grid plus a fixed f32 reference.
        refs = os.path.join(tmp, "refs")
        os.mkdir(refs)
        os.symlink(os.path.join(os.path.abspath(a.ref_dir), "kref_grid"),
                   os.path.join(refs, "kref_grid"))
        fake(refs, "kref_selftest_f32", "printf '26457511936\\n0.1\\n'\n")
        fake(refs, "kref_selftest_u64", "echo 18446744073709551615\n")
        grid = subprocess.run([os.path.join(refs, "kref_grid"), "grid2d", "5",
                               "1", "7", "1", "33", "1"],
                              capture_output=True, text=True).stdout
        wrong = grid.replace("\n4001\n", "\n4002\n", 1)
        assert wrong != grid
        expectations = [
            ("grid", fake(tmp, "right", f"cat <<'X'\n{grid}X\n"), True),
            ("grid", fake(tmp, "wrong", f"cat <<'X'\n{wrong}X\n"), False),
            ("grid", fake(tmp, "short", "echo 0\n"), False),
            ("grid", fake(tmp, "extra", f"cat <<'X'\n{grid}X\necho 1\n"),
             False),
            ("grid", fake(tmp, "crash", f"cat <<'X'\n{grid}X\nexit 1\n"),
             False),
            ("f32", fake(tmp, "f32_padded", "printf '26457512000\\n1e-1\\n'\n"),
             True),
            ("f32", fake(tmp, "f32_double", "printf '26457511936\\n0.10000000149011612\\n'\n"),
             False),
            ("f32", fake(tmp, "f32_wrong", "printf '26457513000\\n0.1\\n'\n"),
             False),
            ("u64", fake(tmp, "u64_right", "echo 18446744073709551615\n"),
             True),
            ("u64", fake(tmp, "u64_off_by_one", "echo 18446744073709551614\n"),
             False),
            ("diag", fake(tmp, "diag_ok",
                          "echo 'x.ptx:1:1: error: deadlock: warps 0-2 wait' >&2\n"
                          "exit 1\n"), True),
            ("diag", fake(tmp, "diag_exit0", "exit 0\n"), False),
            ("diag", fake(tmp, "diag_name_only",
                          "echo 'diag_deadlock_skip.ptx:1:1: error: bad' >&2\n"
                          "exit 1\n"), False),
            ("diag", fake(tmp, "diag_unsupported",
                          "echo 'error: unsupported: deadlock check' >&2\n"
                          "exit 1\n"), False),
        ]
        failures = 0
        for case, bcusim, must_pass in expectations:
            passed, out = run(bcusim, refs, manifest, case)
            verdict = "ok" if passed == must_pass else "WRONG"
            if passed != must_pass:
                failures += 1
            print(f"{verdict}: {os.path.basename(bcusim)} on {case}: "
                  f"{'passed' if passed else 'failed'}"
                  f" (must {'pass' if must_pass else 'fail'})")
            if passed != must_pass:
                print(out)
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
