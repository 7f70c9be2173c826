#!/usr/bin/env bash
# `make run`: the bundled example. Grows as the parts land.
set -euo pipefail
BCUSIM=${1:-build/bcusim}
cd "$(dirname "$0")"
"$BCUSIM" --version
