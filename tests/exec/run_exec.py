#!/usr/bin/env python3
"""Builds one CUDA host program of tests/exec with nvcc (-cudart shared) and
runs it under `bcusim exec`; the program checks itself and prints PASS.
Exit 77 (skipped) when nvcc or the libcudart.so.13 stand-in is missing.

  run_exec.py --bcusim B --nvcc NVCC --out DIR PROGRAM.cu [--expect-stderr S]...
  run_exec.py ... --mode static|no-ptx PROGRAM.cu   (the errors bcusim gives)
  --arg A (the program's arguments), --expect-exit N (its exit status, 0 by
  default), --expect-no-stderr S (text that must not be reported),
  --native-stdout TARBALL --native-name N (the program's stdout must be the
  one recorded on a GPU, member N.out of TARBALL; tests/hardware/exec),
  --expect-stdout-file F (the program's whole stdout must equal F, e.g. what
  the program printed on a GPU; skipped, with a note, while F does not exist),
  --env NAME=VALUE (set for the program; CUDA_MODULE_LOADING is otherwise
  unset, CUDA's default, whatever the caller's environment says)
"""
import argparse, os, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("--bcusim", required=True)
ap.add_argument("--nvcc", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--mode", default="run", choices=["run", "static", "no-ptx"])
ap.add_argument("--expect-stderr", action="append", default=[])
ap.add_argument("--option", action="append", default=[],
                help="a run option for bcusim exec (before the program)")
ap.add_argument("--extra-source", action="append", default=[],
                help="another translation unit of the program")
ap.add_argument("--nvcc-flag", action="append", default=[])
ap.add_argument("--expect-no-stderr", action="append", default=[])
ap.add_argument("--expect-stderr-once", action="append", default=[],
                help="a text stderr holds exactly once")
ap.add_argument("--expect-report-item", action="append", default=[],
                nargs=3, metavar=("FILE", "KEY", "ITEM"),
                help="the --report JSON FILE's list KEY holds ITEM")
ap.add_argument("--expect-exit", type=int, default=0)
ap.add_argument("--env", action="append", default=[],
                help="NAME=VALUE in the program's environment")
ap.add_argument("--arg", action="append", default=[],
                help="an argument for the program (default: --program-arg)")
ap.add_argument("--expect-report", help="a --report JSON file to check: "
                "it counts the launches and lists the findings")
ap.add_argument("--expect-sarif", help="a --sarif file to check for what "
                "SARIF 2.1.0 requires of a log with results")
ap.add_argument("--native-stdout", help="a tar.gz of recorded native runs")
ap.add_argument("--native-name", help="the member (without .out) to compare")
ap.add_argument("--expect-stdout-file", help="a file the program's stdout "
                "must equal byte for byte (not compared while it is absent)")
ap.add_argument("source")
a = ap.parse_args()

if not os.path.exists(a.nvcc):
    print(f"skipped: {a.nvcc} is not present (the program's PTX is still "
          "tested through the runtime's C++ API in tests/unit/runtime)")
    sys.exit(77)
lib = os.path.join(os.path.dirname(os.path.abspath(a.bcusim)), "lib",
                   "libcudart.so.13")
if not os.path.exists(lib):
    print("skipped: libcudart.so.13 stand-in not built (no CUDA headers)")
    sys.exit(77)

os.makedirs(a.out, exist_ok=True)
name = os.path.splitext(os.path.basename(a.source))[0]
# Tests that share a source with other run options get their own build.
# (named by their options and arguments: ctest runs them in parallel).
import hashlib
key = (a.option, a.arg) + ((a.env,) if a.env else ())
variant = hashlib.sha1(repr(key).encode()).hexdigest()[:8]
exe = os.path.join(a.out, f"{name}.{a.mode}" +
                   (f".{variant}" if a.option or a.arg or a.env else "")
                   + "".join(f.replace("=", "").replace("/", "_")
                             for f in a.nvcc_flag))
flags = {"run": ["-cudart", "shared", "-arch=sm_90"],
         "static": ["-arch=sm_90"],
         "no-ptx": ["-cudart", "shared",
                    "-gencode", "arch=compute_90,code=sm_90"]}[a.mode]
# A program that names its own target (-arch=sm_90a, or -gencode=... for
# the compute_90a PTX that wgmma needs) gets it instead.
if any(f.startswith(("-arch", "-gencode")) for f in a.nvcc_flag):
    flags = [f for f in flags if not f.startswith("-arch")]
# Likewise its own CUDA runtime linkage (-cudart=none: a driver API program).
if any(f.startswith("-cudart") for f in a.nvcc_flag):
    flags = [f for f in flags if f not in ("-cudart", "shared")]
inputs = [a.source, *a.extra_source,
          os.path.join(os.path.dirname(a.source), "common.h")]
if (not os.path.exists(exe) or
        any(os.path.getmtime(exe) < os.path.getmtime(f) for f in inputs)):
    cmd = [a.nvcc, *flags, *a.nvcc_flag, "-I",
           os.path.dirname(os.path.abspath(a.source)), "-o", exe, a.source,
           *a.extra_source]
    # Under the sanitizers the test preloads ASan's runtime for the program
    # (tests/exec/CMakeLists.txt); nvcc itself must not get it.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode:
        print(" ".join(cmd))
        print(r.stdout, r.stderr)
        sys.exit(1)

for stale in [a.expect_report] + [i[0] for i in a.expect_report_item]:
    if stale and os.path.exists(stale):
        os.remove(stale)
run_env = {k: v for k, v in os.environ.items() if k != "CUDA_MODULE_LOADING"}
for kv in a.env:
    k, sep, v = kv.partition("=")
    if not sep:
        sys.exit(f"--env {kv}: not NAME=VALUE")
    run_env[k] = v
r = subprocess.run([a.bcusim, "exec", *a.option, exe,
                    *(a.arg or ["--program-arg"])],
                   capture_output=True, text=True, timeout=600, env=run_env)
print(r.stdout)
print(r.stderr, file=sys.stderr)
ok = True
if a.mode == "run":
    ok = r.returncode == a.expect_exit and f"{name}: PASS" in r.stdout
    if r.returncode != a.expect_exit:
        print(f"exit status {r.returncode}, expected {a.expect_exit}")
    ok = ok and "bcusim: " in r.stderr and "launch" in r.stderr  # summary
elif a.mode == "static":
    ok = r.returncode == 127 and "nvcc -cudart shared" in r.stderr
else:
    ok = "arch=compute_90,code=compute_90" in r.stderr
if a.expect_report:
    import json
    try:
        with open(a.expect_report) as f:
            rep = json.load(f)
        if rep["launches"] < 1 or not rep["findings"] or rep["errors"] < 1:
            print(f"report {a.expect_report}: {rep}")
            ok = False
    except (OSError, ValueError, KeyError) as e:
        print(f"report {a.expect_report}: {e}")
        ok = False


def sarif_problems(log):
    """What a SARIF 2.1.0 log with results lacks (sections 3.13 sarifLog,
    3.14 run, 3.18-3.19 tool and toolComponent, 3.27 result, 3.11 message,
    3.28-3.30 location, physicalLocation and region, 3.4 artifactLocation)."""
    p = []
    if log.get("version") != "2.1.0":
        p.append("version is not 2.1.0")
    if "sarif" not in str(log.get("$schema", "")):
        p.append("$schema does not name the SARIF schema")
    runs = log.get("runs")
    if not isinstance(runs, list) or not runs:
        return p + ["runs is not a non-empty array"]
    for run in runs:
        driver = run.get("tool", {}).get("driver", {})
        if not isinstance(driver.get("name"), str) or not driver["name"]:
            p.append("tool.driver.name missing")
        rules = driver.get("rules", [])
        ids = [x.get("id") for x in rules]
        if len(set(ids)) != len(ids) or not all(isinstance(i, str) for i in ids):
            p.append("rule ids are not unique strings")
        results = run.get("results")
        if not isinstance(results, list) or not results:
            p.append("results is not a non-empty array")
            continue
        for res in results:
            if not isinstance(res.get("message", {}).get("text"), str):
                p.append("result without message.text")
            if res.get("level") not in ("none", "note", "warning", "error"):
                p.append(f"bad level {res.get('level')}")
            if "ruleIndex" in res and (
                    not 0 <= res["ruleIndex"] < len(rules) or
                    rules[res["ruleIndex"]].get("id") != res.get("ruleId")):
                p.append("ruleIndex does not name the result's ruleId")
            for loc in res.get("locations", []) + res.get(
                    "relatedLocations", []):
                phys = loc.get("physicalLocation", {})
                uri = phys.get("artifactLocation", {}).get("uri")
                region = phys.get("region", {})
                if not isinstance(uri, str) or not uri:
                    p.append("location without artifactLocation.uri")
                if not (isinstance(region.get("startLine"), int) and
                        region["startLine"] >= 1 and
                        region.get("startColumn", 1) >= 1):
                    p.append("region lines and columns start at 1")
            if not res.get("locations"):
                p.append("result without a location")
    return p


if a.expect_sarif:
    import json
    try:
        with open(a.expect_sarif) as f:
            problems = sarif_problems(json.load(f))
    except (OSError, ValueError, AttributeError) as e:
        problems = [str(e)]
    for s in problems:
        print(f"SARIF {a.expect_sarif}: {s}")
        ok = False
def stdout_differences(want, got, context=3, limit=5):
    """The first `limit` differing lines of two outputs, each with `context`
    lines before it, as text (empty when they are equal)."""
    if want == got:
        return ""
    w, g = want.splitlines(), got.splitlines()
    out, shown = [], 0
    for i in range(max(len(w), len(g))):
        lw = w[i] if i < len(w) else "<end of output>"
        lg = g[i] if i < len(g) else "<end of output>"
        if lw == lg:
            continue
        out.append(f"line {i + 1}:")
        for j in range(max(0, i - context), i):
            out.append(f"    {g[j] if j < len(g) else ''}")
        out.append(f"  - {lw}")
        out.append(f"  + {lg}")
        shown += 1
        if shown == limit:
            break
    if not out:  # only the final newline differs
        out.append("the outputs differ in their final newline")
    n = sum(1 for i in range(max(len(w), len(g)))
            if (w[i] if i < len(w) else None) != (g[i] if i < len(g) else None))
    return (f"{n} of {max(len(w), len(g))} lines differ (- expected, "
            "+ bcusim):\n" + "\n".join(out))


if a.native_stdout:
    import tarfile
    try:
        with tarfile.open(a.native_stdout) as t:
            native = t.extractfile(a.native_name + ".out").read().decode()
    except (OSError, KeyError, tarfile.TarError) as e:
        print(f"no recorded stdout {a.native_name}.out: {e}")
        native = None
        ok = False
    diff = stdout_differences(native, r.stdout) if native is not None else ""
    if diff:
        print(f"stdout differs from the GPU's ({a.native_name}.out): {diff}")
        ok = False
for s in a.expect_stderr:
    if s not in r.stderr:
        print(f"expected on stderr: {s}")
        ok = False


if a.expect_stdout_file:
    if not os.path.exists(a.expect_stdout_file):
        print(f"note: {a.expect_stdout_file} does not exist; stdout not "
              "compared")
    else:
        with open(a.expect_stdout_file, encoding="utf-8",
                  errors="replace") as f:
            diff = stdout_differences(f.read(), r.stdout)
        if diff:
            print(f"stdout differs from {a.expect_stdout_file}: {diff}")
            ok = False
for s in a.expect_stderr_once:
    if r.stderr.count(s) != 1:
        print(f"expected once on stderr ({r.stderr.count(s)} times): {s}")
        ok = False
for path, key, item in a.expect_report_item:
    import json
    try:
        with open(path) as f:
            items = json.load(f).get(key, [])
    except (OSError, ValueError) as e:
        items = []
        print(f"report {path}: {e}")
    if item not in items:
        print(f"report {path}: {key} {items} lacks {item}")
        ok = False
for s in a.expect_no_stderr:
    if s in r.stderr:
        print(f"not expected on stderr: {s}")
        ok = False
sys.exit(0 if ok else 1)
