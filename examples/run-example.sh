#!/usr/bin/env bash
# `make run`: the bundled example. Grows as the parts land.
set -euo pipefail
BCUSIM=${1:-build/bcusim}
# Resolve the binary before changing directory (make passes a relative path).
BCUSIM="$(cd "$(dirname "$BCUSIM")" && pwd)/$(basename "$BCUSIM")"
# Timelines and the SARIF log are written beside the binary.
OUT="$(dirname "$BCUSIM")"
cd "$(dirname "$0")"
"$BCUSIM" --version

# ISA tools (docs/isa.md): assemble the demo, disassemble the words, explain one.
words="$(mktemp)"
trap 'rm -f "$words"' EXIT
echo "== bcusim asm --format hex isa/demo.s"
"$BCUSIM" asm --format hex isa/demo.s | tee "$words"
echo "== bcusim disasm (the words back to canonical text)"
"$BCUSIM" disasm "$words"
echo "== bcusim isa explain \"BAR.RED.OR R6, !P1\""
"$BCUSIM" isa explain "BAR.RED.OR R6, !P1"

# Barrier unit (docs/bcu.md): replay a co-simulation trace against the golden model.
echo "== bcusim replay replay/05-producer-consumer.trace"
"$BCUSIM" replay replay/05-producer-consumer.trace

# Engine + lowering (docs/engine.md, docs/barriers.md): a real nvcc kernel, a
# producer/consumer pipeline on two named barriers plus __syncthreads_count
# (kernels/pipeline.cu). First what its barriers become on the BCU, then the run.
echo "== bcusim lower kernels/pipeline.ptx"
"$BCUSIM" lower kernels/pipeline.ptx
# --timeline writes what the warps and barriers did over simulated time
# (open it in ui.perfetto.dev or chrome://tracing; docs/checker.md
# "Timeline").
echo "== bcusim run kernels/pipeline.ptx -g 2 -b 128 ... --dump 2 --timeline $OUT/pipeline.trace.json"
"$BCUSIM" run kernels/pipeline.ptx -g 2 -b 128 -a 's32[512]=iota' -a 's32[512]' \
  -a 's32[2]' -a s32:4 --dump 2 --timeline "$OUT/pipeline.trace.json"

# bcusim exec (docs/exec.md): an unmodified CUDA program, built with
# nvcc -cudart shared, runs with every kernel in bcusim and prints its own
# PASS; bcusim adds a summary line at exit. Needs nvcc and the CUDA headers.
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
CUDART_LIB="$(dirname "$BCUSIM")/lib/libcudart.so.13"
if [ -x "$NVCC" ] && [ -e "$CUDART_LIB" ]; then
  out=$(mktemp -d)
  echo "== nvcc -cudart shared -arch=sm_90 exec/histogram.cu; bcusim exec --check all histogram 50000"
  "$NVCC" -cudart shared -arch=sm_90 exec/histogram.cu -o "$out/histogram"
  "$BCUSIM" exec --check all "$out/histogram" 50000
  rm -rf "$out"
else
  echo "== bcusim exec: skipped ($NVCC or $CUDART_LIB is missing)"
fi

# Hopper pipelines (docs/hopper.md): a warp-specialized GEMM (TMA copies on
# a full/empty mbarrier pipeline, wgmma on shared-memory descriptors,
# setmaxnreg, elect.sync; tests/exec/hopper_gemm.cu) runs clean under
# --check all and matches its host reference; then the same program with
# its epilogue's fence.proxy.async left out: the checker names the tensor
# store that reads shared memory the threads wrote through the generic
# proxy.
if [ -x "$NVCC" ] && [ -e "$CUDART_LIB" ]; then
  out=$(mktemp -d)
  echo "== nvcc -cudart shared -gencode arch=compute_90a,code=[sm_90a,compute_90a] hopper_gemm.cu; bcusim exec --check all hopper_gemm"
  "$NVCC" -cudart shared -gencode 'arch=compute_90a,code=[sm_90a,compute_90a]' -I../tests/exec \
    ../tests/exec/hopper_gemm.cu -o "$out/hopper_gemm"
  if "$BCUSIM" exec --check all "$out/hopper_gemm" >"$out/log" 2>&1; then
    cat "$out/log"
    echo "== bcusim exec --check all --error-exitcode 1 hopper_gemm fence (no fence.proxy.async before the tensor store)"
    status=0
    "$BCUSIM" exec --check all --error-exitcode 1 "$out/hopper_gemm" fence || status=$?
    echo "(exit status $status: error findings)"
    [ "$status" -eq 1 ]
  elif grep -q "not supported" "$out/log"; then
    echo "(skipped: this build does not run every instruction of the pipeline yet)"
  else
    cat "$out/log"
    exit 1
  fi
  rm -rf "$out"
fi

# Checker (docs/checker.md): the same tile computation with and without the
# __syncthreads() between staging data in shared memory and reading it
# (kernels/tile_sum.cu). The racy version computes the right result on the
# default schedule, yet the race checker reports each pair of conflicting
# instructions with both CUDA lines, the threads and what is missing; the
# run then exits with status 1. The fixed version is clean. Each finding is
# located at its CUDA line (source text and caret), its PTX instruction
# follows as a note.
echo "== bcusim run kernels/tile_sum.ptx -k tile_sum ... --check all"
"$BCUSIM" run kernels/tile_sum.ptx -k tile_sum -g 2 -b 256 \
  -a 's32[512]=iota' -a 's32[512]' --check all
echo "== bcusim run kernels/tile_sum.ptx -k tile_sum_racy ... --check race --timeline ... --sarif ..."
status=0
"$BCUSIM" run kernels/tile_sum.ptx -k tile_sum_racy -g 2 -b 256 \
  -a 's32[512]=iota' -a 's32[512]' --check race \
  --timeline "$OUT/tile_sum_racy.trace.json" --sarif "$OUT/tile_sum_racy.sarif" \
  || status=$?
echo "(exit status $status: error findings; SARIF log: $OUT/tile_sum_racy.sarif)"
[ "$status" -eq 1 ]

