#!/usr/bin/env bash
# `make run`: the bundled example. Grows as the parts land.
set -euo pipefail
BCUSIM=${1:-build/bcusim}
# Resolve the binary before changing directory (make passes a relative path).
BCUSIM="$(cd "$(dirname "$BCUSIM")" && pwd)/$(basename "$BCUSIM")"
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
