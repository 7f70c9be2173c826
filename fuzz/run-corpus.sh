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
  # The corpus: fuzz/corpus/<target>/ (inputs of its own) plus the
  # project's test inputs that fuzz/corpus/<target>.seeds names (globs
  # relative to the repository), so that they are not kept twice.
  corpus="$here/corpus/$target"
  seeds=$(mktemp -d)
  if [ -f "$corpus.seeds" ]; then
    while read -r glob; do
      [ -n "$glob" ] || continue
      for f in "$here"/../$glob; do
        if [ -f "$f" ]; then cp "$f" "$seeds/"; fi
      done
    done < "$corpus.seeds"
  fi
  [ -d "$corpus" ] || corpus=$seeds
  if [ -z "$(find "$corpus" "$seeds" -type f)" ]; then
    echo "fuzz/$target: no corpus $corpus and no seeds" >&2
    status=1
    rm -rf "$seeds"
    continue
  fi
  scratch=$(mktemp -d)
  start=$(date +%s)
  if "$exe" -runs="$runs" -seed=1 -max_len=8192 -timeout=20 -rss_limit_mb=4096 \
       -print_final_stats=0 "$@" "$scratch" "$corpus" "$seeds" >"$scratch.log" 2>&1; then
    echo "fuzz/$target: $runs runs over $(find "$corpus" "$seeds" -type f | sort -u | wc -l) corpus inputs: ok ($(( $(date +%s) - start )) s)"
  else
    echo "fuzz/$target: FAILED" >&2
    tail -n 40 "$scratch.log" >&2
    status=1
  fi
  rm -rf "$scratch" "$scratch.log" "$seeds"
done
exit $status
