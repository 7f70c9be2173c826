#!/usr/bin/env bash
# Build tools/gpu/mufu_sweep.cu with bcusim's MUFU models linked in.
#   tools/gpu/build_mufu_sweep.sh [OUT]   (default build/mufu_sweep)
# Needs nvcc (CUDA_HOME, default /usr/local/cuda). The result runs where an
# NVIDIA GPU and its driver are (libstdc++ linked statically).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/build/mufu_sweep}
cuda=${CUDA_HOME:-/usr/local/cuda}
"$cuda/bin/nvcc" -O3 -std=c++20 -gencode arch=compute_90,code=sm_90 \
  -I"$root/src/engine" -Xcompiler -static-libstdc++,-static-libgcc \
  "$root/tools/gpu/mufu_sweep.cu" "$root/src/engine/mufu.cpp" \
  "$root/src/engine/float_format.cpp" -o "$out"
echo "built $out"
