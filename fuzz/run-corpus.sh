#!/bin/sh
# Runs every libFuzzer target for RUNS inputs, starting from its committed
# corpus fuzz/corpus/<target>/ (docs/fuzzing.md). New interesting inputs go
# to a scratch directory, so the committed corpus stays as it is; a crash,
# leak or timeout stops the run with libFuzzer's report and the input saved
# as crash-*/leak-*/timeout-* in the current directory.
#
# Usage: fuzz/run-corpus.sh BUILD_DIR [RUNS] [extra libFuzzer options...]
set -eu
build=${1:?usage: run-corpus.sh BUILD_DIR [RUNS]}
runs=${2:-3000}
[ $# -ge 2 ] && shift 2 || shift 1
here=$(cd "$(dirname "$0")" && pwd)
status=0
for dir in "$here"/*/; do
  target=$(basename "$dir")
  [ -f "$dir/CMakeLists.txt" ] || continue
  exe=$(find "$build/fuzz/$target" -maxdepth 1 -type f -perm -u+x 2>/dev/null | head -n 1)
  if [ -z "$exe" ]; then
    echo "fuzz/$target: no fuzzer built in $build/fuzz/$target" >&2
    status=1
    continue
  fi
  corpus="$here/corpus/$target"
  if [ ! -d "$corpus" ]; then
    echo "fuzz/$target: no corpus $corpus" >&2
    status=1
    continue
  fi
  scratch=$(mktemp -d)
  start=$(date +%s)
  if "$exe" -runs="$runs" -seed=1 -max_len=8192 -timeout=20 -rss_limit_mb=4096 \
       -print_final_stats=0 "$@" "$scratch" "$corpus" >"$scratch.log" 2>&1; then
    echo "fuzz/$target: $runs runs over $(ls "$corpus" | wc -l) corpus inputs: ok ($(( $(date +%s) - start )) s)"
  else
    echo "fuzz/$target: FAILED" >&2
    tail -n 40 "$scratch.log" >&2
    status=1
  fi
  rm -rf "$scratch" "$scratch.log"
done
exit $status
